"""Every result sentence of both papers has a claim, a planned claim or a reason, and the
registry agrees with the chapters' claims (calib.experiments.coverage)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from calib.data import sentences
from calib.experiments import coverage, ledger
from calib.report import ledger_page

CLAIMS = ledger.all_claims()


def test_the_registry_and_the_claims_agree():
    assert coverage.problems() == []


def test_every_claim_of_every_chapter_is_in_the_registry_with_its_quote():
    table = coverage.coverage_table()
    named = {k for keys in table["claims"] for k in keys.split(", ") if k}
    assert {c.key for c in CLAIMS} <= named


def test_every_key_in_the_registry_is_a_claim_or_planned():
    table = coverage.coverage_table()
    keys = {c.key for c in CLAIMS}
    planned = set(sentences.planned_claims()["claim"])
    named = {k for ks in table["claims"] for k in ks.split(", ") if k}
    assert named <= keys | planned
    assert not planned & keys  # phase 2 drops a sketch once its claim exists


def test_problems_name_a_missing_claim_a_stray_key_and_a_claim_without_its_sentence(monkeypatch):
    fake = replace(CLAIMS[0], key="a_claim_no_sentence_names")
    moved = replace(CLAIMS[1], quote="words the registry does not hold")
    found = coverage.problems([*CLAIMS[2:], fake, moved])
    assert any("'a_claim_no_sentence_names'" in p and "in no sentence" in p for p in found)
    assert any(f"{CLAIMS[1].key!r}: its quote is in no sentence" in p for p in found)
    assert any(f"names {CLAIMS[0].key!r}, which is neither" in p for p in found)
    # a planned claim that has become a claim must lose its sketch, and is proposed once
    # (the registry has no planned sketch left since issue 25's phase 2: a stand-in one)
    sketch = pd.DataFrame({"claim": [CLAIMS[0].key, "twice", "twice"]})
    monkeypatch.setattr(coverage.registry, "planned_claims", lambda: sketch)
    found = coverage.problems(CLAIMS)
    assert any(f"planned claim {CLAIMS[0].key!r} is a claim of the" in p for p in found)
    assert any("planned claim 'twice' is proposed 2 times" in p for p in found)


def test_statuses_and_counts_per_paper():
    table = coverage.coverage_table()
    counts = coverage.coverage_counts(table).set_index("paper")
    assert list(counts.index) == ["kissling2026", "jiang2020"]
    for paper, row in counts.iterrows():
        assert row[list(coverage.STATUSES)].sum() == row["sentences"], paper
        assert row["not a testable claim"] > 0 and row["tested"] > 0  # planned: 0 once done
    # every planned sketch of both papers is a claim now (issue 25, phase 2)
    assert (counts["planned"] == 0).all()
    reasons = table[table["status"] == "not a testable claim"]
    assert (reasons["reason"] != "").all() and (reasons["claims"] == "").all()


def test_the_page_lists_per_paper_the_sentences_that_are_not_testable_and_why():
    table = coverage.coverage_table()
    text = ledger_page.coverage_sentence(table)
    assert text.startswith("Kissling et al. 2026: of ") and "not a testable claim" in text
    html = ledger_page.untestable_table(table, "kissling2026").html
    assert "From a practical perspective, an underconfident model" in html
    assert "interpretation" in html and "not a testable claim" in html
    lpaqa = ledger_page.untestable_table(table, "jiang2020").html
    assert "reads: " in lpaqa  # the English of a machine-translated sentence
    proposed = sentences.planned_claims()
    planned = ledger_page.planned_table(table, proposed).html
    for key in proposed["claim"][:3]:  # whichever claims are still only proposed
        assert key in planned
    assert "margin_curves_closer" not in planned  # a claim now: no longer listed as planned
    empty = ledger_page.planned_table(table, proposed.iloc[:0])  # none left: still a page
    assert empty is not None
