"""Reliability-diagram data: the calibration curve with per-bin intervals, and the histogram of
confidences under it (the diagram as scikit-learn's ``CalibrationDisplay`` and netcal draw it;
beyond the paper's Fig. 2, which shows the curve only).

* :func:`wilson_interval` -- the Wilson score interval of a proportion (Wilson, 1927).
* :func:`reliability_curve` -- :func:`calib.confidence.metrics.calibration_curve` (the 20
  quantile bins of ACE by default) with ``accuracy_low`` / ``accuracy_high``, the Wilson
  interval of each bin's accuracy: how far a bin's accuracy could be from its confidence by
  chance alone, given its ``count``. The interval treats the bin's instances as independent
  draws with one success probability; a bin whose interval holds the diagonal is no evidence of
  miscalibration on its own.
* :func:`confidence_histogram` -- how many instances have a confidence in each of ``n_bins``
  equal-width bins on [0, 1] (the binning of ECE: right-closed, the first bin also holding 0 and
  any confidence below 0), every bin listed, counts summing to ``n``.
* :func:`reliability_diagram` -- both for every group of a long estimate table, the frames the
  chart builder :func:`calib.report.charts.reliability_diagram` draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from calib.confidence.metrics import N_BINS, calibration_curve, sorted_inputs, weighted_bins
from calib.confidence.schema import require_columns


def wilson_interval(successes, n, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval ``(low, high)`` of the proportion ``successes / n`` (arrays):
    ``(p + z^2/2n -/+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``; NaN where ``n`` is 0.

    Parameters
    ----------
    successes : array-like
        Successes per proportion, between 0 and ``n``.
    n : array-like
        Trials per proportion.
    level : float
        The interval's level (default 0.95).

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray)
        ``(low, high)``, clipped to [0, 1].

    Raises
    ------
    ValueError
        For a ``level`` outside (0, 1), or successes below 0 or above ``n``.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    k = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    if np.any(k < 0) or np.any(k > m):
        raise ValueError("wilson_interval: successes must lie between 0 and n")
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / m
        den = 1 + z * z / m
        centre = (p + z * z / (2 * m)) / den
        half = z * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m)) / den
        low, high = np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
    empty = m <= 0
    return np.where(empty, np.nan, low), np.where(empty, np.nan, high)


def reliability_curve(
    confidence, correct, n_bins: int = N_BINS, strategy: str = "quantile", level: float = 0.95
) -> pd.DataFrame:
    """Calibration-curve data with per-bin intervals: the columns of
    :func:`calib.confidence.metrics.calibration_curve` (``bin``, ``lower``, ``upper``,
    ``count``, ``mean_confidence``, ``accuracy``) and ``accuracy_low``, ``accuracy_high``, the
    Wilson ``level`` interval of each bin's accuracy.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    n_bins : int
        The number of bins (default 20).
    strategy : str
        ``"quantile"`` (default, ACE's bins) or ``"uniform"`` (ECE's).
    level : float
        The Wilson intervals' level (default 0.95).

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin.

    Raises
    ------
    ValueError
        As :func:`calib.confidence.metrics.calibration_curve`, or for a ``level`` outside (0, 1).
    """
    curve = calibration_curve(confidence, correct, n_bins, strategy)
    correct_count = np.round(curve["accuracy"].to_numpy() * curve["count"].to_numpy())
    low, high = wilson_interval(correct_count, curve["count"].to_numpy(), level)
    return curve.assign(accuracy_low=low, accuracy_high=high)


def confidence_histogram(confidence, n_bins: int = N_BINS) -> pd.DataFrame:
    """The histogram of confidences on ``n_bins`` equal-width bins of [0, 1] (the bins of ECE):
    one row per bin, empty bins included, with ``bin``, ``lower``, ``upper``, ``count`` (summing
    to the number of instances) and ``share`` (``count / n``).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance.
    n_bins : int
        The number of bins (default 20).

    Returns
    -------
    pandas.DataFrame
        One row per bin.
    """
    conf = np.asarray(confidence, dtype=float)
    _, c, y = sorted_inputs(conf, np.zeros(len(conf)))
    count, _, _, edges = weighted_bins(c, y, np.ones((1, len(c)), np.int64), n_bins, "uniform")
    count, edges = count[0].astype(np.int64), edges[0]
    return pd.DataFrame(
        {
            "bin": np.arange(n_bins),
            "lower": edges[:-1],
            "upper": edges[1:],
            "count": count,
            "share": count / len(c),
        }
    )


@dataclass(frozen=True)
class ReliabilityDiagram:
    """The two frames of a reliability diagram, one block of rows per group: ``curve``
    (:func:`reliability_curve`) and ``histogram`` (:func:`confidence_histogram`), each with the
    group's columns first."""

    curve: pd.DataFrame
    histogram: pd.DataFrame


def reliability_diagram(
    estimates: pd.DataFrame,
    by: Sequence[str] = ("model", "estimator"),
    n_bins: int = N_BINS,
    strategy: str = "quantile",
    histogram_bins: int = N_BINS,
    level: float = 0.95,
) -> ReliabilityDiagram:
    """:func:`reliability_curve` and :func:`confidence_histogram` for every group of ``by`` of
    an estimate table (groups in the order they first appear).

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (:func:`calib.confidence.estimators.all_estimates`).
    by : sequence of str
        The grouping columns (default ``("model", "estimator")``).
    n_bins : int
        The curve's number of bins (default 20).
    strategy : str
        The curve's binning, ``"quantile"`` (default) or ``"uniform"``.
    histogram_bins : int
        The histogram's number of bins (default 20).
    level : float
        The Wilson intervals' level (default 0.95).

    Returns
    -------
    calib.confidence.reliability.ReliabilityDiagram
        The ``curve`` and ``histogram`` frames.

    Raises
    ------
    ValueError
        For a missing column, or as :func:`reliability_curve`.
    """
    by = list(by)
    require_columns(estimates, (*by, "confidence", "correct"), "estimate table")
    curves, hists = [], []
    groups = estimates.groupby(by, sort=False, dropna=False) if by else [((), estimates)]
    for keys, part in groups:
        keys = dict(zip(by, keys if isinstance(keys, tuple) else (keys,)))
        conf, corr = part["confidence"], part["correct"].astype(bool)
        curves.append(reliability_curve(conf, corr, n_bins, strategy, level).assign(**keys))
        hists.append(confidence_histogram(conf, histogram_bins).assign(**keys))

    def ordered(parts):
        out = pd.concat(parts, ignore_index=True)
        return out[[*by, *[c for c in out.columns if c not in by]]]

    return ReliabilityDiagram(ordered(curves), ordered(hists))
