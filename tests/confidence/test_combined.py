"""Intervals of statistics that combine several metrics over one or more samples
(:mod:`calib.confidence.combined`): one term is summary()'s interval, terms of one sample share
their resamples, samples are resampled independently, debiasing subtracts each term's floor,
and repeat_summary is summary() for means over draws."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.confidence import ace, summary
from calib.confidence.combined import (
    Term,
    combined_floor,
    combined_interval,
    estimate_terms,
    instance_ids,
    repeat_summary,
    sample_sizes,
    term_replicates,
)
from calib.confidence.noise_floor import noise_floor


def _sample(n: int, seed: int, shift: float = 0.0):
    rng = np.random.default_rng(seed)
    conf = np.clip(rng.beta(2, 2, size=n) + shift, 0, 1)
    correct = rng.random(n) < conf
    return conf, correct


def _estimates(conf, correct, model="m", estimator="Base", **extra):
    n = len(conf)
    return pd.DataFrame(
        {
            "model": model,
            "dataset": "bear",
            "relation": "R",
            "instance": [f"i{i:03d}" for i in range(n)],
            "estimator": estimator,
            "confidence": conf,
            "correct": correct,
            **extra,
        }
    )


def test_one_term_is_summarys_interval():
    conf, corr = _sample(80, 0)
    got = combined_interval([Term("s", "ace", conf, corr)], [1.0], n_boot=200, seed=3)
    table = summary(_estimates(conf, corr), by=["model"], n_boot=200, seed=3, metrics=("ace",))
    assert got["difference"] == pytest.approx(ace(conf, corr))
    assert got["low"] == pytest.approx(table["ace_low"].iloc[0])
    assert got["high"] == pytest.approx(table["ace_high"].iloc[0])
    assert got["method"] == "centred" and got["n"] == 80 and got["floor_shift"] == 0


def test_terms_of_one_sample_share_their_resamples_and_samples_are_independent():
    a, ya = _sample(50, 1)
    same = [Term("s", "accuracy", a, ya), Term("s", "accuracy", a, ya)]
    reps = term_replicates(same, 100, 0)
    assert np.array_equal(reps[:, 0], reps[:, 1])  # one resample for both
    other = [Term("s", "accuracy", a, ya), Term("t", "accuracy", a, ya)]
    reps = term_replicates(other, 100, 0)
    assert not np.array_equal(reps[:, 0], reps[:, 1])  # two independent samples
    paired = combined_interval(same, [1.0, -1.0], n_boot=100, seed=0)
    assert paired["difference"] == 0 and paired["low"] == paired["high"] == 0
    apart = combined_interval(other, [1.0, -1.0], n_boot=300, seed=0)
    assert apart["difference"] == 0 and apart["low"] < -0.05 and apart["high"] > 0.05
    assert apart["n"] == 100 and apart["method"] == "bca"


def test_a_mean_over_draws_and_a_partial_term():
    a, ya = _sample(40, 2)
    b, _yb = _sample(40, 3)
    got = combined_interval(
        [Term("s", "ace", a, ya), Term("s", "ace", b, ya)], [0.5, 0.5], n_boot=50, seed=0
    )
    assert got["difference"] == pytest.approx((ace(a, ya) + ace(b, ya)) / 2)
    assert got["low"] <= got["difference"] <= got["high"]
    idx = np.arange(10, 30)
    part = Term("s", "accuracy", a[idx], ya[idx], idx)
    whole = Term("s", "accuracy", a, ya)
    got = combined_interval([whole, part], [1.0, -1.0], n_boot=50, seed=0)
    assert got["difference"] == pytest.approx(ya.mean() - ya[idx].mean())
    with pytest.raises(ValueError, match="only partial terms"):
        sample_sizes([part])
    assert sample_sizes([part], {"s": 40}) == {"s": 40}
    with pytest.raises(ValueError, match="outside sample"):
        sample_sizes([part], {"s": 20})


def test_debiasing_subtracts_each_terms_floor():
    a, ya = _sample(60, 4)
    b, yb = _sample(200, 5)
    terms = [Term("a", "ace", a, ya), Term("b", "ace", b, yb)]
    raw = combined_interval(terms, [1.0, -1.0], n_boot=100, seed=0)
    deb = combined_interval(terms, [1.0, -1.0], n_boot=100, seed=0, debias=True, n_draws=200)
    fa = noise_floor(a, n_draws=200, seed=0)["floor"]
    fb = noise_floor(b, n_draws=200, seed=0)["floor"]
    assert deb["difference"] == pytest.approx(raw["difference"] - (fa - fb))
    assert deb["floor_shift"] == pytest.approx(fa - fb) and deb["debiased"]
    # the floors' Monte-Carlo error widens the interval
    assert deb["high"] - deb["low"] > raw["high"] - raw["low"]


def test_a_nonlinear_combination():
    a, ya = _sample(40, 6)
    b, yb = _sample(40, 7)
    terms = [Term("s", "accuracy", a, ya), Term("s", "accuracy", b, yb)]
    got = combined_interval(terms, combine=lambda v: np.abs(v[:, 0] - v[:, 1]), n_boot=50, seed=0)
    assert got["difference"] == pytest.approx(abs(ya.mean() - yb.mean()))


def test_the_floor_of_a_mean_over_draws():
    a, ya = _sample(50, 8)
    b, yb = _sample(50, 9)
    f = combined_floor(
        [Term("s", "ace", a, ya), Term("s", "ace", b, yb)], [0.5, 0.5], n_draws=300, seed=1
    )
    one, two = noise_floor(a, n_draws=300, seed=1), noise_floor(b, n_draws=300, seed=1)
    assert f["floor"] == pytest.approx((one["floor"] + two["floor"]) / 2)
    assert f["floor_low"] <= f["floor"] <= f["floor_high"] and len(f["draws"]) == 300
    with pytest.raises(ValueError, match="binned"):
        combined_floor([Term("s", "accuracy", a, ya)], [1.0])


def test_repeat_summary_of_identical_draws_is_summary():
    conf, corr = _sample(60, 10)
    est = pd.concat([_estimates(conf, corr, repeat=r, k=60) for r in range(3)])
    out = repeat_summary(est, by=["model", "estimator", "k"], n_boot=100, seed=2, n_draws=200)
    ref = summary(
        _estimates(conf, corr),
        by=["model"],
        n_boot=100,
        seed=2,
        metrics=("accuracy", "ace"),
        floor=("ace",),
        n_draws=200,
    )
    row, want = out.iloc[0], ref.iloc[0]
    assert row["repeats"] == 3 and row["n"] == 60
    for col in (
        "ace",
        "ace_low",
        "ace_high",
        "accuracy",
        "ace_floor",
        "ace_debiased",
        "ace_debiased_low",
    ):
        assert row[col] == pytest.approx(want[col]), col
    assert row["ace_min"] == row["ace_max"] == pytest.approx(row["ace"])
    assert row["confidence"] == pytest.approx(conf.mean())
    assert bool(row["ace_within_floor"]) == bool(want["ace_within_floor"])
    assert list(out.columns[:5]) == ["model", "estimator", "k", "n", "repeats"]


def test_estimate_terms_align_the_instances_of_a_sample():
    conf, corr = _sample(20, 11)
    est = pd.concat([_estimates(conf, corr, "m1"), _estimates(conf[::-1], corr[::-1], "m2")])
    terms = estimate_terms(est.sample(frac=1, random_state=0), "s", "ace", ["model"])
    assert np.allclose(terms[("m1",)].confidence, conf)  # sorted by instance again
    short = est[~((est["model"] == "m2") & (est["instance"] == "i000"))]
    with pytest.raises(ValueError, match="other instances"):
        estimate_terms(short, "s", "ace", ["model"])
    ids = instance_ids(_estimates(conf, corr))
    part = estimate_terms(short[short["model"] == "m2"], "s", "ace", ["model"], within=ids)
    assert list(part[("m2",)].index) == list(range(1, 20))
    whole = estimate_terms(est[est["model"] == "m1"], "s", "ace", ["model"], within=ids)
    assert whole[("m1",)].index is None
    with pytest.raises(ValueError, match="several rows per instance"):
        estimate_terms(est, "s", "ace", ["estimator"])


def test_instance_ids_join_the_keys_of_each_row_as_the_row_wise_join_did():
    # the reference is the row-wise join instance_ids replaced (issue 24: Python per row);
    # keys of string, Arrow-string, categorical and integer columns
    frame = pd.DataFrame(
        {
            "dataset": pd.Series(["bear", "factor-wiki", "bear"] * 5, dtype="string[pyarrow]"),
            "relation": pd.Categorical(["P19", "P1", "P1"] * 5),
            "instance": np.arange(15),
        }
    )
    want = frame[["dataset", "relation", "instance"]].astype(str).agg("|".join, axis=1)
    got = instance_ids(frame)
    assert got.dtype == object and list(got) == list(want)
    assert list(instance_ids(frame, ["relation"])) == list(frame["relation"].astype(str))
    assert len(instance_ids(frame.iloc[:0])) == 0
    conf, corr = _sample(6, 3)
    est = _estimates(conf, corr)
    with pytest.raises(ValueError, match="not in sample"):
        estimate_terms(est, "s", "ace", ["model"], within=instance_ids(est.iloc[1:]))


def _terms_per_group(estimates, by, keys=("dataset", "relation", "instance")):
    """estimate_terms' terms as it made them before issue 24: each group sorted on its own."""
    out = {}
    for label, part in estimates.groupby(list(by), sort=False):
        part = part.sort_values(list(keys), kind="stable")
        out[label] = (part["confidence"].to_numpy(float), part["correct"].to_numpy(bool))
    return out


def test_estimate_terms_sort_each_group_as_a_sort_of_the_group_alone_would():
    rng = np.random.default_rng(5)
    parts = []
    for model in ("m2", "m1", "m3"):
        for rep in (1, 0):
            conf, corr = _sample(30, int(rng.integers(1000)))
            part = _estimates(conf, corr, model, repeat=rep)
            part["relation"] = rng.choice(["P19", "P1", "P20"], len(part))
            parts.append(part)
    est = pd.concat(parts).sample(frac=1, random_state=1)
    est.index = rng.permutation(len(est)) + 100  # positions, not labels, count
    est = est.drop_duplicates(["model", "repeat", "relation", "instance"])
    want = _terms_per_group(est, ["model", "repeat"])
    ids = instance_ids(
        est.sort_values(["dataset", "relation", "instance"]).drop_duplicates(
            ["dataset", "relation", "instance"]
        )
    )
    got = estimate_terms(est, "s", "ace", ["model", "repeat"], within=np.sort(ids))
    assert list(got) == list(want)  # the groups in first-seen order
    for label, (conf, corr) in want.items():
        assert np.array_equal(got[label].confidence, conf)
        assert np.array_equal(got[label].correct, corr)


def test_a_term_asked_for_again_gets_the_same_replicates_and_floor():
    from calib.confidence import combined

    conf, corr = _sample(80, 21)
    terms = [Term("s", "ace", conf, corr), Term("s", "brier", conf, corr)]
    combined._MEMO.clear()
    fresh = combined_interval(terms, [1.0, -1.0], n_boot=50, seed=3, debias=True)
    again = combined_interval(terms, [1.0, -1.0], n_boot=50, seed=3, debias=True)
    assert fresh == again and len(combined._MEMO) == 3  # two replicate columns, one floor
    reps = term_replicates(terms, 50, 3)
    combined._MEMO.clear()
    assert np.array_equal(reps, term_replicates(terms, 50, 3))
    other = term_replicates(terms, 50, 4)  # another seed: other resamples
    assert not np.array_equal(reps, other)
    shifted = Term("s", "ace", np.clip(conf + 0.01, 0, 1), corr)
    assert not np.array_equal(term_replicates([shifted], 50, 3)[:, 0], reps[:, 0])


def test_bad_terms_are_errors():
    conf, corr = _sample(10, 12)
    with pytest.raises(ValueError, match="unknown metric"):
        Term("s", "nope", conf, corr)
    t = Term("s", "ace", conf, corr)
    with pytest.raises(ValueError, match="either coefs"):
        combined_interval([t], n_boot=10)
    with pytest.raises(ValueError, match="2 coefficients for 1 terms"):
        combined_interval([t], [1.0, 2.0], n_boot=10)
