"""How many facts would decide an undecided verdict.

A unit is undecided when its 95% interval includes the claim's boundary. If the estimate stayed
as observed and its standard error fell as ``1/sqrt(n)`` (a mean, a difference of means or a
binned calibration error over ``n`` facts), the interval's half facing the boundary, ``h`` at
the build's ``n`` facts, would be ``h * sqrt(n / n')`` at ``n'`` facts; it excludes the boundary
once that is below the estimate's distance ``g`` from the boundary:

    ``n' = n * (h / g)**2``        (:func:`unit_factors`: the factor ``(h / g)**2``)

A unit leaning to the claim's true side would then support it, one leaning to its false side
contradict it; where the verdict corrects for the number of units
(:mod:`calib.experiments.multiplicity`), the half is widened to Holm's first step, ``z`` of
``alpha / m`` instead of ``alpha``. A claim is decided at (:func:`claim_factor`):

* *every*: the smallest factor of a unit leaning false (the first contradiction: does not
  hold), else the largest of the open units (the last support: holds);
* *most* (``k`` of ``n`` units needed): the ``k``-th smallest factor of the units leaning true
  (holds) or the ``(n - k + 1)``-th smallest of those leaning false (does not hold), whichever
  comes first;
* a unit exactly on the boundary never decides (``inf``).

The factor times the build's facts per model is the number of facts that would decide it
(:func:`facts_needed`), and :func:`reaching_profile` names the first profile that runs that
many (quick, cpu, paper; all of BEAR is 7,731 facts). It is a projection, not a promise: the
estimates themselves move with more facts, and a statistic over models (a correlation across
models) does not narrow with facts at all (``Evidence.sample``).

A claim that cannot be decided at this size because ACE's noise floor lies above its threshold
(:func:`floor_factor`) is decided no earlier than when the floor, which also falls as
``1/sqrt(n)``, comes down to the threshold: the factor ``(floor / threshold)**2``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy import stats

from calib.experiments.verdicts import FAILS, HOLDS, Verdict

#: the two-sided level of the evidence's intervals
LEVEL = 0.95


def _z(alpha: float) -> float:
    return float(stats.norm.ppf(1 - alpha))


def unit_factors(
    frame: pd.DataFrame,
    relation: str,
    threshold: float,
    *,
    m_support: int = 1,
    m_contradict: int = 1,
    level: float = LEVEL,
) -> pd.DataFrame:
    """Per unit, the side it leans to and the factor by which its sample would have to grow for
    its interval to exclude ``threshold`` (see the module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame (``difference``, ``low``, ``high``).
    relation : str
        ``<``, ``<=``, ``>`` or ``>=``.
    threshold : float
        The claim's boundary.
    m_support : int
        The units Holm's correction of the support side runs over (1: none; default 1).
    m_contradict : int
        The same for the contradiction side (default 1).
    level : float
        The intervals' two-sided level (default 0.95).

    Returns
    -------
    pandas.DataFrame
        ``lean`` (``"supports"``, ``"contradicts"`` or ``""`` on the boundary or without
        interval) and ``factor`` (NaN for a printed value or a missing interval, ``inf`` on the
        boundary), ``frame``'s index.
    """
    alpha = (1 - level) / 2
    z = _z(alpha)
    d = frame["difference"].to_numpy(float)
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    below = relation in ("<", "<=")
    into = (threshold - d) if below else (d - threshold)
    half_true = (high - d) if below else (d - low)
    half_false = (d - low) if below else (high - d)
    whole = (high - low) / 2
    # an estimate outside its interval: the interval's mean half-width; an estimate on an end
    # (a one-sided bound, e.g. a sample's maximum as a lower bound of the population's) keeps a
    # half of 0: that side is certain
    half_true = np.where(half_true >= 0, half_true, whole)
    half_false = np.where(half_false >= 0, half_false, whole)
    widen_s = _z(alpha / max(m_support, 1)) / z
    widen_c = _z(alpha / max(m_contradict, 1)) / z
    with np.errstate(divide="ignore", invalid="ignore"):
        f_true = (half_true * widen_s / into) ** 2
        f_false = (half_false * widen_c / -into) ** 2
    lean = np.where(into > 0, "supports", np.where(into < 0, "contradicts", ""))
    factor = np.where(into > 0, f_true, np.where(into < 0, f_false, np.inf))
    usable = np.isfinite(low) & np.isfinite(high) & (high > low) & np.isfinite(d)
    factor = np.where(usable, factor, np.nan)
    lean = np.where(usable, lean, "")
    return pd.DataFrame({"lean": lean, "factor": factor}, index=frame.index)


def claim_factor(
    factors: pd.DataFrame, need: int, n: int | None = None
) -> tuple[float | None, Verdict | None]:
    """The factor at which a claim needing ``need`` of its ``n`` units would be decided, and
    the verdict it would reach (see the module docstring): ``need == n`` for a claim about
    every unit, ``n // 2 + 1`` for most.

    Parameters
    ----------
    factors : pandas.DataFrame
        :func:`unit_factors`' frame (every unit of the claim, decided ones too).
    need : int
        How many units must support the claim.
    n : int or None
        All units (default: the rows of ``factors``).

    Returns
    -------
    tuple
        ``(factor, verdict)``; ``(None, None)`` when a unit's factor is not computable (a printed
        value, no interval), ``(inf, None)`` when no size decides it.
    """
    n = len(factors) if n is None else n
    f = factors["factor"].to_numpy(float)
    lean = factors["lean"].to_numpy()
    if not len(f) or np.isnan(f).any():
        return None, None
    true_side = np.sort(f[lean == "supports"])
    false_side = np.sort(f[lean == "contradicts"])
    n_fail = n - need + 1  # this many contradictions leave fewer than ``need`` supports
    at_hold = float(true_side[need - 1]) if len(true_side) >= need else math.inf
    at_fail = float(false_side[n_fail - 1]) if len(false_side) >= n_fail else math.inf
    if math.isinf(at_hold) and math.isinf(at_fail):
        return math.inf, None
    if at_fail <= at_hold:
        return max(at_fail, 1.0), FAILS
    return max(at_hold, 1.0), HOLDS


def floor_factor(floors, threshold: float) -> float:
    """The factor by which the sample must grow before ACE's noise floor
    (:mod:`calib.confidence.noise_floor`), falling as ``1/sqrt(n)``, comes down to
    ``threshold``: ``max((floor / threshold)**2)`` over the floors given (``inf`` for a
    threshold of 0 or less).

    Parameters
    ----------
    floors : array-like
        The noise floors of the units that the floor keeps from deciding.
    threshold : float
        The claim's threshold on ACE.

    Returns
    -------
    float
        The factor (at least 1).
    """
    f = np.asarray(floors, dtype=float)
    if threshold <= 0:
        return math.inf
    return float(max(1.0, np.nanmax((f / threshold) ** 2))) if len(f) else 1.0


def facts_needed(factor: float | None, n_facts: int | None) -> float | None:
    """``factor * n_facts`` rounded up: the facts per model that would decide the verdict
    (``None`` when either is unknown; ``inf`` stays ``inf``).

    Parameters
    ----------
    factor : float or None
        :func:`claim_factor`'s factor.
    n_facts : int or None
        The facts per model the build's verdict rests on.

    Returns
    -------
    float or None
        The facts.
    """
    if factor is None or n_facts is None or not np.isfinite(n_facts):
        return None
    if math.isinf(factor):
        return math.inf
    return float(math.ceil(factor * n_facts))


def reaching_profile(facts: float | None, sizes: Mapping[str, int | None]) -> str:
    """The first profile (in ``sizes``' order, smallest first) whose facts per model reach
    ``facts``, for the page: ``"paper (7,731 facts)"``, ``"beyond all of BEAR (7,731
    facts)"``, or ``""`` when ``facts`` is unknown.

    Parameters
    ----------
    facts : float or None
        :func:`facts_needed`.
    sizes : mapping
        Facts per model by profile name, in increasing order (``None``: unknown, skipped); the
        last is taken as the largest sample there is.

    Returns
    -------
    str
        The profile and its size, or what is beyond them all.
    """
    if facts is None:
        return ""
    known = [(name, n) for name, n in sizes.items() if n is not None]
    if math.isinf(facts):
        return "no sample size (an estimate on the claim's boundary)"
    for name, n in known:
        if facts <= n:
            return f"{name} ({n:,} facts)"
    if known:
        name, n = known[-1]
        return f"beyond the {name} profile ({n:,} facts)"
    return ""


def sample_size(result, sample: str = "facts") -> int | None:
    """The size of a chapter's recorded sample the intervals narrow with: ``"facts"``, its
    facts per model (``n_facts``, or ``n_test_facts`` for LPAQA's test facts); ``"models"``,
    the number of its models; ``None`` when the result does not say.

    Parameters
    ----------
    result : object or None
        A chapter's recorded result.
    sample : str
        ``"facts"`` (default) or ``"models"``.

    Returns
    -------
    int or None
        The size.
    """
    if result is None:
        return None
    if sample == "models":
        models = getattr(getattr(result, "params", None), "models", None)
        return len(models) if models else None
    for name in ("n_facts", "n_test_facts"):
        value = getattr(result, name, None)
        if isinstance(value, (int, np.integer)) and value > 0:
            return int(value)
    return None


def decide_columns(judged, result) -> dict:
    """The ledger's columns on the facts that would decide a build verdict: ``decide_factor``,
    ``decide_verdict`` (its text, ``""`` where not known), ``decide_sample`` (what the sample
    counts), ``sample_now`` (its size in this build) and ``facts_to_decide``
    (:func:`facts_needed`); NaN where the verdict is decided or the sizes are not known.

    Parameters
    ----------
    judged : calib.experiments.verdicts.Judgement
        The build's judgement of a claim.
    result : object or None
        The chapter's recorded result.

    Returns
    -------
    dict
        The five columns.
    """
    factor = judged.decide_factor
    now = sample_size(result, judged.decide_sample) if factor is not None else None
    needed = facts_needed(factor, now)
    return {
        "decide_factor": np.nan if factor is None else float(factor),
        "decide_verdict": judged.decide_verdict.value if judged.decide_verdict else "",
        "decide_sample": judged.decide_sample,
        "sample_now": np.nan if now is None else float(now),
        "facts_to_decide": np.nan if needed is None else needed,
    }
