"""Seeded bootstrap intervals for the calibration metrics, so the book can say whether two
estimators (or two models) really differ.

* :func:`bootstrap_metrics` -- percentile intervals for ACE, Brier, accuracy (and ECE) by
  resampling instances with replacement.
* :func:`paired_difference` -- the difference of a metric between two estimators on the *same*
  instances, each resample drawn once and applied to both (a paired bootstrap), with a
  percentile interval and a two-sided bootstrap p-value.
* :func:`correlation_interval` -- a correlation coefficient across models (e.g. ACE vs
  accuracy) with a percentile interval from resampling the models.

Resampling is expressed as multiplicity weights (how often each instance is drawn) and every
metric is evaluated by the same weighted function that computes its point value
(:data:`calib.confidence.metrics.WEIGHTED`). For a given ``seed``, ``n_boot`` and number of
instances the resamples are always the same, so intervals of different estimators on the same
instances are paired too; the frame-level helpers sort instances by their keys first, so the
row order of a table never matters.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from calib.confidence.metrics import N_BINS, WEIGHTED, check_inputs
from calib.confidence.tables import INSTANCE, require_columns

#: the metrics with intervals by default
METRICS: tuple[str, ...] = ("ace", "brier", "accuracy")
#: cap on the size of one block of resampling weights (resamples x instances)
_BLOCK_CELLS = 4_000_000


def check_bootstrap_args(n_boot: int, level: float, metrics: Sequence[str]) -> None:
    """Raise ``ValueError`` for a bad ``n_boot``, ``level`` or metric name."""
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    unknown = [m for m in metrics if m not in WEIGHTED]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; expected some of {list(WEIGHTED)}")


def resample_weights(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of bootstrap multiplicities, ``(rows, n)`` integer arrays, ``n_boot`` rows in all:
    row ``r`` counts how often each of the ``n`` instances is drawn in resample ``r``. The
    stream depends only on ``(n, n_boot, seed)``."""
    rng = np.random.default_rng(seed)
    block = max(1, min(256, _BLOCK_CELLS // max(n, 1)))
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        idx = rng.integers(0, n, size=(b, n))
        flat = (idx + (np.arange(b) * n)[:, None]).ravel()
        yield np.bincount(flat, minlength=b * n).reshape(b, n)
        done += b


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central ``level`` percentile interval of the finite bootstrap ``values``."""
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(finite, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def replicate_values(conf, corr, metrics, n_boot, seed, n_bins) -> dict[str, np.ndarray]:
    """``{metric: n_boot resampled values}`` for validated float arrays ``conf``, ``corr``."""
    order = np.argsort(conf, kind="stable")
    c, y = conf[order], corr[order]
    out = {m: [] for m in metrics}
    for w in resample_weights(len(c), n_boot, seed):
        w = w[:, order]
        for m in metrics:
            out[m].append(WEIGHTED[m](c, y, w, n_bins))
    return {m: np.concatenate(v) for m, v in out.items()}


def point_values(conf, corr, metrics, n_bins) -> dict[str, float]:
    """``{metric: value}`` on the sample itself (unit weights)."""
    order = np.argsort(conf, kind="stable")
    ones = np.ones((1, len(conf)), np.int64)
    return {m: float(WEIGHTED[m](conf[order], corr[order], ones, n_bins)[0]) for m in metrics}


def bootstrap_metrics(confidence, correct, metrics: Sequence[str] = METRICS,
                      n_boot: int = 1000, seed: int = 0, level: float = 0.95,
                      n_bins: int = N_BINS) -> pd.DataFrame:
    """Point values and percentile bootstrap intervals over instances.

    One row per metric (``"ace"``, ``"brier"``, ``"accuracy"``, ``"ece"``) with ``value``,
    ``low``, ``high`` (the central ``level`` interval of ``n_boot`` resamples) and ``n_boot``.
    """
    check_bootstrap_args(n_boot, level, metrics)
    conf, corr = check_inputs(confidence, correct)
    points = point_values(conf, corr, metrics, n_bins)
    reps = replicate_values(conf, corr, metrics, n_boot, seed, n_bins)
    rows = [{"metric": m, "value": points[m], "low": percentile_interval(reps[m], level)[0],
             "high": percentile_interval(reps[m], level)[1], "n_boot": n_boot} for m in metrics]
    return pd.DataFrame(rows)


def bootstrap_interval(confidence, correct, metric: str = "ace", n_boot: int = 1000,
                       seed: int = 0, level: float = 0.95, n_bins: int = N_BINS
                       ) -> tuple[float, float, float]:
    """``(value, low, high)`` of one metric; see :func:`bootstrap_metrics`."""
    row = bootstrap_metrics(confidence, correct, (metric,), n_boot, seed, level, n_bins).iloc[0]
    return row["value"], row["low"], row["high"]


def paired_difference(conf_a, correct_a, conf_b, correct_b, metric: str = "ace",
                      n_boot: int = 1000, seed: int = 0, level: float = 0.95,
                      n_bins: int = N_BINS) -> dict:
    """Paired bootstrap of ``metric(a) - metric(b)`` for two estimators on the same instances
    (entry ``i`` of both inputs is the same instance).

    Returns ``difference``, ``low``, ``high`` (percentile interval) and ``p_value``: twice the
    smaller share of resampled differences on either side of 0 (capped at 1), a two-sided
    bootstrap test of "no difference". The interval excluding 0 means the estimators differ at
    that level.
    """
    check_bootstrap_args(n_boot, level, (metric,))
    ca, ya = check_inputs(conf_a, correct_a)
    cb, yb = check_inputs(conf_b, correct_b)
    if len(ca) != len(cb):
        raise ValueError(f"paired inputs must cover the same instances: {len(ca)} vs {len(cb)}")
    fn = WEIGHTED[metric]
    oa, ob = np.argsort(ca, kind="stable"), np.argsort(cb, kind="stable")
    ones = np.ones((1, len(ca)), np.int64)
    point = float(fn(ca[oa], ya[oa], ones, n_bins)[0] - fn(cb[ob], yb[ob], ones, n_bins)[0])
    diffs = []
    for w in resample_weights(len(ca), n_boot, seed):
        diffs.append(fn(ca[oa], ya[oa], w[:, oa], n_bins) - fn(cb[ob], yb[ob], w[:, ob], n_bins))
    d = np.concatenate(diffs)
    lo, hi = percentile_interval(d, level)
    p = min(1.0, 2 * min(np.mean(d <= 0), np.mean(d >= 0)))
    return {"metric": metric, "difference": point, "low": lo, "high": hi,
            "p_value": float(p), "n": len(ca), "n_boot": n_boot}


def _aligned(est_a: pd.DataFrame, est_b: pd.DataFrame, keys: Sequence[str]):
    for name, est in (("first", est_a), ("second", est_b)):
        require_columns(est, (*keys, "confidence", "correct"), f"{name} estimate table")
        if est.duplicated(list(keys)).any():
            raise ValueError(f"{name} estimate table has several rows per instance {list(keys)}; "
                             f"select one estimator/template first")
    merged = est_a[[*keys, "confidence", "correct"]].merge(
        est_b[[*keys, "confidence", "correct"]], on=list(keys), how="outer",
        suffixes=("_a", "_b"), indicator=True)
    unmatched = merged["_merge"] != "both"
    if unmatched.any():
        raise ValueError(f"the two estimate tables cover different instances: "
                         f"{int((merged['_merge'] == 'left_only').sum())} only in the first, "
                         f"{int((merged['_merge'] == 'right_only').sum())} only in the second")
    return merged.sort_values(list(keys), kind="stable").reset_index(drop=True)


def paired_estimates_difference(est_a: pd.DataFrame, est_b: pd.DataFrame, metric: str = "ace",
                                n_boot: int = 1000, seed: int = 0, level: float = 0.95,
                                n_bins: int = N_BINS, keys: Sequence[str] = INSTANCE) -> dict:
    """:func:`paired_difference` for two estimate tables, matched on the instance ``keys``
    (a ``ValueError`` if they cover different instances)."""
    m = _aligned(est_a, est_b, keys)
    return paired_difference(m["confidence_a"], m["correct_a"].astype(bool),
                             m["confidence_b"], m["correct_b"].astype(bool),
                             metric, n_boot, seed, level, n_bins)


def correlation_interval(x, y, method: str = "pearson", n_boot: int = 2000, seed: int = 0,
                         level: float = 0.95) -> dict:
    """A correlation coefficient across units (e.g. models: ACE vs accuracy) with a percentile
    bootstrap interval from resampling the ``(x, y)`` pairs.

    ``method``: ``"pearson"`` or ``"spearman"``. Resamples in which ``x`` or ``y`` is constant
    have no correlation and are left out; ``n_used`` says how many remained.
    """
    if method not in ("pearson", "spearman"):
        raise ValueError(f"unknown method {method!r}; expected 'pearson' or 'spearman'")
    check_bootstrap_args(n_boot, level, ())
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xa.ndim != 1 or xa.shape != ya.shape:
        raise ValueError(f"x and y must be 1-D of equal length, got {xa.shape} and {ya.shape}")
    if len(xa) < 3:
        raise ValueError(f"a correlation interval needs at least 3 pairs, got {len(xa)}")
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise ValueError("x and y must be finite")

    def corr(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # row-wise correlation
        if method == "spearman":
            a, b = stats.rankdata(a, axis=-1), stats.rankdata(b, axis=-1)
        a = a - a.mean(axis=-1, keepdims=True)
        b = b - b.mean(axis=-1, keepdims=True)
        den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (a * b).sum(axis=-1) / np.where(den > 0, den, 1), np.nan)

    r = float(corr(xa[None, :], ya[None, :])[0])
    idx = np.random.default_rng(seed).integers(0, len(xa), size=(n_boot, len(xa)))
    reps = corr(xa[idx], ya[idx])
    lo, hi = percentile_interval(reps, level)
    return {"method": method, "r": r, "low": lo, "high": hi, "n": len(xa),
            "n_boot": n_boot, "n_used": int(np.isfinite(reps).sum())}
