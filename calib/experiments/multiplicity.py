"""Verdicts over many units: per-unit p-values from 95% intervals and Holm's correction.

A claim about every one of 50 model-metrics fails, before any correction, as soon as one of the
50 intervals lies on the wrong side of the claim's boundary; even when the claim is true of
every unit, each interval does that with probability up to 2.5%, so one of 50 does with
probability up to 1 - 0.975**50 = 72%. The quantifiers (:mod:`calib.experiments.quantifiers`)
therefore judge a claim's units as a *family*:

* **per-unit p-values** (:func:`side_p_values`). For the claim ``difference <relation>
  threshold`` a unit has two one-sided p-values: ``p_support`` (of the null "the unit is on the
  false side"; small when the interval lies where the claim is true) and ``p_contradict`` (of
  the null "the unit is on the true side"). Where the evidence frame carries them (columns
  ``p_support`` and ``p_contradict``, e.g. from bootstrap replicates: the share of replicates on
  the other side), they are used as they are. Otherwise they come from the interval by a normal
  approximation with the standard error of the interval's half *facing the threshold*: for
  ``difference < t``, ``se = (high - difference) / z`` and ``p_support = Phi((difference - t) /
  se)``; ``se = (difference - low) / z`` and ``p_contradict = Phi((t - difference) / se)``
  (``z = 1.96`` for a 95% interval, ``Phi`` the standard normal distribution function). So a
  unit whose interval just excludes the threshold has ``p = 0.025`` on that side: with one unit
  the p-values give exactly the interval's verdict. A printed value (``low == high``) has
  ``p = 0`` on the side its status (:func:`calib.experiments.quantifiers.unit_status`, ties at
  the printed precision included) puts it, 1 on the other; a unit without interval (NaN) has 1
  on both.
* **Holm's step-down correction** (:func:`holm`, Holm 1979) over the claim's ``m`` units at the
  one-sided level ``alpha = (1 - level) / 2`` (0.025 for 95% intervals): sort the p-values,
  reject the ``j``-th smallest while ``p_(j) <= alpha / (m - j + 1)``. The chance of *any* false
  rejection among the ``m`` stays at most ``alpha``, whatever the dependence between units.
* **how many units a conclusion needs** (:func:`at_least`). Each conclusion says that at least
  ``r`` of the ``m`` units lie on one side; it is drawn when the ``r``-th smallest p-value of
  that side is at most ``alpha / (m - r + 1)`` (the partial-conjunction test of Benjamini and
  Heller 2008 in its Bonferroni form, the same threshold as Holm's ``r``-th step). A claim
  about *every* unit holds when all ``m`` support it (``r = m``: each unit at its own level,
  no correction: an intersection-union test, Berger 1982) and does not hold when one
  contradicts it (``r = 1``: ``alpha / m``, Holm's first step; :func:`holm` names the units
  that do). A claim about *most* units (``k = m // 2 + 1`` needed) holds when at least ``k``
  support it (``r = k``) and does not hold when at least ``m - k + 1`` contradict it, so that at
  most ``k - 1`` could support it. With one or two units "most" needs every unit and is judged
  as "every".

References: S. Holm (1979), *A simple sequentially rejective multiple test procedure*, Scand. J.
Statist. 6:65-70; R. L. Berger (1982), *Multiparameter hypothesis testing and acceptance
sampling*, Technometrics 24:295-300; Y. Benjamini, R. Heller (2008), *Screening for partial
conjunction hypotheses*, Biometrics 64:1215-1222.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

#: the corrections a quantifier can apply over a claim's units
CORRECTIONS: tuple[str, ...] = ("holm", "none")
#: the two-sided level of the evidence's intervals
LEVEL = 0.95


def one_sided_alpha(level: float = LEVEL) -> float:
    """The one-sided level of a two-sided ``level`` interval: ``(1 - level) / 2``."""
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    return (1 - level) / 2


def holm(p_values, alpha: float = 0.025) -> np.ndarray:
    """Holm's step-down procedure: which of the hypotheses with these p-values it rejects, at
    family-wise level ``alpha``.

    Parameters
    ----------
    p_values : array-like
        One p-value per hypothesis (NaN counts as 1).
    alpha : float
        The family-wise level (default 0.025, the one-sided level of a 95% interval).

    Returns
    -------
    numpy.ndarray
        One bool per hypothesis, in input order: rejected or not.
    """
    p = np.nan_to_num(np.asarray(p_values, dtype=float), nan=1.0)
    m = len(p)
    order = np.argsort(p, kind="stable")
    limits = alpha / (m - np.arange(m))  # alpha / m, alpha / (m - 1), ..., alpha
    passed = p[order] <= limits
    # step down: stop at the first p-value above its limit
    n_rejected = m if passed.all() else int(np.argmin(passed))
    out = np.zeros(m, dtype=bool)
    out[order[:n_rejected]] = True
    return out


def at_least(p_values, r: int, alpha: float = 0.025) -> bool:
    """Whether at least ``r`` of the ``m`` hypotheses with these p-values are false, at level
    ``alpha``: the ``r``-th smallest p-value is at most ``alpha / (m - r + 1)`` (see the module
    docstring; ``r = 1`` is Holm's first step, ``r = m`` asks every p-value to be at most
    ``alpha``).

    Parameters
    ----------
    p_values : array-like
        One p-value per hypothesis (NaN counts as 1).
    r : int
        How many must be false (1 to ``m``).
    alpha : float
        The level (default 0.025).

    Returns
    -------
    bool
        The conclusion is drawn; False for ``r`` outside 1..``m``.
    """
    p = np.sort(np.nan_to_num(np.asarray(p_values, dtype=float), nan=1.0))
    m = len(p)
    if not 1 <= r <= m:
        return False
    return bool(p[r - 1] <= alpha / (m - r + 1))


def side_p_values(
    frame: pd.DataFrame, relation: str, threshold: float, status: pd.Series, level: float = LEVEL
) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's one-sided p-values ``(p_support, p_contradict)`` for ``difference <relation>
    threshold`` (see the module docstring): the frame's own ``p_support`` / ``p_contradict``
    columns where it has them, else from the interval's half facing the threshold.

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame (``difference``, ``low``, ``high``).
    relation : str
        ``<``, ``<=``, ``>`` or ``>=``.
    threshold : float
        The claim's boundary.
    status : pandas.Series
        The units' uncorrected status (:func:`calib.experiments.quantifiers.unit_status`): it
        decides the printed units (``low == high``).
    level : float
        The two-sided level of the intervals (default 0.95).

    Returns
    -------
    tuple of numpy.ndarray
        ``p_support`` and ``p_contradict``, one per row.
    """
    if "p_support" in frame.columns and "p_contradict" in frame.columns:
        return (
            np.nan_to_num(frame["p_support"].to_numpy(float), nan=1.0),
            np.nan_to_num(frame["p_contradict"].to_numpy(float), nan=1.0),
        )
    z = float(stats.norm.ppf(1 - one_sided_alpha(level)))
    d = frame["difference"].to_numpy(float)
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    below = relation in ("<", "<=")
    # the signed distance into the claim's true side, and the half-widths towards each side
    into = (threshold - d) if below else (d - threshold)
    half_true = (high - d) if below else (d - low)  # the half facing the threshold from true
    half_false = (d - low) if below else (high - d)
    whole = (high - low) / 2
    # an estimate outside its interval: the interval's mean half-width; an estimate on an end
    # (a one-sided bound, e.g. a sample's maximum as a lower bound of the population's) keeps a
    # half of 0: that side is certain
    half_true = np.where(half_true >= 0, half_true, whole)
    half_false = np.where(half_false >= 0, half_false, whole)
    with np.errstate(divide="ignore", invalid="ignore"):
        p_support = stats.norm.sf(into / (half_true / z))
        p_contradict = stats.norm.sf(-into / (half_false / z))
    st = status.to_numpy()
    point = (low == high) | ~np.isfinite(p_support) | ~np.isfinite(p_contradict)
    p_support = np.where(point, np.where(st == "supports", 0.0, 1.0), p_support)
    p_contradict = np.where(point, np.where(st == "contradicts", 0.0, 1.0), p_contradict)
    missing = ~(np.isfinite(low) & np.isfinite(high))
    p_support[missing], p_contradict[missing] = 1.0, 1.0
    return p_support, p_contradict


def corrected_status(
    frame: pd.DataFrame,
    relation: str,
    threshold: float,
    status: pd.Series,
    *,
    sides: tuple[str, ...] = ("contradicts",),
    correction: str = "holm",
    level: float = LEVEL,
) -> pd.Series:
    """The units' status after ``correction`` of the given ``sides`` over the claim's units: a
    unit keeps ``supports`` / ``contradicts`` on a corrected side only if Holm's procedure
    rejects its null on that side, else it becomes ``undecided``; an uncorrected side keeps each
    unit's own status.

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame.
    relation : str
        ``<``, ``<=``, ``>`` or ``>=``.
    threshold : float
        The claim's boundary.
    status : pandas.Series
        The uncorrected status (:func:`calib.experiments.quantifiers.unit_status`).
    sides : tuple of str
        The sides corrected: ``"supports"``, ``"contradicts"`` (default: contradictions only).
    correction : str
        ``"holm"`` or ``"none"`` (:data:`CORRECTIONS`; default ``"holm"``).
    level : float
        The two-sided level of the intervals (default 0.95).

    Returns
    -------
    pandas.Series
        The corrected status, ``frame``'s index.

    Raises
    ------
    ValueError
        For an unknown correction or side.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {CORRECTIONS}, got {correction!r}")
    unknown = set(sides) - {"supports", "contradicts"}
    if unknown:
        raise ValueError(f"sides are 'supports' and 'contradicts', got {sorted(unknown)}")
    if correction == "none" or not len(frame):
        return status.copy()
    p_support, p_contradict = side_p_values(frame, relation, threshold, status, level)
    alpha = one_sided_alpha(level)
    out = status.copy()
    for side, p in (("supports", p_support), ("contradicts", p_contradict)):
        if side in sides:
            keep = holm(p, alpha)
            out[(status == side).to_numpy() & ~keep] = "undecided"
    return out


def correction_text(correction: str, n: int, unit: str, need: int | None = None) -> str:
    """How a verdict over ``n`` units was corrected for their number, for the page, e.g.
    ``"Holm over 50 model-metrics (a contradiction needs p <= 0.025/50); support: each unit's own
    95% interval (all are needed)"``.

    Parameters
    ----------
    correction : str
        ``"holm"`` or ``"none"``.
    n : int
        The claim's units.
    unit : str
        Their name, singular.
    need : int or None
        How many must support the claim (default ``n``: every unit).

    Returns
    -------
    str
        The text; ``"none (1 unit)"`` for a single unit.
    """
    units = unit if n == 1 else f"{unit}s"
    need = n if need is None else need
    if n <= 1:
        return f"none ({n} {units})"
    if correction == "none":
        return f"none over {n} {units}"
    if need == n:
        return (
            f"Holm over {n} {units} (a contradiction needs p <= 0.025/{n}); support: each "
            f"unit's own 95% interval (all are needed)"
        )
    return (
        f"partial conjunction over {n} {units}: at least {need} must support it (the "
        f"{_ordinal(need)} smallest p <= 0.025/{n - need + 1}), or {n - need + 1} contradict it"
    )


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"
