"""The one verdict type and the quantifier rules, on hand-made interval frames: every branch of
``every``, ``most`` and ``on average`` (holds / does not hold / undecided / not testable), and
the wording of a tally."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.experiments import quantifiers as q
from calib.experiments.verdicts import (
    AGREEMENT,
    FAILS,
    HOLDS,
    NOT_RUN,
    UNDECIDED,
    UNTESTABLE,
    Judgement,
    Verdict,
    counts_sentence,
    unit_tally,
    verdict_counts,
)


def evidence(intervals, units=None, source="hand-made", **cols) -> q.Evidence:
    """An evidence frame from ``(low, high)`` pairs, the difference their midpoint."""
    lows, highs = zip(*intervals) if intervals else ((), ())
    frame = pd.DataFrame(
        {"unit": units or [f"u{i}" for i in range(len(lows))], "low": lows, "high": highs}
    )
    frame["difference"] = (frame["low"] + frame["high"]) / 2
    for k, v in cols.items():
        frame[k] = v
    return q.Evidence(frame, source)


def test_the_verdict_is_one_str_enum_with_the_ledgers_words():
    assert [v.value for v in Verdict] == [
        "holds",
        "does not hold",
        "undecided",
        "not testable",
        "not run in this build",
    ]
    assert Verdict("does not hold") is FAILS and FAILS == "does not hold"
    assert str(UNDECIDED) == "undecided" and set(AGREEMENT) == set(Verdict)
    j = Judgement("holds", "numbers")
    assert j.verdict is HOLDS  # a text is turned into the enum
    with pytest.raises(ValueError):
        Judgement("true", "")
    assert Judgement.not_run("run it").verdict is NOT_RUN


def test_one_wording_of_a_tally():
    assert unit_tally(3, 1, 6) == (
        "in line with the claim for 3, against it for 1 and undecided for 2 of 6 models"
    )
    assert unit_tally(1, 0, 1, "pair").endswith("of 1 pair")
    counts = verdict_counts(["holds", HOLDS, "undecided"])
    assert list(counts) == list(Verdict) and counts[HOLDS] == 2 and counts[FAILS] == 0
    assert (
        counts_sentence(counts) == "Of the 3 claims, this build's verdicts: holds 2, undecided 1."
    )


@pytest.mark.parametrize(
    "relation, threshold, interval, status",
    [
        ("<", 0, (-0.2, -0.1), q.SUPPORTS),
        ("<", 0, (0.1, 0.2), q.CONTRADICTS),
        ("<", 0, (-0.1, 0.1), q.OPEN),
        ("<", 0, (0.0, 0.0), q.CONTRADICTS),  # a printed tie
        ("<=", 0.2, (0.2, 0.2), q.SUPPORTS),
        ("<=", 0.2, (0.21, 0.3), q.CONTRADICTS),
        (">", 1.0, (1.1, 2.0), q.SUPPORTS),
        (">", 1.0, (0.2, 1.0), q.CONTRADICTS),
        (">=", 0, (0.0, 0.1), q.SUPPORTS),
        (">=", 0, (-0.1, 0.1), q.OPEN),
        ("<", 0, (np.nan, np.nan), q.OPEN),
    ],
)
def test_a_units_status_is_where_its_whole_interval_lies(relation, threshold, interval, status):
    frame = evidence([interval]).frame
    assert q.unit_status(frame, relation, threshold).tolist() == [status]


def test_every_holds_fails_or_stays_undecided_naming_the_units():
    assert q.every(evidence([(-0.2, -0.1), (-0.3, -0.05)]), what="d").verdict is HOLDS
    out = q.every(
        evidence([(-0.2, -0.1), (0.01, 0.05), (-0.1, 0.1)], ["a", "b", "c"]), what="ACE(a) - ACE(b)"
    )
    assert out.verdict is FAILS  # one against is enough for "every"
    assert (
        "in line with the claim for 1, against it for 1 and undecided for 1 of 3 models"
        in out.evidence
        and "b: 0.030 [0.010, 0.050]" in out.evidence
    )
    out = q.every(evidence([(-0.2, -0.1), (-0.01, 0.05)], ["a", "b"]), what="d")
    assert out.verdict is UNDECIDED and "for 1 model(s)" in out.reason
    many = evidence([(-0.2, -0.1)] * 7 + [(-0.01, 0.05)], [f"m{i}" for i in range(8)])
    assert "m7: 0.020 [-0.010, 0.050]" in q.every(many, what="d").reason  # named when many


def test_every_without_units_is_not_testable_with_the_evidences_reason():
    out = q.every(q.Evidence.empty("no causal model under 1B in this build"), what="d")
    assert out.verdict is UNTESTABLE and out.reason == "no causal model under 1B in this build"


def test_every_needs_each_required_unit_unless_one_present_already_contradicts():
    clm_only = evidence([(0.1, 0.2), (0.05, 0.1)], ["CLMs: a", "CLMs: b"], objective="clm")
    out = q.every(
        clm_only, ">", what="H(Sum) - H(other)", required=("clm", "mlm"), required_in="objective"
    )
    assert out.verdict is UNTESTABLE and "no mlm" in out.reason  # never "holds" on CLMs only
    assert "in line with the claim for 2" in out.evidence
    against = evidence([(0.1, 0.2), (-0.2, -0.1)], objective="clm")
    assert (
        q.every(against, ">", what="d", required=("clm", "mlm"), required_in="objective").verdict
        is FAILS
    )
    both = evidence([(0.1, 0.2), (0.1, 0.3)], objective=["clm", "mlm"])
    assert (
        q.every(both, ">", what="d", required=("clm", "mlm"), required_in="objective").verdict
        is HOLDS
    )


def test_most_is_not_undone_by_one_family_against_it():
    # five families: four support, one against -> a claim about most families holds
    five = evidence([(-0.2, -0.1)] * 4 + [(0.05, 0.1)])
    assert q.most(five, what="d", unit="family").verdict is HOLDS
    assert q.every(five, what="d", unit="family").verdict is FAILS
    # three families: one supports, one against, one undecided -> undecided, not "fails"
    three = evidence([(-0.2, -0.1), (0.05, 0.1), (-0.1, 0.1)])
    out = q.most(three, what="d", unit="family")
    assert out.verdict is UNDECIDED and "1 support it and 1 are undecided" in out.reason
    # even counting the undecided as support at most half would: does not hold
    four = evidence([(-0.2, -0.1), (0.05, 0.1), (0.05, 0.2), (-0.1, 0.1)])
    assert q.most(four, what="d").verdict is FAILS
    assert q.most(q.Evidence.empty("no family with two sizes"), what="d").verdict is UNTESTABLE


def test_the_counting_rules_behind_every_and_most():
    assert q.every_verdict(3, 0, 3) is HOLDS and q.every_verdict(2, 1, 3) is FAILS
    assert q.every_verdict(2, 0, 3) is UNDECIDED and q.every_verdict(0, 0, 0) is UNTESTABLE
    assert q.most_verdict(3, 2, 5) is HOLDS and q.most_verdict(2, 2, 5) is UNDECIDED
    assert q.most_verdict(1, 2, 4) is FAILS and q.most_verdict(2, 0, 4) is UNDECIDED


def test_on_average_judges_the_mean_and_its_interval():
    assert q.on_average(evidence([(-0.05, -0.01)], ["mean"]), what="d").verdict is HOLDS
    assert q.on_average(evidence([(0.01, 0.05)], ["mean"]), what="d").verdict is FAILS
    out = q.on_average(evidence([(-0.05, 0.01)], ["mean"]), what="d")
    assert out.verdict is UNDECIDED and "mean" in out.reason
    with pytest.raises(ValueError, match="one row"):
        q.on_average(evidence([(-0.1, 0.0)] * 2), what="d")
    printed = q.printed(pd.DataFrame({"m": ["a", "b"], "v": [-0.2, 0.1]}), "v", "m")
    mean = q.mean_of_printed(printed)
    assert mean["difference"].iloc[0] == pytest.approx(-0.05) and mean["n_units"].iloc[0] == 2
    out = q.on_average(q.Evidence(mean, "Table 1"), what="d")
    assert out.verdict is HOLDS and "mean over 2 models" in out.evidence


def test_a_threshold_claim_uses_the_same_machinery():
    brier = q.printed(pd.DataFrame({"model": ["a", "b"], "brier": [0.18, 0.2]}), "brier", "model")
    assert q.every(q.Evidence(brier, "Table 2"), "<=", 0.2, what="Brier").verdict is HOLDS
    over = q.printed(pd.DataFrame({"model": ["a"], "brier": [0.224]}), "brier", "model")
    out = q.every(q.Evidence(over, "Table 2"), "<=", 0.2, what="Brier")
    assert out.verdict is FAILS and out.evidence.startswith("Brier <= 0.2 (Table 2): ")


def test_printed_values_have_no_interval_and_tiny_numbers_keep_their_sign():
    frame = q.printed(
        pd.DataFrame({"f": ["OPT", "GPT-2"], "e": ["Base", "Margin"], "v": [0.0004, -0.1]}),
        "v",
        ["f", "e"],
    )
    assert frame["unit"].tolist() == ["OPT, Base", "GPT-2, Margin"]
    assert (frame["low"] == frame["high"]).all() and (frame["low"] == frame["difference"]).all()
    assert q.named(frame) == "OPT, Base: 0.0004; GPT-2, Margin: -0.100"
    with pytest.raises(ValueError, match="lacks \\['low', 'high'\\]"):
        q.Evidence(pd.DataFrame({"unit": [], "difference": []}), "x")
