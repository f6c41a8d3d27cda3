"""The signed calibration gap: is an estimator over- or underconfident (beyond the paper)?

The paper's headline (§5.1) is read off calibration curves: Base-Confidence "is markedly
overconfident", and Margin "can introduce underconfidence in the lower range of the confidence
scores". ACE and the Brier score are unsigned and cannot say which. The signed gap

    ``gap = mean(confidence) - accuracy``  (:func:`calib.confidence.metrics.signed_gap`)

is above 0 for an overconfident estimator and below 0 for an underconfident one; its 95% BCa
interval over instances (:mod:`calib.confidence.bootstrap`) gives the direction label of
:func:`calib.confidence.summary.gap_direction`: ``overconfident`` (interval above 0),
``underconfident`` (below 0) or ``undecided`` (it includes 0).

:func:`gap_by_range` restricts the gap to instances whose confidence lies in a range (e.g. below
0.25): for a perfectly calibrated estimator ``E[correct | confidence] = confidence``, so the gap
of any confidence range is 0 in expectation, and a range's interval tests the paper's range
claims (selection is on the confidence, never on the outcome).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.schema import INSTANCE, require_columns
from calib.confidence.summary import DEFAULT_BY, gap_direction, summary

#: default confidence ranges of :func:`gap_by_range`: the quarters of [0, 1]
GAP_RANGES: tuple[tuple[float, float], ...] = ((0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0))

__all__ = ["GAP_RANGES", "gap_by_range", "gap_direction", "signed_gaps"]


def _by(estimates: pd.DataFrame, by: Sequence[str] | None) -> list[str]:
    return [c for c in DEFAULT_BY if c in estimates.columns] if by is None else list(by)


def signed_gaps(
    estimates: pd.DataFrame,
    by: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """The signed gap per group of an estimate table (default per model, dataset, estimator
    and template where present, as :func:`calib.confidence.summary.summary`).

    Columns ``by``, ``n``, ``mean_confidence``, ``accuracy``, ``gap`` (= mean_confidence -
    accuracy), ``gap_low``, ``gap_high`` (BCa, ``level``), ``direction``.

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (:func:`calib.confidence.estimators.all_estimates`).
    by : sequence of str or None
        The grouping columns (default: those of
        :data:`calib.confidence.summary.DEFAULT_BY` present).
    n_boot : int
        Bootstrap resamples (default 1000; 0 skips the intervals, NaN).
    seed : int
        The resamples' seed (default 0).
    level : float
        The intervals' level (default 0.95).

    Returns
    -------
    pandas.DataFrame
        One row per group, sorted by ``by``.

    Raises
    ------
    ValueError
        As :func:`calib.confidence.summary.summary`.
    """
    by = _by(estimates, by)
    table = summary(
        estimates, by=by, n_boot=n_boot, seed=seed, level=level, metrics=("gap", "accuracy")
    )
    mean_conf = (
        (estimates.groupby(by, sort=True, dropna=False)["confidence"].mean().reset_index(drop=True))
        if by
        else pd.Series([estimates["confidence"].mean()])
    )
    table.insert(len(by) + 1, "mean_confidence", mean_conf.to_numpy(dtype=float))
    table = table.rename(columns={"gap_direction": "direction"})
    return table[
        [*by, "n", "mean_confidence", "accuracy", "gap", "gap_low", "gap_high", "direction"]
    ]


def _range_labels(ranges: Sequence[tuple[float, float]]) -> list[str]:
    out = []
    for i, (lo, hi) in enumerate(ranges):
        closed = i == len(ranges) - 1 and hi >= 1.0
        out.append(f"[{lo:g}, {hi:g}{']' if closed else ')'}")
    return out


def gap_by_range(
    estimates: pd.DataFrame,
    ranges: Sequence[tuple[float, float]] = GAP_RANGES,
    by: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """The signed gap restricted to the instances whose confidence lies in each range
    ``[low, high)`` (the last range also holds ``high`` when ``high >= 1``), per group.

    ``ranges`` must be ascending and not overlap; instances outside every range are left out,
    and a range without instances in a group has no row. Columns ``by``, ``range`` (e.g.
    ``"[0, 0.25)"``), ``range_low``, ``range_high``, ``n``, ``mean_confidence``, ``accuracy``,
    ``gap``, ``gap_low``, ``gap_high``, ``direction``. Each group x range is resampled on its own
    (same ``seed``).

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (:func:`calib.confidence.estimators.all_estimates`).
    ranges : sequence of tuple of (float, float)
        The confidence ranges, ascending and not overlapping (default :data:`GAP_RANGES`).
    by : sequence of str or None
        The grouping columns (default: those of
        :data:`calib.confidence.summary.DEFAULT_BY` present).
    n_boot : int
        Bootstrap resamples (default 1000; 0 skips the intervals, NaN).
    seed : int
        The resamples' seed (default 0).
    level : float
        The intervals' level (default 0.95).

    Returns
    -------
    pandas.DataFrame
        One row per group and range that holds instances.

    Raises
    ------
    ValueError
        For a missing column, no range, a range whose low end is not below its high end,
        ranges that overlap or descend, a ``by`` column named ``range``, ``range_low`` or
        ``range_high``, no instance in any range, or as :func:`calib.confidence.summary.summary`.
    """
    require_columns(estimates, (*INSTANCE, "confidence", "correct"), "estimate table")
    ranges = [(float(lo), float(hi)) for lo, hi in ranges]
    if not ranges:
        raise ValueError("no confidence range given")
    for i, (lo, hi) in enumerate(ranges):
        if not lo < hi:
            raise ValueError(f"range {i} ({lo}, {hi}): its low end must be below its high end")
        if i and lo < ranges[i - 1][1]:
            raise ValueError(
                f"ranges must be ascending and must not overlap: {ranges[i - 1]} and {(lo, hi)}"
            )
    by = _by(estimates, by)
    clash = [c for c in ("range", "range_low", "range_high") if c in by]
    if clash:
        raise ValueError(f"{clash}: gap_by_range adds these columns; rename them in the table")
    labels = _range_labels(ranges)
    conf = estimates["confidence"].to_numpy(dtype=float)
    which = np.full(len(conf), -1)
    for i, (lo, hi) in enumerate(ranges):
        top = (i == len(ranges) - 1) and hi >= 1.0
        inside = (conf >= lo) & ((conf < hi) | (top & (conf <= hi)))
        which[inside & (which < 0)] = i
    keep = which >= 0
    if not keep.any():
        raise ValueError(f"no instance has a confidence in the ranges {ranges}")
    lows = np.array([lo for lo, _ in ranges])
    part = estimates[keep].assign(range_low=lows[which[keep]])
    table = signed_gaps(part, by=[*by, "range_low"], n_boot=n_boot, seed=seed, level=level)
    index = {lo: i for i, (lo, _) in enumerate(ranges)}
    at = table["range_low"].map(index)
    table.insert(len(by), "range", at.map(dict(enumerate(labels))))
    table.insert(len(by) + 2, "range_high", at.map(lambda i: ranges[i][1]))
    return table.reset_index(drop=True)
