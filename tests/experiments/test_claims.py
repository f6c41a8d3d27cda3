"""Every claim of every chapter: one definition each (grep finds its key once), quoted verbatim,
with a well-formed section; and the rules applied to the paper's own tables give the verdicts
the printed numbers imply, checked here by hand from the tables for several claims."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from calib.data.reported import reported
from calib.experiments import ledger
from calib.experiments.claims import PAPERS, QUANTIFIERS, SECTION, Claim, section_key
from calib.experiments.verdicts import FAILS, HOLDS, UNTESTABLE

CALIB = Path(__file__).resolve().parents[2] / "calib"
CLAIMS = ledger.all_claims()
BY_KEY = {c.key: c for c in CLAIMS}


def claims_module(path: Path, chapter: str) -> bool:
    """Whether ``path`` is a claims module of ``chapter``'s package: ``<chapter>/claims.py`` or
    a module of ``<chapter>/claims/``."""
    home = CALIB / "experiments" / chapter
    return path == home / "claims.py" or path.parent == home / "claims"


def test_every_key_is_defined_once_in_the_chapter_module_that_tests_it():
    assert len(BY_KEY) == len(CLAIMS) >= 17
    sources = {p: p.read_text(encoding="utf-8") for p in CALIB.rglob("*.py")}
    sources.update({p: p.read_text(encoding="utf-8") for p in CALIB.rglob("*.yaml")})
    for claim in CLAIMS:
        found = [
            p
            for p, text in sources.items()
            if re.search(rf"key=\"{claim.key}\"|key: {claim.key}\b", text)
        ]
        assert len(found) == 1 and claims_module(found[0], claim.chapter), (claim.key, found)
    assert not (CALIB / "experiments" / "claims.yaml").exists()


#: an absolute path of one machine: ``/a/b...`` (not ``and/or``, not a URL's ``//host/...``) or
#: a Windows drive
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/~])/(?:[\w.-]+/)+[\w.-]*|\b[A-Za-z]:\\")


def test_no_claim_names_a_path_of_one_machine():
    """A claim names data by the data root (``CALIB_DATA_DIR``) and paths relative to it."""
    assert ABSOLUTE_PATH.search("this build's data has LAMA T-REx only (`/work/shared/data/lama`)")
    assert ABSOLUTE_PATH.search(r"C:\\data\\lama") and ABSOLUTE_PATH.search("at /home/x/data")
    for text in ("and/or", "Top3/Top5", "https://github.com/a/b", "`lama/facts/` under the root"):
        assert not ABSOLUTE_PATH.search(text), text
    for claim in CLAIMS:
        judged = claim.judge_paper()
        texts = [v for v in vars(claim).values() if isinstance(v, str)]
        for text in [*texts, judged.evidence, judged.reason]:
            assert not ABSOLUTE_PATH.search(text), (claim.key, text)


def test_every_quote_is_the_papers_words(paper_text):
    flat = {k: " ".join(v.split()) for k, v in paper_text.items()}
    for claim in CLAIMS:
        assert " ".join(claim.quote.split()) in flat[claim.paper], claim.key


def test_sections_quantifiers_and_fields_are_well_formed():
    for claim in CLAIMS:
        assert SECTION.fullmatch(claim.section), claim.key
        assert claim.paper in PAPERS and claim.quantifier in QUANTIFIERS, claim.key
        assert claim.statement and claim.about and claim.needs and claim.metrics, claim.key
        assert callable(claim.rule), claim.key
        assert claim.paper_evidence is not None or claim.paper_note, claim.key
    assert (
        section_key("§5.1")
        < section_key("§5.3")
        < section_key("§6")
        < section_key("Appendix C")
        < section_key("Appendix G")
    )
    assert section_key("LPAQA §5.2") == section_key("§5.2")
    with pytest.raises(ValueError, match=r"section '5.1'"):
        Claim(**{**BY_KEY["margin_bear"].__dict__, "key": "x", "section": "5.1"})
    with pytest.raises(ValueError, match="paper_note says why"):
        Claim(**{**BY_KEY["margin_bear"].__dict__, "key": "x", "paper_evidence": None})
    with pytest.raises(ValueError, match="paper_source must be one of"):
        Claim(**{**BY_KEY["margin_bear"].__dict__, "key": "x", "paper_source": "a blog"})
    assert section_key("§7") < section_key("Limitations") < section_key("Appendix A")


def test_a_claim_beyond_the_paper_is_marked_so_and_the_others_are_not():
    assert BY_KEY["recalibrated_baseline"].beyond_paper  # its statement says so
    assert not BY_KEY["margin_bear"].beyond_paper
    marked = Claim(**{**BY_KEY["margin_bear"].__dict__, "key": "x", "beyond_paper": True})
    assert marked.beyond_paper


def test_a_claim_defined_twice_or_in_another_chapters_module_is_named(monkeypatch):
    class Fake:
        CLAIMS = (BY_KEY["margin_bear"],)

    monkeypatch.setitem(sys.modules, "calib.experiments.fake", Fake)
    with pytest.raises(
        ValueError, match=r"lives in calib.experiments.fake but names chapter 'calibration'"
    ):
        ledger.all_claims(("fake",))
    with pytest.raises(ValueError, match="'margin_bear' is defined in calibration and in fake"):
        ledger.all_claims(("calibration", "fake"))


# -- each rule on the paper's own tables, checked against the printed numbers by hand --------


def test_margin_bear_fails_on_table1_by_gemma7bs_brier_score():
    t1 = reported("kissling2026_table1")
    assert (t1["ace_margin"] < t1["ace_base"]).all()  # by hand: all 25 rows
    worse = t1.loc[t1["brier_margin"] >= t1["brier_base"], "registry_name"].tolist()
    assert worse == ["gemma-7b"]  # 0.134 against 0.133
    judged = BY_KEY["margin_bear"].judge_paper()
    assert judged.verdict is FAILS and "for 49, against it for 1" in judged.evidence
    assert "gemma-7b, brier: 0.001" in judged.evidence


def test_average_best_is_not_supported_for_9_of_25_models():
    t1 = reported("kissling2026_table1")
    others = t1[["ace_base", "ace_margin", "ace_entropy"]].min(axis=1)
    by_hand = t1.loc[t1["ace_average"] >= others, "registry_name"]
    assert len(by_hand) == 9
    judged = BY_KEY["average_best"].judge_paper()
    assert judged.verdict is FAILS and "against it for 9" in judged.evidence
    assert "llama-3.1-8b-instruct, ace, Average/min - Margin: 0.008" in judged.evidence


def test_margin_factor_does_not_hold_on_table4():
    t4 = reported("kissling2026_table4")
    worse = t4.loc[t4["ace_margin"] >= t4["ace_base"], "registry_name"].tolist()
    assert len(worse) == 6 and all(m.startswith(("gemma-3", "qwen3.5")) for m in worse)
    worse_brier = t4.loc[t4["brier_margin"] >= t4["brier_base"], "registry_name"].tolist()
    assert worse_brier == worse  # "both evaluation metrics": the same six rows on Brier
    judged = BY_KEY["margin_factor"].judge_paper()
    assert (
        judged.verdict is FAILS
        and "for 20, against it for 12 and undecided for 0 of 32" in judged.evidence
    )


def test_clm_better_holds_on_table2_every_pair():
    t2 = reported("kissling2026_table2")
    clm, mlm = t2[t2["objective"] == "CLM"], t2[t2["objective"] == "MLM"]
    assert (clm["brier_margin"].to_numpy() < mlm["brier_margin"].to_numpy()).all()
    assert (clm["brier_average"].to_numpy() < mlm["brier_average"].to_numpy()).all()
    judged = BY_KEY["clm_better"].judge_paper()
    assert judged.verdict is HOLDS and "of 12 pair-estimators" in judged.evidence


def test_sum_reduction_holds_and_mean_trades_accuracy_fails_on_the_authors_values():
    repo = reported("kissling2026_repo_reduction_strategies")
    mlm = repo[repo["model_type"] == "MLM"].groupby("reduction_label")["accuracy"].mean()
    assert mlm["Mean"] > mlm["Sum (A)"]  # by hand: the MLMs' Mean is more accurate than Sum (A)
    assert BY_KEY["sum_reduction"].judge_paper().verdict is HOLDS
    judged = BY_KEY["mean_trades_accuracy"].judge_paper()
    assert judged.verdict is FAILS and "MLMs: Mean vs Sum (A) (accuracy): 0.030" in judged.evidence
    assert "Figure 7 prints no numbers" in judged.evidence


def test_lpaqa_top1_beats_the_manual_prompt_in_table2():
    trex = reported("jiang2020_lpaqa_trex")
    base = reported("jiang2020_lpaqa_trex_baselines")
    micro = trex[trex["averaging"] == "micro"]
    man = base[(base["averaging"] == "micro") & (base["baseline"] == "Man")].set_index("model")[
        "accuracy"
    ]
    assert (micro["top1"] > micro["model"].map(man)).all()
    assert BY_KEY["lpaqa_beats_manual"].judge_paper().verdict is HOLDS


def test_a_claim_without_printed_numbers_is_not_testable_on_the_paper_with_the_reason():
    for key in ("mean_right_skewed", "mean_max_half", "possibly_vs_numeric"):
        judged = BY_KEY[key].judge_paper()
        assert judged.verdict is UNTESTABLE and "prints no numbers" in judged.reason, key


def test_every_claim_gets_a_verdict_on_the_papers_side():
    rows = ledger.build_ledger({})
    assert len(rows) == len(CLAIMS) and rows["paper_verdict"].notna().all()
    assert (rows.loc[rows["paper_verdict"] != "not testable", "paper_evidence"].str.len() > 0).all()
    assert isinstance(rows, pd.DataFrame)
