"""The ledger page's tables and sentences, from the frames of :mod:`calib.experiments.ledger`
and :func:`calib.experiments.paper_tables.consistency_checks` (no number is computed here)."""

from __future__ import annotations

import pandas as pd

from calib.experiments.claims import PAPERS
from calib.experiments.verdicts import counts_sentence, verdict_counts
from calib.report.table_format import HtmlTable, html_table


def _with_reason(evidence: str, reason: str) -> str:
    if evidence and reason:
        return f"{evidence}. {reason[:1].upper()}{reason[1:]}."
    return evidence or (reason[:1].upper() + reason[1:] + "." if reason else "")


def claims_frame(ledger: pd.DataFrame) -> pd.DataFrame:
    """The ledger's rows as the page shows them: section, the claim with the paper's words,
    the verdict on the paper's tables with its evidence, and this build's."""
    return pd.DataFrame(
        {
            "section": ledger["section"],
            "claim": [
                f"{s} (\u201c{q}\u201d)" for s, q in zip(ledger["statement"], ledger["quote"])
            ],
            "quantifier": ledger["quantifier"],
            "the paper's tables": ledger["paper_verdict"],
            "their evidence": [
                _with_reason(e, r) for e, r in zip(ledger["paper_evidence"], ledger["paper_reason"])
            ],
            "this build": ledger["verdict"],
            "this build's evidence": [
                _with_reason(e, r) for e, r in zip(ledger["evidence"], ledger["reason"])
            ],
        }
    )


def claims_table(ledger: pd.DataFrame, caption: str = "") -> HtmlTable:
    """Some rows of the ledger (e.g. one chapter's claims,
    :func:`calib.experiments.ledger.build_ledger` with that chapter's ``CLAIMS``) as a table."""
    return html_table(
        claims_frame(ledger),
        name="claims",
        caption=caption
        or "The paper's claims, with the verdict of each rule on "
        "the paper's own numbers and on this run's",
    )


def ledger_tables(ledger: pd.DataFrame) -> list[HtmlTable]:
    """One table per paper (:data:`calib.experiments.claims.PAPERS` order), its claims in the
    paper's section order."""
    out = []
    for paper, title in PAPERS.items():
        part = ledger[ledger["paper"] == paper]
        if part.empty:
            continue
        out.append(
            html_table(
                claims_frame(part),
                name=f"claims {paper}",
                caption=f"{title}: each claim with the verdict of its rule on the paper's own "
                f"tables (reported values, calib/data/reported/) and on this build's "
                f"recorded results (calib.experiments.ledger)",
            )
        )
    return out


def verdict_sentences(ledger: pd.DataFrame) -> str:
    """Two sentences: the tally of the verdicts on the paper's tables and on this build
    (:func:`calib.experiments.verdicts.counts_sentence`, the one wording)."""
    return (
        counts_sentence(verdict_counts(ledger["paper_verdict"]), whose="the paper's tables'")
        + " "
        + counts_sentence(verdict_counts(ledger["verdict"]))
    )


def consistency_table(checks: pd.DataFrame) -> HtmlTable:
    """The checks of the papers' text against their own tables, inconsistent ones first."""
    frame = checks.assign(consistent=checks["consistent"].map({True: "yes", False: "no"}))
    frame = frame.sort_values("consistent", kind="stable").reset_index(drop=True)
    return html_table(
        frame,
        css_class="calib-reported",
        label="Computed here from the values reported in the papers (calib/data/reported/)",
        caption="Where the papers' text and their own tables agree, and where they do not",
    )


def settings_table(settings: pd.DataFrame) -> HtmlTable:
    """The chapters whose recorded results the verdicts judge, with the parameters each ran
    with (:func:`calib.experiments.ledger.settings`)."""
    # when each record was written is on the chapters' own pages (their run notes); a table
    # of the ledger shows what was run, so that two builds of the same runs show the same page
    return html_table(
        settings.drop(columns=["written"], errors="ignore"),
        name="chapter settings",
        caption="The chapters of this build: whether each recorded its result, "
        "and the profile, command and parameters it ran with (the "
        "verdicts above judge exactly these runs)",
    )
