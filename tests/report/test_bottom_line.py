"""The bottom line of a chapter and the book's summary (calib.report.bottom_line)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from calib.report import bottom_line


def _row(key, verdict, *, headline=False, paper="kissling2026", factor=np.nan, facts=np.nan):
    return {
        "key": key,
        "paper": paper,
        "section": "§5.1",
        "statement": f"statement {key}",
        "chapter": "calibration",
        "beyond_paper": False,
        "headline": headline,
        "paper_verdict": "holds",
        "verdict": verdict,
        "reason": f"reason {key}",
        "decide_factor": factor,
        "decide_verdict": "holds" if np.isfinite(factor) else "",
        "decide_sample": "facts",
        "sample_now": 60.0 if np.isfinite(factor) else np.nan,
        "facts_to_decide": facts,
    }


def _ledger():
    return pd.DataFrame(
        [
            _row("a", "holds", headline=True),
            _row("b", "cannot be decided at this size", headline=True, factor=4.0, facts=240.0),
            _row("c", "does not hold"),
            _row("d", "undecided", factor=20.0, facts=1200.0),
            _row("e", "not testable"),
            {**_row("f", "holds"), "beyond_paper": True},
        ]
    )


@dataclass(frozen=True)
class _Params:
    models: tuple[str, ...] = ("m1",)
    per_relation: int = 1


@dataclass(frozen=True)
class _Result:
    params: _Params = _Params()
    n_facts: int = 60


def test_outcomes_and_tallies_count_the_papers_claims_only():
    assert bottom_line.tallies(_ledger()) == {
        "confirms": 1,
        "contradicts": 1,
        "cannot decide": 2,
        "cannot test": 1,
    }
    with pytest.raises(ValueError, match="no verdict"):
        bottom_line.outcome("maybe")


def test_the_chapter_bottom_line_states_headlines_tallies_and_what_would_decide():
    html = bottom_line.chapter_bottom_line(
        _ledger(), _Result(), sizes={"cpu": 60, "paper": 7731}
    ).html
    assert f'id="{bottom_line.ANCHOR}"' in html and "Bottom line" in html
    assert "60 facts per model (m1)" in html
    # the headlines first, each with both verdicts; the open one with its facts and option
    assert html.index("statement a") < html.index("statement b")
    assert "statement c" not in html.split("</ul>")[0]
    assert "<b>cannot be decided at this size</b>" in html
    assert "about 240 facts per model" in html and "paper (7,731 facts)" in html
    assert "calib run calibration -p per_relation 4" in html
    tally = "Of its 5 claims of the paper, this build confirms 1, contradicts 1, cannot decide 2"
    assert tally in html
    # the nearest open claim beyond the headlines is d (b, at 240 facts, is stated above)
    assert "nearest to a verdict (§5.1: statement d)" in html and "about 1,200 facts" in html


def test_without_headlines_the_first_claims_stand_in_and_text_is_escaped():
    ledger = _ledger().assign(headline=False)
    ledger.loc[0, "statement"] = "ACE < 0.1 & <b>"
    html = bottom_line.chapter_bottom_line(ledger).html
    assert "ACE &lt; 0.1 &amp; &lt;b&gt;" in html
    assert "statement c" in html.split("</ul>")[0]  # the third claim of the papers


def test_reaching_parameter_scales_the_runs_size_by_the_factor():
    row = {"decide_factor": 2.5, "decide_sample": "facts"}
    assert bottom_line.reaching_parameter(row, _Params(per_relation=2)) == "-p per_relation 5"
    assert bottom_line.reaching_parameter({**row, "decide_factor": 1.0}, _Params()) == (
        "-p per_relation 2"
    )
    assert bottom_line.reaching_parameter({**row, "decide_sample": "models"}, _Params()) == ""
    assert bottom_line.reaching_parameter({**row, "decide_factor": np.inf}, _Params()) == ""


def test_the_book_summary_lists_per_paper_what_the_build_confirms_and_contradicts():
    ledger = pd.concat(
        [_ledger(), pd.DataFrame([_row("g", "holds", paper="jiang2020")])], ignore_index=True
    )
    text = bottom_line.book_summary(ledger)
    kissling, lpaqa = text.split("**Jiang")
    assert "Of the paper's 5 claims, this build confirms 1" in kissling
    assert "This build confirms:\n  - §5.1: statement a" in kissling
    assert "This build contradicts:\n  - §5.1: statement c" in kissling
    assert "cannot decide 2 at its size, among them the headline claims §5.1: statement b" in (
        kissling
    )
    assert "{doc}`calibration </_build/chapters/calibration>`" in kissling
    assert "statement g" in lpaqa and "statement f" not in text
