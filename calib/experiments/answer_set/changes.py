"""The changes with the size of the answer space the claims of §5.2 are about (Kissling et al.
2026): ACE and the signed gap from one ``k`` to another with paired bootstrap intervals, a larger
model's fall of ACE against the small CLMs', and the same changes in the authors' data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.combined import Term, combined_interval, estimate_terms
from calib.data.reported import reported
from calib.experiments.answer_set.groups import GROUPS, model_groups
from calib.experiments.paper_tables import paper_models, text_value

#: §5.2's "After 15–20 answer options, ACE stabilizes": the low answer counts end at 15, the
#: stable range starts at 20
LOW_K_END = int(text_value("ace_stable_from"))
STABLE_FROM = int(text_value("ace_stable_to"))


#: the changes :func:`option_changes` computes: name -> (metric, which end, which start, what
#: it is about); ``kmin``, ``kmax`` the smallest and largest ``k`` of the run
CHANGES: dict[str, tuple[str, str, str, str]] = {
    "ace_change": ("ace", "kmax", "kmin", "ACE(largest k) - ACE(smallest k)"),
    "confidence_change": (
        "confidence",
        "kmax",
        "kmin",
        "confidence(largest k) - confidence(smallest k)",
    ),
    "accuracy_change": ("accuracy", "kmax", "kmin", "accuracy(largest k) - accuracy(smallest k)"),
    "gap_drop": (
        "gap",
        "kmin",
        "kmax",
        "[confidence - accuracy](smallest k) - [confidence - accuracy](largest k): "
        "how much faster confidence drops than accuracy",
    ),
    "ace_low_change": ("ace", "klow", "kmin", "ACE(k=15) - ACE(smallest k)"),
    "gap_low_change": (
        "gap",
        "klow",
        "kmin",
        "[confidence - accuracy](k=15) - [confidence - accuracy](smallest k): "
        "how much faster accuracy drops than confidence at low answer counts",
    ),
    "ace_stable_change": ("ace", "kmax", "kstable", "ACE(largest k) - ACE(k=20)"),
}


def reference_ks(ks: Sequence[int]) -> dict[str, int | None]:
    """The ``k`` the changes of :data:`CHANGES` run between: the smallest and largest of
    ``ks``, the end of the low answer counts (the largest ``k`` up to :data:`LOW_K_END` above
    the smallest) and the start of the stable range (``STABLE_FROM`` when it is in ``ks``
    and below the largest); None where ``ks`` has none."""
    ks = sorted({int(k) for k in ks})
    low = [k for k in ks if ks[0] < k <= LOW_K_END]
    return {
        "kmin": ks[0],
        "kmax": ks[-1],
        "klow": low[-1] if low else None,
        "kstable": STABLE_FROM if STABLE_FROM in ks and ks[-1] > STABLE_FROM else None,
    }


def _model_terms(est: pd.DataFrame, metric: str) -> dict[tuple, Term]:
    """Terms per (model, estimator, k, repeat), all on one sample (the 1:1 instances)."""
    return estimate_terms(est, "bear-1:1", metric, ["model", "estimator", "k", "repeat"])


def _repeat_terms(terms: Mapping[tuple, Term], model: str, estimator: str, k: int) -> list[Term]:
    return [t for key, t in terms.items() if key[:3] == (model, estimator, k)]


def _difference(
    terms: Mapping[tuple, Term], model: str, estimator: str, a: int, b: int
) -> tuple[list[Term], list[float]]:
    """Terms and coefficients of mean over draws(metric at ``a``) - mean(metric at ``b``)."""
    ta, tb = (_repeat_terms(terms, model, estimator, a), _repeat_terms(terms, model, estimator, b))
    return ta + tb, [1 / len(ta)] * len(ta) + [-1 / len(tb)] * len(tb)


def option_changes(
    est: pd.DataFrame,
    ks: Sequence[int],
    groups: Mapping[str, str],
    n_boot: int = 1000,
    seed: int = 0,
    estimator: str = "Base",
) -> pd.DataFrame:
    """The changes of :data:`CHANGES` per model for ``estimator`` (C_Base, as Figure 3): each
    the mean over the draws at one ``k`` minus the mean at another, with a 95% interval from a
    paired bootstrap over the instances (the same resamples for every draw and both ``k``;
    bias-centred for ACE, BCa for the others). ACE changes also get ``debiased`` columns: the
    change of ACE minus its noise floor (the confidences, and so the floor, differ between the
    two ``k``). Columns ``model``, ``group``, ``change``, ``what``, ``metric``, ``a``, ``b``
    (the two ``k``), ``difference``, ``low``, ``high``, ``p_value``, ``n``,
    ``debiased``, ``debiased_low``, ``debiased_high``."""
    at = reference_ks(ks)
    rows = []
    cache = {
        m: _model_terms(est[est["estimator"] == estimator], m)
        for m in ("ace", "confidence", "accuracy", "gap")
    }
    for model in dict.fromkeys(est["model"].unique()):
        for name, (metric, end, start, what) in CHANGES.items():
            a, b = at[end], at[start]
            if a is None or b is None or a == b:
                continue
            terms, coefs = _difference(cache[metric], model, estimator, a, b)
            got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed)
            row = {
                "model": model,
                "group": groups.get(model, ""),
                "change": name,
                "what": what,
                "metric": metric,
                "a": a,
                "b": b,
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "n": len(terms[0].confidence),
                "debiased": np.nan,
                "debiased_low": np.nan,
                "debiased_high": np.nan,
            }
            if metric == "ace":
                deb = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True)
                row.update(
                    debiased=deb["difference"], debiased_low=deb["low"], debiased_high=deb["high"]
                )
            rows.append(row)
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "group",
            "change",
            "what",
            "metric",
            "a",
            "b",
            "difference",
            "low",
            "high",
            "p_value",
            "n",
            "debiased",
            "debiased_low",
            "debiased_high",
        ],
    )


def less_pronounced(
    est: pd.DataFrame,
    ks: Sequence[int],
    groups: Mapping[str, str],
    n_boot: int = 1000,
    seed: int = 0,
    estimator: str = "Base",
) -> pd.DataFrame:
    """ "In larger CLMs and all MLMs this effect is less pronounced" (§5.2): per CLM of 1B or
    more and per MLM, its fall of ACE from the smallest to the largest ``k`` minus the mean fall
    over the CLMs under 1B (negative: less pronounced), with a 95% interval from one paired
    bootstrap over the instances (every model scored on the same instances). Empty without a
    CLM under 1B or without a larger model. Columns ``model``, ``group``, ``difference``,
    ``low``, ``high``, ``p_value``, ``n_small``."""
    cols = ["model", "group", "difference", "low", "high", "p_value", "n_small"]
    at = reference_ks(ks)
    kmin, kmax = at["kmin"], at["kmax"]
    if kmin is None or kmax is None:  # reference_ks gives both for any ks it accepts
        raise ValueError(f"no smallest and largest k among {list(ks)}")
    small = [m for m, g in groups.items() if g == GROUPS[0] and m in set(est["model"].unique())]
    others = [m for m, g in groups.items() if g in GROUPS[1:] and m in set(est["model"].unique())]
    if not small or not others or kmin == kmax:
        return pd.DataFrame(columns=cols)
    terms = _model_terms(est[est["estimator"] == estimator], "ace")
    rows = []
    for model in others:
        # fall = ACE(kmin) - ACE(kmax) = -(ACE(kmax) - ACE(kmin))
        mine, coefs = _difference(terms, model, estimator, kmin, kmax)
        for s in small:
            t, c = _difference(terms, s, estimator, kmin, kmax)
            mine, coefs = mine + t, coefs + [-x / len(small) for x in c]
        got = combined_interval(mine, coefs, n_boot=n_boot, seed=seed)
        rows.append(
            {
                "model": model,
                "group": groups[model],
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "n_small": len(small),
            }
        )
    return pd.DataFrame(rows, columns=cols)


def authors_changes() -> pd.DataFrame:
    """The changes the claims are about, in the authors' repository's subsampling data (the
    earlier version's 16 models; means of three draws, no interval): per model its group,
    ACE(60) - ACE(5), ACE(60) - ACE(20), the drop of confidence minus the drop of accuracy
    from 5 to 60, and ACE(15) - ACE(5)."""
    rep = reported("kissling2026_repo_answer_space_subsampling")
    info = paper_models().set_index("registry_name")
    wide = {
        c: rep.pivot_table(index="registry_name", columns="sample_size", values=c)
        for c in ("ace", "avg_conf", "accuracy")
    }
    gap = wide["avg_conf"] - wide["accuracy"]
    names = wide["ace"].index
    groups = model_groups(
        info["objective"].reindex(names).to_dict(), info["size_m"].reindex(names).to_dict()
    )
    out = pd.DataFrame(
        {
            "model": names,
            "group": [groups[m] for m in names],
            "ace_5_to_60": (wide["ace"][60] - wide["ace"][5]).to_numpy(),
            "ace_20_to_60": (wide["ace"][60] - wide["ace"][20]).to_numpy(),
            "gap_drop_5_to_60": (gap[5] - gap[60]).to_numpy(),
            "ace_5_to_15": (wide["ace"][15] - wide["ace"][5]).to_numpy(),
        }
    )
    order = {g: i for i, g in enumerate(GROUPS)}
    return out.sort_values(
        ["group", "model"], key=lambda s: s.map(order) if s.name == "group" else s, kind="stable"
    ).reset_index(drop=True)
