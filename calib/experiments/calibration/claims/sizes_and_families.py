"""The calibration chapter's claims on model sizes and families (Kissling et al. 2026, §5.1):
larger models, the best-calibrated families, Gemma 3, ModernBERT and XLM-R.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from calib.experiments import quantifiers
from calib.experiments.calibration.claims.evidence import (
    BUILD,
    LARGE_MODEL_M,
    PAPER_PROFILE,
    SMALL_ACE_DIFFERENCE,
    TABLE1,
    THRESHOLD_NOTE,
    WELL_CALIBRATED,
    _paper_table,
    _threshold_rows,
)
from calib.experiments.calibration.claims.margin_and_average import _absolute
from calib.experiments.calibration.contrasts import BEST_FAMILIES, paper_contrasts, paper_info
from calib.experiments.calibration.estimators import paper_estimators
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence, every_verdict, most_verdict, printed
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, Judgement

if TYPE_CHECKING:
    from calib.experiments.calibration import CalibrationResult

# -- sizes and families (§5.1) --------------------------------------------------------------------


def larger_better_rule(evidence: Evidence) -> Judgement:
    """``larger_better``: for every estimator and both metrics, most families' ACE (Brier)
    falls at every step up in size (a family supports when every step's interval lies below
    0, contradicts when one lies above; one family against is not "does not hold")."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or "no family with two sizes", evidence.source)
    status = quantifiers.unit_status(frame, "<", 0.0)
    frame = frame.assign(status=status)
    cells, parts = [], []
    for (est, metric), cell in frame.groupby(["estimator", "metric"], sort=False):
        fams = []
        for _, fam in cell.groupby("family", sort=False):
            s = list(fam["status"])
            fams.append(
                every_verdict(
                    s.count(quantifiers.SUPPORTS), s.count(quantifiers.CONTRADICTS), len(s)
                )
            )
        sup, con = fams.count(HOLDS), fams.count(FAILS)
        v = most_verdict(sup, con, len(fams))
        cells.append(v)
        parts.append(
            f"{est} {metric}: {sup} of {len(fams)} famil"
            f"{'y' if len(fams) == 1 else 'ies'} in line, {con} against, "
            f"{len(fams) - sup - con} undecided -> {v.value}"
        )
    where = f" ({evidence.source})" if evidence.source else ""
    text = (
        "per estimator and metric, whether most families' metric falls at every size step"
        f"{where}: " + "; ".join(parts)
    )
    verdict = FAILS if FAILS in cells else HOLDS if all(v == HOLDS for v in cells) else UNDECIDED
    reason = (
        ""
        if verdict != UNDECIDED
        else (
            "for some estimator and metric the families' intervals decide neither way: "
            + ", ".join(p for p, v in zip(parts, cells) if v == UNDECIDED)
        )
    )
    return Judgement(verdict, text, reason)


def _steps(contrasts: pd.DataFrame) -> pd.DataFrame:
    part = contrasts[contrasts["kind"] == "size step"]
    return part.assign(family=part["unit"].str.split(":").str[0])[
        ["unit", "family", "estimator", "metric", "a", "b", "difference", "low", "high"]
    ].reset_index(drop=True)


def larger_better_paper() -> Evidence:
    return Evidence(
        _steps(paper_contrasts(kinds=["size step"])),
        "Tables 1 and 3, printed values, every consecutive size step",
    )


def larger_better_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _steps(result.contrasts),
        BUILD,
        missing="no family with two or more sizes among this build's models",
    )


def _kind_rows(contrasts: pd.DataFrame, kind: str) -> pd.DataFrame:
    part = contrasts[contrasts["kind"] == kind]
    return part[["unit", "metric", "estimator", "a", "b", "difference", "low", "high"]].reset_index(
        drop=True
    )


def best_families_rule(evidence: Evidence) -> Judgement:
    """``best_families``: the Llama and gemma families have a lower mean ACE and a lower mean
    Brier score (over their models and the paper's estimators) than every other family."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="family mean(Llama 3 or Gemma) - family mean(other)",
        unit="family comparison",
        required=BEST_FAMILIES,
        required_in="a",
    )


def best_families_paper() -> Evidence:
    return Evidence(
        _kind_rows(paper_contrasts(kinds=["families"]), "families"),
        "Table 1, printed values, means over each family's models and the paper's estimators",
    )


def best_families_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(result.contrasts, "families"),
        BUILD,
        missing="this build lacks the Llama 3 or Gemma family, or another family",
    )


def gemma3_worse_rule(evidence: Evidence) -> Judgement:
    """``gemma3_worse``: the gemma-3 family's mean accuracy (over the paraphrases, Table 3) is
    below the gemma family's, and its mean ACE and Brier score above."""
    return quantifiers.every(
        evidence, ">", 0.0, what="mean(worse) - mean(better) per metric", unit="metric"
    )


def gemma3_worse_paper() -> Evidence:
    return Evidence(
        _kind_rows(paper_contrasts(kinds=["gemma-3"]), "gemma-3"),
        "Table 1 (ACE, Brier) and Table 3 (accuracy over all templates), printed "
        "values, family means",
    )


def gemma3_worse_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(result.contrasts, "gemma-3"),
        BUILD,
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
        _modernbert_rows(paper_contrasts(kinds=["ModernBERT"])),
        "Table 1, printed values, family means",
    )


def modernbert_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _modernbert_rows(result.contrasts),
        BUILD,
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
        _kind_rows(paper_contrasts(kinds=["xlm-roberta-large"]), "xlm-roberta-large"),
        "Table 1 (ACE, Brier) and Table 3 (accuracy over all templates), printed values",
    )


def xlmr_worst_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(result.contrasts, "xlm-roberta-large"),
        BUILD,
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
        key="best_families",
        paper="kissling2026",
        section="§5.1",
        quote="The model families with the overall lowest ACE and Brier Scores are LlaMA and gemma",
        statement="The Llama 3 and Gemma families have a lower mean ACE and a lower mean "
        'Brier score ("overall": over their models and every estimator the paper '
        "reports) than every other family",
        quantifier="comparison",
        metrics=("ace", "brier"),
        about="model families",
        chapter="calibration",
        rule=best_families_rule,
        paper_evidence=best_families_paper,
        build_evidence=best_families_build,
        paper_note=(
            "per estimator, Llama 3 and Gemma are the two lowest families for Base, "
            "Margin and Average in ACE and for every estimator but Entropy in Brier; "
            "Llama's high Entropy ACE moves OPT and Qwen3.5 below it in the mean"
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
