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
from calib.experiments.reductions import claims, distributions, tables

OBJECTIVES = {"m2": "clm", "m1": "mlm"}


@pytest.fixture(scope="module")
def scores():
    return random_score_table(models=("m2", "m1"))


@pytest.fixture(scope="module")
def table(scores):
    return tables.reduction_table(scores, OBJECTIVES, n_bootstrap=30)


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
    assert tables.reduction_table(scores, OBJECTIVES, n_bootstrap=0)["ace_low"].isna().all()
    with pytest.raises(ValueError, match="m1"):
        tables.reduction_table(scores, {"m2": "clm"})
    with pytest.raises(ValueError, match="paraphrase-0"):
        tables.reduction_table(scores[scores["template"] != "paraphrase-0"], OBJECTIVES)


def test_objective_means_average_per_model_h():
    frame = pd.DataFrame(
        {
            "objective": ["clm", "clm", "mlm"],
            "reduction": ["sum"] * 3,
            "accuracy": [0.2, 0.6, 0.3],
            "ace": [0.1, 0.3, 0.5],
        }
    )
    means = tables.objective_means(frame).set_index(["objective", "metric"])
    h = harmonic_mean(np.array([0.2, 0.6]), np.array([0.1, 0.3]))
    assert means.loc[("clm", "H"), "value"] == pytest.approx(h.mean())
    assert means.loc[("clm", "H"), "value"] != pytest.approx(harmonic_mean(0.4, 0.2))
    assert means.loc[("clm", "accuracy"), "value"] == pytest.approx(0.4)
    assert means.loc[("mlm", "ace"), "n_models"] == 1


def test_objective_means_read_the_authors_values():
    repo = reported("kissling2026_repo_reduction_strategies")
    means = tables.objective_means(repo, objective="model_type", reduction="reduction_label")
    assert set(means["objective"]) == {"CLM", "MLM"}
    clm_sum = repo[(repo["model_type"] == "CLM") & (repo["reduction_label"] == "Sum")]
    row = means[
        (means["objective"] == "CLM")
        & (means["reduction"] == "Sum")
        & (means["metric"] == "accuracy")
    ].iloc[0]
    assert row["value"] == pytest.approx(clm_sum["accuracy"].mean())
    assert row["n_models"] == len(clm_sum)


def test_objective_differences_are_figure7s_mean_differences_with_paired_intervals(scores, table):
    est = tables.base_estimates(scores)
    diffs = tables.objective_differences(
        est, OBJECTIVES, claims.SUM_PAIRS, "H", n_bootstrap=50, seed=0
    )
    assert len(diffs) == 2 * 3 and set(diffs["objective"]) == {"clm", "mlm"}
    h = table.set_index(["model", "reduction"])["H"]
    for row in diffs.itertuples():
        model = next(m for m, o in OBJECTIVES.items() if o == row.objective)
        assert row.difference == pytest.approx(h[(model, row.a)] - h[(model, row.b)])
        assert row.low <= row.difference <= row.high and row.n_models == 1 and row.n_boot == 50
    again = tables.objective_differences(
        est, OBJECTIVES, claims.SUM_PAIRS, "H", n_bootstrap=50, seed=0
    )
    pd.testing.assert_frame_equal(diffs, again)  # seeded
    same = tables.objective_differences(est, OBJECTIVES, [("sum", "sum")], "accuracy", 20)
    assert (same[["difference", "low", "high"]] == 0).all().all()
    acc = tables.objective_differences(est, OBJECTIVES, claims.MEAN_PAIRS, "accuracy", 20)
    assert set(acc["method"]) == {"bca"} and set(diffs["method"]) == {"centred"}
    with pytest.raises(ValueError, match="n_bootstrap >= 1"):
        tables.objective_differences(est, OBJECTIVES, claims.SUM_PAIRS, "H", n_bootstrap=0)


def test_a_paired_bootstrap_needs_the_models_to_share_their_facts(scores):
    est = tables.base_estimates(scores)
    est = est[~((est["model"] == "m1") & (est["instance"] == est["instance"].iloc[0]))]
    with pytest.raises(ValueError, match="other facts"):
        tables.objective_differences(est, {"m2": "clm", "m1": "clm"}, claims.SUM_PAIRS, "H", 10)


def test_the_shape_of_each_confidence_distribution(scores):
    from scipy.stats import skew

    est = tables.base_estimates(scores)
    shape = distributions.confidence_shape(est, n_bootstrap=50, seed=0).set_index(
        ["model", "reduction"]
    )
    part = est[(est["model"] == "m1") & (est["reduction"] == "mean")]["confidence"]
    row = shape.loc[("m1", "mean")]
    assert row["skewness"] == pytest.approx(skew(part.to_numpy()))
    assert row["max"] == part.max() and row["n"] == len(part)
    assert row["skewness_low"] <= row["skewness"] <= row["skewness_high"]
    assert distributions.confidence_shape(est, n_bootstrap=0)["skewness_low"].isna().all()


def _evidence(units, low, high, **cols):
    frame = pd.DataFrame({"unit": units, "low": low, "high": high, **cols})
    frame["difference"] = (frame["low"] + frame["high"]) / 2
    return Evidence(frame, "hand-made")


def test_the_claims_rules_on_hand_made_evidence():
    both = _evidence(
        ["CLMs: Sum vs Mean", "MLMs: Sum vs Mean"],
        [0.01, 0.02],
        [0.05, 0.06],
        objective=["clm", "mlm"],
    )
    assert claims.sum_highest_h(both).verdict == "holds"
    mlm_against = _evidence(
        ["CLMs: Sum vs Mean", "MLMs: Sum vs Mean"],
        [0.01, -0.06],
        [0.05, -0.02],
        objective=["clm", "mlm"],
    )
    assert claims.sum_highest_h(mlm_against).verdict == "does not hold"
    clm_only = _evidence(["CLMs: Sum vs Mean"], [0.01], [0.05], objective=["clm"])
    assert claims.sum_highest_h(clm_only).verdict == "not testable"
    open_ = _evidence(
        ["CLMs: Sum vs Mean", "MLMs: Sum vs Mean"],
        [-0.01, 0.02],
        [0.05, 0.06],
        objective=["clm", "mlm"],
    )
    assert claims.sum_highest_h(open_).verdict == "undecided"
    trade = _evidence(
        ["CLMs: Mean vs Sum (ace)", "MLMs: Mean vs Sum (accuracy)"],
        [-0.2, -0.1],
        [-0.1, -0.05],
        objective=["clm", "mlm"],
    )
    assert claims.mean_trades_accuracy(trade).verdict == "holds"
    skewed = _evidence(["a", "b"], [1.2, 1.01], [2.0, 1.5])
    assert claims.mean_right_skewed(skewed).verdict == "holds"
    assert claims.mean_right_skewed(_evidence(["a"], [0.2], [0.9])).verdict == "does not hold"


def _shape_result(top: float, per_relation, models=("opt-1.3b",)):
    shape = pd.DataFrame(
        {
            "model": list(models),
            "reduction": "mean",
            "max": top,
            "skewness": 2.0,
            "skewness_low": 1.5,
            "skewness_high": 2.5,
            "n": 9,
        }
    )
    empty = pd.DataFrame({"x": []})
    return rx.ReductionsResult(
        rx.Params(models=models, per_relation=per_relation),
        dict.fromkeys(models, "clm"),
        60,
        9,
        empty,
        empty,
        empty,
        empty,
        empty,
        shape,
        empty,
    )


def test_the_largest_confidence_of_opt13b_on_a_sample_can_only_refute_the_claim():
    on_sample = claims.mean_max_half(
        claims.mean_max_half_build(_shape_result(0.42, per_relation=2))
    )
    # all of BEAR might hold a larger one: only all of BEAR (7,731 facts against 9) decides it
    assert on_sample.verdict == "cannot be decided at this size"
    assert "only all of BEAR" in on_sample.reason
    assert on_sample.decide_factor == pytest.approx(7731 / 9)
    assert (
        claims.mean_max_half(claims.mean_max_half_build(_shape_result(0.42, None))).verdict
        == "holds"
    )
    assert (
        claims.mean_max_half(claims.mean_max_half_build(_shape_result(0.61, 2))).verdict
        == "does not hold"
    )
    other = claims.mean_max_half(claims.mean_max_half_build(_shape_result(0.4, None, ("gpt2",))))
    assert other.verdict == "not testable" and "opt-1.3b is not among" in other.reason


def test_confidence_histograms(scores):
    hist = distributions.confidence_histograms(scores, OBJECTIVES, bins=10)
    assert len(hist) == 2 * len(REDUCTIONS) * 10
    n = scores[scores["template"] == "paraphrase-0"].groupby("model")["instance"].nunique()
    totals = hist.groupby(["model", "reduction"])["count"].sum()
    assert (totals == n.loc[totals.index.get_level_values("model")].to_numpy()).all()
    assert np.allclose(hist.groupby(["model", "reduction"])["share"].sum(), 1.0)
    assert hist["lower"].min() == 0 and hist["upper"].max() == 1
    assert dict(zip(hist["model"], hist["objective"])) == OBJECTIVES
    with pytest.raises(ValueError, match="bins"):
        distributions.confidence_histograms(scores, bins=0)


def test_histogram_chart_draws_bars_from_zero(scores):
    from calib.report import charts

    hist = distributions.confidence_histograms(scores, OBJECTIVES, bins=5)
    spec = charts.binned_histogram(hist, row="model", column="label").to_dict()
    enc = spec["spec"]["encoding"]
    assert enc["y2"] == {"datum": 0} and enc["x2"]["field"] == "upper"
    assert spec["facet"]["column"]["sort"] == ["Sum", "Mean", "Sum (A)", "Mean (A)"]
    with pytest.raises(ValueError, match="share"):
        charts.binned_histogram(hist.drop(columns=["share"]))


# -- the noise floor beside every ACE (issue 18) ------------------------------------------------


def test_every_ace_of_the_reduction_table_has_its_noise_floor(table):
    for col in tables.FLOOR_COLUMNS:
        assert col in table.columns, col
    assert np.allclose(table["ace_debiased"], table["ace"] - table["ace_floor"])
    assert (table["ace_floor_low"] <= table["ace_floor"]).all()
    assert (table["ace_floor"] <= table["ace_floor_high"]).all()
    assert (table["ace_within_floor"] == (table["ace"] <= table["ace_floor_high"])).all()
    cols = list(table.columns)
    assert (
        cols.index("ace")
        < cols.index("ace_floor")
        < cols.index("ace_debiased")
        < cols.index("ace_within_floor")
    )


def test_the_floor_of_a_mean_ace_is_the_mean_of_the_floors(scores, table):
    from calib.confidence.noise_floor import floor_record, mean_floor_record

    est = tables.base_estimates(scores)
    both = {"m2": "clm", "m1": "clm"}  # one objective with two models
    floors = tables.objective_floors(est, both, n_bootstrap=30, seed=0)
    means = tables.objective_means(table.assign(objective="clm"))
    mean_ace = means[means["metric"] == "ace"].set_index("reduction")["value"]
    per_model = table.groupby("reduction")["ace_floor"].mean()
    for row in floors.itertuples():
        assert row.ace == pytest.approx(mean_ace[row.reduction])  # Figure 7's mean ACE
        assert row.n_models == 2 and row.ace_low <= row.ace <= row.ace_high
        # the floor of the mean is the mean of the models' floors, up to Monte-Carlo error
        assert abs(row.ace_floor - per_model[row.reduction]) < 5 * row.ace_floor_se + 1e-9
        assert row.ace_floor_low <= row.ace_floor <= row.ace_floor_high
        assert row.ace_debiased == pytest.approx(row.ace - row.ace_floor)
        assert row.ace_within_floor == (row.ace <= row.ace_floor_high)
    # one model: the record of the mean is that model's own record (same draws)
    conf = est[(est["model"] == "m1") & (est["reduction"] == "sum")]["confidence"].to_numpy()
    one = mean_floor_record([conf], 0.2, 0.1, 0.3, n_draws=200, seed=3)
    assert one == pytest.approx(floor_record(conf, 0.2, 0.1, 0.3, n_draws=200, seed=3))
    with pytest.raises(ValueError, match="at least one"):
        mean_floor_record([], 0.2)


def test_the_means_beside_the_authors_carry_the_floor_of_this_builds_rows(scores, table):
    from calib.report import beside

    est = tables.base_estimates(scores)
    floors = tables.objective_floors(est, OBJECTIVES, n_bootstrap=0)
    assert floors["ace_low"].isna().all() and floors["ace_floor"].notna().all()
    out = beside.reductions_beside(
        tables.objective_means(table), tables.authors_means(), rx.REDUCTION_LABELS, floors=floors
    )
    cols = list(out.columns)
    assert (
        cols.index("ace")
        < cols.index("ace_floor")
        < cols.index("ace_debiased")
        < cols.index("ace_within_floor")
    )
    ours = out[out["source"] == beside.THIS_BUILD]
    assert (
        ours["ace_floor"].notna().all()
        and out.loc[out["source"] != beside.THIS_BUILD, "ace_floor"].isna().all()
    )
    assert (
        "ace_floor"
        not in beside.reductions_beside(
            tables.objective_means(table), tables.authors_means(), rx.REDUCTION_LABELS
        ).columns
    )


def test_the_floor_sentences_say_when_an_ace_is_within_its_floor(table):
    from calib.report import findings

    sentences = findings.floor_sentences(table, ["model", "label"])
    assert len(sentences) == len(table)
    for sentence, within in zip(sentences, table["ace_within_floor"]):
        assert (findings.WITHIN_FLOOR in sentence) == bool(within)
        assert ("debiased ACE" in sentence) != bool(within)
    row = {
        "ace": 0.1,
        "ace_low": 0.05,
        "ace_high": 0.15,
        "ace_floor": 0.12,
        "ace_floor_low": 0.08,
        "ace_floor_high": 0.17,
        "ace_within_floor": True,
        "ace_debiased": -0.02,
        "ace_debiased_low": -0.07,
        "ace_debiased_high": 0.03,
    }
    assert findings.floor_sentence(row, "m, Sum") == (
        "m, Sum: ACE 0.100 [0.050, 0.150] is within its noise floor 0.120 (a perfectly "
        "calibrated estimator with these confidences gives 0.080 to 0.170 in 95% of samples): "
        "not distinguishable from perfect calibration at this sample size."
    )


def test_the_floor_chart_draws_a_band_for_ace_only(table):
    from calib.report import charts

    long = charts.intervals_long(
        table,
        {"accuracy": ("accuracy_low", "accuracy_high"), "ace": ("ace_low", "ace_high")},
        keep=["model", "label"],
        bands={"ace": ("ace_floor_low", "ace_floor_high")},
    )
    assert long.loc[long["metric"] == "accuracy", "band_low"].isna().all()
    ace = long[long["metric"] == "ace"]
    assert np.allclose(ace["band_high"], table["ace_floor_high"])
    spec = charts.interval_chart(
        long, category="label", band_low="band_low", band_high="band_high"
    ).to_dict()
    band = spec["spec"]["layer"][0]
    assert band["mark"]["type"] == "bar" and band["encoding"]["x2"]["field"] == "band_high"


def test_mean_caps_confidence_on_hand_made_percentile_differences():
    units = ["a: Mean vs Sum", "a: Mean (A) vs Sum"]
    assert claims.mean_caps(_evidence(units, [-0.3, -0.2], [-0.1, -0.05])).verdict == "holds"
    assert claims.mean_caps(_evidence(units, [-0.3, 0.05], [-0.1, 0.2])).verdict == "does not hold"
    assert claims.mean_caps(_evidence(units, [-0.3, -0.05], [-0.1, 0.2])).verdict == "undecided"


def _by_accuracy(acc, diffs, half=0.02):
    d = pd.DataFrame(
        {
            "model": [f"m{i}" for i in range(len(acc))],
            "difference": diffs,
            "low": np.asarray(diffs) - half,
            "high": np.asarray(diffs) + half,
        }
    )
    return claims._by_accuracy_evidence(
        d, pd.Series(acc, index=d["model"]), "hand-made", printed_values=False
    )


def test_mean_ace_depends_on_accuracy_holds_fails_and_needs_three_models():
    acc = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    rising = _by_accuracy(acc, [-0.5, -0.4, -0.3, -0.2, -0.05, 0.2])
    assert claims.mean_ace_by_accuracy(rising).verdict == "holds"
    # the effect grows with accuracy but never turns round: the top model's ACE falls too
    no_reversal = _by_accuracy(acc, [-0.5, -0.4, -0.3, -0.2, -0.15, -0.1])
    assert claims.mean_ace_by_accuracy(no_reversal).verdict == "does not hold"
    falling = _by_accuracy(acc, [0.3, 0.2, 0.1, 0.0, -0.1, 0.2])
    judged = claims.mean_ace_by_accuracy(falling)
    assert judged.verdict in ("does not hold", "undecided")
    two = _by_accuracy([0.1, 0.2], [-0.1, 0.1])
    assert claims.mean_ace_by_accuracy(two).verdict == "not testable"
    assert "3 or more models" in claims.mean_ace_by_accuracy(two).reason


def test_mean_ace_depends_on_accuracy_on_the_authors_values():
    """By hand from the repository's 16 models: ACE(Mean) - ACE(Sum) rises with accuracy (r =
    0.897) and is positive for gemma-7b, the most accurate (0.189)."""
    ev = claims.mean_ace_by_accuracy_paper()
    assert ev.frames["correlation"]["difference"].iloc[0] == pytest.approx(0.897, abs=1e-3)
    assert ev.frame["model"].iloc[0] == "gemma-7b"
    assert ev.frame["difference"].iloc[0] == pytest.approx(0.189, abs=1e-3)
    assert claims.mean_ace_by_accuracy(ev).verdict == "holds"


def test_upper_percentiles_and_per_model_differences(scores):
    est = tables.base_estimates(scores)
    d = distributions.upper_percentile_differences(est, n_bootstrap=50, seed=1)
    assert len(d) == 2 * 2 and set(d["a"]) == {"mean", "mean-answer"}
    for row in d.to_dict("records"):
        part = est[est["model"] == row["model"]]
        qa = np.quantile(
            part.loc[part["reduction"] == row["a"], "confidence"], 0.99, method="inverted_cdf"
        )
        assert row["quantile_a"] == pytest.approx(qa)
        assert row["difference"] == pytest.approx(row["quantile_a"] - row["quantile_b"])
        assert row["low"] <= row["high"]
    m = tables.model_differences(est, [("mean", "sum")], "ace", n_bootstrap=30, seed=0)
    assert list(m["model"]) == list(dict.fromkeys(est["model"]))
    assert "objective" not in m.columns


def test_the_new_claims_on_a_synthetic_result(scores):
    r = rx.analyse(scores, rx.Params(models=("m2", "m1"), n_bootstrap=20), OBJECTIVES)
    caps = claims.mean_caps_build(r)
    assert len(caps.frame) == 4
    by_acc = claims.mean_ace_by_accuracy(claims.mean_ace_by_accuracy_build(r))
    assert by_acc.verdict == "not testable"  # two models: no correlation across them


def test_reduction_table_on_given_estimates_is_the_table_it_computes_them_for(scores, table):
    """analyse computes Base under every reduction once (base_estimates) and hands it to
    reduction_table and compare_reductions; their tables are the ones they make on their own."""
    from calib.data.bear import PLAIN

    est = tables.base_estimates(scores)
    given = tables.reduction_table(scores, OBJECTIVES, n_bootstrap=30, est=est)
    pd.testing.assert_frame_equal(given, table, check_exact=True)
    plain = scores[scores["template"] == PLAIN]
    per = {r: p.drop(columns="reduction") for r, p in est.groupby("reduction", sort=False)}
    pd.testing.assert_frame_equal(
        compare_reductions(plain, estimates=per), compare_reductions(plain), check_exact=True
    )


def test_objective_differences_with_kept_values_are_those_computed_afresh(scores, monkeypatch):
    """Each (model, reduction)'s accuracy and ACE on a block of resamples is kept and given
    again to the next pair and metric (issue 24): the intervals are those of statistics
    computed for every pair afresh, as before."""
    from calib.confidence.bootstrap import metric_statistic

    est = tables.base_estimates(scores)
    pairs = [("sum", "mean"), ("sum", "sum-answer"), ("mean", "sum")]
    tables._KEPT.clear()
    kept = [tables.objective_differences(est, OBJECTIVES, pairs, m, 20) for m in ("H", "ace")]
    assert len(tables._KEPT)
    monkeypatch.setattr(tables, "_kept", lambda m, c, y, b: metric_statistic(m, c, y, b)[0])
    for metric, got in zip(("H", "ace"), kept):
        fresh = tables.objective_differences(est, OBJECTIVES, pairs, metric, 20)
        pd.testing.assert_frame_equal(got, fresh, check_exact=True)
