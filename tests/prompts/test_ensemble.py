"""Prompt selection and ensembles (LPAQA §4) on hand-made and tiny synthetic score tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import softmax

from calib.prompts.accuracy import mean_accuracy, predictions
from calib.prompts.ensemble import (
    fit_ensemble_weights,
    oracle,
    prompt_accuracy,
    rank_prompts,
    top_k_ensemble,
    weighted_ensemble,
    weighted_predictions,
)


def table(scores: dict, correct: dict, relation="R", model="m", dataset="lama") -> pd.DataFrame:
    """scores: {(instance, template): [score per option]}; correct: {instance: option}."""
    rows = [
        (model, dataset, relation, inst, tmpl, o, correct[inst], float(s))
        for (inst, tmpl), values in scores.items()
        for o, s in enumerate(values)
    ]
    return pd.DataFrame(
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


# two facts, three options, prompts a, b, c (log-probabilities chosen by hand)
HAND = table(
    {
        ("i1", "a"): [0.0, -1.0, -2.0],
        ("i1", "b"): [-1.0, 0.0, -1.0],
        ("i1", "c"): [-1.0, -1.0, 0.0],
        ("i2", "a"): [0.0, -2.0, -2.0],
        ("i2", "b"): [-5.0, 0.0, -5.0],
        ("i2", "c"): [0.0, -1.0, -5.0],
    },
    {"i1": 0, "i2": 1},
)


def test_prompt_accuracy_and_ranking():
    acc = prompt_accuracy(HAND).set_index("template")
    assert acc["accuracy"].to_dict() == {"a": 0.5, "b": 0.5, "c": 0.0}
    ranking = rank_prompts(HAND)
    # a and b tie on accuracy; b gives the correct answers more probability on average
    gold_a = np.mean([np.log(softmax([0, -1, -2]))[0], np.log(softmax([0, -2, -2]))[1]])
    gold_b = np.mean([np.log(softmax([-1, 0, -1]))[0], np.log(softmax([-5, 0, -5]))[1]])
    assert gold_b > gold_a
    assert list(ranking["template"]) == ["b", "a", "c"] and list(ranking["rank"]) == [0, 1, 2]


def test_top_k_averages_log_probabilities_then_softmax():
    ranking = rank_prompts(HAND)
    top2 = top_k_ensemble(HAND, ranking, 2)
    assert set(top2["template"]) == {"top-2"}
    i1 = top2[top2["instance"] == "i1"].sort_values("option")
    logp_b = np.log(softmax([-1.0, 0.0, -1.0]))
    logp_a = np.log(softmax([0.0, -1.0, -2.0]))
    assert i1["score"].to_numpy() == pytest.approx((logp_a + logp_b) / 2)
    assert i1["prob"].to_numpy() == pytest.approx(softmax((logp_a + logp_b) / 2))
    top1 = top_k_ensemble(HAND, ranking, 1)  # = prompt b's own probabilities
    assert top1[top1["instance"] == "i1"]["prob"].to_numpy() == pytest.approx(softmax(logp_b))
    assert len(top_k_ensemble(HAND, ranking, 10)) == len(top2)  # all three, no error
    with pytest.raises(ValueError, match="no prompts for model"):
        top_k_ensemble(HAND, ranking.assign(model="other"), 2)


def test_weighted_ensemble_with_one_hot_weights_is_that_prompt():
    weights = pd.DataFrame(
        {"model": "m", "relation": "R", "template": ["a", "c"], "weight": [0.0, 1.0]}
    )
    out = weighted_ensemble(HAND, weights)
    i2 = out[out["instance"] == "i2"]
    assert i2["prob"].to_numpy() == pytest.approx(softmax([0.0, -1.0, -5.0]))
    assert set(out["template"]) == {"optimized"}
    with pytest.raises(ValueError, match=r"prompt\(s\) \['z'\] not scored"):
        weighted_ensemble(HAND, weights.assign(template=["a", "z"]))


def test_oracle_counts_a_fact_right_if_any_prompt_is():
    hits = oracle(HAND).set_index("instance")["hit"]
    assert hits.to_dict() == {"i1": True, "i2": True}  # i1 by a, i2 by b
    only_c = oracle(HAND, templates=["c"]).set_index("instance")["hit"]
    assert only_c.to_dict() == {"i1": False, "i2": False}
    assert mean_accuracy(oracle(HAND))["micro"].item() == 1.0


def synthetic(n: int, rates: dict, seed: int, dataset: str, options: int = 4) -> pd.DataFrame:
    """Each prompt ranks the correct option first with probability rates[prompt]."""
    rng = np.random.default_rng(seed)
    scores, correct = {}, {}
    for i in range(n):
        gold = int(rng.integers(options))
        correct[f"f{i}"] = gold
        for prompt, rate in rates.items():
            wrong = (gold + 1 + int(rng.integers(options - 1))) % options
            top = gold if rng.random() < rate else wrong
            values = rng.normal(0.0, 0.3, options)
            values[top] += 2.0
            scores[(f"f{i}", prompt)] = values
    return table(scores, correct, dataset=dataset)


def test_learned_weights_recover_the_better_prompt():
    rates = {"good": 0.9, "noise": 0.25, "bad": 0.1}
    train = synthetic(150, rates, seed=0, dataset="lama-train")
    weights = fit_ensemble_weights(train).set_index("template")["weight"]
    assert weights.sum() == pytest.approx(1.0)
    assert weights["good"] > 0.8 and weights.idxmax() == "good"
    test = synthetic(150, rates, seed=1, dataset="lama")
    acc = mean_accuracy(
        predictions(
            pd.concat(
                [
                    weighted_ensemble(test, weights.reset_index().assign(model="m", relation="R")),
                    top_k_ensemble(test, rank_prompts(train), 3),
                ]
            )
        )
    ).set_index("template")["micro"]
    assert acc["optimized"] > acc["top-3"]  # uniform averaging lets the bad prompts in
    again = fit_ensemble_weights(train).set_index("template")["weight"]
    assert again.equals(weights)  # deterministic


def _torch_adam_weights(train: pd.DataFrame, steps: int, lr: float) -> pd.DataFrame:
    """The optimised ensemble's weights as torch learns them: autograd on the mean
    cross-entropy, ``torch.optim.Adam`` with its defaults (the implementation before the
    closed-form numpy one)."""
    import torch

    from calib.prompts.ensemble import _cubes

    rows = []
    for key, cube in _cubes(train).items():
        logp = torch.tensor(cube.logp, dtype=torch.float64)
        gold = torch.tensor(cube.answer_idx, dtype=torch.long)
        theta = torch.zeros(len(cube.templates), dtype=torch.float64, requires_grad=True)
        opt = torch.optim.Adam([theta], lr=lr)
        for _ in range(steps):
            opt.zero_grad()
            s = torch.einsum("t,nto->no", torch.softmax(theta, 0), logp)
            torch.nn.functional.cross_entropy(s, gold).backward()
            opt.step()
        w = torch.softmax(theta.detach(), 0).numpy()
        rows += [(*key, t, float(x)) for t, x in zip(cube.templates, w)]
    return pd.DataFrame(rows, columns=["model", "dataset", "relation", "template", "weight"])


@pytest.mark.parametrize("steps, lr", [(200, 0.1), (37, 0.5)])
def test_learned_weights_equal_torch_adam_on_the_autograd_gradient(steps, lr):
    """The closed-form gradient and the numpy Adam step are torch's, to rounding: several
    relations of different sizes (instances, prompts, options), one with a prompt that is
    always right (weights driven to the edge of the softmax)."""
    parts = []
    for r, (n, options, rates) in enumerate(
        [
            (40, 3, {"a": 0.9, "b": 0.3}),
            (25, 6, {"a": 0.2, "b": 0.5, "c": 0.7, "d": 0.1}),
            (60, 2, {"a": 1.0, "b": 0.5, "c": 0.0}),
        ]
    ):
        part = synthetic(n, rates, seed=r, dataset="lama-train", options=options)
        parts.append(part.assign(relation=f"R{r}", model=["m", "m", "n"][r]))
    train = pd.concat(parts, ignore_index=True)
    ours = fit_ensemble_weights(train, steps=steps, lr=lr)
    reference = _torch_adam_weights(train, steps, lr)
    assert ours[["model", "relation", "template"]].equals(
        reference[["model", "relation", "template"]]
    )
    np.testing.assert_allclose(ours["weight"], reference["weight"], rtol=0, atol=1e-10)
    assert not np.allclose(ours["weight"], 1 / ours.groupby("relation")["weight"].transform("size"))


def test_weighted_predictions_are_the_predictions_of_the_weighted_ensemble():
    """The per-fact predictions straight from the dense arrays equal ``predictions`` of the
    ensemble table: several models and relations, the same rows, order, values and types, ties
    to the lowest option (two prompts with equal scores for two options)."""
    parts = []
    for r, (n, options, rates) in enumerate(
        [(30, 3, {"a": 0.9, "b": 0.3}), (20, 5, {"a": 0.2, "b": 0.5, "c": 0.7})]
    ):
        for model in ("m2", "m1"):
            part = synthetic(n, rates, seed=r, dataset="lama", options=options)
            parts.append(part.assign(relation=f"R{r}", model=model))
    scores = pd.concat(parts, ignore_index=True)
    tie = (scores["instance"] == "f0") & (scores["option"] < 2)
    scores.loc[tie, "score"] = 10.0  # every prompt: options 0 and 1 tie, on top
    weights = fit_ensemble_weights(scores, steps=20)
    want = predictions(weighted_ensemble(scores, weights, "w"))
    got = weighted_predictions(scores, weights, "w")
    pd.testing.assert_frame_equal(got, want)
    assert (got.loc[got["instance"] == "f0", "pred"] == 0).all()
    with pytest.raises(ValueError, match="no weights for model 'm1', relation 'R1'"):
        weighted_predictions(scores, weights[weights["relation"] == "R0"])


def test_bad_score_tables_are_rejected():
    with pytest.raises(ValueError, match="no score for instance 'i2', template 'c', option 2"):
        prompt_accuracy(HAND.drop(index=HAND.index[-1]))
    with pytest.raises(ValueError, match="scored twice"):
        prompt_accuracy(pd.concat([HAND, HAND.iloc[:1]]))
    bad = HAND.copy()
    bad.loc[0, "answer_idx"] = 2
    with pytest.raises(ValueError, match="differing `answer_idx`"):
        prompt_accuracy(bad)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['score'\]"):
        prompt_accuracy(HAND.drop(columns="score"))


def test_the_linear_top_k_averages_probabilities():
    ranking = rank_prompts(HAND)
    lin = top_k_ensemble(HAND, ranking, 2, combination="linear")
    i1 = lin[lin["instance"] == "i1"].sort_values("option")
    p_a, p_b = softmax([0.0, -1.0, -2.0]), softmax([-1.0, 0.0, -1.0])
    assert i1["prob"].to_numpy() == pytest.approx((p_a + p_b) / 2)
    assert i1["score"].to_numpy() == pytest.approx(np.log((p_a + p_b) / 2))
    one = top_k_ensemble(HAND, ranking, 1, combination="linear")
    assert one["prob"].to_numpy() == pytest.approx(top_k_ensemble(HAND, ranking, 1)["prob"])
    with pytest.raises(ValueError, match="combination must be one of"):
        top_k_ensemble(HAND, ranking, 2, combination="geometric")


def test_inside_reusing_cubes_a_table_is_split_once_and_the_results_are_the_same(monkeypatch):
    """Ensembles, rankings and the oracle on one table split it once inside ``reusing_cubes``
    (LPAQA's prompt sets and borrowed weights), every time outside it, a copy of the table again
    (another object), and the results are those of separate splits."""
    import calib.prompts.ensemble as ensemble

    ranking = rank_prompts(HAND)
    calls = []
    split = ensemble._split_cubes
    monkeypatch.setattr(ensemble, "_split_cubes", lambda s, n: calls.append(id(s)) or split(s, n))
    weights = pd.DataFrame(
        {"model": "m", "relation": "R", "template": ["a", "b", "c"], "weight": [0.5, 0.3, 0.2]}
    )

    def everything(t):
        return [
            top_k_ensemble(t, ranking, 1),
            top_k_ensemble(t, ranking, 2),
            weighted_ensemble(t, weights),
            oracle(t),
            prompt_accuracy(t),
        ]

    apart = everything(HAND)
    assert len(calls) == 5
    calls.clear()
    with ensemble.reusing_cubes():
        together = everything(HAND)
        assert len(calls) == 1
        everything(HAND.copy())
        assert len(calls) == 2
    for a, b in zip(apart, together):
        pd.testing.assert_frame_equal(a, b)
    calls.clear()
    everything(HAND)
    assert len(calls) == 5
    assert ensemble._CUBES.store is None
