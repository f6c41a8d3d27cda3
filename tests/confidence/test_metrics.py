"""ACE, ECE, Brier, calibration and accuracy-rejection curves, accuracy."""

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve as sk_curve

from calib.confidence import (
    accuracy,
    accuracy_per_relation,
    accuracy_rejection_curve,
    ace,
    brier,
    calibration_curve,
    ece,
    mce,
    rms_calibration_error,
)

CONF8 = [0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9]
CORR8 = [0, 0, 0, 0, 1, 1, 1, 1]


def test_ace_hand_computed():
    # 2 bins split at the median 0.5: gaps |0 - 0.25| and |1 - 0.75|
    assert ace(CONF8, CORR8, n_bins=2) == pytest.approx(0.25)
    # 4 bins of two: gaps .15, .35, .35, .15
    assert ace(CONF8, CORR8, n_bins=4) == pytest.approx(0.25)
    # an instance on the edge goes to the lower bin: {0.1 x3 | 0.9}
    assert ace([0.1, 0.1, 0.1, 0.9], [0, 0, 1, 1], n_bins=2) == pytest.approx(
        (abs(1 / 3 - 0.1) + 0.1) / 2
    )


def test_ace_drops_bins_emptied_by_coinciding_edges():
    # edges 0, 0, 0.2667, 0.8: bin 1 is empty and dropped; bins {0 x4} gap 0, {.8 x2} gap .3
    assert ace([0, 0, 0, 0, 0.8, 0.8], [0, 0, 0, 0, 1, 0], n_bins=3) == pytest.approx(0.15)
    curve = calibration_curve([0, 0, 0, 0, 0.8, 0.8], [0, 0, 0, 0, 1, 0], n_bins=3)
    assert curve["bin"].tolist() == [0, 2] and curve["count"].tolist() == [4, 2]
    # all confidences equal: one bin
    assert ace(np.full(10, 0.5), np.arange(10) % 2, n_bins=20) == pytest.approx(0.0)


def test_ece_hand_computed():
    assert ece(CONF8, CORR8, n_bins=2) == pytest.approx(0.25)
    # equal-width bins (0, .5], (.5, 1]: weighted (3/4)|1/3 - .1| + (1/4)|1 - .9|
    assert ece([0.1, 0.1, 0.1, 0.9], [0, 0, 1, 1], n_bins=2) == pytest.approx(0.2)
    # unlike ACE, ECE weights bins by size: 9 well-calibrated at .5 and one bad at 1.0
    conf = [0.5] * 10 + [1.0]
    corr = [1, 0] * 5 + [0]
    assert ece(conf, corr, n_bins=10) == pytest.approx(1 / 11)
    assert ace(conf, corr, n_bins=2) == pytest.approx(0.5)


def test_mce_and_rms_hand_computed():
    # bins (0, .5], (.5, 1]: {.1 x3: 1 of 3 right} gap |1/3 - .1|; {.9: right} gap .1
    conf, corr = [0.1, 0.1, 0.1, 0.9], [0, 0, 1, 1]
    assert mce(conf, corr, n_bins=2) == pytest.approx(1 / 3 - 0.1)
    assert rms_calibration_error(conf, corr, n_bins=2) == pytest.approx(
        np.sqrt(0.75 * (1 / 3 - 0.1) ** 2 + 0.25 * 0.1**2)
    )
    # the large bin of 10 at .5 is calibrated; the one instance at 1.0 is not
    conf, corr = [0.5] * 10 + [1.0], [1, 0] * 5 + [0]
    assert mce(conf, corr, n_bins=10) == pytest.approx(1.0)
    assert rms_calibration_error(conf, corr, n_bins=10) == pytest.approx(np.sqrt(1 / 11))
    assert (
        ece(conf, corr, n_bins=10)
        <= rms_calibration_error(conf, corr, n_bins=10)
        <= mce(conf, corr, n_bins=10)
    )


def sklearn_uniform_norms(conf, corr, n_bins):
    """ECE, MCE and RMS calibration error from scikit-learn's own equal-width calibration curve
    (``calibration_curve(strategy="uniform")``: bins ``(b, b']``, an instance on an inner edge
    in the lower bin, 1.0 in the last), the project's convention; torchmetrics bins ``[b, b')``
    with 1.0 in a bin of its own, and differs on such inputs (by up to 0.047 on these).

    scikit-learn returns the curve of the non-empty bins without their sizes; each instance's
    bin is found from the curve of an indicator of that instance alone (one non-empty entry,
    at its bin's position), so that ECE and RMS are the mean over instances of their bin's gap
    (squared) and MCE the largest gap, all from scikit-learn's binning."""
    conf, corr = np.asarray(conf, float), np.asarray(corr, bool)
    prob_true, prob_pred = sk_curve(corr, conf, n_bins=n_bins, strategy="uniform")
    gaps = np.abs(prob_true - prob_pred)
    own = np.empty(len(conf))
    for i in range(len(conf)):
        alone = np.zeros(len(conf), bool)
        alone[i] = True
        where, _ = sk_curve(alone, conf, n_bins=n_bins, strategy="uniform")
        own[i] = gaps[np.flatnonzero(where)[0]]
    return own.mean(), gaps.max(), np.sqrt(np.mean(own**2))


@pytest.mark.parametrize("n_bins", [5, 15, 20])
def test_ece_mce_rms_agree_with_sklearns_uniform_calibration_curve(n_bins):
    rng = np.random.default_rng(n_bins)
    edges = np.linspace(0, 1, n_bins + 1)
    samples = {
        "continuous": rng.random(300),
        "ties on the edges": np.round(rng.random(300), 2),
        "every edge, 0 and 1": np.concatenate([edges, edges, rng.random(100)]),
        "mass near 1": rng.beta(5, 1, 300),
    }
    for name, conf in samples.items():
        corr = rng.random(len(conf)) < conf**1.5
        want = sklearn_uniform_norms(conf, corr, n_bins)
        assert ece(conf, corr, n_bins) == pytest.approx(want[0], abs=1e-12), name
        assert mce(conf, corr, n_bins) == pytest.approx(want[1], abs=1e-12), name
        assert rms_calibration_error(conf, corr, n_bins) == pytest.approx(want[2], abs=1e-12), name


def test_brier_hand_computed():
    assert brier([0.9, 0.2, 0.6], [1, 0, 0]) == pytest.approx((0.01 + 0.04 + 0.36) / 3)
    assert brier([1.0, 0.0], [True, False]) == 0.0


def test_constant_half_has_brier_quarter():
    rng = np.random.default_rng(0)
    for corr in (rng.random(1000) < 0.3, np.ones(7), np.zeros(3)):
        assert brier(np.full(len(corr), 0.5), corr) == pytest.approx(0.25)


def test_perfectly_calibrated_sample_has_ace_near_zero():
    rng = np.random.default_rng(1)
    conf = rng.random(200_000)
    assert ace(conf, rng.random(200_000) < conf) < 0.01
    assert ece(conf, rng.random(200_000) < conf) < 0.01
    # ... and an overconfident one does not
    assert ace(conf, rng.random(200_000) < conf**2) > 0.1


def sklearn_ace(conf, corr, n_bins):
    prob_true, prob_pred = sk_curve(corr, conf, n_bins=n_bins, strategy="quantile")
    return np.mean(np.abs(prob_true - prob_pred)), prob_true, prob_pred


@pytest.mark.parametrize("n", [7, 21, 41, 100, 997, 1000, 5000])
@pytest.mark.parametrize("n_bins", [5, 10, 20])
def test_ace_agrees_with_sklearn_quantile_curve(n, n_bins):
    rng = np.random.default_rng(n * 100 + n_bins)
    samples = {
        "continuous": rng.random(n),
        "ties": np.round(rng.random(n), 1),
        "mass at 0": np.where(rng.random(n) < 0.4, 0.0, rng.beta(5, 2, n)),
        "softmax-like": 1 / (1 + np.exp(-rng.normal(0, 3, n))),
    }
    for name, conf in samples.items():
        corr = rng.random(n) < conf
        want, prob_true, prob_pred = sklearn_ace(conf, corr, n_bins)
        assert ace(conf, corr, n_bins) == pytest.approx(want, abs=1e-12), name
        curve = calibration_curve(conf, corr, n_bins)
        np.testing.assert_allclose(curve["accuracy"], prob_true, atol=1e-12)
        np.testing.assert_allclose(curve["mean_confidence"], prob_pred, atol=1e-12)


def test_uniform_curve_agrees_with_sklearn():
    rng = np.random.default_rng(5)
    conf = np.round(rng.random(500), 2)
    corr = rng.random(500) < conf
    prob_true, prob_pred = sk_curve(corr, conf, n_bins=10, strategy="uniform")
    curve = calibration_curve(conf, corr, 10, strategy="uniform")
    np.testing.assert_allclose(curve["accuracy"], prob_true)
    np.testing.assert_allclose(curve["mean_confidence"], prob_pred)
    assert curve["count"].sum() == 500
    want = np.sum(curve["count"] / 500 * np.abs(curve["accuracy"] - curve["mean_confidence"]))
    assert ece(conf, corr, 10) == pytest.approx(want)


def test_metrics_do_not_depend_on_order():
    rng = np.random.default_rng(2)
    conf = np.round(rng.random(300), 2)
    corr = rng.random(300) < conf
    perm = rng.permutation(300)
    for fn in (ace, ece, brier, mce, rms_calibration_error):
        assert fn(conf, corr) == pytest.approx(fn(conf[perm], corr[perm]), abs=1e-12)


def test_accuracy_rejection_curve_hand_computed():
    curve = accuracy_rejection_curve(
        [0.2, 0.5, 0.9, 0.95], [0, 1, 0, 1], thresholds=[0.0, 0.5, 0.92, 1.0]
    )
    np.testing.assert_allclose(curve["rejected"], [0, 0.25, 0.75, 1.0])
    np.testing.assert_allclose(curve["accuracy"], [0.5, 2 / 3, 1.0, np.nan])
    assert curve["kept"].tolist() == [4, 3, 1, 0]
    default = accuracy_rejection_curve([0.2, 0.5], [0, 1])
    np.testing.assert_allclose(default["threshold"], np.linspace(0, 1, 11))


def test_accuracy_micro_and_per_relation():
    est = pd.DataFrame(
        {
            "model": "m",
            "dataset": "bear",
            "relation": ["P1", "P1", "P1", "P2"],
            "instance": list("abcd"),
            "correct": [True, False, True, False],
            "confidence": 0.5,
        }
    )
    assert accuracy(est["correct"]) == 0.5
    per = accuracy_per_relation(est).set_index("relation")
    assert per.loc["P1", "accuracy"] == pytest.approx(2 / 3) and per.loc["P1", "n"] == 3
    assert per.loc["P2", "accuracy"] == 0.0
    micro = (per["accuracy"] * per["n"]).sum() / per["n"].sum()
    assert micro == pytest.approx(accuracy(est["correct"]))


def test_confidences_below_zero_are_measured_as_they_are():
    # the paper's Entropy-Confidence (Eq. 7) can be below 0; the metrics take it as it is
    conf, corr = np.array([-0.5, -0.1, 0.4, 0.9]), np.array([0, 1, 0, 1])
    assert brier(conf, corr) == pytest.approx((0.25 + 1.21 + 0.16 + 0.01) / 4)
    assert ace(conf, corr, n_bins=1) == pytest.approx(abs(0.5 - 0.175))
    assert ace(conf, corr, n_bins=2) == pytest.approx((abs(0.5 + 0.3) + abs(0.5 - 0.65)) / 2)
    curve = calibration_curve(conf, corr, n_bins=2)
    assert curve["mean_confidence"].tolist() == pytest.approx([-0.3, 0.65])


@pytest.mark.parametrize(
    "conf, corr, message",
    [
        ([0.5, np.nan], [1, 0], r"confidence\[1\] is nan"),
        ([0.5, np.inf], [1, 0], r"confidence\[1\] is inf"),
        ([0.5, 1.2], [1, 0], r"confidence\[1\] is 1.2; expected values in \[0, 1\].*never above 1"),
        ([0.5, 0.2], [1, 2], r"correct\[1\] is 2"),
        ([0.5, 0.2], [1], "2 values but correct has 1"),
        ([], [], "empty"),
    ],
)
def test_bad_inputs(conf, corr, message):
    with pytest.raises(ValueError, match=message):
        ace(conf, corr)


def test_bad_bins():
    with pytest.raises(ValueError, match="n_bins"):
        ace([0.5], [1], n_bins=0)
    with pytest.raises(ValueError, match="strategy"):
        calibration_curve([0.5], [1], strategy="kmeans")
