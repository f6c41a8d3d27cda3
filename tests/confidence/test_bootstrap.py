"""Seeded bootstrap intervals, paired differences, correlation intervals."""

import numpy as np
import pandas as pd
import pytest

from calib.confidence import (
    ace,
    bootstrap_interval,
    bootstrap_metrics,
    brier,
    correlation_interval,
    ece,
    paired_difference,
    paired_estimates_difference,
)
from calib.confidence.bootstrap import resample_weights
from calib.confidence.metrics import WEIGHTED, sorted_inputs


def sample(n=400, seed=0, power=1.0):
    rng = np.random.default_rng(seed)
    conf = np.round(rng.random(n), 2)  # ties on purpose
    return conf, rng.random(n) < conf ** power


def test_weighted_metrics_equal_metrics_of_the_expanded_sample():
    conf, corr = sample(300)
    order, c, y = sorted_inputs(conf, corr)
    w = next(resample_weights(300, 5, seed=3))
    for r in range(5):
        reps = np.repeat(conf, w[r])
        repy = np.repeat(corr, w[r])
        for name, fn in (("ace", ace), ("ece", ece), ("brier", brier)):
            got = WEIGHTED[name](c, y, w[r:r + 1, order], 20)[0]
            assert got == pytest.approx(fn(reps, repy), abs=1e-12), name
        assert WEIGHTED["accuracy"](c, y, w[r:r + 1, order])[0] == pytest.approx(repy.mean())


def test_resample_weights_are_bootstrap_counts():
    blocks = list(resample_weights(50, 700, seed=1))
    w = np.concatenate(blocks)
    assert w.shape == (700, 50) and (w.sum(axis=1) == 50).all()
    # each instance is drawn once per resample on average
    assert w.mean() == pytest.approx(1.0)
    again = np.concatenate(list(resample_weights(50, 700, seed=1)))
    np.testing.assert_array_equal(w, again)


def test_intervals_are_seeded_and_bracket_the_value():
    conf, corr = sample()
    a = bootstrap_metrics(conf, corr, n_boot=300, seed=4)
    b = bootstrap_metrics(conf, corr, n_boot=300, seed=4)
    pd.testing.assert_frame_equal(a, b)
    c = bootstrap_metrics(conf, corr, n_boot=300, seed=5)
    assert not np.allclose(a["low"], c["low"])
    assert a["metric"].tolist() == ["ace", "brier", "accuracy"]
    assert (a["low"] <= a["high"]).all()
    for _, row in a.iterrows():
        if row["metric"] != "ace":  # ACE is biased upward; its interval need not hold it
            assert row["low"] <= row["value"] <= row["high"]
    assert a.set_index("metric").loc["brier", "value"] == pytest.approx(brier(conf, corr))
    value, low, high = bootstrap_interval(conf, corr, "accuracy", n_boot=300, seed=4)
    assert value == pytest.approx(corr.mean())
    # about 1.96 standard errors either side
    se = np.sqrt(corr.mean() * (1 - corr.mean()) / len(corr))
    assert high - low == pytest.approx(2 * 1.96 * se, rel=0.25)


def test_paired_difference():
    conf, corr = sample(500, seed=1)
    same = paired_difference(conf, corr, conf, corr, "ace", n_boot=200)
    assert same["difference"] == 0 and same["low"] == 0 and same["high"] == 0
    assert same["p_value"] == 1.0
    # an overconfident copy (confidence pushed to 1) is clearly worse
    worse = paired_difference(np.sqrt(conf), corr, conf, corr, "ace", n_boot=300, seed=2)
    assert worse["difference"] > 0 and worse["low"] > 0 and worse["p_value"] < 0.01
    for metric in ("brier", "accuracy"):
        d = paired_difference(np.sqrt(conf), corr, conf, corr, metric, n_boot=100)
        assert d["low"] <= d["difference"] <= d["high"]
    # same predictions: the accuracy difference is exactly 0 in every resample
    assert paired_difference(np.sqrt(conf), corr, conf, corr, "accuracy", n_boot=50)["high"] == 0
    with pytest.raises(ValueError, match="same instances"):
        paired_difference(conf, corr, conf[:-1], corr[:-1])


def test_paired_estimates_difference_aligns_instances():
    conf, corr = sample(200, seed=3)
    keys = {"model": "m", "dataset": "bear", "relation": "P1",
            "instance": [f"Q{i}" for i in range(200)]}
    a = pd.DataFrame({**keys, "confidence": conf, "correct": corr})
    b = a.assign(confidence=np.sqrt(conf))
    d1 = paired_estimates_difference(a, b, "brier", n_boot=100)
    d2 = paired_estimates_difference(a.sample(frac=1.0, random_state=1), b, "brier", n_boot=100)
    assert d1 == d2
    assert d1["difference"] == pytest.approx(brier(conf, corr) - brier(np.sqrt(conf), corr))
    with pytest.raises(ValueError, match="1 only in the first, 0 only in the second"):
        paired_estimates_difference(a, b.iloc[1:], n_boot=10)
    with pytest.raises(ValueError, match="several rows per instance"):
        paired_estimates_difference(pd.concat([a, a]), b, n_boot=10)


def test_correlation_interval():
    x = np.array([0.2, 0.3, 0.35, 0.5, 0.6, 0.7, 0.8])
    perfect = correlation_interval(x, 1 - 2 * x, n_boot=500)
    assert perfect["r"] == pytest.approx(-1) and perfect["high"] == pytest.approx(-1)
    rng = np.random.default_rng(0)
    y = -x + rng.normal(0, 0.1, len(x))
    res = correlation_interval(x, y, n_boot=1000, seed=1)
    assert res["r"] == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert -1 <= res["low"] <= res["r"] <= res["high"] <= 1
    assert res == correlation_interval(x, y, n_boot=1000, seed=1)
    sp = correlation_interval(x, x ** 3, method="spearman", n_boot=200)
    assert sp["r"] == pytest.approx(1.0) and sp["low"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="at least 3"):
        correlation_interval([1, 2], [2, 3])
    with pytest.raises(ValueError, match="method"):
        correlation_interval(x, y, method="kendall")


def test_bad_arguments():
    conf, corr = sample(20)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_metrics(conf, corr, n_boot=0)
    with pytest.raises(ValueError, match="level"):
        bootstrap_metrics(conf, corr, level=1.5)
    with pytest.raises(ValueError, match=r"unknown metric\(s\) \['auc'\]"):
        bootstrap_metrics(conf, corr, metrics=("auc",))
