"""The quantifiers of the papers' claims, as rules over intervals: pure functions from an
:class:`~calib.experiments.quantifiers.Evidence` frame to a
:class:`~calib.experiments.verdicts.Judgement`.

A claim is about *units* (models, pairs of models, families, objectives, cells of a table) and
states a direction for each unit's number: ``difference < 0`` (a is lower than b), ``value <=
0.2`` (a threshold), ... The evidence holds one row per unit with the number and its 95%
interval (``difference``, ``low``, ``high``); for a paper's printed table ``low == high ==
difference``: a printed number has no interval, the rule then judges the printed value.

A unit's interval *supports* the claim when all of it lies where the claim is true, *contradicts*
it when all of it lies where the claim is false, and is *undecided* otherwise
(:func:`unit_status`). The quantifiers combine the units:

=====================  ======================================================================
:func:`every`          holds iff every unit supports it; does not hold iff at least one unit
                       contradicts it; otherwise undecided (naming the undecided units).
                       ``required`` units (e.g. "for both CLMs and MLMs") that the evidence
                       lacks make it not testable unless a present unit already contradicts it.
:func:`most`           holds iff more than half of the units support it; does not hold iff even
                       counting every undecided unit as support at most half would; otherwise
                       undecided (one family against a claim about "most" is not enough).
:func:`on_average`     one unit, the mean (its interval from a bootstrap of the mean, or the
                       mean of printed values): holds / does not hold / undecided as that unit.
=====================  ======================================================================

No unit at all is "not testable", with the reason the evidence gives (``Evidence.missing``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from calib.experiments.verdicts import (
    FAILS,
    HOLDS,
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
    it); ``frames`` holds further frames for a rule that needs more than one."""

    frame: pd.DataFrame
    source: str
    missing: str = ""
    frames: Mapping[str, pd.DataFrame] = field(default_factory=dict)

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


def printed(frame: pd.DataFrame, value: str, unit: str | Sequence[str] = "unit") -> pd.DataFrame:
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

    Returns
    -------
    pandas.DataFrame
        ``unit`` first, ``frame``'s other columns, then ``difference``, ``low`` and ``high``; a
        fresh index.
    """
    cols = [unit] if isinstance(unit, str) else list(unit)
    labels = frame[cols].astype(str).agg(", ".join, axis=1) if len(frame) else []
    values = frame[value].to_numpy(float)
    out = frame.drop(columns=[c for c in EVIDENCE_COLUMNS if c in frame.columns]).copy()
    out.insert(0, "unit", list(labels))
    out["difference"], out["low"], out["high"] = values, values, values
    return out.reset_index(drop=True)


def mean_of_printed(frame: pd.DataFrame, unit: str = "mean") -> pd.DataFrame:
    """One row: the mean of an evidence frame of printed values (``low == high``), as the
    paper's own "on average" evidence.

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame of printed values.
    unit : str
        The row's label (default ``"mean"``).

    Returns
    -------
    pandas.DataFrame
        One row: ``unit, difference, low, high, n_units`` (NaN for an empty frame).
    """
    m = float(frame["difference"].mean()) if len(frame) else np.nan
    return pd.DataFrame(
        {"unit": [unit], "difference": [m], "low": [m], "high": [m], "n_units": [len(frame)]}
    )


def unit_status(frame: pd.DataFrame, relation: str = "<", threshold: float = 0.0) -> pd.Series:
    """Per row of an evidence frame: :data:`SUPPORTS` when the whole interval ``[low, high]``
    lies where ``difference <relation> threshold`` is true, :data:`CONTRADICTS` when it all lies
    where it is false, :data:`OPEN` (undecided) otherwise, also when the interval is missing
    (NaN).

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
    status = np.where(supports, SUPPORTS, np.where(contradicts, CONTRADICTS, OPEN))
    return pd.Series(status, index=frame.index, name="status")


def number_text(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` decimals; a non-zero number that would show as 0 gets two
    significant digits instead (``0.00041``), so a printed "0.000" never hides a sign."""
    if x != 0 and np.isfinite(x) and round(x, digits) == 0:
        return f"{x:.2g}"
    return f"{x:.{digits}f}"


def interval_text(row: Mapping, digits: int = 3) -> str:
    """``-0.050 [-0.080, -0.020]``, or the value alone for a printed number (low == high)."""
    d, lo, hi = row["difference"], row["low"], row["high"]
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
    evidence: Evidence, what: str, relation: str, threshold: float, unit: str, status: pd.Series
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
    return text


def _undecided_reason(frame: pd.DataFrame, status: pd.Series, unit: str) -> str:
    """Which units leave the claim open (named here unless the evidence sentence already
    names every unit)."""
    open_ = frame[status == OPEN]
    text = f"the 95% interval includes the claim's boundary for {len(open_)} {unit}(s)"
    return text + (f": {named(open_)}" if len(frame) > MAX_NAMED else "")


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


def every(
    evidence: Evidence,
    relation: str = "<",
    threshold: float = 0.0,
    *,
    what: str,
    unit: str = "model",
    required: Sequence[str] = (),
    required_in: str = "unit",
) -> Judgement:
    """A claim about every unit: holds iff every unit's interval supports
    ``difference <relation> threshold``; does not hold iff at least one contradicts it;
    otherwise undecided (the reason names the undecided units).

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

    Returns
    -------
    calib.experiments.verdicts.Judgement
        The verdict, the evidence sentence with the units' numbers and, for undecided, which
        units leave it open; not testable when the evidence has no unit (the reason:
        ``Evidence.missing``). With ``required``, an empty evidence is judged by the missing
        required values.

    Raises
    ------
    ValueError
        For a relation not in :data:`RELATIONS`.
    """
    empty = _untestable_if_empty(evidence, unit)
    if empty and not required:
        return empty
    frame = evidence.frame
    status = unit_status(frame, relation, threshold)
    text = _sentence(evidence, what, relation, threshold, unit, status) if len(frame) else ""
    s, c = int((status == SUPPORTS).sum()), int((status == CONTRADICTS).sum())
    if c:
        return Judgement(FAILS, text)
    have = set(frame[required_in]) if required_in in frame.columns else set()
    lacking = [u for u in required if u not in have]
    if lacking:
        reason = evidence.missing or (
            f"the claim is about {', '.join(required)}; the evidence has no {', '.join(lacking)}"
        )
        return Judgement.untestable(reason, evidence=text)
    verdict = every_verdict(s, c, len(frame))
    return Judgement(
        verdict, text, _undecided_reason(frame, status, unit) if verdict == UNDECIDED else ""
    )


def most(
    evidence: Evidence,
    relation: str = "<",
    threshold: float = 0.0,
    *,
    what: str,
    unit: str = "model",
) -> Judgement:
    """A claim about most units: holds iff more than half of the units' intervals support it;
    does not hold iff, even counting every undecided unit as support, at most half would;
    otherwise undecided.

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

    Returns
    -------
    calib.experiments.verdicts.Judgement
        The verdict, the evidence sentence with the units' numbers and, for undecided, which
        units leave it open; not testable when the evidence has no unit (the reason:
        ``Evidence.missing``).

    Raises
    ------
    ValueError
        For a relation not in :data:`RELATIONS`.
    """
    empty = _untestable_if_empty(evidence, unit)
    if empty:
        return empty
    frame = evidence.frame
    status = unit_status(frame, relation, threshold)
    n = len(frame)
    s, u = int((status == SUPPORTS).sum()), int((status == OPEN).sum())
    text = (
        _sentence(evidence, what, relation, threshold, unit, status)
        + f"; the claim is about most {unit}s (more than {n / 2:g} of {n})"
    )
    verdict = most_verdict(s, n - s - u, n)
    if verdict != UNDECIDED:
        return Judgement(verdict, text)
    return Judgement(
        UNDECIDED,
        text,
        f"{s} support it and {u} are undecided; more than "
        f"{n / 2:g} must support it: " + _undecided_reason(frame, status, unit),
    )


def on_average(
    evidence: Evidence,
    relation: str = "<",
    threshold: float = 0.0,
    *,
    what: str,
    unit: str = "model",
) -> Judgement:
    """A claim about the average over units: the evidence is one row, the mean with its 95%
    interval (a bootstrap of the mean; for printed values :func:`mean_of_printed`). Holds iff
    its interval supports the claim, does not hold iff it contradicts it, else undecided.

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
    reason = (
        "the 95% interval of the mean includes the claim's boundary" if verdict == UNDECIDED else ""
    )
    return Judgement(verdict, text, reason)
