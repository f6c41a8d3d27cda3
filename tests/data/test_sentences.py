"""The coverage registry of the papers' result sentences (calib.data.sentences): every quote is
the paper's words, every entry has a claim, a planned claim or a reason, and a malformed file is
refused naming the file, the entry and the field."""

from __future__ import annotations

import pytest
import yaml

from calib.data import sentences as reg
from calib.data.errors import DataFormatError


def test_both_papers_have_a_registry_with_entries_of_every_kind():
    assert reg.papers() == ["jiang2020", "kissling2026"]
    frame = reg.sentences()
    assert set(frame["paper"]) == {"jiang2020", "kissling2026"}
    for paper, part in frame.groupby("paper"):
        assert (part["claims"].str.len() > 0).any(), paper
        assert (part["reason"] != "").any(), paper
        assert (part["planned"].str.len() > 0).any(), paper
    assert set(frame.loc[frame["kind"] != "", "kind"]) <= set(reg.KINDS)


def test_every_quote_is_the_papers_words(paper_text):
    flat = {k: " ".join(v.split()) for k, v in paper_text.items()}
    frame = reg.sentences()
    for row in frame.itertuples():
        for part in reg.quote_parts(row.quote):
            assert part in flat[row.paper], (row.paper, row.n, part[:80])


def test_a_sentence_appears_once_per_paper():
    frame = reg.sentences()
    assert not frame.duplicated(["paper", "quote"]).any()


def test_planned_claims_carry_a_rule_and_both_kinds_of_evidence():
    planned = reg.planned_claims()
    assert len(planned) >= 20 and planned["claim"].is_unique
    for col in ("rule", "paper_evidence", "build_evidence", "chapter", "quantifier"):
        assert (planned[col].str.len() > 0).all(), col
    # a rule says what makes it hold and what does not
    assert planned["rule"].str.contains("Holds when|holds when").all()
    assert planned["rule"].str.contains("does not hold").all()


def _write(tmp_path, doc):
    path = tmp_path / f"{doc.get('paper', 'x')}.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return tmp_path


GOOD = {
    "paper": "kissling2026",
    "text": "k.txt",
    "covers": "everything",
    "sentences": [
        {"section": "§5.1", "quote": "a", "claims": ["margin_bear"]},
        {"section": "§5.1", "quote": "b", "kind": "method", "reason": "how"},
        {
            "section": "§5.1",
            "quote": "c",
            "planned": [
                {
                    "claim": "new_claim",
                    "status": "planned",
                    "chapter": "calibration",
                    "quantifier": "every",
                    "rule": "holds when ..., does not hold when ...",
                    "paper_evidence": "Table 1",
                    "build_evidence": "the chapter's table",
                }
            ],
        },
    ],
}


def test_a_good_file_loads(tmp_path):
    folder = _write(tmp_path, GOOD)
    frame = reg.sentences(folder)
    assert frame["claims"].tolist() == [("margin_bear",), (), ("new_claim",)]
    assert reg.planned_claims(folder)["claim"].tolist() == ["new_claim"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda d: d["sentences"][0].pop("claims"), "needs the claims that test it"),
        (lambda d: d["sentences"][1].pop("kind"), "kind and reason come together"),
        (lambda d: d["sentences"][1].update(kind="opinion"), "kind must be one of"),
        (lambda d: d["sentences"][0].update(claims=["Not A Key"]), "is not a claim key"),
        (lambda d: d["sentences"][2]["planned"][0].update(status="done"), "status must be"),
        (lambda d: d["sentences"][2]["planned"][0].pop("rule"), "expected a non-empty text"),
        (lambda d: d["sentences"][0].update(colour="red"), "unknown fields"),
        (lambda d: d.update(paper="jiang2020"), "differs from the file name"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_entry_and_field(tmp_path, change, message):
    doc = yaml.safe_load(yaml.safe_dump(GOOD))
    change(doc)
    path = tmp_path / "kissling2026.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    with pytest.raises(DataFormatError, match=message) as err:
        reg.sentences(tmp_path)
    assert "kissling2026.yaml" in str(err.value)


def test_an_unknown_paper_names_the_known_ones():
    with pytest.raises(KeyError, match="known: jiang2020, kissling2026"):
        reg.load("smith2021")
