"""The quantifiers of the papers' claims, as rules over intervals: pure functions from an
:class:`~calib.experiments.quantifiers.Evidence` frame to a
:class:`~calib.experiments.verdicts.Judgement`.

A claim is about *units* (models, pairs of models, families, objectives, cells of a table) and
states a direction for each unit's number: ``difference < 0`` (a is lower than b), ``value <=
0.2`` (a threshold), ... The evidence holds one row per unit with the number and its 95%
interval (``difference``, ``low``, ``high``); for a paper's printed table ``low == high ==
difference``: a printed number has no interval, the rule then judges the printed value; on the
paper's side at its printed precision (:mod:`calib.experiments.precision`: a tie at it, 37.0
against 37.0, is no evidence either way; a value without ``rounding`` is exact).

A unit's interval *supports* the claim when all of it lies where the claim is true, *contradicts*
it when it all lies where the claim is false, and is *undecided* otherwise
(:func:`unit_status`). The quantifiers combine the units, correcting for their number
(:mod:`calib.experiments.multiplicity`: Holm's correction over the claim's units, at the
one-sided level 0.025 of a 95% interval):

=====================  ======================================================================
:func:`every`          holds iff every unit's own interval supports it (all are needed: no
                       correction); does not hold iff at least one unit contradicts it after
                       Holm's correction of the contradictions over the units; otherwise
                       undecided (naming the undecided units). ``required`` units (e.g. "for
                       both CLMs and MLMs") that the evidence lacks make it not testable
                       unless a present unit already contradicts it.
:func:`most`           holds iff more than half of the units support it (after Holm's
                       correction of the supports; with one or two units "most" needs every
                       unit, and the evidence says so: it cannot be told from "every" there);
                       does not hold iff so many contradict it (after Holm) that at most half
                       could support it; otherwise undecided (one family against a claim about
                       "most" is not enough).
:func:`on_average`     one unit, the mean (its interval from a bootstrap of the mean, or the
                       mean of printed values): holds / does not hold / undecided as that unit.
=====================  ======================================================================

``correction="none"`` gives the uncorrected verdicts. No unit at all is "not testable", with the
reason the evidence gives (``Evidence.missing``).

**ACE at small sizes.** An evidence frame of ACE values against a threshold may carry each
unit's noise ``floor`` (:mod:`calib.confidence.noise_floor`: the ACE a perfectly calibrated
estimator shows at this size). For a claim that ACE is *below* a threshold, a unit whose floor
is at or above the threshold cannot support it at this sample size whatever its calibration;
when such units are all that leave a claim open, the verdict is "cannot be decided at this size"
(``Verdict.TOO_SMALL``, :class:`~calib.experiments.verdicts.Verdict`), and the judgement says
how much larger the sample must be for the floor to fall to the threshold
(:func:`calib.experiments.decide.floor_factor`).
Comparisons of ACEs use floor-corrected differences (:mod:`calib.experiments.floors`).

Every judgement also carries how many units it combined, the correction, and for an undecided
verdict the factor by which the sample would have to grow to decide it
(:mod:`calib.experiments.decide`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from calib.experiments import decide, multiplicity
from calib.experiments.precision import is_printed, printed_status, printed_step
from calib.experiments.verdicts import (
    FAILS,
    HOLDS,
    TOO_SMALL,
    UNDECIDED,
    UNTESTABLE,
    Judgement,
    Verdict,
    unit_tally,
)

#: the columns every evidence frame has
EVIDENCE_COLUMNS: tuple[str, ...] = ("unit", "difference", "low", "high")
#: the relations a claim can state between a unit's number and its threshold
RELATIONS: tuple[str, ...] = ("<", "<=", ">", ">=")
#: a unit's status
SUPPORTS, CONTRADICTS, OPEN = "supports", "contradicts", "undecided"
#: at most this many units are named in an evidence sentence or a reason
MAX_NAMED = 6


@dataclass(frozen=True)
class Evidence:
    """The input of a claim's rule: one row per unit (``frame``) and where its numbers come
    from (``source``: "Table 1, printed values" or "this build, 95% paired bootstrap
    intervals over instances, 1000 resamples").

    ``frame`` has at least :data:`EVIDENCE_COLUMNS` (``unit``: the unit's label, e.g.
    ``"gpt2"`` or ``"OPT, Margin"``; ``difference``: the number judged, a difference or a value
    against a threshold; ``low``, ``high``: its 95% interval), and any other column a rule
    uses. ``missing`` says why units are missing or the evidence is empty (what would test
    it); ``frames`` holds further frames for a rule that needs more than one. ``sample`` is
    what the intervals narrow with (``"facts"``, the default; ``"models"`` for a statistic
    over models such as a correlation across them), for the facts that would decide an
    undecided verdict (:mod:`calib.experiments.decide`).

    Optional columns the quantifiers read: ``rounding`` (a printed value's rounding half-width,
    :mod:`calib.experiments.precision`), ``p_support`` and ``p_contradict`` (a unit's one-sided
    p-values, e.g. from bootstrap replicates, :mod:`calib.experiments.multiplicity`), ``floor``
    (an ACE's noise floor, for a threshold claim on ACE)."""

    frame: pd.DataFrame
    source: str
    missing: str = ""
    frames: Mapping[str, pd.DataFrame] = field(default_factory=dict)
    sample: str = "facts"

    def __post_init__(self):
        absent = [c for c in EVIDENCE_COLUMNS if c not in self.frame.columns]
        if absent:
            raise ValueError(
                f"an evidence frame needs the columns {list(EVIDENCE_COLUMNS)}; "
                f"it lacks {absent} (it has {list(self.frame.columns)})"
            )

    @classmethod
    def empty(cls, missing: str, source: str = "") -> Evidence:
        """Evidence with no unit: the rule says "not testable" with ``missing`` as the
        reason."""
        return cls(pd.DataFrame(columns=list(EVIDENCE_COLUMNS)), source, missing)


def printed(
    frame: pd.DataFrame,
    value: str,
    unit: str | Sequence[str] = "unit",
    *,
    step: float | None = None,
    terms: int = 1,
) -> pd.DataFrame:
    """An evidence frame from printed values: ``unit`` (a column, or columns joined with ", "),
    ``difference = low = high = frame[value]`` (a printed number has no interval).

    Parameters
    ----------
    frame : pandas.DataFrame
        A table of printed values.
    value : str
        The column of the values.
    unit : str or sequence of str
        The column (or columns) that label the units (default ``"unit"``).
    step : float or None
        The printed precision of the numbers behind ``value`` (0.001 for three decimals):
        writes a ``rounding`` column, ``terms * step / 2`` (default none: the quantifiers infer
        it from the values, :mod:`calib.experiments.precision`).
    terms : int
        How many printed numbers enter each value (2 for a difference of two; default 1).

    Returns
    -------
    pandas.DataFrame
        ``unit`` first, ``frame``'s other columns, then ``difference``, ``low`` and ``high``
        (and ``rounding`` with ``step``); a fresh index.
    """
    cols = [unit] if isinstance(unit, str) else list(unit)
    labels = frame[cols].astype(str).agg(", ".join, axis=1) if len(frame) else []
    values = frame[value].to_numpy(float)
    out = frame.drop(columns=[c for c in EVIDENCE_COLUMNS if c in frame.columns]).copy()
    out.insert(0, "unit", list(labels))
    out["difference"], out["low"], out["high"] = values, values, values
    if step is not None:
        out["rounding"] = terms * step / 2
    return out.reset_index(drop=True)


def mean_of_printed(frame: pd.DataFrame, unit: str = "mean") -> pd.DataFrame:
    """One row: the mean of an evidence frame of printed values (``low == high``), as the
    paper's own "on average" evidence. Its ``rounding`` is the largest of the values' (their
    ``rounding`` column), else half the printed step of the values
    (:func:`calib.experiments.precision.printed_step`, as
    :func:`calib.experiments.precision.mark_printed` infers it): the mean of numbers each off
    by at most that is off by at most as much.

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame of printed values.
    unit : str
        The row's label (default ``"mean"``).

    Returns
    -------
    pandas.DataFrame
        One row: ``unit, difference, low, high, n_units, rounding`` (NaN for an empty frame).
    """
    m = float(frame["difference"].mean()) if len(frame) else np.nan
    if "rounding" in frame.columns and frame["rounding"].notna().any():
        r = float(frame["rounding"].max())
    elif len(frame):
        # as calib.experiments.precision.mark_printed: half the printed step (a mean of values
        # each off by at most that is off by at most as much)
        r = printed_step(frame["difference"].to_numpy(float)) / 2
    else:
        r = np.nan
    return pd.DataFrame(
        {
            "unit": [unit],
            "difference": [m],
            "low": [m],
            "high": [m],
            "n_units": [len(frame)],
            "rounding": [r],
        }
    )


def unit_status(frame: pd.DataFrame, relation: str = "<", threshold: float = 0.0) -> pd.Series:
    """Per row of an evidence frame: :data:`SUPPORTS` when the whole interval ``[low, high]``
    lies where ``difference <relation> threshold`` is true, :data:`CONTRADICTS` when it all lies
    where it is false, :data:`OPEN` (undecided) otherwise, also when the interval is missing
    (NaN). A printed value (``low == high``) is judged with its rounding
    (:func:`calib.experiments.precision.printed_status`): a tie at the printed precision is
    undecided.

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame (``low`` and ``high`` are read).
    relation : str
        One of :data:`RELATIONS` (default ``"<"``).
    threshold : float
        The claim's boundary (default 0).

    Returns
    -------
    pandas.Series
        One status per row, ``frame``'s index, named ``status``.

    Raises
    ------
    ValueError
        For a relation not in :data:`RELATIONS`.
    """
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    t = threshold
    supports = {"<": high < t, "<=": high <= t, ">": low > t, ">=": low >= t}[relation]
    contradicts = {"<": low >= t, "<=": low > t, ">": high <= t, ">=": high < t}[relation]
    printed_rows = is_printed(frame)
    if printed_rows.any():
        p_supports, p_contradicts = printed_status(frame, relation, threshold)
        supports = np.where(printed_rows, p_supports, supports)
        contradicts = np.where(printed_rows, p_contradicts, contradicts)
    status = np.where(supports, SUPPORTS, np.where(contradicts, CONTRADICTS, OPEN))
    status = np.where(floor_split(frame, relation, threshold), OPEN, status)
    return pd.Series(status, index=frame.index, name="status")


def _interval_status(low: np.ndarray, high: np.ndarray, relation: str, t: float) -> np.ndarray:
    supports = {"<": high < t, "<=": high <= t, ">": low > t, ">=": low >= t}[relation]
    contradicts = {"<": low >= t, "<=": low > t, ">": high <= t, ">=": high < t}[relation]
    return np.where(supports, SUPPORTS, np.where(contradicts, CONTRADICTS, OPEN))


def floor_split(frame: pd.DataFrame, relation: str = "<", threshold: float = 0.0) -> pd.Series:
    """Per row of an evidence frame: whether it is a floor-corrected ACE comparison
    (:func:`calib.experiments.floors.floor_corrected_differences`: ``floor_corrected``,
    ``raw_low``, ``raw_high``) whose raw interval and floor-corrected interval do not decide
    alike. Such a unit is undecided (:func:`unit_status`) and, when such units are what leave a
    claim open, the claim "cannot be decided at this size": the floors, an artefact of the
    sample size, are what would make the verdict (a correction that over-corrects at small
    sizes cannot manufacture one, nor can the raw bias of ACE). False for every row of a frame
    without those columns.
    """
    need = ("floor_corrected", "raw_low", "raw_high")
    if not all(c in frame.columns for c in need):
        return pd.Series(False, index=frame.index)
    corrected = frame["floor_corrected"].eq(True).to_numpy()
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    raw_low, raw_high = frame["raw_low"].to_numpy(float), frame["raw_high"].to_numpy(float)
    split = _interval_status(low, high, relation, threshold) != _interval_status(
        raw_low, raw_high, relation, threshold
    )
    return pd.Series(corrected & split, index=frame.index)


def number_text(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` decimals; a non-zero number that would show as 0 gets two
    significant digits instead (``0.00041``), so a printed "0.000" never hides a sign."""
    if x != 0 and np.isfinite(x) and round(x, digits) == 0:
        return f"{x:.2g}"
    return f"{x:.{digits}f}"


def interval_text(row: Mapping, digits: int = 3) -> str:
    """``-0.050 [-0.080, -0.020]``, or the value alone for a printed number (low == high);
    "no value" for a unit whose statistic is undefined in this build (e.g. an AUROC where
    every answer of a model is wrong), never a printed ``nan``."""
    d, lo, hi = row["difference"], row["low"], row["high"]
    if pd.isna(d):
        return "no value (undefined at this sample)"
    if pd.isna(lo) or pd.isna(hi):
        return f"{number_text(d, digits)} (no interval)"
    if lo == hi == d:
        return number_text(d, digits)
    return f"{number_text(d, digits)} [{number_text(lo, digits)}, {number_text(hi, digits)}]"


def named(frame: pd.DataFrame, limit: int = MAX_NAMED) -> str:
    """``"a: -0.050 [-0.080, -0.020]; b: 0.010"`` for at most ``limit`` rows (then "and N
    more")."""
    rows = frame.to_dict("records")
    text = "; ".join(f"{r['unit']}: {interval_text(r)}" for r in rows[:limit])
    return text + (f"; and {len(rows) - limit} more" if len(rows) > limit else "")


def claim_text(what: str, relation: str, threshold: float) -> str:
    """``"ACE(Margin) - ACE(Base) < 0"``."""
    return f"{what} {relation} {threshold:g}"


def _sentence(
    evidence: Evidence,
    what: str,
    relation: str,
    threshold: float,
    unit: str,
    status: pd.Series,
    raw: pd.Series | None = None,
) -> str:
    frame = evidence.frame
    n = len(frame)
    s, c = int((status == SUPPORTS).sum()), int((status == CONTRADICTS).sum())
    where = f" ({evidence.source})" if evidence.source else ""
    text = f"{claim_text(what, relation, threshold)}{where}: {unit_tally(s, c, n, unit)}"
    if 0 < n <= MAX_NAMED:
        text += f" ({named(frame)})"
    elif c:
        text += f"; against it: {named(frame[status == CONTRADICTS])}"
    if raw is not None:
        for side, name in ((CONTRADICTS, "against it"), (SUPPORTS, "in line with it")):
            undone = frame[(raw == side) & (status != side)]
            if len(undone):
                text += (
                    f"; {len(undone)} more {name} by their own interval but not after Holm's "
                    f"correction over the {n} {unit}s ({named(undone, 3)})"
                )
    return text


def _undecided_reason(
    frame: pd.DataFrame, status: pd.Series, unit: str, raw: pd.Series | None = None
) -> str:
    """Which units leave the claim open (named here unless the evidence sentence already
    names every unit): intervals that include the boundary, units that Holm's correction left
    open (``raw``: their status by their own interval), and printed ties."""
    raw = status if raw is None else raw
    open_ = (status == OPEN).to_numpy()
    ties = open_ & is_printed(frame)
    corrected = open_ & (raw != OPEN).to_numpy()
    spans = open_ & ~ties & ~corrected
    name_all = len(frame) > MAX_NAMED
    parts = []
    if spans.any():
        part = frame[spans]
        parts.append(
            f"the 95% interval includes the claim's boundary for {len(part)} {unit}(s)"
            + (f": {named(part)}" if name_all else "")
        )
    if corrected.any():
        part = frame[corrected]
        parts.append(
            f"{len(part)} {unit}(s) lie beyond the boundary by their own interval but not after "
            f"Holm's correction over the {len(frame)} {unit}s: {named(part)}"
        )
    if ties.any():
        part = frame[ties]
        parts.append(
            f"{len(part)} {unit}(s) tie with the boundary at the printed precision, which is no "
            f"evidence either way: {named(part)}"
        )
    return "; ".join(parts) or f"no {unit} decides it"


def _untestable_if_empty(evidence: Evidence, unit: str) -> Judgement | None:
    if len(evidence.frame):
        return None
    return Judgement.untestable(
        evidence.missing or f"the evidence has no {unit}", evidence=evidence.source
    )


def every_verdict(supports: int, contradicts: int, n: int) -> Verdict:
    """The verdict on a claim about every one of ``n`` units from how many support it and how
    many contradict it: the one rule behind :func:`every` (and a chapter's own tallies).

    Parameters
    ----------
    supports : int
        Units that support the claim.
    contradicts : int
        Units that contradict it.
    n : int
        All units.

    Returns
    -------
    calib.experiments.verdicts.Verdict
        Not testable for no unit, does not hold for any contradiction, holds when every unit
        supports it, else undecided.
    """
    if n == 0:
        return UNTESTABLE
    if contradicts:
        return FAILS
    return HOLDS if supports == n else UNDECIDED


def most_verdict(supports: int, contradicts: int, n: int) -> Verdict:
    """The verdict on a claim about most of ``n`` units: the one rule behind :func:`most`.

    Parameters
    ----------
    supports : int
        Units that support the claim.
    contradicts : int
        Units that contradict it.
    n : int
        All units.

    Returns
    -------
    calib.experiments.verdicts.Verdict
        Not testable for no unit, else as :func:`most` says.
    """
    if n == 0:
        return UNTESTABLE
    undecided = n - supports - contradicts
    if 2 * supports > n:
        return HOLDS
    if 2 * (supports + undecided) <= n:
        return FAILS
    return UNDECIDED


def _floor_limited(frame: pd.DataFrame, relation: str, threshold: float, status: pd.Series):
    """Units the sample size leaves open: for a claim "ACE below the threshold", undecided
    units whose noise ``floor`` is at or above the threshold; for any claim, floor-corrected
    comparisons whose raw and corrected intervals disagree (:func:`floor_split`)."""
    split = floor_split(frame, relation, threshold)
    if "floor" not in frame.columns or relation not in ("<", "<="):
        return split
    floor = frame["floor"].to_numpy(float)
    return split | pd.Series((status == OPEN).to_numpy() & (floor >= threshold), index=frame.index)


def _too_small(
    frame: pd.DataFrame, limited: pd.Series, relation: str, threshold: float, unit: str
) -> str:
    split = floor_split(frame, relation, threshold)
    parts = []
    high_floor = frame[limited & ~split]
    if len(high_floor):
        floors = "; ".join(
            f"{r['unit']}: floor {number_text(r['floor'])}"
            for r in high_floor.to_dict("records")[:MAX_NAMED]
        )
        parts.append(
            f"for {len(high_floor)} {unit}(s) the noise floor of ACE (the ACE a perfectly "
            f"calibrated estimator shows at this sample size) is at or above the claim's "
            f"threshold {threshold:g} ({floors}), so their ACE cannot come out below it"
        )
    if split.any():
        rows = frame[split].to_dict("records")[:MAX_NAMED]
        both = "; ".join(
            f"{r['unit']}: raw {interval_text(_raw(r))}, floor-corrected {interval_text(r)}"
            for r in rows
        )
        parts.append(
            f"for {int(split.sum())} {unit}(s) the raw ACE difference and the one with each "
            f"side's noise floor taken out do not decide alike ({both}): the verdict would rest "
            f"on the floors, which are an artefact of the sample size"
        )
    return "cannot be decided at this size: " + "; ".join(parts)


def _raw(row: Mapping) -> dict:
    return {"difference": row["raw_difference"], "low": row["raw_low"], "high": row["raw_high"]}


def _too_small_factor(
    frame: pd.DataFrame, limited: pd.Series, relation: str, threshold: float
) -> float | None:
    """The factor at which the units the size leaves open would be decided: a high floor when
    it falls to the threshold (:func:`calib.experiments.decide.floor_factor`), a split
    comparison when its raw interval decides (the floors' difference falls with the sample)."""
    split = floor_split(frame, relation, threshold)
    factors: list[float | None] = []
    high_floor = limited & ~split
    if high_floor.any():
        factors.append(decide.floor_factor(frame.loc[high_floor, "floor"], threshold))
    if split.any():
        raw = frame.loc[split, ["raw_difference", "raw_low", "raw_high"]].set_axis(
            ["difference", "low", "high"], axis=1
        )
        by_raw = decide.unit_factors(raw, relation, threshold)
        by_corrected = decide.unit_factors(frame.loc[split], relation, threshold)
        # both must decide, alike: the later of the two where they lean the same way; else
        # the raw one (the floors' difference, and with it the correction, falls with n)
        same = by_raw["lean"].to_numpy() == by_corrected["lean"].to_numpy()
        f_raw, f_corr = by_raw["factor"].to_numpy(float), by_corrected["factor"].to_numpy(float)
        f = np.where(same, np.fmax(f_raw, f_corr), f_raw)
        factors.append(max(1.0, float(np.nanmax(f))) if np.isfinite(f).any() else None)
    known = [f for f in factors if f is not None and np.isfinite(f)]
    return max(known) if known and len(known) == len(factors) else None


def _judge(
    evidence: Evidence,
    relation: str,
    threshold: float,
    *,
    what: str,
    unit: str,
    need_all: bool,
    correction: str,
    level: float,
) -> tuple[Judgement, pd.Series]:
    """The shared core of :func:`every` and :func:`most` (``need_all``: every unit is needed)."""
    frame = evidence.frame
    n = len(frame)
    need = n if need_all else n // 2 + 1
    raw = unit_status(frame, relation, threshold)
    corrected = correction != "none"
    alpha = multiplicity.one_sided_alpha(level)
    if need_all:  # support: each unit's own interval; contradictions: Holm over the units
        status = multiplicity.corrected_status(
            frame, relation, threshold, raw, correction=correction, level=level
        )
        s, c = int((status == SUPPORTS).sum()), int((status == CONTRADICTS).sum())
        verdict = every_verdict(s, c, n)
        text = _sentence(
            evidence, what, relation, threshold, unit, status, raw if corrected else None
        )
        m_support, m_contradict = 1, n if corrected else 1
    else:  # most: at least `need` support, or n - need + 1 contradict (partial conjunction)
        status = raw
        s, c = int((raw == SUPPORTS).sum()), int((raw == CONTRADICTS).sum())
        p_s, p_c = multiplicity.side_p_values(frame, relation, threshold, raw, level)
        n_fail = n - need + 1
        holds = s >= need and (not corrected or multiplicity.at_least(p_s, need, alpha))
        fails = c >= n_fail and (not corrected or multiplicity.at_least(p_c, n_fail, alpha))
        verdict = HOLDS if holds else FAILS if fails else UNDECIDED
        text = _sentence(evidence, what, relation, threshold, unit, status)
        if corrected and ((s >= need and not holds) or (c >= n_fail and not fails)):
            text += (
                f"; corrected for the {n} {unit}s, their intervals do not establish that "
                f"{need if s >= need else n_fail} {'support' if s >= need else 'contradict'} it"
            )
        m_support, m_contradict = (n - need + 1, need) if corrected else (1, 1)
    limited = _floor_limited(frame, relation, threshold, status)
    factors = decide.unit_factors(
        frame, relation, threshold, m_support=m_support, m_contradict=m_contradict, level=level
    )
    factor, heading = (None, None)
    reason = ""
    if verdict == UNDECIDED:
        reason = _undecided_reason(frame, status, unit, raw)
        open_ = status == OPEN
        if limited.any() and bool((limited | ~open_).all()):
            verdict = TOO_SMALL
            reason = _too_small(frame, limited, relation, threshold, unit)
            factor = _too_small_factor(frame, limited, relation, threshold)
        else:
            factor, heading = decide.claim_factor(factors, need, n)
    judged = Judgement(
        verdict,
        text,
        reason,
        units=n,
        correction=multiplicity.correction_text(correction, n, unit, need),
        decide_factor=factor,
        decide_verdict=heading,
        decide_sample=evidence.sample,
    )
    return judged, status


def _most_note(n: int, unit: str) -> str:
    base = f"; the claim is about most {unit}s (more than {n / 2:g} of {n})"
    if n == 2:
        return base + (
            f": with 2 {unit}s, more than half means both, so here 'most' cannot be told from "
            f"'every'"
        )
    if n == 1:
        return base + f": with 1 {unit}, 'most' is that {unit}"
    return base


def every(
    evidence: Evidence,
    relation: str = "<",
    threshold: float = 0.0,
    *,
    what: str,
    unit: str = "model",
    required: Sequence[str] = (),
    required_in: str = "unit",
    correction: str = "holm",
    level: float = multiplicity.LEVEL,
) -> Judgement:
    """A claim about every unit: holds iff every unit's interval supports
    ``difference <relation> threshold``; does not hold iff at least one contradicts it after
    Holm's correction over the units (:mod:`calib.experiments.multiplicity`); otherwise
    undecided (the reason names the undecided units), or cannot be decided at this size where
    ACE's noise floor is what leaves it open (see the module docstring).

    ``required``: values of the column ``required_in`` (default the units themselves) that the
    claim names ("for both CLMs and MLMs": ``("clm", "mlm")`` in an ``objective`` column); when
    the evidence lacks one and no present unit contradicts the claim, it is not testable (the
    reason names the missing ones and what would test them, ``Evidence.missing``).

    Parameters
    ----------
    evidence : calib.experiments.quantifiers.Evidence
        One row per unit with ``difference``, ``low`` and ``high``.
    relation : str
        One of :data:`RELATIONS` (default ``"<"``).
    threshold : float
        The claim's boundary (default 0).
    what : str
        The quantity judged, as the evidence sentence names it
        (``"ACE(Margin) - ACE(Base)"``).
    unit : str
        The units' name, singular (default ``"model"``).
    required : sequence of str
        The values of ``required_in`` the claim names (default none).
    required_in : str
        The column holding them (default ``"unit"``).
    correction : str
        ``"holm"`` (default) or ``"none"`` (:data:`calib.experiments.multiplicity.CORRECTIONS`).
    level : float
        The two-sided level of the intervals (default 0.95).

    Returns
    -------
    calib.experiments.verdicts.Judgement
        The verdict, the evidence sentence with the units' numbers and, for undecided, which
        units leave it open; not testable when the evidence has no unit (the reason:
        ``Evidence.missing``). With ``required``, an empty evidence is judged by the missing
        required values. Its ``units``, ``correction`` and, undecided, ``decide_factor``.

    Raises
    ------
    ValueError
        For a relation not in :data:`RELATIONS`, or an unknown correction.
    """
    empty = _untestable_if_empty(evidence, unit)
    if empty and not required:
        return empty
    frame = evidence.frame
    if len(frame):
        judged, _ = _judge(
            evidence,
            relation,
            threshold,
            what=what,
            unit=unit,
            need_all=True,
            correction=correction,
            level=level,
        )
    else:
        judged = Judgement(UNTESTABLE, "", units=0)
    if judged.verdict == FAILS:
        return judged
    have = set(frame[required_in]) if required_in in frame.columns else set()
    lacking = [u for u in required if u not in have]
    if lacking:
        reason = evidence.missing or (
            f"the claim is about {', '.join(required)}; the evidence has no {', '.join(lacking)}"
        )
        return replace(
            judged, verdict=UNTESTABLE, reason=reason, decide_factor=None, decide_verdict=None
        )
    return judged


def most(
    evidence: Evidence,
    relation: str = "<",
    threshold: float = 0.0,
    *,
    what: str,
    unit: str = "model",
    correction: str = "holm",
    level: float = multiplicity.LEVEL,
) -> Judgement:
    """A claim about most units: holds iff more than half of the units' intervals support it
    (after Holm's correction of the supports over the units; with one or two units every unit
    is needed and each is judged by its own interval, as for :func:`every`); does not hold iff,
    even counting every undecided unit as support, at most half would (the contradictions after
    Holm's correction); otherwise undecided. The evidence sentence says what "most" can mean at
    this number of units.

    Parameters
    ----------
    evidence : calib.experiments.quantifiers.Evidence
        One row per unit with ``difference``, ``low`` and ``high``.
    relation : str
        One of :data:`RELATIONS` (default ``"<"``).
    threshold : float
        The claim's boundary (default 0).
    what : str
        The quantity judged, as the evidence sentence names it
        (``"ACE(Margin) - ACE(Base)"``).
    unit : str
        The units' name, singular (default ``"model"``).
    correction : str
        ``"holm"`` (default) or ``"none"`` (:data:`calib.experiments.multiplicity.CORRECTIONS`).
    level : float
        The two-sided level of the intervals (default 0.95).

    Returns
    -------
    calib.experiments.verdicts.Judgement
        The verdict, the evidence sentence with the units' numbers and, for undecided, which
        units leave it open; not testable when the evidence has no unit (the reason:
        ``Evidence.missing``). Its ``units``, ``correction`` and, undecided, ``decide_factor``.

    Raises
    ------
    ValueError
        For a relation not in :data:`RELATIONS`, or an unknown correction.
    """
    empty = _untestable_if_empty(evidence, unit)
    if empty:
        return empty
    n = len(evidence.frame)
    judged, status = _judge(
        evidence,
        relation,
        threshold,
        what=what,
        unit=unit,
        need_all=n <= 2,
        correction=correction,
        level=level,
    )
    judged = replace(judged, evidence=judged.evidence + _most_note(n, unit))
    if judged.verdict != UNDECIDED:
        return judged
    s, u = int((status == SUPPORTS).sum()), int((status == OPEN).sum())
    need = n // 2 + 1
    if s >= need:
        why = (
            f"{s} support it by their own intervals, but corrected for the {n} {unit}s that "
            f"{need} do is not established"
        )
    else:
        why = f"{s} support it and {u} are undecided; more than {n / 2:g} must support it"
    return replace(judged, reason=f"{why}: {judged.reason}")


def on_average(
    evidence: Evidence,
    relation: str = "<",
    threshold: float = 0.0,
    *,
    what: str,
    unit: str = "model",
    level: float = multiplicity.LEVEL,
) -> Judgement:
    """A claim about the average over units: the evidence is one row, the mean with its 95%
    interval (a bootstrap of the mean; for printed values :func:`mean_of_printed`). Holds iff
    its interval supports the claim, does not hold iff it contradicts it, else undecided (or
    cannot be decided at this size, see the module docstring). One unit: no correction.

    Parameters
    ----------
    evidence : calib.experiments.quantifiers.Evidence
        One row per unit with ``difference``, ``low`` and ``high``.
    relation : str
        One of :data:`RELATIONS` (default ``"<"``).
    threshold : float
        The claim's boundary (default 0).
    what : str
        The quantity judged, as the evidence sentence names it
        (``"ACE(Margin) - ACE(Base)"``).
    unit : str
        The units' name, singular (default ``"model"``).
    level : float
        The two-sided level of the interval (default 0.95).

    Returns
    -------
    calib.experiments.verdicts.Judgement
        The verdict, the evidence sentence with the units' numbers and, for undecided, which
        units leave it open; not testable when the evidence has no unit (the reason:
        ``Evidence.missing``).

    Raises
    ------
    ValueError
        When the evidence has more than one row, or for a relation not in :data:`RELATIONS`.
    """
    empty = _untestable_if_empty(evidence, unit)
    if empty:
        return empty
    frame = evidence.frame
    if len(frame) != 1:
        raise ValueError(
            f"on_average judges one row (the mean), got {len(frame)} rows; average the units first"
        )
    status = unit_status(frame, relation, threshold)
    row = frame.iloc[0]
    over = f" over {int(row['n_units'])} {unit}s" if "n_units" in frame.columns else ""
    where = f" ({evidence.source})" if evidence.source else ""
    text = f"mean{over} of {claim_text(what, relation, threshold)}{where}: {interval_text(row)}"
    verdict = {SUPPORTS: HOLDS, CONTRADICTS: FAILS, OPEN: UNDECIDED}[status.iloc[0]]
    reason, factor, heading = "", None, None
    if verdict == UNDECIDED:
        limited = _floor_limited(frame, relation, threshold, status)
        if limited.all():
            verdict = TOO_SMALL
            reason = _too_small(frame, limited, relation, threshold, "mean")
            factor = _too_small_factor(frame, limited, relation, threshold)
        elif is_printed(frame).all():
            reason = "the mean ties with the claim's boundary at the printed precision"
        else:
            reason = "the 95% interval of the mean includes the claim's boundary"
            factors = decide.unit_factors(frame, relation, threshold, level=level)
            factor, heading = decide.claim_factor(factors, 1, 1)
    return Judgement(
        verdict,
        text,
        reason,
        units=1,
        correction=f"none (a mean over {int(row['n_units'])} {unit}s)"
        if "n_units" in frame.columns
        else "none (1 unit)",
        decide_factor=factor,
        decide_verdict=heading,
        decide_sample=evidence.sample,
    )
