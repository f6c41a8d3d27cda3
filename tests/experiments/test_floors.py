"""Floor-corrected ACE comparisons (calib.experiments.floors)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from calib.experiments import floors
from calib.experiments import quantifiers as q


def _floors():
    return pd.DataFrame(
        {
            "model": ["m", "m"],
            "estimator": ["Base", "Margin"],
            "ace_floor": [0.12, 0.18],
            "ace_floor_se": [0.003, 0.004],
        }
    )


def _differences(d, low, high):
    return pd.DataFrame(
        {
            "unit": ["m, ace", "m, brier"],
            "model": ["m", "m"],
            "a": ["Margin", "Margin"],
            "b": ["Base", "Base"],
            "metric": ["ace", "brier"],
            "difference": [d, -0.01],
            "low": [low, -0.02],
            "high": [high, 0.0],
        }
    )


def test_the_floors_difference_is_taken_out_and_the_interval_widened():
    out = floors.floor_corrected_differences(_differences(0.02, -0.01, 0.05), _floors())
    z = stats.norm.ppf(0.975)
    widen = z * np.hypot(0.003, 0.004)
    ace = out.iloc[0]
    assert ace["floor_corrected"] and ace["difference"] == pytest.approx(0.02 - 0.06)
    assert ace["low"] == pytest.approx(-0.01 - 0.06 - widen)
    assert ace["high"] == pytest.approx(0.05 - 0.06 + widen)
    assert (ace["raw_difference"], ace["floor_a"], ace["floor_b"]) == (0.02, 0.18, 0.12)
    brier = out.iloc[1]  # no floor: as it was
    assert (
        not brier["floor_corrected"] and brier["difference"] == -0.01 and np.isnan(brier["floor_a"])
    )


def rule(frame):
    return q.every(q.Evidence(frame, "t"), "<", 0.0, what="ACE(Margin) - ACE(Base)")


def test_a_verdict_that_only_the_floors_would_make_cannot_be_decided_at_this_size():
    """Margin's ACE looks 0.02 higher than Base's, all of it from Margin's higher floor: raw,
    "Margin is better" does not hold; floor-corrected it would hold. Raw and corrected disagree,
    so the floors (an artefact of the sample size) would make the verdict: cannot be decided at
    this size, with both numbers in the reason."""
    raw = _differences(0.02, 0.005, 0.035).iloc[:1]
    assert rule(raw).verdict == "does not hold"
    corrected = floors.floor_corrected_differences(raw, _floors())
    assert q.unit_status(corrected).tolist() == ["undecided"]
    judged = rule(corrected)
    assert judged.verdict == "cannot be decided at this size"
    assert "raw 0.020 [0.005, 0.035]" in judged.reason and "floor-corrected -0.040" in judged.reason
    assert judged.decide_factor is not None and judged.decide_factor >= 1
    # the raw interval covers 0 and only the corrected one excludes it: the same
    covers = floors.floor_corrected_differences(_differences(0.0, -0.02, 0.02).iloc[:1], _floors())
    assert covers["high"].iloc[0] < 0 and rule(covers).verdict == "cannot be decided at this size"
    # equal floors (with a small Monte-Carlo error): both decide alike, the verdict stands
    same = _floors().assign(ace_floor=0.15, ace_floor_se=0.0005)
    assert rule(floors.floor_corrected_differences(raw, same)).verdict == "does not hold"
    # raw and corrected on the same side: the corrected verdict stands
    real = floors.floor_corrected_differences(_differences(-0.09, -0.12, -0.08).iloc[:1], _floors())
    assert real["high"].iloc[0] < 0 and rule(real).verdict == "holds"
    # a frame without the raw columns is judged on its interval alone
    plain = corrected.drop(columns=list(floors.RAW_COLUMNS))
    assert rule(plain).verdict == "holds"


def test_negated_flips_the_raw_columns_with_the_corrected_ones():
    corrected = floors.floor_corrected_differences(_differences(0.0, -0.02, 0.02), _floors())
    flipped = floors.negated(corrected)
    for d, lo, hi in (("difference", "low", "high"), ("raw_difference", "raw_low", "raw_high")):
        assert flipped[d].tolist() == (-corrected[d]).tolist()
        assert flipped[lo].tolist() == (-corrected[hi]).tolist()
        assert flipped[hi].tolist() == (-corrected[lo]).tolist()
    # the flipped claim is split exactly where the original is
    split = q.floor_split(corrected, "<", 0.0).tolist()
    assert q.floor_split(flipped, ">", 0.0).tolist() == split == [True, False]


def test_missing_columns_are_named_and_floors_are_attached_to_threshold_rows():
    with pytest.raises(ValueError, match="lack"):
        floors.floor_corrected_differences(pd.DataFrame({"model": []}), _floors())
    rows = pd.DataFrame(
        {
            "unit": ["m, Margin"],
            "model": ["m"],
            "estimator": ["Margin"],
            "difference": [0.2],
            "low": [0.05],
            "high": [0.3],
        },
        index=[7],
    )
    out = floors.with_floors(rows, _floors())
    assert out.index.tolist() == [7] and out["floor"].tolist() == [0.18]
    assert (
        q.every(q.Evidence(out, "t"), "<", 0.1, what="ACE").verdict
        == "cannot be decided at this size"
    )
