"""The ledger page's tables and sentences, from the frames of :mod:`calib.experiments.ledger`
and :func:`calib.experiments.paper_tables.consistency_checks` (no number is computed here)."""

from __future__ import annotations

import pandas as pd

from calib.report.table_format import HtmlTable, html_table

#: the papers' short citations
PAPERS = {"kissling2026": "Kissling et al. 2026", "jiang2020": "Jiang et al. 2020 (LPAQA)"}


def ledger_table(ledger: pd.DataFrame, label: str = "") -> HtmlTable:
    """One row per claim: where the paper makes it, the claim and the paper's words, what its
    own tables show, this build's verdict and the numbers behind it (or what would test it)."""
    frame = pd.DataFrame({
        "where": [f"{PAPERS.get(p, p)}, {s}" for p, s in zip(ledger["paper"],
                                                             ledger["section"])],
        "claim": [f"{c} (\u201c{q}\u201d)" for c, q in zip(ledger["claim"], ledger["quote"])],
        "the paper's own evidence": ledger["paper_evidence"],
        "this build": ledger["verdict"],
        "this build's numbers": [e + (f". Would be tested by: {n}." if n else "")
                                 for e, n in zip(ledger["evidence"], ledger["needs"])],
    })
    return html_table(frame, label=label or None,
                      caption="The papers' claims, their own evidence (reported values, from "
                              "calib/data/reported/) and this build's verdict (computed from "
                              "this build's numbers by calib.experiments.ledger)")


def verdict_sentence(counts: dict[str, int]) -> str:
    """``"Of the 14 claims, this build's verdicts: holds 3, ..."`` from
    :func:`calib.experiments.ledger.verdict_counts`."""
    total = sum(counts.values())
    return (f"Of the {total} claims, this build's verdicts: "
            + ", ".join(f"{v} {n}" for v, n in counts.items()) + ".")


def consistency_table(checks: pd.DataFrame) -> HtmlTable:
    """The checks of the papers' text against their own tables, inconsistent ones first."""
    frame = checks.assign(consistent=checks["consistent"].map({True: "yes", False: "no"}))
    frame = frame.sort_values("consistent", kind="stable").reset_index(drop=True)
    return html_table(frame, css_class="calib-reported",
                      label="Computed here from the values reported in the papers (calib/report/"
                            "reported/)",
                      caption="Where the papers' text and their own tables agree, and where they "
                              "do not")


def settings_table(params: dict[str, dict]) -> HtmlTable:
    """The parameters each chapter's verdicts were computed with (one row per chapter)."""
    frame = pd.DataFrame({"chapter": list(params),
                          "parameters": ["; ".join(f"{k} = {v!r}" for k, v in p.items())
                                         for p in params.values()]})
    return html_table(frame, caption="The settings the verdicts were computed with: each "
                                     "chapter's own parameters under this profile")
