"""The FACTOR chapter (Appendix F, Table 4): queries, estimates, Table 4 with noise floors,
Margin against Base, the comparisons with BEAR, every claim on hand-made evidence and on the
paper's printed numbers (checked by hand); a tiny run end to end."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import ace, brier
from calib.confidence.reductions import sentence_scores
from calib.data.bear import PLAIN
from calib.data.factor import load_factor
from calib.data.reported import reported
from calib.experiments import factor as fx
from calib.experiments.factor import bear as factor_bear
from calib.experiments.factor import claims, comparisons, scoring, tables
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, UNTESTABLE
from calib.report import findings as fd
from calib.scoring.schema import SCORE_COLUMNS


@pytest.fixture(scope="module")
def sample():
    return load_factor().sample(4, seed=3)


def test_one_query_per_item_with_the_true_completion_at_correct(sample, tiny_models):
    tok = tiny_models["tiny-gpt2"].tokenizer
    queries = scoring.factor_queries(sample, tok, budget=200)
    assert len(queries) == len(sample.items)
    for q, (_, row) in zip(queries, sample.items.iterrows()):
        assert q.dataset == f"factor-{row['subset']}" and q.relation == row["subset"]
        assert q.instance == row["item"] and q.template == scoring.TEMPLATE
        assert sorted(q.answers) == sorted(row["completions"])
        assert q.answers[q.answer_idx] == row["completions"][0]
        prefixes = {s.text[: s.spans[0][1]] for s in q.statements}
        assert len(prefixes) == 1  # one shared prefix
        prefix = prefixes.pop()
        assert row["prefix"].endswith(prefix)
        for s, a in zip(q.statements, q.answers):
            assert s.text == prefix + a and s.spans == (("object", len(prefix), len(s.text)),)
            assert len(tok(s.text)["input_ids"]) + 1 <= 200  # with the start token


def _tokens(tok, text):
    return len(tok(text, add_special_tokens=False)["input_ids"])


def test_fit_prefix_keeps_the_last_tokens_that_fit(tiny_models):
    # FACTOR cuts from the left (truncation_side="left"): the prefix keeps its last tokens,
    # as many as let the longest statement fit the budget -- not a number of words
    tok = tiny_models["tiny-llama"].tokenizer
    prefix = "The capital of France is Paris. Berlin is the capital of Germany. Rome is in "
    comps = ["Italy.", "Spain and the river flows into the sea."]
    full = max(_tokens(tok, prefix + c) for c in comps)
    assert scoring.fit_prefix(prefix, comps, tok, full + 1) == prefix  # fits with one start token
    assert scoring.fit_prefix(prefix, comps, tok, None) == prefix
    for budget in (full, full - 5, 20):
        kept = scoring.fit_prefix(prefix, comps, tok, budget)
        assert prefix.endswith(kept) and kept != prefix
        assert max(_tokens(tok, kept + c) for c in comps) <= budget - 1
        starts = [
            a
            for a, _ in tok(prefix, add_special_tokens=False, return_offsets_mapping=True)[
                "offset_mapping"
            ]
        ]
        longer = prefix[max(a for a in starts if a < prefix.index(kept)) :]
        assert max(_tokens(tok, longer + c) for c in comps) > budget - 1  # one more would not
    assert scoring.fit_prefix(prefix, comps, tok, 20, n_special=3) != scoring.fit_prefix(
        prefix, comps, tok, 20
    )
    with pytest.raises(ValueError, match="no token of the prefix fits"):
        scoring.fit_prefix(prefix, comps, tok, 5)


def test_the_option_order_depends_on_the_item_only(sample):
    a = {q.key: q.answer_idx for q in scoring.factor_queries(sample)}
    again = {q.key: q.answer_idx for q in scoring.factor_queries(load_factor().sample(8, seed=3))}
    assert all(again[k] == v for k, v in a.items())
    assert len(set(a.values())) > 1  # the true completion is not always first
    order = scoring.option_order("news", "17")
    assert sorted(order) == [0, 1, 2, 3] and (order == scoring.option_order("news", "17")).all()


def factor_scores_table(items: int = 12, models=("c1", "c2"), seed: int = 0) -> pd.DataFrame:
    """A synthetic FACTOR score table: 5 shared prefix tokens (the same log-probabilities for
    the four options of an item) and 3 completion tokens per option."""
    rng = np.random.default_rng(seed)
    rows = []
    for model in models:
        for subset in ("news", "expert"):
            for i in range(items):
                prefix = (-rng.gamma(2.0, 1.0, size=5)).tolist()
                correct = int(rng.integers(4))
                for o in range(4):
                    comp = -rng.gamma(2.0, 0.7, size=3) + (1.5 if o == correct else 0.0)
                    comp = np.minimum(comp, -1e-3)
                    rows.append(
                        {
                            "model": model,
                            "dataset": f"factor-{subset}",
                            "relation": subset,
                            "instance": str(i),
                            "template": scoring.TEMPLATE,
                            "option": o,
                            "answer": f"c{o}",
                            "answer_idx": correct,
                            "token_logprobs": prefix + comp.tolist(),
                            "token_roles": ["template"] * 5 + ["object"] * 3,
                        }
                    )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


@pytest.fixture(scope="module")
def scores():
    return factor_scores_table()


def test_the_shared_prefix_cancels_in_the_softmax(scores):
    whole = scoring.factor_estimates(scores, "sum")
    answer = scoring.factor_estimates(scores, "sum-answer")
    assert np.allclose(whole["confidence"], answer["confidence"])
    assert (whole["prediction"] == answer["prediction"]).all()


def test_base_and_margin_by_hand(scores):
    est = scoring.factor_estimates(scores)
    sent = sentence_scores(scores)
    one = sent[(sent["model"] == "c1") & (sent["relation"] == "news") & (sent["instance"] == "3")]
    p = np.exp(one["score"] - one["score"].max())
    p = np.sort(p / p.sum())[::-1]
    got = est[(est["model"] == "c1") & (est["relation"] == "news") & (est["instance"] == "3")]
    by = got.set_index("estimator")["confidence"]
    assert by["Base"] == pytest.approx(p[0]) and by["Margin"] == pytest.approx(p[0] - p[1])
    assert set(est["estimator"]) == {"Base", "Margin"}
    assert len(est) == 2 * 2 * 2 * 12


def test_table4_has_the_papers_columns_the_metric_values_and_the_floors(scores):
    est = scoring.factor_estimates(scores)
    summ = tables.factor_summary(est, n_boot=50, seed=0, objectives={"c1": "clm", "c2": "clm"})
    assert {"ace_floor", "ace_within_floor", "ace_debiased", "subset", "objective"} <= set(
        summ.columns
    )
    table = tables.table4(summ)
    assert list(table[["model", "subset"]].itertuples(index=False, name=None)) == [
        ("c1", "expert"),
        ("c1", "news"),
        ("c2", "expert"),
        ("c2", "news"),
    ]
    for col in ("accuracy", "ace_base", "ace_margin", "brier_base", "brier_margin"):
        assert (table[f"{col}_low"] <= table[col] + 1e-12).all()
        assert (table[col] <= table[f"{col}_high"] + 1e-12).all()
    for est_name in ("base", "margin"):
        for suffix in tables.FLOOR_SUFFIXES:
            assert f"ace_{est_name}{suffix}" in table.columns
    row = table.iloc[1]
    part = est[(est["model"] == "c1") & (est["dataset"] == "factor-news")]
    b, m = part[part["estimator"] == "Base"], part[part["estimator"] == "Margin"]
    assert row["ace_base"] == pytest.approx(ace(b["confidence"], b["correct"]))
    assert row["brier_margin"] == pytest.approx(brier(m["confidence"], m["correct"]))
    assert row["accuracy"] == pytest.approx(b["correct"].mean()) and row["n"] == 12
    assert row["ace_base_debiased"] == pytest.approx(row["ace_base"] - row["ace_base_floor"])
    long = tables.interval_rows(summ)
    assert len(long) == 3 * len(summ)
    assert long.loc[long["metric"] == "ACE", "floor_low"].notna().all()
    assert long.loc[long["metric"] == "Brier", "floor_low"].isna().all()


def test_margin_vs_base_on_both_metrics(scores):
    est = scoring.factor_estimates(scores)
    diffs = tables.margin_vs_base(est, n_boot=100, seed=0)
    assert len(diffs) == 8 and set(diffs["metric"]) == {"ace", "brier"}
    assert all("Margin" in s for s in fd.margin_sentences(diffs))
    one = diffs[
        (diffs["model"] == "c1") & (diffs["subset"] == "news") & (diffs["metric"] == "brier")
    ].iloc[0]
    part = est[(est["model"] == "c1") & (est["dataset"] == "factor-news")]
    b, m = part[part["estimator"] == "Base"], part[part["estimator"] == "Margin"]
    assert one["difference"] == pytest.approx(
        brier(m["confidence"], m["correct"]) - brier(b["confidence"], b["correct"])
    )
    fake = pd.DataFrame({"low": [-0.2, -0.1], "high": [-0.05, 0.1]})
    text = fd.margin_claim(fake, 0.48, 0.45)
    assert "cannot decide" in text and "undecided for 1 of 2" in text and "0.450 vs 0.480" in text


# -- Appendix F's comparisons with BEAR ------------------------------------------------------


@pytest.fixture(scope="module")
def bear_side():
    from calib.confidence.subsample import subsampled_estimates

    bear = random_score_table(
        n_instances=10, sizes=(60, 8), templates=(PLAIN,), models=("c1", "c2")
    )
    sent = sentence_scores(bear)
    return (
        subsampled_estimates(sent, None),
        subsampled_estimates(sent[sent["relation"] == "R0"], 5, 3, 0),
    )


def _ace(est, model, estimator, dataset=None, repeat=None):
    part = est[(est["model"] == model) & (est["estimator"] == estimator)]
    if dataset is not None:
        part = part[part["dataset"] == dataset]
    if repeat is not None:
        part = part[part["repeat"] == repeat]
    return ace(part["confidence"], part["correct"])


def test_higher_ace_is_the_mean_over_models_of_factor_minus_bear(bear_side, scores):
    whole, _ = bear_side
    fest = scoring.factor_estimates(scores)
    out = comparisons.higher_ace(whole, fest, ["c1", "c2"], n_boot=50, seed=0).set_index("unit")
    assert list(out.index) == ["Base, expert", "Margin, expert", "Base, news", "Margin, news"]
    row = out.loc["Margin, news"]
    raw = np.mean(
        [_ace(fest, m, "Margin", "factor-news") - _ace(whole, m, "Margin") for m in ("c1", "c2")]
    )
    assert row["raw"] == pytest.approx(raw) and row["n_models"] == 2
    assert row["n_bear"] == 20 and row["n_factor"] == 12
    assert row["low"] <= row["difference"] <= row["high"]
    assert row["difference"] != pytest.approx(raw)  # debiased: the floors differ
    assert comparisons.higher_ace(whole, fest, [], n_boot=10).empty


def test_the_gains_and_their_comparisons(bear_side, scores):
    whole, cut = bear_side
    fest = scoring.factor_estimates(scores)
    means, comp = comparisons.gain_comparisons(whole, cut, fest, ["c1", "c2"], n_boot=50, seed=0)
    means = means.set_index("benchmark")

    def gain(est, dataset=None):
        return np.mean(
            [_ace(est, m, "Base", dataset) - _ace(est, m, "Margin", dataset) for m in ("c1", "c2")]
        )

    g_b = gain(whole)
    g_5 = np.mean(
        [
            _ace(cut, m, "Base", repeat=r) - _ace(cut, m, "Margin", repeat=r)
            for m in ("c1", "c2")
            for r in range(3)
        ]
    )
    g_f = gain(fest, "factor-news")
    assert means.at["BEAR (sample, whole answer spaces)", "gain"] == pytest.approx(g_b)
    assert means.at["BEAR 1:1 (5 options)", "gain"] == pytest.approx(g_5)
    assert means.at["FACTOR news", "gain"] == pytest.approx(g_f)
    assert means.at["BEAR 1:1 (5 options)", "n"] == 10
    comp = comp.set_index(["subset", "comparison"])
    assert comp.at[("news", "smaller"), "raw"] == pytest.approx(g_b - g_f)
    assert comp.at[("news", "closer"), "raw"] == pytest.approx(abs(g_b - g_f) - abs(g_5 - g_f))
    for r in comp.itertuples():
        assert r.low <= r.difference <= r.high
    none = comparisons.gain_comparisons(whole, cut.iloc[0:0], fest, ["c1", "c2"], n_boot=10)[1]
    assert set(none["comparison"]) == {"smaller"}  # no 1:1 relation, no 'closer'
    assert factor_bear.bear_cut_summary(cut, 20)["ace_floor"].notna().all()
    assert "ace_floor" in factor_bear.bear_cut_summary(cut.iloc[0:0]).columns


# -- the claims: rules on hand-made evidence, the paper's side checked by hand -----------------


def _evidence(units, low, high, **cols):
    frame = pd.DataFrame({"unit": units, "low": low, "high": high, **cols})
    frame["difference"] = (frame["low"] + frame["high"]) / 2
    return Evidence(frame, "hand-made")


CLAIMS = {c.key: c for c in fx.CLAIMS}


def test_margin_factor_needs_both_metrics():
    both = _evidence(["a ACE", "a Brier"], [-0.1, -0.1], [-0.01, -0.01], metric=["ace", "brier"])
    assert claims.margin_below_base_factor(both).verdict is HOLDS
    against = _evidence(["a ACE", "a Brier"], [-0.1, 0.01], [-0.01, 0.1], metric=["ace", "brier"])
    assert claims.margin_below_base_factor(against).verdict is FAILS
    open_ = _evidence(["a ACE", "a Brier"], [-0.1, -0.1], [-0.01, 0.1], metric=["ace", "brier"])
    assert claims.margin_below_base_factor(open_).verdict is UNDECIDED
    ace_only = _evidence(["a ACE"], [-0.1], [-0.01], metric=["ace"])
    judged = claims.margin_below_base_factor(ace_only)
    assert judged.verdict is UNTESTABLE and "brier" in judged.reason


def test_margin_factor_on_table4_by_hand():
    t4 = reported("kissling2026_table4")
    worse_ace = t4.loc[t4["ace_margin"] >= t4["ace_base"], "registry_name"].tolist()
    worse_brier = t4.loc[t4["brier_margin"] >= t4["brier_base"], "registry_name"].tolist()
    assert len(worse_ace) == 6 and worse_ace == worse_brier  # the same six rows, both metrics
    assert all(m.startswith(("gemma-3", "qwen3.5")) for m in worse_ace)
    judged = CLAIMS["margin_factor"].judge_paper()
    assert judged.verdict is FAILS
    assert "for 20, against it for 12 and undecided for 0 of 32" in judged.evidence
    assert "gemma-3-4b-it, ACE: 0.238" in judged.evidence  # 0.402 - 0.164


def test_factor_higher_ace_on_the_printed_means_by_hand():
    # Appendix F: FACTOR 0.475 / 0.446 against BEAR 0.213 / 0.107: higher for both estimators
    judged = CLAIMS["factor_higher_ace"].judge_paper()
    assert judged.verdict is HOLDS
    assert "C_Base, mean over the CLMs: 0.262" in judged.evidence  # 0.475 - 0.213
    assert "C_Margin, mean over the CLMs: 0.339" in judged.evidence  # 0.446 - 0.107
    assert (
        claims.higher_on_factor(_evidence(["Base"], [0.1], [0.2], estimator=["Base"])).verdict
        is UNTESTABLE
    )  # Margin required too
    assert (
        claims.higher_on_factor(
            _evidence(["Base", "Margin"], [-0.2, 0.1], [-0.1, 0.2], estimator=["Base", "Margin"])
        ).verdict
        is FAILS
    )


def test_the_means_note_is_what_the_tables_give():
    from calib.experiments.paper_tables import table1_long

    t4 = reported("kissling2026_table4")
    assert f"{t4['ace_base'].mean():.3f}" == "0.372" and f"{t4['ace_margin'].mean():.3f}" == "0.433"
    assert "0.372 and 0.433" in claims.MEANS_NOTE
    first = t4.head(10)
    assert first["ace_base"].mean() == pytest.approx(0.4755) and first[
        "ace_margin"
    ].mean() == pytest.approx(0.4457)
    t1 = table1_long()
    clm = t1[t1["objective"] == "clm"]
    assert clm["registry_name"].nunique() == 17
    base = clm[clm["estimator"] == "Base"]["ace"].mean()
    margin = clm[clm["estimator"] == "Margin"]["ace"].mean()
    assert (
        f"{base:.3f} and {margin:.3f}" == "0.201 and 0.104"
        and "(0.201 and 0.104)" in claims.MEANS_NOTE
    )
    means = comparisons.table4_means().set_index("what")
    assert means.at["Table 4, all rows", "gain"] == pytest.approx(-0.0616, abs=1e-4)
    assert "-0.061" in CLAIMS["factor_smaller_gain"].paper_note


def test_the_gain_claims_on_the_printed_means_by_hand():
    judged = CLAIMS["factor_smaller_gain"].judge_paper()
    assert judged.verdict is HOLDS and "mean over the CLMs: 0.076" in judged.evidence  # 0.106-0.03
    judged = CLAIMS["bear5_gain_closer"].judge_paper()
    # |0.106 - 0.03| - |0.07 - 0.03| = 0.076 - 0.04
    assert judged.verdict is HOLDS and "mean over the CLMs: 0.036" in judged.evidence
    assert claims.smaller_gain(_evidence(["news"], [-0.1], [0.1])).verdict is UNDECIDED
    assert claims.closer_with_five(_evidence(["news"], [-0.1], [-0.01])).verdict is FAILS


def _result(clms=("c1",), **frames):
    empty = pd.DataFrame({"x": []})
    fields = dict.fromkeys(
        (
            "items",
            "cost",
            "summary",
            "table",
            "intervals",
            "margin_vs_base",
            "bear",
            "bear_cut",
            "higher_ace",
            "gains",
            "gain_comparisons",
            "paper_means",
        ),
        empty,
    )
    fields.update(frames)
    return fx.FactorResult(
        params=fx.Params(models=("c1", "b1")),
        objectives={"c1": "clm", "b1": "mlm"},
        clms=list(clms),
        n_items=12,
        n_bear=20,
        n_bear_one_to_one=10,
        **fields,
    )


def test_build_evidence_from_a_hand_made_result():
    diffs = pd.DataFrame(
        {
            "model": ["c1", "c1", "b1"],
            "subset": ["news"] * 3,
            "metric": ["ace", "brier", "ace"],
            "difference": [-0.1, -0.05, 0.2],
            "low": [-0.2, -0.1, 0.1],
            "high": [-0.01, -0.01, 0.3],
            "p_value": [0.0] * 3,
        }
    )
    result = _result(margin_vs_base=diffs)
    ev = CLAIMS["margin_factor"].build_evidence(result)
    assert list(ev.frame["unit"]) == ["c1, news, ACE", "c1, news, Brier"]  # causal models only
    assert CLAIMS["margin_factor"].judge_build(result).verdict is HOLDS
    none = _result(margin_vs_base=diffs, clms=[])
    judged = CLAIMS["margin_factor"].judge_build(none)
    assert judged.verdict is UNTESTABLE and "no causal model" in judged.reason
    comp = pd.DataFrame(
        {
            "subset": ["news"],
            "comparison": ["smaller"],
            "unit": ["gain(BEAR) - gain(FACTOR news)"],
            "n_models": [1],
            "difference": [0.1],
            "low": [0.05],
            "high": [0.15],
            "p_value": [0.0],
            "raw": [0.12],
        }
    )
    result = _result(gain_comparisons=comp)
    assert CLAIMS["factor_smaller_gain"].judge_build(result).verdict is HOLDS
    judged = CLAIMS["bear5_gain_closer"].judge_build(result)
    assert judged.verdict is UNTESTABLE and "no 1:1 relation" in judged.reason


@pytest.mark.slow
def test_prefixes_fit_the_models_context_and_long_completions_are_named():
    factor = load_factor("news").sample(1, seed=0)
    scores, cost = scoring.factor_scores(["tiny-gpt2"], factor, None, device="cpu", progress=False)
    assert cost["budget"].tolist() == [256] and cost["cut"].tolist() == [1]
    assert scores["token_logprobs"].map(len).max() <= 255  # plus the start token
    with pytest.raises(ValueError, match=r"news item .*max_completion_words"):
        scoring.factor_scores(["tiny-gpt2"], factor, 4, device="cpu", progress=False)


@pytest.mark.slow
def test_a_tiny_run_end_to_end(tmp_path):
    params = fx.Params(
        models=("tiny-gpt2", "tiny-bert"),
        relations=("P36", "P19"),
        per_relation=2,
        n_bootstrap=20,
        factor_items=2,
        factor_max_tokens=160,
        factor_completion_words=25,
    )
    result = fx.run(params)
    assert result.cost["items"].tolist() == [4, 4] and result.cost["statements"].tolist() == [
        16,
        16,
    ]
    assert result.cost["budget"].tolist() == [160, 160] and (result.cost["cut"] > 0).all()
    assert len(result.table) == 4 and result.clms == ["tiny-gpt2"]
    assert result.n_bear == 4 and result.n_bear_one_to_one == 2
    assert "ace_floor" in result.summary.columns and "ace_floor" in result.bear.columns
    assert set(result.gain_comparisons["comparison"]) == {"smaller", "closer"}
    from calib.experiments import records

    path = records.write_record(result, tmp_path)
    again = records.load_record_folder(path)
    pd.testing.assert_frame_equal(again.table, result.table)
    for claim in fx.CLAIMS:
        assert claim.judge_build(again).verdict.value in (
            "holds",
            "does not hold",
            "undecided",
            "not testable",
        )
    rerun = fx.run(params)
    pd.testing.assert_frame_equal(rerun.table, result.table)  # seeded


def test_the_interval_chart_draws_the_floor_band_and_the_table_keeps_its_bounds(scores):
    from calib.report import charts, table_format

    summ = tables.factor_summary(scoring.factor_estimates(scores), n_boot=20, seed=0)
    spec = charts.interval_chart(
        tables.interval_rows(summ), category="row", band_low="floor_low", band_high="floor_high"
    ).to_dict()
    floor = [
        layer for layer in spec["spec"]["layer"] if layer["mark"].get("color") == charts.FLOOR_COLOR
    ]
    assert len(floor) == 1 and floor[0]["encoding"]["x2"]["field"] == "floor_high"
    shown = table_format.with_bounds(
        summ, ["model", "ace", "ace_floor", "ace_debiased"], fx.SUMMARY_INTERVALS
    )
    assert list(shown.columns) == [
        "model",
        "ace",
        "ace_floor",
        "ace_debiased",
        "ace_low",
        "ace_high",
        "ace_debiased_low",
        "ace_debiased_high",
    ]
    two = {c: fx.SUMMARY_INTERVALS[c] for c in ("ace", "ace_debiased")}
    html = table_format.html_table(shown, intervals=two, record=False).html
    assert "ace_low" not in html and "ace_floor" in html
