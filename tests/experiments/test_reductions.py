"""The reductions appendix (Appendix C): accuracy, ACE and H per reduction and objective, the
authors' values through the same means, and the confidence histograms."""

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import REDUCTIONS, compare_reductions, harmonic_mean
from calib.experiments import reductions as rx
from calib.data.reported import reported

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


def test_best_reductions(table):
    means = rx.objective_means(table)
    best = rx.best_reductions(means).set_index("objective")
    for obj in ("clm", "mlm"):
        h = means[(means["objective"] == obj) & (means["metric"] == "H")]
        assert best.loc[obj, "H_best"] == pytest.approx(h["value"].max())
        assert best.loc[obj, "H_sum"] == pytest.approx(
            h.loc[h["reduction"] == "sum", "value"].iloc[0])


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
