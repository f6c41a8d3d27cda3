"""A claim a paper makes about its results: its one definition, and how it is judged twice.

Each chapter package holds its claims in a tuple ``CLAIMS`` of :class:`Claim` (e.g.
:data:`calib.experiments.start_tokens.claims.CLAIMS`); nothing else defines a claim, so ``grep``
finds a claim's key in exactly one place. A claim carries the paper's words (``quote``, verbatim:
``tests/experiments/test_claims.py`` checks every quote against the paper's text), the claim as
the paper states it with its quantifier, metrics and the models it is about, and three
functions:

* ``rule``: :class:`~calib.experiments.quantifiers.Evidence` -> ``Judgement``, pure, usually one
  call of a quantifier (:mod:`calib.experiments.quantifiers`);
* ``paper_evidence``: () -> ``Evidence`` from the paper's printed tables (``low == high ==`` the
  printed value), or ``None`` when the paper prints no number for it (``paper_note`` says why:
  "Figure 7 prints no numbers");
* ``build_evidence``: the chapter's result object -> ``Evidence`` from this build's numbers with
  their 95% intervals.

The rule is applied to both (:meth:`Claim.judge_paper`, :meth:`Claim.judge_build`): does the
paper's own evidence support its text, and does this build's? The ledger
(:mod:`calib.experiments.ledger`) shows both for every claim of every chapter.

Two more fields say what a verdict rests on: ``paper_source``, where the paper side's numbers
come from (:data:`PAPER_SOURCES`: the paper's printed tables by default; its printed text; a
statistic computed here from printed tables, such as a correlation; or the authors'
repository), and ``beyond_paper``, a claim this build tests beyond what the paper states (its
statement begins "Beyond the paper"), which the ledger counts apart from the papers' claims.
Each claim also tests a result sentence of its paper: the coverage registry
(:mod:`calib.experiments.coverage`) lists every such sentence with the claims that test it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from calib.experiments.precision import mark_printed
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import UNTESTABLE, Judgement

#: the papers, by the short names claims use, in the order the ledger shows them
PAPERS: dict[str, str] = {
    "kissling2026": "Kissling et al. 2026",
    "jiang2020": "Jiang et al. 2020 (LPAQA)",
}
#: how a claim quantifies over its units (models, pairs, families, ...)
QUANTIFIERS: tuple[str, ...] = ("every", "most", "on average", "comparison", "one model")
#: where the numbers of a claim's paper side come from
PAPER_SOURCES: tuple[str, ...] = (
    "printed tables",
    "printed text",
    "computed here from printed tables",
    "authors' repository",
)
#: a section reference: ``§5.1``, ``Appendix C``, ``§5.1, Appendix F``, ``LPAQA §5.2``,
#: ``Abstract``, ``Introduction``, ``Limitations``
_PART = r"(?:§\d+(?:\.\d+)*|Appendix [A-H]|Abstract|Introduction|Limitations)"
SECTION = re.compile(rf"(?:LPAQA )?{_PART}(?:, {_PART})*")


def section_key(section: str) -> tuple:
    """Sort key of a section reference in the paper's order: Abstract, Introduction, §1..§9,
    then the appendices A..H (by the first part of a reference).

    Parameters
    ----------
    section : str
        A section reference (``SECTION``), e.g. ``§5.1`` or ``LPAQA §5.2``.

    Returns
    -------
    tuple
        The key; a reference of another form sorts last.
    """
    first = section.removeprefix("LPAQA ").split(",")[0].strip()
    if first == "Abstract":
        return (0,)
    if first == "Introduction":
        return (1,)
    if first == "Limitations":  # after the last numbered section, before the appendices
        return (2, 99)
    if first.startswith("§"):
        return (2, *[int(x) for x in first[1:].split(".")])
    if first.startswith("Appendix "):
        return (3, first.removeprefix("Appendix "))
    return (4, first)


@dataclass(frozen=True)
class Claim:
    """One claim of a paper about its results (see the module docstring)."""

    key: str  # unique over all chapters, e.g. "sum_reduction"
    paper: str  # a key of PAPERS
    section: str  # e.g. "Appendix C" (SECTION)
    quote: str  # the paper's words, verbatim (whitespace-normalised in the check)
    statement: str  # the claim as the paper states it, with its quantifier
    quantifier: str  # one of QUANTIFIERS
    metrics: tuple[str, ...]  # e.g. ("ace", "brier")
    about: str  # the models (units) it is about, e.g. "CLMs under 1B"
    chapter: str  # the chapter that tests it (its module holds this claim)
    rule: Callable[[Evidence], Judgement]
    paper_evidence: Callable[[], Evidence] | None
    build_evidence: Callable[[Any], Evidence] | None
    #: where the paper's evidence comes from when not a printed table, or why there is none
    paper_note: str = ""
    #: what would test the claim where a build cannot (e.g. "two or more OPT sizes,
    #: `calib book --profile paper`")
    needs: str = ""
    #: where the paper side's numbers come from (:data:`PAPER_SOURCES`)
    paper_source: str = "printed tables"
    #: a claim beyond what the paper states (counted apart); True by itself for a statement
    #: that begins "Beyond the paper"
    beyond_paper: bool = False
    #: one of the chapter's headline claims, which its bottom line states first
    #: (:mod:`calib.report.bottom_line`)
    headline: bool = False

    def __post_init__(self):
        where = f"claim {self.key!r}"
        if self.statement.lower().startswith("beyond the paper"):
            object.__setattr__(self, "beyond_paper", True)
        if self.paper_source not in PAPER_SOURCES:
            raise ValueError(f"{where}: paper_source must be one of {PAPER_SOURCES}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.key):
            raise ValueError(f"{where}: a key is lower-case words joined by _")
        if self.paper not in PAPERS:
            raise ValueError(f"{where}: paper must be one of {list(PAPERS)}")
        if not SECTION.fullmatch(self.section):
            raise ValueError(
                f"{where}: section {self.section!r} is not like '§5.1', "
                f"'Appendix C' or 'LPAQA §5.2'"
            )
        if self.quantifier not in QUANTIFIERS:
            raise ValueError(f"{where}: quantifier must be one of {QUANTIFIERS}")
        if not isinstance(self.metrics, tuple) or not self.metrics:
            raise ValueError(f"{where}: metrics is a non-empty tuple")
        for name in ("quote", "statement", "about", "chapter", "needs"):
            if not getattr(self, name).strip():
                raise ValueError(f"{where}: {name} must not be empty")
        if self.paper_evidence is None and not self.paper_note:
            raise ValueError(
                f"{where}: without paper_evidence, paper_note says why the "
                f"paper's own numbers cannot test it"
            )

    def judge_paper(self) -> Judgement:
        """The rule applied to the paper's own evidence (its printed tables).

        Returns
        -------
        calib.experiments.verdicts.Judgement
            The rule's judgement (with ``paper_note`` appended to its evidence), or not testable
            with ``paper_note`` as the reason when the claim has no paper evidence. The printed
            values are judged at their printed precision (:mod:`calib.experiments.precision`).
        """
        if self.paper_evidence is None:
            return Judgement.untestable(self.paper_note)
        evidence = _printed(self.paper_evidence())
        judged = _counted(self.rule(evidence), evidence)
        if self.paper_note and judged.verdict != UNTESTABLE:
            return replace(judged, evidence=f"{judged.evidence}. {self.paper_note}")
        return judged

    def judge_build(self, result) -> Judgement:
        """The rule applied to this build's recorded result of the chapter (``None``: the
        chapter has no record in this build: "not run in this build").

        Parameters
        ----------
        result : object or None
            The chapter's recorded result (:func:`calib.experiments.records.load_record`), or
            ``None``.

        Returns
        -------
        calib.experiments.verdicts.Judgement
            The rule's judgement (a not-testable one also says what would test it, ``needs``), or
            not run when the chapter has no record or does not record its evidence.
        """
        if self.build_evidence is None:
            return Judgement.not_run(f"the {self.chapter} chapter does not record its result yet")
        if result is None:
            return Judgement.not_run(
                f"no recorded result of the {self.chapter} chapter in "
                f"this build (run `calib run {self.chapter}`)"
            )
        evidence = self.build_evidence(result)
        judged = _counted(self.rule(evidence), evidence)
        if judged.verdict == UNTESTABLE:
            reason = f"{judged.reason}; " if judged.reason else ""
            return replace(judged, reason=f"{reason}would be tested by {self.needs}")
        return judged


def _printed(evidence: Evidence) -> Evidence:
    """The paper's evidence with each printed value's rounding (:func:`calib.experiments.
    precision.mark_printed`): a tie at the printed precision is no evidence either way."""
    return replace(
        evidence,
        frame=mark_printed(evidence.frame),
        frames={k: mark_printed(f) for k, f in evidence.frames.items()},
    )


def _counted(judged: Judgement, evidence: Evidence) -> Judgement:
    """``judged`` with its ``units``: as the rule counted them, else the rows of the evidence's
    frames (a rule that combines parts without counting them)."""
    if judged.units is not None:
        return judged
    n = len(evidence.frame) + sum(len(f) for f in evidence.frames.values())
    return replace(judged, units=n)
