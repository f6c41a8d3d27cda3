"""Selective prediction: AUROC of confidence for correctness, AURC, their intervals and paired
differences between estimators."""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from calib.confidence import (
    all_estimates,
    aurc,
    auroc,
    estimator_differences,
    paired_estimates_difference,
    risk_coverage_curve,
    selective_differences,
    selective_prediction,
    sentence_scores,
)
from calib.confidence.bootstrap import resample_weights
from calib.confidence.metrics import WEIGHTED, sorted_inputs


def sample(n=300, seed=0, digits=1):
    rng = np.random.default_rng(seed)
    conf = np.round(rng.random(n), digits)  # many ties
    return conf, rng.random(n) < conf


@pytest.mark.parametrize("seed,digits", [(0, 1), (1, 2), (2, 6)])
def test_auroc_equals_sklearn(seed, digits):
    conf, corr = sample(seed=seed, digits=digits)
    assert auroc(conf, corr) == pytest.approx(roc_auc_score(corr, conf), abs=1e-12)
    # confidences below 0 (Entropy-Confidence) are ranked like any others
    assert auroc(conf - 0.5, corr) == pytest.approx(roc_auc_score(corr, conf), abs=1e-12)


def test_auroc_hand_example_and_undefined_cases():
    # pairs (correct, wrong): (.9,.8) win, (.9,.4) win, (.4,.8) loss, (.4,.4) tie -> 2.5 / 4
    assert auroc([0.9, 0.4, 0.8, 0.4], [1, 1, 0, 0]) == pytest.approx(0.625)
    assert np.isnan(auroc([0.2, 0.3], [1, 1])) and np.isnan(auroc([0.2, 0.3], [0, 0]))


def test_aurc_hand_examples():
    # descending confidence, errors 0, 1, 0, 1: risks 0/1, 1/2, 1/3, 2/4
    assert aurc([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0]) == pytest.approx(
        (0 + 1 / 2 + 1 / 3 + 1 / 2) / 4
    )
    # ties: {0.9: right, wrong} share one error -> risks 0.5/1, 1/2; then 0.5: right -> 1/3
    assert aurc([0.9, 0.9, 0.5], [1, 0, 1]) == pytest.approx((0.5 + 0.5 + 1 / 3) / 3)
    assert aurc([0.3, 0.2], [1, 1]) == 0.0 and aurc([0.3, 0.2], [0, 0]) == 1.0


def test_aurc_with_ties_is_the_mean_over_every_order_of_the_ties():
    conf = np.array([0.9, 0.9, 0.5, 0.5, 0.5, 0.2])
    corr = np.array([1, 0, 1, 0, 0, 1])
    risks = []
    for perm in itertools.permutations(range(6)):
        order = np.array(perm)
        if (np.diff(conf[order]) <= 0).all():  # a descending order, ties in any order
            err = 1 - corr[order]
            risks.append(np.mean(np.cumsum(err) / np.arange(1, 7)))
    assert len(risks) == 2 * 6
    assert aurc(conf, corr) == pytest.approx(np.mean(risks))
    curve = risk_coverage_curve(conf, corr)
    assert curve["risk"].mean() == pytest.approx(aurc(conf, corr))
    assert curve["coverage"].tolist() == pytest.approx([1 / 6, 2 / 6, 3 / 6, 4 / 6, 5 / 6, 1])
    assert curve["threshold"].tolist() == [0.9, 0.9, 0.5, 0.5, 0.5, 0.2]
    assert curve["risk"].iloc[-1] == pytest.approx(1 - corr.mean())


def test_weighted_auroc_and_aurc_equal_the_metrics_of_the_expanded_sample():
    conf, corr = sample(200, seed=3)
    order, c, y = sorted_inputs(conf, corr)
    w = next(resample_weights(200, 4, seed=1))
    for r in range(4):
        expanded = np.repeat(conf, w[r]), np.repeat(corr, w[r])
        for name, fn in (("auroc", auroc), ("aurc", aurc)):
            got = WEIGHTED[name](c, y, w[r : r + 1, order])[0]
            assert got == pytest.approx(fn(*expanded), abs=1e-12), name
    # row order never matters
    perm = np.random.default_rng(0).permutation(200)
    assert aurc(conf[perm], corr[perm]) == pytest.approx(aurc(conf, corr), abs=1e-14)


@pytest.fixture(scope="module")
def estimates(random_table):
    return all_estimates(sentence_scores(random_table))


def test_selective_prediction_table(estimates):
    table = selective_prediction(estimates, by=["model", "estimator"], n_boot=100)
    assert list(table.columns) == [
        "model",
        "estimator",
        "n",
        "auroc",
        "auroc_low",
        "auroc_high",
        "aurc",
        "aurc_low",
        "aurc_high",
        "accuracy",
        "accuracy_low",
        "accuracy_high",
        "rejection_rate",
    ]
    for _, row in table.iterrows():
        part = estimates[(estimates.model == row.model) & (estimates.estimator == row.estimator)]
        assert row.auroc == pytest.approx(roc_auc_score(part.correct, part.confidence))
        assert row.aurc == pytest.approx(aurc(part.confidence, part.correct))
        assert row.auroc_low <= row.auroc <= row.auroc_high
        assert row.aurc_low <= row.aurc <= row.aurc_high


def test_paired_differences_between_estimators(estimates):
    diffs = selective_differences(
        estimates, [("Average/min", "Base"), ("Margin", "Base")], n_boot=100, seed=2
    )
    assert list(diffs.columns) == [
        "model",
        "a",
        "b",
        "metric",
        "difference",
        "low",
        "high",
        "method",
        "p_value",
        "n",
        "n_boot",
    ]
    assert len(diffs) == 2 * 2 * 2 and set(diffs.metric) == {"auroc", "aurc"}
    one = diffs[(diffs.model == "m1") & (diffs.a == "Margin") & (diffs.metric == "auroc")].iloc[0]
    m1 = estimates[estimates.model == "m1"]
    direct = paired_estimates_difference(
        m1[m1.estimator == "Margin"], m1[m1.estimator == "Base"], "auroc", n_boot=100, seed=2
    )
    assert one.difference == pytest.approx(direct["difference"])
    assert (one.low, one.high, one.p_value) == pytest.approx(
        (direct["low"], direct["high"], direct["p_value"])
    )
    a = m1[m1.estimator == "Margin"].sort_values("instance")
    b = m1[m1.estimator == "Base"].sort_values("instance")
    assert one.difference == pytest.approx(
        roc_auc_score(a.correct, a.confidence) - roc_auc_score(b.correct, b.confidence)
    )
    assert (diffs.low <= diffs.difference).all() and (diffs.difference <= diffs.high).all()
    # every pair of estimators when none are given, in the order they appear
    every = estimator_differences(estimates, metrics=("aurc",), n_boot=20)
    names = list(dict.fromkeys(estimates.estimator))
    assert len(every) == 2 * len(names) * (len(names) - 1) // 2
    assert tuple(every.iloc[0][["a", "b"]]) == (names[0], names[1])
    with pytest.raises(ValueError, match="no estimates of 'Nope'"):
        selective_differences(estimates, [("Nope", "Base")], n_boot=10)


def test_differences_are_seeded(estimates):
    a = selective_differences(estimates, [("Margin", "Base")], n_boot=50, seed=4)
    b = selective_differences(
        estimates.sample(frac=1.0, random_state=1), [("Margin", "Base")], n_boot=50, seed=4
    )
    pd.testing.assert_frame_equal(a, b)
