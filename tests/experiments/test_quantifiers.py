"""The one verdict type and the quantifier rules, on hand-made interval frames: every branch of
``every``, ``most`` and ``on average`` (holds / does not hold / undecided / cannot be decided at
this size / not testable), the correction for many units, printed ties, and the wording of a
tally."""

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
    TOO_SMALL,
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
        "cannot be decided at this size",
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


# -- many units, printed ties, "most" with two units, noise floors --------------------------------


def test_one_contradiction_among_fifty_is_not_enough_after_holms_correction():
    """49 units clearly support the claim; the 50th's interval just excludes 0 on the wrong
    side (p about 0.02): before the correction "does not hold", after it undecided."""
    fifty = evidence([(-0.2, -0.1)] * 49 + [(0.001, 0.05)], [f"m{i}" for i in range(50)])
    raw = q.every(fifty, what="d", correction="none")
    assert raw.verdict is FAILS
    out = q.every(fifty, what="d")
    assert out.verdict is UNDECIDED and out.units == 50
    assert out.correction.startswith("Holm over 50 models")
    assert "not after Holm's correction over the 50 models" in out.reason
    # a contradiction far beyond the boundary survives the correction
    clear = evidence([(-0.2, -0.1)] * 49 + [(0.2, 0.3)], [f"m{i}" for i in range(50)])
    assert q.every(clear, what="d").verdict is FAILS
    # support needs no correction: every unit is needed
    assert q.every(evidence([(-0.05, -0.001)] * 50), what="d").verdict is HOLDS


def test_most_counts_supports_with_the_correction_and_names_two_units_for_what_they_are():
    # 4 of 6 support by their own intervals, each just excluding 0: not enough after correcting
    six = evidence([(-0.1, -0.001)] * 4 + [(-0.1, 0.1)] * 2)
    assert q.most(six, what="d", correction="none").verdict is HOLDS
    out = q.most(six, what="d")
    assert out.verdict is UNDECIDED and "is not established" in out.reason
    assert out.correction.startswith("partial conjunction over 6 models: at least 4")
    assert q.most(evidence([(-0.3, -0.2)] * 4 + [(-0.1, 0.1)] * 2), what="d").verdict is HOLDS
    two = q.most(evidence([(-0.3, -0.2), (-0.4, -0.1)]), what="d")
    assert two.verdict is HOLDS
    assert "with 2 models, more than half means both" in two.evidence
    assert "cannot be told from 'every'" in two.evidence
    assert q.most(evidence([(-0.3, -0.2), (-0.1, 0.1)]), what="d").verdict is UNDECIDED


def test_a_printed_tie_is_no_evidence_either_way_at_the_printed_precision():
    tied = q.printed(pd.DataFrame({"m": ["a"], "v": [37.0 - 37.0]}), "v", "m", step=0.1, terms=2)
    assert q.unit_status(tied, ">", 0).tolist() == [q.OPEN]
    one_step = q.printed(
        pd.DataFrame({"m": ["a"], "v": [0.134 - 0.133]}), "v", "m", step=0.001, terms=2
    )
    assert q.unit_status(one_step, ">", 0).tolist() == [q.SUPPORTS]  # the roundings do not overlap
    assert q.unit_status(one_step, "<", 0).tolist() == [q.CONTRADICTS]
    at_threshold = q.printed(pd.DataFrame({"m": ["a"], "v": [0.100]}), "v", "m", step=0.001)
    assert q.unit_status(at_threshold, "<", 0.1).tolist() == [q.OPEN]
    assert q.unit_status(at_threshold, "<=", 0.1).tolist() == [q.OPEN]
    # without a rounding a value is exact (a build's number without interval)
    exact = evidence([(0.0, 0.0)]).frame
    assert q.unit_status(exact, ">=", 0).tolist() == [q.SUPPORTS]
    out = q.every(q.Evidence(tied, "Table 2"), ">", what="d")
    assert out.verdict is UNDECIDED and "printed precision, which is no evidence" in out.reason


def test_an_ace_whose_noise_floor_is_above_the_threshold_cannot_be_decided_at_this_size():
    rows = evidence([(0.05, 0.3), (0.02, 0.08)], floor=[0.15, 0.04])
    out = q.every(rows, "<", 0.1, what="ACE")
    assert out.verdict is TOO_SMALL
    assert "noise floor of ACE" in out.reason and "u0: floor 0.150" in out.reason
    assert out.decide_factor == pytest.approx((0.15 / 0.1) ** 2)
    # a floor below the threshold: an ordinary undecided verdict
    low_floor = evidence([(0.05, 0.3), (0.02, 0.08)], floor=[0.05, 0.04])
    assert q.every(low_floor, "<", 0.1, what="ACE").verdict is UNDECIDED
    # a unit above the threshold beyond its floor still contradicts it
    above = evidence([(0.25, 0.4), (0.02, 0.08)], floor=[0.15, 0.04])
    assert q.every(above, "<", 0.1, what="ACE").verdict is FAILS
    mean = evidence([(0.05, 0.3)], ["mean"], floor=[0.2])
    assert q.on_average(mean, "<", 0.1, what="ACE").verdict is TOO_SMALL


def test_an_undecided_verdict_says_how_much_more_data_would_decide_it():
    # one unit, estimate -0.01, upper half-width 0.02: decided at 4x the facts, as "holds"
    out = q.every(evidence([(-0.2, -0.1), (-0.03, 0.01)]), what="d")
    assert out.verdict is UNDECIDED
    assert out.decide_factor == pytest.approx(4.0) and out.decide_verdict is HOLDS
    # an estimate on the wrong side: the first contradiction decides it
    wrong = q.every(evidence([(-0.2, -0.1), (-0.01, 0.03)]), what="d")
    assert wrong.decide_verdict is FAILS and wrong.decide_factor > 1
    # printed values: more facts change nothing
    printed = q.printed(pd.DataFrame({"m": ["a"], "v": [0.0]}), "v", "m", step=0.1)
    assert q.every(q.Evidence(printed, "t"), "<", what="d").decide_factor is None


def test_a_unit_without_a_value_reads_no_value_never_nan():
    """Issue 28: the quick ledger printed ``tiny-llama: nan (no interval)``."""
    frame = pd.DataFrame(
        {
            "unit": ["tiny-llama", "tiny-gpt2", "printed"],
            "difference": [np.nan, -0.05, 0.2],
            "low": [np.nan, -0.08, 0.2],
            "high": [np.nan, -0.02, 0.2],
        }
    )
    text = q.named(frame)
    assert "nan" not in text
    assert text.startswith("tiny-llama: no value (undefined at this sample); ")
    assert "tiny-gpt2: -0.050 [-0.080, -0.020]" in text and text.endswith("printed: 0.200")
    one = {"difference": 0.1, "low": np.nan, "high": np.nan}
    assert q.interval_text(one) == "0.100 (no interval)"
