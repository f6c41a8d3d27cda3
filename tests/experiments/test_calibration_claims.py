"""The calibration chapter's claims (§5.1, the abstract, §7, Appendices D-E, and one beyond the
paper): each rule on hand-made evidence (holds, does not hold, undecided, not testable, and the
quantifier cases), the build's evidence read from hand-made result frames, and the verdict on
the paper's printed tables checked by hand against Tables 1 and 3."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.data.reported import reported
from calib.experiments import calibration as cx
from calib.experiments import verdicts
from calib.experiments.calibration.claims import (
    best_estimates,
    evidence,
    margin_and_average,
    sizes_and_families,
)
from calib.experiments.paper_tables import paper_models
from calib.experiments.quantifiers import Evidence

BY_KEY = {c.key: c for c in cx.CLAIMS}


def _ev(rows, **frames) -> Evidence:
    """Evidence of ``(unit, low, high)`` rows (``difference`` the middle), plus extra columns
    given as dicts in the rows, and further frames as lists of such rows."""

    def frame(rs):
        out = pd.DataFrame(
            [{"unit": r[0], "low": r[1], "high": r[2], **(r[3] if len(r) > 3 else {})} for r in rs],
            columns=None if rs else ["unit", "low", "high"],
        )
        out["difference"] = (out["low"] + out["high"]) / 2
        return out

    return Evidence(frame(rows), "hand-made", frames={k: frame(v) for k, v in frames.items()})


#: key -> (supporting interval, contradicting interval) of the simple one-quantifier rules
SIMPLE = {
    "base_overconfident": ((0.1, 0.2), (-0.2, -0.1)),
    "base_low_range": ((0.0, 0.03), (0.08, 0.2)),  # share below 0.2 < 1/20
    "margin_full_range": ((0.1, 0.3), (0.0, 0.03)),  # share at each end >= 1/20
    "margin_curves_closer": ((-0.2, -0.1), (0.1, 0.2)),
    "margin_well_calibrated": ((0.02, 0.08), (0.12, 0.2)),
    "average_best": ((-0.2, -0.1), (0.1, 0.2)),
    "gemma3_worse": ((0.1, 0.2), (-0.2, -0.1)),
    "over_1b_well_calibrated": ((0.02, 0.1), (0.11, 0.2)),
    "modernbert": ((-0.2, -0.1), (0.1, 0.2)),
    "xlmr_worst": ((0.1, 0.2), (-0.2, -0.1)),
    "ace_accuracy": ((-0.9, -0.5), (0.2, 0.6)),
    "selective": ((0.6, 0.8), (0.3, 0.45)),
    "recalibrated_baseline": ((-0.2, -0.1), (0.1, 0.2)),
}


@pytest.mark.parametrize("key", sorted(SIMPLE))
def test_each_every_rule_holds_fails_is_undecided_and_not_testable(key):
    rule = BY_KEY[key].rule
    (s_lo, s_hi), (c_lo, c_hi) = SIMPLE[key]
    mid = ((s_lo + s_hi) / 2 + (c_lo + c_hi) / 2) / 2
    assert rule(_ev([("a", s_lo, s_hi), ("b", s_lo, s_hi)])).verdict == "holds"
    against = rule(_ev([("a", s_lo, s_hi), ("b", c_lo, c_hi)]))
    assert against.verdict == "does not hold" and "b:" in against.evidence
    open_ = rule(_ev([("a", s_lo, s_hi), ("b", min(s_lo, c_lo), max(s_hi, c_hi))]))
    assert open_.verdict == "undecided" and "1 " in open_.reason
    assert rule(_ev([("a", mid, mid)])).verdict in ("holds", "does not hold")  # printed
    empty = rule(Evidence.empty("needs a model"))
    assert empty.verdict == "not testable" and "needs a model" in empty.reason


def test_a_most_rule_is_not_refuted_by_one_model():
    rule = BY_KEY["margin_underconfident_low"].rule  # gap < 0 for most models
    three = [("a", -0.2, -0.1), ("b", -0.3, -0.05), ("c", 0.1, 0.2)]
    assert rule(_ev(three)).verdict == "holds"
    assert rule(_ev([("a", -0.2, -0.1), ("c", 0.1, 0.2)])).verdict == "does not hold"
    undecided = rule(_ev([("a", -0.2, -0.1), ("b", -0.2, 0.1), ("c", 0.1, 0.2)]))
    assert undecided.verdict == "undecided" and "more than 1.5 must support it" in undecided.reason
    missing = rule(_ev([("a", np.nan, np.nan), ("b", -0.3, -0.1), ("c", -0.3, -0.1)]))
    assert missing.verdict == "holds"  # a model without instances in the range is undecided


def test_overconfidence_needs_the_models_and_the_comparison_of_objectives():
    models = [("m1", 0.1, 0.2), ("m2", 0.05, 0.3), ("m3", -0.1, 0.2)]
    rule = BY_KEY["overconfident"].rule  # most models; MLMs above CLMs
    assert rule(_ev(models, objectives=[("MLMs - CLMs", 0.02, 0.1)])).verdict == "holds"
    assert rule(_ev(models, objectives=[("MLMs - CLMs", -0.1, -0.02)])).verdict == "does not hold"
    assert rule(_ev(models, objectives=[("MLMs - CLMs", -0.1, 0.1)])).verdict == "undecided"
    clms_only = rule(_ev(models, objectives=[]))
    assert clms_only.verdict == "not testable" and "causal and masked" in clms_only.reason
    # "consistently": every model, so m3's open interval leaves it undecided
    strict = BY_KEY["intrinsic_overconfident"].rule(
        _ev(models, objectives=[("MLMs - CLMs", 0.02, 0.1)])
    )
    assert strict.verdict == "undecided"
    assert (
        BY_KEY["intrinsic_overconfident"]
        .rule(_ev([("m1", -0.2, -0.1)], objectives=[("x", 0.1, 0.2)]))
        .verdict
        == "does not hold"
    )


def test_three_named_models_must_be_in_the_evidence():
    rule = BY_KEY["margin_under_005"].rule
    rows = [(m, 0.01, 0.04, {"model": m}) for m in margin_and_average.UNDER_005]
    assert rule(_ev(rows)).verdict == "holds"
    two = rule(_ev(rows[:2]))
    assert two.verdict == "not testable" and "qwen3.5-9b" in two.reason
    assert (
        rule(_ev([(rows[0][0], 0.06, 0.07, {"model": rows[0][0]})])).verdict == "does not hold"
    )  # a present model against it decides even with the others missing


def test_average_near_margin_has_two_parts():
    rule = BY_KEY["average_near_margin_large"].rule
    small = [("a", 0.0, 0.02), ("b", 0.01, 0.04), ("c", 0.06, 0.09)]
    llama = [("llama-3.1-8b-instruct", -0.02, -0.005)]
    assert rule(_ev([], large=small, llama=llama)).verdict == "holds"
    assert rule(_ev([], large=small, llama=[(llama[0][0], 0.01, 0.02)])).verdict == "does not hold"
    no_llama = rule(_ev([], large=small, llama=[]))
    assert no_llama.verdict == "not testable" and "llama-3.1-8b-instruct" in no_llama.reason
    assert (
        rule(_ev([], large=[("a", 0.06, 0.1), ("b", 0.07, 0.2)], llama=llama)).verdict
        == "does not hold"
    )


def test_larger_better_is_most_families_for_every_estimator_and_metric():
    def step(family, est, metric, lo, hi):
        return (
            f"{family}: s -> l, {est}, {metric}",
            lo,
            hi,
            {"family": family, "estimator": est, "metric": metric},
        )

    down, up, open_ = (-0.2, -0.1), (0.1, 0.2), (-0.1, 0.1)
    good = [
        step("A", "Base", "ace", *down),
        step("A", "Base", "ace", *down),
        step("B", "Base", "ace", *down),
        step("C", "Base", "ace", *up),
    ]
    rule = BY_KEY["larger_better"].rule
    assert rule(_ev(good)).verdict == "holds"  # 2 of 3 families: most
    one_step_up = [*good[:1], step("A", "Base", "ace", *up), *good[2:]]
    assert rule(_ev(one_step_up)).verdict == "does not hold"  # A and C against: 1 of 3
    unsure = [
        step("A", "Base", "ace", *down),
        step("B", "Base", "ace", *open_),
        step("C", "Base", "ace", *up),
    ]
    assert rule(_ev(unsure)).verdict == "undecided"
    other_estimator = [*good, step("A", "Margin", "ace", *up), step("B", "Margin", "ace", *up)]
    assert rule(_ev(other_estimator)).verdict == "does not hold"  # "all estimation methods"
    assert rule(Evidence.empty("no family")).verdict == "not testable"


def test_largest_most_calibrated_sums_the_size_steps_of_a_family():
    steps = pd.DataFrame(
        {
            "family": ["A", "A", "B"],
            "estimator": "Base",
            "metric": "ace",
            "difference": [-0.05, 0.02, 0.03],
            "low": [-0.08, 0.0, 0.01],
            "high": [-0.02, 0.04, 0.05],
        }
    )
    net = sizes_and_families._net_change(steps).set_index("family")
    assert net.at["A", "difference"] == pytest.approx(-0.03)  # one step down, a smaller one up
    assert (net.at["A", "low"], net.at["A", "high"]) == pytest.approx((-0.08, 0.02))
    rule = BY_KEY["largest_most_calibrated"].rule
    down, up = (-0.2, -0.1), (0.1, 0.2)
    assert rule(_ev([("a", *down), ("b", *down), ("c", *up)])).verdict == "holds"
    assert rule(_ev([("a", *down), ("b", *up), ("c", *up)])).verdict == "does not hold"
    assert rule(_ev([("a", *down), ("b", -0.1, 0.1), ("c", *up)])).verdict == "undecided"


def test_best_families_judges_both_readings_of_overall():
    rule = BY_KEY["best_families"].rule

    def rows(lo, hi, estimators=("Base",)):
        return [
            (f"ace, {e}: {f} - OPT", lo, hi, {"a": f, "metric": "ace", "estimator": e})
            for f in ("Gemma", "Llama 3")
            for e in estimators
        ]

    below, above = (-0.2, -0.1), (0.1, 0.2)
    per_good = rows(*below, ("Base", "Margin", "Average"))
    per_bad = rows(*above, ("Base", "Margin", "Average"))
    assert rule(_ev([], mean=rows(*below), per_estimator=per_good)).verdict == "holds"
    assert rule(_ev([], mean=rows(*above), per_estimator=per_bad)).verdict == "does not hold"
    split = rule(_ev([], mean=rows(*above), per_estimator=per_good))
    assert split.verdict == "undecided" and "readings disagree" in split.reason
    assert "over the estimators" in split.evidence and "per estimator" in split.evidence
    # one estimator against among three: "most" estimator-metrics still hold
    one_off = [*rows(*below, ("Base", "Margin")), *rows(*above, ("Entropy",))]
    assert rule(_ev([], mean=rows(*below), per_estimator=one_off)).verdict == "holds"
    gemma_only = [r for r in rows(*below) if r[3]["a"] == "Gemma"]
    assert (
        rule(_ev([], mean=gemma_only, per_estimator=gemma_only)).verdict == "not testable"
    )  # both named families are needed


def test_margin_bear_judges_most_model_metrics_and_the_mean():
    rule = BY_KEY["margin_bear"].rule

    def rows(*intervals):
        return [
            (f"m{i}, {k}", lo, hi, {"model": f"m{i}", "metric": k})
            for i, (lo, hi) in enumerate(intervals)
            for k in ("ace", "brier")
        ]

    down, up = (-0.2, -0.1), (0.01, 0.03)
    assert rule(_ev(rows(down, down, down))).verdict == "holds"
    # most hold, but the mean of one metric is open: the readings disagree, or one is open
    mixed = rule(_ev(rows(down, down, down, (0.3, 0.5))))
    assert mixed.verdict == "undecided" and "on average" in mixed.evidence
    assert rule(_ev(rows(up, up, up))).verdict == "does not hold"  # both readings against
    # one model against among three does not refute "most" (with every it would)
    assert rule(_ev(rows(down, down, down, down, up))).verdict == "holds"


def test_consistency_entropy_is_judged_against_the_random_baseline():
    rule = BY_KEY["consistency_entropy_miscalibrated"].rule
    ace = [(f"m{i}", 0.15, 0.3) for i in range(3)]
    high = [(f"m{i}, e", 0.3, 0.4) for i in range(3)]
    low = [(f"m{i}, e", 0.1, 0.2) for i in range(3)]
    assert rule(_ev(ace, ace=ace, brier=high)).verdict == "holds"
    judged = rule(_ev(ace, ace=ace, brier=low))
    assert judged.verdict == "does not hold" and "random baseline" in judged.evidence
    calibrated = [(f"m{i}", 0.01, 0.05) for i in range(3)]
    assert rule(_ev(calibrated, ace=calibrated, brier=high)).verdict == "does not hold"
    open_ = [(f"m{i}, e", 0.2, 0.3) for i in range(3)]
    assert rule(_ev(ace, ace=ace, brier=open_)).verdict == "undecided"


def test_readings_agree_or_the_sentence_stays_open():
    from calib.experiments.verdicts import Judgement

    h, f, u = (Judgement(v, "e") for v in ("holds", "does not hold", "undecided"))
    assert verdicts.readings([("a", h), ("b", h)]).verdict == "holds"
    assert verdicts.readings([("a", f), ("b", f)]).verdict == "does not hold"
    split = verdicts.readings([("a", h), ("b", f)])
    assert split.verdict == "undecided" and "readings disagree" in split.reason
    assert verdicts.readings([("a", f), ("b", u)]).verdict == "undecided"


def test_all_of_makes_a_unit_of_parts_that_must_all_hold():
    parts = _ev(
        [
            ("A1", -0.2, -0.1, {"g": "A"}),
            ("A2", -0.3, -0.05, {"g": "A"}),
            ("B1", -0.2, -0.1, {"g": "B"}),
            ("B2", 0.1, 0.2, {"g": "B"}),
            ("C1", -0.2, 0.1, {"g": "C"}),
        ]
    ).frame
    out = evidence.all_of(parts, "g").set_index("unit")
    from calib.experiments.quantifiers import unit_status

    status = unit_status(out.reset_index()).tolist()
    assert status == ["supports", "contradicts", "undecided"]
    assert out.at["A", "high"] == -0.05 and out.at["B", "n_parts"] == 2
    from scipy import stats

    weaker = stats.norm.sf(0.175 / (0.125 / 1.96))  # A2's, the part nearer the boundary
    assert out.at["A", "p_support"] == pytest.approx(weaker, rel=1e-3)
    assert out.at["B", "p_contradict"] <= 2 * 1e-6  # B2 against it, Bonferroni over 2 parts


def test_ace_size_needs_ace_falling_and_accuracy_rising_with_size():
    rule = BY_KEY["ace_size"].rule
    ace = [("Margin", -0.9, -0.5), ("Average/min", -0.8, -0.4)]
    assert rule(_ev(ace, ace=ace, accuracy=[("accuracy", 0.5, 0.9)])).verdict == "holds"
    assert rule(_ev(ace, ace=ace, accuracy=[("accuracy", -0.9, -0.2)])).verdict == "does not hold"
    rising = [("Margin", 0.3, 0.8), ("Average/min", -0.8, -0.4)]
    assert (
        rule(_ev(rising, ace=rising, accuracy=[("accuracy", 0.5, 0.9)])).verdict == "does not hold"
    )
    assert rule(_ev(ace, ace=ace, accuracy=[("accuracy", -0.2, 0.9)])).verdict == "undecided"


def test_ace_accuracy_within_groups_allows_exceptions_among_families():
    rule = BY_KEY["ace_accuracy_within_groups"].rule
    objectives = [("clm, Margin", -0.9, -0.5), ("mlm, Margin", -0.9, -0.3)]
    fams = [("A", -0.9, -0.5), ("B", -0.9, -0.5), ("C", 0.5, 0.9)]
    assert rule(_ev([], objectives=objectives, families=fams)).verdict == "holds"
    against = [("A", -0.9, -0.5), ("B", 0.4, 0.9), ("C", 0.5, 0.9)]
    assert rule(_ev([], objectives=objectives, families=against)).verdict == "does not hold"
    one_objective = [("clm, Margin", -0.9, -0.5), ("mlm, Margin", 0.2, 0.6)]
    assert rule(_ev([], objectives=one_objective, families=fams)).verdict == "does not hold"
    assert rule(_ev([], objectives=objectives, families=[])).verdict == "not testable"


def _points(models, ace, accuracy, estimators=("Margin", "Average/min")):
    return pd.DataFrame(
        [
            {"model": m, "estimator": e, "ace": a, "accuracy": c}
            for m, a, c in zip(models, ace, accuracy)
            for e in estimators
        ]
    )


def test_the_correlations_by_size_and_by_group_on_a_hand_made_build():
    from types import SimpleNamespace

    from calib.experiments.calibration.claims import appendices

    models = pd.DataFrame(
        {
            "model": list("abcdef"),
            "objective": ["clm"] * 3 + ["mlm"] * 3,
            "family": ["F"] * 3 + ["G"] * 3,
            "size_m": [100.0, 200.0, 400.0, 100.0, 300.0, 500.0],
        }
    )
    points = _points(
        models["model"], [0.3, 0.2, 0.1, 0.4, 0.3, 0.2], [0.2, 0.3, 0.5, 0.1, 0.2, 0.4]
    )
    result = SimpleNamespace(
        models=models,
        ace_accuracy=points,
        params=SimpleNamespace(aggregation="min", n_bootstrap=200, seed=0),
    )
    size = appendices.ace_size_build(result)
    assert size.sample == "models" and len(size.frames["ace"]) == 2
    assert (size.frames["ace"]["difference"] < 0).all()
    assert size.frames["accuracy"]["difference"].iloc[0] > 0
    groups = appendices.ace_accuracy_within_groups_build(result)
    assert sorted(groups.frames["objectives"]["group"].unique()) == ["clm", "mlm"]
    assert (groups.frames["families"]["difference"] < 0).all()
    few = SimpleNamespace(
        models=models.iloc[:3],
        ace_accuracy=points[points["model"].isin(list("abc"))],
        params=result.params,
    )
    assert BY_KEY["ace_size"].judge_build(few).verdict == "not testable"


def test_average_close_to_perfect_needs_the_four_named_models_below_005():
    rule = BY_KEY["average_close_to_perfect"].rule
    rows = [(m, 0.01, 0.04, {"model": m}) for m in best_estimates.CLOSE_TO_PERFECT]
    assert rule(_ev(rows)).verdict == "holds"
    assert rule(_ev(rows[:3])).verdict == "not testable"
    worse = [*rows[:3], (rows[3][0], 0.07, 0.09, {"model": rows[3][0]})]
    assert rule(_ev(worse)).verdict == "does not hold"
    floor = [(m, 0.0, 0.3, {"model": m, "floor": 0.15}) for m, *_ in rows]
    assert rule(_ev(floor)).verdict == "cannot be decided at this size"


def test_paraphrase_best_is_most_model_metrics_against_both_intrinsic_estimates():
    rule = BY_KEY["paraphrase_best"].rule

    def unit(model, lo_b, hi_b, lo_m, hi_m):
        return [
            (f"{model}: - Base", lo_b, hi_b, {"group": model}),
            (f"{model}: - Margin", lo_m, hi_m, {"group": model}),
        ]

    good = [*unit("a", -0.2, -0.1, -0.2, -0.1), *unit("b", -0.3, -0.1, -0.2, -0.05)]
    beaten_by_margin = unit("c", -0.2, -0.1, 0.05, 0.1)  # below Base, not below Margin
    assert rule(_ev([*good, *beaten_by_margin])).verdict == "holds"  # 2 of 3
    assert rule(_ev([*unit("a", 0.1, 0.2, 0.1, 0.2), *beaten_by_margin])).verdict == "does not hold"
    assert rule(_ev([*good, *unit("d", -0.2, 0.1, -0.2, 0.1), *beaten_by_margin])).verdict == (
        "undecided"
    )  # 2 of 4 support it: not more than half


def test_paraphrase_best_needs_one_paraphrase_estimate_below_both_intrinsic_ones():
    rule = BY_KEY["paraphrase_best"].rule

    def unit(model, est, lo, hi):
        return [
            (f"{model}: {est} - {i}", lo, hi, {"group": model, "estimator": est})
            for i in ("Base", "Margin")
        ]

    # C_Average above the intrinsic estimates, C_Entropy below both: the best one is below
    entropy_best = [*unit("a", "Average", 0.1, 0.2), *unit("a", "Entropy", -0.2, -0.1)]
    out = evidence.any_of(evidence.all_of(_ev(entropy_best).frame, ["group", "estimator"]), "group")
    assert out.iloc[0]["high"] == -0.1 and out.iloc[0]["n_parts"] == 2
    good = [*entropy_best, *unit("b", "Average", -0.3, -0.1), *unit("c", "Average", -0.2, -0.1)]
    assert rule(_ev(good)).verdict == "holds"
    open_entropy = [*unit("a", "Average", 0.1, 0.2), *unit("a", "Entropy", -0.2, 0.3)]
    worse = [*open_entropy, *unit("b", "Average", 0.1, 0.3), *unit("c", "Entropy", 0.2, 0.3)]
    judged = rule(_ev(worse))
    assert judged.verdict == "does not hold"  # b and c against it: at most 1 of 3 could be for
    assert "undecided for 1" in judged.evidence  # a: C_Entropy's interval leaves it open


def test_single_template_unreliable_has_two_parts():
    rule = BY_KEY["single_template_unreliable"].rule
    high = [(f"m{i}", 0.15, 0.3) for i in range(3)]
    split = [("low - high accuracy", 0.05, 0.1)]
    assert rule(_ev(high, models=high, accuracy=split)).verdict == "holds"
    assert rule(_ev(high, models=high, accuracy=[("x", -0.1, -0.05)])).verdict == "does not hold"
    calibrated = [(f"m{i}", 0.01, 0.05) for i in range(3)]
    assert rule(_ev(calibrated, models=calibrated, accuracy=split)).verdict == "does not hold"
    few = rule(_ev(high, models=high, accuracy=[]))
    assert few.verdict == "not testable" and "fewer than 4 models" in few.reason
    values = pd.DataFrame(
        {
            "model": list("abcd"),
            "difference": [0.3, 0.2, 0.1, 0.05],
            "low": [0.2, 0.1, 0.0, 0.0],
            "high": [0.4, 0.3, 0.2, 0.1],
        }
    )
    row = best_estimates._accuracy_split(
        values, pd.Series([0.1, 0.2, 0.6, 0.7], index=list("abcd"))
    )
    assert row.iloc[0]["difference"] == pytest.approx(0.175)  # (0.3 + 0.2) / 2 - (0.1 + 0.05) / 2
    assert row.iloc[0]["low"] == pytest.approx(0.15 - 0.15)  # mean low of a, b - mean high of c, d


def test_the_gemma7b_example_needs_gemma7b():
    rule = BY_KEY["selective_gemma7b"].rule
    rows = [("gemma-7b: bound", -0.1, -0.01, {"model": "gemma-7b"})] * 3
    assert rule(_ev(rows)).verdict == "holds"
    missed = [*rows[:2], ("gemma-7b: gain", 0.02, 0.1, {"model": "gemma-7b"})]
    assert rule(_ev(missed)).verdict == "does not hold"
    assert rule(Evidence.empty("this build has no gemma-7b")).verdict == "not testable"


# -- build evidence read from hand-made frames ---------------------------------------------------


def _table(rows):
    """A calibration table with the floor columns: (model, estimator, ace, ace_high,
    ace_debiased_low)."""
    return pd.DataFrame(
        [
            {
                "block": cx.PAPER_BLOCK,
                "model": m,
                "estimator": e,
                "ace": a,
                "ace_high": hi,
                "ace_debiased_low": dlo,
                "ace_floor": 0.05,
            }
            for m, e, a, hi, dlo in rows
        ]
    )


def test_a_threshold_on_ace_is_judged_conservatively_on_both_sides():
    """Supports only if the ACE's upper bound is below 0.1 (ACE is biased upward); contradicts
    only if even the debiased ACE's lower bound is above it (it is biased downward)."""
    table = _table(
        [
            ("a", "Margin", 0.06, 0.09, 0.0),  # below: supports
            ("b", "Margin", 0.15, 0.2, 0.02),  # above, but within its floor
            ("c", "Margin", 0.3, 0.4, 0.2),
        ]
    )  # above even when debiased (by more than Holm's correction over the three needs)
    rows = evidence._threshold_rows(table, ["Margin"]).set_index("unit")
    assert rows.at["a, Margin", "high"] == 0.09 and rows.at["c, Margin", "low"] == 0.2
    judged = margin_and_average.margin_well_calibrated_rule(Evidence(rows.reset_index(), "t"))
    assert (
        judged.verdict == "does not hold"
        and "against it for 1 and undecided for 1" in judged.evidence
    )
    best = evidence._threshold_rows(
        pd.concat([table, _table([("c", "Base", 0.08, 0.095, 0.0)])]), ["Margin", "Base"], best=True
    ).set_index("model")
    assert best.at["c", "high"] == 0.095 and best.at["c", "low"] == 0.0  # its best estimate


def test_the_shares_of_confidences_come_from_the_histogram_with_wilson_intervals():
    from types import SimpleNamespace

    from calib.experiments.calibration.claims import overconfidence

    edges = np.round(np.arange(0, 1.0001, 0.05), 2)
    counts = np.zeros(20, int)
    counts[[0, 3, 4, 10, 16, 19]] = [2, 3, 5, 40, 30, 20]  # 5 of 100 below 0.2, 50 from 0.8
    hist = pd.DataFrame(
        {
            "model": "m",
            "estimator": "Margin",
            "bin": range(20),
            "lower": edges[:-1],
            "upper": edges[1:],
            "count": counts,
        }
    )
    result = SimpleNamespace(reliability_histogram=hist)
    low = overconfidence._share_rows(result, "Margin", 0.0, 0.2).iloc[0]
    assert low["difference"] == 0.05 and low["n"] == 100 and low["low"] < 0.05 < low["high"]
    ends = overconfidence.margin_full_range_build(result).frame
    assert ends["difference"].tolist() == [0.05, 0.5]
    judged = overconfidence.margin_full_range_rule(Evidence(ends, "t"))
    assert judged.verdict == "undecided"  # 5% below 0.2: on the boundary of one bin's share


def test_contrasts_of_ace_are_floor_corrected_term_by_term():
    from types import SimpleNamespace

    from scipy import stats

    models = pd.DataFrame(
        {
            "model": ["opt-125m", "opt-350m"],
            "objective": "clm",
            "family": "OPT",
            "size_m": [125.0, 350.0],
        }
    )
    ests = ["Base", "Margin", "Average/min", "Consistency/min", "Entropy/min"]
    floor = {"opt-125m": 0.15, "opt-350m": 0.10}
    table = pd.DataFrame(
        [
            {"model": m, "estimator": e, "ace_floor": floor[m], "ace_floor_se": 0.003}
            for m in floor
            for e in ests
        ]
    )
    contrasts = pd.DataFrame(
        [
            {
                "kind": "size step",
                "unit": f"OPT: opt-125m -> opt-350m, Base, {k}",
                "metric": k,
                "estimator": "Base",
                "a": "opt-350m",
                "b": "opt-125m",
                "difference": -0.02,
                "low": -0.06,
                "high": 0.02,
            }
            for k in ("ace", "brier")
        ]
    )
    result = SimpleNamespace(
        contrasts=contrasts, table=table, models=models, params=SimpleNamespace(aggregation="min")
    )
    out = evidence.floor_corrected_contrasts(result).set_index("metric")
    widen = stats.norm.ppf(0.975) * np.sqrt(2) * 0.003
    # larger - smaller: the floors differ by -0.05, which the raw difference carried
    assert out.at["ace", "difference"] == pytest.approx(-0.02 + 0.05)
    assert out.at["ace", "low"] == pytest.approx(-0.06 + 0.05 - widen)
    assert out.at["brier", "difference"] == -0.02 and not out.at["brier", "floor_corrected"]
    judged = BY_KEY["larger_better"].rule(
        Evidence(sizes_and_families._steps(out.reset_index()), "t")
    )
    assert "Base ace" in judged.evidence


def test_the_build_compares_floor_corrected_aces_of_margin_and_base():
    from types import SimpleNamespace

    diffs = pd.DataFrame(
        {
            "model": ["m", "m"],
            "a": ["Margin", "Margin"],
            "b": ["Base", "Base"],
            "metric": ["ace", "brier"],
            "difference": [-0.01, -0.02],
            "low": [-0.03, -0.04],
            "high": [0.01, 0.0],
        }
    )
    table = pd.DataFrame(
        {
            "model": ["m", "m"],
            "estimator": ["Margin", "Base"],
            "ace_floor": [0.10, 0.16],  # Margin spreads its confidences: a lower floor
            "ace_floor_se": [0.0, 0.0],
        }
    )
    rows = margin_and_average.margin_bear_build(
        SimpleNamespace(differences=diffs, table=table)
    ).frame.set_index("metric")
    # raw -0.01 hides that Base's floor is 0.06 higher: corrected, Margin is 0.05 worse
    assert rows.at["ace", "difference"] == pytest.approx(0.05)
    assert rows.at["ace", "low"] == pytest.approx(0.03)
    assert rows.at["brier", "difference"] == -0.02  # the Brier score has no floor


def test_differences_and_their_absolute_values():
    diffs = pd.DataFrame(
        {
            "model": ["m", "m"],
            "a": ["Average/min"] * 2,
            "b": ["Margin"] * 2,
            "metric": ["ace", "brier"],
            "difference": [-0.03, 0.01],
            "low": [-0.05, -0.01],
            "high": [-0.01, 0.03],
        }
    )
    plus = evidence._differences(diffs, "Average/min", "Margin", ["ace"])
    assert plus["unit"].tolist() == ["m, ace: Average/min - Margin"]
    minus = evidence._differences(diffs, "Average/min", "Margin", ["ace"], sign=-1.0).iloc[0]
    assert minus["unit"] == "m, ace: Margin - Average/min"
    assert (minus["difference"], minus["low"], minus["high"]) == (0.03, 0.01, 0.05)
    absolute = margin_and_average._absolute(diffs)
    assert absolute["low"].tolist() == [0.01, 0.0] and absolute["high"].tolist() == [0.05, 0.03]


# -- the paper's side, checked by hand against the printed tables --------------------------------


T1 = reported("kissling2026_table1").set_index("registry_name")
SIZES = paper_models().set_index("registry_name")["size_m"]


def test_average_best_on_table1_ace_is_against_it_for_9_of_25_models():
    others = T1[["ace_base", "ace_margin", "ace_entropy"]].min(axis=1)
    by_hand = set(T1.index[T1["ace_average"] >= others])
    assert len(by_hand) == 9
    brier_others = T1[["brier_base", "brier_margin", "brier_consistency", "brier_entropy"]].min(
        axis=1
    )
    assert (T1["brier_average"] < brier_others).all()  # by hand: Brier is all in line
    ev = BY_KEY["average_best"].paper_evidence().frame
    against = ev[ev["high"] >= 0]
    assert set(against["model"]) == by_hand and set(against["metric"]) == {"ace"}
    assert BY_KEY["average_best"].judge_paper().verdict == "does not hold"


def test_margin_is_not_well_calibrated_for_16_of_25_models_in_table1():
    by_hand = T1.index[T1["ace_margin"] >= 0.1]
    assert len(by_hand) == 16 and "opt-1.3b" in by_hand  # 0.100 is not below 0.1
    judged = BY_KEY["margin_well_calibrated"].judge_paper()
    # opt-1.3b's printed 0.100 ties with 0.1 at the printed precision: no evidence either way
    assert judged.verdict == "does not hold"
    assert "for 9, against it for 15 and undecided for 1" in judged.evidence


def test_margin_is_under_005_for_the_three_named_models():
    assert (
        T1.loc[list(margin_and_average.UNDER_005), "ace_margin"] < 0.05
    ).all()  # 0.046, 0.040, 0.047
    assert BY_KEY["margin_under_005"].judge_paper().verdict == "holds"


def test_every_model_above_1b_has_a_best_ace_of_at_most_01():
    big = [m for m in T1.index if SIZES[m] > 1000]
    assert len(big) == 11 and "gemma-3-1b-it" not in big  # 1.0B is not larger than 1B
    best = T1.loc[big, ["ace_base", "ace_margin", "ace_average", "ace_entropy"]].min(axis=1)
    assert (best <= 0.1).all() and best.max() == 0.056  # opt-1.3b's C_Average
    judged = BY_KEY["over_1b_well_calibrated"].judge_paper()
    assert judged.verdict == "holds" and "of 11 models" in judged.evidence


def test_ace_falls_with_accuracy_on_the_printed_values():
    acc = paper_models().set_index("registry_name")["accuracy"].loc[T1.index]
    for col in ("ace_margin", "ace_average"):
        assert np.corrcoef(acc, T1[col])[0, 1] < -0.7  # by hand: -0.80, -0.77
    ev = BY_KEY["ace_accuracy"].paper_evidence().frame.set_index("unit")
    assert ev.at["Margin", "difference"] == pytest.approx(np.corrcoef(acc, T1["ace_margin"])[0, 1])
    assert BY_KEY["ace_accuracy"].judge_paper().verdict == "holds"


def test_ace_size_and_within_groups_on_the_printed_values():
    t1 = T1.assign(size=SIZES, acc=paper_models().set_index("registry_name")["accuracy"])
    from scipy import stats

    assert stats.spearmanr(t1["size"], t1["ace_margin"])[0] < -0.7  # by hand: -0.80
    assert stats.spearmanr(t1["size"], t1["acc"])[0] > 0.8  # 0.90
    assert BY_KEY["ace_size"].judge_paper().verdict == "holds"
    llama = t1.loc[["llama-3.2-1b-instruct", "llama-3.2-3b-instruct", "llama-3.1-8b-instruct"]]
    assert np.corrcoef(llama["acc"], llama["ace_average"])[0, 1] > 0.9  # the exception
    judged = BY_KEY["ace_accuracy_within_groups"].judge_paper()
    assert judged.verdict == "holds"
    assert "in line with the claim for 7, against it for 1" in judged.evidence  # 4 families x 2


def test_the_new_5_1_and_7_claims_on_the_printed_values():
    fig2 = T1.loc[list(best_estimates.FIGURE2)]
    assert (fig2["ace_margin"] < fig2["ace_base"]).all()
    assert BY_KEY["margin_curves_closer"].judge_paper().verdict == "holds"
    named = T1.loc[list(best_estimates.CLOSE_TO_PERFECT), "ace_average"]
    assert (named < 0.05).all() and named["opt-6.7b"] == 0.024 and named["qwen3.5-9b"] == 0.034
    assert BY_KEY["average_close_to_perfect"].judge_paper().verdict == "holds"
    best_p = T1[["ace_average", "ace_entropy"]].min(axis=1)
    best_i = T1[["ace_base", "ace_margin"]].min(axis=1)
    assert T1.index[best_p >= best_i].tolist() == ["llama-3.1-8b-instruct"]  # by hand, ACE
    brier_p = T1[["brier_average", "brier_consistency", "brier_entropy"]].min(axis=1)
    assert (brier_p < T1[["brier_base", "brier_margin"]].min(axis=1)).all()
    judged = BY_KEY["paraphrase_best"].judge_paper()
    assert judged.verdict == "holds"
    assert "in line with the claim for 49, against it for 1 and undecided for 0" in judged.evidence
    assert (T1["ace_margin"] >= 0.1).sum() == 16  # 15 above, opt-1.3b's 0.100 on the bound
    assert BY_KEY["single_template_unreliable"].judge_paper().verdict == "holds"


def test_largest_most_calibrated_holds_on_the_printed_values_despite_entropy():
    t1 = T1.assign(family=paper_models().set_index("registry_name")["family"], size=SIZES)
    cols = [c for c in T1.columns if c.startswith(("ace_", "brier_"))]
    against = 0
    for _, fam in t1.groupby("family"):
        if fam["size"].nunique() > 1:
            fam = fam.sort_values("size")
            against += int((fam[cols].iloc[-1] >= fam[cols].iloc[0]).sum())
    assert against == 21  # by hand: most of them Entropy's
    judged = BY_KEY["largest_most_calibrated"].judge_paper()
    assert judged.verdict == "holds" and "for 60, against it for 21" in judged.evidence


def test_larger_better_fails_on_entropy_and_holds_for_base():
    t1 = reported("kissling2026_table1")
    t1 = t1.assign(
        family=paper_models()
        .set_index("registry_name")["family"]
        .loc[t1["registry_name"]]
        .to_numpy(),
        size=SIZES.loc[t1["registry_name"]].to_numpy(),
    ).sort_values("size", kind="stable")

    def falls(col):  # per family: every step up in size lowers the value
        return {
            f: bool((np.diff(p[col].to_numpy()) < 0).all())
            for f, p in t1.groupby("family")
            if len(p) > 1
        }

    assert all(falls("ace_base").values()) and len(falls("ace_base")) == 9
    assert sum(falls("ace_entropy").values()) == 1  # Entropy's ACE rises with size
    judged = BY_KEY["larger_better"].judge_paper()
    assert judged.verdict == "does not hold"
    assert "Base ace: " in judged.evidence and judged.units == 81  # 9 cells of 9 families
    entropy = judged.evidence.split("Entropy/min ace: ")[1].split(" | ")[0]
    assert "in line with the claim for 1, against it for 8 and undecided for 0" in entropy


def test_margin_bear_holds_for_49_of_50_model_metrics_and_on_average():
    assert (T1["ace_margin"] < T1["ace_base"]).all()
    assert T1.index[T1["brier_margin"] >= T1["brier_base"]].tolist() == ["gemma-7b"]
    assert (T1["ace_margin"] - T1["ace_base"]).mean() < 0
    assert (T1["brier_margin"] - T1["brier_base"]).mean() < 0
    judged = BY_KEY["margin_bear"].judge_paper()
    assert judged.verdict == "holds"  # gemma-7b's Brier (0.134 vs 0.133) no longer decides it
    assert "for 49, against it for 1" in judged.evidence and "on average" in judged.evidence


def test_the_family_claims_on_the_printed_values():
    t1 = T1.assign(family=paper_models().set_index("registry_name")["family"])
    ace = t1[["ace_base", "ace_margin", "ace_average", "ace_entropy"]]
    means = ace.groupby(t1["family"]).apply(lambda f: f.to_numpy().mean())
    assert means["Llama 3"] > means["OPT"] > means["Gemma"]  # OPT below Llama 3 in ACE
    # over the estimators it does not hold; per estimator (Entropy aside) it does
    judged = BY_KEY["best_families"].judge_paper()
    assert judged.verdict == "undecided" and "readings disagree" in judged.reason
    assert "per estimator: holds" in judged.reason
    acc = paper_models().set_index("registry_name")["accuracy"]
    gemma3 = ["gemma-3-270m-it", "gemma-3-1b-it", "gemma-3-4b-it", "gemma-3-12b-it"]
    assert acc[gemma3].mean() < acc[["gemma-2b", "gemma-7b"]].mean()
    assert BY_KEY["gemma3_worse"].judge_paper().verdict == "holds"
    mlm = [m for m in T1.index if m.startswith(("bert", "roberta", "xlm", "modern"))]
    rest = [m for m in mlm if m != "xlm-roberta-large"]
    assert acc["xlm-roberta-large"] < acc[rest].mean()
    assert acc["xlm-roberta-base"] < acc["xlm-roberta-large"]  # not worse than every MLM
    assert BY_KEY["xlmr_worst"].judge_paper().verdict == "holds"
    modern = T1.loc[["modernbert-base", "modernbert-large"]]
    older = T1.loc[["bert-base-cased", "bert-large-cased", "roberta-base", "roberta-large"]]
    assert abs(modern["ace_base"].mean() - older["ace_base"].mean()) < 0.05  # 0.026
    assert modern["ace_average"].mean() < older["ace_average"].mean()
    assert BY_KEY["modernbert"].judge_paper().verdict == "holds"


def test_average_near_margin_for_the_models_above_1b():
    big = [m for m in T1.index if SIZES[m] > 1000]
    gap = (T1.loc[big, "ace_average"] - T1.loc[big, "ace_margin"]).abs()
    assert (gap < 0.05).sum() == 9 and (gap < 0.02).sum() == 5  # the paper_note's sensitivity
    assert (
        T1.at["llama-3.1-8b-instruct", "ace_margin"] < T1.at["llama-3.1-8b-instruct", "ace_average"]
    )
    assert BY_KEY["average_near_margin_large"].judge_paper().verdict == "holds"


def test_consistency_and_entropy_on_the_printed_values():
    assert (T1["ace_entropy"] >= 0.1).all()  # the lowest: xlm-roberta-base's 0.104
    assert (T1["ace_entropy"] >= 0.2).sum() == 8  # the paper_note's stricter reading of "very"
    # against the random baseline (Brier 0.25), by hand: 8 Consistency and 8 Entropy scores
    # above it, qwen3.5-2b's Entropy 0.250 on it: 16 of 50, not most
    assert (T1["brier_consistency"] > 0.25).sum() == 8 and (T1["brier_entropy"] > 0.25).sum() == 8
    judged = BY_KEY["consistency_entropy_miscalibrated"].judge_paper()
    assert judged.verdict == "does not hold"
    assert "in line with the claim for 16, against it for 33 and undecided for 1" in judged.evidence


def test_claims_without_printed_numbers_say_why():
    for key in (
        "overconfident",
        "intrinsic_overconfident",
        "base_overconfident",
        "base_low_range",
        "margin_full_range",
        "margin_underconfident_low",
        "selective",
        "selective_gemma7b",
        "recalibrated_baseline",
    ):
        judged = BY_KEY[key].judge_paper()
        assert judged.verdict == "not testable" and judged.reason, key
    assert "no recalibration" in BY_KEY["recalibrated_baseline"].judge_paper().reason
