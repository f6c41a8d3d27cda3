"""Reliability-diagram data: calibration curve with Wilson intervals, histogram of confidences."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from calib.confidence import (
    calibration_curve,
    confidence_histogram,
    reliability_curve,
    reliability_diagram,
    wilson_interval,
)


def test_wilson_hand_example():
    # 8 of 10, 95%: the textbook interval [0.490, 0.943]
    low, high = wilson_interval(8, 10)
    assert (float(low), float(high)) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    low, high = wilson_interval(np.array([0, 5, 0]), np.array([5, 5, 0]))
    assert low[0] == 0.0 and high[1] == 1.0 and 0 < high[0] < 1 and 0 < low[1] < 1
    assert np.isnan(low[2]) and np.isnan(high[2])
    with pytest.raises(ValueError, match="between 0 and n"):
        wilson_interval(6, 5)


def test_wilson_agrees_with_scipy():
    for k, n in ((3, 17), (0, 40), (40, 40), (120, 250)):
        ci = stats.binomtest(k, n).proportion_ci(0.9, method="wilson")
        low, high = wilson_interval(k, n, level=0.9)
        assert (float(low), float(high)) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_reliability_curve_is_the_calibration_curve_with_intervals():
    rng = np.random.default_rng(0)
    conf = rng.random(400)
    corr = rng.random(400) < conf
    curve = reliability_curve(conf, corr)
    pd.testing.assert_frame_equal(
        curve.drop(columns=["accuracy_low", "accuracy_high"]), calibration_curve(conf, corr)
    )
    assert (curve["accuracy_low"] <= curve["accuracy"]).all()
    assert (curve["accuracy"] <= curve["accuracy_high"]).all()
    k = np.round(curve["accuracy"] * curve["count"]).astype(int)
    low, _high = wilson_interval(k, curve["count"])
    np.testing.assert_allclose(curve["accuracy_low"], low)
    # a perfectly calibrated sample: most bins' intervals hold their mean confidence
    holds = (curve["accuracy_low"] <= curve["mean_confidence"]) & (
        curve["mean_confidence"] <= curve["accuracy_high"]
    )
    assert holds.mean() >= 0.8


def test_histogram_counts_sum_to_n_and_match_numpy():
    rng = np.random.default_rng(1)
    conf = np.r_[rng.random(997), 0.0, 1.0, 0.5]
    hist = confidence_histogram(conf, n_bins=10)
    assert list(hist.columns) == ["bin", "lower", "upper", "count", "share"]
    assert len(hist) == 10 and hist["count"].sum() == len(conf)
    assert hist["share"].sum() == pytest.approx(1.0)
    # right-closed bins, the first also holding 0 (the bins of ECE)
    expected = [np.sum((conf > i / 10) & (conf <= (i + 1) / 10)) for i in range(10)]
    expected[0] += np.sum(conf == 0)
    assert hist["count"].tolist() == expected
    # confidences below 0 (Entropy) fall into the first bin; empty bins are listed
    hist = confidence_histogram([-0.4, 0.05, 0.95], n_bins=4)
    assert hist["count"].tolist() == [2, 0, 0, 1]


def test_reliability_diagram_frames_per_group():
    rng = np.random.default_rng(2)
    rows = []
    for m, n in (("m1", 150), ("m2", 90)):
        for e in ("Base", "Margin"):
            c = rng.random(n)
            rows.append(
                pd.DataFrame(
                    {"model": m, "estimator": e, "confidence": c, "correct": rng.random(n) < c}
                )
            )
    est = pd.concat(rows, ignore_index=True)
    d = reliability_diagram(est, n_bins=10, histogram_bins=5)
    assert list(d.curve.columns[:2]) == ["model", "estimator"]
    assert list(d.histogram.columns) == [
        "model",
        "estimator",
        "bin",
        "lower",
        "upper",
        "count",
        "share",
    ]
    counts = d.histogram.groupby(["model", "estimator"])["count"].sum()
    assert counts.to_dict() == {
        ("m1", "Base"): 150,
        ("m1", "Margin"): 150,
        ("m2", "Base"): 90,
        ("m2", "Margin"): 90,
    }
    curve_counts = d.curve.groupby(["model", "estimator"])["count"].sum()
    assert (curve_counts == counts).all()
    assert (d.histogram.groupby(["model", "estimator"]).size() == 5).all()
