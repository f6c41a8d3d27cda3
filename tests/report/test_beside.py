"""The papers' values beside this build's: every row keeps its source, units are put on one
scale, and only models with the same registry name are matched."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.report import beside as bs


def _calibration_table(models=("gpt2", "tiny-gpt2")) -> pd.DataFrame:
    rows = [
        {"model": m, "estimator": e, "accuracy": 0.2, "ace": 0.3, "brier": 0.25}
        for m in models
        for e in ("Base", "Margin", "Average/min", "Entropy/min")
    ]
    return pd.DataFrame(rows)


def test_calibration_beside_keeps_sources_apart_and_uses_table3_accuracy():
    out = bs.calibration_beside(_calibration_table(), ["Base", "Average/min"])
    ours = out[out["source"] == bs.THIS_BUILD]
    paper = out[out["source"] != bs.THIS_BUILD]
    assert len(ours) == 4 and len(paper) == 25 * 2
    assert paper["source"].str.contains("Table 1").all()
    opt = paper[(paper["model"] == "opt-6.7b") & (paper["estimator"] == "Average/min")]
    assert opt["ace"].item() == 0.024 and opt["accuracy"].item() == pytest.approx(0.428)
    assert ours.set_index("model")["in_paper"].to_dict() == {"gpt2": True, "tiny-gpt2": False}


def test_side_by_side_only_for_models_in_both():
    combined = bs.calibration_beside(
        _calibration_table(("opt-125m", "smollm2-135m-instruct")), ["Base"]
    )
    shared = bs.side_by_side(combined, ["model", "estimator"], ["ace"])
    assert shared["model"].tolist() == ["opt-125m"]
    assert shared["ace (paper)"].item() == 0.299 and shared["ace (this build)"].item() == 0.3
    none = bs.side_by_side(
        bs.calibration_beside(_calibration_table(("tiny-gpt2",)), ["Base"]),
        ["model", "estimator"],
        ["ace"],
    )
    assert none.empty and list(none.columns) == [
        "model",
        "estimator",
        "ace (this build)",
        "ace (paper)",
    ]


def test_the_embedded_gemma_is_never_taken_for_the_papers():
    note = bs.model_notes(["smollm2-135m-instruct", "gemma-3-270m"])
    assert note.startswith("No model of this build is one of the paper's 29")
    assert "`gemma-3-270m`" in note and "not the paper's `gemma-3-270m-it`" in note
    combined = bs.calibration_beside(_calibration_table(("gemma-3-270m",)), ["Base"])
    assert bs.side_by_side(combined, ["model", "estimator"], ["ace"]).empty
    assert "gpt2" in bs.model_notes(["gpt2", "tiny-bert"])


def test_table2_and_table4_beside_put_accuracy_on_one_scale():
    rows = pd.DataFrame(
        {
            "model": ["tiny-gpt2"],
            "objective": ["clm"],
            "accuracy": [0.4],
            "brier_margin": [0.2],
            "brier_average": [0.1],
        }
    )
    t2 = bs.table2_beside(rows)
    assert len(t2) == 13 and t2["accuracy"].max() <= 1
    assert t2.loc[t2["model"] == "opt-125m", "accuracy"].item() == pytest.approx(0.156)
    bars = bs.brier_bars_beside(t2)
    assert len(bars) == 26 and "tiny-gpt2 (this build)" in set(bars["model"])
    table = pd.DataFrame(
        {
            "model": ["m"],
            "subset": ["news"],
            "accuracy": [0.3],
            "ace_base": [0.2],
            "ace_margin": [0.1],
            "brier_base": [0.3],
            "brier_margin": [0.2],
        }
    )
    t4 = bs.table4_beside(table)
    assert len(t4) == 17 and set(t4["subset"]) == {"news", "wiki"}
    assert t4.loc[t4["model"] == "opt-6.7b", "accuracy"].item() == pytest.approx(0.4933)
    points = bs.factor_points(t4)
    assert len(points) == 34 and set(points["estimator"]) == {"Base", "Margin"}


def test_figure4_beside_has_the_papers_two_benchmarks():
    points = pd.DataFrame(
        {"model": ["m"], "benchmark": ["BEAR 1:1 (5 options)"], "accuracy": [0.5], "ace": [0.2]}
    )
    out = bs.figure4_beside(points)
    paper = out[out["source"] != bs.THIS_BUILD]
    assert set(paper["benchmark"]) == {"BEAR 1:1 (5 options)", "Wiki-FACTOR (4 options)"}
    gpt2_large = paper[(paper["model"] == "gpt2-large") & paper["benchmark"].str.startswith("BEAR")]
    assert gpt2_large["accuracy"].item() == pytest.approx(0.4897, abs=1e-4)


def test_lpaqa_beside_has_the_shared_prompt_sets_and_blanks():
    ours = pd.DataFrame(
        {"model": ["m"], "prompt_set": ["Mine"], "top-1": [0.3], "optimized": [0.4]}
    )
    out = bs.lpaqa_beside(ours, "micro")
    assert list(out.columns[:3]) == ["source", "model", "prompt_set"]
    paper = out[out["source"] != bs.THIS_BUILD]
    assert len(paper) == 8
    base = paper[(paper["model"] == "BERT-base") & (paper["prompt_set"] == "Mine+Man")]
    assert base["optimized"].item() == pytest.approx(0.396)
    large = paper[paper["model"] == "BERT-large"]
    assert large["top-3"].isna().all()
    acc = pd.DataFrame(
        {
            "model": ["m", "m", "m"],
            "prompt_set": ["-", "-", "-"],
            "method": ["manual", "majority", "majority (test facts)"],
            "micro": [0.2, 0.5, 0.6],
            "macro": [0.1, 0.3, 0.2],
        }
    )
    baselines = bs.lpaqa_baselines_beside(acc)
    assert len(baselines) == 6
    ours = baselines[baselines["source"] == bs.THIS_BUILD].set_index("baseline")["micro"]
    # the paper's Majority is counted on the test facts: so is the row named as it
    assert ours.to_dict() == {"Man": 0.2, "Majority (training pairs)": 0.5, "Majority": 0.6}
    assert baselines.loc[baselines["model"] == "none", "macro"].item() == pytest.approx(0.022)


def test_linguistic_beside_sets_the_papers_statements_by_ours():
    effects = pd.DataFrame(
        {
            "model": "m",
            "template": ["numeric-25", "certainly", "possibly"],
            "quantity": "accuracy",
            "delta": [-0.1, 0.02, 0.0],
            "low": [-0.2, -0.01, -0.1],
            "high": [-0.05, 0.05, 0.1],
        }
    )
    out = bs.linguistic_beside(effects)
    paper = out[out["source"] != bs.THIS_BUILD].set_index("model")
    assert paper.at["gemma-7b", "change"] == "-15 pp"
    assert paper.at["roberta-base", "change"] == "+0.2 pp"
    ours = out[out["source"] == bs.THIS_BUILD]
    assert ours["change"].tolist() == ["-10.0 pp [-20.0, -5.0]", "+2.0 pp [-1.0, +5.0]"]


def test_reductions_beside_labels_both_sources():
    means = pd.DataFrame(
        {
            "objective": "clm",
            "reduction": ["sum", "sum", "sum"],
            "metric": ["accuracy", "ace", "H"],
            "value": [0.3, 0.2, 0.4],
            "n_models": 1,
        }
    )
    repo = means.assign(objective="CLM", reduction="Sum", value=[0.5, 0.1, 0.6], n_models=10)
    out = bs.reductions_beside(means, repo, {"sum": "Sum"})
    assert out["reduction"].tolist() == ["Sum", "Sum"]
    assert (
        out["source"].tolist()[0] == bs.THIS_BUILD
        and "authors' repository" in out["source"].tolist()[1]
    )
    assert np.isclose(out["H"].tolist(), [0.4, 0.6]).all()


def test_text_numbers_by_section():
    nums = bs.text_numbers(["Appendix F"])
    assert len(nums) == 7 and nums.attrs["id"] == "kissling2026_text_numbers"
    assert "0.213" in nums["value"].tolist()


def test_selective_beside_reads_the_papers_threshold():
    curves = pd.DataFrame(
        {
            "model": ["m", "m"],
            "estimator": "Average/min",
            "threshold": [0.1, 0.2],
            "rejected": [0.25, 0.5],
            "kept": [3, 2],
            "accuracy": [0.6, 0.7],
        }
    )
    table = pd.DataFrame({"model": ["m"], "estimator": ["Average/min"], "accuracy": [0.5]})
    out = bs.selective_beside(curves, table, "Average/min").set_index("source")
    paper = out.loc["reported in the paper (Appendix E)"]
    assert (paper["model"], paper["rejected"], paper["accuracy gain"]) == (
        "gemma-7b",
        "< 30%",
        "about +15 pp",
    )
    assert (out.loc[bs.THIS_BUILD, "rejected"], out.loc[bs.THIS_BUILD, "accuracy gain"]) == (
        "25%",
        "+10.0 pp",
    )


def test_a_chart_of_ace_draws_the_papers_points_only():
    """This build's ACE is not drawn beside the paper's (their sample sizes differ, and the
    floor at the paper's size cannot be drawn): the chart's frame keeps the reported rows."""
    points = pd.DataFrame(
        {"model": ["m"], "benchmark": ["BEAR"], "options": [5], "accuracy": [0.5], "ace": [0.2]}
    )
    combined = bs.figure4_beside(points, k=5)
    assert (combined["source"] == bs.THIS_BUILD).any()
    drawn = bs.reported_only(combined)
    assert len(drawn) and not (drawn["source"] == bs.THIS_BUILD).any()
    assert len(drawn) == (combined["source"] != bs.THIS_BUILD).sum()
    assert "noise floor" in bs.ace_apart_note()
