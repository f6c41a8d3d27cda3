"""Causal vs masked (§5.3, Table 2): the pairing rule, the per-pair table and comparisons."""

from __future__ import annotations

import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import accuracy, base, brier, sentence_scores
from calib.data.bear import PARAPHRASES
from calib.experiments import clm_vs_mlm as cm
from calib.experiments.clm_vs_mlm import differences, pairing, tables
from calib.report import findings as fd

KINDS = {"c1": "clm", "c2": "clm", "m1": "mlm"}


def acc_frame(rows):
    return pd.DataFrame(rows, columns=["model", "objective", "scope", "n", "accuracy"])


def test_pairs_take_the_smallest_gap_first_and_use_each_model_once():
    acc = acc_frame(
        [
            ("a", "clm", "all", 50, 0.50),
            ("b", "clm", "all", 50, 0.30),
            ("c", "clm", "all", 50, 0.10),
            ("x", "mlm", "all", 50, 0.32),
            ("y", "mlm", "all", 50, 0.55),
        ]
    )
    pairs = pairing.pair_models(acc)
    assert list(pairs[["pair", "clm", "mlm"]].itertuples(index=False, name=None)) == [
        (1, "b", "x"),
        (2, "a", "y"),
    ]
    assert pairs["gap"].tolist() == pytest.approx([0.02, 0.05])
    assert len(pairing.pair_models(acc, max_gap=0.03)) == 1


def test_pairs_pick_the_domain_where_the_two_are_closest():
    acc = acc_frame(
        [
            ("a", "clm", "Arts", 20, 0.50),
            ("a", "clm", "Movies", 20, 0.40),
            ("x", "mlm", "Arts", 20, 0.20),
            ("x", "mlm", "Movies", 20, 0.41),
            ("a", "clm", "Sports", 3, 0.70),
            ("x", "mlm", "Sports", 3, 0.70),
        ]
    )
    pairs = pairing.pair_models(acc, min_instances=10)
    assert pairs[["clm", "mlm", "scope", "n"]].iloc[0].tolist() == ["a", "x", "Movies", 20]
    assert pairing.pair_models(acc, min_instances=1)["scope"].iloc[0] == "Sports"


def test_no_pair_without_both_objectives():
    acc = acc_frame([("a", "clm", "all", 20, 0.5), ("b", "clm", "all", 20, 0.4)])
    pairs = pairing.pair_models(acc)
    assert pairs.empty and "clm" in pairs.columns
    assert "compares no objectives" in fd.objective_sentence(pd.DataFrame())


@pytest.fixture(scope="module")
def sent():
    scores = random_score_table(n_instances=10, sizes=(5, 8, 13), models=tuple(KINDS))
    return sentence_scores(scores)


@pytest.fixture(scope="module")
def est(sent):
    return tables.clm_mlm_estimates(sent)


@pytest.fixture(scope="module")
def domains():
    return pd.DataFrame(
        {"relation": ["R0", "R1", "R1", "R2"], "domain": ["Arts", "Arts", "Movies", "Movies"]}
    )


def test_estimates_and_scopes(sent, est, domains):
    assert set(est["estimator"]) == {"Base", "Margin", "Average/min"}
    sc = pairing.scoped(est, domains, "domain")
    assert len(sc) == len(est) + (est["relation"] == "R1").sum()  # R1 is in two domains
    assert (pairing.scoped(est, domains, "probe")["scope"] == pairing.ALL).all()
    with pytest.raises(ValueError, match="within"):
        pairing.scoped(est, domains, "relation")
    acc = pairing.template_accuracy(sent, KINDS, domains, "domain")
    assert set(acc["scope"]) == {"Arts", "Movies"} and (acc["n"] == 20).all()
    with pytest.raises(ValueError, match="objective"):
        pairing.template_accuracy(sent, {"c1": "clm"}, domains)


def test_pairing_accuracy_is_the_mean_over_all_templates(sent, domains):
    # Table 2's caption: accuracy is the average over all templates (the five paraphrases)
    acc = pairing.template_accuracy(sent, KINDS, domains).set_index("model")
    assert set(acc["scope"]) == {pairing.ALL} and (acc["templates"] == 5).all()
    for model in KINDS:
        mine = sent[sent["model"] == model]
        per = [accuracy(base(mine, t)["correct"]) for t in PARAPHRASES]
        assert acc.loc[model, "accuracy"] == pytest.approx(sum(per) / 5)
        assert acc.loc[model, "n"] == 30
        plain = accuracy(base(mine)["correct"])
        assert acc.loc[model, "accuracy"] != pytest.approx(plain)  # not the plain template's


def test_the_paper_pairs_get_this_builds_values_only_where_both_models_ran(sent, est, domains):
    reported = pd.DataFrame(
        {
            "pair": [1, 1, 2, 2],
            "model": ["c1", "m1", "c2", "absent"],
            "size": ["1M"] * 4,
            "accuracy": [15.6, 16.0, 18.4, 18.1],
            "brier_margin": [0.186, 0.291, 0.179, 0.276],
            "brier_average": [0.130, 0.162, 0.110, 0.205],
        }
    )
    rows = tables.model_table(est, KINDS, n_boot=0)
    acc = pairing.template_accuracy(sent, KINDS, domains)
    out = tables.paper_pairs(reported, rows, acc)
    assert out["model"].tolist() == ["c1", "m1"]  # pair 2 lacks a model here
    mine = out.set_index("model")
    assert mine.loc["m1", "accuracy"] == pytest.approx(acc.set_index("model").loc["m1", "accuracy"])
    assert mine.loc["c1", "brier_margin"] == pytest.approx(
        rows.set_index("model").loc["c1", "brier_margin"]
    )
    assert tables.paper_pairs(reported.iloc[:0], rows, acc).empty
    with pytest.raises(ValueError, match="brier_average"):
        tables.paper_pairs(reported.drop(columns="brier_average"), rows, acc)


def test_the_pair_table_holds_the_brier_scores_of_the_pairs_instances(sent, est, domains):
    acc = pairing.template_accuracy(sent, KINDS, domains, "domain")
    pairs = pairing.pair_models(acc)
    assert len(pairs) == 1
    table = tables.pair_table(est, pairs, domains, "domain", n_boot=50, seed=0)
    p = pairs.iloc[0]
    assert table["model"].tolist() == [p["clm"], p["mlm"]]
    assert table["objective"].tolist() == ["clm", "mlm"]
    assert table["accuracy_templates"].tolist() == [p["clm_accuracy"], p["mlm_accuracy"]]
    rels = domains.loc[domains["domain"] == p["scope"], "relation"]
    for _, row in table.iterrows():
        part = est[(est["model"] == row["model"]) & est["relation"].isin(rels)]
        m = part[part["estimator"] == "Margin"]
        a = part[part["estimator"] == "Average/min"]
        assert row["n"] == len(m) == 20
        assert row["brier_margin"] == pytest.approx(brier(m["confidence"], m["correct"]))
        assert row["brier_average"] == pytest.approx(brier(a["confidence"], a["correct"]))
        assert row["brier_margin_low"] <= row["brier_margin"] <= row["brier_margin_high"]
    diffs = differences.pair_differences(est, pairs, domains, "domain", n_boot=50, seed=0)
    assert diffs["estimator"].tolist() == list(tables.ESTIMATORS)
    expected = table.iloc[0]["brier_margin"] - table.iloc[1]["brier_margin"]
    assert diffs.iloc[0]["difference"] == pytest.approx(expected)
    assert all("(causal)" in s for s in fd.pair_sentences(diffs))
    bars = differences.brier_bars(table)
    assert len(bars) == 4 and set(bars["estimator"]) == set(tables.ESTIMATORS)


def test_the_objective_sentence_counts_the_pairs():
    diffs = pd.DataFrame(
        {
            "estimator": ["Margin", "Margin", "Average/min"],
            "low": [-0.2, 0.01, -0.1],
            "high": [-0.1, 0.2, 0.1],
        }
    )
    text = fd.objective_sentence(diffs)
    assert "for Margin, the causal model has the lower Brier score in 1 of 2" in text
    assert "the higher in 1" in text and "cannot be told apart in 1" in text


def test_model_rows_without_pairs(sent, est, domains):
    kinds = {"c1": "clm", "c2": "clm", "gone": "clm"}
    acc = pairing.template_accuracy(sent, {**kinds, "m1": "mlm"}, domains, n_boot=20)
    rows = tables.model_table(est, kinds, n_boot=20, accuracy=acc)
    assert rows["model"].tolist() == ["c1", "c2"]
    assert set(cm.TABLE2_INTERVALS) <= set(rows.columns)
    mine = rows.set_index("model")
    whole = acc.set_index("model")
    assert mine.loc["c1", "accuracy_templates"] == whole.loc["c1", "accuracy"]
    assert (
        mine.loc["c1", "accuracy_templates_low"]
        <= mine.loc["c1", "accuracy_templates"]
        <= mine.loc["c1", "accuracy_templates_high"]
    )
    assert "accuracy_templates" not in tables.model_table(est, kinds, n_boot=0).columns


def test_the_pairing_note_states_the_settings():
    assert "at least 10 instances" in fd.pairing_note("domain", 10, None)
    text = fd.pairing_note("probe", 10, 0.05)
    assert "whole probe" in text and "above 0.05" in text
    assert text.startswith(pairing.PAIRING_RULE)


def test_relation_domains_from_bear():
    dom = pairing.relation_domains(["P37", "P19"])
    assert set(map(tuple, dom.values)) == {
        ("P37", "Political"),
        ("P37", "Geographic"),
        ("P19", "Biographical"),
    }
