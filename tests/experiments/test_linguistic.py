"""The linguistic chapter's computations (§6): injected vs plain template on the same
instances, the stated numeric levels, and whether confidence follows the words."""

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import random_score_table

from calib.confidence import accuracy, ace
from calib.data.bear import LINGUISTIC, PLAIN
from calib.experiments import linguistic as lx


@pytest.fixture(scope="module")
def est():
    return lx.linguistic_estimates(random_score_table(models=("m2", "m1")))


@pytest.fixture(scope="module")
def effects(est):
    return lx.injection_effects(est, n_bootstrap=40, seed=3)


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
        lx.linguistic_estimates(table)


def test_paired_confidence_difference():
    a, b = np.array([0.9, 0.5, 0.7, 0.2]), np.array([0.8, 0.5, 0.4, 0.1])
    res = lx.paired_confidence_difference(a, b, n_bootstrap=200, seed=0)
    assert res["difference"] == pytest.approx(np.mean(a - b))
    assert res["low"] <= res["difference"] <= res["high"] and res["low"] >= 0
    assert res == lx.paired_confidence_difference(a, b, n_bootstrap=200, seed=0)
    same = lx.paired_confidence_difference(a, a, n_bootstrap=50)
    assert same["low"] == same["high"] == 0 and same["p_value"] == 1
    with pytest.raises(ValueError, match="shapes"):
        lx.paired_confidence_difference(a, b[:3])


def test_injection_effects_are_injected_minus_plain(est, effects):
    assert len(effects) == 2 * len(LINGUISTIC) * 3
    assert list(dict.fromkeys(effects["template"])) == list(LINGUISTIC)
    row = effects[(effects["model"] == "m1") & (effects["template"] == "certainly")
                  & (effects["quantity"] == "ace")].iloc[0]
    inj = est[(est["model"] == "m1") & (est["template"] == "certainly")]
    plain = est[(est["model"] == "m1") & (est["template"] == PLAIN)]
    assert row["injected"] == pytest.approx(ace(inj["confidence"], inj["correct"]))
    assert row["plain"] == pytest.approx(ace(plain["confidence"], plain["correct"]))
    acc = effects[(effects["quantity"] == "accuracy") & (effects["model"] == "m1")
                  & (effects["template"] == "certainly")].iloc[0]
    assert acc["injected"] == pytest.approx(accuracy(inj["correct"]))
    assert np.allclose(effects["delta"], effects["injected"] - effects["plain"])
    assert (effects["low"] <= effects["high"]).all()
    numeric = effects[effects["template"] == "numeric-25"]
    assert (numeric["stated"] == 0.25).all()


def test_curves_use_plain_possibly_and_certainly(est):
    curves = lx.linguistic_curves(est, n_bins=4)
    assert list(dict.fromkeys(curves["template"])) == list(lx.CURVE_TEMPLATES)
    n = est.groupby(["model", "template"]).size()
    assert (curves.groupby(["model", "template"])["count"].sum()
            == n.loc[curves.groupby(["model", "template"]).size().index]).all()


def test_stated_levels(est):
    levels = lx.stated_levels(est, n_bootstrap=20)
    assert len(levels) == 2 * 5
    m1 = levels[levels["model"] == "m2"]
    assert list(m1["stated"]) == [0.0, 0.25, 0.5, 0.75, 1.0]
    part = est[(est["model"] == "m2") & (est["template"] == "numeric-50")]
    row = m1[m1["template"] == "numeric-50"].iloc[0]
    assert row["mean_confidence"] == pytest.approx(part["confidence"].mean())
    assert row["q25"] == pytest.approx(part["confidence"].quantile(0.25))
    assert row["q25"] <= row["q75"]
    assert row["accuracy"] == pytest.approx(accuracy(part["correct"]))


def _effect(model, template, low, high):
    return {"model": model, "template": template, "quantity": "confidence", "low": low,
            "high": high}


def test_grounding_checks_and_tally():
    effects = pd.DataFrame([
        _effect("good", "possibly", -0.2, -0.1), _effect("good", "certainly", 0.1, 0.2),
        _effect("bad", "possibly", 0.1, 0.2), _effect("bad", "certainly", -0.1, 0.1),
        _effect("unsure", "possibly", -0.1, 0.1), _effect("unsure", "certainly", 0.1, 0.2),
    ])
    numeric = {"good": {"low": 0.05, "high": 0.1}, "bad": {"low": -0.1, "high": 0.2}}
    checks = lx.grounding_checks(effects, numeric).set_index("model")
    assert checks.loc["good"].tolist() == ["lower", "higher", "higher", True]
    assert checks.loc["bad"].tolist() == ["higher", "undecided", "undecided", False]
    assert checks.loc["unsure"].tolist() == ["undecided", "higher", "not scored", None]
    tally = lx.grounding_tally(checks.reset_index())
    assert (tally["grounded"], tally["not_grounded"], tally["undecided"]) == (1, 1, 1)
    assert tally["verdict"] == "does not hold"  # one model moves every marker as its words say
    only_bad = lx.grounding_tally(checks.loc[["bad"]].reset_index())
    assert only_bad["verdict"] == "holds"
    assert lx.grounding_tally(checks.loc[["unsure"]].reset_index())["verdict"] == "undecided"


def test_change_sentence_is_neutral_and_follows_the_interval():
    from calib.report.prose import change_sentence

    up = change_sentence("'certainly'", "plain", {"difference": 0.1, "low": 0.02, "high": 0.2},
                         "mean confidence", "m1")
    assert "higher mean confidence" in up and "better" not in up and "worse" not in up
    none = change_sentence("'possibly'", "plain", {"difference": -0.1, "low": -0.2, "high": 0.1},
                           "mean confidence")
    assert "no change" in none and "lower" not in none


def test_grouped_bars_keep_the_template_order(effects):
    from calib.report import charts

    spec = charts.grouped_bars(effects[effects["quantity"] == "ace"], category="model",
                               group="template", value="delta", lower="low", upper="high",
                               order=list(LINGUISTIC)).to_dict()
    enc = spec["layer"][0]["encoding"]
    assert enc["xOffset"]["sort"] == list(LINGUISTIC) == enc["color"]["sort"]
