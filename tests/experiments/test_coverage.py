"""Every result sentence of both papers has a claim, a planned claim or a reason, and the
registry agrees with the chapters' claims (calib.experiments.coverage)."""

from __future__ import annotations

from dataclasses import replace

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


def test_problems_name_a_missing_claim_a_stray_key_and_a_claim_without_its_sentence():
    fake = replace(CLAIMS[0], key="a_claim_no_sentence_names")
    moved = replace(CLAIMS[1], quote="words the registry does not hold")
    found = coverage.problems([*CLAIMS[2:], fake, moved])
    assert any("'a_claim_no_sentence_names'" in p and "in no sentence" in p for p in found)
    assert any(f"{CLAIMS[1].key!r}: its quote is in no sentence" in p for p in found)
    assert any(f"names {CLAIMS[0].key!r}, which is neither" in p for p in found)
    # a planned claim that has become a claim must lose its sketch
    planned = sentences.planned_claims().iloc[0]
    landed = replace(CLAIMS[0], key=planned["claim"])
    assert any("is a claim of the" in p for p in coverage.problems([*CLAIMS, landed]))


def test_statuses_and_counts_per_paper():
    table = coverage.coverage_table()
    counts = coverage.coverage_counts(table).set_index("paper")
    assert list(counts.index) == ["kissling2026", "jiang2020"]
    for paper, row in counts.iterrows():
        assert row[list(coverage.STATUSES)].sum() == row["sentences"], paper
        assert row["not a testable claim"] > 0 and row["planned"] > 0 and row["tested"] > 0
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
    planned = ledger_page.planned_table(table, sentences.planned_claims()).html
    assert (
        "margin_curves_closer" in planned and "align more closely with the identity line" in planned
    )
