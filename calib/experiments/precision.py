"""The printed precision of a paper's numbers, and why a tie at it is no evidence either way.

A paper prints 37.0 and 37.0, or 0.134 and 0.133: the true values behind them are known only to
the printed precision. A printed number ``v`` with step ``h`` (0.001 for Table 1's three
decimals, 0.1 for LPAQA's percentages) stands for a value in ``[v - h/2, v + h/2)``; the
difference of two such numbers for one in ``(d - h, d + h)``. So a printed *tie* (a difference
of 0, or a value equal to the claim's threshold) says nothing about the side of the threshold
the true values lie on: it neither supports nor contradicts the claim. A printed difference of
one step (0.134 - 0.133 = 0.001) does lie on one side, since the two rounding intervals do not
overlap.

An evidence row of printed values (``low == high``) carries its *rounding* half-width in a
``rounding`` column:

* where the rule's evidence states it: :func:`calib.experiments.quantifiers.printed` writes it
  from ``step`` and ``terms`` (``terms`` printed numbers enter the value, ``rounding = terms *
  step / 2``), :func:`calib.experiments.quantifiers.mean_of_printed` for a mean;
* otherwise :func:`mark_printed`, which :meth:`calib.experiments.claims.Claim.judge_paper` applies
  to every paper-side evidence frame, infers it: half the coarsest step, a power of ten up to
  :data:`MAX_STEP`, on whose grid every printed value of the frame lies (:func:`printed_step`).
  For values on the grid every rounding in ``(0, h]`` decides the same units: only a value equal
  to the threshold becomes undecided. A value off every grid up to :data:`MAX_DECIMALS` decimals
  (a mean of printed values) gets a step of ``10**-MAX_DECIMALS``: practically exact.

A row without a ``rounding`` (a build's value without interval, e.g. a maximum over all of
BEAR) is exact. A printed unit *supports* the claim when the whole open interval ``(v - r, v +
r)`` lies where it is true and *contradicts* it when it all lies where it is false
(:func:`printed_status`); rows with a real interval keep theirs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: the finest printed step inferred: 10**-MAX_DECIMALS
MAX_DECIMALS = 6
#: the coarsest step inferred (a frame of whole numbers or zeros says nothing coarser)
MAX_STEP = 0.1
#: relative tolerance of a value on a grid (floating-point differences of printed numbers)
GRID_TOLERANCE = 1e-9


def printed_step(values, threshold: float | None = None) -> float:
    """The coarsest step ``10**-d`` (from :data:`MAX_STEP` down to ``10**-MAX_DECIMALS``) on
    whose grid every finite value (and ``threshold``, where given) lies, within a relative
    :data:`GRID_TOLERANCE`.

    Parameters
    ----------
    values : array-like
        Printed numbers (or differences of them).
    threshold : float or None
        The claim's boundary, a printed number too (default none).

    Returns
    -------
    float
        The step; ``10**-MAX_DECIMALS`` when no coarser grid holds them all.
    """
    x = np.asarray(values, dtype=float)
    if threshold is not None:
        x = np.append(x, float(threshold))
    x = x[np.isfinite(x)]
    for d in range(round(-np.log10(MAX_STEP)), MAX_DECIMALS + 1):
        step = 10.0**-d
        scaled = x / step
        tol = GRID_TOLERANCE * np.maximum(1.0, np.abs(scaled))
        if np.all(np.abs(scaled - np.round(scaled)) <= tol):
            return step
    return 10.0**-MAX_DECIMALS


def is_printed(frame: pd.DataFrame) -> np.ndarray:
    """Which rows are printed values (a finite ``low == high``: a number without interval)."""
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    return np.isfinite(low) & (low == high)


def mark_printed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``rounding`` for each printed row (``low == high``) that has none: half
    :func:`printed_step` of the frame's printed values (NaN for rows with an interval).

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame of the paper's side.

    Returns
    -------
    pandas.DataFrame
        A copy with the column (the frame itself when it has no printed row).
    """
    printed = is_printed(frame)
    if not printed.any() or not len(frame):
        return frame
    step = printed_step(frame["difference"].to_numpy(float)[printed])
    given = (
        frame["rounding"].to_numpy(float)
        if "rounding" in frame.columns
        else np.full(len(frame), np.nan)
    )
    inferred = np.where(printed, step / 2, np.nan)
    return frame.assign(rounding=np.where(np.isfinite(given), given, inferred))


def rounding_of(frame: pd.DataFrame) -> np.ndarray:
    """Each row's rounding half-width: its ``rounding`` for a printed row (``low == high``), 0
    (exact) for a printed row without one and for rows with an interval.

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame.

    Returns
    -------
    numpy.ndarray
        One half-width per row.
    """
    if "rounding" not in frame.columns:
        return np.zeros(len(frame))
    r = np.nan_to_num(frame["rounding"].to_numpy(float), nan=0.0)
    return np.where(is_printed(frame), r, 0.0)


def printed_status(
    frame: pd.DataFrame, relation: str, threshold: float
) -> tuple[np.ndarray, np.ndarray]:
    """For printed rows (:func:`is_printed`), whether the open rounding interval ``(v - r, v +
    r)`` supports or contradicts ``value <relation> threshold``: ``(supports, contradicts)``,
    both False for rows with an interval (left to the caller) and for ties at the printed
    precision.

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame.
    relation : str
        ``<``, ``<=``, ``>`` or ``>=``.
    threshold : float
        The claim's boundary.

    Returns
    -------
    tuple of numpy.ndarray
        Two bool arrays, one value per row.
    """
    printed = is_printed(frame)
    v = frame["difference"].to_numpy(float)
    v = np.where(printed, frame["low"].to_numpy(float), v)
    r = rounding_of(frame)
    eps = GRID_TOLERANCE * max(1.0, abs(threshold))
    if relation in ("<", "<="):
        supports, contradicts = v + r <= threshold + eps, v - r >= threshold - eps
    else:
        supports, contradicts = v - r >= threshold - eps, v + r <= threshold + eps
    exact = r <= 0  # no rounding (a computed value without interval): judged as it is
    if exact.any():
        t = threshold
        exact_support = {"<": v < t, "<=": v <= t, ">": v > t, ">=": v >= t}[relation]
        supports = np.where(exact, exact_support, supports)
        contradicts = np.where(exact, ~exact_support, contradicts)
    return supports & printed, contradicts & printed
