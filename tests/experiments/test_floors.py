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


def test_a_raw_difference_that_is_only_the_floors_holds_no_more_and_a_real_one_does():
    """Margin's ACE looks 0.02 higher than Base's, all of it from Margin's higher floor: raw,
    "Margin is better" does not hold; floor-corrected it holds (its calibration error beyond
    the floor is lower)."""
    raw = _differences(0.02, 0.005, 0.035).iloc[:1]
    assert rule(raw).verdict == "does not hold"
    corrected = floors.floor_corrected_differences(raw, _floors())
    assert rule(corrected).verdict == "holds"
    # equal floors (with a small Monte-Carlo error): the correction only widens the interval
    same = _floors().assign(ace_floor=0.15, ace_floor_se=0.0005)
    assert rule(floors.floor_corrected_differences(raw, same)).verdict == "does not hold"


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
