"""How many facts would decide an undecided verdict (calib.experiments.decide), and which
profile runs that many (calib.book.profile_sizes)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from calib.experiments import decide
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, Judgement


def _frame(rows):
    return pd.DataFrame(rows, columns=["difference", "low", "high"])


def test_a_units_factor_is_the_squared_ratio_of_its_half_width_to_its_distance():
    frame = _frame([(-0.01, -0.03, 0.01), (0.02, -0.01, 0.05), (0.0, -0.1, 0.1), (0.3, 0.3, 0.3)])
    out = decide.unit_factors(frame, "<", 0.0)
    assert out["lean"].tolist() == ["supports", "contradicts", "", ""]
    assert out["factor"].iloc[0] == pytest.approx((0.02 / 0.01) ** 2)
    assert out["factor"].iloc[1] == pytest.approx((0.03 / 0.02) ** 2)
    assert math.isinf(out["factor"].iloc[2]) and np.isnan(out["factor"].iloc[3])  # printed
    # Holm's correction over 10 units widens the contradiction side
    wider = decide.unit_factors(frame, "<", 0.0, m_contradict=10)
    assert wider["factor"].iloc[1] > out["factor"].iloc[1]


def test_a_claim_is_decided_by_its_first_contradiction_or_its_last_support():
    factors = pd.DataFrame(
        {"lean": ["supports", "supports", "contradicts"], "factor": [0.5, 4.0, 9.0]}
    )
    assert decide.claim_factor(factors, need=3) == (9.0, FAILS)  # every: the contradiction at 9x
    leaning_true = factors.iloc[:2]
    assert decide.claim_factor(leaning_true, need=2) == (4.0, HOLDS)
    # most of 3 (2 needed): the second support comes at 4x, before any failure
    assert decide.claim_factor(factors, need=2) == (4.0, HOLDS)
    on_boundary = pd.DataFrame({"lean": ["supports", ""], "factor": [2.0, math.inf]})
    assert decide.claim_factor(on_boundary, need=2) == (math.inf, None)
    printed = pd.DataFrame({"lean": [""], "factor": [np.nan]})
    assert decide.claim_factor(printed, need=1) == (None, None)


def test_facts_needed_and_the_profile_that_reaches_them():
    assert decide.facts_needed(4.0, 60) == 240.0
    assert decide.facts_needed(None, 60) is None and decide.facts_needed(2.0, None) is None
    sizes = {"cpu": 60, "paper": 7731}
    assert decide.reaching_profile(50, sizes) == "cpu (60 facts)"
    assert decide.reaching_profile(240, sizes) == "paper (7,731 facts)"
    assert decide.reaching_profile(9000, sizes) == "beyond the paper profile (7,731 facts)"
    assert decide.reaching_profile(math.inf, sizes).startswith("no sample size")
    assert decide.floor_factor([0.15, 0.12], 0.1) == pytest.approx(2.25)


def test_the_ledger_columns_read_the_results_facts():
    judged = Judgement(UNDECIDED, "e", decide_factor=4.0, decide_verdict=HOLDS)

    class Result:
        n_facts = 60

    cols = decide.decide_columns(judged, Result())
    assert cols["facts_to_decide"] == 240.0 and cols["decide_verdict"] == "holds"
    assert np.isnan(decide.decide_columns(judged, None)["facts_to_decide"])
    assert np.isnan(decide.decide_columns(Judgement(HOLDS, "e"), Result())["decide_factor"])


def test_the_profiles_facts_per_model():
    from calib.book import profile_sizes
    from calib.experiments import calibration, linguistic, lpaqa

    bear = profile_sizes.facts_per_model(calibration.Params)
    assert bear == {"cpu": 180, "paper": 7731}  # 3 per relation x 60; all of BEAR
    assert profile_sizes.facts_per_model(linguistic.Params)["cpu"] == 60
    assert "quick" not in bear  # tiny random models decide nothing
    assert profile_sizes.facts_per_model(lpaqa.Params)["cpu"] == 15 * 4
