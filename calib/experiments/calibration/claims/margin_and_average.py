"""The calibration chapter's claims on the estimators (Kissling et al. 2026, §5.1): Margin against
Base, Average against the others, and Consistency and Entropy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from calib.experiments import quantifiers
from calib.experiments.calibration.claims.evidence import (
    ANY_MODEL,
    BUILD,
    GOOD_CALIBRATION,
    LARGE_MODEL_M,
    PAPER_PROFILE,
    SMALL_ACE_DIFFERENCE,
    TABLE1,
    THRESHOLD_NOTE,
    WELL_CALIBRATED,
    _combine,
    _differences,
    _paper_table,
    _part,
    _threshold_rows,
    _wide,
)
from calib.experiments.calibration.contrasts import paper_info
from calib.experiments.calibration.estimators import MULTI_ESTIMATORS, paper_estimators
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import calib_estimator
from calib.experiments.quantifiers import Evidence, printed
from calib.experiments.verdicts import Judgement

if TYPE_CHECKING:
    from calib.experiments.calibration import CalibrationResult

# -- Margin against Base (§5.1) -------------------------------------------------------------------


def margin_bear_rule(evidence: Evidence) -> Judgement:
    """``margin_bear``: C_Margin is more reliable than C_Base: lower ACE and lower Brier score,
    for every model (each model-metric a unit)."""
    return quantifiers.every(
        evidence, "<", 0.0, what="metric(C_Margin) - metric(C_Base)", unit="model-metric"
    )


def margin_bear_paper() -> Evidence:
    rows = []
    for metric in ("ace", "brier"):
        wide = _wide(_paper_table(metric))
        rows.append(
            pd.DataFrame(
                {
                    "model": wide.index,
                    "metric": metric,
                    "value": (wide["Margin"] - wide["Base"]).to_numpy(),
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    return Evidence(printed(frame, "value", ["model", "metric"]), TABLE1)


def margin_bear_build(result: CalibrationResult) -> Evidence:
    return Evidence(_differences(result.differences, "Margin", "Base"), BUILD)


def margin_well_calibrated_rule(evidence: Evidence) -> Judgement:
    """``margin_well_calibrated``: C_Margin's ACE below 0.1 (Table 1's "well-calibrated") for
    every model."""
    return quantifiers.every(evidence, "<", WELL_CALIBRATED, what="ACE of C_Margin", unit="model")


def _printed_ace(estimator: str, models: Sequence[str] | None = None) -> pd.DataFrame:
    t = _paper_table("ace")
    t = t[t["estimator"] == estimator]
    if models is not None:
        t = t[t["model"].isin(list(models))]
    return printed(t, "value", "model")


def margin_well_calibrated_paper() -> Evidence:
    return Evidence(_printed_ace("Margin"), TABLE1)


def margin_well_calibrated_build(result: CalibrationResult) -> Evidence:
    return Evidence(_threshold_rows(result.table, ["Margin"]), THRESHOLD_NOTE)


#: the three models of "With C_Margin, gemma-7b, Llama-3.1-8B(IT) and Qwen3.5-9B(IT) achieve an
#: ACE of under 0.05"
UNDER_005: tuple[str, ...] = ("gemma-7b", "llama-3.1-8b-instruct", "qwen3.5-9b")


def margin_under_005_rule(evidence: Evidence) -> Judgement:
    """``margin_under_005``: C_Margin's ACE below 0.05 for gemma-7b, Llama-3.1-8B(IT) and
    Qwen3.5-9B(IT)."""
    return quantifiers.every(
        evidence,
        "<",
        GOOD_CALIBRATION,
        what="ACE of C_Margin",
        unit="model",
        required=UNDER_005,
        required_in="model",
    )


def margin_under_005_paper() -> Evidence:
    frame = _printed_ace("Margin", UNDER_005)
    return Evidence(frame.assign(model=frame["unit"]), TABLE1)


def margin_under_005_build(result: CalibrationResult) -> Evidence:
    rows = _threshold_rows(result.table, ["Margin"])
    rows = rows[rows["model"].isin(UNDER_005)].reset_index(drop=True)
    missing = [m for m in UNDER_005 if m not in set(rows["model"].unique())]
    return Evidence(
        rows, THRESHOLD_NOTE, missing=f"this build has no {', '.join(missing)}" if missing else ""
    )


# -- Average (§5.1) -----------------------------------------------------------------------------


def average_best_rule(evidence: Evidence) -> Judgement:
    """``average_best``: C_Average's ACE below that of C_Base, C_Margin and C_Entropy, and its
    Brier score below all four others', for every model (no ACE of C_Consistency: the paper
    reports none)."""
    return quantifiers.every(
        evidence, "<", 0.0, what="metric(C_Average) - metric(other)", unit="model-metric-estimator"
    )


def _average_pairs(aggregation: str = "min") -> dict[str, list[str]]:
    """The estimators C_Average is compared with, per metric."""
    avg = calib_estimator("Average", aggregation)
    return {
        metric: [e for e in paper_estimators(aggregation, with_ace=metric == "ace") if e != avg]
        for metric in ("ace", "brier")
    }


def average_best_paper() -> Evidence:
    rows = []
    avg = calib_estimator("Average")
    for metric, others in _average_pairs().items():
        wide = _wide(_paper_table(metric))
        for o in others:
            rows.append(
                pd.DataFrame(
                    {
                        "model": wide.index,
                        "metric": metric,
                        "other": f"{avg} - {o}",
                        "value": (wide[avg] - wide[o]).to_numpy(),
                    }
                )
            )
    frame = pd.concat(rows, ignore_index=True)
    return Evidence(
        printed(frame, "value", ["model", "metric", "other"]),
        "Table 1, printed values (ACE of Base, Margin, Entropy; none printed for Consistency)",
    )


def average_best_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    avg = calib_estimator("Average", agg)
    frame = pd.concat(
        [
            _differences(result.differences, avg, others, [metric])
            for metric, others in _average_pairs(agg).items()
        ],
        ignore_index=True,
    )
    return Evidence(frame, BUILD)


def average_near_margin_large_rule(evidence: Evidence) -> Judgement:
    """``average_near_margin_large``: for most models above 1B parameters ``|ACE(C_Average) -
    ACE(C_Margin)|`` is below
    :data:`~calib.experiments.calibration.claims.evidence.SMALL_ACE_DIFFERENCE`, and for
    Llama-3.1-8B(IT) C_Margin's ACE is below C_Average's."""
    small = quantifiers.most(
        _part(evidence, "large", "no model above 1B parameters in this build"),
        "<",
        SMALL_ACE_DIFFERENCE,
        what="|ACE(C_Average) - ACE(C_Margin)|",
        unit="model",
    )
    llama = quantifiers.every(
        _part(evidence, "llama", "this build has no llama-3.1-8b-instruct"),
        "<",
        0.0,
        what="ACE(C_Margin) - ACE(C_Average)",
        unit="model",
        required=("llama-3.1-8b-instruct",),
    )
    return _combine([("models above 1B", small), ("Llama-3.1-8B(IT)", llama)])


def _absolute(frame: pd.DataFrame) -> pd.DataFrame:
    """``|difference|`` with the interval of the absolute value."""
    d, lo, hi = (frame[c].to_numpy(float) for c in ("difference", "low", "high"))
    low = np.where(lo >= 0, lo, np.where(hi <= 0, -hi, 0.0))
    high = np.maximum(np.abs(lo), np.abs(hi))
    return frame.assign(difference=np.abs(d), low=low, high=high)


def average_near_margin_large_paper() -> Evidence:
    wide = _wide(_paper_table("ace"))
    avg = calib_estimator("Average")
    info = paper_info().set_index("model")
    big = [m for m in wide.index if info.at[m, "size_m"] > LARGE_MODEL_M]
    large = printed(
        pd.DataFrame(
            {"model": big, "value": (wide.loc[big, avg] - wide.loc[big, "Margin"]).abs().to_numpy()}
        ),
        "value",
        "model",
    )
    m = "llama-3.1-8b-instruct"
    llama = printed(
        pd.DataFrame({"model": [m], "value": [wide.at[m, "Margin"] - wide.at[m, avg]]}),
        "value",
        "model",
    )
    return Evidence(large, TABLE1, frames={"large": large, "llama": llama})


def average_near_margin_large_build(result: CalibrationResult) -> Evidence:
    avg = calib_estimator("Average", result.params.aggregation)
    d = _differences(result.differences, avg, "Margin", ["ace"])
    sizes = result.models.set_index("model")["size_m"]
    big = d[d["model"].map(sizes).fillna(0) > LARGE_MODEL_M]
    large = _absolute(big.assign(unit=big["model"]))
    llama = _differences(result.differences, avg, "Margin", ["ace"], sign=-1.0)
    llama = llama[llama["model"] == "llama-3.1-8b-instruct"]
    return Evidence(
        large,
        BUILD,
        frames={
            "large": large.reset_index(drop=True),
            "llama": llama.assign(unit=llama["model"]).reset_index(drop=True),
        },
    )


def consistency_entropy_rule(evidence: Evidence) -> Judgement:
    """``consistency_entropy_miscalibrated``: C_Entropy's ACE at or above 0.1 (not well
    calibrated; no ACE is printed for C_Consistency) and the Brier scores of C_Consistency and
    C_Entropy above C_Average's ("low discriminative power"), for every model."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="ACE(C_Entropy) - 0.1, Brier(C_Consistency or C_Entropy) - Brier(C_Average)",
        unit="check",
    )


def consistency_entropy_paper() -> Evidence:
    avg, con, ent = (calib_estimator(n) for n in MULTI_ESTIMATORS)
    ace = _wide(_paper_table("ace"))
    brier = _wide(_paper_table("brier"))
    rows = [
        pd.DataFrame(
            {
                "model": ace.index,
                "criterion": "ACE(Entropy) - 0.1",
                "value": (ace[ent] - WELL_CALIBRATED).to_numpy(),
            }
        )
    ]
    for e in (con, ent):
        rows.append(
            pd.DataFrame(
                {
                    "model": brier.index,
                    "criterion": f"Brier: {e} - {avg}",
                    "value": (brier[e] - brier[avg]).to_numpy(),
                }
            )
        )
    return Evidence(
        printed(pd.concat(rows, ignore_index=True), "value", ["model", "criterion"]), TABLE1
    )


def consistency_entropy_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    avg, con, ent = (calib_estimator(n, agg) for n in MULTI_ESTIMATORS)
    ace = _threshold_rows(result.table, [ent], shift=WELL_CALIBRATED)
    ace = ace.assign(unit=ace["model"] + ", ACE(Entropy) - 0.1")
    brier = _differences(result.differences, avg, [con, ent], ["brier"], sign=-1.0)
    return Evidence(
        pd.concat(
            [
                ace[["unit", "model", "difference", "low", "high"]],
                brier[["unit", "model", "difference", "low", "high"]],
            ],
            ignore_index=True,
        ),
        f"{BUILD}; for the ACE of Entropy: {THRESHOLD_NOTE}",
    )


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="margin_bear",
        paper="kissling2026",
        section="§5.1",
        quote="$\\bm{C_{\\text{Margin}}}$ scores are more reliable than $\\bm{C_{\\text{Base}}.}$",
        statement="C_Margin is more reliable than C_Base: a lower ACE and a lower Brier "
        'score, for every model ("more reliable" is what the paper says of both '
        "metrics together: Appendix F's \"outperforms C_Base across all models and "
        "both evaluation metrics, highlighting it as a more reliable confidence "
        'estimate")',
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=margin_bear_rule,
        paper_evidence=margin_bear_paper,
        build_evidence=margin_bear_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="margin_well_calibrated",
        paper="kissling2026",
        section="§5.1",
        quote="$C_{\\text{Margin}}$ emerged as a consistently well-calibrated method across "
        "all LMs",
        statement="C_Margin is well calibrated (ACE below 0.1, Table 1's caption) for every model",
        quantifier="every",
        metrics=("ace",),
        about="every model",
        chapter="calibration",
        rule=margin_well_calibrated_rule,
        paper_evidence=margin_well_calibrated_paper,
        build_evidence=margin_well_calibrated_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="margin_under_005",
        paper="kissling2026",
        section="§5.1",
        quote="With $C_{\\text{Margin}}$, gemma-7b, Llama-3.1-8B(IT) and Qwen3.5-9B(IT) "
        "achieve an ACE of under 0.05",
        statement="C_Margin's ACE is below 0.05 for gemma-7b, Llama-3.1-8B(IT) and Qwen3.5-9B(IT)",
        quantifier="every",
        metrics=("ace",),
        about=", ".join(UNDER_005),
        chapter="calibration",
        rule=margin_under_005_rule,
        paper_evidence=margin_under_005_paper,
        build_evidence=margin_under_005_build,
        needs=f"{', '.join(UNDER_005)} in the build ({PAPER_PROFILE})",
    ),
    Claim(
        key="average_best",
        paper="kissling2026",
        section="§5.1",
        quote="clearly outperforms the other approaches across all models in terms of "
        "both Brier Score and ACE",
        statement="C_Average has a lower ACE than C_Base, C_Margin and C_Entropy and a lower "
        "Brier score than all four other estimates, for every model (C_Consistency "
        "has no ACE in the paper)",
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=average_best_rule,
        paper_evidence=average_best_paper,
        build_evidence=average_best_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="average_near_margin_large",
        paper="kissling2026",
        section="§5.1",
        quote="for larger models (for example, gemma-7b and Qwen3.5-9B(IT)), the difference "
        "between $C_{\\text{Average}}$ and $C_{\\text{Margin}}$ is often small, with "
        "$C_{\\text{Margin}}$ providing better-aligned scores than "
        "$C_{\\text{Average}}$ for Llama-3.1-8B(IT)",
        statement=f"For most models above 1B parameters the ACEs of C_Average and C_Margin "
        f'differ by less than {SMALL_ACE_DIFFERENCE:g} ("small": less than the '
        f"ACE the paper calls good calibration), and for Llama-3.1-8B(IT) C_Margin's "
        f"ACE is below C_Average's",
        quantifier="most",
        metrics=("ace",),
        about="models above 1B parameters; Llama-3.1-8B(IT)",
        chapter="calibration",
        rule=average_near_margin_large_rule,
        paper_evidence=average_near_margin_large_paper,
        build_evidence=average_near_margin_large_build,
        paper_note=(
            '"small" is calib\'s reading: at 0.02 instead of 0.05 only 5 of the 11 '
            "models above 1B in Table 1 would count (gemma-7b, the Llama-3.2-3B and "
            "-3.1-8B, Qwen3.5-4B and -9B)"
        ),
        needs=f"models above 1B parameters and llama-3.1-8b-instruct ({PAPER_PROFILE})",
    ),
    Claim(
        key="consistency_entropy_miscalibrated",
        paper="kissling2026",
        section="§5.1",
        quote="$C_{\\text{Consistency}}$ and $C_{\\text{Entropy}}$ provide very "
        "mis-calibrated scores with low discriminative power",
        statement="C_Entropy is not well calibrated (ACE at least 0.1) and C_Consistency and "
        "C_Entropy have a higher Brier score (calibration and discriminative power, "
        "§4.3) than C_Average, for every model",
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=consistency_entropy_rule,
        paper_evidence=consistency_entropy_paper,
        build_evidence=consistency_entropy_build,
        needs=ANY_MODEL,
    ),
)
