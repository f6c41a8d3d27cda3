"""Pairing causal and masked models by accuracy (Kissling et al. 2026, §5.3, Table 2): the
accuracy over the five paraphrases per model and scope (the whole probe or BEAR's knowledge
domains), the pairs of similar accuracy, and the pairs the largest allowed gap prevents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence import template_predictions
from calib.confidence.bootstrap import interval, jackknife, replicates
from calib.confidence.metrics import weighted_accuracy
from calib.data.bear import PARAPHRASES, load_bear

#: where accuracy is compared when pairing: the whole probe (the paper's Table 2) or a domain
SCOPES: tuple[str, ...] = ("probe", "domain")
#: the scope name of the whole probe (this build's BEAR sample)
ALL = "the whole probe"
PAIRING_RULE = (
    "Accuracy is that of the Base prediction averaged over all templates (the five "
    "paraphrases), as in the caption of the paper's Table 2. Among the models not yet paired, "
    "the causal-masked pair with the smallest accuracy gap on one scope (the whole probe, or a "
    "BEAR domain) is taken, and this repeats until one side runs out or the smallest gap left "
    "exceeds the largest gap allowed; each model is in at most one pair, and a pair is "
    "compared on the instances of its scope."
)


# ---------------------------------------------------------------------------------------------
# the steps


def relation_domains(relations: Sequence[str] | None = None, *, data_dir=None) -> pd.DataFrame:
    """BEAR's knowledge domains: one row per (``relation``, ``domain``); a relation can be in
    several domains (``bear/relation_info.json``)."""
    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    rows = [(r, d) for r, rel in bear.relations.items() for d in rel.domains]
    return pd.DataFrame(rows, columns=["relation", "domain"])


def scoped(estimates: pd.DataFrame, domains: pd.DataFrame, within: str = "probe") -> pd.DataFrame:
    """``estimates`` with a ``scope`` column: the single scope :data:`ALL`
    (``within="probe"``) or one copy of each row per domain of its relation
    (``within="domain"``)."""
    if within not in SCOPES:
        raise ValueError(f"unknown within {within!r}; expected one of {list(SCOPES)}")
    if within == "probe":
        return estimates.assign(scope=ALL)
    out = estimates.merge(domains.rename(columns={"domain": "scope"}), on="relation", how="inner")
    if out.empty:
        raise ValueError("no relation of the estimates has a knowledge domain")
    return out


def _mean_interval(x: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    """A 95% BCa bootstrap interval of the mean of ``x`` over its entries (NaN with
    ``n_boot`` 0)."""
    if not n_boot or len(x) == 0:
        return float("nan"), float("nan")

    def stat(w: np.ndarray) -> np.ndarray:
        return weighted_accuracy(x, x, w)

    point = float(x.mean())
    return interval(
        point,
        replicates(stat, len(x), n_boot, seed),
        0.95,
        "bca",
        jackknife(stat, len(x)),
        (0.0, 1.0),
    )


def template_accuracy(
    sent: pd.DataFrame,
    objectives: Mapping[str, str],
    domains: pd.DataFrame,
    within: str = "probe",
    templates: Sequence[str] = PARAPHRASES,
    n_boot: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Accuracy of the Base prediction averaged over ``templates`` (default the five paraphrases),
    per model and scope: Table 2's "average over all templates". Every template covers the same
    instances, so this is the mean over templates of each template's accuracy (and the mean over
    instances of each instance's share of correct templates, over which the 95% BCa interval
    ``accuracy_low``, ``accuracy_high`` is bootstrapped; NaN with ``n_boot`` 0). ``sent``: a
    sentence-score table (or its :func:`~calib.confidence.probabilities.template_predictions`).
    Columns ``model``, ``objective``, ``scope``, ``n`` (instances), ``templates``, ``accuracy``,
    ``accuracy_low``, ``accuracy_high``.
    """
    per = sent if "p_top" in sent.columns else template_predictions(sent)
    per = per[per["template"].isin(list(templates))]
    if per.empty:
        raise ValueError(f"none of the templates {list(templates)} is in the table")
    sc = scoped(per[["model", "relation", "instance", "template", "correct"]], domains, within)
    by = ["model", "scope"]
    facts = (
        sc.assign(correct=sc["correct"].astype(float))
        .groupby([*by, "relation", "instance"], sort=True)["correct"]
        .mean()
    )
    out = (
        sc.groupby(by, sort=True)
        .agg(templates=("template", "nunique"))
        .assign(n=facts.groupby(level=by).size(), accuracy=facts.groupby(level=by).mean())[
            ["n", "templates", "accuracy"]
        ]
        .reset_index()
    )
    unknown = sorted(set(out["model"].unique()) - set(objectives))
    if unknown:
        raise ValueError(f"no objective given for model(s) {unknown}")
    out.insert(1, "objective", out["model"].map(dict(objectives)))
    bounds = [
        _mean_interval(facts.loc[(m, s)].to_numpy(float), n_boot, seed)
        for m, s in zip(out["model"], out["scope"])
    ]
    out["accuracy_low"] = [b[0] for b in bounds]
    out["accuracy_high"] = [b[1] for b in bounds]
    return out


PAIR_COLUMNS: tuple[str, ...] = (
    "pair",
    "clm",
    "mlm",
    "scope",
    "n",
    "clm_accuracy",
    "mlm_accuracy",
    "gap",
)


def pair_models(
    accuracy: pd.DataFrame, max_gap: float | None = None, min_instances: int = 1
) -> pd.DataFrame:
    """Pairs of one CLM and one MLM by closest accuracy (see ``PAIRING_RULE``), each
    within ``max_gap`` (``None``: no limit).

    ``accuracy``: :func:`template_accuracy`. Returns one row per pair, in the order they were
    taken: ``pair`` (1, 2, ...), ``clm``, ``mlm``, ``scope``, ``n``, ``clm_accuracy``,
    ``mlm_accuracy``, ``gap``. Empty when one objective has no model or no pair is within
    ``max_gap``.
    """
    acc = accuracy[accuracy["n"] >= min_instances]
    clm = acc[acc["objective"] == "clm"]
    mlm = acc[acc["objective"] == "mlm"]
    cols = list(PAIR_COLUMNS)
    if clm.empty or mlm.empty:
        return pd.DataFrame(columns=cols)
    cand = clm.merge(mlm, on="scope", suffixes=("_clm", "_mlm"))
    cand = cand.assign(gap=(cand["accuracy_clm"] - cand["accuracy_mlm"]).abs().round(12))
    cand = cand.sort_values(["gap", "scope", "model_clm", "model_mlm"], kind="stable")
    used: set[str] = set()
    rows: list[tuple] = []
    for c in cand.itertuples(index=False):
        if c.model_clm in used or c.model_mlm in used:
            continue
        if max_gap is not None and c.gap > max_gap:
            break
        used |= {c.model_clm, c.model_mlm}
        rows.append(
            (
                len(rows) + 1,
                c.model_clm,
                c.model_mlm,
                c.scope,
                int(c.n_clm),
                c.accuracy_clm,
                c.accuracy_mlm,
                c.gap,
            )
        )
    return pd.DataFrame(rows, columns=cols)


def left_out_pairs(
    accuracy: pd.DataFrame, pairs: pd.DataFrame, min_instances: int = 1
) -> pd.DataFrame:
    """The pairs the rule would form without a gap limit among the models ``pairs`` leaves
    unpaired (:func:`pair_models` with no ``max_gap`` on them): what ``max_gap`` prevents,
    with their gaps (columns of :func:`pair_models`)."""
    paired = set(pairs["clm"].unique()) | set(pairs["mlm"].unique())
    rest = accuracy[~accuracy["model"].isin(paired)]
    return pair_models(rest, None, min_instances)
