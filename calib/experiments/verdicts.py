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
from collections.abc import Iterable
from dataclasses import dataclass


class Verdict(str, enum.Enum):
    """A verdict on a claim, in the order a reader scans them.

    * ``HOLDS`` -- the 95% intervals support the claim as the paper states it;
    * ``FAILS`` -- they contradict it ("does not hold");
    * ``UNDECIDED`` -- neither: the reason names the units whose intervals decide nothing;
    * ``UNTESTABLE`` -- the data or models behind the numbers cannot test it ("not testable");
      the reason names what would (e.g. "two or more OPT sizes, `calib book --profile paper`");
    * ``NOT_RUN`` -- the chapter that tests it was not run in this build (no recorded result).

    A ``str`` enum: ``Verdict.HOLDS == "holds"``, and it is written to tables as its text.
    """

    HOLDS = "holds"
    FAILS = "does not hold"
    UNDECIDED = "undecided"
    UNTESTABLE = "not testable"
    NOT_RUN = "not run in this build"

    def __str__(self) -> str:
        return self.value


#: the verdicts in :class:`Verdict` order (their texts)
VERDICTS: tuple[str, ...] = tuple(v.value for v in Verdict)
HOLDS, FAILS, UNDECIDED, UNTESTABLE, NOT_RUN = (
    Verdict.HOLDS,
    Verdict.FAILS,
    Verdict.UNDECIDED,
    Verdict.UNTESTABLE,
    Verdict.NOT_RUN,
)


@dataclass(frozen=True)
class Judgement:
    """A rule's verdict on a claim, with what it rests on.

    ``evidence``: one sentence with the numbers (which units, which intervals, from which
    source); ``reason``: for ``UNDECIDED`` which units or intervals leave it open, for
    ``UNTESTABLE`` what would test it, for ``NOT_RUN`` the command that runs the chapter."""

    verdict: Verdict
    evidence: str
    reason: str = ""

    def __post_init__(self):
        object.__setattr__(self, "verdict", Verdict(self.verdict))

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
    UNTESTABLE: "this run cannot test it",
    NOT_RUN: "this run did not test it",
}
