"""The calibration chapter's curves and correlations (Kissling et al. 2026, Figures 2, 9, 10,
Appendices D and E): reliability diagrams and where each curve starts, accuracy-rejection
curves and Appendix E's example, and the correlation of ACE with accuracy across models.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import WeightedStatistic, correlation_interval, difference_interval
from calib.confidence.metrics import (
    N_BINS,
    accuracy_rejection_curve,
    calibration_curve,
    weighted_bins,
)
from calib.confidence.reliability import reliability_diagram
from calib.confidence.schema import INSTANCE, require_columns
from calib.experiments.calibration.contrasts import fact_arrays

#: the thresholds of the accuracy-rejection curves (Figure 10)
REJECTION_THRESHOLDS: tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(1, 10))
#: fewest models for which a correlation across models is computed (more than three)
MIN_MODELS_FOR_CORRELATION = 4
#: Figure 10's estimators (Appendix E shows C_Margin and C_Average)
FIGURE10: tuple[str, ...] = ("Margin", "Average")


# ---------------------------------------------------------------------------------------------
# curves (Figures 2 and 10)


def calibration_curves(
    est: pd.DataFrame,
    estimators: Sequence[str] | None = None,
    n_bins: int = N_BINS,
    strategy: str = "quantile",
    by: Sequence[str] = ("model", "estimator"),
) -> pd.DataFrame:
    """Calibration-curve data (Figure 2): for each group of ``by`` (default model and
    estimator; ``estimators`` selects some, ``None`` all) one row per non-empty bin with
    ``bin``, ``lower``, ``upper``, ``count``, ``mean_confidence`` and ``accuracy``
    (:func:`calib.confidence.metrics.calibration_curve`)."""
    require_columns(est, (*by, "confidence", "correct"), "estimate table")
    est = _select(est, estimators)
    parts = []
    for keys, part in est.groupby(list(by), sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        curve = calibration_curve(
            part["confidence"], part["correct"].astype(bool), n_bins, strategy
        )
        parts.append(curve.assign(**dict(zip(by, keys))))
    out = pd.concat(parts, ignore_index=True)
    return out[[*by, *[c for c in out.columns if c not in by]]]


def _select(est: pd.DataFrame, estimators: Sequence[str] | None) -> pd.DataFrame:
    if estimators is None:
        return est
    unknown = [e for e in estimators if e not in set(est["estimator"].unique())]
    if unknown:
        raise ValueError(
            f"estimator(s) {unknown} not in the estimate table; it has "
            f"{sorted(est['estimator'].unique())}"
        )
    return est[est["estimator"].isin(list(estimators))]


def reliability(
    est: pd.DataFrame, estimators: Sequence[str] | None = None, n_bins: int = N_BINS
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Reliability diagrams (Figure 2 as scikit-learn and netcal draw it): per model and
    estimator the calibration curve on ``n_bins`` quantile bins with each bin's 95% Wilson
    interval, and the histogram of confidences on ``n_bins`` equal-width bins
    (:func:`calib.confidence.reliability.reliability_diagram`): ``(curve, histogram)``."""
    diagram = reliability_diagram(
        _select(est, estimators), by=("model", "estimator"), n_bins=n_bins, histogram_bins=n_bins
    )
    return diagram.curve, diagram.histogram


def lowest_bins(
    est: pd.DataFrame,
    a: str = "Base",
    b: str = "Margin",
    n_bins: int = N_BINS,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Where each calibration curve starts (§5.1: "C_Base does not produce enough scores in the
    lower confidence ranges"): per model the mean confidence of the lowest of ``n_bins``
    quantile bins of ``a`` and of ``b`` (the curve's leftmost point), and their difference
    ``a - b`` with a 95% paired bootstrap interval over instances (bias-centred, as for the
    binned ACE). Columns ``model``, ``a``, ``b``, ``lowest_a``, ``lowest_b``, ``difference``,
    ``low``, ``high``, ``n``."""
    if n_bootstrap < 1:
        raise ValueError("lowest_bins needs n_bootstrap >= 1 (a paired bootstrap)")
    arrays, n = fact_arrays(_select(est, [a, b]))
    rows = []
    for model in dict.fromkeys(est["model"].unique()):
        if (model, a) not in arrays:
            continue
        sa = _lowest_bin_statistic(arrays[(model, a)][0], n_bins)
        sb = _lowest_bin_statistic(arrays[(model, b)][0], n_bins)

        def a_minus_b(
            w: np.ndarray, sa: WeightedStatistic = sa, sb: WeightedStatistic = sb
        ) -> np.ndarray:
            return sa(w) - sb(w)

        res = difference_interval(
            a_minus_b,
            n,
            "centred",
            n_bootstrap,
            seed,
            metric="lowest bin confidence",
        )
        ones = np.ones((1, n), np.int64)
        rows.append(
            {
                "model": model,
                "a": a,
                "b": b,
                "lowest_a": float(sa(ones)[0]),
                "lowest_b": float(sb(ones)[0]),
                "difference": res["difference"],
                "low": res["low"],
                "high": res["high"],
                "n": n,
            }
        )
    return pd.DataFrame(
        rows, columns=["model", "a", "b", "lowest_a", "lowest_b", "difference", "low", "high", "n"]
    )


def _lowest_bin_statistic(conf: np.ndarray, n_bins: int) -> WeightedStatistic:
    """The mean confidence of the lowest non-empty quantile bin, as a weighted statistic."""
    order = np.argsort(conf, kind="stable")
    c = conf[order]
    zeros = np.zeros_like(c)

    def stat(w: np.ndarray) -> np.ndarray:
        count, sum_conf, _, _ = weighted_bins(c, zeros, w[:, order], n_bins, "quantile")
        first = np.argmax(count > 0, axis=1)
        rows = np.arange(count.shape[0])
        return sum_conf[rows, first] / np.maximum(count[rows, first], 1)

    return stat


def rejection_curves(
    est: pd.DataFrame, thresholds: Sequence[float] = REJECTION_THRESHOLDS
) -> pd.DataFrame:
    """Accuracy-rejection curves (Figure 10): per model and estimator, for each threshold the
    share of instances rejected (confidence below it) and the accuracy of the rest. Thresholds
    at which no instance is kept are left out (no accuracy to show)."""
    require_columns(est, ("model", "estimator", "confidence", "correct"), "estimate table")
    parts = []
    for (model, estimator), part in est.groupby(["model", "estimator"], sort=False):
        curve = accuracy_rejection_curve(
            part["confidence"], part["correct"].astype(bool), list(thresholds)
        )
        parts.append(curve.assign(model=model, estimator=estimator))
    out = pd.concat(parts, ignore_index=True)
    out = out[out["kept"] > 0]
    return out[["model", "estimator", "threshold", "rejected", "kept", "accuracy"]].reset_index(
        drop=True
    )


def selective_example(
    est: pd.DataFrame, estimator: str, threshold: float, n_bootstrap: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Appendix E's example at ``threshold`` for every model: the share of instances whose
    ``estimator`` confidence is below it (``rejected``) and the gain in accuracy of the others
    over the accuracy of all (``gain``), each with a 95% BCa bootstrap interval over
    instances. Columns ``model``, ``estimator``, ``threshold``, ``n``, ``accuracy``,
    ``kept_accuracy``, ``rejected``, ``rejected_low``, ``rejected_high``, ``gain``,
    ``gain_low``, ``gain_high``."""
    part = _select(est, [estimator])
    rows = []
    for model, group in part.groupby("model", sort=False):
        group = group.sort_values(list(INSTANCE[1:]))
        c = group["confidence"].to_numpy(float)
        y = group["correct"].astype(bool).to_numpy(float)
        below = (c < threshold).astype(float)
        n = len(c)

        def rejected(w, below=below):
            w = w.astype(float)
            return w @ below / w.sum(axis=1)

        def gain(w, y=y, below=below):
            w = w.astype(float)
            kept = w @ (1 - below)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(
                    kept > 0, (w @ (y * (1 - below))) / np.where(kept > 0, kept, 1), np.nan
                ) - w @ y / w.sum(axis=1)

        row = {
            "model": model,
            "estimator": estimator,
            "threshold": threshold,
            "n": n,
            "accuracy": float(y.mean()),
            "kept_accuracy": float(y[below == 0].mean()) if (below == 0).any() else np.nan,
        }
        for name, stat in (("rejected", rejected), ("gain", gain)):
            if n_bootstrap:
                res = difference_interval(stat, n, "bca", n_bootstrap, seed, metric=name)
                row.update(
                    {
                        name: res["difference"],
                        f"{name}_low": res["low"],
                        f"{name}_high": res["high"],
                    }
                )
            else:
                value = float(stat(np.ones((1, n), np.int64))[0])
                row.update({name: value, f"{name}_low": np.nan, f"{name}_high": np.nan})
        rows.append(row)
    return pd.DataFrame(rows)


def ace_accuracy_correlation(
    table: pd.DataFrame,
    estimators: Sequence[str] | None = None,
    method: str = "pearson",
    n_bootstrap: int = 1000,
    seed: int = 0,
    min_models: int = MIN_MODELS_FOR_CORRELATION,
    accuracy: str = "accuracy",
    ace: str = "ace",
    unit: str = "model",
) -> pd.DataFrame:
    """The correlation of ACE with accuracy across models (Figure 9), per estimator, with a
    95% BCa bootstrap interval from resampling the models
    (:func:`calib.confidence.bootstrap.correlation_interval`).

    ``table`` has one row per model and estimator (e.g.
    :func:`~calib.experiments.calibration.tables.calibration_table` with the paper's accuracy,
    :func:`~calib.experiments.calibration.tables.template_accuracy`). With fewer than ``min_models``
    models (default: more than three are needed) nothing is computed and ``note`` says why. Columns:
    ``estimator``, ``n`` (models), ``method``, ``r``, ``low``, ``high``, ``n_used`` (resamples with
    a defined correlation), ``note``."""
    require_columns(table, (unit, "estimator", accuracy, ace), "calibration table")
    names = (
        list(dict.fromkeys(table["estimator"].unique())) if estimators is None else list(estimators)
    )
    rows = []
    for name in names:
        part = table[table["estimator"] == name]
        n = part[unit].nunique()
        if len(part) != n:
            raise ValueError(f"estimator {name!r} has several rows for one {unit}")
        row = {
            "estimator": name,
            "n": n,
            "method": method,
            "r": np.nan,
            "low": np.nan,
            "high": np.nan,
            "n_used": 0,
            "note": "",
        }
        if n < min_models:
            row["note"] = (
                f"not computed: only {n} model(s) ran, and a correlation across "
                f"models needs at least {min_models}"
            )
        elif part[accuracy].nunique() < 2 or part[ace].nunique() < 2:
            row["note"] = "not computed: accuracy or ACE is the same for every model"
        else:
            res = correlation_interval(
                part[accuracy].to_numpy(float),
                part[ace].to_numpy(float),
                method=method,
                n_boot=n_bootstrap,
                seed=seed,
            )
            row.update(r=res["r"], low=res["low"], high=res["high"], n_used=res["n_used"])
            row["note"] = (
                f"{method} correlation over {n} models; interval from {n_bootstrap} "
                f"resamples of the models"
            )
        rows.append(row)
    return pd.DataFrame(
        rows, columns=["estimator", "n", "method", "r", "low", "high", "n_used", "note"]
    )
