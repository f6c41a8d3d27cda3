"""The evidence the calibration chapter's claims share: rows of this build's differences and
thresholds, Table 1 as printed, one judgement from several parts, and the notes and needs the
claims name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.experiments import multiplicity, quantifiers
from calib.experiments.calibration.estimators import PAPER_BLOCK
from calib.experiments.floors import RAW_COLUMNS, floor_corrected_differences, negated
from calib.experiments.paper_tables import table1_long, text_value
from calib.experiments.quantifiers import Evidence

#: "For ACE, we consider values < 0.1 well-calibrated" (Table 1's caption)
WELL_CALIBRATED = text_value("well_calibrated_ace")
#: "an ACE of under 0.05, indicating good calibration" (§5.1)
GOOD_CALIBRATION = text_value("margin_ace_gemma7b")
#: a difference of ACE counts as *small* ("comparable", §5.1) below the ACE the paper calls good
#: calibration: a gap smaller than the whole error of a well-aligned estimate
SMALL_ACE_DIFFERENCE = GOOD_CALIBRATION
#: "models larger than 1B parameters" (§5.1), in millions
LARGE_MODEL_M = 1000.0
#: "A Brier Score of 0.25 corresponds to a random baseline" (Table 1's caption)
RANDOM_BRIER = text_value("random_brier")
#: the printed step of Tables 1 and 3 (three decimals; Table 3's percentages to one decimal)
PRINTED_STEP = 0.001
#: the build's intervals of a combination of several numbers (a mean over models, a difference
#: of two estimates without a paired interval): the same combination of their interval ends,
#: valid whatever their dependence (they share the facts), and so conservative
CONSERVATIVE = (
    "interval of a combination of numbers (of several models or estimates): the same "
    "combination of their interval ends (valid whatever their dependence, since they share "
    "the facts; conservative)"
)


# ---------------------------------------------------------------------------------------------
# the claims: evidence from the paper's printed tables and from this build, and the rules

BUILD = "this build, 95% paired bootstrap intervals over facts"
TABLE1 = "Table 1, printed values"
#: how the build's side of a threshold claim on ACE reads its interval
THRESHOLD_NOTE = (
    "this build: a unit supports the threshold only if the upper end of its ACE's "
    "95% interval does, and contradicts it only if the lower end of its debiased "
    "ACE's interval (ACE minus its noise floor, beyond the paper) does: ACE at "
    "this sample size is biased upward, the debiased ACE downward"
)


def _part(evidence: Evidence, name: str, missing: str) -> Evidence:
    frame = evidence.frames.get(name)
    if frame is None or frame.empty:
        return Evidence.empty(missing, evidence.source)
    return Evidence(frame, evidence.source)


def _paper_table(metric: str) -> pd.DataFrame:
    """Table 1 long with ``value`` = ``metric``, and Table 3's size and family per model."""
    long = table1_long()
    return long.dropna(subset=[metric]).assign(model=long["registry_name"], value=long[metric])


def _wide(frame: pd.DataFrame, value: str = "value") -> pd.DataFrame:
    return frame.pivot_table(index="model", columns="estimator", values=value, sort=False)


def _differences(
    diffs: pd.DataFrame,
    a: str,
    b: str | Sequence[str],
    metrics: Sequence[str] = ("ace", "brier"),
    sign: float = 1.0,
) -> pd.DataFrame:
    """Evidence rows of :func:`~calib.experiments.calibration.tables.estimator_comparisons`' rows
    ``a`` vs ``b`` (one or several): unit "model, metric: a - b", or with ``sign`` -1 "model,
    metric: b - a" (the difference and its interval negated)."""
    bs = [b] if isinstance(b, str) else list(b)
    part = diffs[(diffs["a"] == a) & diffs["b"].isin(bs) & diffs["metric"].isin(list(metrics))]
    keep = ["model", "metric", "difference", "low", "high"]
    keep += [c for c in RAW_COLUMNS if c in part.columns]
    rows = part[keep].reset_index(drop=True)
    pairs = zip(part["model"], part["metric"], part["b"])
    if sign > 0:
        units = [f"{m}, {k}: {a} - {o}" for m, k, o in pairs]
    else:
        units = [f"{m}, {k}: {o} - {a}" for m, k, o in pairs]
        rows = negated(rows)
    return rows.assign(unit=units)[["unit", *keep]]


def _threshold_rows(
    table: pd.DataFrame, estimators: Sequence[str], shift: float = 0.0, best: bool = False
) -> pd.DataFrame:
    """Evidence rows of the ACE of ``estimators`` per model, against a threshold: the ACE
    (``difference``), the lower end of the debiased ACE's interval (``low``) and the upper end
    of the ACE's (``high``) (:data:`THRESHOLD_NOTE`), minus ``shift``. With ``best``, one row
    per model: its best estimate (the lowest of each)."""
    part = table[(table["block"] == PAPER_BLOCK) & table["estimator"].isin(list(estimators))]
    frame = pd.DataFrame(
        {
            "model": part["model"],
            "estimator": part["estimator"],
            "difference": part["ace"] - shift,
            "low": part["ace_debiased_low"] - shift,
            "high": part["ace_high"] - shift,
            "floor": part["ace_floor"],
        }
    )
    if best:
        frame = (
            frame.groupby("model", sort=False)
            .agg(
                difference=("difference", "min"),
                low=("low", "min"),
                high=("high", "min"),
                floor=("floor", "min"),
            )
            .reset_index()
        )
        frame.insert(1, "estimator", "best estimate")
    frame.insert(0, "unit", frame["model"] + ", " + frame["estimator"])
    return frame.reset_index(drop=True)


NEEDS_BOTH = (
    "causal and masked models in one build (the quick profile's tiny models, or "
    "`calib book --profile paper`)"
)


ANY_MODEL = "any model on BEAR"
PAPER_PROFILE = "`calib book --profile paper` (a GPU machine with the Hugging Face hub)"


# ---------------------------------------------------------------------------------------------
# judging a claim from parts: several units that must all hold, two readings of a sentence


def all_of(
    frame: pd.DataFrame,
    by: str | Sequence[str],
    relation: str = "<",
    threshold: float = 0.0,
    unit: str | None = None,
) -> pd.DataFrame:
    """Evidence rows of units made of sub-units that must all hold (a family whose every size
    step lowers ACE): one row per group of ``by``, which supports ``difference <relation>
    threshold`` when every sub-unit does and contradicts it when one does. Its
    ``difference``, ``low`` and ``high`` are those of the sub-unit nearest the false side (the
    largest for ``<``), so that its interval's status is the group's; its one-sided p-values
    (:mod:`calib.experiments.multiplicity`) are the largest sub-unit's ``p_support`` (all are
    needed: an intersection-union test) and the smallest ``p_contradict`` times the number of
    sub-units (Bonferroni within the group).

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame of sub-units with the ``by`` columns.
    by : str or sequence of str
        The columns that make a unit.
    relation : str
        ``<``, ``<=``, ``>`` or ``>=`` (default ``<``).
    threshold : float
        The claim's boundary (default 0).
    unit : str or None
        How to label a unit: ``None`` joins the ``by`` values with ", ".

    Returns
    -------
    pandas.DataFrame
        One row per group: ``unit``, the ``by`` columns, ``difference``, ``low``, ``high``,
        ``rounding`` (where the sub-units have one), ``p_support``, ``p_contradict``,
        ``n_parts``.
    """
    cols = [by] if isinstance(by, str) else list(by)
    if frame.empty:
        return pd.DataFrame(columns=["unit", *cols, "difference", "low", "high"])
    frame = frame.reset_index(drop=True)
    status = quantifiers.unit_status(frame, relation, threshold)
    p_s, p_c = multiplicity.side_p_values(frame, relation, threshold, status)
    work = frame.assign(_p_s=p_s, _p_c=p_c)
    below = relation in ("<", "<=")
    rows = []
    for keys, part in work.groupby(cols, sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        worst = part.loc[part["difference"].idxmax() if below else part["difference"].idxmin()]
        row = dict(zip(cols, keys))
        row["unit"] = ", ".join(str(k) for k in keys) if unit is None else unit.format(**row)
        row["difference"] = float(worst["difference"])
        row["low"] = float(part["low"].max() if below else part["low"].min())
        row["high"] = float(part["high"].max() if below else part["high"].min())
        if "rounding" in part.columns:
            row["rounding"] = float(part["rounding"].max())
        row["p_support"] = float(part["_p_s"].max())
        row["p_contradict"] = float(min(1.0, len(part) * part["_p_c"].min()))
        row["n_parts"] = len(part)
        rows.append(row)
    out = pd.DataFrame(rows)
    return out[["unit", *[c for c in out.columns if c != "unit"]]]


def any_of(
    frame: pd.DataFrame,
    by: str | Sequence[str],
    relation: str = "<",
    threshold: float = 0.0,
) -> pd.DataFrame:
    """Evidence rows of units made of alternatives of which one must hold (the best of
    several estimates): one row per group of ``by``, which supports ``difference <relation>
    threshold`` when one alternative does and contradicts it when every one does; the
    dual of :func:`all_of`. Its ``difference``, ``low`` and ``high`` are those of the
    alternative nearest the true side (the smallest for ``<``); its p-values the smallest
    ``p_support`` times the number of alternatives (Bonferroni) and the largest
    ``p_contradict`` (all are needed).

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame of alternatives with the ``by`` columns (and, optionally, their own
        ``p_support`` / ``p_contradict``, e.g. from :func:`all_of`).
    by : str or sequence of str
        The columns that make a unit.
    relation : str
        ``<``, ``<=``, ``>`` or ``>=`` (default ``<``).
    threshold : float
        The claim's boundary (default 0).

    Returns
    -------
    pandas.DataFrame
        One row per group: ``unit`` (the ``by`` values joined with ", "), the ``by`` columns,
        ``difference``, ``low``, ``high``, ``rounding`` (where the alternatives have one),
        ``p_support``, ``p_contradict``, ``n_parts``.
    """
    cols = [by] if isinstance(by, str) else list(by)
    if frame.empty:
        return pd.DataFrame(columns=["unit", *cols, "difference", "low", "high"])
    frame = frame.reset_index(drop=True)
    status = quantifiers.unit_status(frame, relation, threshold)
    p_s, p_c = multiplicity.side_p_values(frame, relation, threshold, status)
    work = frame.assign(_p_s=p_s, _p_c=p_c)
    below = relation in ("<", "<=")
    rows = []
    for keys, part in work.groupby(cols, sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        best = part.loc[part["difference"].idxmin() if below else part["difference"].idxmax()]
        row = dict(zip(cols, keys))
        row["unit"] = ", ".join(str(k) for k in keys)
        row["difference"] = float(best["difference"])
        row["low"] = float(part["low"].min() if below else part["low"].max())
        row["high"] = float(part["high"].min() if below else part["high"].max())
        if "rounding" in part.columns:
            row["rounding"] = float(part["rounding"].max())
        row["p_support"] = float(min(1.0, len(part) * part["_p_s"].min()))
        row["p_contradict"] = float(part["_p_c"].max())
        row["n_parts"] = len(part)
        rows.append(row)
    out = pd.DataFrame(rows)
    return out[["unit", *[c for c in out.columns if c != "unit"]]]


def floor_corrected(result) -> pd.DataFrame:
    """The build's paired differences of estimators (``result.differences``) with the ACE rows
    floor-corrected (:func:`calib.experiments.floors.floor_corrected_differences`, the floors
    of ``result.table``)."""
    return floor_corrected_differences(result.differences, result.table)


def floor_corrected_contrasts(result) -> pd.DataFrame:
    """The build's contrasts between models (``result.contrasts``) with each ACE contrast
    floor-corrected: a contrast is a linear combination ``sum c * ACE(model, estimator)``
    (:func:`~calib.experiments.calibration.contrasts.contrast_specs`), so its floor is ``sum c
    * floor`` with Monte-Carlo error ``sqrt(sum c**2 * se**2)``; the positive and the negative
    terms are passed as the two sides of
    :func:`calib.experiments.floors.floor_corrected_differences`."""
    from calib.experiments.calibration.contrasts import contrast_specs

    contrasts = result.contrasts
    if contrasts.empty:
        return contrasts
    floors = result.table.drop_duplicates(["model", "estimator"]).set_index(["model", "estimator"])
    sides = []
    for s in contrast_specs(result.models, result.params.aggregation):
        if s.metric != "ace":
            continue
        for side, sign in (("+", 1.0), ("-", -1.0)):
            terms = [(k, c) for k, c in s.coefficients.items() if c * sign > 0]
            f = sum(abs(c) * floors.at[k, "ace_floor"] for k, c in terms)
            se = np.sqrt(sum(c**2 * floors.at[k, "ace_floor_se"] ** 2 for k, c in terms))
            sides.append(
                {"kind": s.kind, "unit": s.unit, "side": side, "ace_floor": f, "ace_floor_se": se}
            )
    if not sides:  # no contrast of ACE (e.g. only MLMs against CLMs)
        return contrasts.assign(floor_corrected=False)
    table = pd.DataFrame(sides, columns=["kind", "unit", "side", "ace_floor", "ace_floor_se"])
    table = table.astype({"ace_floor": float, "ace_floor_se": float})
    out = floor_corrected_differences(
        contrasts.assign(_a="+", _b="-"),
        table,
        keys=("kind", "unit"),
        a="_a",
        b="_b",
        estimator="side",
    )
    return out.drop(columns=["_a", "_b"])


def conservative_mean(frame: pd.DataFrame, by: str | Sequence[str], unit: str) -> pd.DataFrame:
    """The mean over models of an evidence frame's rows, per group of ``by``, with the interval
    :data:`CONSERVATIVE` (the mean of the lows and of the highs; printed rows stay printed:
    their mean is :func:`calib.experiments.quantifiers.mean_of_printed`'s).

    Parameters
    ----------
    frame : pandas.DataFrame
        An evidence frame with the ``by`` columns.
    by : str or sequence of str
        The groups (e.g. ``metric``).
    unit : str
        The label of a group's row, formatted with the ``by`` values (``"mean, {metric}"``).

    Returns
    -------
    pandas.DataFrame
        One row per group: ``unit``, the ``by`` columns, ``difference``, ``low``, ``high``,
        ``n_units`` (and ``rounding`` where the rows have one).
    """
    cols = [by] if isinstance(by, str) else list(by)
    rows = []
    for keys, part in frame.groupby(cols, sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        row = dict(zip(cols, keys))
        row.update(
            unit=unit.format(**row),
            difference=float(part["difference"].mean()),
            low=float(part["low"].mean()),
            high=float(part["high"].mean()),
            n_units=len(part),
        )
        if "rounding" in part.columns:
            row["rounding"] = float(part["rounding"].max())
        rows.append(row)
    out = pd.DataFrame(rows)
    return out[["unit", *[c for c in out.columns if c != "unit"]]] if rows else out
