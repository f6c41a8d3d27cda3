"""The answer-set experiment (§5.2, Figures 3 and 4): subsampled curves, tables, Figure 4."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import accuracy, ace, base, sentence_scores
from calib.data.bear import PLAIN
from calib.experiments import answer_set as ax
from calib.report import findings as fd
from calib.data.reported import reported


@pytest.fixture(scope="module")
def sent():
    scores = random_score_table(n_instances=10, sizes=(60, 60), templates=(PLAIN,),
                                models=("m1", "m2"))
    return sentence_scores(scores)


@pytest.fixture(scope="module")
def curve(sent):
    return ax.subsample_curve(sent, ks=(5, 30, 60), repeats=3, seed=0)


def test_the_curve_has_every_model_k_repeat_and_metric(curve):
    assert len(curve) == 2 * 3 * 3 * len(ax.CURVE_METRICS)
    assert set(curve["metric"]) == set(ax.CURVE_METRICS)
    assert (curve["n"] == 20).all()
    assert curve["value"].between(0, 1).all()


def test_the_full_answer_space_is_the_unsubsampled_table(sent, curve):
    est = base(sent, PLAIN)
    full = curve[curve["k"] == 60]
    for model, part in est.groupby("model"):
        mine = full[full["model"] == model].set_index(["metric", "repeat"])["value"]
        for r in range(3):  # every repeat keeps all 60 options
            assert mine[("accuracy", r)] == pytest.approx(accuracy(part["correct"]))
            assert mine[("ace", r)] == pytest.approx(ace(part["confidence"], part["correct"]))
            assert mine[("confidence", r)] == pytest.approx(part["confidence"].mean())


def test_draws_are_seeded_and_differ_between_repeats(sent, curve):
    assert curve.equals(ax.subsample_curve(sent, ks=(5, 30, 60), repeats=3, seed=0))
    five = curve[(curve["k"] == 5) & (curve["metric"] == "confidence")]
    assert five.groupby("model")["value"].nunique().gt(1).all()
    other = ax.subsample_curve(sent, ks=(5,), repeats=3, seed=1)
    assert not np.allclose(other.sort_values(["model", "repeat", "metric"])["value"],
                           curve[curve["k"] == 5].sort_values(["model", "repeat", "metric"])
                           ["value"])


def test_a_model_that_always_ranks_the_truth_first_stays_right(sent):
    perfect = sent.assign(score=np.where(sent["option"] == sent["answer_idx"], 0.0, -5.0))
    c = ax.subsample_curve(perfect, ks=(2, 10, 60), repeats=2)
    acc = c[c["metric"] == "accuracy"]["value"]
    assert (acc == 1).all()
    conf = ax.curve_spread(c[c["metric"] == "confidence"])
    by_k = conf.groupby("k")["mean"].mean()
    assert by_k[2] > by_k[10] > by_k[60]  # more distractors, lower confidence
    expected = 1 / (1 + (60 - 1) * np.exp(-5.0))
    assert by_k[60] == pytest.approx(expected)


def test_bad_ks_are_errors(sent):
    with pytest.raises(ValueError, match="ks"):
        ax.subsample_curve(sent, ks=(1, 5))


def test_spread_table_and_sentences(curve):
    spread = ax.curve_spread(curve)
    assert (spread["lower"] <= spread["mean"] + 1e-12).all()
    assert (spread["mean"] <= spread["upper"] + 1e-12).all()
    assert (spread[spread["k"] == 60]["lower"] == spread[spread["k"] == 60]["upper"]).all()
    table = ax.curve_table(curve, (5, 30, 60, 99))
    assert list(table.columns) == ["model", "metric", "k=5", "k=30", "k=60", "change"]
    assert np.allclose(table["change"], table["k=60"] - table["k=5"])
    assert list(table["metric"][:4]) == list(ax.CURVE_METRICS)
    with pytest.raises(ValueError, match="none of ks"):
        ax.curve_table(curve, (7,))
    sentences = fd.trend_sentences(curve)
    assert len(sentences) == 2 and sentences[0].startswith("m1:")


def test_the_trend_sentence_makes_no_claim_inside_the_spread():
    curve = pd.DataFrame({"model": "m", "k": [5, 5, 60, 60], "repeat": [0, 1, 0, 0],
                          "metric": "accuracy", "value": [0.2, 0.6, 0.5, 0.5], "n": 10})
    (text,) = fd.trend_sentences(curve)
    assert "within the spread" in text
    curve["value"] = [0.7, 0.8, 0.5, 0.5]
    (text,) = fd.trend_sentences(curve)
    assert "falls from 0.750 at k=5 to 0.500 at k=60" in text


def test_the_reported_subsampling_in_the_same_shape():
    rep = reported("kissling2026_repo_answer_space_subsampling")
    long = ax.reported_curve(rep)
    assert len(long) == len(rep) * len(ax.CURVE_METRICS)
    assert sorted(long["k"].unique()) == list(ax.K_GRID) and long["model"].nunique() == 16
    pts = ax.reported_bear_points(rep, k=5)
    assert len(pts) == 10 and "gpt2" in set(pts["model"])
    assert "roberta-base" not in set(pts["model"])


def test_bear_vs_factor_joins_the_models_of_both(curve):
    table = pd.DataFrame({"model": ["m1", "m1", "x"], "subset": ["news", "expert", "news"],
                          "accuracy": [0.4, 0.5, 0.3], "ace_base": [0.2, 0.1, 0.3]})
    points = ax.bear_vs_factor(curve, table, k=5)
    assert set(points["model"]) == {"m1"}
    assert list(points["benchmark"]) == ["BEAR 1:1 (5 options)", "FACTOR news (4 options)",
                                         "FACTOR expert (4 options)"]
    at5 = ax.curve_spread(curve).query("k == 5 and model == 'm1'").set_index("metric")["mean"]
    assert points.loc[0, "ace"] == pytest.approx(at5["ace"])
    assert points.loc[0, "accuracy"] == pytest.approx(at5["accuracy"])
    assert len(fd.figure4_sentences(points)) == 1
    with pytest.raises(ValueError, match="no k=7"):
        ax.bear_vs_factor(curve, table, k=7)


def test_the_one_to_one_relations():
    assert len(ax.one_to_one_relations()) == 14
    assert ax.one_to_one_relations(["P36", "P37", "P19", "P30", "P105"]) == ["P36", "P37"]
    with pytest.raises(ValueError, match="1:1"):
        ax.answer_set_scores(["tiny-gpt2"], ["P19"], 1)
