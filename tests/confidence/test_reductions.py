"""Sentence scores from token scores (Appendix C) and the harmonic mean H."""

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from calib.confidence import REDUCTIONS, harmonic_mean, sentence_scores
from calib.scoring.schema import SCORE_COLUMNS


def two_options():
    base = {
        "model": "m",
        "dataset": "bear",
        "relation": "P1",
        "instance": "Q1",
        "template": "paraphrase-0",
        "answer": "x",
        "answer_idx": 1,
    }
    return pd.DataFrame(
        [
            {
                **base,
                "option": 0,
                "token_logprobs": [-1.0, -2.0, -3.0],
                "token_roles": ["subject", "template", "object"],
            },
            {
                **base,
                "option": 1,
                "token_logprobs": [-1.0, -0.5, -2.0, -4.0],
                "token_roles": ["subject", "object", "template", "object"],
            },
        ],
        columns=list(SCORE_COLUMNS),
    )


@pytest.mark.parametrize(
    "reduction, expected",
    [
        ("sum", [-6.0, -7.5]),
        ("mean", [-2.0, -1.875]),
        ("sum-answer", [-3.0, -4.5]),
        ("mean-answer", [-3.0, -2.25]),
    ],
)
def test_hand_computed_reductions(reduction, expected):
    out = sentence_scores(two_options(), reduction)
    assert list(out.columns) == [
        "model",
        "dataset",
        "relation",
        "instance",
        "template",
        "option",
        "answer_idx",
        "score",
    ]
    np.testing.assert_allclose(out["score"], expected)
    assert out["answer_idx"].tolist() == [1, 1]


def test_default_is_sum_and_names_are_the_papers():
    assert REDUCTIONS[0] == "sum"
    pd.testing.assert_frame_equal(
        sentence_scores(two_options()), sentence_scores(two_options(), "sum")
    )


def test_arrow_and_numpy_list_columns_give_the_same_scores():
    frame = two_options()
    as_numpy = frame.assign(
        token_logprobs=frame["token_logprobs"].map(np.asarray),
        token_roles=frame["token_roles"].map(np.asarray),
    )
    as_arrow = frame.assign(
        token_logprobs=pd.Series(
            pd.arrays.ArrowExtensionArray(pa.array(frame["token_logprobs"].tolist()))
        ),
        token_roles=pd.Series(
            pd.arrays.ArrowExtensionArray(pa.array(frame["token_roles"].tolist()))
        ),
    )
    for other in (as_numpy, as_arrow):
        for r in REDUCTIONS:
            np.testing.assert_allclose(
                sentence_scores(other, r)["score"], sentence_scores(frame, r)["score"]
            )


def test_random_table_matches_a_plain_loop(random_table):
    part = random_table.iloc[:500]
    for r in REDUCTIONS:
        got = sentence_scores(part, r)["score"].to_numpy()
        want = []
        for lp, roles in zip(part["token_logprobs"], part["token_roles"]):
            sel = [x for x, role in zip(lp, roles) if role == "object" or "answer" not in r]
            want.append(sum(sel) / (len(sel) if r.startswith("mean") else 1))
        np.testing.assert_allclose(got, want)


def test_row_order_is_kept_and_irrelevant(random_table):
    part = random_table.iloc[:300]
    shuffled = part.sample(frac=1.0, random_state=1)
    a = sentence_scores(part).set_index(["template", "instance", "option"]).sort_index()
    b = sentence_scores(shuffled).set_index(["template", "instance", "option"]).sort_index()
    pd.testing.assert_frame_equal(a, b)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda f: f.at[1, "token_logprobs"].__setitem__(0, float("nan")),
            "'token_logprobs' is nan .* at row 1",
        ),
        (
            lambda f: f.at[0, "token_logprobs"].__setitem__(2, float("-inf")),
            "'token_logprobs' is -inf .* at row 0",
        ),
        (lambda f: f.at[1, "token_roles"].pop(), "4 token_logprobs but 3 token_roles"),
        (lambda f: f.at[0, "token_roles"].__setitem__(0, "verb"), "token role 'verb'"),
    ],
)
def test_bad_tokens_are_named(change, message):
    frame = two_options()
    frame["token_logprobs"] = frame["token_logprobs"].map(list)
    frame["token_roles"] = frame["token_roles"].map(list)
    change(frame)
    with pytest.raises(ValueError, match=message) as err:
        sentence_scores(frame)
    assert "instance='Q1'" in str(err.value)


def test_missing_lists_and_missing_answer_tokens():
    frame = two_options()
    frame.at[0, "token_logprobs"] = None
    with pytest.raises(ValueError, match="token_logprobs' is missing"):
        sentence_scores(frame)
    frame = two_options()
    frame.at[0, "token_roles"] = ["subject", "template", "template"]
    assert sentence_scores(frame, "sum")["score"].iloc[0] == -6.0
    with pytest.raises(ValueError, match="no answer tokens"):
        sentence_scores(frame, "mean-answer")


def test_unknown_reduction_and_missing_columns():
    with pytest.raises(ValueError, match="unknown reduction 'median'"):
        sentence_scores(two_options(), "median")
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['token_roles'\]"):
        sentence_scores(two_options().drop(columns="token_roles"))


def test_harmonic_mean():
    assert harmonic_mean(0.5, 0.2) == pytest.approx(2 * 0.5 * 0.8 / 1.3)
    assert harmonic_mean(1.0, 0.0) == 1.0
    assert harmonic_mean(0.0, 1.0) == 0.0
    np.testing.assert_allclose(harmonic_mean([0.5, 0.25], [0.5, 0.0]), [0.5, 2 * 0.25 / 1.25])
    assert math.isclose(harmonic_mean(0.3, 0.4), harmonic_mean(0.6, 0.7))  # symmetric in ACC, 1-ACE
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        harmonic_mean(1.2, 0.1)
