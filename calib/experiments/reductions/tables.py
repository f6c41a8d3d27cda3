"""Figure 7 of the reductions chapter (Kissling et al. 2026, Appendix C): accuracy, ACE of
Base-Confidence and their harmonic mean H per model and reduction, the means per objective
(CLM / MLM), their noise floors and the paired differences of one reduction against another.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import (
    INTERVAL_METHODS,
    difference_interval,
    interval,
    metric_statistic,
    replicates,
)
from calib.confidence.combined import instance_ids
from calib.confidence.estimators import base
from calib.confidence.metrics import N_BINS
from calib.confidence.noise_floor import N_DRAWS, mean_floor_record
from calib.confidence.reductions import REDUCTIONS, harmonic_mean, sentence_scores
from calib.confidence.schema import require_columns
from calib.confidence.summary import compare_reductions, summary
from calib.data.bear import PLAIN
from calib.data.reported import reported
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
    est: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Appendix C for every model: accuracy, ACE of Base-Confidence on ``template`` and
    ``H = 2 ACC (1 - ACE) / (ACC + 1 - ACE)`` per reduction
    (:func:`calib.confidence.summary.compare_reductions`), plus the model's ``objective``
    (``objectives``: model -> ``clm`` / ``mlm``, e.g.
    :func:`calib.experiments.scores.objectives`), the paper's ``label`` of the reduction,
    95% bootstrap intervals of accuracy and ACE (``accuracy_low`` ...; NaN when
    ``n_bootstrap`` is 0) and, beyond the paper, ACE's noise floor from ``n_draws`` simulated
    perfectly calibrated outcome vectors (:data:`FLOOR_COLUMNS`). ``est``: the
    :func:`base_estimates` of ``scores`` for ``template`` and ``reductions`` where the caller
    has them (None: computed here, once for both steps)."""
    plain = _plain(scores, template)
    unknown = sorted(set(plain["model"].unique()) - set(objectives))
    if unknown:
        raise ValueError(f"no objective given for model(s) {unknown}")
    if est is None:
        est = base_estimates(plain, template, reductions)
    by_reduction = {
        r: part.drop(columns="reduction") for r, part in est.groupby("reduction", sort=False)
    }
    table = compare_reductions(plain, template, reductions, n_bins, estimates=by_reduction)
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
    order = {m: i for i, m in enumerate(dict.fromkeys(plain["model"].unique()))}
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
    with, beyond the paper, its 95% paired bootstrap interval over facts (each
    resample applied to every model of the objective; bias-centred, as ACE's) and its noise
    floor: the mean ACE of perfectly calibrated estimators with the models' confidences
    (:func:`calib.confidence.noise_floor.mean_floor_record`), the debiased mean and whether
    the mean is within its floor.

    ``est``: :func:`base_estimates`. Columns ``objective``, ``reduction``, ``label``,
    ``n_models``, ``n`` (facts), ``ace``, ``ace_low``, ``ace_high`` and
    :data:`FLOOR_COLUMNS`."""
    require_columns(est, ("model", "reduction", "confidence", "correct", *FACT), "estimate table")
    models = list(dict.fromkeys(est["model"].unique()))
    reductions = list(dict.fromkeys(est["reduction"].unique()))
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
    rows = est.groupby(["model", "reduction"], sort=False).indices  # one pass, not one per pair
    for m in models:
        for r in reductions:
            if (m, r) not in rows:
                raise ValueError(f"no Base estimates of model {m!r} under reduction {r!r}")
            part = est.take(rows[(m, r)]).sort_values(keys)
            these = instance_ids(part, keys)
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
    (harmonic mean of the two, Appendix C), its accuracy and ACE kept per block of weights
    (:func:`_kept`)."""
    if metric != "H":
        return _kept(metric, conf, corr, n_bins)
    acc, ace = _kept("accuracy", conf, corr, n_bins), _kept("ace", conf, corr, n_bins)
    return lambda w: harmonic_mean(np.clip(acc(w), 0, 1), np.clip(ace(w), 0, 1))


#: the values of a model's accuracy or ACE under one reduction on each block of resample
#: weights, kept: every paired bootstrap of the chapter draws the same resamples (one seed, one
#: sample of facts), and each (model, reduction) enters several pairs (``sum`` in all three H
#: differences, each mean in two of mean-vs-sum) and two metrics (H needs accuracy and ACE)
_KEPT: OrderedDict[bytes, np.ndarray] = OrderedDict()
#: the bytes of values kept at most (the oldest given up first)
KEPT_BYTES = 128 * 2**20
_KEPT_SIZE = [0]
_LAST_WEIGHTS: list = [None, b""]


def _weights_digest(w: np.ndarray) -> bytes:
    """A digest of a block of weights (the last block's is remembered: every model's
    statistic is called with the same block in turn)."""
    if _LAST_WEIGHTS[0] is w:
        return _LAST_WEIGHTS[1]
    h = hashlib.blake2b(repr((w.shape, w.dtype.str)).encode(), digest_size=20)
    h.update(np.ascontiguousarray(w).tobytes())
    _LAST_WEIGHTS[0], _LAST_WEIGHTS[1] = w, h.digest()
    return _LAST_WEIGHTS[1]


def _kept(metric: str, conf: np.ndarray, corr: np.ndarray, n_bins: int):
    """``metric`` of ``conf`` and ``corr`` as a weighted statistic whose value on a block of
    weights is computed once and given again (the same numbers) for the same block."""
    stat = metric_statistic(metric, conf, corr, n_bins)[0]
    h = hashlib.blake2b(repr((metric, n_bins, len(conf))).encode(), digest_size=20)
    h.update(np.ascontiguousarray(conf, dtype=float).tobytes())
    h.update(np.ascontiguousarray(corr, dtype=bool).tobytes())
    me = h.digest()

    def kept(w: np.ndarray) -> np.ndarray:
        key = me + _weights_digest(w)
        got = _KEPT.get(key)
        if got is None:
            got = np.asarray(stat(w))
            got.flags.writeable = False
            _KEPT[key] = got
            _KEPT_SIZE[0] += got.nbytes
            while _KEPT_SIZE[0] > KEPT_BYTES and _KEPT:
                _KEPT_SIZE[0] -= _KEPT.popitem(last=False)[1].nbytes
        return got

    return kept


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
    models = list(dict.fromkeys(est["model"].unique()))
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


def model_differences(
    est: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    metric: str = "ace",
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Per model and pair ``(a, b)`` of reductions, ``metric(a) - metric(b)`` with a 95% paired
    bootstrap interval over facts: :func:`objective_differences` with each model its own group.
    Columns as there, with ``model`` for ``objective``."""
    models = list(dict.fromkeys(est["model"]))
    out = objective_differences(
        est, {m: m for m in models}, pairs, metric, n_bootstrap, seed, n_bins
    )
    return out.rename(columns={"objective": "model"}).drop(columns=["n_models"])
