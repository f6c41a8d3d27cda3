"""The signed calibration gap (mean confidence - accuracy), its direction and its value per
confidence range."""

import numpy as np
import pandas as pd
import pytest

from calib.confidence import bootstrap_metrics, gap_by_range, gap_direction, signed_gap, signed_gaps
from calib.confidence.summary import DIRECTIONS


def table(conf, corr, estimator="Base", model="m"):
    n = len(conf)
    return pd.DataFrame(
        {
            "model": model,
            "dataset": "bear",
            "relation": "R",
            "instance": [f"q{i:04d}" for i in range(n)],
            "estimator": estimator,
            "confidence": conf,
            "correct": corr,
        }
    )


def test_signed_gap_hand_example():
    assert signed_gap([0.9, 0.8, 0.4, 0.5], [1, 0, 0, 1]) == pytest.approx(0.65 - 0.5)
    assert signed_gap([0.2, 0.2], [1, 1]) == pytest.approx(-0.8)
    assert signed_gap([-0.5, 0.1], [0, 0]) == pytest.approx(-0.2)  # Entropy below 0 as it is


def test_direction_from_the_interval():
    assert gap_direction(0.01, 0.2) == "overconfident"
    assert gap_direction(-0.2, -0.01) == "underconfident"
    assert gap_direction(-0.1, 0.1) == "undecided" == DIRECTIONS[2]
    assert gap_direction(float("nan"), float("nan")) == "undecided"


def test_signed_gaps_per_estimator():
    rng = np.random.default_rng(0)
    conf = rng.random(600)
    over = rng.random(600) < conf * 0.7  # right less often than it says
    under = rng.random(600) < np.sqrt(conf)  # right more often than it says
    calibrated = rng.random(600) < conf
    est = pd.concat(
        [
            table(conf, over, "over"),
            table(conf, under, "under"),
            table(conf, calibrated, "calibrated"),
        ],
        ignore_index=True,
    )
    out = signed_gaps(est, n_boot=300).set_index("estimator")
    assert list(out.columns) == [
        "model",
        "dataset",
        "n",
        "mean_confidence",
        "accuracy",
        "gap",
        "gap_low",
        "gap_high",
        "direction",
    ]
    assert out.loc["over", "direction"] == "overconfident"
    assert out.loc["under", "direction"] == "underconfident"
    assert out.loc["calibrated", "direction"] == "undecided"
    row = out.loc["over"]
    assert row.gap == pytest.approx(row.mean_confidence - row.accuracy)
    assert row.gap == pytest.approx(conf.mean() - over.mean())
    # the interval is the bootstrap's BCa interval of the gap
    ref = bootstrap_metrics(conf, over, ("gap",), n_boot=300).iloc[0]
    assert ref["method"] == "bca"
    assert (row.gap_low, row.gap_high) == pytest.approx((ref["low"], ref["high"]))


def test_gap_by_range_restricts_to_each_range():
    rng = np.random.default_rng(1)
    conf = rng.random(800)
    # underconfident at low confidence (right at twice the stated rate), calibrated above 0.5
    corr = rng.random(800) < np.where(conf < 0.5, np.minimum(1, 2 * conf + 0.1), conf)
    est = table(conf, corr, "Margin")
    out = gap_by_range(est, ranges=((0, 0.5), (0.5, 1.0)), n_boot=300)
    assert out["range"].tolist() == ["[0, 0.5)", "[0.5, 1]"]
    assert list(out.columns[:6]) == [
        "model",
        "dataset",
        "estimator",
        "range",
        "range_low",
        "range_high",
    ]
    low = conf < 0.5
    assert out.loc[0, "n"] == low.sum() and out.loc[1, "n"] == (~low).sum()
    assert out.loc[0, "gap"] == pytest.approx(conf[low].mean() - corr[low].mean())
    assert out.loc[0, "direction"] == "underconfident"
    assert out.loc[1, "direction"] == "undecided"
    # default: quarters; an instance at 1.0 is in the last; empty ranges have no row
    edge = table(np.array([0.1, 0.2, 1.0, 0.9]), np.array([0, 1, 1, 1]))
    got = gap_by_range(edge, n_boot=20)
    assert got["range"].tolist() == ["[0, 0.25)", "[0.75, 1]"] and got["n"].tolist() == [2, 2]


def test_gap_by_range_bad_ranges():
    est = table(np.array([0.1, 0.6]), np.array([0, 1]))
    with pytest.raises(ValueError, match="must not overlap"):
        gap_by_range(est, ranges=((0, 0.6), (0.5, 1)))
    with pytest.raises(ValueError, match="below its high end"):
        gap_by_range(est, ranges=((0.5, 0.5),))
    with pytest.raises(ValueError, match="no instance"):
        gap_by_range(est, ranges=((0.2, 0.3),))
