"""Verdicts over many units: Holm's procedure, the partial-conjunction count, and per-unit
p-values derived from 95% intervals (calib.experiments.multiplicity)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from calib.experiments import multiplicity as m
from calib.experiments.quantifiers import unit_status


def _frame(intervals, difference=None):
    low, high = zip(*intervals)
    frame = pd.DataFrame({"unit": [f"u{i}" for i in range(len(low))], "low": low, "high": high})
    frame["difference"] = (frame["low"] + frame["high"]) / 2 if difference is None else difference
    return frame


def test_holm_steps_down_and_stops_at_the_first_p_value_above_its_limit():
    assert m.holm([0.01, 0.02, 0.03], 0.05).tolist() == [True, True, True]
    # sorted limits 0.05/3, 0.05/2, 0.05: 0.03 > 0.025 stops it, and 0.04 after it stays
    assert m.holm([0.001, 0.03, 0.04], 0.05).tolist() == [True, False, False]
    assert m.holm([0.04, 0.001], 0.05).tolist() == [True, True]  # input order kept
    assert m.holm([0.03, np.nan], 0.05).tolist() == [False, False]  # NaN counts as 1
    assert m.holm([], 0.05).tolist() == []


def test_holm_keeps_the_family_wise_error_rate_where_uncorrected_tests_do_not():
    rng = np.random.default_rng(0)
    p = rng.uniform(size=(4000, 50))  # 50 true nulls per family
    any_raw = (p <= 0.025).any(axis=1).mean()
    any_holm = np.mean([m.holm(row, 0.025).any() for row in p])
    assert any_raw > 0.6  # 1 - 0.975**50 = 0.72
    assert any_holm <= 0.025 + 3 * np.sqrt(0.025 * 0.975 / 4000)


def test_at_least_r_of_m_is_the_rth_smallest_p_against_alpha_over_m_minus_r_plus_1():
    p = [0.005, 0.005, 0.006, 0.0082, 0.5, 0.6]
    assert m.at_least(p, 4, 0.025)  # 0.0082 <= 0.025 / 3
    assert not m.at_least(p, 5, 0.025)
    assert m.at_least(p, 1, 0.025) == (min(p) <= 0.025 / 6)
    assert m.at_least([0.02, 0.01], 2, 0.025)  # r = m: each at its own level
    assert not m.at_least(p, 0) and not m.at_least(p, 7)


@pytest.mark.parametrize(
    "relation, interval", [("<", (-0.2, -0.001)), ("<", (0.001, 0.3)), (">", (0.001, 0.3))]
)
def test_one_units_p_values_give_its_intervals_verdict(relation, interval):
    frame = _frame([interval])
    status = unit_status(frame, relation, 0.0)
    p_s, p_c = m.side_p_values(frame, relation, 0.0, status)
    assert (p_s[0] <= 0.025) == (status.iloc[0] == "supports")
    assert (p_c[0] <= 0.025) == (status.iloc[0] == "contradicts")


def test_p_values_use_the_half_of_the_interval_facing_the_threshold():
    # estimate 0.1, lower half 0.05 (towards 0), upper half 0.3: only the lower half counts
    frame = _frame([(0.05, 0.4)], difference=[0.1])
    status = unit_status(frame, ">", 0.0)
    p_s, _ = m.side_p_values(frame, ">", 0.0, status)
    z = stats.norm.ppf(0.975)
    assert p_s[0] == pytest.approx(stats.norm.sf(0.1 / (0.05 / z)))  # not the mean half, 0.175
    # a one-sided bound (the estimate on the interval's end) is certain on that side
    bound = _frame([(0.61, 1.0)], difference=[0.61])
    status = unit_status(bound, "<=", 0.5)
    _, p_c = m.side_p_values(bound, "<=", 0.5, status)
    assert p_c[0] == 0.0


def test_p_value_columns_of_the_evidence_are_used_as_they_are():
    frame = _frame([(-0.2, -0.1), (-0.2, -0.1)]).assign(p_support=[0.001, 0.3], p_contradict=1.0)
    status = unit_status(frame, "<", 0.0)
    out = m.corrected_status(frame, "<", 0.0, status, sides=("supports",))
    assert out.tolist() == ["supports", "undecided"]


def test_printed_values_are_certain_and_missing_intervals_decide_nothing():
    frame = _frame([(0.2, 0.2), (np.nan, np.nan)])
    status = unit_status(frame, ">", 0.0)
    p_s, p_c = m.side_p_values(frame, ">", 0.0, status)
    assert p_s.tolist() == [0.0, 1.0] and p_c.tolist() == [1.0, 1.0]


def test_corrected_status_and_its_wording():
    frame = _frame([(-0.2, -0.1)] * 9 + [(0.001, 0.05)])
    status = unit_status(frame, "<", 0.0)
    assert (status == "contradicts").sum() == 1
    out = m.corrected_status(frame, "<", 0.0, status)
    assert (out == "contradicts").sum() == 0 and (out == "supports").sum() == 9
    assert m.corrected_status(frame, "<", 0.0, status, correction="none").equals(status)
    with pytest.raises(ValueError, match="correction must be one of"):
        m.corrected_status(frame, "<", 0.0, status, correction="bonferroni")
    assert m.correction_text("holm", 1, "model", 1) == "none (1 model)"
    assert m.correction_text("holm", 10, "model").startswith(
        "Holm over 10 models (a contradiction needs p <= 0.025/10)"
    )
    assert "at least 6 must support it (the 6th smallest p <= 0.025/5)" in m.correction_text(
        "holm", 10, "family", 6
    )
