"""The reductions chapter (Appendix C): accuracy, ACE and H per reduction and objective, their
paired differences with intervals, the authors' values through the same means, the confidence
histograms and their shape, and the chapter's claims on hand-made evidence."""

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import REDUCTIONS, compare_reductions, harmonic_mean
from calib.data.reported import reported
from calib.experiments import reductions as rx
from calib.experiments.quantifiers import Evidence

OBJECTIVES = {"m2": "clm", "m1": "mlm"}


@pytest.fixture(scope="module")
def scores():
    return random_score_table(models=("m2", "m1"))


@pytest.fixture(scope="module")
def table(scores):
    return rx.reduction_table(scores, OBJECTIVES, n_bootstrap=30)


def test_reduction_table_is_compare_reductions_with_objectives(scores, table):
    assert len(table) == 2 * len(REDUCTIONS)
    assert list(dict.fromkeys(table["model"])) == ["m2", "m1"]
    assert list(table["reduction"][:4]) == list(REDUCTIONS)
    assert dict(zip(table["model"], table["objective"])) == OBJECTIVES
    assert set(table["label"]) == {"Sum", "Mean", "Sum (A)", "Mean (A)"}
    plain = scores[scores["template"] == "paraphrase-0"]
    ref = compare_reductions(plain).set_index(["model", "reduction"])
    mine = table.set_index(["model", "reduction"])
    for col in ("accuracy", "ace", "H"):
        assert np.allclose(mine[col], ref.loc[mine.index, col])
    assert (table["accuracy_low"] <= table["accuracy_high"]).all()
    assert rx.reduction_table(scores, OBJECTIVES, n_bootstrap=0)["ace_low"].isna().all()
    with pytest.raises(ValueError, match="m1"):
        rx.reduction_table(scores, {"m2": "clm"})
    with pytest.raises(ValueError, match="paraphrase-0"):
        rx.reduction_table(scores[scores["template"] != "paraphrase-0"], OBJECTIVES)


def test_objective_means_average_per_model_h():
    frame = pd.DataFrame({"objective": ["clm", "clm", "mlm"], "reduction": ["sum"] * 3,
                          "accuracy": [0.2, 0.6, 0.3], "ace": [0.1, 0.3, 0.5]})
    means = rx.objective_means(frame).set_index(["objective", "metric"])
    h = harmonic_mean(np.array([0.2, 0.6]), np.array([0.1, 0.3]))
    assert means.loc[("clm", "H"), "value"] == pytest.approx(h.mean())
    assert means.loc[("clm", "H"), "value"] != pytest.approx(harmonic_mean(0.4, 0.2))
    assert means.loc[("clm", "accuracy"), "value"] == pytest.approx(0.4)
    assert means.loc[("mlm", "ace"), "n_models"] == 1


def test_objective_means_read_the_authors_values():
    repo = reported("kissling2026_repo_reduction_strategies")
    means = rx.objective_means(repo, objective="model_type", reduction="reduction_label")
    assert set(means["objective"]) == {"CLM", "MLM"}
    clm_sum = repo[(repo["model_type"] == "CLM") & (repo["reduction_label"] == "Sum")]
    row = means[(means["objective"] == "CLM") & (means["reduction"] == "Sum")
                & (means["metric"] == "accuracy")].iloc[0]
    assert row["value"] == pytest.approx(clm_sum["accuracy"].mean())
    assert row["n_models"] == len(clm_sum)


def test_objective_differences_are_figure7s_mean_differences_with_paired_intervals(scores,
                                                                                   table):
    est = rx.base_estimates(scores)
    diffs = rx.objective_differences(est, OBJECTIVES, rx.SUM_PAIRS, "H", n_bootstrap=50,
                                     seed=0)
    assert len(diffs) == 2 * 3 and set(diffs["objective"]) == {"clm", "mlm"}
    h = table.set_index(["model", "reduction"])["H"]
    for row in diffs.itertuples():
        model = next(m for m, o in OBJECTIVES.items() if o == row.objective)
        assert row.difference == pytest.approx(h[(model, row.a)] - h[(model, row.b)])
        assert row.low <= row.difference <= row.high and row.n_models == 1 and row.n_boot == 50
    again = rx.objective_differences(est, OBJECTIVES, rx.SUM_PAIRS, "H", n_bootstrap=50, seed=0)
    pd.testing.assert_frame_equal(diffs, again)  # seeded
    same = rx.objective_differences(est, OBJECTIVES, [("sum", "sum")], "accuracy", 20)
    assert (same[["difference", "low", "high"]] == 0).all().all()
    acc = rx.objective_differences(est, OBJECTIVES, rx.MEAN_PAIRS, "accuracy", 20)
    assert set(acc["method"]) == {"bca"} and set(diffs["method"]) == {"centred"}
    with pytest.raises(ValueError, match="n_bootstrap >= 1"):
        rx.objective_differences(est, OBJECTIVES, rx.SUM_PAIRS, "H", n_bootstrap=0)


def test_a_paired_bootstrap_needs_the_models_to_share_their_facts(scores):
    est = rx.base_estimates(scores)
    est = est[~((est["model"] == "m1") & (est["instance"] == est["instance"].iloc[0]))]
    with pytest.raises(ValueError, match="other facts"):
        rx.objective_differences(est, {"m2": "clm", "m1": "clm"}, rx.SUM_PAIRS, "H", 10)


def test_the_shape_of_each_confidence_distribution(scores):
    from scipy.stats import skew

    est = rx.base_estimates(scores)
    shape = rx.confidence_shape(est, n_bootstrap=50, seed=0).set_index(["model", "reduction"])
    part = est[(est["model"] == "m1") & (est["reduction"] == "mean")]["confidence"]
    row = shape.loc[("m1", "mean")]
    assert row["skewness"] == pytest.approx(skew(part.to_numpy()))
    assert row["max"] == part.max() and row["n"] == len(part)
    assert row["skewness_low"] <= row["skewness"] <= row["skewness_high"]
    assert rx.confidence_shape(est, n_bootstrap=0)["skewness_low"].isna().all()


def _evidence(units, low, high, **cols):
    frame = pd.DataFrame({"unit": units, "low": low, "high": high, **cols})
    frame["difference"] = (frame["low"] + frame["high"]) / 2
    return Evidence(frame, "hand-made")


def test_the_claims_rules_on_hand_made_evidence():
    both = _evidence(["CLMs: Sum vs Mean", "MLMs: Sum vs Mean"], [0.01, 0.02], [0.05, 0.06],
                     objective=["clm", "mlm"])
    assert rx.sum_highest_h(both).verdict == "holds"
    mlm_against = _evidence(["CLMs: Sum vs Mean", "MLMs: Sum vs Mean"], [0.01, -0.06],
                            [0.05, -0.02], objective=["clm", "mlm"])
    assert rx.sum_highest_h(mlm_against).verdict == "does not hold"
    clm_only = _evidence(["CLMs: Sum vs Mean"], [0.01], [0.05], objective=["clm"])
    assert rx.sum_highest_h(clm_only).verdict == "not testable"
    open_ = _evidence(["CLMs: Sum vs Mean", "MLMs: Sum vs Mean"], [-0.01, 0.02], [0.05, 0.06],
                      objective=["clm", "mlm"])
    assert rx.sum_highest_h(open_).verdict == "undecided"
    trade = _evidence(["CLMs: Mean vs Sum (ace)", "MLMs: Mean vs Sum (accuracy)"],
                      [-0.2, -0.1], [-0.1, -0.05], objective=["clm", "mlm"])
    assert rx.mean_trades_accuracy(trade).verdict == "holds"
    skewed = _evidence(["a", "b"], [1.2, 1.01], [2.0, 1.5])
    assert rx.mean_right_skewed(skewed).verdict == "holds"
    assert rx.mean_right_skewed(_evidence(["a"], [0.2], [0.9])).verdict == "does not hold"


def _shape_result(top: float, per_relation, models=("opt-1.3b",)):
    shape = pd.DataFrame({"model": list(models), "reduction": "mean", "max": top,
                          "skewness": 2.0, "skewness_low": 1.5, "skewness_high": 2.5, "n": 9})
    empty = pd.DataFrame({"x": []})
    return rx.ReductionsResult(rx.Params(models=models, per_relation=per_relation),
                               {m: "clm" for m in models}, 60, 9, empty, empty, empty, empty,
                               empty, shape, empty)


def test_the_largest_confidence_of_opt13b_on_a_sample_can_only_refute_the_claim():
    on_sample = rx.mean_max_half(rx.mean_max_half_build(_shape_result(0.42, per_relation=2)))
    assert on_sample.verdict == "undecided"  # all of BEAR might hold a larger one
    assert rx.mean_max_half(rx.mean_max_half_build(_shape_result(0.42, None))).verdict == \
        "holds"
    assert rx.mean_max_half(rx.mean_max_half_build(_shape_result(0.61, 2))).verdict == \
        "does not hold"
    other = rx.mean_max_half(rx.mean_max_half_build(_shape_result(0.4, None, ("gpt2",))))
    assert other.verdict == "not testable" and "opt-1.3b is not among" in other.reason


def test_confidence_histograms(scores):
    hist = rx.confidence_histograms(scores, OBJECTIVES, bins=10)
    assert len(hist) == 2 * len(REDUCTIONS) * 10
    n = scores[scores["template"] == "paraphrase-0"].groupby("model")["instance"].nunique()
    totals = hist.groupby(["model", "reduction"])["count"].sum()
    assert (totals == n.loc[totals.index.get_level_values("model")].to_numpy()).all()
    assert np.allclose(hist.groupby(["model", "reduction"])["share"].sum(), 1.0)
    assert hist["lower"].min() == 0 and hist["upper"].max() == 1
    assert dict(zip(hist["model"], hist["objective"])) == OBJECTIVES
    with pytest.raises(ValueError, match="bins"):
        rx.confidence_histograms(scores, bins=0)


def test_histogram_chart_draws_bars_from_zero(scores):
    from calib.report import charts

    hist = rx.confidence_histograms(scores, OBJECTIVES, bins=5)
    spec = charts.binned_histogram(hist, row="model", column="label").to_dict()
    enc = spec["spec"]["encoding"]
    assert enc["y2"] == {"datum": 0} and enc["x2"]["field"] == "upper"
    assert spec["facet"]["column"]["sort"] == ["Sum", "Mean", "Sum (A)", "Mean (A)"]
    with pytest.raises(ValueError, match="share"):
        charts.binned_histogram(hist.drop(columns=["share"]))
