"""The FACTOR experiment (Appendix F, Table 4): queries, estimates, table, claims; a tiny run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.confidence import ace, brier
from calib.confidence.reductions import sentence_scores
from calib.data.factor import load_factor
from calib.experiments import factor as fx
from calib.scoring.schema import SCORE_COLUMNS
from calib.report import findings as fd


@pytest.fixture(scope="module")
def sample():
    return load_factor().sample(4, seed=3)


def test_one_query_per_item_with_the_true_completion_at_correct(sample, tiny_models):
    tok = tiny_models["tiny-gpt2"].tokenizer
    queries = fx.factor_queries(sample, tok, budget=200)
    assert len(queries) == len(sample.items)
    for q, (_, row) in zip(queries, sample.items.iterrows()):
        assert q.dataset == f"factor-{row['subset']}" and q.relation == row["subset"]
        assert q.instance == row["item"] and q.template == fx.TEMPLATE
        assert sorted(q.answers) == sorted(row["completions"])
        assert q.answers[q.answer_idx] == row["completions"][0]
        prefixes = {s.text[:s.spans[0][1]] for s in q.statements}
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
    assert fx.fit_prefix(prefix, comps, tok, full + 1) == prefix  # fits with one start token
    assert fx.fit_prefix(prefix, comps, tok, None) == prefix
    for budget in (full, full - 5, 20):
        kept = fx.fit_prefix(prefix, comps, tok, budget)
        assert prefix.endswith(kept) and kept != prefix
        assert max(_tokens(tok, kept + c) for c in comps) <= budget - 1
        starts = [a for a, _ in tok(prefix, add_special_tokens=False,
                                    return_offsets_mapping=True)["offset_mapping"]]
        longer = prefix[max(a for a in starts if a < prefix.index(kept)):]
        assert max(_tokens(tok, longer + c) for c in comps) > budget - 1  # one more would not
    assert fx.fit_prefix(prefix, comps, tok, 20, n_special=3) != fx.fit_prefix(prefix, comps,
                                                                                tok, 20)
    with pytest.raises(ValueError, match="no token of the prefix fits"):
        fx.fit_prefix(prefix, comps, tok, 5)


def test_the_option_order_depends_on_the_item_only(sample):
    a = {q.key: q.answer_idx for q in fx.factor_queries(sample)}
    again = {q.key: q.answer_idx for q in fx.factor_queries(load_factor().sample(8, seed=3))}
    assert all(again[k] == v for k, v in a.items())
    assert len(set(a.values())) > 1  # the true completion is not always first
    order = fx.option_order("news", "17")
    assert sorted(order) == [0, 1, 2, 3] and (order == fx.option_order("news", "17")).all()


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
                    rows.append({"model": model, "dataset": f"factor-{subset}",
                                 "relation": subset, "instance": str(i),
                                 "template": fx.TEMPLATE, "option": o, "answer": f"c{o}",
                                 "answer_idx": correct, "token_logprobs": prefix + comp.tolist(),
                                 "token_roles": ["template"] * 5 + ["object"] * 3})
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


@pytest.fixture(scope="module")
def scores():
    return factor_scores_table()


def test_the_shared_prefix_cancels_in_the_softmax(scores):
    whole = fx.factor_estimates(scores, "sum")
    answer = fx.factor_estimates(scores, "sum-answer")
    assert np.allclose(whole["confidence"], answer["confidence"])
    assert (whole["prediction"] == answer["prediction"]).all()


def test_base_and_margin_by_hand(scores):
    est = fx.factor_estimates(scores)
    sent = sentence_scores(scores)
    one = sent[(sent["model"] == "c1") & (sent["relation"] == "news") & (sent["instance"] == "3")]
    p = np.exp(one["score"] - one["score"].max())
    p = np.sort(p / p.sum())[::-1]
    got = est[(est["model"] == "c1") & (est["relation"] == "news") & (est["instance"] == "3")]
    by = got.set_index("estimator")["confidence"]
    assert by["Base"] == pytest.approx(p[0]) and by["Margin"] == pytest.approx(p[0] - p[1])
    assert set(est["estimator"]) == {"Base", "Margin"}
    assert len(est) == 2 * 2 * 2 * 12


def test_table4_has_the_papers_columns_and_the_metric_values(scores):
    est = fx.factor_estimates(scores)
    table = fx.table4(fx.factor_summary(est, n_boot=50, seed=0))
    assert list(table[["model", "subset"]].itertuples(index=False, name=None)) == [
        ("c1", "expert"), ("c1", "news"), ("c2", "expert"), ("c2", "news")]
    for col in fx.TABLE4_INTERVALS:
        assert (table[f"{col}_low"] <= table[col] + 1e-12).all()
        assert (table[col] <= table[f"{col}_high"] + 1e-12).all()
    row = table.iloc[1]
    part = est[(est["model"] == "c1") & (est["dataset"] == "factor-news")]
    b, m = part[part["estimator"] == "Base"], part[part["estimator"] == "Margin"]
    assert row["ace_base"] == pytest.approx(ace(b["confidence"], b["correct"]))
    assert row["brier_margin"] == pytest.approx(brier(m["confidence"], m["correct"]))
    assert row["accuracy"] == pytest.approx(b["correct"].mean()) and row["n"] == 12
    means = fx.mean_over_models(table, ["c1"])
    assert means.set_index("subset").loc["news", "ace_base"] == pytest.approx(row["ace_base"])


def test_margin_vs_base_and_the_claim_sentence(scores):
    est = fx.factor_estimates(scores)
    diffs = fx.margin_vs_base(est, "ace", n_boot=100, seed=0)
    assert len(diffs) == 4 and all("Margin" in s for s in fd.margin_sentences(diffs))
    fake = pd.DataFrame({"low": [-0.2, -0.1], "high": [-0.05, -0.01]})
    assert "this run agrees" in fd.margin_claim(fake, 0.48, 0.45)
    fake = pd.DataFrame({"low": [0.01, -0.1], "high": [0.2, 0.1]})
    assert "does not agree" in fd.margin_claim(fake, 0.48, 0.45)
    fake = pd.DataFrame({"low": [0.01, -0.2], "high": [0.2, -0.05]})  # one model against
    assert "does not agree" in fd.margin_claim(fake, 0.48, 0.45)
    fake = pd.DataFrame({"low": [-0.2, -0.1], "high": [-0.05, 0.1]})
    text = fd.margin_claim(fake, 0.48, 0.45)
    assert "cannot decide" in text and "undecided for 1 of 2" in text and "0.450 vs 0.480" in text


@pytest.mark.slow
def test_a_tiny_run_end_to_end():
    run = fx.run_factor(["tiny-gpt2", "tiny-bert"], per_subset=2, seed=0, max_tokens=160,
                        max_completion_words=25, n_boot=20, device="cpu", progress=False)
    assert run.cost["items"].tolist() == [4, 4] and run.cost["statements"].tolist() == [16, 16]
    assert run.cost["budget"].tolist() == [160, 160] and (run.cost["cut"] > 0).all()
    assert len(run.scores) == 2 * 16
    assert len(run.table) == 4
    clm = run.scores[run.scores["model"] == "tiny-gpt2"]
    for _, item in clm.groupby(["relation", "instance"]):
        roles = item["token_roles"].map(list)
        n_prefix = roles.map(lambda r: r.index("object")).to_numpy()
        assert (n_prefix == n_prefix[0]).all()
        prefix_lp = [np.asarray(lp[:n_prefix[0]]) for lp in item["token_logprobs"]]
        assert all(np.allclose(p, prefix_lp[0]) for p in prefix_lp)  # one prefix, run once
    again = fx.run_factor(["tiny-gpt2", "tiny-bert"], per_subset=2, seed=0, max_tokens=160,
                          max_completion_words=25, n_boot=20, device="cpu", progress=False)
    pd.testing.assert_frame_equal(run.table, again.table)


@pytest.mark.slow
def test_prefixes_fit_the_models_context_and_long_completions_are_named():
    factor = load_factor("news").sample(1, seed=0)
    scores, cost = fx.factor_scores(["tiny-gpt2"], factor, None, device="cpu", progress=False)
    assert cost["budget"].tolist() == [256] and cost["cut"].tolist() == [1]
    assert scores["token_logprobs"].map(len).max() <= 255  # plus the start token
    with pytest.raises(ValueError, match=r"news item .*max_completion_words"):
        fx.factor_scores(["tiny-gpt2"], factor, 4, device="cpu", progress=False)
