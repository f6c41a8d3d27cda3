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
    CONSERVATIVE,
    GOOD_CALIBRATION,
    LARGE_MODEL_M,
    PAPER_PROFILE,
    PRINTED_STEP,
    RANDOM_BRIER,
    SMALL_ACE_DIFFERENCE,
    TABLE1,
    THRESHOLD_NOTE,
    WELL_CALIBRATED,
    _differences,
    _paper_table,
    _part,
    _threshold_rows,
    _wide,
    conservative_mean,
    floor_corrected,
)
from calib.experiments.calibration.contrasts import paper_info
from calib.experiments.calibration.estimators import (
    MULTI_ESTIMATORS,
    PAPER_BLOCK,
    paper_estimators,
)
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import calib_estimator
from calib.experiments.quantifiers import Evidence, printed
from calib.experiments.verdicts import Judgement, combine, readings

if TYPE_CHECKING:
    from calib.experiments.calibration import CalibrationResult

# -- Margin against Base (§5.1) -------------------------------------------------------------------


def margin_bear_rule(evidence: Evidence) -> Judgement:
    """``margin_bear``: C_Margin is more reliable than C_Base: a lower ACE and a lower Brier
    score. The heading has no quantifier; two fair readings, each judged
    (:func:`~calib.experiments.verdicts.readings`): for *most*
    model-metrics (each model's ACE and Brier a unit, Holm's partial conjunction over them),
    and *on average* (per metric the mean over the models, both metrics)."""
    frame = evidence.frame
    if frame.empty:
        return quantifiers.most(evidence, "<", 0.0, what="metric(C_Margin) - metric(C_Base)")
    by_metric = frame if "metric" in frame.columns else frame.assign(metric="metric")
    means = conservative_mean(by_metric, "metric", "mean over the models, {metric}")
    most = quantifiers.most(
        evidence, "<", 0.0, what="metric(C_Margin) - metric(C_Base)", unit="model-metric"
    )
    average = quantifiers.every(
        Evidence(means, evidence.source),
        "<",
        0.0,
        what="mean over the models of metric(C_Margin) - metric(C_Base)",
        unit="metric mean",
    )
    return readings([("most model-metrics", most), ("on average over the models", average)])


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
    return Evidence(
        printed(frame, "value", ["model", "metric"], step=PRINTED_STEP, terms=2),
        f"{TABLE1}; the means: means of the printed differences",
    )


def margin_bear_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _differences(floor_corrected(result), "Margin", "Base"),
        f"{BUILD}, ACE floor-corrected; the means: {CONSERVATIVE}",
    )


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
        printed(frame, "value", ["model", "metric", "other"], step=PRINTED_STEP, terms=2),
        "Table 1, printed values (ACE of Base, Margin, Entropy; none printed for Consistency)",
    )


def average_best_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    avg = calib_estimator("Average", agg)
    diffs = floor_corrected(result)
    frame = pd.concat(
        [
            _differences(diffs, avg, others, [metric])
            for metric, others in _average_pairs(agg).items()
        ],
        ignore_index=True,
    )
    return Evidence(frame, f"{BUILD}, ACE floor-corrected")


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
    return combine([("models above 1B", small), ("Llama-3.1-8B(IT)", llama)])


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
        step=PRINTED_STEP,
        terms=2,
    )
    m = "llama-3.1-8b-instruct"
    llama = printed(
        pd.DataFrame({"model": [m], "value": [wide.at[m, "Margin"] - wide.at[m, avg]]}),
        "value",
        "model",
        step=PRINTED_STEP,
        terms=2,
    )
    return Evidence(large, TABLE1, frames={"large": large, "llama": llama})


def average_near_margin_large_build(result: CalibrationResult) -> Evidence:
    avg = calib_estimator("Average", result.params.aggregation)
    diffs = floor_corrected(result)
    d = _differences(diffs, avg, "Margin", ["ace"])
    sizes = result.models.set_index("model")["size_m"]
    big = d[d["model"].map(sizes).fillna(0) > LARGE_MODEL_M]
    large = _absolute(big.assign(unit=big["model"]))
    llama = _differences(diffs, avg, "Margin", ["ace"], sign=-1.0)
    llama = llama[llama["model"] == "llama-3.1-8b-instruct"]
    return Evidence(
        large,
        f"{BUILD}, ACE floor-corrected",
        frames={
            "large": large.reset_index(drop=True),
            "llama": llama.assign(unit=llama["model"]).reset_index(drop=True),
        },
    )


def consistency_entropy_rule(evidence: Evidence) -> Judgement:
    """``consistency_entropy_miscalibrated``: two parts, each for most units (the sentence has
    no quantifier; Holm's partial conjunction over the units): "very mis-calibrated", C_Entropy's
    ACE at or above 0.1 (Table 1's "well-calibrated" bound; no ACE is printed for
    C_Consistency), for most models; "low discriminative power", the Brier score of
    C_Consistency and of C_Entropy at or above 0.25, the paper's random baseline (always
    predicting 0.5, Table 1's caption), for most model-estimators."""
    ace = quantifiers.most(
        _part(evidence, "ace", "no ACE of C_Entropy in the evidence"),
        ">=",
        WELL_CALIBRATED,
        what="ACE(C_Entropy)",
        unit="model",
    )
    brier = quantifiers.most(
        _part(evidence, "brier", "no Brier score of C_Consistency or C_Entropy in the evidence"),
        ">=",
        RANDOM_BRIER,
        what="Brier(C_Consistency or C_Entropy), against the random baseline",
        unit="model-estimator",
    )
    return combine(
        [("mis-calibrated (ACE of C_Entropy)", ace), ("low discriminative power (Brier)", brier)]
    )


def consistency_entropy_paper() -> Evidence:
    _, con, ent = (calib_estimator(n) for n in MULTI_ESTIMATORS)
    ace = _paper_table("ace")
    ace = printed(ace[ace["estimator"] == ent], "value", ["model", "estimator"])
    brier = _paper_table("brier")
    brier = printed(brier[brier["estimator"].isin([con, ent])], "value", ["model", "estimator"])
    return Evidence(ace, TABLE1, frames={"ace": ace, "brier": brier})


def consistency_entropy_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    _, con, ent = (calib_estimator(n, agg) for n in MULTI_ESTIMATORS)
    ace = _threshold_rows(result.table, [ent])
    t = result.table[
        (result.table["block"] == PAPER_BLOCK) & result.table["estimator"].isin([con, ent])
    ]
    brier = pd.DataFrame(
        {
            "unit": t["model"] + ", " + t["estimator"],
            "model": t["model"],
            "estimator": t["estimator"],
            "difference": t["brier"],
            "low": t["brier_low"],
            "high": t["brier_high"],
        }
    ).reset_index(drop=True)
    return Evidence(
        ace,
        f"{BUILD}; for the ACE of Entropy: {THRESHOLD_NOTE}",
        frames={"ace": ace, "brier": brier},
    )


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="margin_bear",
        headline=True,
        paper="kissling2026",
        section="§5.1",
        quote="$\\bm{C_{\\text{Margin}}}$ scores are more reliable than $\\bm{C_{\\text{Base}}.}$",
        statement="C_Margin is more reliable than C_Base: a lower ACE and a lower Brier "
        'score ("more reliable" is what the paper says of both metrics together: '
        "Appendix F's \"outperforms C_Base across all models and both evaluation "
        'metrics, highlighting it as a more reliable confidence estimate"). The '
        "heading has no quantifier; both fair readings are judged: for most "
        "model-metrics, and on average over the models (per metric)",
        quantifier="most",
        metrics=("ace", "brier"),
        about="most model-metrics; the mean over the models",
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
        headline=True,
        paper="kissling2026",
        section="§5.1",
        quote="clearly outperforms the other approaches across all models in terms of "
        "both Brier Score and ACE",
        statement="C_Average has a lower ACE than C_Base, C_Margin and C_Entropy and a lower "
        "Brier score than all four other estimates, for every model (C_Consistency "
        'has no ACE in the paper; "clearly" is read as each difference lying below 0 '
        "beyond its interval or printed precision: the paper prints no size)",
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
        statement="For most models C_Entropy is not well calibrated (ACE at least 0.1, Table "
        "1's bound), and for most models C_Consistency and C_Entropy have no more "
        "discriminative power than the paper's random baseline (a Brier score, "
        "which reflects calibration and discriminative power, §4.3, at or above "
        "0.25, that of always predicting 0.5: Table 1's caption); the sentence has "
        'no quantifier, read as "most"',
        quantifier="most",
        metrics=("ace", "brier"),
        about="most models (ACE), most model-estimators (Brier)",
        chapter="calibration",
        rule=consistency_entropy_rule,
        paper_evidence=consistency_entropy_paper,
        build_evidence=consistency_entropy_build,
        paper_note=(
            '"very mis-calibrated" is read as not well calibrated (ACE at least Table '
            "1's 0.1; the paper names no stronger bound): at twice it, 0.2, only 8 of "
            "the 25 Entropy ACEs of Table 1 would count; the Brier part is "
            "judged against the paper's random baseline (Brier 0.25), not against "
            "C_Average, the best estimate: being worse than the best says nothing about "
            "discriminative power"
        ),
        needs=ANY_MODEL,
    ),
)
