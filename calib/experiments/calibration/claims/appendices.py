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
    _part,
    floor_corrected,
)
from calib.experiments.calibration.contrasts import paper_info
from calib.experiments.calibration.curves import (
    FIGURE10,
    MIN_MODELS_FOR_CORRELATION,
    ace_accuracy_correlation,
)
from calib.experiments.calibration.estimators import TEMPERATURE
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import calib_estimator, table1_long, text_value
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement, combine

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
        sample="models",
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
        sample="models",
    )


#: the ACE of the estimators Figure 9 shows against size (Appendix D)
SIZE_METHOD = "spearman"


def ace_size_rule(evidence: Evidence) -> Judgement:
    """``ace_size``: across models, ACE falls with size and accuracy rises with it: the
    Spearman correlation of ACE (C_Margin and C_Average, Figure 9's estimators) with the
    number of parameters below 0, and that of accuracy (over the paraphrases) with it above 0
    (each correlation a unit, its 95% bootstrap interval over models)."""
    ace = quantifiers.every(
        _part(evidence, "ace", evidence.missing or "no correlation of ACE with size"),
        "<",
        0.0,
        what="Spearman rho of ACE with size across models",
        unit="estimator",
    )
    accuracy = quantifiers.every(
        _part(evidence, "accuracy", evidence.missing or "no correlation of accuracy with size"),
        ">",
        0.0,
        what="Spearman rho of accuracy with size across models",
        unit="correlation",
    )
    return combine([("ACE", ace), ("accuracy", accuracy)])


def _size_correlations(points: pd.DataFrame, aggregation: str, n_bootstrap: int, seed: int):
    """(ACE rows, accuracy rows) of :func:`_correlation_rows`: Spearman's rho of ``points``'
    ACE (Figure 9's estimators) and of its accuracy with ``size_m`` across models."""
    names = [calib_estimator(e, aggregation) for e in FIGURE10]
    ace = ace_accuracy_correlation(
        points,
        estimators=names,
        method=SIZE_METHOD,
        n_bootstrap=n_bootstrap,
        seed=seed,
        accuracy="size_m",
    )
    one = points[points["estimator"] == names[0]].assign(estimator="accuracy")
    acc = ace_accuracy_correlation(
        one,
        method=SIZE_METHOD,
        n_bootstrap=n_bootstrap,
        seed=seed,
        accuracy="size_m",
        ace="accuracy",
    )
    return _correlation_rows(ace, aggregation), acc[acc["n_used"] > 0].rename(
        columns={"estimator": "unit", "r": "difference"}
    )[["unit", "difference", "low", "high", "n"]].reset_index(drop=True)


def ace_size_paper() -> Evidence:
    ace, acc = _size_correlations(table1_long(), "min", 1000, 0)
    return Evidence(
        ace,
        "Tables 1 and 3 (computed here over the paper's 25 models of Table 1), 95% bootstrap "
        "interval over models",
        frames={"ace": ace, "accuracy": acc},
        sample="models",
    )


def ace_size_build(result: CalibrationResult) -> Evidence:
    sizes = result.models.set_index("model")["size_m"]
    points = result.ace_accuracy.assign(size_m=result.ace_accuracy["model"].map(sizes))
    points = points.dropna(subset=["size_m"])
    if points["model"].nunique() < MIN_MODELS_FOR_CORRELATION or points["size_m"].nunique() < 2:
        return Evidence.empty(
            f"a correlation across models needs at least {MIN_MODELS_FOR_CORRELATION} models "
            f"of different sizes; this build has {points['model'].nunique()} model(s) of "
            f"{points['size_m'].nunique()} size(s)"
        )
    ace, acc = _size_correlations(
        points, result.params.aggregation, result.params.n_bootstrap, result.params.seed
    )
    return Evidence(
        ace,
        "this build, 95% bootstrap interval over models",
        frames={"ace": ace, "accuracy": acc},
        sample="models",
    )


#: fewest models a group needs for a correlation within it (two only say which is more accurate)
MIN_GROUP_MODELS = 3


def ace_accuracy_within_groups_rule(evidence: Evidence) -> Judgement:
    """``ace_accuracy_within_groups``: the correlation of ACE (C_Margin, C_Average) with
    accuracy is negative within each pre-training objective (every objective-estimator) and
    within most model families of at least three models ("with some exceptions": Holm's
    partial conjunction over the family-estimators)."""
    objectives = quantifiers.every(
        _part(evidence, "objectives", "no objective with enough models"),
        "<",
        0.0,
        what="Pearson r of ACE with accuracy within an objective",
        unit="objective-estimator",
    )
    families = quantifiers.most(
        _part(evidence, "families", f"no family of at least {MIN_GROUP_MODELS} models"),
        "<",
        0.0,
        what="Pearson r of ACE with accuracy within a family",
        unit="family-estimator",
    )
    return combine([("objectives", objectives), ("families", families)])


def _group_correlations(
    points: pd.DataFrame,
    info: pd.DataFrame,
    group: str,
    aggregation: str,
    n_bootstrap: int,
    seed: int,
) -> pd.DataFrame:
    """Per value of ``info``'s ``group`` column with at least :data:`MIN_GROUP_MODELS` models,
    the correlation of ACE with accuracy of Figure 9's estimators (``n_bootstrap`` 0: the value
    alone, ``low == high``)."""
    g = info.set_index("model")[group]
    names = [calib_estimator(e, aggregation) for e in FIGURE10]
    rows = []
    for name, part in points.assign(_g=points["model"].map(g)).groupby("_g", sort=False):
        if not name or part["model"].nunique() < MIN_GROUP_MODELS:
            continue
        corr = ace_accuracy_correlation(
            part,
            estimators=names,
            n_bootstrap=max(n_bootstrap, 1),
            seed=seed,
            min_models=MIN_GROUP_MODELS,
        )
        corr = corr[corr["r"].notna()]
        for r in corr.to_dict("records"):
            low, high = (r["r"], r["r"]) if n_bootstrap == 0 else (r["low"], r["high"])
            rows.append(
                {
                    "unit": f"{name}, {r['estimator']}",
                    "group": name,
                    "difference": r["r"],
                    "low": low,
                    "high": high,
                    "n": r["n"],
                }
            )
    return pd.DataFrame(rows, columns=["unit", "group", "difference", "low", "high", "n"])


def ace_accuracy_within_groups_paper() -> Evidence:
    long = table1_long()
    info = paper_info()
    points = long.assign(model=long["registry_name"])
    frames = {
        kind: _group_correlations(points, info, col, "min", 0, 0)
        for kind, col in (("objectives", "objective"), ("families", "family"))
    }
    return Evidence(
        frames["families"],
        "Tables 1 and 3, the correlation computed here from the printed values of each "
        "group's models (no interval: the paper's statement is about its own models)",
        frames=frames,
        sample="models",
    )


def ace_accuracy_within_groups_build(result: CalibrationResult) -> Evidence:
    p = result.params
    frames = {
        kind: _group_correlations(
            result.ace_accuracy, result.models, col, p.aggregation, p.n_bootstrap, p.seed
        )
        for kind, col in (("objectives", "objective"), ("families", "family"))
    }
    return Evidence(
        frames["families"],
        "this build, 95% bootstrap interval over each group's models",
        frames=frames,
        sample="models",
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
    rows = _differences(floor_corrected(result), avg, f"Base{TEMPERATURE}")
    return Evidence(
        rows,
        f"{BUILD}, ACE floor-corrected; Base (temperature) cross-fitted over {result.folds} "
        f"folds of relations",
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
        paper_source="computed here from printed tables",
    ),
    Claim(
        key="ace_size",
        paper="kissling2026",
        section="Appendix D",
        quote="Since larger models generally achieve higher accuracy, this result also implies "
        "a negative correlation between calibration error and model size.",
        statement="Across models, ACE falls with the number of parameters (Spearman's rho "
        "below 0 for C_Margin and C_Average) and accuracy (over the paraphrases) "
        "rises with it (rho above 0)",
        quantifier="every",
        metrics=("ace", "accuracy"),
        about="the models of a build, per estimator",
        chapter="calibration",
        rule=ace_size_rule,
        paper_evidence=ace_size_paper,
        build_evidence=ace_size_build,
        needs=f"at least {MIN_MODELS_FOR_CORRELATION} models of different sizes ({PAPER_PROFILE})",
        paper_source="computed here from printed tables",
    ),
    Claim(
        key="ace_accuracy_within_groups",
        paper="kissling2026",
        section="Appendix D",
        quote="With some exceptions, this trend holds across pre-training objectives and "
        "model families.",
        statement=f"The correlation of ACE (C_Margin, C_Average) with accuracy is negative "
        f"within each pre-training objective, and within most model families of at "
        f'least {MIN_GROUP_MODELS} models ("with some exceptions"; a family of two '
        f"only says which model is more accurate, and is left out)",
        quantifier="most",
        metrics=("ace", "accuracy"),
        about=f"CLMs, MLMs; families of at least {MIN_GROUP_MODELS} models",
        chapter="calibration",
        rule=ace_accuracy_within_groups_rule,
        paper_evidence=ace_accuracy_within_groups_paper,
        build_evidence=ace_accuracy_within_groups_build,
        needs=f"at least {MIN_GROUP_MODELS} models of one objective or family ({PAPER_PROFILE})",
        paper_source="computed here from printed tables",
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
        "with each other only (beyond the paper)",
        needs="two or more BEAR relations (any model on BEAR)",
    ),
)
