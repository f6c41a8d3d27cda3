"""The calibration chapter's claims on over- and underconfidence (Kissling et al. 2026, the
abstract, §7, §5.1): the signed calibration gaps of the models and of MLMs against CLMs, where
the calibration curves start, and Margin in the range of low confidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from calib.confidence.gap import GAP_RANGES
from calib.experiments import quantifiers
from calib.experiments.calibration.claims.evidence import ANY_MODEL, NEEDS_BOTH, _combine, _part
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement

if TYPE_CHECKING:
    from calib.experiments.calibration import CalibrationResult

#: the range of low confidence of the claim on Margin's underconfidence (the lowest quarter)
LOW_RANGE: tuple[float, float] = GAP_RANGES[0]


# -- overconfidence (abstract, §7, §5.1) --------------------------------------------------------


def _gap_rows(gaps: pd.DataFrame, estimators: Sequence[str]) -> pd.DataFrame:
    part = gaps[gaps["estimator"].isin(list(estimators))]
    return pd.DataFrame(
        {
            "unit": part["model"] + ", " + part["estimator"],
            "model": part["model"],
            "estimator": part["estimator"],
            "difference": part["gap"],
            "low": part["gap_low"],
            "high": part["gap_high"],
            "n": part["n"],
        }
    ).reset_index(drop=True)


def _objective_rows(contrasts: pd.DataFrame, estimators: Sequence[str]) -> pd.DataFrame:
    part = contrasts[
        (contrasts["kind"] == "objectives") & contrasts["estimator"].isin(list(estimators))
    ]
    return part.assign(unit=part["unit"])[
        ["unit", "estimator", "difference", "low", "high"]
    ].reset_index(drop=True)


def _overconfidence(evidence: Evidence, quantifier, what: str) -> Judgement:
    models = quantifier(
        Evidence(evidence.frame, evidence.source, evidence.missing),
        ">",
        0.0,
        what=what,
        unit="model-estimator",
    )
    objectives = quantifiers.every(
        _part(evidence, "objectives", f"the comparison of MLMs with CLMs needs {NEEDS_BOTH}"),
        ">",
        0.0,
        what="mean signed gap of the MLMs - of the CLMs",
        unit="comparison",
    )
    return _combine([("the models", models), ("MLMs against CLMs", objectives)])


def overconfident_rule(evidence: Evidence) -> Judgement:
    """``overconfident``: C_Base's signed gap (mean confidence - accuracy) above 0 for most
    models, and the MLMs' mean gap above the CLMs'."""
    return _overconfidence(
        evidence, quantifiers.most, "mean C_Base - accuracy (signed calibration gap)"
    )


def intrinsic_overconfident_rule(evidence: Evidence) -> Judgement:
    """``intrinsic_overconfident``: the signed gap of C_Base and of C_Margin above 0 for every
    model ("consistently"), and the MLMs' mean gap above the CLMs' for both."""
    return _overconfidence(
        evidence, quantifiers.every, "mean confidence - accuracy of C_Base and C_Margin"
    )


def _gap_build(estimators: Sequence[str]):
    def build(result: CalibrationResult) -> Evidence:
        return Evidence(
            _gap_rows(result.gaps, estimators),
            "this build, signed gap with its 95% BCa interval over facts; MLMs - "
            "CLMs: 95% paired bootstrap over facts",
            frames={"objectives": _objective_rows(result.contrasts, estimators)},
        )

    return build


def base_overconfident_rule(evidence: Evidence) -> Judgement:
    """``base_overconfident``: C_Base's signed gap above 0 for every model."""
    return quantifiers.every(evidence, ">", 0.0, what="mean C_Base - accuracy", unit="model")


def base_overconfident_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _gap_rows(result.gaps, ["Base"]),
        "this build, signed gap with its 95% BCa interval over facts",
    )


# -- where the curves start and Margin's low range (§5.1) ---------------------------------------


def base_low_range_rule(evidence: Evidence) -> Judgement:
    """``base_low_range``: the lowest curve bin of C_Base lies at a higher confidence than
    C_Margin's (Margin extends the curve lower), for every model."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="mean confidence of the lowest curve bin, C_Base - C_Margin",
        unit="model",
    )


def base_low_range_build(result: CalibrationResult) -> Evidence:
    low = result.lowest
    return Evidence(
        low.assign(unit=low["model"])[
            ["unit", "difference", "low", "high", "lowest_a", "lowest_b", "n"]
        ],
        f"this build, {result.params.curve_bins} quantile bins, 95% paired "
        f"bootstrap over facts (bias-centred)",
    )


def margin_underconfident_low_rule(evidence: Evidence) -> Judgement:
    """``margin_underconfident_low``: among the instances whose C_Margin lies in the low range,
    mean confidence below accuracy (signed gap below 0) for most models."""
    lo, hi = LOW_RANGE
    return quantifiers.most(
        evidence,
        "<",
        0.0,
        what=f"signed gap of C_Margin on confidences in [{lo:g}, {hi:g})",
        unit="model",
    )


def margin_underconfident_low_build(result: CalibrationResult) -> Evidence:
    r = result.gap_ranges
    part = r[
        (r["estimator"] == "Margin")
        & np.isclose(r["range_low"], LOW_RANGE[0])
        & np.isclose(r["range_high"], LOW_RANGE[1])
    ].set_index("model")
    rows = []
    for model in result.models["model"]:
        if model in part.index:
            row = part.loc[model]
            rows.append(
                {
                    "unit": model,
                    "difference": row["gap"],
                    "low": row["gap_low"],
                    "high": row["gap_high"],
                    "n": int(row["n"]),
                }
            )
        else:  # no instance in the range: nothing to judge
            rows.append(
                {"unit": model, "difference": np.nan, "low": np.nan, "high": np.nan, "n": 0}
            )
    return Evidence(
        pd.DataFrame(rows, columns=["unit", "difference", "low", "high", "n"]),
        "this build, signed gap of the instances in the range, 95% BCa interval over them",
    )


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="overconfident",
        paper="kissling2026",
        section="Abstract, §7",
        quote="most models, but especially those pre-trained with the masking objective, are "
        "overconfident",
        statement="Most models are overconfident (C_Base's mean confidence above its "
        "accuracy), and the masked models more so than the causal ones (the MLMs' "
        "mean signed gap above the CLMs')",
        quantifier="most",
        metrics=("gap",),
        about="every model; CLMs against MLMs",
        chapter="calibration",
        rule=overconfident_rule,
        paper_evidence=None,
        build_evidence=_gap_build(["Base"]),
        paper_note="the paper prints no signed measure: over- and underconfidence are read "
        "off Figure 2's curves, which print no numbers (Table 1's ACE and Brier "
        "are unsigned)",
        needs=NEEDS_BOTH,
    ),
    Claim(
        key="intrinsic_overconfident",
        paper="kissling2026",
        section="§7",
        quote="logit-based intrinsic confidences are consistently overconfident, a tendency "
        "more pronounced in MLMs",
        statement="C_Base and C_Margin are overconfident for every model (signed gap above "
        "0), and more so for the MLMs than for the CLMs",
        quantifier="every",
        metrics=("gap",),
        about="every model; CLMs against MLMs",
        chapter="calibration",
        rule=intrinsic_overconfident_rule,
        paper_evidence=None,
        build_evidence=_gap_build(["Base", "Margin"]),
        paper_note="the paper prints no signed measure (Figure 2 prints no numbers)",
        needs=NEEDS_BOTH,
    ),
    Claim(
        key="base_overconfident",
        paper="kissling2026",
        section="§5.1",
        quote="where we see that $C_{\\text{Base}}$ is markedly overconfident",
        statement="C_Base is overconfident (mean confidence above accuracy) for every model",
        quantifier="every",
        metrics=("gap",),
        about="every model (Figure 2 shows some)",
        chapter="calibration",
        rule=base_overconfident_rule,
        paper_evidence=None,
        build_evidence=base_overconfident_build,
        paper_note="Figure 2 prints no numbers",
        needs=ANY_MODEL,
    ),
    Claim(
        key="base_low_range",
        paper="kissling2026",
        section="§5.1",
        quote="For all models included in Figure 2, $C_{\\text{Base}}$ does not produce "
        "enough scores in the lower confidence ranges to derive a calibration curve "
        "that covers the full $[0,1]$ interval. $C_{\\text{Margin}}$, however, does "
        "extend the curve into these lower confidence regions",
        statement="C_Base's calibration curve starts at a higher confidence than C_Margin's "
        "(the mean confidence of its lowest of 20 quantile bins is higher), for "
        "every model",
        quantifier="every",
        metrics=("confidence",),
        about="every model (Figure 2 shows some)",
        chapter="calibration",
        rule=base_low_range_rule,
        paper_evidence=None,
        build_evidence=base_low_range_build,
        paper_note="Figure 2 prints no numbers",
        needs=ANY_MODEL,
    ),
    Claim(
        key="margin_underconfident_low",
        paper="kissling2026",
        section="§5.1",
        quote="$C_{\\text{Margin}}$ can introduce underconfidence in the lower range of the "
        "confidence scores, pushing the calibration curve above the identity line",
        statement="Among the instances with a C_Margin below 0.25, C_Margin is "
        'underconfident (mean confidence below accuracy) for most models ("can '
        'introduce": a tendency, not every model)',
        quantifier="most",
        metrics=("gap",),
        about="every model (Figure 2 shows some)",
        chapter="calibration",
        rule=margin_underconfident_low_rule,
        paper_evidence=None,
        build_evidence=margin_underconfident_low_build,
        paper_note="Figure 2 prints no numbers",
        needs=ANY_MODEL,
    ),
)
