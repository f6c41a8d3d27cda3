"""The linguistic chapter (§3.3, §6, Appendix G, Introduction): injected vs plain template on
the same instances, ACE with its noise floor, the stated numeric levels, whether confidence
follows the words, the size comparisons, and the chapter's claims on hand-made evidence, on a
hand-made result and on the paper's printed numbers."""

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import accuracy, ace
from calib.data.bear import LINGUISTIC, NUMERIC, PLAIN
from calib.experiments import linguistic as lx
from calib.experiments import records
from calib.experiments.linguistic import claims, grounding, injections, models, scale
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, UNTESTABLE

TEMPLATES = (PLAIN, *LINGUISTIC)
BY_KEY = {c.key: c for c in lx.CLAIMS}


@pytest.fixture(scope="module")
def est():
    return injections.linguistic_estimates(
        random_score_table(models=("m2", "m1"), templates=TEMPLATES)
    )


@pytest.fixture(scope="module")
def effects(est):
    return injections.injection_effects(est, n_bootstrap=40, seed=3)


@pytest.fixture(scope="module")
def calibration(est):
    return injections.template_calibration(est, n_bootstrap=30, seed=0, n_draws=50)


def test_estimates_hold_plain_and_injected_templates_in_order(est):
    assert list(dict.fromkeys(est["template"])) == [PLAIN, *LINGUISTIC]
    assert list(dict.fromkeys(est["model"])) == ["m2", "m1"]
    per_instance = est.groupby(["model", "relation", "instance"]).size()
    assert (per_instance == 1 + len(LINGUISTIC)).all()
    stated = est.drop_duplicates("template").set_index("template")["stated"]
    assert stated["numeric-75"] == 0.75 and np.isnan(stated["possibly"])


def test_estimates_name_a_missing_template():
    table = random_score_table(templates=(PLAIN, "possibly"))
    with pytest.raises(ValueError, match="certainly"):
        injections.linguistic_estimates(table)


def test_template_calibration_carries_the_noise_floor_beside_each_ace(est, calibration):
    assert len(calibration) == 2 * len(TEMPLATES)
    assert list(calibration["template"][: len(TEMPLATES)]) == list(TEMPLATES)
    for col in (
        "ace_floor",
        "ace_within_floor",
        "ace_debiased",
        "ace_debiased_low",
        "ace_debiased_high",
        "ace_floor_low",
        "ace_floor_high",
        "gap",
        "gap_low",
    ):
        assert col in calibration.columns, col
    row = calibration[
        (calibration["model"] == "m1") & (calibration["template"] == "possibly")
    ].iloc[0]
    part = est[(est["model"] == "m1") & (est["template"] == "possibly")]
    assert row["ace"] == pytest.approx(ace(part["confidence"], part["correct"]))
    assert row["mean_confidence"] == pytest.approx(part["confidence"].mean())
    assert row["gap"] == pytest.approx(part["confidence"].mean() - part["correct"].mean())
    assert np.allclose(calibration["ace_debiased"], calibration["ace"] - calibration["ace_floor"])
    assert (
        calibration["ace_within_floor"] == (calibration["ace"] <= calibration["ace_floor_high"])
    ).all()
    assert "rejection_rate" not in calibration.columns


def test_paired_confidence_difference():
    a, b = np.array([0.9, 0.5, 0.7, 0.2]), np.array([0.8, 0.5, 0.4, 0.1])
    res = injections.paired_confidence_difference(a, b, n_bootstrap=200, seed=0)
    assert res["difference"] == pytest.approx(np.mean(a - b))
    assert res["low"] <= res["difference"] <= res["high"] and res["low"] >= 0
    assert res == injections.paired_confidence_difference(a, b, n_bootstrap=200, seed=0)
    same = injections.paired_confidence_difference(a, a, n_bootstrap=50)
    assert same["low"] == same["high"] == 0 and same["p_value"] == 1
    with pytest.raises(ValueError, match="shapes"):
        injections.paired_confidence_difference(a, b[:3])


def test_injection_effects_are_injected_minus_plain(est, effects):
    assert len(effects) == 2 * len(LINGUISTIC) * 4
    assert list(dict.fromkeys(effects["quantity"])) == ["ace", "accuracy", "confidence", "gap"]
    assert list(dict.fromkeys(effects["template"])) == list(LINGUISTIC)
    pick = effects.set_index(["model", "template", "quantity"])
    inj = est[(est["model"] == "m1") & (est["template"] == "certainly")]
    plain = est[(est["model"] == "m1") & (est["template"] == PLAIN)]
    assert pick.at[("m1", "certainly", "ace"), "injected"] == pytest.approx(
        ace(inj["confidence"], inj["correct"])
    )
    assert pick.at[("m1", "certainly", "ace"), "plain"] == pytest.approx(
        ace(plain["confidence"], plain["correct"])
    )
    assert pick.at[("m1", "certainly", "accuracy"), "injected"] == pytest.approx(
        accuracy(inj["correct"])
    )
    gap = (inj["confidence"].mean() - inj["correct"].mean()) - (
        plain["confidence"].mean() - plain["correct"].mean()
    )
    assert pick.at[("m1", "certainly", "gap"), "delta"] == pytest.approx(gap)
    assert np.allclose(effects["delta"], effects["injected"] - effects["plain"])
    assert (effects["low"] <= effects["high"]).all()
    assert (effects[effects["template"] == "numeric-25"]["stated"] == 0.25).all()
    with pytest.raises(ValueError, match="n_bootstrap >= 1"):
        injections.injection_effects(est, n_bootstrap=0)


def test_ace_changes_set_each_change_beside_both_floors(effects, calibration):
    changes = injections.ace_changes(effects, calibration)
    assert len(changes) == 2 * len(LINGUISTIC)
    cal = calibration.set_index(["model", "template"])
    for r in changes.to_dict("records"):
        p, i = cal.loc[(r["model"], PLAIN)], cal.loc[(r["model"], r["template"])]
        assert r["ace_plain"] == p["ace"] and r["ace_injected_floor"] == i["ace_floor"]
        assert r["delta"] == pytest.approx(i["ace"] - p["ace"])
        assert r["floor_change"] == pytest.approx(i["ace_floor"] - p["ace_floor"])
        assert r["delta_debiased"] == pytest.approx(r["delta"] - r["floor_change"])
        # the debiased interval is the change's shifted by the floors and a little wider
        assert r["delta_debiased_low"] < r["low"] - r["floor_change"]
        assert r["delta_debiased_high"] > r["high"] - r["floor_change"]
        assert r["within_floors"] == bool(p["ace_within_floor"] and i["ace_within_floor"])


def test_the_floor_sentences_say_when_a_change_is_within_what_the_floors_allow():
    from calib.report import findings

    row = {
        "model": "m",
        "template": "possibly",
        "delta": -0.05,
        "low": -0.08,
        "high": -0.02,
        "ace_plain": 0.12,
        "ace_injected": 0.07,
        "ace_plain_floor": 0.11,
        "ace_injected_floor": 0.06,
        "floor_change": -0.05,
        "delta_debiased": 0.0,
        "delta_debiased_low": -0.03,
        "delta_debiased_high": 0.03,
        "within_floors": True,
    }
    both = findings.ace_change_sentences(pd.DataFrame([row]))[0]
    assert "lower ACE" in both and "within their noise floors" in both
    assert "not distinguishable from perfect calibration at this sample size" in both
    shifted = findings.ace_change_sentences(pd.DataFrame([{**row, "within_floors": False}]))[0]
    assert "which includes 0: the change is within what the floors allow" in shifted
    beyond = findings.ace_change_sentences(
        pd.DataFrame(
            [
                {
                    **row,
                    "within_floors": False,
                    "delta_debiased": -0.04,
                    "delta_debiased_low": -0.07,
                    "delta_debiased_high": -0.01,
                }
            ]
        )
    )[0]
    assert "within what the floors allow" not in beyond and "-0.040" in beyond
    cal = pd.DataFrame(
        {
            "model": ["m", "m"],
            "template": ["a", "b"],
            "ace": [0.1, 0.3],
            "ace_floor": [0.12, 0.1],
            "ace_floor_high": [0.15, 0.14],
            "ace_within_floor": [True, False],
            "ace_debiased": [-0.02, 0.2],
            "ace_debiased_low": [-0.05, 0.1],
            "ace_debiased_high": [0.01, 0.3],
        }
    )
    text = findings.floor_summary_sentence(cal, label=("model", "template"))
    assert "m, a" in text and findings.WITHIN_FLOOR in text


def test_reliability_curves_use_plain_possibly_and_certainly(est):
    diagram = injections.reliability(est, n_bins=4)
    assert list(dict.fromkeys(diagram.curve["template"])) == list(injections.CURVE_TEMPLATES)
    counts = diagram.curve.groupby(["model", "template"])["count"].sum()
    n = est.groupby(["model", "template"]).size()
    assert (counts == n.loc[counts.index]).all()
    assert (
        diagram.histogram.groupby(["model", "template"])["count"].sum() == n.loc[counts.index]
    ).all()
    assert (diagram.curve["accuracy_low"] <= diagram.curve["accuracy"]).all()
    with pytest.raises(ValueError, match="maybe"):
        injections.reliability(est, templates=(PLAIN, "maybe"))


def test_stated_levels(est, calibration):
    levels = injections.stated_levels(est, calibration)
    assert len(levels) == 2 * len(NUMERIC)
    m2 = levels[levels["model"] == "m2"]
    assert list(m2["stated"]) == [0.0, 0.25, 0.5, 0.75, 1.0]
    part = est[(est["model"] == "m2") & (est["template"] == "numeric-50")]
    row = m2[m2["template"] == "numeric-50"].iloc[0]
    assert row["mean_confidence"] == pytest.approx(part["confidence"].mean())
    assert row["q25"] == pytest.approx(part["confidence"].quantile(0.25))
    assert row["q25"] <= row["q75"]
    assert row["accuracy"] == pytest.approx(accuracy(part["correct"]))
    assert "ace_floor" in levels.columns and "ace_within_floor" in levels.columns


def test_numeric_differences_are_numeric100_minus_numeric0(est):
    num = injections.numeric_differences(est, n_bootstrap=30)
    assert list(num["model"]) == ["m2", "m1"]
    hi = est[(est["model"] == "m1") & (est["template"] == "numeric-100")]["confidence"].mean()
    lo = est[(est["model"] == "m1") & (est["template"] == "numeric-0")]["confidence"].mean()
    assert num.set_index("model").at["m1", "difference"] == pytest.approx(hi - lo)


def _effect(model, template, low, high):
    return {
        "model": model,
        "template": template,
        "quantity": "confidence",
        "low": low,
        "high": high,
    }


def test_grounding_checks_and_tally_give_verdicts():
    effects = pd.DataFrame(
        [
            _effect("good", "possibly", -0.2, -0.1),
            _effect("good", "certainly", 0.1, 0.2),
            _effect("bad", "possibly", 0.1, 0.2),
            _effect("bad", "certainly", -0.1, 0.1),
            _effect("unsure", "possibly", -0.1, 0.1),
            _effect("unsure", "certainly", 0.1, 0.2),
        ]
    )
    numeric = pd.DataFrame({"model": ["good", "bad"], "low": [0.05, -0.1], "high": [0.1, 0.2]})
    checks = grounding.grounding_checks(effects, numeric).set_index("model")
    assert checks.loc["good"].tolist() == ["lower", "higher", "higher", "holds"]
    assert checks.loc["bad"].tolist() == ["higher", "undecided", "undecided", "does not hold"]
    assert checks.loc["unsure"].tolist() == ["undecided", "higher", "not scored", "undecided"]
    tally = grounding.grounding_tally(checks.reset_index())
    assert (tally["grounded"], tally["not_grounded"], tally["undecided"]) == (1, 1, 1)
    assert "for 1, against it for 1 and undecided for 1 of 3 models" in tally["evidence"]


def test_canonical_names_model_table_and_size_pairs():
    assert models.canonical_name("google/gemma-3-4b-pt") == "gemma-3-4b"
    assert models.canonical_name("google/gemma-3-4b-it") == "gemma-3-4b-it"
    assert models.canonical_name("openai-community/gpt2") == "gpt2"  # the registry's hub id
    table = models.model_table(
        [
            "gpt2-xl",
            "gpt2",
            "gpt2-medium",
            "gemma-3-270m",
            "gemma-3-1b-it",
            "gemma-3-4b-it",
            "tiny-gpt2",
            "some/unknown",
        ]
    )
    row = table.set_index("model").loc["gpt2-xl"]
    assert row["family"] == "GPT-2" and row["size_m"] == 1600 and row["in_paper"]
    assert not table.set_index("model").at["gemma-3-270m", "in_paper"]
    pairs = models.size_pairs(table)
    assert pairs[["family", "smaller", "larger"]].values.tolist() == [
        ["GPT-2", "gpt2", "gpt2-medium"],
        ["GPT-2", "gpt2-medium", "gpt2-xl"],
        ["Gemma 3 (IT)", "gemma-3-1b-it", "gemma-3-4b-it"],
    ]  # base gemma-3-270m pairs with none
    assert models.size_pairs(models.model_table(["smollm2-135m-instruct", "gemma-3-270m"])).empty
    assert "no two models" in claims.pairs_note(models.model_table(["tiny-gpt2", "tiny-bert"]))


def test_mean_intervals_and_aligned_outcomes(est):
    wide = scale.aligned_outcomes(est, "correct")
    assert wide.shape == (36, 2 * len(TEMPLATES))
    cols = pd.DataFrame(
        {"a": wide[("m1", PLAIN)], "same": wide[("m1", PLAIN)] - wide[("m1", PLAIN)]}
    )
    out = scale.mean_intervals(cols, n_bootstrap=50, seed=0).set_index("unit")
    assert out.at["a", "difference"] == pytest.approx(wide[("m1", PLAIN)].mean())
    assert out.at["a", "low"] <= out.at["a", "difference"] <= out.at["a", "high"]
    assert out.at["same", "low"] == out.at["same", "high"] == 0
    broken = est[~((est["model"] == "m1") & (est["instance"] == est["instance"].iloc[0]))]
    with pytest.raises(ValueError, match="other facts"):
        scale.aligned_outcomes(broken, "correct")


def test_sensitivity_alignment_and_pair_differences_by_hand(est):
    sens = scale.sensitivity(est, n_bootstrap=30).set_index(["model", "injections"])
    acc = est.groupby(["model", "template"])["correct"].mean()
    drop = {m: np.mean([acc[(m, PLAIN)] - acc[(m, t)] for t in LINGUISTIC]) for m in ("m1", "m2")}
    assert sens.at[("m1", "all"), "difference"] == pytest.approx(drop["m1"])
    verbal = np.mean([acc[("m2", PLAIN)] - acc[("m2", t)] for t in scale.VERBAL])
    assert sens.at[("m2", "verbal"), "difference"] == pytest.approx(verbal)
    conf = est.groupby(["model", "template"])["confidence"].mean()
    al = scale.alignment(est, n_bootstrap=30).set_index(["model", "cue"])
    moves = [
        conf[("m1", PLAIN)] - conf[("m1", "possibly")],
        conf[("m1", "certainly")] - conf[("m1", PLAIN)],
        conf[("m1", "numeric-100")] - conf[("m1", "numeric-0")],
    ]
    assert al.at[("m1", "possibly"), "difference"] == pytest.approx(moves[0])
    assert al.at[("m1", "alignment"), "difference"] == pytest.approx(np.mean(moves))
    pairs = pd.DataFrame([{"family": "F", "smaller": "m1", "larger": "m2"}])
    sp = scale.pair_differences(est, pairs, "sensitivity", n_bootstrap=30).set_index("part")
    assert sp.at["all injections", "difference"] == pytest.approx(drop["m2"] - drop["m1"])
    s = sens["difference"]
    assert sp.at["numeric beyond verbal", "difference"] == pytest.approx(
        (s[("m2", "numeric")] - s[("m1", "numeric")]) - (s[("m2", "verbal")] - s[("m1", "verbal")])
    )
    ap = scale.pair_differences(est, pairs, "alignment", n_bootstrap=30)
    assert ap["difference"].iloc[0] == pytest.approx(
        al.at[("m2", "alignment"), "difference"] - al.at[("m1", "alignment"), "difference"]
    )
    assert scale.pair_differences(est, pairs.iloc[:0], "alignment").empty
    with pytest.raises(ValueError, match="kind"):
        scale.pair_differences(est, pairs, "size")


def test_drop_comparisons_against_the_largest_drop(est, effects):
    ref = scale.largest_drop_cell(effects)
    acc = effects[effects["quantity"] == "accuracy"].set_index(["model", "template"])["delta"]
    assert acc[ref] == acc.min()
    drops = scale.drop_comparisons(est, [ref], n_bootstrap=30)
    assert len(drops) == len(acc) - 1 and (drops["difference"] >= -1e-12).all()
    row = drops[(drops["model"] == "m2") & (drops["template"] == "possibly")].iloc[0]
    assert row["difference"] == pytest.approx(acc[("m2", "possibly")] - acc[ref])
    with pytest.raises(ValueError, match="reference cell"):
        scale.drop_comparisons(est, [("m9", "possibly")], n_bootstrap=10)


def test_authors_legend_values_with_their_changes():
    legend = injections.authors_legend().set_index(["model", "template"])
    assert legend.at[("gemma-7b", "possibly"), "change"] == pytest.approx(0.071 - 0.077)
    assert legend.at[("gemma-2b", PLAIN), "change"] == 0


# -- the claims' rules on hand-made evidence ------------------------------------------------


def _evidence(units, low, high, **cols):
    frame = pd.DataFrame({"unit": units, "low": low, "high": high, **cols})
    frame["difference"] = (frame["low"] + frame["high"]) / 2
    return Evidence(frame, "hand-made")


def _ace_cells(possibly, numeric):
    """Evidence for possibly_vs_numeric: possibly's and the two numeric weakeners' ACE change
    per model, each given as (low, high)."""
    rows = [(f"m{i}", "possibly", lo, hi) for i, (lo, hi) in enumerate(possibly)]
    rows += [
        (f"m{i // 2}", claims.NUMERIC_WEAKENERS[i % 2], lo, hi)
        for i, (lo, hi) in enumerate(numeric)
    ]
    return _evidence(
        [f"{m}, {t}" for m, t, _, _ in rows],
        [r[2] for r in rows],
        [r[3] for r in rows],
        template=[r[1] for r in rows],
    )


def test_possibly_vs_numeric_compares_the_shares_of_significant_improvements():
    below, open_, above = (-0.2, -0.1), (-0.1, 0.1), (0.1, 0.2)
    better = _ace_cells([below, below], [below, above, open_, above])  # 2/2 vs at most 2/4
    assert claims.possibly_more_consistent(better).verdict == HOLDS
    worse = _ace_cells([below, open_], [below, below, below, above])  # at most 2/2 vs 3/4:
    assert claims.possibly_more_consistent(worse).verdict == UNDECIDED  # 100% > 75%: open
    worse = _ace_cells([below, above], [below, below, below, above])  # at most 1/2 vs 3/4
    assert claims.possibly_more_consistent(worse).verdict == FAILS
    tied = _ace_cells([below, open_], [below, open_, above, above])  # 1/2 vs 1/4 .. 2/4
    judged = claims.possibly_more_consistent(tied)
    assert judged.verdict == UNDECIDED and "includes 0" in judged.reason
    assert "1 of 2 (50%)" in judged.evidence
    only_possibly = _ace_cells([below], [])
    assert claims.possibly_more_consistent(only_possibly).verdict == UNTESTABLE


def test_certainly_it_gemma3_needs_both_models_and_both_quantities():
    units = [
        "gemma-3-4b-it, ACE",
        "gemma-3-4b-it, gap",
        "gemma-3-12b-it, ACE",
        "gemma-3-12b-it, gap",
    ]
    names = ["gemma-3-4b-it"] * 2 + ["gemma-3-12b-it"] * 2
    assert (
        claims.certainly_lowers_ace(
            _evidence(units, [-0.2] * 4, [-0.1] * 4, paper_name=names)
        ).verdict
        == HOLDS
    )
    assert (
        claims.certainly_lowers_ace(
            # clear of 0 by more than Holm's correction over the four units needs
            _evidence(units, [-0.2, 0.05, -0.2, -0.2], [-0.1, 0.15, -0.1, -0.1], paper_name=names)
        ).verdict
        == FAILS
    )
    assert (
        claims.certainly_lowers_ace(
            _evidence(units, [-0.2, -0.1, -0.2, -0.2], [-0.1, 0.1, -0.1, -0.1], paper_name=names)
        ).verdict
        == UNDECIDED
    )
    one = claims.certainly_lowers_ace(
        _evidence(units[:2], [-0.2] * 2, [-0.1] * 2, paper_name=names[:2])
    )
    assert one.verdict == UNTESTABLE and "gemma-3-12b-it" in one.reason


def test_possibly_shifts_curve_needs_the_four_models_of_figure6():
    four = _evidence(
        list(claims.FIGURE6_MODELS), [-0.2] * 4, [-0.1] * 4, paper_name=list(claims.FIGURE6_MODELS)
    )
    assert claims.possibly_lowers_ace(four).verdict == HOLDS
    it_only = _evidence(
        ["gemma-3-4b-it", "gemma-3-12b-it"],
        [-0.2] * 2,
        [-0.1] * 2,
        paper_name=["gemma-3-4b-it", "gemma-3-12b-it"],
    )
    judged = claims.possibly_lowers_ace(it_only)
    assert judged.verdict == UNTESTABLE and "gemma-3-4b," in judged.reason + ","
    against = _evidence(["gemma-3-4b-it"], [0.01], [0.1], paper_name=["gemma-3-4b-it"])
    assert claims.possibly_lowers_ace(against).verdict == FAILS


def test_certainly_above_baseline_cannot_be_refuted_by_a_mean():
    names = ["gemma-3-4b-it", "gemma-3-12b-it"]
    assert (
        claims.certainly_curve_above(
            _evidence(names, [-0.2] * 2, [-0.1] * 2, paper_name=names)
        ).verdict
        == HOLDS
    )
    higher = claims.certainly_curve_above(_evidence(names, [0.1] * 2, [0.2] * 2, paper_name=names))
    assert higher.verdict == UNDECIDED and "cannot refute" in higher.reason


def test_injections_accuracy_is_a_claim_about_most_cells():
    assert (
        claims.injections_lower_accuracy(
            _evidence(["a", "b", "c"], [-0.2, -0.2, 0.01], [-0.1, -0.1, 0.1])
        ).verdict
        == HOLDS
    )
    assert (
        claims.injections_lower_accuracy(
            _evidence(["a", "b", "c"], [-0.2, 0.1, 0.01], [-0.1, 0.2, 0.1])
        ).verdict
        == FAILS
    )
    assert (
        claims.injections_lower_accuracy(
            _evidence(["a", "b", "c"], [-0.2, -0.1, 0.01], [-0.1, 0.1, 0.1])
        ).verdict
        == UNDECIDED
    )
    assert claims.injections_lower_accuracy(Evidence.empty("none")).verdict == UNTESTABLE


def test_larger_more_sensitive_needs_both_parts():
    parts = ["all injections", "numeric beyond verbal"]

    def ev(low, high):
        return _evidence(["p1 all", "p1 num"], low, high, part=parts)

    assert claims.larger_more_sensitive(ev([0.01, 0.02], [0.1, 0.1])).verdict == HOLDS
    assert claims.larger_more_sensitive(ev([0.01, -0.1], [0.1, -0.02])).verdict == FAILS
    judged = claims.larger_more_sensitive(ev([0.01, -0.1], [0.1, 0.1]))
    assert judged.verdict == UNDECIDED and "numeric beyond verbal" in judged.reason
    assert claims.larger_more_sensitive(Evidence.empty("no pairs")).verdict == UNTESTABLE
    # one pair against a claim about most pairs is not enough to refute it
    three = _evidence(
        ["a", "b", "c"], [0.01, 0.01, -0.1], [0.1, 0.1, -0.01], part=["all injections"] * 3
    )
    assert claims.larger_more_sensitive(three).verdict == HOLDS
    assert (
        claims.larger_align_more(_evidence(["a", "b"], [0.01, -0.1], [0.1, 0.1])).verdict
        == UNDECIDED
    )
    assert (
        claims.larger_align_more(_evidence(["a", "b"], [0.01, -0.1], [0.1, -0.01])).verdict == FAILS
    )  # one of two pairs against it: at most half can support it


def test_largest_drop_on_the_papers_printed_numbers():
    """By hand, Appendix G: gemma-7b -15 pp (numeric-25), roberta-base +0.2 pp (certainly):
    +0.2 - (-15) = 15.2 pp > 0, +0.2 > 0, and the other printed cell, -15, is no gain: the
    printed numbers agree with the text (they are the only two cells printed)."""
    ev = claims.largest_drop_paper()
    values = dict(zip(ev.frame["part"], ev.frame["difference"]))
    assert values["change(roberta-base, certainly)"] == pytest.approx(0.002)
    assert values["change(other cell)"] == pytest.approx(-0.15)
    assert values["change(other cell) - change(gemma-7b, numeric-25)"] == pytest.approx(0.152)
    judged = BY_KEY["largest_drop"].judge_paper()
    assert judged.verdict == HOLDS and "prints these two cells only" in judged.evidence


def test_the_claims_without_printed_numbers_are_not_testable_on_the_paper():
    for key in (
        "possibly_vs_numeric",
        "certainly_it_gemma3",
        "possibly_shifts_curve",
        "certainly_above_baseline",
        "injections_accuracy",
        "larger_more_sensitive",
        "scale_dependency",
    ):
        judged = BY_KEY[key].judge_paper()
        assert judged.verdict == UNTESTABLE and "no numbers" in judged.reason, key


# -- build evidence on hand-made results ----------------------------------------------------

PAPER_MODELS = (
    "gemma-3-4b-it",
    "gemma-3-12b-it",
    "gemma-7b",
    "roberta-base",
    "gpt2",
    "gpt2-medium",
)


@pytest.fixture(scope="module")
def paper_like():
    """A result on synthetic scores under the names of the paper's models."""
    scores = random_score_table(models=PAPER_MODELS, templates=TEMPLATES, n_instances=8, seed=1)
    params = lx.Params(models=PAPER_MODELS, n_bootstrap=30, floor_draws=30, curve_bins=4)
    return lx.analyse(scores, params)


@pytest.fixture(scope="module")
def cpu_like():
    scores = random_score_table(
        models=("smollm2-135m-instruct", "gemma-3-270m"), templates=TEMPLATES, n_instances=6, seed=2
    )
    return lx.analyse(scores, lx.Params(n_bootstrap=20, floor_draws=20, curve_bins=4))


def test_a_result_is_recordable_and_reads_back(paper_like, tmp_path):
    path = records.write_record(paper_like, tmp_path)
    back = records.load_record_folder(path)
    assert back.params == paper_like.params and back.injected == list(LINGUISTIC)
    pd.testing.assert_frame_equal(back.ace_changes, paper_like.ace_changes)
    assert "ace_floor" in back.calibration.columns and "ace_floor" in back.levels.columns


def test_build_evidence_on_the_papers_models(paper_like):
    r = paper_like
    assert sorted(r.pairs[["smaller", "larger"]].values.tolist()) == [
        ["gemma-3-4b-it", "gemma-3-12b-it"],
        ["gpt2", "gpt2-medium"],
    ]
    assert set(r.sensitivity_pairs["part"]) == {"all injections", "numeric beyond verbal"}
    for claim in lx.CLAIMS:
        judged = claim.judge_build(r)
        assert judged.verdict in (HOLDS, FAILS, UNDECIDED, UNTESTABLE), claim.key
    certainly = claims.certainly_lowers_ace_build(r).frame
    assert len(certainly) == 4 and set(certainly["paper_name"]) == set(claims.CERTAINLY_IT_MODELS)
    eff = r.effects.set_index(["model", "template", "quantity"])
    row = certainly[certainly["unit"] == "gemma-3-4b-it, ACE"].iloc[0]
    assert row["difference"] == eff.at[("gemma-3-4b-it", "certainly", "ace"), "delta"]
    # Figure 6 needs the base models too, which this result lacks
    shifts = BY_KEY["possibly_shifts_curve"].judge_build(r)
    if shifts.verdict == UNTESTABLE:
        assert "gemma-3-4b" in shifts.reason and "google/gemma-3-4b-pt" in shifts.reason
    drop = claims.largest_drop_build(r).frame
    assert set(drop["part"]) == {
        "change(other cell) - change(gemma-7b, numeric-25)",
        "change(roberta-base, certainly)",
        "change(other cell)",
    }
    n_cells = len(PAPER_MODELS) * len(LINGUISTIC)
    assert (drop["part"] == "change(other cell)").sum() == n_cells - 1
    assert len(claims.injections_lower_accuracy_build(r).frame) == n_cells


def test_build_evidence_on_the_cpu_models_says_what_would_test_each_claim(cpu_like):
    judged = {c.key: c.judge_build(cpu_like) for c in lx.CLAIMS}
    for key in (
        "certainly_it_gemma3",
        "possibly_shifts_curve",
        "certainly_above_baseline",
        "larger_more_sensitive",
        "largest_drop",
        "scale_dependency",
    ):
        assert judged[key].verdict == UNTESTABLE, key
        assert "calib" in judged[key].reason and "--profile paper" in judged[key].reason, key
    assert "gemma-3-4b-it and gemma-3-12b-it" in judged["certainly_it_gemma3"].reason
    assert "no two models" in judged["larger_more_sensitive"].reason
    top = scale.largest_drop_cell(cpu_like.effects)
    assert f"{top[0]} under {top[1]}" in judged["largest_drop"].reason
    for key in ("possibly_vs_numeric", "injections_accuracy"):
        assert judged[key].verdict != UNTESTABLE, key


def test_params_are_the_notebooks_and_refuse_an_unknown_name():
    from calib.experiments.params import ParameterError

    assert lx.Params().models == ("smollm2-135m-instruct", "gemma-3-270m")
    with pytest.raises(ParameterError, match="did you mean 'floor_draws'"):
        lx.Params.from_mapping({"floor_draw": 10})


def test_change_sentence_is_neutral_and_follows_the_interval():
    from calib.report.prose import change_sentence

    up = change_sentence(
        "'certainly'",
        "plain",
        {"difference": 0.1, "low": 0.02, "high": 0.2},
        "mean confidence",
        "m1",
    )
    assert "higher mean confidence" in up and "better" not in up and "worse" not in up
    none = change_sentence(
        "'possibly'", "plain", {"difference": -0.1, "low": -0.2, "high": 0.1}, "mean confidence"
    )
    assert "no change" in none and "lower" not in none


def test_the_charts_keep_the_template_order_and_draw_the_floor_band(effects, calibration):
    from calib.report import charts

    spec = charts.grouped_bars(
        effects[effects["quantity"] == "ace"],
        category="model",
        group="template",
        value="delta",
        lower="low",
        upper="high",
        order=list(LINGUISTIC),
    ).to_dict()
    enc = spec["layer"][0]["encoding"]
    assert enc["xOffset"]["sort"] == list(LINGUISTIC) == enc["color"]["sort"]
    band = charts.interval_chart(
        calibration,
        value="ace",
        lower="ace_low",
        upper="ace_high",
        band_low="ace_floor_low",
        band_high="ace_floor_high",
        category="template",
        color="model",
        facet=None,
    ).to_dict()
    first = band["layer"][0]
    assert first["mark"]["type"] == "bar" and first["encoding"]["x"]["field"] == "ace_floor_low"
    assert first["encoding"]["x2"]["field"] == "ace_floor_high"
    assert band["layer"][2]["encoding"]["x"]["field"] == "ace"
