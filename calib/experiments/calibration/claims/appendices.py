"""The calibration chapter's claims of Appendices D and E (Kissling et al. 2026) and beyond the
paper: ACE against accuracy across models, selective prediction, the recalibrated baseline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from calib.experiments import quantifiers
from calib.experiments.calibration.claims.evidence import (
    ANY_MODEL,
    BUILD,
    PAPER_PROFILE,
    _differences,
)
from calib.experiments.calibration.curves import (
    FIGURE10,
    MIN_MODELS_FOR_CORRELATION,
    ace_accuracy_correlation,
)
from calib.experiments.calibration.estimators import TEMPERATURE
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import calib_estimator, table1_long, text_value
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement

if TYPE_CHECKING:
    from calib.experiments.calibration import CalibrationResult

# -- Appendices D and E ---------------------------------------------------------------------------


def ace_accuracy_rule(evidence: Evidence) -> Judgement:
    """``ace_accuracy``: the correlation of ACE with accuracy (over the paraphrases) across
    models below 0 for C_Margin and C_Average (Figure 9's estimators)."""
    return quantifiers.every(
        evidence, "<", 0.0, what="Pearson r of ACE with accuracy across models", unit="estimator"
    )


def _correlation_rows(corr: pd.DataFrame, aggregation: str = "min") -> pd.DataFrame:
    names = [calib_estimator(e, aggregation) for e in FIGURE10]
    part = corr[corr["estimator"].isin(names) & (corr["n_used"] > 0)]
    return part.rename(columns={"estimator": "unit", "r": "difference"})[
        ["unit", "difference", "low", "high", "n"]
    ].reset_index(drop=True)


def ace_accuracy_paper() -> Evidence:
    corr = ace_accuracy_correlation(
        table1_long(), estimators=[calib_estimator(e) for e in FIGURE10], n_bootstrap=1000, seed=0
    )
    return Evidence(
        _correlation_rows(corr),
        "Tables 1 and 3 (computed here over the paper's 25 models), 95% bootstrap "
        "interval over models",
    )


def ace_accuracy_build(result: CalibrationResult) -> Evidence:
    rows = _correlation_rows(result.correlation, result.params.aggregation)
    return Evidence(
        rows,
        "this build, accuracy over the five paraphrases, 95% bootstrap interval over models",
        missing=(
            f"a correlation across models needs at least "
            f"{MIN_MODELS_FOR_CORRELATION} models; this build has "
            f"{len(result.models)}"
        ),
    )


def selective_rule(evidence: Evidence) -> Judgement:
    """``selective``: C_Margin and C_Average tell right from wrong answers (AUROC of confidence
    for correctness above 0.5) for every model."""
    return quantifiers.every(
        evidence, ">", 0.5, what="AUROC of confidence for correctness", unit="model-estimator"
    )


def selective_build(result: CalibrationResult) -> Evidence:
    names = [calib_estimator(e, result.params.aggregation) for e in FIGURE10]
    s = result.selective[result.selective["estimator"].isin(names)]
    return Evidence(
        pd.DataFrame(
            {
                "unit": s["model"] + ", " + s["estimator"],
                "difference": s["auroc"],
                "low": s["auroc_low"],
                "high": s["auroc_high"],
                "n": s["n"],
            }
        ).reset_index(drop=True),
        "this build, AUROC with its 95% BCa interval over facts (beyond the paper)",
    )


#: Appendix E's example model
SELECTIVE_MODEL = "gemma-7b"


def selective_gemma7b_rule(evidence: Evidence) -> Judgement:
    """``selective_gemma7b``: for gemma-7b, rejecting the instances whose C_Average is below
    0.1 rejects less than 30% and raises the accuracy of the rest by about 15 points (read as
    between 10 and 20)."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="each stated bound (below 0: met)",
        unit="bound",
        required=(SELECTIVE_MODEL,),
        required_in="model",
    )


def selective_gemma7b_build(result: CalibrationResult) -> Evidence:
    ex = result.selective_example
    ex = ex[ex["model"] == SELECTIVE_MODEL]
    if ex.empty:
        return Evidence.empty(f"this build has no {SELECTIVE_MODEL}")
    r = ex.iloc[0]
    rejected = text_value("selective_gemma7b_rejected") / 100
    gain = text_value("selective_gemma7b_gain") / 100
    rows = [
        (
            f"share rejected - {rejected:g}",
            r["rejected"] - rejected,
            r["rejected_low"] - rejected,
            r["rejected_high"] - rejected,
        ),
        (
            f"{gain - 0.05:g} - accuracy gain",
            gain - 0.05 - r["gain"],
            gain - 0.05 - r["gain_high"],
            gain - 0.05 - r["gain_low"],
        ),
        (
            f"accuracy gain - {gain + 0.05:g}",
            r["gain"] - gain - 0.05,
            r["gain_low"] - gain - 0.05,
            r["gain_high"] - gain - 0.05,
        ),
    ]
    return Evidence(
        pd.DataFrame(
            [
                {
                    "unit": f"{SELECTIVE_MODEL}: {u}",
                    "model": SELECTIVE_MODEL,
                    "difference": d,
                    "low": lo,
                    "high": hi,
                }
                for u, d, lo, hi in rows
            ]
        ),
        "this build, 95% BCa intervals over facts",
    )


# -- beyond the paper ------------------------------------------------------------------------------


def recalibrated_baseline_rule(evidence: Evidence) -> Judgement:
    """``recalibrated_baseline``: C_Average has a lower ACE and a lower Brier score than C_Base
    after temperature scaling (cross-fitted over relations), for every model."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="metric(C_Average) - metric(Base (temperature))",
        unit="model-metric",
    )


def recalibrated_baseline_build(result: CalibrationResult) -> Evidence:
    avg = calib_estimator("Average", result.params.aggregation)
    rows = _differences(result.differences, avg, f"Base{TEMPERATURE}")
    return Evidence(
        rows,
        f"{BUILD}; Base (temperature) cross-fitted over {result.folds} folds of relations",
        missing="fewer than two relations in this build: nothing to cross-fit",
    )


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="ace_accuracy",
        paper="kissling2026",
        section="Appendix D",
        quote="We find an overall negative correlation between accuracy and ACE",
        statement="ACE is negatively correlated with accuracy (over the paraphrases) across "
        "models, for C_Margin and C_Average (Figure 9's estimators)",
        quantifier="every",
        metrics=("ace", "accuracy"),
        about="the models of a build, per estimator",
        chapter="calibration",
        rule=ace_accuracy_rule,
        paper_evidence=ace_accuracy_paper,
        build_evidence=ace_accuracy_build,
        needs=f"at least {MIN_MODELS_FOR_CORRELATION} models (the quick profile, "
        f"`-p models`, or {PAPER_PROFILE})",
    ),
    Claim(
        key="selective",
        paper="kissling2026",
        section="Appendix E",
        quote="These curves show that the confidence estimates are effective for selective "
        "prediction.",
        statement="C_Margin and C_Average rank right answers above wrong ones (AUROC of "
        "confidence for correctness above 0.5), for every model",
        quantifier="every",
        metrics=("auroc",),
        about="every model, C_Margin and C_Average",
        chapter="calibration",
        rule=selective_rule,
        paper_evidence=None,
        build_evidence=selective_build,
        paper_note="Figure 10 prints no numbers (AUROC is beyond the paper)",
        needs=ANY_MODEL,
    ),
    Claim(
        key="selective_gemma7b",
        paper="kissling2026",
        section="Appendix E",
        quote="for gemma-7b, applying a confidence threshold of 0.1 to $C_{\\text{Average}}$ "
        "increases accuracy by about 15 percentage points while rejecting less than 30% "
        "of the dataset",
        statement="For gemma-7b, rejecting the instances with C_Average below 0.1 rejects "
        "less than 30% of them and raises the accuracy of the rest by about 15 "
        "points (read as 10 to 20)",
        quantifier="one model",
        metrics=("accuracy",),
        about="gemma-7b",
        chapter="calibration",
        rule=selective_gemma7b_rule,
        paper_evidence=None,
        build_evidence=selective_gemma7b_build,
        paper_note="Figure 10 prints no numbers; the text's example is the claim itself",
        needs=f"gemma-7b in the build ({PAPER_PROFILE})",
    ),
    Claim(
        key="recalibrated_baseline",
        paper="kissling2026",
        section="§5.1",
        quote="is the best-calibrated estimate",
        statement="Beyond the paper: C_Average has a lower ACE and a lower Brier score than "
        "C_Base recalibrated by temperature scaling (cross-fitted over relations), "
        "for every model",
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=recalibrated_baseline_rule,
        paper_evidence=None,
        build_evidence=recalibrated_baseline_build,
        paper_note="the paper has no recalibration baseline: it compares its estimators "
        "with each other only (beyond the paper, issue 18)",
        needs="two or more BEAR relations (any model on BEAR)",
    ),
)
