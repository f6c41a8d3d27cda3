"""The ledger of the papers' claims: every claim of every chapter, judged on the paper's own
tables and on this build's recorded results.

The claims are defined in the chapter modules (their ``CLAIMS``,
:class:`~calib.experiments.claims.Claim`); :func:`all_claims` collects them. The ledger never runs a
chapter: it reads the result each chapter recorded in this build
(:func:`calib.experiments.records.load_record`, ``_build/chapters/<chapter>.result/``), so a chapter
re-run with other parameters (``calib run reductions -p per_relation 3``) and the ledger re-run
after it judge the numbers that chapter's page shows, and the ledger names the parameters each
chapter ran with. A chapter with no record in this build gives "not run in this build".

Each claim's rule is applied twice (:meth:`~calib.experiments.claims.Claim.judge_paper`,
:meth:`~calib.experiments.claims.Claim.judge_build`); the verdicts are
:class:`~calib.experiments.verdicts.Verdict` (holds, does not hold, undecided, cannot be decided at
this size, not testable, not run in this build), decided by the 95% intervals corrected for the
number of units (:mod:`calib.experiments.quantifiers`, :mod:`calib.experiments.multiplicity`);
an undecided build verdict comes with the facts that would decide it
(:mod:`calib.experiments.decide`). Beside the claims the ledger lists every result sentence of
both papers with the claims that test it or why it is not a testable claim
(:mod:`calib.experiments.coverage`).

The ledger is a chapter unit too: :class:`Params` (the build folder), :func:`run` ->
:class:`LedgerResult`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Protocol

import pandas as pd

from calib.data import sentences
from calib.experiments import coverage, decide
from calib.experiments.claims import PAPERS, Claim, section_key
from calib.experiments.paper_tables import consistency_checks
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.records import load_record_folder, read_manifest, record_path
from calib.experiments.verdicts import Verdict
from calib.experiments.verdicts import verdict_counts as _counts

#: the chapter modules whose claims the ledger collects, in the book's order
CHAPTERS: tuple[str, ...] = (
    "calibration",
    "linguistic",
    "answer_set",
    "clm_vs_mlm",
    "lpaqa",
    "reductions",
    "factor",
)


def chapter_module(chapter: str):
    """``calib.experiments.<chapter>``."""
    return importlib.import_module(f"calib.experiments.{chapter}")


def records_claims(chapter: str) -> bool:
    """Whether ``chapter`` is a chapter unit that records its result (``Params`` and ``run``),
    so that its claims can be judged on this build."""
    module = chapter_module(chapter)
    return hasattr(module, "Params") and hasattr(module, "run")


def all_claims(chapters: Sequence[str] = CHAPTERS) -> tuple[Claim, ...]:
    """Every claim of the chapter modules, in chapter order; a key defined twice, or a claim
    whose ``chapter`` is not the module holding it, is a ``ValueError`` naming both."""
    out: list[Claim] = []
    seen: dict[str, str] = {}
    for chapter in chapters:
        for claim in chapter_module(chapter).CLAIMS:
            if claim.key in seen:
                raise ValueError(
                    f"claim {claim.key!r} is defined in {seen[claim.key]} and in {chapter}"
                )
            if claim.chapter != chapter:
                raise ValueError(
                    f"claim {claim.key!r} lives in calib.experiments.{chapter} "
                    f"but names chapter {claim.chapter!r}"
                )
            seen[claim.key] = chapter
            out.append(claim)
    return tuple(out)


@dataclass(frozen=True)
class Params(ChapterParams):
    """The ledger's parameters."""

    chapter: ClassVar[str] = "ledger"

    build_dir: str = parameter(
        "_build", "the build whose recorded chapter results are judged (relative to the book root)"
    )


class ChapterResult(Protocol):
    """What the ledger reads of a chapter's result object: the parameters it ran with."""

    @property
    def params(self) -> ChapterParams: ...


@dataclass(frozen=True)
class Recorded:
    """A chapter's recorded result in a build (``result`` None: none recorded)."""

    chapter: str
    result: ChapterResult | None
    manifest: dict


def read_records(build_dir: str | Path, chapters: Sequence[str] = CHAPTERS) -> dict[str, Recorded]:
    """The recorded result of each chapter in ``build_dir`` (``result`` None where there is
    none, or the chapter does not record its result yet)."""
    out = {}
    for chapter in chapters:
        path = record_path(chapter, build_dir)
        if records_claims(chapter) and (path / "manifest.json").is_file():
            out[chapter] = Recorded(chapter, load_record_folder(path), read_manifest(path))
        else:
            out[chapter] = Recorded(chapter, None, {})
    return out


def _order(claims: Sequence[Claim]) -> list[Claim]:
    papers = list(PAPERS)
    return sorted(claims, key=lambda c: (papers.index(c.paper), section_key(c.section)))


def build_ledger(
    results: Mapping[str, object | None], claims: Sequence[Claim] | None = None
) -> pd.DataFrame:
    """One row per claim (:func:`all_claims` by default), by paper and in the paper's section
    order: ``key``, ``paper``, ``section``, ``statement``, ``quote``, ``quantifier``,
    ``metrics``, ``about``, ``chapter``, ``paper_source``, ``beyond_paper``, ``headline``; the
    rule on the
    paper's tables (``paper_verdict``, ``paper_evidence``, ``paper_reason``, ``paper_units``,
    ``paper_correction``) and on this build's recorded result of the chapter (``verdict``,
    ``evidence``, ``reason``, ``units``, ``correction``), and for an undecided build verdict
    the facts that would decide it (:func:`calib.experiments.decide.facts_needed`:
    ``decide_factor``, ``decide_verdict``, ``decide_sample``, ``sample_now``,
    ``facts_to_decide``; NaN where not computable).

    ``results``: chapter -> its result object (e.g. :func:`read_records`'s ``result``); a
    chapter missing or ``None`` gives "not run in this build"."""
    rows = []
    for c in _order(all_claims() if claims is None else claims):
        paper = c.judge_paper()
        result = results.get(c.chapter)
        build = c.judge_build(result)
        rows.append(
            {
                "key": c.key,
                "paper": c.paper,
                "section": c.section,
                "statement": c.statement,
                "quote": c.quote,
                "quantifier": c.quantifier,
                "metrics": ", ".join(c.metrics),
                "about": c.about,
                "chapter": c.chapter,
                "paper_source": c.paper_source,
                "beyond_paper": c.beyond_paper,
                "headline": c.headline,
                "paper_verdict": paper.verdict.value,
                "paper_evidence": paper.evidence,
                "paper_reason": paper.reason,
                "paper_units": paper.units,
                "paper_correction": paper.correction,
                "verdict": build.verdict.value,
                "evidence": build.evidence,
                "reason": build.reason,
                "units": build.units,
                "correction": build.correction,
                **decide.decide_columns(build, result),
            }
        )
    return pd.DataFrame(rows)


def settings(records: Mapping[str, Recorded]) -> pd.DataFrame:
    """One row per chapter: whether this build recorded its result, the profile and command it
    ran with, when, its parameters and its models (a tuple; from the record)."""
    rows = []
    for chapter, rec in records.items():
        run_info = rec.manifest.get("run", {})
        models: tuple = ()
        if rec.result is not None:
            status = "recorded"
            params = rec.result.params.to_dict()
            models = tuple(getattr(rec.result.params, "models", None) or ())
        else:
            status = (
                "not run in this build"
                if records_claims(chapter)
                else "does not record its result yet"
            )
            params = {}
        rows.append(
            {
                "chapter": chapter,
                "status": status,
                "profile": run_info.get("profile", ""),
                "command": run_info.get("command", ""),
                "written": rec.manifest.get("written", ""),
                "parameters": "; ".join(f"{k} = {v!r}" for k, v in params.items()),
                "models": models,
            }
        )
    return pd.DataFrame(
        rows,
        columns=["chapter", "status", "profile", "command", "written", "parameters", "models"],
    )


@dataclass(frozen=True)
class LedgerResult:
    """Every frame the ledger page shows."""

    params: Params
    #: :func:`build_ledger`
    table: pd.DataFrame
    #: :func:`settings`
    settings: pd.DataFrame
    #: :func:`calib.experiments.paper_tables.consistency_checks`
    consistency: pd.DataFrame
    #: :func:`calib.experiments.coverage.coverage_table`: every result sentence of both papers
    #: with the claims that test it or why it is not a testable claim
    coverage: pd.DataFrame
    #: :func:`calib.data.sentences.planned_claims`: the claims proposed for sentences that no
    #: claim tests yet
    planned: pd.DataFrame


def run(params: Params) -> LedgerResult:
    """The ledger of the build in ``params.build_dir``: read every chapter's record, judge
    every claim twice, check the papers' text against their tables.

    Parameters
    ----------
    params : calib.experiments.ledger.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.ledger.LedgerResult
        What the chapter's page shows, with ``params``.
    """
    records = read_records(params.build_dir)
    table = build_ledger({c: r.result for c, r in records.items()})
    return LedgerResult(
        params=params,
        table=table,
        settings=settings(records),
        consistency=consistency_checks(),
        coverage=coverage.coverage_table(),
        planned=sentences.planned_claims(),
    )


def verdict_counts(ledger: pd.DataFrame, column: str = "verdict") -> dict[Verdict, int]:
    """How many claims got each verdict (``column``: ``verdict`` for this build's, ``paper_verdict``
    for the paper's tables), in :class:`~calib.experiments.verdicts.Verdict` order."""
    return _counts(ledger[column])
