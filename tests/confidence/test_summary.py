"""One table of ACE / Brier / accuracy per estimator; the reduction choice of Appendix C."""

import numpy as np
import pandas as pd
import pytest

from calib.confidence import (
    REDUCTIONS,
    accuracy,
    ace,
    all_estimates,
    base,
    brier,
    compare_reductions,
    harmonic_mean,
    sentence_scores,
    summary,
)


@pytest.fixture(scope="module")
def estimates(random_table):
    return all_estimates(sentence_scores(random_table), aggregations=("min", "vote-2"))


def test_readme_flow(random_table):
    # the five lines the README shows
    from calib.confidence import all_estimates, sentence_scores, summary

    scores = random_table  # a score table (calib.scoring.schema)
    sent = sentence_scores(scores, reduction="sum")  # Appendix C reduction
    est = all_estimates(sent)  # Base, Margin, Average/Consistency/Entropy
    table = summary(est, n_boot=200, seed=0)  # ACE, Brier, accuracy + 95% intervals
    assert len(table) == 2 * 5
    assert {"ace", "ace_low", "ace_high", "brier", "accuracy"} <= set(table.columns)


def test_summary_values_match_the_metrics(estimates):
    table = summary(estimates, n_boot=100, seed=1)
    assert list(table.columns[:4]) == ["model", "dataset", "estimator", "template"]
    assert len(table) == 2 * 8 and (table["n"] == 36).all()
    for _, row in table.iterrows():
        part = estimates[
            (estimates["model"] == row["model"]) & (estimates["estimator"] == row["estimator"])
        ]
        assert row["ace"] == pytest.approx(ace(part["confidence"], part["correct"]))
        assert row["brier"] == pytest.approx(brier(part["confidence"], part["correct"]))
        assert row["accuracy"] == pytest.approx(accuracy(part["correct"]))
        assert row["rejection_rate"] == pytest.approx(part["rejected"].mean())
        for m in ("ace", "brier", "accuracy"):  # every interval holds its estimate
            assert row[f"{m}_low"] <= row[m] <= row[f"{m}_high"], (m, row)
    assert (table.loc[table["estimator"] == "Base", "template"] == "paraphrase-0").all()
    assert table.loc[table["estimator"] == "Average/vote-2", "rejection_rate"].gt(0).all()


def test_summary_is_seeded_and_order_free(estimates):
    a = summary(estimates, n_boot=50, seed=3)
    b = summary(estimates.sample(frac=1.0, random_state=2), n_boot=50, seed=3)
    pd.testing.assert_frame_equal(a, b)
    none = summary(estimates, n_boot=0)
    assert none["ace_low"].isna().all()
    np.testing.assert_allclose(none["ace"], a["ace"])


def test_summary_needs_one_row_per_instance(random_table):
    every = base(sentence_scores(random_table), None)  # 12 templates per instance
    with pytest.raises(ValueError, match="several rows for one instance"):
        summary(every, by=["model"], n_boot=0)
    per_template = summary(every, n_boot=0)
    assert len(per_template) == 2 * 12


def test_compare_reductions(random_table):
    table = compare_reductions(random_table)
    assert list(table["reduction"].unique()) == list(REDUCTIONS)
    assert len(table) == 2 * 4
    np.testing.assert_allclose(table["H"], harmonic_mean(table["accuracy"], table["ace"]))
    row = table[(table["model"] == "m1") & (table["reduction"] == "mean-answer")].iloc[0]
    est = base(sentence_scores(random_table[random_table["model"] == "m1"], "mean-answer"))
    assert row["ace"] == pytest.approx(ace(est["confidence"], est["correct"]))


def test_opt_in_metrics_beyond_the_paper(estimates):
    from calib.confidence import aurc, auroc, mce, noise_floor, rms_calibration_error, signed_gap

    metrics = ("ace", "brier", "accuracy", "ece", "mce", "rms", "gap", "auroc", "aurc")
    table = summary(
        estimates,
        by=["model", "estimator"],
        n_boot=60,
        seed=2,
        metrics=metrics,
        floor=("ace", "ece"),
        n_draws=200,
    )
    plain = summary(estimates, by=["model", "estimator"], n_boot=60, seed=2)
    # the default columns are unchanged, and come from the same resamples
    pd.testing.assert_frame_equal(table[plain.columns], plain)
    for col in (
        "gap_direction",
        "ace_floor",
        "ace_floor_se",
        "ace_floor_low",
        "ace_floor_high",
        "ace_floor_p",
        "ace_within_floor",
        "ace_debiased",
        "ace_debiased_low",
        "ace_debiased_high",
        "ece_floor",
        "ece_debiased",
    ):
        assert col in table.columns, col
    for _, row in table.iterrows():
        part = estimates[(estimates.model == row.model) & (estimates.estimator == row.estimator)]
        c, y = part.confidence, part.correct
        for m, fn in (
            ("mce", mce),
            ("rms", rms_calibration_error),
            ("gap", signed_gap),
            ("auroc", auroc),
            ("aurc", aurc),
        ):
            assert row[m] == pytest.approx(fn(c, y)), m
            assert row[f"{m}_low"] <= row[m] <= row[f"{m}_high"], m
        f = noise_floor(c, "ace", n_draws=200, seed=2)
        assert row.ace_floor == pytest.approx(f["floor"])
        assert row.ace_debiased == pytest.approx(row.ace - f["floor"])
        assert row.ace_debiased_low < row.ace_low - f["floor"]
        assert row.ace_within_floor == (row.ace <= row.ace_floor_high)
    with pytest.raises(ValueError, match="noise floor needs a binned metric"):
        summary(estimates, n_boot=0, floor=("ece",))  # ECE not among the metrics
    with pytest.raises(ValueError, match="noise floor needs a binned metric"):
        summary(estimates, n_boot=0, metrics=("brier",), floor=("brier",))
