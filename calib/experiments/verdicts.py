"""The one verdict type for a paper's claim, the judgement that carries it, and the one wording
of a tally.

Every verdict in calib, in a chapter, in the ledger or in a sentence, is a :class:`Verdict`;
every rule of a claim returns a :class:`Judgement` (the verdict, the evidence with its numbers,
and the reason where the numbers cannot decide). The rules that turn intervals into verdicts
(a claim about *every* model, *most* families, the *average*) are
:mod:`calib.experiments.quantifiers`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


class Verdict(str, enum.Enum):
    """A verdict on a claim, in the order a reader scans them.

    * ``HOLDS`` -- the 95% intervals support the claim as the paper states it;
    * ``FAILS`` -- they contradict it ("does not hold");
    * ``UNDECIDED`` -- neither: the reason names the units whose intervals decide nothing;
    * ``TOO_SMALL`` -- "cannot be decided at this size": the sample is too small for the
      numbers to bear on the claim at all, e.g. the noise floor of ACE (what a perfectly
      calibrated estimator shows at this size, :mod:`calib.confidence.noise_floor`) lies above
      the claim's threshold; the reason says how many more facts would
      (:mod:`calib.experiments.decide`);
    * ``UNTESTABLE`` -- the data or models behind the numbers cannot test it ("not testable");
      the reason names what would (e.g. "two or more OPT sizes, `calib book --profile paper`");
    * ``NOT_RUN`` -- the chapter that tests it was not run in this build (no recorded result).

    A ``str`` enum: ``Verdict.HOLDS == "holds"``, and it is written to tables as its text.
    """

    HOLDS = "holds"
    FAILS = "does not hold"
    UNDECIDED = "undecided"
    TOO_SMALL = "cannot be decided at this size"
    UNTESTABLE = "not testable"
    NOT_RUN = "not run in this build"

    def __str__(self) -> str:
        return self.value


#: the verdicts in :class:`Verdict` order (their texts)
VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict)
HOLDS, FAILS, UNDECIDED, TOO_SMALL, UNTESTABLE, NOT_RUN = (
    Verdict.HOLDS,
    Verdict.FAILS,
    Verdict.UNDECIDED,
    Verdict.TOO_SMALL,
    Verdict.UNTESTABLE,
    Verdict.NOT_RUN,
)


@dataclass(frozen=True)
class Judgement:
    """A rule's verdict on a claim, with what it rests on.

    ``evidence``: one sentence with the numbers (which units, which intervals, from which
    source); ``reason``: for ``UNDECIDED`` which units or intervals leave it open, for
    ``TOO_SMALL`` why the sample is too small, for ``UNTESTABLE`` what would test it, for
    ``NOT_RUN`` the command that runs the chapter.

    What the quantifiers (:mod:`calib.experiments.quantifiers`) also say, for the ledger:
    ``units``, how many units the verdict combines (``None``: not counted); ``correction``, how
    it was corrected for their number (:func:`calib.experiments.multiplicity.correction_text`);
    for an undecided verdict (or one that cannot be decided at this size) ``decide_factor``, by
    how much the sample (``decide_sample``: ``"facts"``, or ``"models"`` for a statistic over
    models) would have to grow for the intervals to decide it if the estimates stayed as they
    are (``inf``: an estimate on the boundary never decides it; ``None``: not computable), and
    ``decide_verdict``, the verdict it would then reach (``None``: not known)
    (:mod:`calib.experiments.decide`)."""

    verdict: Verdict
    evidence: str
    reason: str = ""
    units: int | None = None
    correction: str = ""
    decide_factor: float | None = None
    decide_verdict: Verdict | None = None
    decide_sample: str = "facts"

    def __post_init__(self):
        object.__setattr__(self, "verdict", Verdict(self.verdict))
        if self.decide_verdict is not None:
            object.__setattr__(self, "decide_verdict", Verdict(self.decide_verdict))

    @classmethod
    def untestable(cls, reason: str, evidence: str = "") -> Judgement:
        """``UNTESTABLE`` with what would test it.

        Parameters
        ----------
        reason : str
            What would test the claim.
        evidence : str
            The evidence sentence, if any (default ``""``).

        Returns
        -------
        calib.experiments.verdicts.Judgement
            The judgement.
        """
        return cls(UNTESTABLE, evidence, reason)

    @classmethod
    def not_run(cls, reason: str) -> Judgement:
        """``NOT_RUN``: the chapter has no recorded result in this build.

        Parameters
        ----------
        reason : str
            The command that runs the chapter.

        Returns
        -------
        calib.experiments.verdicts.Judgement
            The judgement, without evidence.
        """
        return cls(NOT_RUN, "", reason)


def combine(parts: Sequence[tuple[str, Judgement]]) -> Judgement:
    """One judgement of a claim with several parts (e.g. "for the models" and "MLMs against
    CLMs"): does not hold if a part does not; holds if every part holds; not testable if a part
    is not testable (and none fails); cannot be decided at this size if a part cannot (and none
    fails or is not testable); else undecided. The evidence and reasons name each part; the
    units add up, the corrections are named per part, and an undecided claim is decided at the
    size that decides it: the smallest of the parts heading to "does not hold", else the
    largest of the parts heading to "holds".

    Parameters
    ----------
    parts : sequence of (str, calib.experiments.verdicts.Judgement)
        Each part's name and judgement.

    Returns
    -------
    calib.experiments.verdicts.Judgement
        The combined judgement.

    Raises
    ------
    ValueError
        For no part.
    """
    if not parts:
        raise ValueError("combine needs at least one part")
    verdicts = [j.verdict for _, j in parts]
    if FAILS in verdicts:
        verdict = FAILS
    elif all(v == HOLDS for v in verdicts):
        verdict = HOLDS
    elif UNTESTABLE in verdicts:
        verdict = UNTESTABLE
    elif TOO_SMALL in verdicts:
        verdict = TOO_SMALL
    elif NOT_RUN in verdicts:
        verdict = NOT_RUN
    else:
        verdict = UNDECIDED
    evidence = " | ".join(f"{name}: {j.evidence}" for name, j in parts if j.evidence)
    reason = "; ".join(
        f"{name}: {j.reason}" for name, j in parts if j.reason and j.verdict != HOLDS
    )
    counted = [j.units for _, j in parts if j.units is not None]
    units = sum(counted) if counted else None
    correction = "; ".join(f"{name}: {j.correction}" for name, j in parts if j.correction)
    factor, heading = None, None
    if verdict in (UNDECIDED, TOO_SMALL):
        open_ = [j for _, j in parts if j.verdict in (UNDECIDED, TOO_SMALL)]
        failing = [j.decide_factor for j in open_ if j.decide_verdict == FAILS]
        factors = [j.decide_factor for j in open_]
        if failing and all(f is not None for f in failing):
            factor, heading = min(failing), FAILS  # type: ignore[type-var]
        elif factors and all(f is not None for f in factors):
            factor = max(factors)  # type: ignore[type-var]
            known = [j.decide_verdict for j in open_]
            heading = HOLDS if all(v == HOLDS for v in known) else None
    samples = {j.decide_sample for _, j in parts}
    return Judgement(
        verdict,
        evidence,
        reason,
        units=units,
        correction=correction,
        decide_factor=factor,
        decide_verdict=heading,
        decide_sample=samples.pop() if len(samples) == 1 else "facts",
    )


def unit_tally(supports: int, contradicts: int, n: int, unit: str = "model") -> str:
    """The one wording of how many units' intervals bear on a claim, e.g. "in line with the
    claim for 3, against it for 1 and undecided for 2 of 6 models". ``unit`` is singular; it
    gets an ``s`` when ``n`` is not 1.

    Parameters
    ----------
    supports : int
        Units whose intervals support the claim.
    contradicts : int
        Units whose intervals contradict it.
    n : int
        All units (the rest are undecided).
    unit : str
        The unit's name, singular (default ``"model"``).

    Returns
    -------
    str
        The tally.
    """
    units = unit if n == 1 else f"{unit}s"
    return (
        f"in line with the claim for {supports}, against it for {contradicts} and "
        f"undecided for {n - supports - contradicts} of {n} {units}"
    )


def verdict_counts(verdicts: Iterable[Verdict | str]) -> dict[Verdict, int]:
    """How many of ``verdicts`` are each :class:`Verdict`, in :class:`Verdict` order (every
    verdict present, 0 where none).

    Parameters
    ----------
    verdicts : iterable of calib.experiments.verdicts.Verdict or str
        Verdicts, or their texts.

    Returns
    -------
    dict
        The count by :class:`Verdict`.

    Raises
    ------
    ValueError
        For a text that is no verdict.
    """
    got = [Verdict(v) for v in verdicts]
    return {v: got.count(v) for v in Verdict}


def counts_sentence(counts: dict, what: str = "claims", whose: str = "this build's") -> str:
    """The one sentence for a tally of verdicts: "Of the 18 claims, this build's verdicts:
    holds 3, does not hold 2, undecided 5, not testable 4, not run in this build 4." (from
    :func:`verdict_counts`; a verdict with no claim is left out).

    Parameters
    ----------
    counts : dict
        The count by verdict (or its text), as :func:`verdict_counts` gives it.
    what : str
        What is counted (default ``"claims"``).
    whose : str
        Whose verdicts (default ``"this build's"``).

    Returns
    -------
    str
        The sentence (``none`` when every count is 0).
    """
    total = sum(counts.values())
    parts = [f"{Verdict(v).value} {n}" for v, n in counts.items() if n]
    return f"Of the {total} {what}, {whose} verdicts: " + (", ".join(parts) or "none") + "."


#: how a sentence about one claim says what this run finds, by verdict (used by
#: :func:`calib.report.prose.agreement_sentence`, the one wording of a verdict in a chapter's text)
AGREEMENT: dict[Verdict, str] = {
    HOLDS: "this run agrees",
    FAILS: "this run does not agree",
    UNDECIDED: "this run cannot decide it",
    TOO_SMALL: "this run is too small to decide it",
    UNTESTABLE: "this run cannot test it",
    NOT_RUN: "this run did not test it",
}
