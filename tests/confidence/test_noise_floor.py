"""The noise floor of ACE / ECE / MCE / RMS: the value a perfectly calibrated estimator with the
same confidences shows at this sample size."""

import importlib

import numpy as np
import pytest

from calib.confidence import ace, ece, mce, noise_floor, rms_calibration_error
from calib.confidence.noise_floor import (
    debiased,
    floor_draws,
    floor_p_value,
    floor_record,
    outcome_blocks,
    within_floor,
)

PLAIN = {"ace": ace, "ece": ece, "mce": mce, "rms": rms_calibration_error}


def beta_confidences(n, seed=0):
    return np.random.default_rng(seed).beta(1.2, 3.0, n)


def test_the_floor_is_the_mean_metric_of_independently_simulated_calibrated_samples():
    conf = beta_confidences(240, seed=3)
    for metric in ("ace", "ece"):
        f = noise_floor(conf, metric, n_draws=1000, seed=1)
        # an independent simulation with the plain metric functions
        rng = np.random.default_rng(12345)
        sims = np.array([PLAIN[metric](conf, rng.random(len(conf)) < conf) for _ in range(1000)])
        se = np.hypot(f["floor_se"], sims.std(ddof=1) / np.sqrt(len(sims)))
        assert abs(f["floor"] - sims.mean()) < 4 * se, (metric, f, sims.mean())
        assert f["floor_low"] < f["floor"] < f["floor_high"]
        assert f["floor_se"] < 0.05 * sims.std()  # its own Monte-Carlo error is small


def test_vectorised_draws_equal_the_metric_of_each_drawn_outcome_vector():
    conf = beta_confidences(150, seed=4)
    c = np.sort(conf)
    outcomes = np.concatenate(list(outcome_blocks(c, 20, seed=7)))
    for metric, fn in PLAIN.items():
        draws = floor_draws(conf, metric, n_draws=20, seed=7)
        expected = [fn(c, y) for y in outcomes]
        np.testing.assert_allclose(draws, expected, rtol=0, atol=1e-12)


def test_the_floor_shrinks_with_n():
    floors = [noise_floor(beta_confidences(n), n_draws=300)["floor"] for n in (120, 480, 1920)]
    assert floors[0] > floors[1] > floors[2]
    assert floors[2] / floors[0] < 0.4  # binning noise ~ 1 / sqrt(instances per bin)


def test_the_issues_beta_table():
    # the issue's simulation: Beta(1.2, 3) confidences, 20 equal-count bins, 300 draws
    floor = {n: noise_floor(beta_confidences(n), n_draws=300)["floor"] for n in (120, 1000)}
    assert floor[120] == pytest.approx(0.13, abs=0.015)
    assert floor[1000] == pytest.approx(0.044, abs=0.006)


def test_seeded_and_independent_of_the_block_size(monkeypatch):
    conf = beta_confidences(200)
    a = floor_draws(conf, "ace", 50, seed=2)
    np.testing.assert_array_equal(a, floor_draws(conf, "ace", 50, seed=2))
    assert not np.array_equal(a, floor_draws(conf, "ace", 50, seed=3))
    module = importlib.import_module("calib.confidence.noise_floor")  # the package's
    monkeypatch.setattr(module, "_BLOCK_CELLS", 1000)  # `noise_floor` is the function; 5 draws
    np.testing.assert_array_equal(a, floor_draws(conf, "ace", 50, seed=2))
    # the order of the confidences does not matter
    np.testing.assert_array_equal(a, floor_draws(conf[::-1], "ace", 50, seed=2))


def test_the_floor_test_holds_its_level_and_finds_miscalibration():
    rng = np.random.default_rng(0)
    conf = beta_confidences(120, seed=5)
    p = []
    for _ in range(60):  # perfectly calibrated samples: the floor test rejects rarely
        y = rng.random(120) < conf
        rec = floor_record(conf, ace(conf, y), metric="ace", n_draws=200, seed=1)
        p.append(rec["ace_floor_p"])
        assert rec["ace_within_floor"] == (ace(conf, y) <= rec["ace_floor_high"])
    assert np.mean(np.array(p) <= 0.025) <= 0.1
    # overconfident: right only a third as often as the confidence says
    y = rng.random(120) < conf / 3
    rec = floor_record(conf, ace(conf, y), metric="ace", n_draws=200, seed=1)
    assert not rec["ace_within_floor"] and rec["ace_floor_p"] < 0.01
    assert rec["ace_debiased"] == pytest.approx(ace(conf, y) - rec["ace_floor"])


def test_record_fields_and_the_debiased_interval():
    conf = beta_confidences(100)
    rec = floor_record(conf, 0.2, 0.15, 0.26, "ece", n_draws=100, seed=0)
    assert list(rec) == [
        "ece_floor",
        "ece_floor_se",
        "ece_floor_low",
        "ece_floor_high",
        "ece_floor_p",
        "ece_within_floor",
        "ece_debiased",
        "ece_debiased_low",
        "ece_debiased_high",
    ]
    z = 1.959963984540054
    assert rec["ece_debiased_low"] == pytest.approx(
        0.15 - rec["ece_floor"] - z * rec["ece_floor_se"]
    )
    assert rec["ece_debiased_high"] == pytest.approx(
        0.26 - rec["ece_floor"] + z * rec["ece_floor_se"]
    )
    d, lo, hi = debiased(0.3, float("nan"), float("nan"), 0.1, 0.01)
    assert d == pytest.approx(0.2) and np.isnan(lo) and np.isnan(hi)
    assert floor_p_value(0.5, np.array([0.1, 0.6, 0.7])) == pytest.approx(3 / 4)
    assert floor_p_value(0.9, np.array([0.1, 0.6, 0.7])) == pytest.approx(1 / 4)
    # a draw equal to the value up to rounding counts as >= (either side of it)
    tied = 0.1 + 0.2  # 0.30000000000000004
    assert floor_p_value(tied, np.array([0.3, 0.1, 0.5])) == pytest.approx(3 / 4)
    assert floor_p_value(0.3, np.array([tied, 0.1, 0.5])) == pytest.approx(3 / 4)
    assert within_floor(0.1, 0.1) and not within_floor(0.11, 0.1)


def test_confidences_below_zero_are_never_correct_and_measured_as_they_are():
    conf = np.r_[np.full(50, -0.3), beta_confidences(150)]
    outcomes = np.concatenate(list(outcome_blocks(np.sort(conf), 30, seed=0)))
    assert (outcomes[:, :50] == 0).all()
    # all at -0.3: one bin, never correct, |0 - (-0.3)| in every draw
    f = noise_floor(np.full(40, -0.3), n_draws=20)
    assert f["floor"] == pytest.approx(0.3) and f["floor_se"] == pytest.approx(0.0, abs=1e-12)


def test_bad_arguments():
    with pytest.raises(ValueError, match="binned metrics"):
        noise_floor([0.5, 0.6], "brier")
    with pytest.raises(ValueError, match="n_draws"):
        noise_floor([0.5, 0.6], n_draws=1)
    with pytest.raises(ValueError, match="never above 1"):
        noise_floor([0.5, 1.6])
