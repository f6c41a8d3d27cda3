"""What the paper's own tables show: Table 1 in long and wide form, the text's numbers and the
checks of its text against its tables (the claims' evidence from them: test_claims.py)."""

from __future__ import annotations

import pytest

from calib.experiments import paper_tables as pt


def test_table1_long_has_every_model_and_estimator_with_table3s_accuracy():
    long = pt.table1_long()
    assert len(long) == 25 * 5
    assert set(long["estimator"]) == {
        "Base",
        "Margin",
        "Average/min",
        "Consistency/min",
        "Entropy/min",
    }
    assert long.loc[long["estimator"] == "Consistency/min", "ace"].isna().all()
    row = long[(long["registry_name"] == "opt-6.7b") & (long["estimator"] == "Average/min")]
    assert row["ace"].item() == 0.024 and row["accuracy"].item() == pytest.approx(0.428)
    assert set(long["objective"]) == {"clm", "mlm"}
    qwen = long[long["registry_name"] == "qwen3.5-0.8b"]
    assert (qwen["size_m"] == 800).all()  # the registry corrects Table 3's "800B"


def test_text_values_by_key():
    assert pt.text_value("bear_mean_ace_base") == 0.213
    assert pt.text_value("largest_accuracy_drop") == -15
    with pytest.raises(KeyError, match="no text number 'nope'"):
        pt.text_value("nope")


def test_table1_wide_has_no_consistency_ace_and_the_best_estimates():
    ace, brier = pt.table1_wide("ace"), pt.table1_wide("brier")
    assert list(ace.columns) == ["Base", "Margin", "Average", "Entropy"]
    assert list(brier.columns) == ["Base", "Margin", "Average", "Consistency", "Entropy"]
    best = pt.best_estimates("ace").set_index("registry_name")
    assert best.at["llama-3.1-8b-instruct", "best"] == "Margin"
    assert best.at["llama-3.1-8b-instruct", "best_value"] == 0.040


def test_the_checks_find_where_the_tables_contradict_the_text():
    checks = pt.consistency_checks().set_index("check")
    assert checks["consistent"].dtype == bool
    inconsistent = set(checks.index[~checks["consistent"]])
    assert {
        "number of models",
        "size of Qwen3.5-0.8B",
        "Table 2 repeats Table 1's Brier scores",
        "number of CLM/MLM pairs",
        "C_Margin better than C_Base on FACTOR for every model",
        "mean FACTOR ACE over the CLMs",
        "C_Average best for every model",
        "Brier 0.2 separates CLMs from MLMs",
    } <= inconsistent
    assert checks.at["§5.2's two example points", "consistent"]
    assert checks.at["best ACE <= 0.1 above 1B parameters", "consistent"]
    factor = checks.at["C_Margin better than C_Base on FACTOR for every model", "the tables show"]
    for model in (
        "gemma-3-270m",
        "gemma-3-4b",
        "gemma-3-12b",
        "Qwen3.5-2B",
        "Qwen3.5-4B",
        "Qwen3.5-9B",
    ):
        assert model in factor
    assert "gpt2-xl" in checks.at["best ACE <= 0.1 above 1B parameters", "the tables show"]


def test_size_trends_find_entropy_rising_with_size():
    trends = pt.size_trends().set_index(["family", "estimator"])
    assert trends.at[("OPT", "Base"), "monotone"]
    assert trends.at[("Qwen3.5", "Entropy/min"), "rho"] > 0
    assert len(trends) == 36


def test_pair_differences_of_table2():
    d = pt.pair_brier_differences()
    assert len(d) == 6 and (d["margin"] > 0).all() and (d["average"] > 0).all()
    first = d.iloc[0]
    assert (first["clm"], first["mlm"]) == ("opt-125m", "roberta-base")
    assert first["margin"] == pytest.approx(0.291 - 0.186)
