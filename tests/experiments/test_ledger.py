"""The ledger: every claim of every chapter judged on the paper's tables and on the results this
build's chapters recorded; it never runs a chapter, names the parameters each ran with, and says
"not run in this build" where a chapter recorded nothing."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from calib.experiments import ledger, records
from calib.experiments.claims import section_key
from calib.experiments.reductions import Params, ReductionsResult
from calib.report import ledger_page


def _differences(objectives, pairs, metric, low, high):
    rows = [
        {
            "objective": o,
            "a": a,
            "b": b,
            "metric": metric,
            "difference": (low + high) / 2,
            "low": low,
            "high": high,
            "n_models": 1,
            "n": 30,
        }
        for o in objectives
        for a, b in pairs
    ]
    return pd.DataFrame(rows)


def _recorded_reductions(build, objectives=("clm", "mlm"), low=0.01, high=0.05):
    """A hand-made reductions result in which Sum's H is higher than every other reduction's
    for each objective present (intervals [low, high])."""
    pairs = [("sum", r) for r in ("mean", "sum-answer", "mean-answer")]
    mean_pairs = [(m, s) for m in ("mean", "mean-answer") for s in ("sum", "sum-answer")]
    shape = pd.DataFrame(
        {
            "model": ["m1", "m2"],
            "reduction": "mean",
            "label": "Mean",
            "n": 30,
            "mean": 0.2,
            "max": [0.4, 0.45],
            "skewness": [1.5, 0.5],
            "skewness_low": [1.2, -0.1],
            "skewness_high": [1.9, 1.1],
        }
    )
    empty = pd.DataFrame({"x": np.array([], dtype=float)})
    result = ReductionsResult(
        params=Params(models=("m1", "m2"), per_relation=3, n_bootstrap=50),
        objectives=dict(zip(("m1", "m2"), objectives))
        if len(objectives) == 2
        else {"m1": objectives[0], "m2": objectives[0]},
        n_relations=10,
        n_facts=30,
        table=empty,
        means=empty,
        h_differences=_differences(objectives, pairs, "H", low, high),
        mean_vs_sum=pd.concat(
            [_differences(objectives, mean_pairs, m, -0.2, -0.1) for m in ("ace", "accuracy")],
            ignore_index=True,
        ),
        histograms=empty,
        shape=shape,
        authors_means=empty,
    )
    records.write_record(result, build / "chapters")
    return result


def test_without_records_every_claim_is_not_run_and_keeps_the_papers_verdict():
    rows = ledger.build_ledger({})
    assert set(rows["verdict"]) == {"not run in this build"}
    assert rows["paper_verdict"].isin(["holds", "does not hold", "undecided", "not testable"]).all()
    for chapter, part in rows.groupby("chapter"):  # converted chapters name their command
        want = (
            f"calib run {chapter}"
            if ledger.records_claims(chapter)
            else "does not record its result yet"
        )
        assert part["reason"].str.contains(want, regex=False).all(), chapter
    assert ledger.records_claims("reductions") and ledger.records_claims("calibration")
    # grouped by paper, then in the paper's section order
    assert rows["paper"].tolist() == sorted(rows["paper"], key=["kissling2026", "jiang2020"].index)
    keys = [section_key(s) for s in rows.loc[rows["paper"] == "kissling2026", "section"]]
    assert keys == sorted(keys)


def test_the_ledger_judges_a_chapters_recorded_result_and_names_its_parameters(tmp_path):
    _recorded_reductions(tmp_path)
    out = ledger.run(ledger.Params(build_dir=str(tmp_path)))
    rows = out.table.set_index("key")
    assert rows.at["sum_reduction", "verdict"] == "holds"
    assert "CLMs: Sum vs Mean: 0.030 [0.010, 0.050]" in rows.at["sum_reduction", "evidence"]
    assert rows.at["mean_trades_accuracy", "verdict"] == "holds"
    assert rows.at["mean_right_skewed", "verdict"] == "undecided"  # m2's interval includes 1
    assert rows.at["mean_max_half", "verdict"] == "not testable"
    assert "opt-1.3b is not among this build's models" in rows.at["mean_max_half", "reason"]
    assert rows.at["margin_bear", "verdict"] == "not run in this build"
    settings = out.settings.set_index("chapter")
    assert settings.at["reductions", "status"] == "recorded"
    assert "per_relation = 3" in settings.at["reductions", "parameters"]
    assert "n_bootstrap = 50" in settings.at["reductions", "parameters"]
    assert settings.at["calibration", "status"] == "not run in this build"
    assert len(out.consistency) > 10


def test_a_build_with_clms_only_never_says_sum_holds_for_clms_and_mlms(tmp_path):
    _recorded_reductions(tmp_path, objectives=("clm",))
    rows = ledger.run(ledger.Params(build_dir=str(tmp_path))).table.set_index("key")
    assert rows.at["sum_reduction", "verdict"] == "not testable"
    assert "this build has no MLM" in rows.at["sum_reduction", "reason"]
    _recorded_reductions(tmp_path, objectives=("clm",), low=-0.05, high=-0.01)
    rows = ledger.run(ledger.Params(build_dir=str(tmp_path))).table.set_index("key")
    assert rows.at["sum_reduction", "verdict"] == "does not hold"  # the CLMs are against it


def test_the_ledger_page_tables_and_sentences(tmp_path):
    _recorded_reductions(tmp_path)
    out = ledger.run(ledger.Params(build_dir=str(tmp_path)))
    text = ledger_page.verdict_sentences(out.table)
    rows = out.table
    beyond = rows["beyond_paper"]
    kissling = rows[(rows["paper"] == "kissling2026") & ~beyond]
    lpaqa = rows[(rows["paper"] == "jiang2020") & ~beyond]
    # each paper counted apart, the claims beyond the papers apart from both
    assert f"**Kissling et al. 2026**: Of the {len(kissling)} claims, the paper's tables'" in text
    assert f"**Jiang et al. 2020 (LPAQA)**: Of the {len(lpaqa)} claims" in text
    assert f"**Beyond the papers**: Of the {int(beyond.sum())} claims beyond the papers" in text
    assert "this build's verdicts: holds 2" in text
    assert rows.loc[rows["key"] == "recalibrated_baseline", "beyond_paper"].item()
    tables = ledger_page.ledger_tables(out.table)
    assert len(tables) == 3  # one per paper, and the claims beyond them
    assert "not run in this build" in tables[0].html and "Appendix C" in tables[0].html
    assert "Holm over" in tables[0].html  # the correction of each verdict, with its units
    # one line per claim, decided verdicts first, each linked to its folded details
    html = tables[0].html
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    assert body.count("<tr>") == len(kissling) == html.count('<details class="calib-claim"')
    verdicts = re.findall(r"<td><b>([^<]+)</b></td>", body)
    rank = [ledger_page.DECIDED_FIRST.index(v) for v in verdicts]
    assert rank == sorted(rank) and verdicts[0] == "holds"
    for key in kissling["key"]:
        anchor = ledger_page.CLAIM_ANCHOR.format(key=key)
        assert f'href="#{anchor}"' in body and f'id="{anchor}"' in html
    # a verdict on numbers other than the printed tables says so
    repo = rows[rows["key"] == "sum_reduction"].assign(paper_source="authors' repository")
    shown = ledger_page.claims_frame(repo)["the paper's tables"].item()
    assert shown == "holds (from the authors' repository, not the paper)"
    printed = ledger_page.claims_frame(rows[rows["key"] == "average_best"])
    assert printed["the paper's tables"].item() == "does not hold"
    assert "per_relation = 3" in ledger_page.settings_table(out.settings).html
    assert out.settings.set_index("chapter").at["reductions", "models"] == ("m1", "m2")


def test_the_page_says_which_sample_would_decide_an_undecided_verdict(tmp_path):
    _recorded_reductions(tmp_path)
    out = ledger.run(ledger.Params(build_dir=str(tmp_path)))
    row = out.table.set_index("key").loc["mean_right_skewed"]
    assert row["verdict"] == "undecided" and row["sample_now"] == 30
    sizes = {"reductions": {"cpu": 60, "paper": 7731}}
    text = ledger_page.facts_text(row.to_dict() | {"chapter": "reductions"}, sizes)
    assert text.startswith("about ") and "this build's 30" in text
    assert "(60 facts)" in text or "(7,731 facts)" in text or "beyond the paper" in text
    html = ledger_page.decide_table(out.table, sizes).html
    assert "mean_right_skewed" in html and "1/sqrt(facts)" in html
    assert ledger_page.facts_text({"verdict": "holds"}) == ""


def test_the_page_names_the_cpu_models_for_what_they_are():
    note = ledger_page.models_note(["smollm2-135m-instruct", "gemma-3-270m"])
    assert "smollm2-135m-instruct (135M parameters, SmolLM2): a 4-bit GGUF file" in note
    assert "converted to torch" in note and "not among the paper's models" in note
    assert "the paper used gemma-3-270m-it, the instruction-tuned variant" in note
    assert "this is the base model" in note
    assert ledger_page.models_note([]) == ""
