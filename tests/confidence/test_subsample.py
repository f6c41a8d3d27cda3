"""Answer-set subsampling (§5.2)."""

import numpy as np
import pandas as pd
import pytest

from calib.confidence import (
    base,
    sentence_scores,
    subsample_options,
    subsample_repeats,
    template_predictions,
)


@pytest.fixture(scope="module")
def sent(random_table):
    return sentence_scores(random_table)


def kept_sets(sub):
    return sub.groupby(["model", "relation", "instance", "template"])["source_option"].apply(
        lambda s: tuple(sorted(s))
    )


def test_k_options_with_the_correct_one(sent):
    sub = subsample_options(sent, 4, seed=0, too_small="error")
    groups = sub.groupby(["model", "relation", "instance", "template"])
    assert (groups.size() == 4).all()
    assert (groups["option"].apply(lambda s: sorted(s) == [0, 1, 2, 3])).all()
    # the correct option survives and `answer_idx` points at it
    right = sub[sub["option"] == sub["answer_idx"]]
    truth = sent[sent["option"] == sent["answer_idx"]]
    merged = right.merge(truth, on=["model", "relation", "instance", "template"])
    assert len(merged) == len(truth)
    assert (merged["source_option"] == merged["option_y"]).all()
    # the kept options keep their scores and original order
    back = sub.merge(
        sent,
        left_on=["model", "relation", "instance", "template", "source_option"],
        right_on=["model", "relation", "instance", "template", "option"],
    )
    np.testing.assert_array_equal(back["score_x"], back["score_y"])
    assert groups["source_option"].apply(lambda s: s.is_monotonic_increasing).all()


def test_one_subset_per_instance_across_templates_and_models(sent):
    sets = kept_sets(subsample_options(sent, 3, seed=1)).reset_index()
    per_fact = sets.groupby(["relation", "instance"])["source_option"].nunique()
    assert (per_fact == 1).all()


def test_seeded_repeatable_and_independent_of_row_order(sent):
    a = kept_sets(subsample_options(sent, 3, seed=5, repeat=2))
    b = kept_sets(subsample_options(sent.sample(frac=1.0, random_state=0), 3, seed=5, repeat=2))
    pd.testing.assert_series_equal(a, b)
    other = kept_sets(subsample_options(sent, 3, seed=5, repeat=3))
    assert (a != other).any()
    reps = list(subsample_repeats(sent, 3, repeats=3, seed=5))
    assert [r for r, _ in reps] == [0, 1, 2]
    pd.testing.assert_series_equal(kept_sets(reps[2][1]), a)


def test_draw_is_uniform_over_the_others(make_table):
    # 2000 instances with 6 options, correct 0: each other option kept with probability 2/5
    sent = sentence_scores(
        make_table([("P1", f"Q{i}", "paraphrase-0", [-1.0] * 6, 0) for i in range(2000)])
    )
    counts = np.bincount(subsample_options(sent, 3, seed=0)["source_option"], minlength=6)
    assert counts[0] == 2000
    np.testing.assert_allclose(counts[1:] / 2000, 0.4, atol=0.04)


def test_softmax_is_recomputed_over_the_subset(sent):
    sub = subsample_options(sent, 3, seed=2)
    per = template_predictions(sub)
    # the Base-Confidence over 3 options, by hand
    g = sub.groupby(["model", "dataset", "relation", "instance", "template"])["score"]
    want = g.apply(lambda s: np.exp(s - s.max()).max() / np.exp(s - s.max()).sum())
    np.testing.assert_allclose(per["p_top"], want.to_numpy())
    assert (base(sub, None)["confidence"] >= 1 / 3 - 1e-12).all()


def test_too_small_answer_spaces(sent):
    with pytest.raises(ValueError, match=r"fewer than k=6 options \(relations \['R0'\]\)"):
        subsample_options(sent, 6)
    kept = subsample_options(sent, 6, too_small="keep")
    assert set(
        kept.loc[kept["relation"] == "R0"].groupby(["model", "instance", "template"]).size()
    ) == {5}
    dropped = subsample_options(sent, 6, too_small="drop")
    assert set(dropped["relation"]) == {"R1", "R2"}
    with pytest.raises(ValueError, match="k must be an integer >= 2"):
        subsample_options(sent, 1)
    with pytest.raises(ValueError, match="too_small"):
        subsample_options(sent, 3, too_small="shrink")


def test_answer_space_must_agree_across_models(sent):
    bad = sent.copy()
    mask = (bad["model"] == "m2") & (bad["instance"] == "Q1_0")
    bad.loc[mask, "answer_idx"] = (bad.loc[mask, "answer_idx"] + 1) % 8
    with pytest.raises(ValueError, match="different correct options"):
        subsample_options(bad, 3)
