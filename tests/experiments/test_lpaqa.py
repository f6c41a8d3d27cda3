"""The LPAQA chapter's steps (calib.experiments.lpaqa) on hand-made and synthetic tables, on a
few real LAMA relations (data only) and, for the whole run, on a tiny model: the parameters,
selection and ensembles per prompt set, the accuracies with their intervals, the comparisons
the claims judge, and the steps beyond the paper."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.data.bear import PARAPHRASES
from calib.experiments import lpaqa as lp
from calib.experiments.lpaqa import accuracy, beyond_paper, consistency, sample, scoring
from calib.experiments.lpaqa import selection as lpaqa_selection
from calib.experiments.params import ParameterError
from calib.prompts.accuracy import mean_accuracy

# ---------------------------------------------------------------------------------------------
# parameters


def test_params_are_the_only_defaults_and_an_unknown_key_names_the_nearest():
    p = lp.Params()
    assert p.pivots == ("es", "ca", "gl", "eo") and p.paraphrase_rounds == 2
    assert p.lama_relations == ("P30", "P1303", "P140", "P449") and p.beyond_paper
    with pytest.raises(
        ParameterError,
        match="chapter 'lpaqa' has no parameter 'pivot' "
        r"\(did you mean 'pivots'\?\)",
    ):
        lp.Params.from_mapping({"pivot": ["es"]})
    with pytest.raises(ParameterError, match="'top_t' expects int"):
        lp.Params(top_t="4")
    assert lp.Params.from_mapping({"ensemble_k": [2, 4]}).ensemble_k == (2, 4)


# ---------------------------------------------------------------------------------------------
# data and queries


@pytest.fixture(scope="module")
def small_lama():
    return sample.load_sample(["P30", "P1303"], None, 3, 4, seed=0)


def test_load_sample_rejects_named_relations_without_training_pairs():
    with pytest.raises(ValueError, match=r"P264.*no training pair"):
        sample.load_sample(["P264"], answer_space="test")


def test_relations_without_prompts_of_one_mining_method_are_left_out_or_named(small_lama):
    mined = pd.DataFrame(
        {"relation": ["P30", "P30", "P1303"], "n_middle": [1, 0, 2], "n_dependency": [0, 3, 0]}
    )
    assert sample.without_unmined(small_lama, mined, named=False).sample.relations.keys() == {"P30"}
    assert (
        "P1303 (no mined prompt of one method)"
        in sample.without_unmined(small_lama, mined, named=False).dropped
    )
    with pytest.raises(ValueError, match=r"\['P1303'\].*no middle-word or no dependency"):
        sample.without_unmined(small_lama, mined, named=True)


def test_queries_cover_ours_on_both_splits_and_references_on_test_only(small_lama):
    lama = small_lama.sample
    prompts = pd.DataFrame(
        {
            "relation": ["P30", "P30", "P30", "P30", "P1303"],
            "template": ["manual", "mined-00", "mp-00", "lpaqa-mine-00", "manual"],
            "text": [
                "[X] is located in [Y] .",
                "[X] lies in [Y] .",
                "[X] lie in [Y] .",
                "[X] is in [Y] .",
                "[X] plays [Y] .",
            ],
            "source": ["manual", "mined", "mined-paraphrase", "lpaqa-mine", "manual"],
        }
    )
    queries = scoring.lama_queries(lama, prompts)
    train = [q for q in queries if q.dataset == scoring.TRAIN]
    test = [q for q in queries if q.dataset == scoring.TEST]
    assert {q.template for q in train} == {"manual", "mined-00", "mp-00"}
    assert {q.template for q in test} == {"manual", "mined-00", "mp-00", "lpaqa-mine-00"}
    assert len(train) == 3 * 3 + 1 * 3 and len(test) == 4 * 4 + 1 * 4
    plan = scoring.plan_table(lama, prompts, 2, None, 3)
    assert plan.loc[plan["part"] == "LAMA", "statements"].sum() == scoring.statements(queries)
    n_opts = lama.relations["P30"].n_options
    assert (
        plan.loc[
            (plan["part"] == "LAMA Mine+Para (at most)") & (plan["relation"] == "P30"), "statements"
        ].item()
        == 2 * (3 + 4) * n_opts
    )


# ---------------------------------------------------------------------------------------------
# selection and ensembles on synthetic sentence scores


def synthetic(
    rates: dict,
    n: int,
    seed: int,
    dataset: str,
    relations=("R1", "R2"),
    options: int = 4,
    models=("m",),
) -> pd.DataFrame:
    """Sentence scores: each prompt ranks the correct option first with probability
    rates[prompt]; objects (the same for every model) are skewed towards option 0."""
    rng = np.random.default_rng(seed)
    golds = {
        (rel, i): 0 if rng.random() < 0.4 else int(rng.integers(options))
        for rel in relations
        for i in range(n)
    }
    rows = []
    for model in models:
        for rel in relations:
            for i in range(n):
                gold = golds[(rel, i)]
                for prompt, rate in rates.items():
                    wrong = (gold + 1 + int(rng.integers(options - 1))) % options
                    top = gold if rng.random() < rate else wrong
                    values = rng.normal(-3.0, 0.3, options)
                    values[top] += 2.0
                    rows += [
                        (model, dataset, rel, f"{rel}-{i}", prompt, o, gold, float(values[o]))
                        for o in range(options)
                    ]
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "dataset",
            "relation",
            "instance",
            "template",
            "option",
            "answer_idx",
            "score",
        ],
    )


RATES = {"manual": 0.3, "mined-00": 0.9, "mined-01": 0.2, "bt-00": 0.25, "mp-00": 0.6}
SETS = {
    "Mine": ["mined-00", "mined-01"],
    "Mine+Man": ["manual", "mined-00", "mined-01"],
    "Mine+Para": ["mined-00", "mp-00"],
    "Man+Para": ["manual", "bt-00"],
    "Mid": ["mined-01"],
    "Dep": ["mined-00"],
    "Mid+Dep": ["mined-00", "mined-01"],
}
MODELS = ("m", "n")


def members(models=MODELS) -> pd.DataFrame:
    rows = [
        (m, r, s, t, i)
        for m in models
        for r in ("R1", "R2")
        for s, ts in SETS.items()
        for i, t in enumerate(ts)
    ]
    return pd.DataFrame(rows, columns=["model", "relation", "prompt_set", "template", "position"])


@pytest.fixture(scope="module")
def selection():
    train = synthetic(RATES, 60, 0, scoring.TRAIN, models=MODELS)
    test = synthetic(RATES, 60, 1, scoring.TEST, models=MODELS)
    facts = test[test["model"] == "m"].drop_duplicates("instance")[
        ["relation", "instance", "answer_idx"]
    ]
    return test, lpaqa_selection.select_and_ensemble(
        train, test, members(), facts, ks=(2,), steps=150
    )


@pytest.fixture(scope="module")
def reps(selection):
    return accuracy.replicates(selection[1].hits, 200, 0)


def test_selection_per_prompt_set_finds_the_good_prompt(selection):
    _test, sel = selection
    ranking = sel.rankings[sel.rankings["prompt_set"] == "Mine+Man"]
    assert set(ranking.loc[ranking["rank"] == 0, "template"]) == {"mined-00"}
    weights = sel.weights[(sel.weights["prompt_set"] == "Mine+Man") & (sel.weights["model"] == "m")]
    assert weights.groupby("relation")["weight"].sum().to_numpy() == pytest.approx([1.0, 1.0])
    best = weights.loc[weights.groupby("relation")["weight"].idxmax(), "template"]
    assert set(best) == {"mined-00"}
    # every set covers every fact of every model; Man+Para has no mined prompt
    per = sel.hits.groupby(["model", "prompt_set", "method"]).size()
    assert (per == 120).all()
    acc = mean_accuracy(sel.hits, by=["model", "prompt_set", "method"]).set_index(
        ["model", "prompt_set", "method"]
    )["micro"]
    assert acc[("m", "Man+Para", "top-1")] < acc[("m", "Mine", "top-1")] - 0.3
    assert (
        acc[("m", "Mine+Man", "oracle")]
        >= acc.loc["m"]
        .drop(index=[i for i in acc.loc["m"].index if i[1] == "oracle"])
        .loc["Mine+Man"]
        .max()
    )


def test_cross_model_ensembles_use_the_other_models_weights(selection):
    _test, sel = selection
    methods = set(sel.hits.loc[sel.hits["model"] == "m", "method"])
    assert "optimized (weights of n)" in methods and "optimized (weights of m)" not in methods
    cross = sel.hits[(sel.hits["method"] == "optimized (weights of n)")]
    assert set(cross["prompt_set"]) == set(lpaqa_selection.CROSS_MODEL_SETS)
    # with its own weights the ensemble is the model's optimised one: same facts, same length
    own = sel.hits[
        (sel.hits["model"] == "m")
        & (sel.hits["method"] == "optimized")
        & (sel.hits["prompt_set"] == "Mine")
    ]
    assert len(cross[cross["prompt_set"] == "Mine"]) == len(own)
    # the linear top-K is there and differs from the log-linear one somewhere
    lin = sel.ensembles[sel.ensembles["method"] == "top-2"]
    assert len(lin) and "top-2 (linear)" in methods


def test_accuracy_table_is_mean_accuracy_with_intervals(selection, reps):
    _, sel = selection
    acc = accuracy.accuracy_table(reps)
    ref = mean_accuracy(sel.hits, by=["model", "prompt_set", "method"])
    merged = acc.merge(ref, on=["model", "prompt_set", "method"], suffixes=("", "_ref"))
    assert len(merged) == len(acc) == len(ref)
    assert np.allclose(merged["micro"], merged["micro_ref"])
    assert np.allclose(merged["macro"], merged["macro_ref"])
    assert (acc["micro_low"] <= acc["micro"]).all() and (acc["micro"] <= acc["micro_high"]).all()
    assert (acc["macro_low"] <= acc["macro"]).all() and (acc["macro"] <= acc["macro_high"]).all()
    assert list(acc["method"][:2]) == ["majority", "manual"]
    m = acc[acc["method"] == "majority"].iloc[0]
    assert accuracy.majority_note(acc, "macro") == (
        f"The majority baseline (no model; macro): counted on the training pairs "
        f"{m['macro']:.3f} [{m['macro_low']:.3f}, {m['macro_high']:.3f}]."
    )
    wide = accuracy.set_table(acc, "micro")
    assert list(wide.columns) == ["model", "prompt_set", "top-1", "top-2", "optimized", "oracle"]
    assert list(wide["prompt_set"][:4]) == list(lp.PAPER_SETS)


def test_best_k_is_each_k_against_the_best_other_k_of_its_set(reps):
    acc = accuracy.accuracy_table(reps).set_index(["model", "prompt_set", "method"])
    comp = accuracy.comparison_table(reps, (2,))
    best = comp[comp["kind"] == "best_k"]
    assert len(best) and set(best["a"]) == {"top-1", "top-2"}
    for r in best.itertuples():
        other = "top-2" if r.a == "top-1" else "top-1"
        expected = (
            acc.loc[(r.model, r.prompt_set, r.a), "micro"]
            - acc.loc[(r.model, r.prompt_set, other), "micro"]
        )
        assert r.difference == pytest.approx(expected)
        assert r.low <= r.difference <= r.high


def test_comparisons_are_paired_differences_of_the_accuracy_table(reps):
    acc = accuracy.accuracy_table(reps).set_index(["model", "prompt_set", "method"])
    comp = accuracy.comparison_table(reps, (2,))
    assert set(comp["kind"]) <= set(accuracy.COMPARISONS)
    assert set(comp["kind"]) == set(accuracy.COMPARISONS)
    row = comp[(comp["kind"] == "abstract_gain") & (comp["model"] == "m")].iloc[0]
    assert row["difference"] == pytest.approx(
        acc.loc[("m", "Mine+Man", "optimized"), "micro"] - acc.loc[("m", "-", "manual"), "micro"]
    )
    assert row["low"] <= row["difference"] <= row["high"]
    best = comp[(comp["kind"] == "best_top1_vs_manual") & (comp["model"] == "m")].iloc[0]
    tops = {s: acc.loc[("m", s, "top-1"), "micro"] for s in lp.PAPER_SETS}
    assert best["best_set"] == max(tops, key=tops.get)
    assert best["difference"] == pytest.approx(
        max(tops.values()) - acc.loc[("m", "-", "manual"), "micro"]
    )
    smaller = comp[(comp["kind"] == "macro_gain_smaller") & (comp["model"] == "n")].iloc[0]
    gain = {
        a: acc.loc[("n", "Mine", "optimized"), a] - acc.loc[("n", "-", "manual"), a]
        for a in ("micro", "macro")
    }
    assert smaller["difference"] == pytest.approx(gain["macro"] - gain["micro"])
    oracle = comp[(comp["kind"] == "oracle_bound")]
    assert (oracle["difference"] >= 0).all()  # per fact the oracle is right where top-1 is
    ens = comp[comp["kind"] == "ensemble_vs_top1"]
    assert set(ens["averaging"]) == {"micro", "macro"} and set(ens["a"]) == {"top-2", "optimized"}
    cross = comp[comp["kind"] == "cross_model"]
    assert set(zip(cross["model"], cross["weights_of"])) == {("m", "n"), ("n", "m")}
    assert len(comp[comp["kind"] == "mid_dep_vs_mid"]) == 2 * 4  # top-1, top-2, opt., oracle
    # the majority baseline beside every gain over the manual prompt, micro and macro
    vs = comp[(comp["kind"] == "vs_majority") & (comp["model"] == "m")]
    assert set(vs["a"]) == {"manual", "best top-1", "optimized of Mine+Man", "optimized of Mine"}
    assert set(vs["averaging"]) == {"micro", "macro"} and set(vs["b"]) == {"majority"}
    row = vs[(vs["a"] == "optimized of Mine+Man") & (vs["averaging"] == "macro")].iloc[0]
    assert row["difference"] == pytest.approx(
        acc.loc[("m", "Mine+Man", "optimized"), "macro"] - acc.loc[("m", "-", "majority"), "macro"]
    )
    assert row["low"] <= row["difference"] <= row["high"]
    row = vs[(vs["a"] == "best top-1") & (vs["averaging"] == "micro")].iloc[0]
    assert row["difference"] == pytest.approx(
        max(tops.values()) - acc.loc[("m", "-", "majority"), "micro"]
    )


def test_comparisons_are_seeded(selection):
    _, sel = selection
    a = accuracy.comparison_table(accuracy.replicates(sel.hits, 50, 3), (2,))
    b = accuracy.comparison_table(accuracy.replicates(sel.hits, 50, 3), (2,))
    pd.testing.assert_frame_equal(a, b)


def test_divergence_correlates_distance_with_disagreement(selection):
    test, _sel = selection
    prompts = pd.DataFrame(
        {
            "relation": [r for r in ("R1", "R2") for _ in RATES],
            "template": list(RATES) * 2,
            "text": [
                "[X] is in [Y] .",
                "[X] lies in [Y] .",
                "[Y] , including the far [X] .",
                "[X] is in the [Y] .",
                "[X] lie in [Y] .",
            ]
            * 2,
        }
    )
    corr, bins = consistency.divergence(test, prompts, members(), n_boot=50, seed=0)
    assert list(corr["model"]) == list(MODELS)
    assert (corr["n_pairs"] == 2 * 10).all() and (corr["n"] == 120).all()
    assert (corr["r_low"] <= corr["r"]).all() and (corr["r"] <= corr["r_high"]).all()
    assert set(bins["bin"]) <= {0.0, 0.2, 0.4, 0.6, 0.8}
    assert bins.groupby("model")["pairs"].sum().tolist() == [20, 20]


def test_calibration_rows_have_the_noise_floor_beside_ace(selection):
    test, sel = selection
    cal = beyond_paper.calibration(test, sel, sets=("Mine+Man", "Man+Para"), k=3, n_boot=20)
    for col in (
        "ace_floor",
        "ace_within_floor",
        "ace_debiased",
        "ace_debiased_low",
        "ace_debiased_high",
    ):
        assert col in cal.columns
    mm = cal[(cal["model"] == "m") & (cal["prompt_set"] == "Mine+Man")].set_index("method")
    assert {
        "top-1",
        "top-2",
        "optimized",
        "Average/min (3)",
        "Consistency/min (3)",
        "Entropy/min (3)",
    } == set(mm.index)
    assert set(cal.loc[cal["prompt_set"] == "-", "method"]) == {"manual"}
    assert cal["ace"].between(0, 1).all() and cal["brier"].between(0, 1).all()
    assert np.allclose(cal["ace_debiased"], cal["ace"] - cal["ace_floor"])
    assert "ACEs" in beyond_paper.floor_sentence(cal, "rows")
    ranking = sel.rankings[sel.rankings["prompt_set"] == "Mine+Man"]
    cons = beyond_paper.consistency_estimates(test, ranking, 3)
    c = cons[cons["method"] == "Consistency/min (3)"]["confidence"] * 3
    assert np.allclose(c, c.round())


def test_transfer_results_compare_against_bears_plain_template(selection):
    _, sel = selection
    ranking = sel.rankings[
        (sel.rankings["prompt_set"] == "Mine+Man") & (sel.rankings["model"] == "m")
    ]
    rates = {**dict.fromkeys(PARAPHRASES, 0.5), **{f"lama-{t}": r for t, r in RATES.items()}}
    sent = synthetic(rates, 40, 3, scoring.BEAR)
    out = beyond_paper.transfer_results(sent, ranking, 2, n_boot=0).set_index("method")
    assert out.loc["BEAR paraphrase-0", ["d_accuracy", "d_ace", "d_brier"]].tolist() == [0, 0, 0]
    assert {
        "BEAR mean",
        "LAMA manual",
        "LAMA top-1",
        "LAMA top-2",
        "BEAR Average/min",
        "LAMA Consistency/min (2)",
    } <= set(out.index)
    assert "ace_floor" in out.columns
    assert out.loc["LAMA top-1", "accuracy"] > out.loc["LAMA manual", "accuracy"]


def test_transfer_queries_use_bear_templates_and_the_models_best_lama_prompts():
    from calib.data.bear import load_bear

    bear = beyond_paper.transfer_sample(["P30"], 2, 0)
    prompts = pd.DataFrame(
        {
            "relation": "P30",
            "template": ["manual", "mined-00", "bt-00"],
            "text": ["[X] is located in [Y] .", "[X] lies in [Y] .", "[X] sits in [Y] ."],
            "source": ["manual", "mined", "paraphrase"],
        }
    )
    ranking = pd.DataFrame(
        {
            "model": "m",
            "relation": "P30",
            "dataset": scoring.TRAIN,
            "template": ["bt-00", "manual", "mined-00"],
            "rank": [0, 1, 2],
        }
    )
    queries = beyond_paper.transfer_queries(bear, prompts, ranking, "m", 2)
    names = {q.template for q in queries}
    assert names == {*PARAPHRASES, "lama-manual", "lama-bt-00"}
    n_opts = load_bear(relations=["P30"]).relations["P30"].n_options
    assert scoring.statements(queries) == 2 * len(names) * n_opts
    assert {q.dataset for q in queries} == {"bear"}


def test_score_reduces_cached_scores_and_reports_the_cost(small_lama):
    lama = small_lama.sample.select(["P30"])
    prompts = pd.DataFrame(
        {
            "relation": "P30",
            "template": ["manual"],
            "text": ["[X] is located in [Y] ."],
            "source": ["manual"],
        }
    )
    queries = scoring.lama_queries(lama, prompts)
    sent, cost = scoring.score(["tiny-gpt2"], queries, "LAMA", progress=False)
    assert len(sent) == scoring.statements(queries) == cost["statements"].item()
    assert set(sent["dataset"]) == {scoring.TRAIN, scoring.TEST} and sent["score"].lt(0).all()
    again, cost2 = scoring.score(["tiny-gpt2"], queries, "LAMA", progress=False)
    pd.testing.assert_frame_equal(again, sent)
    table = scoring.cost_table(cost, cost2.assign(part="again", seconds=0.01)).set_index("part")
    assert table.loc["total", "statements"] == 2 * len(sent)
    assert np.isnan(table.loc["again", "statements/s"])
    empty, none = scoring.score(["tiny-gpt2"], {"tiny-gpt2": []}, "LAMA Mine+Para", progress=False)
    assert empty.empty and none["statements"].item() == 0


@pytest.mark.slow
def test_run_returns_every_part_of_the_chapter_and_records_it(tmp_path):
    """The chapter's one entry point on a tiny model: the parts the page shows, recorded and
    read back as the typed result; every claim judged on it."""
    pytest.importorskip("spacy")
    from calib.experiments import ledger, records

    params = lp.Params(
        models=("tiny-gpt2",),
        lama_relations=("P30",),
        train_per_relation=2,
        test_per_relation=3,
        top_t=1,
        max_sentences=60,
        pivots=(),
        ensemble_k=(2,),
        adam_steps=5,
        reference_per_set=1,
        bear_per_relation=1,
        bear_top_k=1,
        n_bootstrap=20,
    )
    run = lp.run(params)
    assert set(run.prompts["source"]) >= {"manual", "mined", "lpaqa-mine"}
    assert set(run.members["prompt_set"]) == {*lp.PAPER_SETS, *lp.ABLATION_SETS}
    assert run.accuracy["n"].eq(3).all() and run.accuracy["n_relations"].eq(1).all()
    assert run.calibration is not None and "ace_floor" in run.calibration.columns
    assert run.bear_relations == ["P30"] and run.transfer is not None
    assert set(run.cost["part"]) == {"LAMA", "LAMA Mine+Para", "BEAR", "total"}
    assert not (run.comparisons["kind"] == "cross_model").any()  # one model
    path = records.write_record(run, tmp_path)
    back = records.load_record_folder(path)
    assert back.params == params
    pd.testing.assert_frame_equal(back.accuracy, run.accuracy)
    table = ledger.build_ledger({"lpaqa": back}, lp.CLAIMS).set_index("key")
    assert table.at["cross_model_drop", "verdict"] == "not testable"
    assert "two or more models" in table.at["cross_model_drop", "reason"]
    assert table.at["uhn_opti_beats_manual", "verdict"] == "not testable"
    assert (table["verdict"] != "not run in this build").all()
    # the run without the steps beyond the paper: the same selection, nothing beyond it
    bare = lp.run(lp.Params(**{**params.to_dict(), "beyond_paper": False}))
    pd.testing.assert_frame_equal(bare.hits, run.hits)
    assert bare.calibration is None and bare.transfer is None and bare.bear_relations == []
