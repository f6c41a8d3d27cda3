"""The calibration chapter's claims on which estimate is best and how close to perfect
calibration (Kissling et al. 2026, §5.1, the abstract, §7): C_Margin's curves against C_Base's
in Figure 2, C_Average close to perfect calibration, the best paraphrase-consistency estimate
against the best intrinsic one, and how unreliable single-template estimates are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from calib.experiments import quantifiers
from calib.experiments.calibration.claims.evidence import (
    ANY_MODEL,
    BUILD,
    CONSERVATIVE,
    GOOD_CALIBRATION,
    PAPER_PROFILE,
    PRINTED_STEP,
    TABLE1,
    THRESHOLD_NOTE,
    WELL_CALIBRATED,
    _differences,
    _paper_table,
    _part,
    _threshold_rows,
    _wide,
    all_of,
    any_of,
    floor_corrected,
)
from calib.experiments.calibration.claims.margin_and_average import _printed_ace
from calib.experiments.calibration.contrasts import paper_info
from calib.experiments.calibration.estimators import MULTI_ESTIMATORS, PAPER_BLOCK
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import calib_estimator
from calib.experiments.quantifiers import Evidence, printed
from calib.experiments.verdicts import Judgement, combine

if TYPE_CHECKING:
    from calib.experiments.calibration import CalibrationResult


#: the models of Figure 2 (the authors' repository's legend,
#: ``kissling2026_fig_calibration_curves_estimates_legend``; its ACEs equal Table 1's)
FIGURE2: tuple[str, ...] = ("gemma-2b", "opt-6.7b", "gemma-7b")


def margin_curves_closer_rule(evidence: Evidence) -> Judgement:
    """``margin_curves_closer``: C_Margin's calibration curve lies closer to the identity than
    C_Base's: the mean deviation of the 20 quantile bins' accuracy from their confidence,
    which is ACE, is lower (``ACE(C_Margin) - ACE(C_Base) < 0``), for every model."""
    return quantifiers.every(evidence, "<", 0.0, what="ACE(C_Margin) - ACE(C_Base)", unit="model")


def margin_curves_closer_paper() -> Evidence:
    wide = _wide(_paper_table("ace")).loc[list(FIGURE2)]
    frame = pd.DataFrame({"model": wide.index, "value": (wide["Margin"] - wide["Base"]).to_numpy()})
    return Evidence(
        printed(frame, "value", "model", step=PRINTED_STEP, terms=2),
        "Table 1, printed values, for Figure 2's models (the authors' repository's legend "
        "names them)",
    )


def margin_curves_closer_build(result: CalibrationResult) -> Evidence:
    rows = _differences(floor_corrected(result), "Margin", "Base", ["ace"])
    return Evidence(rows.assign(unit=rows["model"]), f"{BUILD}, ACE floor-corrected")


#: the models whose C_Average the text and Figure 2 call close to perfect calibration
CLOSE_TO_PERFECT: tuple[str, ...] = ("opt-6.7b", "qwen3.5-9b", "gemma-2b", "gemma-7b")


def average_close_to_perfect_rule(evidence: Evidence) -> Judgement:
    """``average_close_to_perfect``: C_Average's ACE below 0.05 (the ACE the paper calls good
    calibration) for opt-6.7b and Qwen3.5-9B(IT), named in the text, and for Figure 2's
    gemma-2b and gemma-7b, whose curve "deviates only slightly" (every named model)."""
    return quantifiers.every(
        evidence,
        "<",
        GOOD_CALIBRATION,
        what="ACE of C_Average",
        unit="model",
        required=CLOSE_TO_PERFECT,
        required_in="model",
    )


def average_close_to_perfect_paper() -> Evidence:
    frame = _printed_ace(calib_estimator("Average"), CLOSE_TO_PERFECT)
    return Evidence(frame.assign(model=frame["unit"]), TABLE1)


def average_close_to_perfect_build(result: CalibrationResult) -> Evidence:
    rows = _threshold_rows(result.table, [calib_estimator("Average", result.params.aggregation)])
    rows = rows[rows["model"].isin(CLOSE_TO_PERFECT)].reset_index(drop=True)
    missing = [m for m in CLOSE_TO_PERFECT if m not in set(rows["model"])]
    return Evidence(
        rows, THRESHOLD_NOTE, missing=f"this build has no {', '.join(missing)}" if missing else ""
    )


def paraphrase_best_rule(evidence: Evidence) -> Judgement:
    """``paraphrase_best``: for most model-metrics the best paraphrase-consistency estimate
    is below the best intrinsic one (C_Base, C_Margin). A model-metric (rows with the same
    ``group``) is a unit made of its paraphrase estimates (``estimator``), one of which must
    be below both intrinsic ones
    (:func:`~calib.experiments.calibration.claims.evidence.any_of` over
    :func:`~calib.experiments.calibration.claims.evidence.all_of`); rows without ``group``
    are a unit each. "Most" is Holm's partial conjunction over the model-metrics (the
    sentence has no quantifier; ``average_best`` judges the stronger reading, every model)."""
    frame = evidence.frame
    what = "metric(best paraphrase estimate) - metric(best of C_Base and C_Margin)"
    if frame.empty:
        return quantifiers.most(evidence, what=what)
    if "group" in frame.columns:
        each = frame if "estimator" in frame.columns else frame.assign(estimator="")
        frame = any_of(all_of(each, ["group", "estimator"]), "group")
    return quantifiers.most(
        Evidence(frame, evidence.source), "<", 0.0, what=what, unit="model-metric"
    )


def paraphrase_best_paper() -> Evidence:
    rows = []
    for metric in ("ace", "brier"):
        wide = _wide(_paper_table(metric))
        paraphrase = [calib_estimator(e) for e in MULTI_ESTIMATORS]
        best_p = wide[[e for e in paraphrase if e in wide.columns]].min(axis=1)
        best_i = wide[["Base", "Margin"]].min(axis=1)
        rows.append(
            pd.DataFrame(
                {"model": wide.index, "metric": metric, "value": (best_p - best_i).to_numpy()}
            )
        )
    frame = printed(
        pd.concat(rows, ignore_index=True), "value", ["model", "metric"], step=PRINTED_STEP, terms=2
    )
    return Evidence(
        frame,
        "Table 1, printed values: per model and metric the lowest of C_Average, C_Entropy "
        "and (Brier) C_Consistency minus the lower of C_Base and C_Margin",
    )


def paraphrase_best_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    avg, con, ent = (calib_estimator(n, agg) for n in MULTI_ESTIMATORS)
    paired = _differences(floor_corrected(result), avg, ["Base", "Margin"])
    paired = paired.assign(estimator=avg)
    t = result.table[result.table["block"] == PAPER_BLOCK].set_index(["model", "estimator"])
    columns = {
        "ace": ("ace_debiased", "ace_debiased_low", "ace_debiased_high"),
        "brier": ("brier", "brier_low", "brier_high"),
    }
    rows = []
    for metric, others in (("ace", [ent]), ("brier", [con, ent])):
        d, lo, hi = columns[metric]
        for model in dict.fromkeys(result.table["model"]):
            for p in others:
                for i in ("Base", "Margin"):
                    if (model, p) not in t.index or (model, i) not in t.index:
                        continue
                    a, b = t.loc[(model, p)], t.loc[(model, i)]
                    rows.append(
                        {
                            "unit": f"{model}, {metric}: {p} - {i}",
                            "model": model,
                            "metric": metric,
                            "estimator": p,
                            "difference": a[d] - b[d],
                            "low": a[lo] - b[hi],
                            "high": a[hi] - b[lo],
                        }
                    )
    frame = pd.concat([paired, pd.DataFrame(rows)], ignore_index=True)
    frame = frame.assign(group=frame["model"] + ", " + frame["metric"])
    return Evidence(
        frame,
        f"{BUILD}, ACE floor-corrected, for C_Average; C_Entropy and C_Consistency against "
        f"the intrinsic estimates from their own intervals (ACE: the debiased ACE), "
        f"{CONSERVATIVE}",
    )


def single_template_unreliable_rule(evidence: Evidence) -> Judgement:
    """``single_template_unreliable``: without paraphrases the models are largely not well
    calibrated, more so the low-accuracy ones: C_Margin's ACE (the better single-template
    estimate) at or above 0.1 for most models (frame ``models``), and the mean ACE of
    C_Margin of the models below the median accuracy above that of the models above it (frame
    ``accuracy``, one comparison)."""
    models = quantifiers.most(
        _part(evidence, "models", "no ACE of C_Margin in the evidence"),
        ">=",
        WELL_CALIBRATED,
        what="ACE(C_Margin)",
        unit="model",
    )
    low_accuracy = quantifiers.every(
        _part(evidence, "accuracy", "fewer than 4 models: no split by accuracy"),
        ">",
        0.0,
        what="mean ACE(C_Margin) of the models below the median accuracy - above it",
        unit="comparison",
    )
    return combine([("most models", models), ("especially low-accuracy models", low_accuracy)])


def _accuracy_split(values: pd.DataFrame, accuracy: pd.Series) -> pd.DataFrame:
    """One row: the mean ``difference`` (``low``, ``high``) of the models below the median
    ``accuracy`` minus that of the models above it (the median model of an odd number left
    out), the interval :data:`~calib.experiments.calibration.claims.evidence.CONSERVATIVE`;
    empty for fewer than 4 models."""
    acc = values["model"].map(accuracy)
    values = values[acc.notna()]
    acc = acc[acc.notna()]
    if len(values) < 4:
        return pd.DataFrame(columns=["unit", "difference", "low", "high"])
    med = float(acc.median())
    low, high = values[acc < med], values[acc > med]
    row = {
        "unit": f"ACE(C_Margin): {len(low)} models below the median accuracy - {len(high)} above",
        "difference": low["difference"].mean() - high["difference"].mean(),
        "low": low["low"].mean() - high["high"].mean(),
        "high": low["high"].mean() - high["low"].mean(),
    }
    if "rounding" in values.columns:
        row["rounding"] = float(values["rounding"].max()) * 2
    return pd.DataFrame([row])


def single_template_unreliable_paper() -> Evidence:
    models = _printed_ace("Margin")
    models = models.assign(model=models["unit"])
    accuracy = paper_info().merge(
        _paper_table("ace")[["model", "accuracy"]].drop_duplicates("model"), on="model"
    )
    split = _accuracy_split(
        models.assign(rounding=PRINTED_STEP / 2), accuracy.set_index("model")["accuracy"]
    )
    return Evidence(
        models, "Tables 1 and 3, printed values", frames={"models": models, "accuracy": split}
    )


def single_template_unreliable_build(result: CalibrationResult) -> Evidence:
    models = _threshold_rows(result.table, ["Margin"])
    t = result.table[
        (result.table["block"] == PAPER_BLOCK) & (result.table["estimator"] == "Margin")
    ]
    debiased = pd.DataFrame(
        {
            "model": t["model"],
            "difference": t["ace_debiased"],
            "low": t["ace_debiased_low"],
            "high": t["ace_debiased_high"],
        }
    )
    split = _accuracy_split(debiased, result.accuracy.set_index("model")["accuracy"])
    return Evidence(
        models,
        f"{THRESHOLD_NOTE}; by accuracy: the debiased ACE (ACE minus its noise floor), "
        f"{CONSERVATIVE}",
        frames={"models": models, "accuracy": split},
    )


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="margin_curves_closer",
        paper="kissling2026",
        section="§5.1",
        quote="On the other hand, the $C_{\\text{Margin}}$ curves align more closely with the "
        "identity line, which signifies perfect calibration.",
        statement="C_Margin's calibration curve lies closer to the identity line than "
        "C_Base's (a lower ACE: the mean deviation of the curve's 20 quantile bins "
        "from the identity) for every model of Figure 2 (in a build: every model)",
        quantifier="every",
        metrics=("ace",),
        about=f"Figure 2's models ({', '.join(FIGURE2)}); every model of a build",
        chapter="calibration",
        rule=margin_curves_closer_rule,
        paper_evidence=margin_curves_closer_paper,
        build_evidence=margin_curves_closer_build,
        paper_note="Figure 2's curves print no numbers; its legend's ACEs are Table 1's",
        needs=ANY_MODEL,
    ),
    Claim(
        key="paraphrase_best",
        paper="kissling2026",
        section="Abstract, §7",
        quote="The best-calibrated scores come from confidence estimates that account for "
        "inconsistencies due to statement rephrasing.",
        statement="For most model-metrics (ACE and Brier score of each model) the best "
        "paraphrase-consistency estimate (the lowest of C_Average, C_Entropy and, "
        "for Brier, C_Consistency) is below the best intrinsic one (the lower of "
        'C_Base and C_Margin); the sentence has no quantifier, read as "most" '
        "(average_best judges the stronger reading, C_Average below every other "
        "estimate for every model)",
        quantifier="most",
        metrics=("ace", "brier"),
        about="most model-metrics",
        chapter="calibration",
        rule=paraphrase_best_rule,
        paper_evidence=paraphrase_best_paper,
        build_evidence=paraphrase_best_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="average_close_to_perfect",
        paper="kissling2026",
        section="§5.1",
        quote="For example, for opt-6.7b, $C_{\\text{Average}}$ achieves an ACE of 0.024, and "
        "for Qwen3.5-9B(IT), an ACE of 0.034, which is close to perfect calibration.",
        statement=f"C_Average's ACE is below {GOOD_CALIBRATION:g} (\"close to perfect "
        f'calibration": the ACE the paper calls good calibration) for opt-6.7b and '
        f"Qwen3.5-9B(IT), which the text names, and for Figure 2's gemma-2b and "
        f'gemma-7b, whose C_Average curve "deviates only slightly from the identity '
        f'line"',
        quantifier="every",
        metrics=("ace",),
        about=", ".join(CLOSE_TO_PERFECT),
        chapter="calibration",
        rule=average_close_to_perfect_rule,
        paper_evidence=average_close_to_perfect_paper,
        build_evidence=average_close_to_perfect_build,
        needs=f"{', '.join(CLOSE_TO_PERFECT)} in the build ({PAPER_PROFILE})",
    ),
    Claim(
        key="single_template_unreliable",
        paper="kissling2026",
        section="§7",
        quote="If this sensitivity is not incorporated in the confidence score, the LMs "
        "remain largely unreliable from a calibration perspective, especially for "
        "low-accuracy models.",
        statement="Without paraphrases most models are not well calibrated (C_Margin's "
        "ACE, the better single-template estimate, at or above 0.1 for most models), "
        "and the low-accuracy models more so (the mean ACE of C_Margin of the models "
        "below the median accuracy above that of the models above it)",
        quantifier="most",
        metrics=("ace", "accuracy"),
        about="most models; models below against above the median accuracy",
        chapter="calibration",
        rule=single_template_unreliable_rule,
        paper_evidence=single_template_unreliable_paper,
        build_evidence=single_template_unreliable_build,
        needs=f"at least 4 models for the split by accuracy ({PAPER_PROFILE})",
    ),
)
