"""ACE comparisons corrected for each estimator's noise floor (beyond the paper).

At a CPU build's size ACE is biased upward, and by how much depends on the estimator: a
perfectly calibrated estimator shows an ACE of 0.12-0.19 at 60 facts depending on its
confidence distribution (its *noise floor*, :mod:`calib.confidence.noise_floor`). A paired
interval of ``ACE(a) - ACE(b)`` therefore mixes the calibration difference with the difference
of the two floors: an estimator whose confidences pile up in a few bins (C_Base near 1) has
another floor than one that spreads them (C_Margin). The comparison a claim means ("C_Margin
is better calibrated than C_Base") is between the errors beyond what perfect calibration shows,
the *floor-corrected* ACEs ``ACE - floor``:

    ``d' = (ACE(a) - floor(a)) - (ACE(b) - floor(b)) = d - (floor(a) - floor(b))``

with the paired interval ``[low, high]`` of ``d`` shifted by the same amount and widened on
each side by ``z * sqrt(se(a)**2 + se(b)**2)``, the floors' Monte-Carlo standard errors (as
:func:`calib.confidence.noise_floor.debiased` does for one ACE; the floors depend on the
confidences only, which the sample fixes, so the outcomes' noise is already in the paired
interval). :func:`floor_corrected_differences` does this for an evidence frame of paired
differences; rows of other metrics (the Brier score is unbiased: it has no floor) pass through.

A claim that an ACE lies *below* a threshold cannot be decided where the floor itself is at or
above the threshold: even a perfectly calibrated estimator's ACE would not come out below it.
The quantifiers (:mod:`calib.experiments.quantifiers`) say "cannot be decided at this size" there
(``Verdict.TOO_SMALL``, :class:`~calib.experiments.verdicts.Verdict`) when the evidence frame
carries each unit's ``floor`` (:func:`with_floors` adds it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats

#: the columns of a floor table (e.g. the calibration chapter's ``table``) read here
FLOOR_COLUMNS: tuple[str, ...] = ("ace_floor", "ace_floor_se")
#: the columns a floor-corrected comparison carries beside its corrected ``difference``,
#: ``low``, ``high``: the raw ones, and whether it was corrected. An evidence frame keeps them,
#: so that the judge sees both (:func:`calib.experiments.quantifiers.floor_split`)
RAW_COLUMNS: tuple[str, ...] = ("raw_difference", "raw_low", "raw_high", "floor_corrected")


def negated(frame: pd.DataFrame) -> pd.DataFrame:
    """An evidence frame with every difference negated: ``difference`` -> ``-difference``,
    ``[low, high]`` -> ``[-high, -low]``, and the same for the raw columns of a floor-corrected
    comparison (:data:`RAW_COLUMNS`) where the frame has them."""
    out = frame.assign(difference=-frame["difference"], low=-frame["high"], high=-frame["low"])
    if {"raw_difference", "raw_low", "raw_high"} <= set(frame.columns):
        out = out.assign(
            raw_difference=-frame["raw_difference"],
            raw_low=-frame["raw_high"],
            raw_high=-frame["raw_low"],
        )
    return out


def _floors(table: pd.DataFrame, keys: Sequence[str], estimator: str) -> pd.DataFrame:
    missing = [c for c in (*keys, estimator, *FLOOR_COLUMNS) if c not in table.columns]
    if missing:
        raise ValueError(
            f"a floor table needs the columns {[*keys, estimator, *FLOOR_COLUMNS]}; "
            f"it lacks {missing}"
        )
    return table[[*keys, estimator, *FLOOR_COLUMNS]].drop_duplicates([*keys, estimator])


def floor_corrected_differences(
    differences: pd.DataFrame,
    floors: pd.DataFrame,
    *,
    keys: Sequence[str] = ("model",),
    a: str = "a",
    b: str = "b",
    estimator: str = "estimator",
    metric: str = "metric",
    level: float = 0.95,
) -> pd.DataFrame:
    """Paired ACE differences ``a - b`` with each side's noise floor taken out (see the module
    docstring).

    Parameters
    ----------
    differences : pandas.DataFrame
        One row per comparison: ``keys`` (e.g. ``model``), the two estimators (columns ``a``
        and ``b``), ``metric``, ``difference``, ``low``, ``high`` (a paired 95% interval).
    floors : pandas.DataFrame
        One row per ``keys`` and ``estimator`` with ``ace_floor`` and ``ace_floor_se``
        (:func:`calib.confidence.noise_floor.floor_record`'s columns, as the calibration
        chapter's table has them).
    keys : sequence of str
        The columns shared by both frames that identify the sample (default ``("model",)``).
    a : str
        The column naming the first estimator (default ``"a"``).
    b : str
        The column naming the second (default ``"b"``).
    estimator : str
        The column of ``floors`` naming the estimator (default ``"estimator"``).
    metric : str
        The column naming the metric; only ``ace`` rows are corrected (default ``"metric"``).
    level : float
        The interval's level, for the widening by the floors' Monte-Carlo error (default 0.95).

    Returns
    -------
    pandas.DataFrame
        ``differences`` with ``difference``, ``low`` and ``high`` floor-corrected on the ACE
        rows, the uncorrected ones as ``raw_difference``, ``raw_low``, ``raw_high``, the floors
        ``floor_a`` and ``floor_b`` (NaN on other metrics) and ``floor_corrected`` (bool). An
        ACE row whose floors are missing keeps its values and ``floor_corrected`` False.

    Raises
    ------
    ValueError
        For a frame that lacks a column named here.
    """
    need = [*keys, a, b, metric, "difference", "low", "high"]
    missing = [c for c in need if c not in differences.columns]
    if missing:
        raise ValueError(f"the differences need the columns {need}; they lack {missing}")
    f = _floors(floors, keys, estimator)
    out = differences.copy()
    for side in (a, b):
        renamed = f.rename(
            columns={estimator: side, "ace_floor": f"_f_{side}", "ace_floor_se": f"_se_{side}"}
        )
        out = out.merge(renamed, on=[*keys, side], how="left")
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    shift = out[f"_f_{a}"] - out[f"_f_{b}"]
    widen = z * np.sqrt(out[f"_se_{a}"] ** 2 + out[f"_se_{b}"] ** 2)
    corrected = (out[metric] == "ace") & shift.notna() & widen.notna()
    out["raw_difference"], out["raw_low"], out["raw_high"] = (
        out["difference"],
        out["low"],
        out["high"],
    )
    out.loc[corrected, "difference"] = (out["difference"] - shift)[corrected]
    out.loc[corrected, "low"] = (out["low"] - shift - widen)[corrected]
    out.loc[corrected, "high"] = (out["high"] - shift + widen)[corrected]
    out["floor_a"] = out[f"_f_{a}"].where(out[metric] == "ace")
    out["floor_b"] = out[f"_f_{b}"].where(out[metric] == "ace")
    out["floor_corrected"] = corrected.to_numpy()
    return out.drop(columns=[c for c in out.columns if c.startswith(("_f_", "_se_"))])


def with_floors(
    evidence_rows: pd.DataFrame,
    floors: pd.DataFrame,
    *,
    keys: Sequence[str] = ("model", "estimator"),
) -> pd.DataFrame:
    """Evidence rows of ACE values against a threshold, with each unit's noise ``floor`` (the
    column the quantifiers read to say "cannot be decided at this size").

    Parameters
    ----------
    evidence_rows : pandas.DataFrame
        An evidence frame with the ``keys`` columns.
    floors : pandas.DataFrame
        A floor table with ``keys`` and ``ace_floor``.
    keys : sequence of str
        The columns that match a row to its floor (default ``("model", "estimator")``).

    Returns
    -------
    pandas.DataFrame
        ``evidence_rows`` with ``floor`` (NaN where none matches), its index and row order.

    Raises
    ------
    ValueError
        For a frame that lacks a key or ``ace_floor``.
    """
    missing = [c for c in keys if c not in evidence_rows.columns] + [
        c for c in (*keys, "ace_floor") if c not in floors.columns
    ]
    if missing:
        raise ValueError(
            f"with_floors needs the columns {[*keys]} and ace_floor; missing {missing}"
        )
    f = (
        floors[[*keys, "ace_floor"]]
        .drop_duplicates(list(keys))
        .rename(columns={"ace_floor": "floor"})
    )
    base = evidence_rows.drop(columns=["floor"], errors="ignore")
    out = base.merge(f, on=list(keys), how="left")  # a left merge keeps the rows' order
    out.index = base.index
    return out
