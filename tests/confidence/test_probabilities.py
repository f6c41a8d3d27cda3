"""The softmax over an instance's options, and the checks on a sentence-score table."""

import math

import numpy as np
import pandas as pd
import pytest

from calib.confidence import (
    check_sentence_scores,
    log_softmax,
    option_probabilities,
    sentence_scores,
    template_predictions,
)


def sent_of(make_table, groups):
    return sentence_scores(make_table(groups))


def test_softmax_hand_computed(make_table):
    sent = sent_of(make_table, [("P1", "Q1", "paraphrase-0", np.log([1, 2, 5]).tolist(), 2)])
    probs = option_probabilities(sent)["probability"]
    np.testing.assert_allclose(probs, [0.125, 0.25, 0.625])
    per = template_predictions(sent).iloc[0]
    assert per["prediction"] == 2 and per["answer_idx"] == 2 and bool(per["correct"])
    assert per["n_options"] == 3
    assert per["p_top"] == pytest.approx(0.625) and per["p_second"] == pytest.approx(0.25)


def test_softmax_is_shift_invariant_and_stable(make_table):
    # scores far below zero (long statements) must not underflow
    sent = sent_of(make_table, [("P1", "Q1", "paraphrase-0", [-1000.0, -1001.0], 0)])
    p = option_probabilities(sent)["probability"].to_numpy()
    np.testing.assert_allclose(p, [1 / (1 + math.exp(-1)), math.exp(-1) / (1 + math.exp(-1))])


def test_dense_log_softmax_agrees_with_the_grouped_one(make_table):
    scores = np.array([[[-1.0, -2.5, -0.5], [-3.0, -3.0, -1.0]]])  # 1 instance, 2 templates
    groups = [("P1", "Q1", f"paraphrase-{t}", scores[0, t].tolist(), 0) for t in range(2)]
    probs = option_probabilities(sent_of(make_table, groups))["probability"].to_numpy()
    np.testing.assert_allclose(np.exp(log_softmax(scores)).ravel(), probs)
    with pytest.raises(ValueError, match="finite"):
        log_softmax([0.0, np.nan])


def test_ties_predict_the_lowest_option(make_table):
    sent = sent_of(make_table, [("P1", "Q1", "paraphrase-0", [-2.0, -1.0, -1.0], 2)])
    per = template_predictions(sent).iloc[0]
    assert per["prediction"] == 1 and not per["correct"]
    assert per["p_top"] == pytest.approx(per["p_second"])


def test_probabilities_sum_to_one_and_ignore_row_order(random_table):
    sent = sentence_scores(random_table)
    probs = option_probabilities(sent)
    sums = probs.groupby(["model", "relation", "instance", "template"])["probability"].sum()
    np.testing.assert_allclose(sums, 1.0)
    shuffled = option_probabilities(sent.sample(frac=1.0, random_state=3))
    key = ["model", "relation", "instance", "template", "option"]
    pd.testing.assert_frame_equal(
        probs.sort_values(key).reset_index(drop=True),
        shuffled.sort_values(key).reset_index(drop=True),
    )
    a = template_predictions(sent)
    b = template_predictions(sent.sample(frac=1.0, random_state=4))
    pd.testing.assert_frame_equal(a, b)


def base_sent(make_table):
    return sent_of(
        make_table,
        [
            ("P1", "Q1", "paraphrase-0", [-1.0, -2.0, -3.0], 0),
            ("P1", "Q1", "paraphrase-1", [-1.0, -2.0, -3.0], 0),
        ],
    )


def test_correct_index_out_of_range(make_table):
    sent = base_sent(make_table)
    sent["answer_idx"] = 3
    with pytest.raises(ValueError, match=r"answer_idx 3 is out of range .* 3 options"):
        template_predictions(sent)
    sent["answer_idx"] = -1
    with pytest.raises(ValueError, match="answer_idx -1 is out of range"):
        template_predictions(sent)


def test_correct_must_be_one_value_per_group(make_table):
    sent = base_sent(make_table)
    sent.loc[1, "answer_idx"] = 1
    with pytest.raises(ValueError, match="'answer_idx' differs between the options"):
        check_sentence_scores(sent)


def test_nan_and_inf_scores(make_table):
    for bad in (np.nan, np.inf, -np.inf):
        sent = base_sent(make_table)
        sent.loc[4, "score"] = bad
        with pytest.raises(ValueError, match=r"'score' is .* at row 4 .*template='paraphrase-1'"):
            template_predictions(sent)


def test_options_must_be_0_to_n_minus_1(make_table):
    sent = base_sent(make_table)
    sent.loc[1, "option"] = 5
    with pytest.raises(ValueError, match=r"must be 0\.\.2, each once; got \[0, 2, 5\]"):
        check_sentence_scores(sent)
    sent = base_sent(make_table)
    sent.loc[1, "option"] = 0
    with pytest.raises(ValueError, match="each once"):
        check_sentence_scores(sent)


def test_options_of_different_lengths_for_one_instance(make_table):
    sent = sent_of(
        make_table,
        [
            ("P1", "Q1", "paraphrase-0", [-1.0, -2.0, -3.0], 0),
            ("P1", "Q1", "paraphrase-1", [-1.0, -2.0], 0),
        ],
    )
    with pytest.raises(ValueError, match=r"answer spaces of different sizes .*paraphrase-1': 2"):
        template_predictions(sent)


def test_single_option_and_missing_columns(make_table):
    sent = sent_of(make_table, [("P1", "Q1", "paraphrase-0", [-1.0], 0)])
    with pytest.raises(ValueError, match="at least 2"):
        template_predictions(sent)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['score'\].*sentence_scores"):
        template_predictions(make_table([("P1", "Q1", "paraphrase-0", [-1.0, -2.0], 0)]))


def test_non_integer_option(make_table):
    sent = base_sent(make_table)
    sent["option"] = sent["option"].astype(float)
    sent.loc[0, "option"] = 0.5
    with pytest.raises(ValueError, match="'option' must hold integers"):
        check_sentence_scores(sent)
