"""The calibration chapter's computations (§5.1): estimators, Table 1, curves, correlation,
claims -- checked against the metric functions they are built from and hand-made cases."""

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import accuracy, accuracy_rejection_curve, ace, brier
from calib.data.bear import PARAPHRASES
from calib.experiments import calibration as cx
from calib.report import findings as fd


@pytest.fixture(scope="module")
def scores():
    return random_score_table(models=("m2", "m1"))  # not in alphabetical order on purpose


@pytest.fixture(scope="module")
def est(scores):
    return cx.estimates(scores, aggregations=("min", "vote-2"))


def test_estimates_cover_every_estimator_once_per_instance(est, scores):
    names = cx.estimator_names(("min", "vote-2"))
    assert names[:5] == ["Base", "Margin", "Average/min", "Consistency/min", "Entropy/min"]
    assert list(dict.fromkeys(est["estimator"])) == names
    assert list(dict.fromkeys(est["model"])) == ["m2", "m1"]  # the scores' order
    n_inst = scores.groupby("model")["instance"].nunique().iloc[0]
    assert (est.groupby(["model", "estimator"]).size() == n_inst).all()


def test_estimates_ignore_templates_they_do_not_need(scores, est):
    only = scores[scores["template"].isin(PARAPHRASES)]
    again = cx.estimates(only, aggregations=("min", "vote-2"))
    pd.testing.assert_frame_equal(est, again)


def test_estimates_name_a_missing_paraphrase(scores):
    with pytest.raises(ValueError, match="paraphrase-3"):
        cx.estimates(scores[scores["template"] != "paraphrase-3"])


def test_table_one_agrees_with_the_metric_functions(est):
    table = cx.calibration_table(est, n_bootstrap=30, seed=1)
    assert list(table["model"].unique()) == ["m2", "m1"]
    assert len(table) == 2 * len(cx.estimator_names(("min", "vote-2")))
    for row in table.sample(5, random_state=0).itertuples():
        part = est[(est["model"] == row.model) & (est["estimator"] == row.estimator)]
        assert row.ace == pytest.approx(ace(part["confidence"], part["correct"]))
        assert row.brier == pytest.approx(brier(part["confidence"], part["correct"]))
        assert row.accuracy == pytest.approx(accuracy(part["correct"]))
        assert row.ace_low <= row.ace_high and row.brier_low <= row.brier_high
    no_boot = cx.calibration_table(est, n_bootstrap=0)
    assert no_boot["ace_low"].isna().all()
    assert np.allclose(no_boot["ace"], table["ace"])


def test_calibration_curves_bin_every_instance_once(est):
    curves = cx.calibration_curves(est, ["Base", "Average/min"], n_bins=5)
    assert set(curves["estimator"]) == {"Base", "Average/min"}
    n_inst = est.groupby(["model", "estimator"]).size()
    counts = curves.groupby(["model", "estimator"])["count"].sum()
    assert (counts == n_inst.loc[counts.index]).all()
    assert curves["bin"].max() <= 4
    with pytest.raises(ValueError, match="Avrage"):
        cx.calibration_curves(est, ["Avrage/min"])


def test_rejection_curves_match_the_metric(est):
    arc = cx.rejection_curves(est)
    assert set(arc["threshold"]) <= set(cx.REJECTION_THRESHOLDS)
    assert (arc["kept"] > 0).all()
    part = est[(est["model"] == "m1") & (est["estimator"] == "Margin")]
    direct = accuracy_rejection_curve(part["confidence"], part["correct"],
                                      cx.REJECTION_THRESHOLDS)
    direct = direct[direct["kept"] > 0].reset_index(drop=True)
    mine = arc[(arc["model"] == "m1") & (arc["estimator"] == "Margin")].reset_index(drop=True)
    assert np.allclose(mine["accuracy"], direct["accuracy"])
    assert (np.diff(mine["rejected"]) >= 0).all()


def _models_table(acc, ace_values):
    return pd.DataFrame({"model": [f"m{i}" for i in range(len(acc))], "estimator": "Base",
                         "accuracy": acc, "ace": ace_values})


def test_correlation_needs_more_than_three_models():
    out = cx.ace_accuracy_correlation(_models_table([0.1, 0.5, 0.9], [0.4, 0.2, 0.1]))
    row = out.iloc[0]
    assert np.isnan(row["r"]) and row["n"] == 3 and row["n_used"] == 0
    assert "only 3 model(s)" in row["note"]


def test_correlation_across_models_is_pearson_with_an_interval():
    acc, err = [0.1, 0.3, 0.5, 0.7, 0.9], [0.5, 0.45, 0.2, 0.25, 0.05]
    row = cx.ace_accuracy_correlation(_models_table(acc, err), n_bootstrap=200).iloc[0]
    assert row["r"] == pytest.approx(np.corrcoef(acc, err)[0, 1])
    assert row["low"] <= row["r"] <= row["high"] and row["n_used"] > 0
    same = cx.ace_accuracy_correlation(_models_table([0.2] * 4, [0.1, 0.2, 0.3, 0.4]))
    assert np.isnan(same["r"].iloc[0]) and "same for every model" in same["note"].iloc[0]


def test_comparisons_are_paired_differences_of_ace(est):
    cmp_ = cx.estimator_comparisons(est, [("Margin", "Base")], n_bootstrap=50)
    assert list(cmp_["model"]) == ["m2", "m1"]
    for row in cmp_.itertuples():
        a = est[(est["model"] == row.model) & (est["estimator"] == "Margin")]
        b = est[(est["model"] == row.model) & (est["estimator"] == "Base")]
        assert row.difference == pytest.approx(ace(a["confidence"], a["correct"])
                                               - ace(b["confidence"], b["correct"]))
        assert row.low <= row.high
    with pytest.raises(ValueError, match="Nope"):
        cx.estimator_comparisons(est, [("Nope", "Base")], n_bootstrap=5)


def _diffs(model, rows):
    return pd.DataFrame([{"model": model, "a": a, "b": b, "metric": "ace", "difference": d,
                          "low": lo, "high": hi} for a, b, d, lo, hi in rows])


def test_claims_are_decided_by_the_intervals():
    others = ["Base", "Margin", "Consistency/min", "Entropy/min"]
    comparisons = pd.concat([
        # A: Margin clearly better, Average clearly lower than all -> both claims hold
        _diffs("A", [("Margin", "Base", -0.1, -0.2, -0.05)]
               + [("Average/min", o, -0.1, -0.2, -0.01) for o in others]),
        # B: Margin clearly worse; Average beaten by Margin -> both fail
        _diffs("B", [("Margin", "Base", 0.1, 0.05, 0.2)]
               + [("Average/min", o, -0.1 if o != "Margin" else 0.1,
                   -0.2 if o != "Margin" else 0.02, -0.01 if o != "Margin" else 0.2)
                  for o in others]),
        # C: intervals include 0 -> undecided
        _diffs("C", [("Margin", "Base", -0.01, -0.05, 0.03)]
               + [("Average/min", o, -0.01, -0.2 if o == "Base" else -0.05,
                   -0.01 if o == "Base" else 0.04) for o in others]),
    ], ignore_index=True)
    checks = cx.claim_checks(comparisons)
    got = {(r.claim, r.model): r.verdict for r in checks.itertuples()}
    assert got == {("margin", "A"): "holds", ("margin", "B"): "does not hold",
                   ("margin", "C"): "undecided", ("average", "A"): "holds",
                   ("average", "B"): "does not hold", ("average", "C"): "undecided"}
    assert "Margin" in checks.set_index(["claim", "model"]).loc[("average", "B"), "detail"]
    tally = cx.claim_tally(checks).set_index("claim")
    assert tally.loc["margin", ["agree", "disagree", "undecided"]].tolist() == [1, 1, 1]
    assert tally.loc["margin", "verdict"] == "does not hold"  # one model against: all fails
    assert cx.claim_tally(checks[checks["model"] != "B"]).set_index("claim") \
        .loc["margin", "verdict"] == "undecided"
    one = cx.claim_tally(checks[checks["model"] == "A"]).set_index("claim")
    assert one.loc["average", "verdict"] == "holds"
    with pytest.raises(ValueError, match="margin"):
        cx.claim_checks(comparisons[comparisons["a"] != "Margin"])


def test_shared_models_keep_the_run_order():
    reported = pd.DataFrame({"registry_name": ["gemma-2b", "gpt2", None]})
    assert cx.shared_models(reported, ["gpt2", "x", "gemma-2b"]) == ["gpt2", "gemma-2b"]
    assert cx.shared_models(reported, ["smollm2-135m-instruct"]) == []


def test_correlation_sentence_asserts_a_sign_only_when_the_interval_excludes_zero():
    from calib.report.prose import correlation_sentence

    neg = correlation_sentence("accuracy", "ACE", {"r": -0.8, "low": -0.9, "high": -0.5, "n": 6})
    assert "negatively correlated" in neg and "6 models" in neg
    unsure = correlation_sentence("accuracy", "ACE", {"r": -0.3, "low": -0.9, "high": 0.4,
                                                      "n": 5}, subject="Base")
    assert "cannot be told apart from 0" in unsure and "(Base)" in unsure
    assert "correlated with accuracy (" not in unsure


def test_below_zero_sentence_counts_the_paper_entropy():
    est = pd.DataFrame({"model": ["m"] * 4, "estimator": ["Entropy/min"] * 3 + ["Base"],
                        "confidence": [-0.2, 0.5, -0.05, 0.9]})
    text = fd.below_zero_sentence(est)
    assert "Entropy/min for 2 of 3 instances of m (lowest -0.20)" in text
    assert "Base" not in text.split("came from")[1]
    assert fd.below_zero_sentence(est.assign(confidence=0.5)).startswith("No estimator")


def _top_of_plain_template(sent):
    """A reader's estimator: the plain template's prediction, its top probability."""
    from calib.confidence.probabilities import template_predictions

    per = template_predictions(sent)
    plain = per[per["template"] == "paraphrase-0"]
    return plain.drop(columns="template").rename(columns={"p_top": "confidence"})


def test_an_estimator_of_ones_own_joins_the_table(scores, est):
    mine = cx.estimates(scores, aggregations=("min", "vote-2"),
                        extra_estimators={"Mine": _top_of_plain_template})
    assert list(dict.fromkeys(mine["estimator"]))[-1] == "Mine"
    pd.testing.assert_frame_equal(mine[mine["estimator"] != "Mine"].reset_index(drop=True),
                                  est.reset_index(drop=True), check_categorical=False,
                                  check_dtype=False)  # n_agree: float beside the new rows
    assert mine["rejected"].dtype == bool and not mine.loc[mine["estimator"] == "Mine",
                                                           "rejected"].any()
    table = cx.calibration_table(mine, n_bootstrap=30, seed=1).set_index(["model", "estimator"])
    # the same as Base, computed another way
    for model in ("m1", "m2"):
        for col in ("ace", "brier", "accuracy", "ace_low", "brier_high"):
            assert table.loc[(model, "Mine"), col] == pytest.approx(table.loc[(model, "Base"),
                                                                              col])


def test_an_estimator_of_ones_own_is_checked(scores):
    def bad_confidence(sent):
        return _top_of_plain_template(sent).assign(confidence=2.0)

    def no_prediction(sent):
        return _top_of_plain_template(sent).drop(columns="prediction")

    def some_instances(sent):
        return _top_of_plain_template(sent).iloc[:3]

    for fn, message in ((bad_confidence, r"'bad' returned confidences outside \[0, 1\]"),
                        (no_prediction, r"lacks column\(s\) \['prediction'\]"),
                        (some_instances, "returned 3 instances")):
        with pytest.raises(ValueError, match=message):
            cx.estimates(scores, extra_estimators={"bad": fn})
