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
from calib.confidence.bootstrap import (
    INTERVAL_METHODS,
    interval,
    interval_p_value,
    jackknife,
    replicates,
    resample_weights,
)
from calib.confidence.metrics import (
    BINNED,
    WEIGHTED,
    mce,
    rms_calibration_error,
    signed_gap,
    sorted_inputs,
)


def sample(n=400, seed=0, power=1.0):
    rng = np.random.default_rng(seed)
    conf = np.round(rng.random(n), 2)  # ties on purpose
    return conf, rng.random(n) < conf**power


def test_weighted_metrics_equal_metrics_of_the_expanded_sample():
    conf, corr = sample(300)
    order, c, y = sorted_inputs(conf, corr)
    w = next(resample_weights(300, 5, seed=3))
    for r in range(5):
        reps = np.repeat(conf, w[r])
        repy = np.repeat(corr, w[r])
        for name, fn in (
            ("ace", ace),
            ("ece", ece),
            ("brier", brier),
            ("mce", mce),
            ("rms", rms_calibration_error),
            ("gap", signed_gap),
        ):
            got = WEIGHTED[name](c, y, w[r : r + 1, order], 20)[0]
            assert got == pytest.approx(fn(reps, repy), abs=1e-12), name
        assert WEIGHTED["accuracy"](c, y, w[r : r + 1, order])[0] == pytest.approx(repy.mean())


def test_binned_metrics_take_one_outcome_vector_per_row():
    conf, _ = sample(250, seed=4)
    _, c, _ = sorted_inputs(conf, np.zeros(250))
    outcomes = (np.random.default_rng(1).random((6, 250)) < c).astype(float)
    ones = np.ones((1, 250), np.int64)
    for name in BINNED:
        got = WEIGHTED[name](c, outcomes, ones, 20)
        assert got.shape == (6,)
        np.testing.assert_allclose(
            got, [WEIGHTED[name](c, y, ones, 20)[0] for y in outcomes], rtol=0, atol=1e-14
        )
    with pytest.raises(ValueError, match="weights of one row or as many"):
        WEIGHTED["ace"](c, outcomes, np.ones((2, 250), np.int64), 20)


def test_every_metric_is_resampled_from_the_same_blocks():
    conf, corr = sample(300, seed=6)
    many = bootstrap_metrics(
        conf, corr, ("ace", "gap", "auroc", "aurc", "mce"), n_boot=120, seed=9
    ).set_index("metric")
    for m in many.index:  # the same as each metric on its own
        alone = bootstrap_metrics(conf, corr, (m,), n_boot=120, seed=9).iloc[0]
        assert (many.loc[m, "low"], many.loc[m, "high"]) == pytest.approx(
            (alone["low"], alone["high"]), abs=1e-14
        ), m
    assert many.loc["gap", "method"] == "bca" and many.loc["mce", "method"] == "centred"


def test_resample_weights_are_bootstrap_counts():
    blocks = list(resample_weights(50, 700, seed=1))
    w = np.concatenate(blocks)
    assert w.shape == (700, 50) and (w.sum(axis=1) == 50).all()
    # each instance is drawn once per resample on average
    assert w.mean() == pytest.approx(1.0)
    again = np.concatenate(list(resample_weights(50, 700, seed=1)))
    np.testing.assert_array_equal(w, again)


def test_resample_weights_are_the_stream_they_always_were():
    """Per-row counts of the same seeded draws as one bincount of all of them (how the blocks
    were counted before), plain and stratified."""
    from calib.confidence.bootstrap import stratified_resample_weights

    for n, n_boot, seed in ((1, 3, 0), (9, 300, 1), (1200, 300, 5)):
        rng = np.random.default_rng(seed)
        block = max(1, min(256, 4_000_000 // n))
        got = list(resample_weights(n, n_boot, seed))
        done = 0
        for w in got:
            b = min(block, n_boot - done)
            idx = rng.integers(0, n, size=(b, n))
            flat = (idx + (np.arange(b) * n)[:, None]).ravel()
            np.testing.assert_array_equal(w, np.bincount(flat, minlength=b * n).reshape(b, n))
            done += b
        assert done == n_boot
    strata = np.random.default_rng(3).integers(0, 5, 400)
    w = np.concatenate(list(stratified_resample_weights(strata, 50, 2)))
    for s in range(5):  # every stratum keeps its size in every resample
        assert (w[:, strata == s].sum(axis=1) == (strata == s).sum()).all()


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
        assert row["low"] <= row["value"] <= row["high"], row["metric"]
    assert a.set_index("metric")["method"].to_dict() == {
        "ace": "centred",
        "brier": "bca",
        "accuracy": "bca",
    }
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
    keys = {
        "model": "m",
        "dataset": "bear",
        "relation": "P1",
        "instance": [f"Q{i}" for i in range(200)],
    }
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
    assert res["low"] < res["r"] < res["high"]
    assert res == correlation_interval(x, y, n_boot=1000, seed=1)
    sp = correlation_interval(x, x**3, method="spearman", n_boot=200)
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


def ace_with_ties(n=120, seed=0):
    """A small ACE sample like a voting estimator's: 40% rejected (confidence 0, wrong), the
    rest rounded to 0.01 (ties); on it most resamples have a larger ACE than the sample."""
    rng = np.random.default_rng(seed)
    conf = np.where(rng.random(n) < 0.4, 0.0, np.round(rng.beta(1, 2, n), 2))
    return conf, (conf > 0) & (rng.random(n) < conf)


def ace_statistic(conf, corr):
    order, c, y = sorted_inputs(conf, corr)
    return lambda w: WEIGHTED["ace"](c, y, w[:, order], 20)


def test_percentile_and_bca_miss_the_ace_estimate_the_centred_interval_holds_it():
    conf, corr = ace_with_ties()
    stat = ace_statistic(conf, corr)
    point = ace(conf, corr)
    reps = replicates(stat, len(conf), 1000, seed=0)
    assert np.mean(reps < point) < 0.025  # the upward bias of ACE on resamples
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert point < lo  # the plain percentile interval lies above its estimate
    # BCa (before the widening every interval gets) lies beside the estimate too: its levels
    from scipy import stats

    from calib.confidence.bootstrap import _bca_levels, _share_below, acceleration

    z0 = stats.norm.ppf(_share_below(reps, point))
    levels = _bca_levels(z0, acceleration(jackknife(stat, len(conf))), 0.95)
    bca_hi = np.quantile(reps, levels[1])
    assert bca_hi < point
    # the centred interval: the resamples' spread, centred on the estimate
    value, low, high = bootstrap_interval(conf, corr, "ace", n_boot=1000, seed=0)
    assert value == pytest.approx(point)
    assert low < point < high
    shift = reps.mean() - point
    assert (low, high) == pytest.approx((lo - shift, hi - shift))
    assert high - low == pytest.approx(hi - lo)


def test_bca_agrees_with_scipy_on_a_skewed_mean():
    from scipy import stats

    x = np.random.default_rng(4).exponential(size=40)
    n = len(x)

    def mean(w):
        return w @ x / w.sum(axis=1)

    reps = replicates(mean, n, 20000, seed=1)
    ours = interval(x.mean(), reps, 0.95, "bca", jackknife(mean, n))
    ref = stats.bootstrap(
        (x,), np.mean, n_resamples=20000, method="BCa", random_state=2, confidence_level=0.95
    ).confidence_interval
    assert ours == pytest.approx((ref.low, ref.high), rel=0.03)
    pct = interval(x.mean(), reps, 0.95, "percentile")
    assert ours[0] > pct[0] and ours[1] > pct[1]  # BCa moves right for a right-skewed mean


def test_every_interval_holds_its_estimate_even_in_degenerate_cases():
    # all resamples equal (every instance correct): the interval is that value
    assert interval(1.0, np.ones(50), method="bca") == (1.0, 1.0)
    # resamples all on one side of the estimate: the near bound moves to it
    reps = np.linspace(0.2, 0.3, 200)
    for method in ("bca", "centred", "percentile"):
        lo, hi = interval(0.1, reps, method=method, jack=np.linspace(0, 1, 10))
        assert lo <= 0.1 <= hi, method
    assert interval(0.1, reps, method="percentile")[0] == 0.1
    # the centred interval is clipped to the metric's range
    lo, _ = interval(0.01, np.linspace(0.05, 0.3, 200), method="centred", bounds=(0, 1))
    assert lo == 0.0
    # where the acceleration breaks BCa's formula (1 - a z <= 0) there are no BCa levels
    from calib.confidence.bootstrap import _bca_levels

    assert _bca_levels(3.0, 0.3, 0.95) is None and _bca_levels(0.0, 0.0, 0.95) == pytest.approx(
        (0.025, 0.975)
    )
    assert np.isnan(interval(0.5, np.full(10, np.nan))[0])
    with pytest.raises(ValueError, match="interval method"):
        interval(0.5, reps, method="student")


def test_p_values_agree_with_the_intervals():
    conf, corr = sample(300, seed=7)
    for metric in ("ace", "brier", "accuracy"):
        for other in (conf, np.sqrt(conf), np.clip(conf + 0.05, 0, 1)):
            d = paired_difference(other, corr, conf, corr, metric, n_boot=400, seed=1)
            assert d["method"] == INTERVAL_METHODS[metric]
            assert d["low"] <= d["difference"] <= d["high"]
            excludes = d["low"] > 0 or d["high"] < 0
            if abs(d["p_value"] - 0.05) > 0.02:  # away from the edge, they must agree
                assert excludes == (d["p_value"] < 0.05), (metric, d)
    assert interval_p_value(0.3, np.linspace(0.2, 0.4, 101), "percentile", null=0.3) > 0.95
    assert interval_p_value(0.3, np.linspace(0.2, 0.4, 101), "bca") < 0.01


def test_shared_resamples_give_the_numbers_computed_without_them():
    """Inside ``shared_resamples`` every interval, paired difference, summary row and noise
    floor equals the one computed outside it, to the bit, and a metric's replicates of the same
    instances are computed once (the weights of a stream drawn once)."""
    from calib.confidence.bootstrap import (
        MetricStatistic,
        estimator_differences,
        metric_intervals,
        paired_difference,
        replicates,
        shared_resamples,
        shared_store,
    )
    from calib.confidence.noise_floor import floor_draws
    from calib.confidence.summary import summary

    rng = np.random.default_rng(11)
    n = 300
    rows = []
    for name in ("a", "b", "c"):
        conf = np.round(rng.random(n), 2)  # ties, as real confidences have
        corr = rng.random(n) < conf
        rows.append(
            pd.DataFrame(
                {
                    "model": "m",
                    "dataset": "bear",
                    "relation": [f"P{i % 7}" for i in range(n)],
                    "instance": [f"q{i}" for i in range(n)],
                    "estimator": name,
                    "confidence": conf,
                    "correct": corr,
                }
            ).sample(frac=1.0, random_state=3)  # row order must not matter
        )
    est = pd.concat(rows, ignore_index=True)
    conf_a = est.loc[est["estimator"] == "a"].sort_values("instance")["confidence"].to_numpy()
    corr_a = est.loc[est["estimator"] == "a"].sort_values("instance")["correct"].to_numpy()
    conf_b = est.loc[est["estimator"] == "b"].sort_values("instance")["confidence"].to_numpy()
    corr_b = est.loc[est["estimator"] == "b"].sort_values("instance")["correct"].to_numpy()
    every = ("ace", "ece", "mce", "rms", "brier", "accuracy", "gap", "auroc", "aurc")

    def work():
        return {
            "summary": summary(
                est,
                by=["model", "estimator"],
                n_boot=120,
                seed=4,
                metrics=every,
                floor=("ace", "ece", "mce", "rms"),
                n_draws=50,
            ),
            "again": summary(
                est, by=["model", "estimator"], n_boot=120, seed=4, metrics=("ece", "brier")
            ),
            "differences": estimator_differences(
                est, metrics=("ace", "brier", "auroc", "aurc"), n_boot=120, seed=4
            ),
            "paired": paired_difference(conf_a, corr_a, conf_b, corr_b, "rms", 120, 4),
            "intervals": metric_intervals(
                conf_a.astype(float), corr_a.astype(float), every, 120, 4
            ),
            "floor": floor_draws(conf_b, "mce", 50, 4),
        }

    plain = work()
    with shared_resamples():
        shared = work()
        kept = shared_store()
        assert kept is not None and len(kept.floors) == 3  # one per confidence vector
        n_kept = len(kept.replicates)
        again = replicates(MetricStatistic("brier", conf_a, corr_a), n, 120, 4)
        assert len(kept.replicates) == n_kept  # computed before: reused
        assert not again.flags.writeable
    assert shared_store() is None
    for key in ("summary", "again", "differences"):
        pd.testing.assert_frame_equal(shared[key], plain[key], check_exact=True, obj=key)
    assert shared["paired"] == plain["paired"]
    assert shared["intervals"] == plain["intervals"]
    np.testing.assert_array_equal(shared["floor"], plain["floor"])
