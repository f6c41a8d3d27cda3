"""The reductions chapter (Kissling et al. 2026, Appendix C, Figures 7-8): the worked example of
a chapter unit (see ``CONTRIBUTING.md``).

A statement's token log-probabilities can be reduced to one sentence score in four ways
(:mod:`calib.confidence.reductions`): ``sum`` and ``mean`` over all tokens, ``sum-answer`` and
``mean-answer`` over the answer tokens only. The paper compares them by accuracy, ACE of
Base-Confidence on the plain template and their harmonic mean ``H`` (averaged per objective,
CLM / MLM; Figure 7) and shows how each shifts the distribution of Base-Confidence (Figure 8).

The unit: :class:`Params` (the chapter's parameters, the only home of their defaults),
:func:`run` (``Params`` -> :class:`ReductionsResult`, every frame the page shows) and
``CLAIMS`` (the paper's claims of Appendix C, each judged on the authors' numbers and on
this build's recorded result). The steps, each a pure function over frames:

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`reduction_table`             accuracy, ACE and H per model and reduction
                                    (:func:`calib.confidence.summary.compare_reductions`),
                                    with the model's objective, bootstrap intervals and ACE's
                                    noise floor (beyond the paper, issue 18)
:func:`objective_means`             the means per objective and reduction (Figure 7); works
                                    on this run's table and on the authors' values
:func:`objective_floors`            the mean ACE per objective and reduction with its
                                    interval and noise floor (beyond the paper, issue 18)
:func:`objective_differences`       the mean over an objective's models of a metric of one
                                    reduction minus another's, with a paired bootstrap
                                    interval over facts
:func:`confidence_histograms`       Base-Confidence histograms per model and reduction (Fig. 8)
:func:`confidence_shape`            per model and reduction: the largest confidence and the
                                    skewness of the distribution, with an interval
==================================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import (
    INTERVAL_METHODS,
    difference_interval,
    interval,
    jackknife,
    metric_statistic,
    replicates,
)
from calib.confidence.estimators import base
from calib.confidence.metrics import N_BINS
from calib.confidence.noise_floor import N_DRAWS, mean_floor_record
from calib.confidence.reductions import REDUCTIONS, harmonic_mean, sentence_scores
from calib.confidence.schema import require_columns
from calib.confidence.summary import compare_reductions, summary
from calib.data.bear import PLAIN
from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import text_value
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.quantifiers import Evidence
from calib.experiments.scores import objectives as model_objectives
from calib.experiments.verdicts import Judgement
from calib.scoring.schema import FACT

#: the paper's names of the reductions (its figure's labels)
REDUCTION_LABELS: dict[str, str] = {
    "sum": "Sum",
    "mean": "Mean",
    "sum-answer": "Sum (A)",
    "mean-answer": "Mean (A)",
}
#: the metrics of Figure 7, in order (display names: :data:`calib.report.findings.METRIC_LABELS`)
FIGURE7_METRICS: tuple[str, ...] = ("accuracy", "ace", "H")
#: the summation and the averaging reductions (Appendix C's "summation variants", "Mean and
#: Mean (A)")
SUMS: tuple[str, ...] = ("sum", "sum-answer")
MEANS: tuple[str, ...] = ("mean", "mean-answer")
#: the objectives Figure 7 averages over separately
OBJECTIVES: tuple[str, ...] = ("clm", "mlm")
#: a distribution counts as strongly right-skewed above this sample skewness (the usual convention,
#: e.g. Bulmer 1979, Principles of Statistics: an absolute skewness above 1 is "highly skewed")
STRONG_SKEW = 1.0
#: the model of Figure 8
FIGURE8_MODEL = "opt-1.3b"


@dataclass(frozen=True)
class Params(ChapterParams):
    """The reductions chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "reductions"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        1, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the BEAR sample and of every bootstrap")
    n_bootstrap: int = parameter(
        1000, "bootstrap resamples behind every interval (accuracy, ACE, H, skewness)"
    )
    histogram_bins: int = parameter(20, "equal-width bins of the confidence histograms (Figure 8)")

    @property
    def all_of_bear(self) -> bool:
        """Whether the sample is the whole of BEAR (every relation, every instance)."""
        return self.relations is None and self.per_relation is None


@dataclass(frozen=True)
class ReductionsResult:
    """Every frame and number the reductions page shows (:func:`run`)."""

    params: Params
    #: model -> ``clm`` / ``mlm``
    objectives: dict[str, str]
    #: relations and facts per model of the sample
    n_relations: int
    n_facts: int
    #: :func:`reduction_table`
    table: pd.DataFrame
    #: :func:`objective_means` of ``table`` (Figure 7)
    means: pd.DataFrame
    #: :func:`objective_differences` of H, Sum against each other reduction
    h_differences: pd.DataFrame
    #: :func:`objective_differences` of ACE and accuracy, Mean and Mean (A) against the sums
    mean_vs_sum: pd.DataFrame
    #: :func:`confidence_histograms` (Figure 8)
    histograms: pd.DataFrame
    #: :func:`confidence_shape`
    shape: pd.DataFrame
    #: :func:`authors_means`: Figure 7's means from the authors' repository (reported values)
    authors_means: pd.DataFrame
    #: :func:`objective_floors`: the mean ACE of ``means`` with its interval and noise floor
    #: (beyond the paper; last, with an empty default, so results built by hand need not name it)
    mean_floors: pd.DataFrame = field(default_factory=pd.DataFrame)


# ---------------------------------------------------------------------------------------------
# the steps


def _plain(scores: pd.DataFrame, template: str) -> pd.DataFrame:
    require_columns(scores, ("template",), "score table")
    part = scores[scores["template"] == template]
    if part.empty:
        raise ValueError(
            f"the score table has no rows of template {template!r}; it has "
            f"{sorted(scores['template'].unique())}"
        )
    return part


#: the noise-floor columns beside an ACE (:func:`calib.confidence.noise_floor.floor_record`)
#: in the order the book shows them: ACE, its floor, the debiased ACE, within the floor
FLOOR_COLUMNS: tuple[str, ...] = (
    "ace_floor",
    "ace_floor_se",
    "ace_floor_low",
    "ace_floor_high",
    "ace_floor_p",
    "ace_debiased",
    "ace_debiased_low",
    "ace_debiased_high",
    "ace_within_floor",
)


def reduction_table(
    scores: pd.DataFrame,
    objectives: Mapping[str, str],
    template: str = PLAIN,
    reductions: Sequence[str] = REDUCTIONS,
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """Appendix C for every model: accuracy, ACE of Base-Confidence on ``template`` and
    ``H = 2 ACC (1 - ACE) / (ACC + 1 - ACE)`` per reduction
    (:func:`calib.confidence.summary.compare_reductions`), plus the model's ``objective``
    (``objectives``: model -> ``clm`` / ``mlm``, e.g.
    :func:`calib.experiments.scores.objectives`), the paper's ``label`` of the reduction,
    95% bootstrap intervals of accuracy and ACE (``accuracy_low`` ...; NaN when
    ``n_bootstrap`` is 0) and, beyond the paper, ACE's noise floor from ``n_draws`` simulated
    perfectly calibrated outcome vectors (:data:`FLOOR_COLUMNS`, issue 18)."""
    plain = _plain(scores, template)
    unknown = sorted(set(plain["model"]) - set(objectives))
    if unknown:
        raise ValueError(f"no objective given for model(s) {unknown}")
    table = compare_reductions(plain, template, reductions, n_bins)
    est = pd.concat(
        [base(sentence_scores(plain, r), template).assign(reduction=r) for r in reductions],
        ignore_index=True,
    )
    ints = summary(
        est,
        by=["model", "dataset", "reduction"],
        n_bins=n_bins,
        n_boot=n_bootstrap,
        seed=seed,
        metrics=("accuracy", "ace"),
        floor=("ace",),
        n_draws=n_draws,
    )
    ints = ints[
        [
            "model",
            "dataset",
            "reduction",
            "accuracy_low",
            "accuracy_high",
            "ace_low",
            "ace_high",
            *FLOOR_COLUMNS,
        ]
    ]
    table = table.merge(ints, on=["model", "dataset", "reduction"], how="left")
    table.insert(1, "objective", table["model"].map(dict(objectives)))
    table.insert(3, "label", table["reduction"].map(REDUCTION_LABELS))
    order = {m: i for i, m in enumerate(dict.fromkeys(plain["model"]))}
    red = {r: i for i, r in enumerate(reductions)}
    table = table.assign(_m=table["model"].map(order), _r=table["reduction"].map(red))
    table = table.sort_values(["_m", "_r"], kind="stable").drop(columns=["_m", "_r"])
    return table[
        [
            "model",
            "objective",
            "dataset",
            "reduction",
            "label",
            "n",
            "accuracy",
            "accuracy_low",
            "accuracy_high",
            "ace",
            "ace_low",
            "ace_high",
            *FLOOR_COLUMNS,
            "H",
        ]
    ].reset_index(drop=True)


def objective_means(
    table: pd.DataFrame,
    objective: str = "objective",
    reduction: str = "reduction",
    accuracy: str = "accuracy",
    ace: str = "ace",
) -> pd.DataFrame:
    """Figure 7: per objective and reduction the mean over models of accuracy, ACE and H (H is
    computed per model first, then averaged, as the authors' notebook does). Works on
    :func:`reduction_table` and on the authors' per-model values (pass their column names).
    Long format: ``objective``, ``reduction``, ``metric`` (``accuracy``, ``ace``, ``H``),
    ``value``, ``n_models``."""
    require_columns(table, (objective, reduction, accuracy, ace), "reduction table")
    per_model = table[[objective, reduction]].copy()
    per_model["accuracy"] = table[accuracy].to_numpy(float)
    per_model["ace"] = table[ace].to_numpy(float)
    per_model["H"] = harmonic_mean(per_model["accuracy"].to_numpy(), per_model["ace"].to_numpy())
    grouped = per_model.groupby([objective, reduction], sort=False)
    means = grouped[["accuracy", "ace", "H"]].mean()
    means["n_models"] = grouped.size()
    out = means.reset_index().melt(
        id_vars=[objective, reduction, "n_models"],
        value_vars=list(FIGURE7_METRICS),
        var_name="metric",
        value_name="value",
    )
    out = out.rename(columns={objective: "objective", reduction: "reduction"})
    return out[["objective", "reduction", "metric", "value", "n_models"]]


def objective_floors(
    est: pd.DataFrame,
    objectives: Mapping[str, str],
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """Figure 7's mean ACE per objective and reduction (the ``ace`` of :func:`objective_means`)
    with, beyond the paper (issue 18), its 95% paired bootstrap interval over facts (each
    resample applied to every model of the objective; bias-centred, as ACE's) and its noise
    floor: the mean ACE of perfectly calibrated estimators with the models' confidences
    (:func:`calib.confidence.noise_floor.mean_floor_record`), the debiased mean and whether
    the mean is within its floor.

    ``est``: :func:`base_estimates`. Columns ``objective``, ``reduction``, ``label``,
    ``n_models``, ``n`` (facts), ``ace``, ``ace_low``, ``ace_high`` and
    :data:`FLOOR_COLUMNS`."""
    require_columns(est, ("model", "reduction", "confidence", "correct", *FACT), "estimate table")
    models = list(dict.fromkeys(est["model"]))
    reductions = list(dict.fromkeys(est["reduction"]))
    rows = []
    for obj in dict.fromkeys(objectives[m] for m in models):
        members = [m for m in models if objectives[m] == obj]
        arrays = _aligned_arrays(est, members, reductions)
        for r in reductions:
            stats = [metric_statistic("ace", *arrays[(m, r)], n_bins)[0] for m in members]

            def mean(w, stats=stats):
                return np.mean([stat(w) for stat in stats], axis=0)

            n = len(arrays[(members[0], r)][0])
            value = float(mean(np.ones((1, n), np.int64))[0])
            low = high = float("nan")
            if n_bootstrap:
                low, high = interval(
                    value,
                    replicates(mean, n, n_bootstrap, seed),
                    0.95,
                    INTERVAL_METHODS["ace"],
                    None,
                    (0.0, 1.0),
                )
            floor = mean_floor_record(
                [arrays[(m, r)][0] for m in members], value, low, high, "ace", n_draws, seed, n_bins
            )
            rows.append(
                {
                    "objective": obj,
                    "reduction": r,
                    "label": REDUCTION_LABELS.get(r, r),
                    "n_models": len(members),
                    "n": n,
                    "ace": value,
                    "ace_low": low,
                    "ace_high": high,
                    **floor,
                }
            )
    return pd.DataFrame(
        rows,
        columns=[
            "objective",
            "reduction",
            "label",
            "n_models",
            "n",
            "ace",
            "ace_low",
            "ace_high",
            *FLOOR_COLUMNS,
        ],
    )


def authors_means() -> pd.DataFrame:
    """Figure 7's means computed from the per-model values the authors' repository stores
    (``kissling2026_repo_reduction_strategies``, the paper's earlier version, 16 models), as
    :func:`objective_means` with calib's reduction names and lower-case objectives, plus the
    paper's ``label``."""
    repo = reported("kissling2026_repo_reduction_strategies")
    names = {label: name for name, label in REDUCTION_LABELS.items()}
    repo = repo.assign(
        objective=repo["model_type"].str.lower(), reduction=repo["reduction_label"].map(names)
    )
    out = objective_means(repo)
    out.insert(2, "label", out["reduction"].map(REDUCTION_LABELS))
    return out


def base_estimates(
    scores: pd.DataFrame, template: str = PLAIN, reductions: Sequence[str] = REDUCTIONS
) -> pd.DataFrame:
    """Base-Confidence (Eq. 1) on ``template`` under each reduction: the estimate table of
    :func:`calib.confidence.estimators.base` with a ``reduction`` column."""
    plain = _plain(scores, template)
    return pd.concat(
        [base(sentence_scores(plain, r), template).assign(reduction=r) for r in reductions],
        ignore_index=True,
    )


def _aligned_arrays(
    est: pd.DataFrame, models: Sequence[str], reductions: Sequence[str]
) -> dict[tuple[str, str], tuple[np.ndarray, np.ndarray]]:
    """``(confidence, correct)`` per (model, reduction), every array in the same order of the
    facts; the models must share their facts (one BEAR sample), else ``ValueError``."""
    keys = list(FACT)
    facts = None
    out = {}
    for m in models:
        for r in reductions:
            part = est[(est["model"] == m) & (est["reduction"] == r)].sort_values(keys)
            if part.empty:
                raise ValueError(f"no Base estimates of model {m!r} under reduction {r!r}")
            these = part[keys].astype(str).agg("|".join, axis=1).to_numpy()
            if facts is None:
                facts = these
            elif len(these) != len(facts) or (these != facts).any():
                raise ValueError(
                    f"model {m!r} (reduction {r!r}) was scored on other facts "
                    f"than {models[0]!r}; the models of a paired bootstrap share "
                    f"one sample"
                )
            out[(m, r)] = (part["confidence"].to_numpy(float), part["correct"].to_numpy(bool))
    return out


def _weighted(metric: str, conf: np.ndarray, corr: np.ndarray, n_bins: int):
    """A weighted statistic of one model under one reduction: ``accuracy``, ``ace`` or ``H``
    (harmonic mean of the two, Appendix C)."""
    if metric != "H":
        return metric_statistic(metric, conf, corr, n_bins)[0]
    acc = metric_statistic("accuracy", conf, corr, n_bins)[0]
    ace = metric_statistic("ace", conf, corr, n_bins)[0]
    return lambda w: harmonic_mean(np.clip(acc(w), 0, 1), np.clip(ace(w), 0, 1))


def objective_differences(
    est: pd.DataFrame,
    objectives: Mapping[str, str],
    pairs: Sequence[tuple[str, str]],
    metric: str = "H",
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Per objective and pair ``(a, b)`` of reductions: the mean over the objective's models of
    ``metric(a) - metric(b)`` (``metric``: ``H``, ``ace`` or ``accuracy`` of Base-Confidence;
    the mean of H differences is the difference of Figure 7's mean H), with a 95% paired
    bootstrap interval over facts: each resample of the facts is applied to every model and
    reduction (:func:`calib.confidence.bootstrap.difference_interval`; bias-centred for H and
    ACE, BCa for accuracy).

    ``est``: :func:`base_estimates`. Columns ``objective``, ``a``, ``b``, ``metric``,
    ``difference``, ``low``, ``high``, ``method``, ``p_value``, ``n_models``, ``n`` (facts),
    ``n_boot``."""
    if n_bootstrap < 1:
        raise ValueError("objective_differences needs n_bootstrap >= 1 (a paired bootstrap)")
    require_columns(est, ("model", "reduction", "confidence", "correct", *FACT), "estimate table")
    method = INTERVAL_METHODS.get(metric, "centred")
    rows = []
    models = list(dict.fromkeys(est["model"]))
    for obj in dict.fromkeys(objectives[m] for m in models):
        members = [m for m in models if objectives[m] == obj]
        needed = list(dict.fromkeys(r for pair in pairs for r in pair))
        arrays = _aligned_arrays(est, members, needed)
        n = len(next(iter(arrays.values()))[0])
        stats = {k: _weighted(metric, c, y, n_bins) for k, (c, y) in arrays.items()}
        for a, b in pairs:

            def diff(w, a=a, b=b, stats=stats, members=members):
                return np.mean([stats[(m, a)](w) - stats[(m, b)](w) for m in members], axis=0)

            res = difference_interval(diff, n, method, n_bootstrap, seed, metric=metric)
            rows.append({"objective": obj, "a": a, "b": b, **res, "n_models": len(members)})
    cols = [
        "objective",
        "a",
        "b",
        "metric",
        "difference",
        "low",
        "high",
        "method",
        "p_value",
        "n_models",
        "n",
        "n_boot",
    ]
    return pd.DataFrame(rows, columns=cols)


def confidence_histograms(
    scores: pd.DataFrame,
    objectives: Mapping[str, str] | None = None,
    template: str = PLAIN,
    reductions: Sequence[str] = REDUCTIONS,
    bins: int = 20,
) -> pd.DataFrame:
    """Figure 8: the distribution of Base-Confidence (Eq. 1) on ``template`` under each
    reduction, per model, as a histogram on ``bins`` equal-width bins of ``[0, 1]``.

    One row per model, reduction and bin: ``model``, ``objective`` (when ``objectives`` is
    given), ``reduction``, ``label``, ``lower``, ``upper``, ``count`` and ``share`` (of the
    model's instances)."""
    if bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    plain = _plain(scores, template)
    edges = np.linspace(0.0, 1.0, bins + 1)
    rows = []
    for r in reductions:
        est = base(sentence_scores(plain, r), template)
        for model, part in est.groupby("model", sort=False):
            counts, _ = np.histogram(part["confidence"].to_numpy(float), bins=edges)
            rows.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "reduction": r,
                        "label": REDUCTION_LABELS.get(r, r),
                        "lower": edges[:-1],
                        "upper": edges[1:],
                        "count": counts.astype(np.int64),
                        "share": counts / max(len(part), 1),
                    }
                )
            )
    out = pd.concat(rows, ignore_index=True)
    if objectives is not None:
        out.insert(1, "objective", out["model"].map(dict(objectives)))
    order = {m: i for i, m in enumerate(dict.fromkeys(plain["model"]))}
    return out.sort_values("model", key=lambda s: s.map(order), kind="stable").reset_index(
        drop=True
    )


def weighted_skewness(x: np.ndarray):
    """The sample skewness ``m3 / m2^1.5`` of ``x`` as a weighted statistic (rows of
    multiplicity weights -> values; NaN where the resample has no spread)."""
    x = np.asarray(x, float)

    def stat(w: np.ndarray) -> np.ndarray:
        w = w.astype(float)
        total = w.sum(axis=1, keepdims=True)
        mean = (w * x).sum(axis=1, keepdims=True) / total
        d = x - mean
        m2 = (w * d**2).sum(axis=1) / total[:, 0]
        m3 = (w * d**3).sum(axis=1) / total[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m2 > 0, m3 / np.where(m2 > 0, m2, 1) ** 1.5, np.nan)

    return stat


def confidence_shape(est: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per model and reduction, the shape of the Base-Confidence distribution (Figure 8):
    ``n``, ``mean``, ``max`` (the largest confidence of the sample) and ``skewness`` (sample
    skewness, positive: right-skewed) with a 95% BCa bootstrap interval over facts
    (``skewness_low``, ``skewness_high``; NaN with ``n_bootstrap`` 0 or fewer than 3 facts)."""
    require_columns(est, ("model", "reduction", "confidence"), "estimate table")
    rows = []
    for (model, red), part in est.groupby(["model", "reduction"], sort=False):
        x = part["confidence"].to_numpy(float)
        stat = weighted_skewness(x)
        skew = float(stat(np.ones((1, len(x)), np.int64))[0])
        lo = hi = np.nan
        if n_bootstrap and len(x) >= 3:
            reps = replicates(stat, len(x), n_bootstrap, seed)
            lo, hi = interval(skew, reps, 0.95, "bca", jackknife(stat, len(x)))
        rows.append(
            {
                "model": model,
                "reduction": red,
                "label": REDUCTION_LABELS.get(red, red),
                "n": len(x),
                "mean": float(x.mean()),
                "max": float(x.max()),
                "skewness": skew,
                "skewness_low": lo,
                "skewness_high": hi,
            }
        )
    return pd.DataFrame(rows)


def run(params: Params) -> ReductionsResult:
    """The reductions chapter with ``params``: score the plain template
    (:func:`calib.scoring.run.score_bear`, shared with the other BEAR chapters through the
    score cache), then every step of the module on the Base estimates of each reduction.

    Parameters
    ----------
    params : calib.experiments.reductions.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.reductions.ReductionsResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    scores = score_bear(
        list(p.models), PLAIN, p.per_relation, p.seed, list(p.relations) if p.relations else None
    )
    objectives = model_objectives(list(p.models))
    table = reduction_table(scores, objectives, n_bootstrap=p.n_bootstrap, seed=p.seed)
    est = base_estimates(scores)
    others = [r for r in REDUCTIONS if r != "sum"]
    mean_vs_sum = pd.concat(
        [
            objective_differences(
                est,
                objectives,
                [(m, s) for m in MEANS for s in SUMS],
                metric,
                p.n_bootstrap,
                p.seed,
            )
            for metric in ("ace", "accuracy")
        ],
        ignore_index=True,
    )
    return ReductionsResult(
        params=p,
        objectives=objectives,
        n_relations=int(scores["relation"].nunique()),
        n_facts=int(table["n"].iloc[0]),
        table=table,
        means=objective_means(table),
        mean_floors=objective_floors(est, objectives, p.n_bootstrap, p.seed),
        h_differences=objective_differences(
            est, objectives, [("sum", r) for r in others], "H", p.n_bootstrap, p.seed
        ),
        mean_vs_sum=mean_vs_sum,
        histograms=confidence_histograms(scores, objectives, bins=p.histogram_bins),
        shape=confidence_shape(est, p.n_bootstrap, p.seed),
        authors_means=authors_means(),
    )


# ---------------------------------------------------------------------------------------------
# the claims of Appendix C: evidence from the authors' numbers and from this build, and rules

#: where the paper's evidence for Figure 7 comes from
AUTHORS_NOTE = (
    "Figure 7 prints no numbers: the paper's side is computed from the per-model "
    "values the authors' repository stores for the paper's earlier version (16 "
    "models, kissling2026_repo_reduction_strategies), averaged as Figure 7 does"
)
BUILD_SOURCE = "this build, mean over the objective's models, 95% paired bootstrap over facts"


def _label(r: str) -> str:
    return REDUCTION_LABELS.get(r, r)


def _pair_units(frame: pd.DataFrame) -> pd.DataFrame:
    """Evidence rows of :func:`objective_differences`-shaped frames: ``unit`` = "CLMs: Sum
    vs Mean (H)"."""
    units = [
        f"{o.upper()}s: {_label(a)} vs {_label(b)}" + (f" ({m})" if m != "H" else "")
        for o, a, b, m in zip(frame["objective"], frame["a"], frame["b"], frame["metric"])
    ]
    return frame.assign(unit=units)[["unit", *[c for c in frame.columns if c != "unit"]]]


def _authors_differences(pairs: Sequence[tuple[str, str]], metrics: Sequence[str]) -> pd.DataFrame:
    """:func:`objective_differences`-shaped rows from :func:`authors_means` (printed values:
    ``low == high == difference``)."""
    means = authors_means().set_index(["objective", "reduction", "metric"])["value"]
    rows = []
    for metric in metrics:
        for obj in OBJECTIVES:
            for a, b in pairs:
                d = float(means[(obj, a, metric)] - means[(obj, b, metric)])
                rows.append(
                    {
                        "objective": obj,
                        "a": a,
                        "b": b,
                        "metric": metric,
                        "difference": d,
                        "low": d,
                        "high": d,
                    }
                )
    return pd.DataFrame(rows)


# sum_reduction: "it resulted in highest H scores for both CLMs and MLMs"

SUM_PAIRS = tuple(("sum", r) for r in REDUCTIONS if r != "sum")


def sum_highest_h(evidence: Evidence) -> Judgement:
    """Sum's mean H is higher than every other reduction's, for CLMs and for MLMs: every
    (objective, other reduction) difference ``H(Sum) - H(other)`` above 0; both objectives
    required."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="mean H(Sum) - mean H(other reduction)",
        unit="objective-reduction pair",
        required=OBJECTIVES,
        required_in="objective",
    )


def sum_highest_h_paper() -> Evidence:
    return Evidence(
        _pair_units(_authors_differences(SUM_PAIRS, ["H"])),
        "authors' repository values, no interval",
    )


def sum_highest_h_build(result: ReductionsResult) -> Evidence:
    missing = [o.upper() for o in OBJECTIVES if o not in set(result.objectives.values())]
    return Evidence(
        _pair_units(result.h_differences),
        BUILD_SOURCE,
        missing=f"this build has no {' or '.join(missing)}" if missing else "",
    )


# mean_trades_accuracy: Mean and Mean (A) lower ACE than the sums, with lower accuracy

MEAN_PAIRS = tuple((m, s) for m in MEANS for s in SUMS)


def mean_trades_accuracy(evidence: Evidence) -> Judgement:
    """Mean and Mean (A) have a lower mean ACE than Sum and Sum (A), and a lower mean accuracy,
    for CLMs and for MLMs: every (objective, mean variant, sum variant, metric) difference
    below 0; both objectives required."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="mean metric(Mean variant) - mean metric(summation variant)",
        unit="comparison",
        required=OBJECTIVES,
        required_in="objective",
    )


def mean_trades_accuracy_paper() -> Evidence:
    return Evidence(
        _pair_units(_authors_differences(MEAN_PAIRS, ["ace", "accuracy"])),
        "authors' repository values, no interval",
    )


def mean_trades_accuracy_build(result: ReductionsResult) -> Evidence:
    missing = [o.upper() for o in OBJECTIVES if o not in set(result.objectives.values())]
    return Evidence(
        _pair_units(result.mean_vs_sum),
        BUILD_SOURCE,
        missing=(f"this build has no {' or '.join(missing)}" if missing else ""),
    )


# mean_right_skewed: "mean reduction yields strongly right-skewed confidence distributions"


def mean_right_skewed(evidence: Evidence) -> Judgement:
    """Under the Mean reduction, every model's Base-Confidence distribution has a sample
    skewness above :data:`STRONG_SKEW` (strongly right-skewed)."""
    return quantifiers.every(
        evidence, ">", STRONG_SKEW, what="skewness of C_Base under Mean", unit="model"
    )


def mean_right_skewed_build(result: ReductionsResult) -> Evidence:
    shape = result.shape[result.shape["reduction"] == "mean"]
    frame = shape.rename(
        columns={
            "model": "unit",
            "skewness": "difference",
            "skewness_low": "low",
            "skewness_high": "high",
        }
    )
    return Evidence(
        frame[["unit", "difference", "low", "high", "n"]].reset_index(drop=True),
        f"this build, 95% BCa bootstrap interval over facts "
        f"({result.params.n_bootstrap} resamples)",
    )


# mean_max_half: "Under full-sequence mean reduction, the confidences of opt-1.3b do not exceed
# 0.5."


def mean_max_half(evidence: Evidence) -> Judgement:
    """The largest C_Base of opt-1.3b under the Mean reduction is at most 0.5
    (``mean_reduction_opt13b_max`` of the paper's text numbers)."""
    return quantifiers.every(
        evidence,
        "<=",
        text_value("mean_reduction_opt13b_max"),
        what="largest C_Base under Mean",
        unit="model",
        required=(FIGURE8_MODEL,),
    )


def mean_max_half_build(result: ReductionsResult) -> Evidence:
    """The largest confidence of opt-1.3b under Mean. On all of BEAR it is the value itself
    (``low == high``); on a sample the population's maximum is at least the sample's, so the
    interval is ``[sample max, 1]``: a sample can show the claim false, never true."""
    shape = result.shape[
        (result.shape["reduction"] == "mean") & (result.shape["model"] == FIGURE8_MODEL)
    ]
    if shape.empty:
        return Evidence.empty(
            f"{FIGURE8_MODEL} is not among this build's models ({', '.join(result.params.models)})"
        )
    top = float(shape["max"].iloc[0])
    high = top if result.params.all_of_bear else 1.0
    frame = pd.DataFrame(
        {"unit": [FIGURE8_MODEL], "difference": [top], "low": [top], "high": [high]}
    )
    where = (
        "all of BEAR"
        if result.params.all_of_bear
        else "a sample of BEAR: the largest confidence of all of BEAR is at least this"
    )
    return Evidence(frame, f"this build, {where}")


CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="sum_reduction",
        paper="kissling2026",
        section="Appendix C",
        quote="as it resulted in highest $H$ scores for both CLMs and MLMs",
        statement="Sum has the highest mean H of the four reductions, for the CLMs and for "
        "the MLMs (Figure 7's means per objective)",
        quantifier="every",
        metrics=("H",),
        about="CLMs and MLMs (each objective's mean)",
        chapter="reductions",
        rule=sum_highest_h,
        paper_evidence=sum_highest_h_paper,
        build_evidence=sum_highest_h_build,
        paper_note=AUTHORS_NOTE,
        needs="causal and masked models in one build (the quick profile's tiny models, or "
        "`calib book --profile paper`)",
    ),
    Claim(
        key="mean_trades_accuracy",
        paper="kissling2026",
        section="Appendix C",
        quote="$Mean$ and Mean (A) do result in better calibration scores than the summation "
        "variants, however this comes with a significant decrease in accuracy",
        statement="Mean and Mean (A) have a lower mean ACE than Sum and Sum (A), and a lower "
        "mean accuracy, for the CLMs and for the MLMs",
        quantifier="every",
        metrics=("ace", "accuracy"),
        about="CLMs and MLMs (each objective's mean)",
        chapter="reductions",
        rule=mean_trades_accuracy,
        paper_evidence=mean_trades_accuracy_paper,
        build_evidence=mean_trades_accuracy_build,
        paper_note=AUTHORS_NOTE,
        needs="causal and masked models in one build (the quick profile's tiny models, or "
        "`calib book --profile paper`)",
    ),
    Claim(
        key="mean_right_skewed",
        paper="kissling2026",
        section="Appendix C",
        quote="mean reduction yields strongly right-skewed confidence distributions",
        statement=f"Under the Mean reduction the distribution of C_Base is strongly "
        f"right-skewed (sample skewness above {STRONG_SKEW:g}) for every model",
        quantifier="every",
        metrics=("confidence",),
        about="every model (Figure 8 shows opt-1.3b)",
        chapter="reductions",
        rule=mean_right_skewed,
        paper_evidence=None,
        build_evidence=mean_right_skewed_build,
        paper_note="Figure 8 prints no numbers (histograms of opt-1.3b), and the authors' "
        "repository stores no confidence distribution",
        needs="any model on BEAR",
    ),
    Claim(
        key="mean_max_half",
        paper="kissling2026",
        section="Appendix C",
        quote="Under full-sequence mean reduction, the confidences of opt-1.3b do not exceed 0.5.",
        statement="Under the Mean reduction no C_Base of opt-1.3b on BEAR exceeds 0.5",
        quantifier="one model",
        metrics=("confidence",),
        about="opt-1.3b",
        chapter="reductions",
        rule=mean_max_half,
        paper_evidence=None,
        build_evidence=mean_max_half_build,
        paper_note="Figure 8 prints no numbers (a histogram), and the authors' repository "
        "stores no confidences of opt-1.3b",
        needs="opt-1.3b on all of BEAR: `calib run reductions -p models '[\"opt-1.3b\"]' -p "
        "per_relation null` where the hub is reachable, or `calib book --profile "
        "paper`",
    ),
)
