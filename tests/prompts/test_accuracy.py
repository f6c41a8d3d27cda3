"""Micro/macro accuracy (LPAQA §5.1) and the majority baseline, computed by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.prompts.accuracy import majority_baseline, mean_accuracy, predictions, relation_accuracy


def per_fact(relation, answer_idx, hit, template="t"):
    return pd.DataFrame(
        {
            "relation": relation,
            "instance": [f"{relation}{i}" for i in range(len(answer_idx))],
            "template": template,
            "answer_idx": answer_idx,
            "hit": hit,
        }
    )


# R1: object 0 three times (2 right), object 1 once (wrong); R2: two objects, both right
FACTS = pd.concat(
    [
        per_fact("R1", [0, 0, 0, 1], [True, True, False, False]),
        per_fact("R2", [5, 7], [True, True]),
    ],
    ignore_index=True,
)


def test_micro_and_macro_per_relation():
    acc = relation_accuracy(FACTS).set_index("relation")
    assert acc.loc["R1", ["n", "n_objects"]].tolist() == [4, 2]
    assert acc.loc["R1", "micro"] == pytest.approx(2 / 4)
    assert acc.loc["R1", "macro"] == pytest.approx((2 / 3 + 0 / 1) / 2)
    assert acc.loc["R2", ["micro", "macro"]].tolist() == [1.0, 1.0]


def test_mean_over_relations_weighs_each_relation_the_same():
    mean = mean_accuracy(FACTS)
    assert mean.columns.tolist() == ["template", "n_relations", "n", "micro", "macro"]
    assert mean["micro"].item() == pytest.approx((0.5 + 1.0) / 2)  # not 4/6
    assert mean["macro"].item() == pytest.approx((1 / 3 + 1.0) / 2)
    two = mean_accuracy(pd.concat([FACTS, FACTS.assign(template="u", hit=False)]))
    assert two.set_index("template")["micro"].to_dict() == {"t": 0.75, "u": 0.0}


def test_mean_accuracy_groups_by_the_given_columns():
    facts = pd.concat(
        [
            FACTS.assign(prompt_set="A", method="m1"),
            FACTS.assign(prompt_set="A", method="m2", hit=False),
            FACTS.assign(prompt_set="B", method="m1", hit=True),
        ],
        ignore_index=True,
    )
    acc = mean_accuracy(facts, by=["prompt_set", "method"])
    assert acc.columns.tolist() == ["prompt_set", "method", "n_relations", "n", "micro", "macro"]
    assert acc.set_index(["prompt_set", "method"])["micro"].to_dict() == {
        ("A", "m1"): 0.75,
        ("A", "m2"): 0.0,
        ("B", "m1"): 1.0,
    }
    assert mean_accuracy(facts, by=())["n"].item() == 18  # one row over everything
    with pytest.raises(ValueError, match=r"grouping column\(s\) \['source'\]"):
        mean_accuracy(facts, by=["source"])


def test_predictions_take_the_highest_score():
    rows = [("m", "lama", "R1", "i1", "t", o, 1, s) for o, s in enumerate([-2.0, -1.0, -3.0])]
    rows += [("m", "lama", "R1", "i2", "t", o, 0, s) for o, s in enumerate([-2.0, -1.0, -3.0])]
    table = pd.DataFrame(
        rows,
        columns=[
            "model",
            "dataset",
            "relation",
            "instance",
            "template",
            "option",
            "answer_idx",
            "score",
        ],
    )
    pred = predictions(table)
    assert pred["pred"].tolist() == [1, 1] and pred["hit"].tolist() == [True, False]
    with pytest.raises(ValueError, match="NaN"):
        predictions(table.assign(score=float("nan")))


def test_majority_baseline():
    facts = pd.DataFrame(
        {
            "relation": ["R1"] * 4 + ["R2"] * 2,
            "instance": list("abcdef"),
            "answer_idx": [0, 0, 0, 1, 4, 3],
        }
    )
    base = majority_baseline(facts)
    assert base["pred"].tolist() == [0, 0, 0, 0, 3, 3]  # R2 ties: the lower index
    acc = relation_accuracy(base).set_index("relation")
    assert acc.loc["R1", ["micro", "macro"]].tolist() == [0.75, 0.5]
    assert acc.loc["R2", ["micro", "macro"]].tolist() == [0.5, 0.5]
    ref = pd.DataFrame({"relation": ["R1", "R2"], "answer_idx": [1, 4]})
    assert majority_baseline(facts, ref)["pred"].tolist() == [1, 1, 1, 1, 4, 4]
    with pytest.raises(ValueError, match="no facts for relation"):
        majority_baseline(facts, ref[ref["relation"] == "R1"])


# -- intervals: stratified bootstrap of the facts within relations -------------------------------


def test_stratified_resamples_keep_each_relations_size():
    from calib.confidence.bootstrap import stratified_resample_weights

    strata = ["b", "a", "a", "b", "b", "c"]
    blocks = list(stratified_resample_weights(strata, 300, seed=4))
    w = np.concatenate(blocks)
    assert w.shape == (300, 6)
    s = np.asarray(strata)
    for name, size in (("a", 2), ("b", 3), ("c", 1)):
        assert (w[:, s == name].sum(axis=1) == size).all()
    again = np.concatenate(list(stratified_resample_weights(strata, 300, seed=4)))
    assert (again == w).all()


def test_replicates_give_mean_accuracy_and_paired_intervals():
    from calib.prompts.accuracy import AVERAGES, accuracy_intervals, accuracy_replicates

    two = pd.concat(
        [
            FACTS.assign(template="t"),
            FACTS.assign(template="u", hit=[True, False, False, False, True, False]),
        ]
    )
    reps = accuracy_replicates(two, ["template"], n_boot=300, seed=0)
    ref = mean_accuracy(two, by=["template"]).set_index("template")
    for label in reps.labels:
        for avg in AVERAGES:
            got = reps.accuracy(label, avg)
            assert got["value"] == pytest.approx(ref.loc[label[0], avg])
            assert got["low"] <= got["value"] <= got["high"]
    diff = reps.difference(("t",), ("u",), "micro")
    assert diff["value"] == pytest.approx(ref.loc["t", "micro"] - ref.loc["u", "micro"])
    assert diff["n"] == 6 and diff["n_relations"] == 2
    table = accuracy_intervals(two.assign(model="m"), ["template"], n_boot=100)
    assert list(table.columns) == [
        "model",
        "template",
        "n_relations",
        "n",
        "micro",
        "micro_low",
        "micro_high",
        "macro",
        "macro_low",
        "macro_high",
    ]
    assert (
        accuracy_replicates(two, ["template"], n_boot=0).accuracy(("t",))["low"]
        != accuracy_replicates(two, ["template"], n_boot=0).accuracy(("t",))["low"]
    )  # NaN


def test_replicates_refuse_methods_on_different_facts_or_objects():
    from calib.prompts.accuracy import accuracy_replicates

    fewer = pd.concat([FACTS.assign(template="t"), FACTS.iloc[:3].assign(template="u")])
    with pytest.raises(ValueError, match=r"method \('u',\) does not cover every fact"):
        accuracy_replicates(fewer, ["template"], 10)
    other = pd.concat([FACTS.assign(template="t"), FACTS.assign(template="u", answer_idx=9)])
    with pytest.raises(ValueError, match="different objects"):
        accuracy_replicates(other, ["template"], 10)
    with pytest.raises(ValueError, match="lacks column"):
        accuracy_replicates(FACTS.drop(columns="hit"), ["template"], 10)
