"""Estimators Base, Margin (Eqs. 1-2), Average, Consistency, Entropy (Eqs. 3-7), linguistic."""

from math import log

import numpy as np
import pandas as pd
import pytest

from calib.confidence import (
    AGGREGATIONS,
    all_estimates,
    average,
    base,
    consistency,
    entropy,
    entropy_normalised,
    linguistic,
    margin,
    rejection_rate,
    sentence_scores,
)
from calib.data.bear import PARAPHRASES

# Per-template option probabilities of three instances (scores are their logs).
# A: correct 1; predictions 1, 1, 0, 1, 3 with Base 0.6, 0.7, 0.5, 0.4, 0.8
A = [
    [0.1, 0.6, 0.2, 0.1],
    [0.1, 0.7, 0.1, 0.1],
    [0.5, 0.3, 0.1, 0.1],
    [0.1, 0.4, 0.3, 0.2],
    [0.05, 0.05, 0.1, 0.8],
]
# B: correct 2; predictions 0, 0, 2, 2, 1 with Base 0.6, 0.5, 0.7, 0.65, 0.45
B = [[0.6, 0.3, 0.1], [0.5, 0.2, 0.3], [0.1, 0.2, 0.7], [0.25, 0.1, 0.65], [0.2, 0.45, 0.35]]
# C: correct 0; all five predict 0 with Base 0.9, 0.8, 0.7, 0.6, 0.5
C = [[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.6, 0.4], [0.5, 0.5 - 1e-9]]


def hand_table(make_table):
    groups = []
    for inst, probs, correct in (("A", A, 1), ("B", B, 2), ("C", C, 0)):
        for template, p in zip(PARAPHRASES, probs):
            groups.append(("P1", inst, template, np.log(p).tolist(), correct))
    return sentence_scores(make_table(groups))


def by_instance(frame):
    return frame.set_index("instance")


def test_base_and_margin_hand_computed(make_table):
    sent = hand_table(make_table)
    b = by_instance(base(sent))
    m = by_instance(margin(sent))
    assert b.loc["A", "confidence"] == pytest.approx(0.6)
    assert b.loc["A", "prediction"] == 1 and bool(b.loc["A", "correct"])
    assert m.loc["A", "confidence"] == pytest.approx(0.6 - 0.2)
    assert b.loc["B", "confidence"] == pytest.approx(0.6) and not b.loc["B", "correct"]
    assert m.loc["B", "confidence"] == pytest.approx(0.3)
    assert set(b["template"]) == {"paraphrase-0"}
    every = base(sent, None)
    assert len(every) == 15 and set(every["template"]) == set(PARAPHRASES)
    t4 = base(sent, "paraphrase-4").set_index("instance")
    assert t4.loc["A", "confidence"] == pytest.approx(0.8) and t4.loc["A", "prediction"] == 3


# expected (prediction, correct, n_agree, rejected, Average, Consistency) per aggregation
EXPECTED = {
    "min": {
        "A": (1, True, 3, False, (0.6 + 0.7 + 0.4) / 5, 3 / 5),
        "B": (1, False, 1, False, 0.45 / 5, 1 / 5),
        "C": (0, True, 5, False, (0.9 + 0.8 + 0.7 + 0.6 + 0.5) / 5, 1.0),
    },
    "max": {
        "A": (3, False, 1, False, 0.8 / 5, 1 / 5),
        "B": (2, True, 2, False, (0.7 + 0.65) / 5, 2 / 5),
        "C": (0, True, 5, False, 3.5 / 5, 1.0),
    },
    "vote-2": {
        "A": (1, True, 3, False, 1.7 / 5, 3 / 5),
        "B": (-1, False, 2, True, 0.0, 0.0),  # tie 0:2 vs 2:2 -> rejected
        "C": (0, True, 5, False, 3.5 / 5, 1.0),
    },
    "vote-3": {
        "A": (1, True, 3, False, 1.7 / 5, 3 / 5),
        "B": (-1, False, 2, True, 0.0, 0.0),
        "C": (0, True, 5, False, 3.5 / 5, 1.0),
    },
    "vote-4": {
        "A": (-1, False, 3, True, 0.0, 0.0),
        "B": (-1, False, 2, True, 0.0, 0.0),
        "C": (0, True, 5, False, 3.5 / 5, 1.0),
    },
    "vote-5": {
        "A": (-1, False, 3, True, 0.0, 0.0),
        "B": (-1, False, 2, True, 0.0, 0.0),
        "C": (0, True, 5, False, 3.5 / 5, 1.0),
    },
}
# Entropy as printed (Eqs. 5-7): s(c) = mean Base of the templates predicting c,
# q = s / sum s, C = 1 - (-sum q ln q).
# A: s = (0.6+0.7+0.4)/3 = 0.5667 (answer 1), 0.5 (answer 0), 0.8 (answer 3); sum 1.8667;
#    q = 0.30357, 0.26786, 0.42857; H = 1.07788; C = -0.07788 (three clusters: below 0)
# B: s = 0.55 (0), 0.675 (2), 0.45 (1); q = 0.32836, 0.40299, 0.26866; H = 1.08503; C = -0.08503
# C: one cluster, q = 1, H = 0, C = 1
ENTROPY = {"A": -0.0778754087, "B": -0.0850326045, "C": 1.0}
# the normalised variant: shares of templates, 1 - SE / ln 5
SE_A = -(0.6 * log(0.6) + 2 * 0.2 * log(0.2))  # clusters 3, 1, 1
SE_B = -(2 * 0.4 * log(0.4) + 0.2 * log(0.2))  # clusters 2, 2, 1


@pytest.mark.parametrize("aggregation", AGGREGATIONS)
def test_multi_template_hand_computed(make_table, aggregation):
    sent = hand_table(make_table)
    avg = by_instance(average(sent, aggregation))
    con = by_instance(consistency(sent, aggregation))
    ent = by_instance(entropy(sent, aggregation))
    for inst, (pred, correct, n_agree, rejected, c_avg, c_con) in EXPECTED[aggregation].items():
        for est in (avg, con, ent):
            row = est.loc[inst]
            assert (
                row["prediction"],
                bool(row["correct"]),
                row["n_agree"],
                bool(row["rejected"]),
            ) == (pred, correct, n_agree, rejected), (aggregation, inst)
        assert avg.loc[inst, "confidence"] == pytest.approx(c_avg, abs=1e-9)
        assert con.loc[inst, "confidence"] == pytest.approx(c_con, abs=1e-12)
        want = 0.0 if rejected else ENTROPY[inst]
        assert ent.loc[inst, "confidence"] == pytest.approx(want, abs=1e-9)


def _five_templates(make_table, probs):
    return sentence_scores(
        make_table([("P1", "X", t, np.log(p).tolist(), 0) for t, p in zip(PARAPHRASES, probs)])
    )


def test_entropy_as_printed_hand_example(make_table):
    # answers a, a, b, b, c with C_Base 0.9, 0.8, 0.7, 0.6, 0.5:
    # s(a) = (0.9 + 0.8) / 2 = 0.85, s(b) = (0.7 + 0.6) / 2 = 0.65, s(c) = 0.5   (Eq. 5)
    # sum = 2.0, q = 0.425, 0.325, 0.25                                          (Eq. 6)
    # H = -(0.425 ln 0.425 + 0.325 ln 0.325 + 0.25 ln 0.25)
    #   = 0.36365 + 0.36529 + 0.34657 = 1.07551; C = 1 - H = -0.07551            (Eq. 7)
    probs = [
        [0.9, 0.05, 0.05],
        [0.8, 0.1, 0.1],
        [0.15, 0.7, 0.15],
        [0.2, 0.6, 0.2],
        [0.25, 0.25, 0.5],
    ]
    ent = entropy(_five_templates(make_table, probs)).iloc[0]
    assert ent["confidence"] == pytest.approx(-0.0755089685, abs=1e-9)
    assert ent["prediction"] == 2  # min aggregation: the template with the lowest Base (0.5)
    # answers a, a, a, b, b with C_Base 0.9, 0.8, 0.7, 0.6, 0.4: s = 0.8, 0.5; q = 8/13, 5/13
    # H = -(8/13 ln 8/13 + 5/13 ln 5/13) = 0.29877 + 0.36750 = 0.66628; C = 0.33372
    probs = [[0.9, 0.05, 0.05], [0.8, 0.1, 0.1], [0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.3, 0.4, 0.3]]
    two = entropy(_five_templates(make_table, probs)).iloc[0]
    assert two["confidence"] == pytest.approx(0.3337215576, abs=1e-9)
    # five different answers with equal C_Base: q uniform, C = 1 - ln 5, the lowest value
    probs = [np.roll([0.6, 0.1, 0.1, 0.1, 0.1], k).tolist() for k in range(5)]
    low = entropy(_five_templates(make_table, probs)).iloc[0]
    assert low["confidence"] == pytest.approx(1 - log(5), abs=1e-9)


def test_entropy_normalised_variant(make_table):
    sent = hand_table(make_table)
    ent = by_instance(entropy_normalised(sent))
    assert ent.loc["A", "confidence"] == pytest.approx(1 - SE_A / log(5))
    assert ent.loc["A", "confidence"] == pytest.approx(0.409564, abs=1e-6)
    assert ent.loc["B", "confidence"] == pytest.approx(0.344541, abs=1e-6)
    assert ent.loc["C", "confidence"] == 1.0
    clusters = by_instance(entropy_normalised(sent, normalize="clusters"))
    assert clusters.loc["A", "confidence"] == pytest.approx(1 - SE_A / log(3))
    assert clusters.loc["B", "confidence"] == pytest.approx(1 - SE_B / log(3))
    assert clusters.loc["C", "confidence"] == 1.0
    with pytest.raises(ValueError, match="unknown normalize"):
        entropy_normalised(sent, normalize="bits")
    named = all_estimates(sent, variants=["Entropy (normalised)"])
    part = by_instance(named[named["estimator"] == "Entropy (normalised)/min"])
    assert part.loc["A", "confidence"] == pytest.approx(ent.loc["A", "confidence"])
    with pytest.raises(ValueError, match="unknown estimator variant"):
        all_estimates(sent, variants=["EntropyBits"])


def test_rejection_rate(make_table):
    sent = hand_table(make_table)
    assert rejection_rate(average(sent, "vote-2")) == pytest.approx(1 / 3)
    assert rejection_rate(average(sent, "vote-5")) == pytest.approx(2 / 3)
    assert rejection_rate(average(sent, "min")) == 0.0
    assert rejection_rate(base(sent)) == 0.0


def test_bad_aggregations(make_table):
    sent = hand_table(make_table)
    for bad in ("vote-6", "vote-1", "median", "vote-x"):
        with pytest.raises(ValueError, match="aggregation"):
            consistency(sent, bad)
    with pytest.raises(ValueError, match="at least 2 templates"):
        average(sent, "min", ["paraphrase-0"])


def test_missing_templates_are_named(make_table):
    sent = hand_table(make_table)
    sent = sent[~((sent["instance"] == "B") & (sent["template"] == "paraphrase-3"))]
    with pytest.raises(ValueError, match=r"instance=.B.*lacks template\(s\) \['paraphrase-3'\]"):
        consistency(sent)
    with pytest.raises(ValueError, match="none of the templates"):
        entropy(sent, templates=["possibly", "certainly"])
    with pytest.raises(ValueError, match=r"template\(s\) \['possibly'\] not in the table"):
        base(sent, "possibly")


def test_properties_on_random_table(random_table):
    sent = sentence_scores(random_table)
    b, m = base(sent, None), margin(sent, None)
    assert (m["confidence"] <= b["confidence"] + 1e-12).all()
    assert (b["confidence"] >= 1 / 13 - 1e-12).all() and (b["confidence"] <= 1).all()
    pd.testing.assert_series_equal(b["correct"], m["correct"])
    for agg in AGGREGATIONS:
        con = consistency(sent, agg)
        fifths = con["confidence"] * 5
        np.testing.assert_allclose(fifths, np.round(fifths), atol=1e-12)
        ent = entropy(sent, agg)
        assert ent["confidence"].between(1 - log(5) - 1e-12, 1).all()
        assert entropy_normalised(sent, agg)["confidence"].between(0, 1).all()
        avg = average(sent, agg)
        assert (avg["confidence"] <= con["confidence"] + 1e-12).all()  # each B_t <= 1
        assert not (con["rejected"] & con["correct"]).any()
        assert (con.loc[con["rejected"], "confidence"] == 0).all()
        assert (con.loc[con["rejected"], "prediction"] == -1).all()
    # more votes required -> never fewer rejections
    rates = [rejection_rate(consistency(sent, f"vote-{k}")) for k in range(2, 6)]
    assert rates == sorted(rates)


def permuted(sent, seed):
    """Relabel the options of every instance by one random permutation (the same for all its
    templates), remap ``answer_idx``, and shuffle the rows."""
    rng = np.random.default_rng(seed)
    out = sent.copy()
    for (_, _, _, _), idx in out.groupby(
        ["model", "dataset", "relation", "instance"]
    ).groups.items():
        n = out.loc[idx, "option"].max() + 1
        perm = rng.permutation(n)
        out.loc[idx, "option"] = perm[out.loc[idx, "option"].to_numpy()]
        out.loc[idx, "answer_idx"] = perm[out.loc[idx, "answer_idx"].to_numpy()]
    return out.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def test_results_do_not_depend_on_row_or_option_order(random_table):
    sent = sentence_scores(random_table)
    other = permuted(sent, 7)
    keys = ["estimator", "model", "relation", "instance"]
    a = all_estimates(sent, aggregations=AGGREGATIONS).sort_values(keys).reset_index(drop=True)
    b = all_estimates(other, aggregations=AGGREGATIONS).sort_values(keys).reset_index(drop=True)
    cols = ["correct", "n_agree", "rejected"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    np.testing.assert_allclose(a["confidence"], b["confidence"], atol=1e-12)


def test_linguistic_uses_the_same_instances(make_table):
    groups = [
        ("P1", "A", "paraphrase-0", np.log([0.7, 0.3]).tolist(), 0),
        ("P1", "A", "possibly", np.log([0.6, 0.4]).tolist(), 0),
        ("P1", "A", "numeric-25", np.log([0.2, 0.8]).tolist(), 0),
        ("P1", "B", "paraphrase-0", np.log([0.1, 0.9]).tolist(), 0),
        ("P1", "B", "possibly", np.log([0.45, 0.55]).tolist(), 0),
        ("P1", "B", "numeric-25", np.log([0.5, 0.5]).tolist(), 0),
        ("P1", "C", "paraphrase-0", np.log([0.5, 0.5]).tolist(), 0),
    ]  # no injected
    sent = sentence_scores(make_table(groups))
    out = linguistic(sent, ["possibly", "numeric-25"]).set_index(["instance", "template"])
    assert set(out.index.get_level_values("instance")) == {"A", "B"}
    assert out.loc[("A", "possibly"), "confidence"] == pytest.approx(0.6)
    assert out.loc[("A", "paraphrase-0"), "confidence"] == pytest.approx(0.7)
    assert out.loc[("B", "possibly"), "confidence"] == pytest.approx(0.55)
    assert not out.loc[("B", "possibly"), "correct"]
    assert out.loc[("A", "numeric-25"), "stated"] == 0.25
    assert np.isnan(out.loc[("A", "possibly"), "stated"])
    with pytest.raises(ValueError, match="also listed as injected"):
        linguistic(sent, "paraphrase-0")


def test_all_estimates_layout(random_table):
    sent = sentence_scores(random_table)
    est = all_estimates(sent, aggregations=("min", "vote-2"))
    assert list(est.columns) == [
        "estimator",
        "model",
        "dataset",
        "relation",
        "instance",
        "template",
        "prediction",
        "correct",
        "confidence",
        "n_agree",
        "rejected",
    ]
    assert sorted(est["estimator"].unique()) == sorted(
        [
            "Base",
            "Margin",
            "Average/min",
            "Consistency/min",
            "Entropy/min",
            "Average/vote-2",
            "Consistency/vote-2",
            "Entropy/vote-2",
        ]
    )
    assert (est.groupby("estimator").size() == 2 * 3 * 12).all()
    ours = est[est["estimator"] == "Base"].reset_index(drop=True)
    direct = base(sent)
    np.testing.assert_allclose(ours["confidence"], direct["confidence"])
    one = all_estimates(sent[sent["template"] == "possibly"], template="possibly", paraphrases=None)
    assert set(one["estimator"]) == {"Base", "Margin"}
