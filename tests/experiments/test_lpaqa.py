"""The LPAQA chapter's experiments (calib.experiments.lpaqa) on
hand-made and synthetic tables, on a few real LAMA relations (data only) and, for the whole
run, on a tiny model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.data.bear import PARAPHRASES
from calib.experiments import lpaqa as lp


# ---------------------------------------------------------------------------------------------
# data


@pytest.fixture(scope="module")
def small_lama():
    return lp.load_sample(["P30", "P1303"], None, 3, 4, seed=0)


def test_load_sample_rejects_named_relations_without_training_pairs():
    with pytest.raises(ValueError, match=r"P264.*no training pair"):
        lp.load_sample(["P264"], answer_space="test")


# ---------------------------------------------------------------------------------------------
# queries and their cost


def test_queries_cover_ours_on_both_splits_and_references_on_test_only(small_lama):
    lama = small_lama.sample
    prompts = pd.DataFrame({
        "relation": ["P30", "P30", "P30", "P1303"],
        "template": ["manual", "mined-00", "lpaqa-mine-00", "manual"],
        "text": ["[X] is located in [Y] .", "[X] lies in [Y] .", "[X] is in [Y] .",
                 "[X] plays [Y] ."],
        "source": ["manual", "mined", "lpaqa-mine", "manual"]})
    queries = lp.lama_queries(lama, prompts)
    train = [q for q in queries if q.dataset == lp.TRAIN]
    test = [q for q in queries if q.dataset == lp.TEST]
    assert {q.template for q in train} == {"manual", "mined-00"}
    assert {q.template for q in test} == {"manual", "mined-00", "lpaqa-mine-00"}
    assert len(train) == 2 * 3 + 1 * 3 and len(test) == 3 * 4 + 1 * 4
    plan = lp.plan_table(lama, prompts, None, 3)
    assert plan["statements"].sum() == lp.statements(queries)


# ---------------------------------------------------------------------------------------------
# selection and ensembles on synthetic sentence scores


def synthetic(rates: dict, n: int, seed: int, dataset: str, relations=("R1", "R2"),
              options: int = 4, model: str = "m") -> pd.DataFrame:
    """Sentence scores: each prompt ranks the correct option first with probability
    rates[prompt]; objects are skewed towards option 0."""
    rng = np.random.default_rng(seed)
    rows = []
    for rel in relations:
        for i in range(n):
            gold = 0 if rng.random() < 0.4 else int(rng.integers(options))
            for prompt, rate in rates.items():
                wrong = (gold + 1 + int(rng.integers(options - 1))) % options
                top = gold if rng.random() < rate else wrong
                values = rng.normal(-3.0, 0.3, options)
                values[top] += 2.0
                rows += [(model, dataset, rel, f"{rel}-{i}", prompt, o, gold, float(values[o]))
                         for o in range(options)]
    return pd.DataFrame(rows, columns=["model", "dataset", "relation", "instance", "template",
                                       "option", "answer_idx", "score"])


RATES = {"manual": 0.3, "mined-00": 0.9, "mined-01": 0.2, "bt-00": 0.25}
PROMPTS = pd.DataFrame({"relation": [r for r in ("R1", "R2") for _ in RATES],
                        "template": list(RATES) * 2,
                        "source": ["manual", "mined", "mined", "paraphrase"] * 2})


@pytest.fixture(scope="module")
def selection():
    train = synthetic(RATES, 60, 0, lp.TRAIN)
    test = synthetic(RATES, 60, 1, lp.TEST)
    facts = test.drop_duplicates("instance")[["relation", "instance", "answer_idx"]]
    return test, lp.select_and_ensemble(train, test, PROMPTS, facts, ks=(2,), steps=150)


def test_selection_finds_the_good_prompt_and_ensembles_beat_the_manual_one(selection):
    test, sel = selection
    ranking = sel.rankings[sel.rankings["prompt_set"] == "All"]
    assert set(ranking.loc[ranking["rank"] == 0, "template"]) == {"mined-00"}
    weights = sel.weights[sel.weights["prompt_set"] == "All"]
    assert weights.groupby("relation")["weight"].sum().to_numpy() == pytest.approx([1.0, 1.0])
    best = weights.loc[weights.groupby("relation")["weight"].idxmax(), "template"]
    assert set(best) == {"mined-00"}
    acc = lp.accuracy_table(sel.hits).set_index("method")
    assert list(acc.index) == ["majority", "manual", "top-1", "top-2", "optimized", "oracle"]
    assert acc.loc["top-1", "micro"] > acc.loc["manual", "micro"] + 0.3
    assert acc.loc["oracle", "micro"] >= acc[["micro"]].drop(index="oracle").max().item()
    # Man+Para has no mined prompt: its top-1 is far below All's
    sets = lp.set_table(lp.accuracy_table(sel.hits, None)).set_index("prompt_set")
    assert sets.loc["Man+Para", "top-1"] < sets.loc["All", "top-1"] - 0.3
    assert set(sets.index) == set(lp.PROMPT_SETS)


def test_majority_and_macro_accuracy(selection):
    test, sel = selection
    acc = lp.accuracy_table(sel.hits).set_index("method")
    maj = sel.hits[sel.hits["method"] == "majority"]
    assert (maj.groupby("relation")["hit"].mean().mean()
            == pytest.approx(acc.loc["majority", "micro"]))
    # the majority baseline is right on one object only: its macro accuracy is 1 / n_objects
    n_obj = maj.groupby("relation")["answer_idx"].nunique()
    assert acc.loc["majority", "macro"] == pytest.approx((1 / n_obj).mean())


def test_wide_table_has_one_row_per_method_and_micro_macro_per_model(selection):
    test, sel = selection
    wide = lp.wide_accuracy(lp.accuracy_table(sel.hits))
    assert list(wide.columns) == ["method", "m micro", "m macro"]
    assert list(wide["method"]) == ["majority", "manual", "top-1", "top-2", "optimized", "oracle"]


def test_paired_accuracy_difference(selection):
    _, sel = selection
    diff = lp.paired_accuracy(sel.hits, "top-1", "manual", n_boot=200).iloc[0]
    assert diff["difference"] > 0.3 and diff["low"] > 0
    with pytest.raises(ValueError, match="no facts scored by both"):
        lp.paired_accuracy(sel.hits, "top-9", "manual")


def test_calibration_rows_and_consistency_estimators_over_ranked_prompts(selection):
    test, sel = selection
    cal = lp.calibration(test, sel, k=3, n_boot=0).set_index("method")
    assert {"manual", "top-1", "top-2", "optimized", "Average/min (3)", "Consistency/min (3)",
            "Entropy/min (3)"} == set(cal.index)
    assert cal["ace"].between(0, 1).all() and cal["brier"].between(0, 1).all()
    # Consistency over 3 prompts is a multiple of 1/3
    ranking = sel.rankings[sel.rankings["prompt_set"] == "All"]
    cons = lp.consistency_estimates(test, ranking, 3)
    c = cons[cons["method"] == "Consistency/min (3)"]["confidence"] * 3
    assert np.allclose(c, c.round())
    renamed = lp.ranked_templates(test, ranking, 2)
    assert set(renamed["template"]) == {"rank-0", "rank-1"}
    assert len(renamed) == 2 * len(test) // len(RATES)


def test_transfer_results_compare_against_bears_plain_template(selection):
    _, sel = selection
    ranking = sel.rankings[sel.rankings["prompt_set"] == "All"]
    rates = {**{t: 0.5 for t in PARAPHRASES}, **{f"lama-{t}": r for t, r in RATES.items()}}
    sent = synthetic(rates, 40, 3, lp.BEAR)
    out = lp.transfer_results(sent, ranking, 2, n_boot=0).set_index("method")
    assert out.loc["BEAR paraphrase-0", ["d_accuracy", "d_ace", "d_brier"]].tolist() == [0, 0, 0]
    assert {"BEAR mean", "LAMA manual", "LAMA top-1", "LAMA top-2", "BEAR Average/min",
            "LAMA Consistency/min (2)"} <= set(out.index)
    assert out.loc["LAMA top-1", "accuracy"] > out.loc["LAMA manual", "accuracy"]


def test_transfer_queries_use_bear_templates_and_the_models_best_lama_prompts():
    from calib.data.bear import load_bear

    bear = lp.transfer_sample(["P30"], 2, 0)
    prompts = pd.DataFrame({"relation": "P30", "template": ["manual", "mined-00", "bt-00"],
                            "text": ["[X] is located in [Y] .", "[X] lies in [Y] .",
                                     "[X] sits in [Y] ."],
                            "source": ["manual", "mined", "paraphrase"]})
    ranking = pd.DataFrame({"model": "m", "relation": "P30", "dataset": lp.TRAIN,
                            "template": ["bt-00", "manual", "mined-00"], "rank": [0, 1, 2]})
    queries = lp.transfer_queries(bear, prompts, ranking, "m", 2)
    names = {q.template for q in queries}
    assert names == {*PARAPHRASES, "lama-manual", "lama-bt-00"}
    n_opts = load_bear(relations=["P30"]).relations["P30"].n_options
    assert lp.statements(queries) == 2 * len(names) * n_opts
    assert {q.dataset for q in queries} == {"bear"}


def test_transfer_results_with_one_transferred_prompt(selection):
    _, sel = selection
    ranking = sel.rankings[sel.rankings["prompt_set"] == "All"]
    rates = {**{t: 0.5 for t in PARAPHRASES}, **{f"lama-{t}": r for t, r in RATES.items()}}
    out = lp.transfer_results(synthetic(rates, 10, 4, lp.BEAR), ranking, 1, n_boot=0)
    assert out["method"].is_unique and "LAMA top-1" in set(out["method"])
    assert not out["method"].str.startswith("LAMA Average").any()


def test_score_reduces_cached_scores_and_reports_the_cost(small_lama):
    lama = small_lama.sample.select(["P30"])
    prompts = pd.DataFrame({"relation": "P30", "template": ["manual"],
                            "text": ["[X] is located in [Y] ."], "source": ["manual"]})
    queries = lp.lama_queries(lama, prompts)
    sent, cost = lp.score(["tiny-gpt2"], queries, "LAMA", progress=False)
    assert len(sent) == lp.statements(queries) == cost["statements"].item()
    assert set(sent["dataset"]) == {lp.TRAIN, lp.TEST} and sent["score"].lt(0).all()
    again, cost2 = lp.score(["tiny-gpt2"], queries, "LAMA", progress=False)
    pd.testing.assert_frame_equal(again, sent)
    table = lp.cost_table(cost, cost2.assign(part="again", seconds=0.01)).set_index("part")
    assert table.loc["total", "statements"] == 2 * len(sent)
    assert np.isnan(table.loc["again", "statements/s"])


def test_run_lpaqa_returns_every_part_of_the_chapter():
    """The chapter's one entry point on a tiny model: the parts the page shows, and the
    ledger's variant without the steps beyond the paper."""
    pytest.importorskip("spacy")
    params = dict(lama_relations=["P30"], train_per_relation=2, test_per_relation=3, top_t=1,
                  max_sentences=30, pivots=[], ensemble_k=[2], adam_steps=5,
                  reference_per_set=1, bear_per_relation=1, bear_top_k=1, n_bootstrap=20)
    run = lp.run_lpaqa(["tiny-gpt2"], **params)
    assert set(run.sentences["dataset"]) == {lp.TRAIN, lp.TEST}
    assert len(run.test) + len(run.train) == len(run.sentences)
    assert set(run.prompts["source"]) >= {"manual", "lpaqa-mine"}
    assert set(run.paired["a"]) == set(lp.COMPARED) and (run.paired["b"] == "manual").all()
    assert run.calibration["method"].str.contains("manual").any()
    assert run.bear_relations == ["P30"] and run.transfer is not None
    assert set(run.cost["part"]) == {"LAMA", "BEAR", "total"}
    assert (run.plan["part"] == "BEAR (at most)").any()
    assert list(run.overlap["source"]) == ["mined", "paraphrase"]
    # the ledger's run: the same selection, nothing beyond the paper
    bare = lp.run_lpaqa(["tiny-gpt2"], **params, beyond_paper=False)
    pd.testing.assert_frame_equal(bare.selection.hits, run.selection.hits)
    assert bare.calibration is None and bare.transfer is None and bare.bear is None
    assert set(bare.cost["part"]) == {"LAMA", "total"}
