"""The calibration chapter's claims on model sizes and families (Kissling et al. 2026, §5.1):
larger models, the best-calibrated families, Gemma 3, ModernBERT and XLM-R.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from calib.experiments import quantifiers
from calib.experiments.calibration.claims.evidence import (
    BUILD,
    CONSERVATIVE,
    LARGE_MODEL_M,
    PAPER_PROFILE,
    PRINTED_STEP,
    SMALL_ACE_DIFFERENCE,
    TABLE1,
    THRESHOLD_NOTE,
    WELL_CALIBRATED,
    _paper_table,
    _part,
    _threshold_rows,
    all_of,
    floor_corrected_contrasts,
)
from calib.experiments.calibration.claims.margin_and_average import _absolute
from calib.experiments.calibration.contrasts import BEST_FAMILIES, paper_contrasts, paper_info
from calib.experiments.calibration.estimators import PAPER_BLOCK, paper_estimators
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence, printed
from calib.experiments.verdicts import Judgement, combine, readings

if TYPE_CHECKING:
    from calib.experiments.calibration import CalibrationResult

# -- sizes and families (§5.1) --------------------------------------------------------------------


def larger_better_rule(evidence: Evidence) -> Judgement:
    """``larger_better``: for every estimator and both metrics (each estimator-metric a part,
    :func:`calib.experiments.verdicts.combine`), most families' ACE (Brier) falls at every
    step up in size: a family is a unit made of its size steps
    (:func:`~calib.experiments.calibration.claims.evidence.all_of`: it supports when every
    step's interval lies below 0, contradicts when one lies above), and "most" is Holm's
    partial conjunction over the families (one family against is not "does not hold")."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or "no family with two sizes", evidence.source)
    parts = []
    for (est, metric), cell in frame.groupby(["estimator", "metric"], sort=False):
        families = all_of(cell, "family")
        parts.append(
            (
                f"{est} {metric}",
                quantifiers.most(
                    Evidence(families, evidence.source),
                    "<",
                    0.0,
                    what=f"{metric} of {est}, larger - smaller model, the largest of a "
                    f"family's size steps",
                    unit="family trend",
                ),
            )
        )
    return combine(parts)


def _steps(contrasts: pd.DataFrame) -> pd.DataFrame:
    part = contrasts[contrasts["kind"] == "size step"]
    cols = ["unit", "family", "estimator", "metric", "a", "b", "difference", "low", "high"]
    cols += [c for c in ("rounding", "floor_corrected") if c in part.columns]
    return part.assign(family=part["unit"].str.split(":").str[0])[cols].reset_index(drop=True)


def largest_most_calibrated_rule(evidence: Evidence) -> Judgement:
    """``largest_most_calibrated``: the heading "The largest models are also most calibrated",
    read over each family's whole size range: the largest model's ACE (Brier score) below the
    smallest's, for most family-estimator-metrics (Holm's partial conjunction over them;
    ``larger_better`` judges the stricter reading, every size step)."""
    return quantifiers.most(
        evidence,
        "<",
        0.0,
        what="metric(largest model of the family) - metric(smallest)",
        unit="family-estimator-metric",
    )


def _net_change(steps: pd.DataFrame, rounding: float | None = None) -> pd.DataFrame:
    """Per family, estimator and metric the sum of its consecutive size steps: the largest
    model's value minus the smallest's, with the interval of the summed steps (their sum of
    ends: valid whatever their dependence, conservative); ``rounding`` for printed steps (a
    difference of two printed numbers, whatever the steps between)."""
    if steps.empty:
        return pd.DataFrame(
            columns=["unit", "family", "estimator", "metric", "difference", "low", "high"]
        )
    net = (
        steps.groupby(["family", "estimator", "metric"], sort=False)[["difference", "low", "high"]]
        .sum()
        .reset_index()
    )
    net.insert(0, "unit", net["family"] + ", " + net["estimator"] + ", " + net["metric"])
    if rounding is not None:
        net["rounding"] = rounding
    return net


def _printed_contrasts(kind: str) -> pd.DataFrame:
    """The paper's contrasts of ``kind``
    (:func:`~calib.experiments.calibration.contrasts.paper_contrasts`), each a difference of
    two (means of) printed numbers: its rounding is one printed step (two terms, each off by
    at most half a step)."""
    return paper_contrasts(kinds=[kind]).assign(rounding=PRINTED_STEP)


def larger_better_paper() -> Evidence:
    return Evidence(
        _steps(_printed_contrasts("size step")),
        "Tables 1 and 3, printed values, every consecutive size step",
    )


def largest_most_calibrated_paper() -> Evidence:
    return Evidence(
        _net_change(_steps(paper_contrasts(kinds=["size step"])), PRINTED_STEP),
        "Tables 1 and 3, printed values: largest - smallest model of each family",
    )


def largest_most_calibrated_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _net_change(_steps(floor_corrected_contrasts(result))),
        f"{BUILD}, ACE floor-corrected, summed over a family's size steps ({CONSERVATIVE})",
        missing="no family with two or more sizes among this build's models",
    )


def larger_better_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _steps(floor_corrected_contrasts(result)),
        f"{BUILD}, ACE floor-corrected",
        missing="no family with two or more sizes among this build's models",
    )


def _kind_rows(contrasts: pd.DataFrame, kind: str) -> pd.DataFrame:
    part = contrasts[contrasts["kind"] == kind]
    cols = ["unit", "metric", "estimator", "a", "b", "difference", "low", "high"]
    cols += [c for c in ("rounding", "floor_corrected") if c in part.columns]
    return part[cols].reset_index(drop=True)


def best_families_rule(evidence: Evidence) -> Judgement:
    """``best_families``: Llama 3 and Gemma have the "overall" lowest ACE and Brier scores, in
    two fair readings, each judged
    (:func:`~calib.experiments.verdicts.readings`): *over the estimators*,
    their mean ACE and mean Brier score (over their models and the paper's estimators) below
    every other family's (frame ``mean``); *per estimator*, for most estimator-metrics their
    family means below every other family's (frame ``per_estimator``; an estimator-metric is
    a unit made of its family comparisons,
    :func:`~calib.experiments.calibration.claims.evidence.all_of`, and "most" is Holm's
    partial conjunction over them)."""
    mean = quantifiers.every(
        _part(evidence, "mean", evidence.missing or "no family comparison")
        if "mean" in evidence.frames
        else evidence,
        "<",
        0.0,
        what="family mean(Llama 3 or Gemma) - family mean(other)",
        unit="family comparison",
        required=BEST_FAMILIES,
        required_in="a",
    )
    rows = evidence.frames.get("per_estimator")
    if rows is None or rows.empty or not set(BEST_FAMILIES) <= set(rows["a"]):
        per = Judgement.untestable(
            evidence.missing or f"the evidence lacks {' or '.join(BEST_FAMILIES)}",
            evidence.source,
        )
    else:
        cells = all_of(rows, ["metric", "estimator"])
        per = quantifiers.most(
            Evidence(cells, evidence.source),
            "<",
            0.0,
            what="the largest of family mean(Llama 3 or Gemma) - family mean(other), per "
            "estimator and metric",
            unit="estimator-metric",
        )
    return readings([("over the estimators", mean), ("per estimator", per)])


def _per_estimator_rows(values: pd.DataFrame, info: pd.DataFrame) -> pd.DataFrame:
    """Per metric, estimator, named family and other family: the difference of their family
    means (``values``: ``model``, ``estimator``, ``metric``, ``difference``, ``low``,
    ``high``) with the interval
    :data:`~calib.experiments.calibration.claims.evidence.CONSERVATIVE` (the named family's
    mean low minus the other's mean high, and so on)."""
    family = info.set_index("model")["family"]
    v = values.assign(family=values["model"].map(family))
    v = v[v["family"].astype(bool) & v["family"].notna()]
    means = v.groupby(["metric", "estimator", "family"], sort=False)[
        ["difference", "low", "high"]
    ].mean()
    rows = []
    for (metric, est), cell in means.groupby(level=[0, 1], sort=False):
        cell = cell.droplevel([0, 1])
        for named in [f for f in BEST_FAMILIES if f in cell.index]:
            for other in [f for f in cell.index if f not in BEST_FAMILIES]:
                n, o = cell.loc[named], cell.loc[other]
                rows.append(
                    {
                        "unit": f"{metric}, {est}: {named} - {other}",
                        "metric": metric,
                        "estimator": est,
                        "a": named,
                        "b": other,
                        "difference": n["difference"] - o["difference"],
                        "low": n["low"] - o["high"],
                        "high": n["high"] - o["low"],
                    }
                )
    return pd.DataFrame(
        rows, columns=["unit", "metric", "estimator", "a", "b", "difference", "low", "high"]
    )


def best_families_paper() -> Evidence:
    mean = _kind_rows(_printed_contrasts("families"), "families")
    values = pd.concat(
        [
            _paper_table(m).assign(metric=m, difference=lambda t: t["value"])
            for m in ("ace", "brier")
        ],
        ignore_index=True,
    )
    values = values.assign(low=values["difference"], high=values["difference"])
    per = _per_estimator_rows(values, paper_info()).assign(rounding=PRINTED_STEP)
    return Evidence(
        mean,
        "Table 1, printed values, family means over the models (and, over the estimators, "
        "over the paper's estimators)",
        frames={"mean": mean, "per_estimator": per},
    )


def best_families_build(result: CalibrationResult) -> Evidence:
    mean = _kind_rows(floor_corrected_contrasts(result), "families")
    t = result.table[result.table["block"] == PAPER_BLOCK]
    agg = result.params.aggregation
    parts = []
    for metric, (d, lo, hi) in {
        "ace": ("ace_debiased", "ace_debiased_low", "ace_debiased_high"),
        "brier": ("brier", "brier_low", "brier_high"),
    }.items():
        p = t[t["estimator"].isin(paper_estimators(agg, with_ace=metric == "ace"))]
        parts.append(
            pd.DataFrame(
                {
                    "model": p["model"],
                    "estimator": p["estimator"],
                    "metric": metric,
                    "difference": p[d],
                    "low": p[lo],
                    "high": p[hi],
                }
            )
        )
    per = _per_estimator_rows(pd.concat(parts, ignore_index=True), result.models)
    return Evidence(
        mean,
        f"{BUILD}, ACE floor-corrected; per estimator: the debiased ACE (ACE minus its noise "
        f"floor) and the Brier score per model, {CONSERVATIVE}",
        missing="this build lacks the Llama 3 or Gemma family, or another family",
        frames={"mean": mean, "per_estimator": per},
    )


def gemma3_worse_rule(evidence: Evidence) -> Judgement:
    """``gemma3_worse``: the gemma-3 family's mean accuracy (over the paraphrases, Table 3) is
    below the gemma family's, and its mean ACE and Brier score above."""
    return quantifiers.every(
        evidence, ">", 0.0, what="mean(worse) - mean(better) per metric", unit="metric"
    )


def gemma3_worse_paper() -> Evidence:
    return Evidence(
        _kind_rows(_printed_contrasts("gemma-3"), "gemma-3"),
        "Table 1 (ACE, Brier) and Table 3 (accuracy over all templates), printed "
        "values, family means",
    )


def gemma3_worse_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(floor_corrected_contrasts(result), "gemma-3"),
        f"{BUILD}, ACE floor-corrected",
        missing="this build lacks a gemma or a gemma-3 model",
    )


def over_1b_well_calibrated_rule(evidence: Evidence) -> Judgement:
    """``over_1b_well_calibrated``: every model above 1B parameters has a best estimate (the
    lowest ACE of C_Base, C_Margin, C_Average, C_Entropy) of at most 0.1."""
    return quantifiers.every(
        evidence, "<=", WELL_CALIBRATED, what="ACE of the model's best estimate", unit="model"
    )


def over_1b_well_calibrated_paper() -> Evidence:
    info = paper_info().set_index("model")
    t = _paper_table("ace")
    best = t.groupby("model", sort=False)["value"].min().reset_index()
    best = best[best["model"].map(info["size_m"]) > LARGE_MODEL_M]
    return Evidence(printed(best, "value", "model"), TABLE1)


def over_1b_well_calibrated_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    rows = _threshold_rows(result.table, paper_estimators(agg, with_ace=True), best=True)
    sizes = result.models.set_index("model")["size_m"]
    rows = rows[rows["model"].map(sizes).fillna(0) > LARGE_MODEL_M].reset_index(drop=True)
    return Evidence(rows, THRESHOLD_NOTE, missing="no model above 1B parameters in this build")


def modernbert_rule(evidence: Evidence) -> Judgement:
    """``modernbert``: ModernBERT's C_Base ACE is comparable to BERT's and RoBERTa's (the family
    means differ by less than
    :data:`~calib.experiments.calibration.claims.evidence.SMALL_ACE_DIFFERENCE`) and its C_Average
    ACE is lower."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what=f"|Base difference| - {SMALL_ACE_DIFFERENCE:g}, Average "
        f"difference (ModernBERT - BERT/RoBERTa)",
        unit="check",
    )


def _modernbert_rows(contrasts: pd.DataFrame) -> pd.DataFrame:
    rows = _kind_rows(contrasts, "ModernBERT")
    base = rows[rows["estimator"] == "Base"]
    base = _absolute(base)
    base = base.assign(
        unit=f"Base ACE: |ModernBERT - BERT/RoBERTa| - {SMALL_ACE_DIFFERENCE:g}",
        difference=base["difference"] - SMALL_ACE_DIFFERENCE,
        low=base["low"] - SMALL_ACE_DIFFERENCE,
        high=base["high"] - SMALL_ACE_DIFFERENCE,
    )
    avg = rows[rows["estimator"] != "Base"]
    avg = avg.assign(unit="Average ACE: ModernBERT - BERT/RoBERTa")
    return pd.concat([base, avg], ignore_index=True)


def modernbert_paper() -> Evidence:
    return Evidence(
        _modernbert_rows(_printed_contrasts("ModernBERT")),
        "Table 1, printed values, family means",
    )


def modernbert_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _modernbert_rows(floor_corrected_contrasts(result)),
        f"{BUILD}, ACE floor-corrected",
        missing="this build lacks a ModernBERT model, or a BERT or RoBERTa one",
    )


def xlmr_worst_rule(evidence: Evidence) -> Judgement:
    """``xlmr_worst``: xlm-roberta-large has a lower accuracy (over the paraphrases) and a
    higher mean ACE and Brier score (over the paper's estimators) than the mean of the other
    MLMs."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="how much worse xlm-roberta-large is than the other MLMs' mean",
        unit="metric",
    )


def xlmr_worst_paper() -> Evidence:
    return Evidence(
        _kind_rows(_printed_contrasts("xlm-roberta-large"), "xlm-roberta-large"),
        "Table 1 (ACE, Brier) and Table 3 (accuracy over all templates), printed values",
    )


def xlmr_worst_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(floor_corrected_contrasts(result), "xlm-roberta-large"),
        f"{BUILD}, ACE floor-corrected",
        missing="this build lacks xlm-roberta-large or another MLM",
    )


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="larger_better",
        paper="kissling2026",
        section="§5.1",
        quote="For most model families, we see that by increasing model size, ACEs and "
        "Brier Scores decrease. This applies to all confidence estimation methods.",
        statement="For every estimator, ACE and Brier score fall at every step up in size in "
        "most model families (a family with one step against it contradicts it "
        "for that estimator and metric; one family against is not enough)",
        quantifier="most",
        metrics=("ace", "brier"),
        about="families with two or more sizes",
        chapter="calibration",
        rule=larger_better_rule,
        paper_evidence=larger_better_paper,
        build_evidence=larger_better_build,
        needs=f"two or more sizes of one family, e.g. opt-125m, opt-350m, opt-1.3b "
        f"({PAPER_PROFILE})",
    ),
    Claim(
        key="largest_most_calibrated",
        paper="kissling2026",
        section="§5.1",
        quote="The largest models are also most calibrated.",
        statement="Within a family, the largest model has a lower ACE and a lower Brier "
        "score than the smallest, for most family-estimator-metrics (the heading "
        "read over each family's size range; larger_better judges every size step)",
        quantifier="most",
        metrics=("ace", "brier"),
        about="families with two or more sizes, every estimator",
        chapter="calibration",
        rule=largest_most_calibrated_rule,
        paper_evidence=largest_most_calibrated_paper,
        build_evidence=largest_most_calibrated_build,
        needs=f"two or more sizes of one family, e.g. opt-125m and opt-1.3b ({PAPER_PROFILE})",
    ),
    Claim(
        key="best_families",
        paper="kissling2026",
        section="§5.1",
        quote="The model families with the overall lowest ACE and Brier Scores are LlaMA and gemma",
        statement="The Llama 3 and Gemma families have a lower ACE and a lower Brier score "
        'than every other family "overall", in two fair readings, both judged: over '
        "the estimators (the family means over their models and every estimator the "
        "paper reports), and per estimator (for most estimator-metrics, the family "
        "means over their models)",
        quantifier="comparison",
        metrics=("ace", "brier"),
        about="model families",
        chapter="calibration",
        rule=best_families_rule,
        paper_evidence=best_families_paper,
        build_evidence=best_families_build,
        paper_note=(
            "Llama's high Entropy ACE moves OPT and Qwen3.5 below it in the mean over "
            "the estimators; per estimator, Entropy is the exception"
        ),
        needs=f"models of the Llama 3 and Gemma families and of another family ({PAPER_PROFILE})",
    ),
    Claim(
        key="gemma3_worse",
        paper="kissling2026",
        section="§5.1",
        quote="Newer gemma-3 models exhibit lower accuracy (see Appendix A) and worse "
        "calibration than the original gemma family.",
        statement="The gemma-3 family has a lower mean accuracy (over the paraphrases, as "
        "Table 3) and a higher mean ACE and Brier score than the gemma family",
        quantifier="comparison",
        metrics=("accuracy", "ace", "brier"),
        about="the gemma-3 and gemma families",
        chapter="calibration",
        rule=gemma3_worse_rule,
        paper_evidence=gemma3_worse_paper,
        build_evidence=gemma3_worse_build,
        needs=f"a gemma model (gemma-2b or gemma-7b) beside a gemma-3 one ({PAPER_PROFILE})",
    ),
    Claim(
        key="over_1b_well_calibrated",
        paper="kissling2026",
        section="§5.1",
        quote="all models larger than 1B parameters, achieve an $\\emph{ACE}\\leq 0.1$ with "
        "their best estimate",
        statement="Every model above 1B parameters has an ACE of at most 0.1 with its best "
        "estimate (the lowest of C_Base, C_Margin, C_Average, C_Entropy)",
        quantifier="every",
        metrics=("ace",),
        about="models above 1B parameters",
        chapter="calibration",
        rule=over_1b_well_calibrated_rule,
        paper_evidence=over_1b_well_calibrated_paper,
        build_evidence=over_1b_well_calibrated_build,
        paper_note="gpt2-xl (1.6B, Table 3) has no row in Table 1",
        needs=f"models above 1B parameters ({PAPER_PROFILE})",
    ),
    Claim(
        key="modernbert",
        paper="kissling2026",
        section="§5.1",
        quote="the ModernBERT’s $C_{\\text{Base}}$ confidences are comparable to BERT and "
        "RoBERTa, however with $C_{\\text{Average}}$ ModernBERT is better-calibrated",
        statement=f"ModernBERT's mean C_Base ACE differs from BERT's and RoBERTa's by less "
        f'than {SMALL_ACE_DIFFERENCE:g} ("comparable"), and its mean C_Average '
        f"ACE is lower",
        quantifier="comparison",
        metrics=("ace",),
        about="ModernBERT against BERT and RoBERTa",
        chapter="calibration",
        rule=modernbert_rule,
        paper_evidence=modernbert_paper,
        build_evidence=modernbert_build,
        needs=f"a ModernBERT model beside BERT or RoBERTa ({PAPER_PROFILE})",
    ),
    Claim(
        key="xlmr_worst",
        paper="kissling2026",
        section="§5.1",
        quote="xlm-roberta-large deviates from the other MLMs with worse accuracy and calibration",
        statement="xlm-roberta-large has a lower accuracy (over the paraphrases) and a "
        "higher mean ACE and Brier score (over the paper's estimators) than the "
        "other MLMs on average",
        quantifier="comparison",
        metrics=("accuracy", "ace", "brier"),
        about="xlm-roberta-large against the other MLMs",
        chapter="calibration",
        rule=xlmr_worst_rule,
        paper_evidence=xlmr_worst_paper,
        build_evidence=xlmr_worst_build,
        paper_note=(
            "against xlm-roberta-base alone it would not hold: its accuracy (11.2%) "
            "and its C_Base ACE (0.585) are worse than xlm-roberta-large's"
        ),
        needs=f"xlm-roberta-large beside other MLMs ({PAPER_PROFILE})",
    ),
)
