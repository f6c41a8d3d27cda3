"""The calibration chapter's computations (§5.1): estimators, Table 1, curves, correlation,
claims -- checked against the metric functions they are built from and hand-made cases."""

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import accuracy, accuracy_rejection_curve, ace, brier
from calib.data.bear import PARAPHRASES
from calib.experiments import calibration as cx
from calib.experiments.calibration import contrasts, estimators, tables
from calib.experiments.calibration import curves as calibration_curves
from calib.report import findings as fd


@pytest.fixture(scope="module")
def scores():
    return random_score_table(models=("m2", "m1"))  # not in alphabetical order on purpose


@pytest.fixture(scope="module")
def est(scores):
    return estimators.estimates(scores, aggregations=("min", "vote-2"))


def test_estimates_cover_every_estimator_once_per_instance(est, scores):
    names = estimators.estimator_names(("min", "vote-2"))
    assert names[:5] == ["Base", "Margin", "Average/min", "Consistency/min", "Entropy/min"]
    assert list(dict.fromkeys(est["estimator"])) == names
    assert list(dict.fromkeys(est["model"])) == ["m2", "m1"]  # the scores' order
    n_inst = scores.groupby("model")["instance"].nunique().iloc[0]
    assert (est.groupby(["model", "estimator"]).size() == n_inst).all()


def test_estimates_ignore_templates_they_do_not_need(scores, est):
    only = scores[scores["template"].isin(PARAPHRASES)]
    again = estimators.estimates(only, aggregations=("min", "vote-2"))
    pd.testing.assert_frame_equal(est, again)


def test_estimates_name_a_missing_paraphrase(scores):
    with pytest.raises(ValueError, match="paraphrase-3"):
        estimators.estimates(scores[scores["template"] != "paraphrase-3"])


def test_table_one_agrees_with_the_metric_functions(est):
    table = tables.calibration_table(est, n_bootstrap=30, seed=1)
    assert list(table["model"].unique()) == ["m2", "m1"]
    assert len(table) == 2 * len(estimators.estimator_names(("min", "vote-2")))
    for row in table.sample(5, random_state=0).itertuples():
        part = est[(est["model"] == row.model) & (est["estimator"] == row.estimator)]
        assert row.ace == pytest.approx(ace(part["confidence"], part["correct"]))
        assert row.brier == pytest.approx(brier(part["confidence"], part["correct"]))
        assert row.accuracy == pytest.approx(accuracy(part["correct"]))
        assert row.ace_low <= row.ace_high and row.brier_low <= row.brier_high
    no_boot = tables.calibration_table(est, n_bootstrap=0)
    assert no_boot["ace_low"].isna().all()
    assert np.allclose(no_boot["ace"], table["ace"])


def test_calibration_curves_bin_every_instance_once(est):
    curves = calibration_curves.calibration_curves(est, ["Base", "Average/min"], n_bins=5)
    assert set(curves["estimator"]) == {"Base", "Average/min"}
    n_inst = est.groupby(["model", "estimator"]).size()
    counts = curves.groupby(["model", "estimator"])["count"].sum()
    assert (counts == n_inst.loc[counts.index]).all()
    assert curves["bin"].max() <= 4
    with pytest.raises(ValueError, match="Avrage"):
        calibration_curves.calibration_curves(est, ["Avrage/min"])


def test_rejection_curves_match_the_metric(est):
    arc = calibration_curves.rejection_curves(est)
    assert set(arc["threshold"]) <= set(calibration_curves.REJECTION_THRESHOLDS)
    assert (arc["kept"] > 0).all()
    part = est[(est["model"] == "m1") & (est["estimator"] == "Margin")]
    direct = accuracy_rejection_curve(
        part["confidence"], part["correct"], calibration_curves.REJECTION_THRESHOLDS
    )
    direct = direct[direct["kept"] > 0].reset_index(drop=True)
    mine = arc[(arc["model"] == "m1") & (arc["estimator"] == "Margin")].reset_index(drop=True)
    assert np.allclose(mine["accuracy"], direct["accuracy"])
    assert (np.diff(mine["rejected"]) >= 0).all()


def _models_table(acc, ace_values):
    return pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(len(acc))],
            "estimator": "Base",
            "accuracy": acc,
            "ace": ace_values,
        }
    )


def test_correlation_needs_more_than_three_models():
    out = calibration_curves.ace_accuracy_correlation(
        _models_table([0.1, 0.5, 0.9], [0.4, 0.2, 0.1])
    )
    row = out.iloc[0]
    assert np.isnan(row["r"]) and row["n"] == 3 and row["n_used"] == 0
    assert "only 3 model(s)" in row["note"]


def test_correlation_across_models_is_pearson_with_an_interval():
    acc, err = [0.1, 0.3, 0.5, 0.7, 0.9], [0.5, 0.45, 0.2, 0.25, 0.05]
    row = calibration_curves.ace_accuracy_correlation(
        _models_table(acc, err), n_bootstrap=200
    ).iloc[0]
    assert row["r"] == pytest.approx(np.corrcoef(acc, err)[0, 1])
    assert row["low"] <= row["r"] <= row["high"] and row["n_used"] > 0
    same = calibration_curves.ace_accuracy_correlation(
        _models_table([0.2] * 4, [0.1, 0.2, 0.3, 0.4])
    )
    assert np.isnan(same["r"].iloc[0]) and "same for every model" in same["note"].iloc[0]


def test_comparisons_are_paired_differences_of_ace_and_brier(est):
    cmp_ = tables.estimator_comparisons(est, [("Margin", "Base")], n_bootstrap=50)
    assert list(cmp_["model"]) == ["m2", "m1", "m2", "m1"]  # ACE first, in the run's order
    assert list(cmp_["metric"]) == ["ace", "ace", "brier", "brier"]
    for row in cmp_.itertuples():
        a = est[(est["model"] == row.model) & (est["estimator"] == "Margin")]
        b = est[(est["model"] == row.model) & (est["estimator"] == "Base")]
        fn = ace if row.metric == "ace" else brier
        assert row.difference == pytest.approx(
            fn(a["confidence"], a["correct"]) - fn(b["confidence"], b["correct"])
        )
        assert row.low <= row.difference <= row.high
    with pytest.raises(ValueError, match="Nope"):
        tables.estimator_comparisons(est, [("Nope", "Base")], n_bootstrap=5)
    with pytest.raises(ValueError, match="n_bootstrap >= 1"):
        tables.estimator_comparisons(est, [("Margin", "Base")], n_bootstrap=0)


def test_correlation_sentence_asserts_a_sign_only_when_the_interval_excludes_zero():
    from calib.report.prose import correlation_sentence

    neg = correlation_sentence("accuracy", "ACE", {"r": -0.8, "low": -0.9, "high": -0.5, "n": 6})
    assert "negatively correlated" in neg and "6 models" in neg
    unsure = correlation_sentence(
        "accuracy", "ACE", {"r": -0.3, "low": -0.9, "high": 0.4, "n": 5}, subject="Base"
    )
    assert "cannot be told apart from 0" in unsure and "(Base)" in unsure
    assert "correlated with accuracy (" not in unsure


def test_below_zero_sentence_counts_the_paper_entropy():
    est = pd.DataFrame(
        {
            "model": ["m"] * 4,
            "estimator": ["Entropy/min"] * 3 + ["Base"],
            "confidence": [-0.2, 0.5, -0.05, 0.9],
        }
    )
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
    mine = estimators.estimates(
        scores, aggregations=("min", "vote-2"), extra_estimators={"Mine": _top_of_plain_template}
    )
    assert list(dict.fromkeys(mine["estimator"]))[-1] == "Mine"
    pd.testing.assert_frame_equal(
        mine[mine["estimator"] != "Mine"].reset_index(drop=True),
        est.reset_index(drop=True),
        check_categorical=False,
        check_dtype=False,
    )  # n_agree: float beside the new rows
    assert (
        mine["rejected"].dtype == bool
        and not mine.loc[mine["estimator"] == "Mine", "rejected"].any()
    )
    table = tables.calibration_table(mine, n_bootstrap=30, seed=1).set_index(["model", "estimator"])
    # the same as Base, computed another way
    for model in ("m1", "m2"):
        for col in ("ace", "brier", "accuracy", "ace_low", "brier_high"):
            assert table.loc[(model, "Mine"), col] == pytest.approx(table.loc[(model, "Base"), col])


def test_an_estimator_of_ones_own_is_checked(scores):
    def bad_confidence(sent):
        return _top_of_plain_template(sent).assign(confidence=2.0)

    def no_prediction(sent):
        return _top_of_plain_template(sent).drop(columns="prediction")

    def some_instances(sent):
        return _top_of_plain_template(sent).iloc[:3]

    for fn, message in (
        (bad_confidence, r"'bad' returned confidences outside \[0, 1\]"),
        (no_prediction, r"lacks column\(s\) \['prediction'\]"),
        (some_instances, "returned 3 instances"),
    ):
        with pytest.raises(ValueError, match=message):
            estimators.estimates(scores, extra_estimators={"bad": fn})


# -- issue 18 in the chapter: floors, blocks, recalibration, accuracy over templates ----------


def test_every_ace_of_the_table_has_its_noise_floor_and_the_blocks_are_labelled(est):
    table = tables.calibration_table(est, n_bootstrap=20, seed=1, n_draws=40)
    for col in (
        "ace_floor",
        "ace_floor_low",
        "ace_floor_high",
        "ace_within_floor",
        "ace_debiased",
        "ace_debiased_low",
        "ace_debiased_high",
    ):
        assert table[col].notna().all(), col
    assert np.allclose(table["ace_debiased"], table["ace"] - table["ace_floor"])
    assert (table["ace_within_floor"] == (table["ace"] <= table["ace_floor_high"])).all()
    assert set(table["block"]) == {cx.PAPER_BLOCK}
    recal = est[est["estimator"] == "Base"].assign(estimator="Base (temperature)")
    mine = est[est["estimator"] == "Margin"].assign(estimator="Mine")
    both = tables.calibration_table(pd.concat([recal, est, mine]), n_bootstrap=0, n_draws=10)
    assert list(dict.fromkeys(both["block"])) == [
        cx.PAPER_BLOCK,
        estimators.RECALIBRATED_BLOCK,
        estimators.EXTRA_BLOCK,
    ]  # the paper's block first
    assert estimators.estimator_block("Margin (Platt)") == estimators.RECALIBRATED_BLOCK


def test_recalibration_is_cross_fitted_over_at_most_one_fold_per_relation(scores, est):
    recal = estimators.recalibrated(scores, est, folds=5, seed=0, platt=("Margin", "Average/min"))
    assert recal.folds == 3  # three relations: three folds, not five
    assert set(recal.estimates["estimator"]) == {
        "Base (temperature)",
        "Margin (Platt)",
        "Average/min (Platt)",
    }
    assert list(recal.estimates.columns) == list(est.columns)
    n = est.groupby(["model", "estimator"]).size().iloc[0]
    assert (recal.estimates.groupby(["model", "estimator"]).size() == n).all()
    for fit in recal.fits.itertuples():  # disjoint by construction, and recorded as text
        assert not set(fit.fit_relations.split(", ")) & set(fit.scored_relations.split(", "))
    assert set(recal.fits["method"]) == {"temperature", "Platt"}
    assert list(recal.temperatures["model"]) == ["m1", "m2"]
    one = scores[scores["relation"] == scores["relation"].iloc[0]]
    none = estimators.recalibrated(one, estimators.estimates(one), folds=5)
    assert none.folds == 0 and none.estimates.empty


def test_the_papers_accuracy_is_the_mean_over_the_five_paraphrases(scores):
    from calib.confidence.estimators import per_template
    from calib.confidence.reductions import sentence_scores

    correct = tables.template_correct(scores)
    assert (correct["n_templates"] == 5).all()
    acc = tables.template_accuracy(correct, n_bootstrap=30, seed=0).set_index("model")
    per = per_template(sentence_scores(scores[scores["template"].isin(PARAPHRASES)]))
    by_hand = per.groupby(["model", "template"])["correct"].mean().groupby("model").mean()
    for model in ("m1", "m2"):
        assert acc.at[model, "accuracy"] == pytest.approx(by_hand[model])
        assert (
            acc.at[model, "accuracy_low"]
            <= acc.at[model, "accuracy"]
            <= acc.at[model, "accuracy_high"]
        )
    plain = per[per["template"] == "paraphrase-0"].groupby("model")["correct"].mean()
    assert (plain != by_hand).any()  # not paraphrase-0's accuracy
    with pytest.raises(ValueError, match="lack some of the paraphrases"):
        tables.template_correct(
            scores.drop(
                index=scores[
                    (scores["template"] == "paraphrase-4") & (scores["instance"] == "Q0_0")
                ].index
            )
        )


def test_the_lowest_bin_is_the_mean_of_the_lowest_confidences():
    keys = {"model": "m", "dataset": "bear", "relation": "R", "correct": True}
    conf_a = np.linspace(0.3, 0.9, 40)
    conf_b = np.linspace(0.0, 0.8, 40)
    est = pd.concat(
        [
            pd.DataFrame({**keys, "instance": range(40), "estimator": e, "confidence": c})
            for e, c in (("Base", conf_a), ("Margin", conf_b))
        ]
    )
    row = calibration_curves.lowest_bins(est, n_bins=20, n_bootstrap=50).iloc[0]
    assert row["lowest_a"] == pytest.approx(conf_a[:2].mean())  # 40 facts: 2 per bin
    assert row["lowest_b"] == pytest.approx(conf_b[:2].mean())
    assert row["difference"] == pytest.approx(row["lowest_a"] - row["lowest_b"])
    assert 0 < row["low"] <= row["difference"] <= row["high"]


def test_the_selective_example_counts_rejections_and_the_gain_in_accuracy():
    est = pd.DataFrame(
        {
            "model": "m",
            "dataset": "bear",
            "relation": "R",
            "instance": range(8),
            "estimator": "Average/min",
            "confidence": [0.05, 0.05, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95],
            "correct": [False, False, True, False, True, True, True, False],
        }
    )
    row = calibration_curves.selective_example(est, "Average/min", 0.1, n_bootstrap=50).iloc[0]
    assert row["rejected"] == pytest.approx(2 / 8)
    assert row["gain"] == pytest.approx(4 / 6 - 4 / 8) and row["kept_accuracy"] == 4 / 6
    assert row["rejected_low"] <= row["rejected"] <= row["rejected_high"]
    assert row["gain_low"] <= row["gain"] <= row["gain_high"]


INFO = pd.DataFrame(
    {
        "model": ["a", "b", "c", "d"],
        "objective": ["clm", "clm", "mlm", "mlm"],
        "family": ["OPT", "OPT", "OPT", "BERT"],
        "size_m": [125.0, 350.0, 350.0, 110.0],
    }
)


def test_the_contrasts_the_claims_need():
    specs = contrasts.contrast_specs(INFO)
    kinds = {s.kind for s in specs}
    assert kinds == {"objectives", "size step"}  # no named family, no gemma, no ModernBERT
    gap = next(s for s in specs if s.kind == "objectives" and s.estimator == "Base")
    assert gap.coefficients == {
        ("c", "Base"): 0.5,
        ("d", "Base"): 0.5,
        ("a", "Base"): -0.5,
        ("b", "Base"): -0.5,
    }
    steps = [s for s in specs if s.kind == "size step"]
    assert {(s.a, s.b) for s in steps} == {("b", "a")}  # b and c share a size: no step
    assert {(s.metric, s.estimator) for s in steps} == {
        *[("ace", e) for e in ("Base", "Margin", "Average/min", "Entropy/min")],
        *[("brier", e) for e in estimators.paper_estimators("min")],
    }
    more = pd.concat(
        [
            INFO,
            pd.DataFrame(
                {
                    "model": ["g", "h", "x"],
                    "objective": ["clm", "clm", "mlm"],
                    "family": ["Gemma", "Gemma 3", "XLM-RoBERTa"],
                    "size_m": [2000.0, 270.0, 561.0],
                }
            ),
        ]
    )
    more.loc[more["model"] == "x", "model"] = "xlm-roberta-large"
    kinds = {s.kind for s in contrasts.contrast_specs(more)}
    assert {"families", "gemma-3", "xlm-roberta-large"} <= kinds and "ModernBERT" not in kinds
    fam = [s for s in contrasts.contrast_specs(more) if s.kind == "families"]
    assert {s.a for s in fam} == {"Gemma"} and "Gemma 3" in {s.b for s in fam}


def test_model_contrasts_are_paired_differences_over_facts(scores):
    from calib.confidence.metrics import signed_gap

    est = estimators.estimates(scores)
    info = pd.DataFrame(
        {
            "model": ["m2", "m1"],
            "objective": ["clm", "mlm"],
            "family": ["F", "F"],
            "size_m": [100.0, 200.0],
        }
    )
    out = contrasts.model_contrasts(
        est, tables.template_correct(scores), info, n_bootstrap=40, seed=0
    )
    gap = out[(out["kind"] == "objectives") & (out["estimator"] == "Base")].iloc[0]

    def one(model, estimator):
        return est[(est["model"] == model) & (est["estimator"] == estimator)]

    b1, b2 = one("m1", "Base"), one("m2", "Base")
    assert gap["difference"] == pytest.approx(
        signed_gap(b1["confidence"], b1["correct"]) - signed_gap(b2["confidence"], b2["correct"])
    )
    step = out[
        (out["kind"] == "size step") & (out["estimator"] == "Margin") & (out["metric"] == "ace")
    ].iloc[0]
    m1, m2 = one("m1", "Margin"), one("m2", "Margin")
    assert step["a"] == "m1" and step["difference"] == pytest.approx(
        ace(m1["confidence"], m1["correct"]) - ace(m2["confidence"], m2["correct"])
    )
    assert (out["low"] <= out["difference"] + 1e-12).all()
    assert (out["difference"] <= out["high"] + 1e-12).all()
    short = est[~((est["model"] == "m1") & (est["instance"] == est["instance"].iloc[0]))]
    with pytest.raises(ValueError, match="other facts"):
        contrasts.model_contrasts(short, tables.template_correct(scores), info, n_bootstrap=5)


def test_the_paper_side_contrasts_are_sums_of_printed_values():
    from calib.experiments.paper_tables import table1_wide

    steps = contrasts.paper_contrasts(kinds=["size step"])
    ace = table1_wide("ace")
    row = steps[steps["unit"] == "OPT: opt-125m -> opt-350m, Base, ace"].iloc[0]
    assert row["difference"] == pytest.approx(
        ace.at["opt-350m", "Base"] - ace.at["opt-125m", "Base"]
    )
    assert (steps["low"] == steps["high"]).all()
    assert "gap" not in set(contrasts.paper_contrasts()["metric"])  # the paper prints no signed gap


def test_the_chapter_on_a_synthetic_score_table_records_and_reloads(scores, tmp_path):
    from calib.experiments import records

    info = pd.DataFrame(
        {
            "model": ["m2", "m1"],
            "objective": ["clm", "mlm"],
            "family": "F",
            "size_m": [100.0, 2000.0],
        }
    )
    params = cx.Params(models=("m2", "m1"), n_bootstrap=20, floor_draws=20)
    result = cx.analyse(scores, params, info)
    assert result.n_facts == 36 and result.n_relations == 3 and result.folds == 3
    assert result.estimators[-3:] == ["Base (temperature)", "Average/min (Platt)", "Margin (Platt)"]
    assert {"ace_floor", "ace_debiased"} <= set(result.ace_accuracy.columns)
    assert {"ece_floor", "mce", "rms_floor"} <= set(result.errors.columns)
    assert set(result.reliability_curve["estimator"]) == {
        "Base",
        "Margin",
        "Average/min",
        "Average/vote-2",
    }
    counts = result.reliability_histogram.groupby(["model", "estimator"])["count"].sum()
    assert (counts == 36).all()
    loaded = records.load_record_folder(records.write_record(result, tmp_path))
    pd.testing.assert_frame_equal(loaded.table, result.table)
    assert loaded.params == params and loaded.estimators == result.estimators
    for claim in cx.CLAIMS:  # every rule runs on this build's evidence
        assert claim.judge_build(loaded).verdict.value in (
            "holds",
            "does not hold",
            "undecided",
            "cannot be decided at this size",
            "not testable",
        )


# -- what the page says and draws from these frames (calib.report) -----------------------------


def _floor_table():
    return pd.DataFrame(
        {
            "model": ["a", "b"],
            "estimator": "Base",
            "ace": [0.12, 0.30],
            "ace_low": [0.08, 0.25],
            "ace_high": [0.16, 0.35],
            "ace_floor": [0.11, 0.10],
            "ace_floor_low": [0.07, 0.06],
            "ace_floor_high": [0.15, 0.14],
            "ace_within_floor": [True, False],
            "ace_debiased": [0.01, 0.20],
            "ace_debiased_low": [-0.04, 0.14],
            "ace_debiased_high": [0.06, 0.26],
        }
    )


def test_the_floor_summary_sentence_says_which_aces_are_within_their_floor():
    text = fd.floor_summary_sentence(_floor_table())
    assert text.startswith("1 of the 2 values of ACE are within their noise floor")
    assert "a, Base: ACE 0.120 [0.080, 0.160], floor 0.110 (up to 0.150)" in text
    assert fd.WITHIN_FLOOR in text  # "not distinguishable from perfect calibration ..."
    assert (
        "The other 1 value of ACE exceeds its floor" in text
        and "b, Base: 0.200 [0.140, 0.260]" in text
    )
    above = fd.floor_summary_sentence(_floor_table().assign(ace_within_floor=False))
    assert (
        above.startswith("All 2 values of ACE exceed their floor") and fd.WITHIN_FLOOR not in above
    )
    with pytest.raises(ValueError, match="ace_floor"):
        fd.floor_summary_sentence(_floor_table().drop(columns="ace_floor"))


def test_the_gap_and_claim_sentences():
    gaps = pd.DataFrame(
        {
            "model": ["a", "b"],
            "estimator": "Base",
            "gap": [0.2, -0.01],
            "gap_low": [0.1, -0.05],
            "gap_high": [0.3, 0.03],
            "direction": ["overconfident", "undecided"],
        }
    )
    text = fd.gap_sentence(gaps)
    assert "Overconfident (interval above 0): a, Base +0.200 [+0.100, +0.300]." in text
    assert "Undecided (the interval includes 0): b, Base -0.010" in text
    assert "Underconfident" not in text
    rows = pd.DataFrame(
        {
            "statement": ["Most models are X", "C_Base is Y", "ACE is Z"],
            "verdict": ["holds", "undecided", "not testable"],
            "evidence": ["e1", "e2", ""],
            "reason": ["", "", "r3"],
        }
    )
    said = fd.claim_sentences(rows)
    assert said[0] == "The paper reports that most models are X; this run agrees (e1)."
    assert said[1].startswith("The paper reports that C_Base is Y; this run cannot decide")
    assert said[2].endswith("this run cannot test it (r3).")


def test_the_interval_chart_draws_the_floor_band_behind_the_ace():
    from calib.report import charts

    long = charts.intervals_long(
        _floor_table().assign(brier=0.2, brier_low=0.1, brier_high=0.3),
        {"ace": ("ace_low", "ace_high"), "brier": ("brier_low", "brier_high")},
        keep=["model", "estimator"],
        bands={"ace": ("ace_floor_low", "ace_floor_high")},
    )
    ace_rows, brier_rows = long[long["metric"] == "ace"], long[long["metric"] == "brier"]
    assert ace_rows["band_high"].tolist() == [0.15, 0.14] and brier_rows["band_low"].isna().all()
    spec = charts.interval_chart(long, band_low="band_low", band_high="band_high").to_dict()
    layers = spec["spec"]["layer"]
    assert (
        layers[0]["mark"]["type"] == "bar" and layers[0]["encoding"]["x2"]["field"] == "band_high"
    )
    fields = {t["field"] for t in layers[0]["encoding"]["tooltip"]}
    assert {"model", "estimator", "value", "low", "high", "band_low"} <= fields
    plain = charts.interval_chart(long).to_dict()["spec"]["layer"]
    assert plain[0]["mark"]["type"] == "rule"  # without a band: as before
    with pytest.raises(ValueError, match="both band_low and band_high"):
        charts.interval_chart(long, band_low="band_low")


def test_beside_the_paper_this_builds_accuracy_is_the_one_given():
    from calib.report import beside

    table = pd.DataFrame(
        {
            "model": ["gemma-2b"] * 2,
            "estimator": ["Base", "Margin"],
            "accuracy": [0.4, 0.4],
            "ace": [0.1, 0.05],
            "brier": [0.2, 0.15],
        }
    )
    ours = beside.calibration_beside(table, ["Base", "Margin"], accuracy={"gemma-2b": 0.47})
    ours = ours[ours["source"] == beside.THIS_BUILD]
    assert ours["accuracy"].tolist() == [0.47, 0.47]
    default = beside.calibration_beside(table, ["Base", "Margin"])
    assert default[default["source"] == beside.THIS_BUILD]["accuracy"].tolist() == [0.4, 0.4]


def test_combining_each_cells_replicates_is_resampling_the_contrast_whole(scores):
    from calib.confidence.bootstrap import difference_interval, metric_statistic

    est = estimators.estimates(scores)
    info = pd.DataFrame(
        {
            "model": ["m2", "m1"],
            "objective": ["clm", "mlm"],
            "family": ["F", "F"],
            "size_m": [100.0, 200.0],
        }
    )
    out = contrasts.model_contrasts(
        est, tables.template_correct(scores), info, n_bootstrap=60, seed=3
    )
    arrays, n = contrasts.fact_arrays(est)
    for kind, metric, estimator in (
        ("objectives", "gap", "Base"),
        ("size step", "ace", "Margin"),
        ("size step", "brier", "Average/min"),
    ):
        row = out[
            (out["kind"] == kind) & (out["metric"] == metric) & (out["estimator"] == estimator)
        ].iloc[0]
        spec = next(s for s in contrasts.contrast_specs(info) if s.unit == row["unit"])
        stats = {k: metric_statistic(metric, *arrays[k])[0] for k in spec.coefficients}
        whole = difference_interval(
            lambda w, stats=stats, spec=spec: sum(
                c * stats[k](w) for k, c in spec.coefficients.items()
            ),
            n,
            row["method"],
            60,
            3,
        )
        for col in ("difference", "low", "high", "p_value"):
            assert row[col] == pytest.approx(whole[col], abs=1e-12), (row["unit"], col)
