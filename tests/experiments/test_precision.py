"""Printed numbers at their printed precision: the inferred step, the rounding of a printed row,
and ties that decide nothing (calib.experiments.precision)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from calib.experiments import precision as pr
from calib.experiments.quantifiers import printed


def _printed(values, **kw):
    return printed(
        pd.DataFrame({"m": [f"m{i}" for i in range(len(values))], "v": values}), "v", "m", **kw
    )


def test_the_printed_step_is_the_coarsest_grid_of_the_values():
    assert pr.printed_step([0.134 - 0.133, 0.05]) == 0.001  # float noise tolerated
    assert pr.printed_step([37.0 - 37.0, 2.7, -1.1]) == 0.1
    assert pr.printed_step([0.0]) == pr.MAX_STEP  # zeros say nothing coarser
    assert pr.printed_step([0.0], threshold=0.05) == 0.01  # the threshold is printed too
    assert pr.printed_step([0.10614]) == 1e-5
    assert pr.printed_step([1 / 3]) == 10.0**-pr.MAX_DECIMALS


def test_mark_printed_adds_half_the_step_to_printed_rows_only():
    frame = pd.concat(
        [
            _printed([0.153, -0.002]),
            pd.DataFrame({"unit": ["b"], "difference": [0.1], "low": [0.0], "high": [0.2]}),
        ],
        ignore_index=True,
    )
    out = pr.mark_printed(frame)
    assert np.allclose(out["rounding"].to_numpy()[:2], 0.0005) and np.isnan(out["rounding"].iloc[2])
    assert pr.rounding_of(out).tolist() == [0.0005, 0.0005, 0.0]
    # an explicit rounding is kept
    given = _printed([0.1], step=0.1, terms=2)
    assert pr.mark_printed(given)["rounding"].tolist() == [0.1]


def test_a_tie_is_neither_support_nor_contradiction_and_one_step_is_either():
    frame = pr.mark_printed(_printed([0.0, 0.001, -0.001]))
    supports, contradicts = pr.printed_status(frame, "<", 0.0)
    assert supports.tolist() == [False, False, True]
    assert contradicts.tolist() == [False, True, False]
    supports, contradicts = pr.printed_status(frame, ">=", 0.0)
    assert supports.tolist() == [False, True, False]
    assert contradicts.tolist() == [False, False, True]


def test_a_value_without_rounding_is_exact():
    exact = pd.DataFrame({"unit": ["a"], "difference": [0.5], "low": [0.5], "high": [0.5]})
    assert pr.printed_status(exact, "<=", 0.5)[0].tolist() == [True]
    assert pr.printed_status(exact, "<", 0.5)[1].tolist() == [True]
