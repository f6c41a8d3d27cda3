"""The number of answer options (Kissling et al. 2026, §5.2, Figures 3 and 4).

BEAR's 1:1 relations have 60 options per instance. Cutting the answer space to ``k`` options (the
correct one always kept, the others drawn at random:
:func:`calib.confidence.subsample.subsample_options`) from the *stored* scores, with no rescoring,
shows how Base confidence, accuracy and ACE move with the size of the answer space (Figure 3; each
point the mean over ``repeats`` seeded draws of the options, as the paper's "mean over three
repeated samplings"). At ``k = 5`` BEAR's 1:1 relations are set beside FACTOR's four options for the
same models (Figure 4; FACTOR is scored with :func:`calib.experiments.factor.scoring.score_factor`,
the FACTOR chapter's scoring, so the two chapters share the stored scores).

The unit: :class:`Params`, :func:`run` (``Params`` -> :class:`AnswerSetResult`) and
``CLAIMS`` (§5.2's claims). The steps:

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`answer_set_scores`           the plain template's scores on the sample's 1:1 relations
:func:`option_estimates`            Base and Margin per model, ``k`` and draw of the options
:func:`curve_points`                Figure 3's points: per model, estimator and ``k`` the mean
                                    over the draws of confidence, accuracy and ACE with 95%
                                    intervals over instances, the draws' spread, ACE's floor
:func:`curve_long`                  the same, one row per plotted metric (the chart)
:func:`option_changes`              the changes the claims are about (ACE and the signed gap
                                    from one ``k`` to another), paired bootstrap intervals
:func:`less_pronounced`             a larger model's fall of ACE against the small CLMs'
:func:`figure4_points`              BEAR 1:1 with 5 options beside FACTOR, per model
:func:`relation_offsets`            FACTOR's ACE against the BEAR (5 options) line
:func:`authors_changes`             the same changes in the authors' repository's data
==================================  ==========================================================

Intervals of a mean over draws, or of a difference between two ``k``, come from one bootstrap
over the instances applied to every draw and every ``k`` (the draws are of the *options*, the
bootstrap of the *instances*: :func:`calib.confidence.combined.combined_interval`). The
spread of the draws (their minimum and maximum) is shown too but is not an interval. The
changes between two ``k`` are on the same instances and judged on the raw ACE, as the paper
measures it (the change of the debiased ACE beside it, beyond the paper); Figure 4 sets samples
of different sizes side by side (BEAR's 1:1 facts, FACTOR's items), whose raw ACEs carry
different noise floors, so :func:`relation_offsets` works on debiased ACEs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from calib.confidence.combined import Term, combined_interval, estimate_terms, repeat_summary
from calib.confidence.reductions import sentence_scores
from calib.confidence.subsample import subsampled_estimates
from calib.data.bear import ONE_TO_ONE_OPTIONS, PLAIN, one_to_one_relations
from calib.data.reported import reported
from calib.experiments.claims import Claim
from calib.experiments.factor.bear import BEAR_OPTIONS as FACTOR_BEAR_OPTIONS
from calib.experiments.factor.scoring import FACTOR_MAX_TOKENS, factor_estimates, score_factor
from calib.experiments.factor.tables import factor_summary, subset_name
from calib.experiments.paper_tables import paper_models, text_value
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.quantifiers import Evidence, every, printed
from calib.experiments.scores import objectives as model_objectives
from calib.experiments.verdicts import Judgement
from calib.scoring.run import score_bear

#: the paper's grid of answer-space sizes
K_GRID: tuple[int, ...] = tuple(range(5, 61, 5))
#: the metrics of the authors' subsampling data, as named in :func:`reported_curve`
CURVE_METRICS: tuple[str, ...] = ("confidence", "accuracy", "ace", "ace_margin")
#: Figure 3's metrics (of C_Base) as the chart titles them
FIGURE3_TITLES: dict[str, str] = {
    "confidence": "mean confidence",
    "accuracy": "accuracy",
    "ace": "ACE",
}
#: §5.2's "CLMs smaller than 1B" (millions of parameters)
SMALL_CLM = text_value("small_clm_size")
#: §5.2's "After 15–20 answer options, ACE stabilizes": the low answer counts end at 15, the
#: stable range starts at 20
LOW_K_END = int(text_value("ace_stable_from"))
STABLE_FROM = int(text_value("ace_stable_to"))
#: BEAR's answer options in Figure 4 ("we sampled the number of answer options to five")
BEAR_OPTIONS = FACTOR_BEAR_OPTIONS
#: how far two ACEs may differ and still be "similar" / "stable": the width of the paper's ACE
#: classes (Table 1's and Table 4's captions: [0, 0.05), [0.05, 0.10), ...). In the authors'
#: repository's data the larger CLMs and the MLMs change by at most 0.042 from 20 to 60 options
#: (opt-1.3b), the CLMs under 1B by 0.061 to 0.106
SIMILAR_ACE = 0.05
#: the groups of models §5.2 speaks of
GROUPS: tuple[str, ...] = ("CLM under 1B", "CLM of 1B or more", "MLM")


@dataclass(frozen=True)
class Params(ChapterParams):
    """The answer-set chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "answer_set"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(
        None, "BEAR relations to draw from (the 1:1 ones are used; None: all 60)"
    )
    per_relation: int | None = parameter(
        1, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the samples, the option draws and every bootstrap")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    ks: tuple[int, ...] = parameter(K_GRID, "answer-space sizes k")
    repeats: int = parameter(3, "seeded draws of the options per k")
    factor_subsets: tuple[str, ...] = parameter(("news", "expert"), "FACTOR subsets for Figure 4")
    factor_items: int | None = parameter(30, "FACTOR items per subset (as in the FACTOR chapter)")
    factor_max_tokens: int | None = parameter(
        FACTOR_MAX_TOKENS, "FACTOR statements keep their last N tokens (as FACTOR cuts)"
    )
    factor_completion_words: int | None = parameter(
        None, "leave out FACTOR items with longer completions"
    )


@dataclass(frozen=True)
class AnswerSetResult:
    """Every frame and number the answer-set page shows (:func:`run`)."""

    params: Params
    #: model -> ``clm`` / ``mlm``; model -> millions of parameters (None: unknown); model ->
    #: one of :data:`GROUPS` ("" when its size is unknown)
    objectives: dict[str, str]
    sizes: dict[str, float | None]
    groups: dict[str, str]
    #: the 1:1 relations of the sample and its instances per model
    relations: list[str]
    n_instances: int
    #: :func:`curve_points` (Figure 3's points, Base and Margin) and :func:`curve_long` (chart)
    points: pd.DataFrame
    curve: pd.DataFrame
    #: :func:`option_changes` and :func:`less_pronounced`
    changes: pd.DataFrame
    less_pronounced: pd.DataFrame
    #: FACTOR items per model and subset behind Figure 4
    n_factor_items: int
    #: :func:`figure4_points` and :func:`relation_offsets`
    figure4: pd.DataFrame
    offsets: pd.DataFrame
    #: the authors' repository's subsampling data (:func:`reported_curve`) and
    #: :func:`authors_changes`
    authors_curve: pd.DataFrame
    authors: pd.DataFrame


# ---------------------------------------------------------------------------------------------
# the steps


def answer_set_scores(
    models: Sequence[str],
    relations: Iterable[str] | None = None,
    per_relation: int | None = None,
    seed: int = 0,
    *,
    template: str = PLAIN,
    data_dir=None,
    cache_dir=None,
    device: str | None = "auto",
    progress: bool = True,
) -> pd.DataFrame:
    """The score table of ``models`` on the 1:1 relations among ``relations`` under the plain
    ``template``: the same seeded BEAR sample as every BEAR chapter, so the scores come from
    the cache when another chapter scored them. ``ValueError`` when no 1:1 relation is left."""
    chosen = one_to_one_relations(list(relations) if relations else None, data_dir=data_dir)
    if not chosen:
        raise ValueError(
            f"none of the relations {list(relations or [])} is a 1:1 relation with "
            f"{ONE_TO_ONE_OPTIONS} options; Figure 3 needs at least one"
        )
    return score_bear(
        list(models),
        [template],
        per_relation,
        seed,
        chosen,
        data_dir=data_dir,
        cache_dir=cache_dir,
        device=device,
        progress=progress,
    )


def option_estimates(
    sent: pd.DataFrame,
    ks: Sequence[int] = K_GRID,
    repeats: int = 3,
    seed: int = 0,
    template: str = PLAIN,
) -> pd.DataFrame:
    """Base and Margin for each ``k`` in ``ks`` and each of ``repeats`` seeded draws of the
    options (the correct one kept, §5.2; the draws shared by every model,
    :func:`calib.confidence.subsample.subsampled_estimates`): one estimate table with
    ``estimator``, ``k`` and ``repeat``. A ``k`` at least as large as an answer space keeps it
    whole (every draw is then the same)."""
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 2:
        raise ValueError(f"ks must be answer-space sizes >= 2, got {ks}")
    return pd.concat(
        [subsampled_estimates(sent, k, repeats, seed, template) for k in ks], ignore_index=True
    )


def curve_points(
    est: pd.DataFrame,
    objectives: Mapping[str, str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Figure 3's points: per model, estimator and ``k``, the mean over the draws of the
    options of the mean ``confidence``, the ``accuracy`` and the ``ace``, each with a 95%
    interval from a bootstrap over instances applied to every draw (``_low``, ``_high``) and
    the draws' spread (``_min``, ``_max``), and ACE's noise floor with the debiased ACE
    (:func:`calib.confidence.combined.repeat_summary`, beyond the paper)."""
    out = repeat_summary(
        est,
        by=["model", "estimator", "k"],
        metrics=("confidence", "accuracy", "ace"),
        n_boot=n_boot,
        seed=seed,
    )
    if objectives is not None:
        out.insert(1, "objective", out["model"].map(dict(objectives)))
    order = {m: i for i, m in enumerate(dict.fromkeys(est["model"]))}
    return out.sort_values(
        ["model", "estimator", "k"],
        key=lambda s: s.map(order) if s.name == "model" else s,
        kind="stable",
    ).reset_index(drop=True)


def curve_long(points: pd.DataFrame, estimator: str = "Base") -> pd.DataFrame:
    """Figure 3's chart data: one row per model, ``k`` and metric of ``estimator``
    (:data:`FIGURE3_TITLES`): ``value``, ``low``, ``high`` (95% interval), ``n``, and for ACE
    its floor's range ``floor_low``, ``floor_high`` (NaN for the other metrics)."""
    part = points[points["estimator"] == estimator]
    rows = []
    for metric, title in FIGURE3_TITLES.items():
        frame = part[["model", "k", "n"]].copy()
        frame["metric"] = title
        frame["value"], frame["low"], frame["high"] = (
            part[metric],
            part[f"{metric}_low"],
            part[f"{metric}_high"],
        )
        has = f"{metric}_floor_low" in part.columns
        frame["floor_low"] = part[f"{metric}_floor_low"] if has else np.nan
        frame["floor_high"] = part[f"{metric}_floor_high"] if has else np.nan
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def model_groups(
    objectives: Mapping[str, str], sizes: Mapping[str, float | None]
) -> dict[str, str]:
    """Each model's group of §5.2 (:data:`GROUPS`): a CLM under 1B parameters, a CLM of 1B or
    more, an MLM; "" for a CLM of unknown size."""
    out = {}
    for m, obj in objectives.items():
        if obj == "mlm":
            out[m] = GROUPS[2]
        elif (size := sizes.get(m)) is None:
            out[m] = ""
        else:
            out[m] = GROUPS[0] if size < SMALL_CLM else GROUPS[1]
    return out


def _registry_name(model: str) -> str:
    from calib.models.registry import get_spec

    spec = get_spec(model)
    return spec.name if spec is not None else model


def model_sizes(models: Sequence[str]) -> dict[str, float | None]:
    """Millions of parameters per model, from the registry (None where it does not say)."""
    from calib.models.registry import get_spec, size_in_millions

    out = {}
    for m in models:
        spec = get_spec(m)
        out[m] = size_in_millions(spec.size) if spec is not None else None
    return out


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
    for model in dict.fromkeys(est["model"]):
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
    small = [m for m, g in groups.items() if g == GROUPS[0] and m in set(est["model"])]
    others = [m for m, g in groups.items() if g in GROUPS[1:] and m in set(est["model"])]
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


def figure4_points(
    points: pd.DataFrame, factor_summary: pd.DataFrame, k: int = BEAR_OPTIONS
) -> pd.DataFrame:
    """Figure 4's points: per model, ACE (C_Base) and accuracy on BEAR's 1:1 relations cut to
    ``k`` options (the mean over the draws, :func:`curve_points`) and on each FACTOR subset
    (four options, :func:`calib.experiments.factor.tables.factor_summary`), each with its interval
    and ACE's noise floor. Columns ``model``, ``benchmark``, ``options``, ``n``, ``accuracy``,
    ``accuracy_low``, ``accuracy_high``, ``ace``, ``ace_low``, ``ace_high`` and the floor
    columns; only models present in both."""
    at_k = points[(points["k"] == k) & (points["estimator"] == "Base")]
    if at_k.empty:
        raise ValueError(f"the curve has no k={k}; it has {sorted(points['k'].unique())}")
    floor = [
        c for c in at_k.columns if c.startswith(("ace_floor", "ace_deb")) or c == "ace_within_floor"
    ]
    cols = ["accuracy", "accuracy_low", "accuracy_high", "ace", "ace_low", "ace_high", *floor]
    bear = at_k[["model", "n", *cols]].assign(benchmark=f"BEAR 1:1 ({k} options)", options=k)
    fac = factor_summary[factor_summary["estimator"] == "Base"]
    fac = (
        fac[["model", "subset", "n", *cols]]
        .assign(benchmark="FACTOR " + fac["subset"] + " (4 options)", options=4)
        .drop(columns="subset")
    )
    both = [m for m in dict.fromkeys(bear["model"]) if m in set(fac["model"])]
    out = pd.concat([bear, fac], ignore_index=True)
    out = out[out["model"].isin(both)]
    return out[["model", "benchmark", "options", "n", *cols]].reset_index(drop=True)


def _line_offset(
    acc5: np.ndarray, ace5: np.ndarray, acc_f: np.ndarray, ace_f: np.ndarray
) -> np.ndarray:
    """Per row: the mean over models of FACTOR's ACE minus the least-squares line of BEAR's
    (5 options) ACE on accuracy at FACTOR's accuracy. Arrays ``(rows, models)``."""
    x_mean, y_mean = acc5.mean(axis=1, keepdims=True), ace5.mean(axis=1, keepdims=True)
    sxx = ((acc5 - x_mean) ** 2).sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(
            sxx > 0,
            ((acc5 - x_mean) * (ace5 - y_mean)).sum(axis=1, keepdims=True)
            / np.where(sxx > 0, sxx, 1),
            np.nan,
        )
    line = y_mean + slope * (acc_f - x_mean)
    return (ace_f - line).mean(axis=1)


def relation_offsets(
    est: pd.DataFrame,
    factor_est: pd.DataFrame,
    models: Sequence[str],
    k: int = BEAR_OPTIONS,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """ "for identical accuracies, we find similar ACE values on BEAR and FACTOR" (§5.2): per
    FACTOR subset, the mean over ``models`` (the causal ones, at least two) of FACTOR's ACE
    minus the ACE the least-squares line through the models' BEAR points (1:1 relations, ``k``
    options; ACE on accuracy) gives at FACTOR's accuracy. Every ACE is debiased (the samples
    differ in size); the interval comes from a bootstrap of the BEAR instances and,
    independently, of the FACTOR items. Columns ``subset``, ``unit``, ``n_models``,
    ``difference``, ``low``, ``high``, ``p_value``, ``raw``."""
    cols = ["subset", "unit", "n_models", "difference", "low", "high", "p_value", "raw"]
    models = [m for m in models if m in set(factor_est["model"]) and m in set(est["model"])]
    if len(models) < 2:
        return pd.DataFrame(columns=cols)
    base5 = est[(est["estimator"] == "Base") & (est["k"] == k)]
    bear = {metric: _model_terms(base5, metric) for metric in ("accuracy", "ace")}
    reps = sorted(base5["repeat"].unique())
    rows = []
    fac_base = factor_est[factor_est["estimator"] == "Base"]
    for dataset, part in fac_base[fac_base["model"].isin(models)].groupby("dataset", sort=False):
        fac = {
            metric: estimate_terms(part, dataset, metric, ["model"])
            for metric in ("accuracy", "ace")
        }
        terms = []
        for metric in ("accuracy", "ace"):
            for m in models:
                terms += [bear[metric][(m, "Base", k, r)] for r in reps]
        terms += [fac[metric][(m,)] for metric in ("accuracy", "ace") for m in models]
        n_m, n_r = len(models), len(reps)

        def offset(values, n_m=n_m, n_r=n_r):
            rows_ = values.shape[0]
            acc5 = values[:, : n_m * n_r].reshape(rows_, n_m, n_r).mean(axis=2)
            ace5 = values[:, n_m * n_r : 2 * n_m * n_r].reshape(rows_, n_m, n_r).mean(axis=2)
            rest = values[:, 2 * n_m * n_r :]
            return _line_offset(acc5, ace5, rest[:, :n_m], rest[:, n_m:])

        got = combined_interval(terms, combine=offset, n_boot=n_boot, seed=seed, debias=True)
        subset = subset_name(dataset)
        rows.append(
            {
                "subset": subset,
                "unit": f"FACTOR {subset}",
                "n_models": n_m,
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "raw": got["difference"] + got["floor_shift"],
            }
        )
    return pd.DataFrame(rows, columns=cols)


def reported_curve(frame: pd.DataFrame) -> pd.DataFrame:
    """The authors' subsampling data (``kissling2026_repo_answer_space_subsampling``) in long
    format: ``model``, ``k``, ``repeat`` (0), ``n`` (missing), ``metric``
    (:data:`CURVE_METRICS`), ``value``."""
    renamed = frame.rename(columns={"sample_size": "k", "avg_conf": "confidence"})
    renamed = renamed.assign(repeat=0, n=pd.NA, k=renamed["k"].astype(int))
    return renamed.melt(
        id_vars=["model", "k", "repeat", "n"],
        value_vars=list(CURVE_METRICS),
        var_name="metric",
        value_name="value",
    )


def curve_spread(curve: pd.DataFrame) -> pd.DataFrame:
    """Per model, metric and ``k`` of a long curve (:func:`reported_curve`): the mean over
    repeats and their spread (``lower`` = minimum, ``upper`` = maximum)."""
    grouped = curve.groupby(["model", "metric", "k"], sort=True)["value"]
    return grouped.agg(mean="mean", lower="min", upper="max", repeats="count").reset_index()


def curve_table(curve: pd.DataFrame, ks: Sequence[int] = (5, 30, 60)) -> pd.DataFrame:
    """A compact table of a long curve (:func:`reported_curve`): per model and metric, the
    mean over repeats at a few ``ks`` (those present) as columns ``k=5``, ``k=30``, ...; the
    change from the smallest to the largest shown ``k`` in ``change``."""
    spread = curve_spread(curve)
    shown = [k for k in ks if k in set(spread["k"])]
    if not shown:
        raise ValueError(
            f"none of ks={list(ks)} is in the curve (k = {sorted(spread['k'].unique())})"
        )
    wide = spread[spread["k"].isin(shown)].pivot_table(
        index=["model", "metric"], columns="k", values="mean", sort=True
    )
    wide.columns = [f"k={k}" for k in wide.columns]
    wide["change"] = wide[f"k={shown[-1]}"] - wide[f"k={shown[0]}"]
    out = wide.reset_index()
    out["metric"] = pd.Categorical(out["metric"], categories=list(CURVE_METRICS), ordered=True)
    return (
        out.sort_values(["model", "metric"])
        .reset_index(drop=True)
        .assign(metric=lambda f: f["metric"].astype(str))
    )


def reported_bear_points(frame: pd.DataFrame, k: int = 5, objective: str = "clm") -> pd.DataFrame:
    """The BEAR side of the paper's Figure 4 from the authors' subsampling data: ACE and
    accuracy at ``k`` options of the models with ``objective`` (the figure shows the causal
    models), with a ``benchmark`` column."""
    from calib.models.registry import get_spec

    kind = frame["registry_name"].map(lambda m: getattr(get_spec(m), "objective", None))
    out = frame[(frame["sample_size"] == k) & (kind == objective)]
    return out[["model", "accuracy", "ace"]].assign(benchmark=f"BEAR ({k} options)")


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


def run(params: Params) -> AnswerSetResult:
    """The answer-set chapter with ``params``: score the plain template on the sample's 1:1
    relations (:func:`answer_set_scores`) and FACTOR
    (:func:`calib.experiments.factor.scoring.score_factor`), both through the score cache, then
    every step of the module.

    Parameters
    ----------
    params : calib.experiments.answer_set.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.answer_set.AnswerSetResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    kinds = model_objectives(list(p.models))
    sizes = model_sizes(p.models)
    groups = model_groups(kinds, sizes)
    scores = answer_set_scores(p.models, p.relations, p.per_relation, p.seed, progress=False)
    sent = sentence_scores(scores)
    est = option_estimates(sent, sorted(set(p.ks) | {BEAR_OPTIONS}), p.repeats, p.seed)
    points = curve_points(est, kinds, p.n_bootstrap, p.seed)
    _, factor_scores, _ = score_factor(
        p.models,
        p.factor_subsets,
        p.factor_items,
        p.seed,
        p.factor_max_tokens,
        p.factor_completion_words,
    )
    factor_est = factor_estimates(factor_scores)
    fac_summary = factor_summary(factor_est, p.n_bootstrap, p.seed, kinds)
    clms = [m for m in p.models if kinds[m] == "clm"]
    shown = points[points["k"].isin(p.ks)].reset_index(drop=True)
    curve_est = est[est["k"].isin(p.ks)]
    return AnswerSetResult(
        params=p,
        objectives=kinds,
        sizes=sizes,
        groups=groups,
        relations=sorted(sent["relation"].unique()),
        n_instances=int(sent[["relation", "instance"]].drop_duplicates().shape[0]),
        points=shown,
        curve=curve_long(shown),
        changes=option_changes(curve_est, p.ks, groups, p.n_bootstrap, p.seed),
        less_pronounced=less_pronounced(curve_est, p.ks, groups, p.n_bootstrap, p.seed),
        n_factor_items=int(factor_est.groupby(["model", "dataset"])["instance"].nunique().max()),
        figure4=figure4_points(points, fac_summary),
        offsets=relation_offsets(est, factor_est, clms, BEAR_OPTIONS, p.n_bootstrap, p.seed),
        authors_curve=reported_curve(reported("kissling2026_repo_answer_space_subsampling")),
        authors=authors_changes(),
    )


# ---------------------------------------------------------------------------------------------
# the claims of §5.2: rules, the paper's evidence (Figure 3 prints none), this build's evidence

FIGURE3_NOTE = (
    "Figure 3 prints no numbers (the data behind the earlier version's figure are "
    "on the chapter page, reported in the authors' repository, not the paper's "
    "printed evidence)"
)


def _change_units(result: AnswerSetResult, change: str, group_list: Sequence[str]) -> pd.DataFrame:
    rows = result.changes[
        (result.changes["change"] == change) & result.changes["group"].isin(group_list)
    ]
    return rows.assign(unit=rows["model"]).reset_index(drop=True)


def _source(result: AnswerSetResult, k_text: str) -> str:
    return (
        f"this build, BEAR 1:1 relations ({result.n_instances} instances), C_Base, mean "
        f"over {result.params.repeats} draws of the options, {k_text}; 95% paired "
        f"bootstrap over instances ({result.params.n_bootstrap} resamples)"
    )


def _groups_missing(result: AnswerSetResult, wanted: Sequence[str]) -> str:
    have = ", ".join(f"{m} ({g or 'a CLM of unknown size'})" for m, g in result.groups.items())
    groups = ", ".join(f"'{g}'" for g in wanted)
    return f"this build has no model of the group(s) {groups}; its models: {have}"


# more_options: "significantly reduces calibration error in CLMs smaller than 1B"


def more_options_lower_ace(evidence: Evidence) -> Judgement:
    """``more_options``: ACE (C_Base) at the largest number of options minus ACE at the
    smallest below 0, for every causal model under 1B parameters."""
    return every(
        evidence,
        "<",
        0.0,
        what="ACE(most options) - ACE(fewest options), C_Base, CLMs under 1B",
        unit="causal model",
    )


def more_options_build(result: AnswerSetResult) -> Evidence:
    rows = _change_units(result, "ace_change", GROUPS[:1])
    if rows.empty:
        return Evidence.empty(_groups_missing(result, GROUPS[:1]))
    a, b = int(rows["a"].iloc[0]), int(rows["b"].iloc[0])
    return Evidence(rows, _source(result, f"k={b} to k={a}"))


# confidence_falls_faster: "confidence drops faster than accuracy, reducing ACE"


def confidence_faster(evidence: Evidence) -> Judgement:
    """``confidence_falls_faster``: the drop of mean confidence from the fewest to the most
    options exceeds the drop of accuracy, i.e. the signed gap (confidence - accuracy) falls,
    for every causal model under 1B."""
    return every(
        evidence,
        ">",
        0.0,
        what="drop of mean confidence - drop of accuracy (fewest "
        "to most options), C_Base, CLMs under 1B",
        unit="causal model",
    )


def confidence_faster_build(result: AnswerSetResult) -> Evidence:
    rows = _change_units(result, "gap_drop", GROUPS[:1])
    if rows.empty:
        return Evidence.empty(_groups_missing(result, GROUPS[:1]))
    return Evidence(
        rows, _source(result, f"k={int(rows['a'].iloc[0])} to k={int(rows['b'].iloc[0])}")
    )


# less_pronounced_larger: "In larger CLMs and all MLMs this effect is less pronounced, but still
# present."


def less_pronounced_but_present(evidence: Evidence) -> Judgement:
    """``less_pronounced_larger``: for every CLM of 1B or more and every MLM, ACE still falls
    from the fewest to the most options (``present``: the change below 0) and falls less than
    the CLMs under 1B do on average (``less pronounced``: its fall minus their mean fall below
    0); both parts required."""
    return every(
        evidence,
        "<",
        0.0,
        what="ACE(most) - ACE(fewest) (present); fall - mean fall "
        "of the CLMs under 1B (less pronounced)",
        unit="model-part",
        required=("present", "less pronounced"),
        required_in="part",
    )


def less_pronounced_build(result: AnswerSetResult) -> Evidence:
    present = _change_units(result, "ace_change", GROUPS[1:])
    present = present.assign(part="present", unit=present["model"] + ": present")
    less = result.less_pronounced.assign(
        part="less pronounced", unit=result.less_pronounced["model"] + ": less pronounced"
    )
    cols = ["unit", "part", "model", "group", "difference", "low", "high", "p_value"]
    frame = pd.concat(
        [present.reindex(columns=cols), less.reindex(columns=cols)], ignore_index=True
    )
    missing = [g for g in GROUPS if g not in set(result.groups.values())]
    if frame.empty:
        return Evidence.empty(_groups_missing(result, GROUPS[1:]))
    note = ""
    if GROUPS[0] in missing:
        note = (
            f"this build has no {GROUPS[0]} to compare the larger models' fall with, so "
            f"'less pronounced' cannot be tested"
        )
    return Evidence(frame, _source(result, "fewest to most options"), missing=note)


# accuracy_faster_some: "For Qwen3.5-4B and bert-base-cased, accuracy drops faster than
# confidence at low answer counts, thereby increasing ACE."

#: the two models of the claim, by registry name
ACCURACY_FASTER_MODELS: tuple[str, ...] = ("qwen3.5-4b", "bert-base-cased")


def accuracy_faster(evidence: Evidence) -> Judgement:
    """``accuracy_faster_some``: for Qwen3.5-4B and bert-base-cased, from the fewest options to
    the end of the low answer counts (k = 15), the signed gap rises (accuracy drops faster than
    confidence) and ACE rises; both models required."""
    return every(
        evidence,
        ">",
        0.0,
        what="gap(k=15) - gap(fewest) and ACE(k=15) - ACE(fewest), C_Base",
        unit="model-quantity",
        required=ACCURACY_FASTER_MODELS,
        required_in="registry_name",
    )


def accuracy_faster_build(result: AnswerSetResult) -> Evidence:
    rows = result.changes[result.changes["change"].isin(["gap_low_change", "ace_low_change"])]
    rows = rows.assign(registry_name=rows["model"].map(_registry_name))
    rows = rows[rows["registry_name"].isin(ACCURACY_FASTER_MODELS)]
    if rows.empty:
        return Evidence.empty(
            f"this build has neither {' nor '.join(ACCURACY_FASTER_MODELS)} "
            f"(or no k between the fewest options and {LOW_K_END})"
        )
    what = {"gap_low_change": "gap rises", "ace_low_change": "ACE rises"}
    frame = rows.assign(unit=rows["model"] + ": " + rows["change"].map(what))
    return Evidence(
        frame.reset_index(drop=True),
        _source(result, f"k={int(rows['b'].iloc[0])} to k={int(rows['a'].iloc[0])}"),
    )


# ace_stabilises: "After 15–20 answer options, ACE stabilizes, with no further calibration gains
# for larger CLMs and MLMs."


def ace_stable(evidence: Evidence) -> Judgement:
    """``ace_stabilises``: for every CLM of 1B or more and every MLM, ACE at the largest ``k``
    differs from ACE at k = 20 by less than :data:`SIMILAR_ACE` in both directions (an
    equivalence test: each model has two rows, the further gain ``ACE(20) - ACE(largest)`` and
    the rise ``ACE(largest) - ACE(20)``, each below the tolerance). An interval that reaches
    the tolerance leaves it undecided: lack of power is not support."""
    return every(
        evidence,
        "<",
        SIMILAR_ACE,
        what="|ACE(largest k) - ACE(k=20)| (as a further gain and as a rise), C_Base",
        unit="model-direction",
    )


def ace_stable_build(result: AnswerSetResult) -> Evidence:
    rows = _change_units(result, "ace_stable_change", GROUPS[1:])
    if rows.empty:
        if not result.changes["change"].eq("ace_stable_change").any():
            return Evidence.empty(
                f"this build's ks {list(result.params.ks)} have no k = "
                f"{STABLE_FROM} below the largest"
            )
        return Evidence.empty(_groups_missing(result, GROUPS[1:]))
    return Evidence(
        _both_directions(rows, "further gain", "rise"),
        _source(result, f"k={STABLE_FROM} to k={int(rows['a'].iloc[0])}"),
    )


def _both_directions(rows: pd.DataFrame, negative: str, positive: str) -> pd.DataFrame:
    """Each row twice for an equivalence test: its negation (``negative``: ``-difference``,
    ``[-high, -low]``) and itself (``positive``)."""
    flipped = rows.assign(
        unit=rows["unit"] + f": {negative}",
        difference=-rows["difference"],
        low=-rows["high"],
        high=-rows["low"],
    )
    straight = rows.assign(unit=rows["unit"] + f": {positive}")
    return pd.concat([flipped, straight], ignore_index=True)


# bear5_factor_same_relation: "matching the number of answer options across datasets recovers a
# nearly identical relationship between accuracy and ACE"


def same_relation(evidence: Evidence) -> Judgement:
    """``bear5_factor_same_relation``: FACTOR's ACE (C_Base) lies within :data:`SIMILAR_ACE` of
    BEAR's (1:1 relations, 5 options) at the same accuracy, in both directions (an equivalence
    test; each unit twice, as above and as below)."""
    return every(
        evidence,
        "<",
        SIMILAR_ACE,
        what="|ACE(FACTOR) - ACE(BEAR, 5 options) at the same accuracy| (above and below)",
        unit="comparison-direction",
    )


def same_relation_paper() -> Evidence:
    frame = pd.DataFrame(
        {
            "unit": [
                "opt-6.7b on Wiki-FACTOR (49.33%) vs gpt2-large on BEAR 1:1, 5 options (48.97%)"
            ],
            "value": [text_value("factor_opt67b_ace") - text_value("bear5_gpt2_large_ace")],
        }
    )
    rows = printed(frame, "value")
    return Evidence(
        _both_directions(rows, "below", "above"),
        "§5.2's printed example: ACE 0.323 on FACTOR and 0.33 on BEAR at accuracies "
        "0.36 points apart",
    )


def same_relation_build(result: AnswerSetResult) -> Evidence:
    if result.offsets.empty:
        clms = [m for m, o in result.objectives.items() if o == "clm"]
        return Evidence.empty(
            f"the BEAR line needs two or more causal models scored on BEAR "
            f"and FACTOR; this build has {len(clms)}"
        )
    return Evidence(
        _both_directions(result.offsets, "below", "above"),
        f"this build's causal models: mean of FACTOR's ACE minus the least-squares "
        f"line of BEAR's ACE (1:1 relations, {BEAR_OPTIONS} options, mean over "
        f"{result.params.repeats} draws) at FACTOR's accuracy; every ACE debiased "
        f"(beyond the paper); 95% intervals from a bootstrap of the BEAR instances "
        f"and, independently, of the FACTOR items",
    )


LARGER = (
    "a causal model of 1B parameters or more, or a masked model, on BEAR's 1:1 relations "
    "(`calib run answer_set -p models '[...]'` where the hub is reachable, or `calib book "
    "--profile paper`)"
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="more_options",
        paper="kissling2026",
        section="§5.2",
        quote="increasing the number of answer options (i.e. more incorrect answers as "
        "distractors) significantly reduces calibration error in CLMs smaller than 1B",
        statement="More answer options significantly lower the ACE of C_Base, for every "
        "causal model smaller than 1B",
        quantifier="every",
        metrics=("ace",),
        about="CLMs under 1B",
        chapter="answer_set",
        rule=more_options_lower_ace,
        paper_evidence=None,
        build_evidence=more_options_build,
        paper_note=FIGURE3_NOTE,
        needs="a causal model under 1B parameters on BEAR's 1:1 relations",
    ),
    Claim(
        key="confidence_falls_faster",
        paper="kissling2026",
        section="§5.2",
        quote="confidence drops faster than accuracy, reducing ACE",
        statement="From few to many answer options, the mean C_Base confidence of the causal "
        "models under 1B drops more than their accuracy",
        quantifier="every",
        metrics=("confidence", "accuracy"),
        about="CLMs under 1B",
        chapter="answer_set",
        rule=confidence_faster,
        paper_evidence=None,
        build_evidence=confidence_faster_build,
        paper_note=FIGURE3_NOTE,
        needs="a causal model under 1B parameters on BEAR's 1:1 relations",
    ),
    Claim(
        key="less_pronounced_larger",
        paper="kissling2026",
        section="§5.2",
        quote="In larger CLMs and all MLMs this effect is less pronounced, but still present.",
        statement="For every causal model of 1B or more and every masked model, ACE still "
        "falls with more answer options, but less than for the causal models under "
        "1B",
        quantifier="every",
        metrics=("ace",),
        about="CLMs of 1B or more and all MLMs",
        chapter="answer_set",
        rule=less_pronounced_but_present,
        paper_evidence=None,
        build_evidence=less_pronounced_build,
        paper_note=FIGURE3_NOTE,
        needs=LARGER + ", beside a causal model under 1B",
    ),
    Claim(
        key="accuracy_faster_some",
        paper="kissling2026",
        section="§5.2",
        quote="For Qwen3.5-4B and bert-base-cased, accuracy drops faster than confidence at "
        "low answer counts, thereby increasing ACE.",
        statement="For Qwen3.5-4B and bert-base-cased, from 5 to 15 answer options accuracy "
        "drops faster than mean C_Base confidence and ACE rises",
        quantifier="every",
        metrics=("accuracy", "confidence", "ace"),
        about="Qwen3.5-4B and bert-base-cased",
        chapter="answer_set",
        rule=accuracy_faster,
        paper_evidence=None,
        build_evidence=accuracy_faster_build,
        paper_note=FIGURE3_NOTE,
        needs="qwen3.5-4b and bert-base-cased on BEAR's 1:1 relations (`calib book --profile "
        "paper`)",
    ),
    Claim(
        key="ace_stabilises",
        paper="kissling2026",
        section="§5.2",
        quote="After 15–20 answer options, ACE stabilizes, with no further calibration gains "
        "for larger CLMs and MLMs.",
        statement=f"For every causal model of 1B or more and every masked model, ACE of "
        f"C_Base at 60 options is within {SIMILAR_ACE} of ACE at 20 options (no "
        f"further gain, no rise)",
        quantifier="every",
        metrics=("ace",),
        about="CLMs of 1B or more and all MLMs",
        chapter="answer_set",
        rule=ace_stable,
        paper_evidence=None,
        build_evidence=ace_stable_build,
        paper_note=FIGURE3_NOTE,
        needs=LARGER,
    ),
    Claim(
        key="bear5_factor_same_relation",
        paper="kissling2026",
        section="§5.2",
        quote="We find that matching the number of answer options across datasets recovers a "
        "nearly identical relationship between accuracy and ACE. Hence, for identical "
        "accuracies, we find similar ACE values on BEAR and FACTOR.",
        statement=f"With BEAR's 1:1 relations cut to five options, the causal models' ACE "
        f"(C_Base) on FACTOR is within {SIMILAR_ACE} of BEAR's at the same accuracy",
        quantifier="every",
        metrics=("ace", "accuracy"),
        about="the causal models (Figure 4)",
        chapter="answer_set",
        rule=same_relation,
        paper_evidence=same_relation_paper,
        build_evidence=same_relation_build,
        paper_note="The text prints one pair of points (gpt2-large on BEAR from the authors' "
        'data, opt-6.7b from Table 4) and says "Similar parity is observed for '
        'gpt2-xl and gpt2" without their numbers; Figure 4 prints none',
        needs="two or more causal models scored on BEAR's 1:1 relations and on FACTOR",
    ),
)
