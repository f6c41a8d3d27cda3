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
from calib.confidence.metrics import N_BINS
from calib.confidence.reliability import wilson_interval
from calib.experiments import quantifiers
from calib.experiments.calibration.claims.evidence import ANY_MODEL, NEEDS_BOTH, _part
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement, combine

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
    return combine([("the models", models), ("MLMs against CLMs", objectives)])


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


#: the ends of "the entire range" of a calibration curve: its outer fifths, below 0.2 and from
#: 0.8 (calib's reading of "the full [0,1] interval")
LOW_END, HIGH_END = 0.2, 0.8
#: the share of the scores one of the curves' 20 quantile bins holds: a range with fewer scores
#: has no bin of its own, so the curve does not reach into it
ONE_BIN = 1 / N_BINS


def base_low_range_rule(evidence: Evidence) -> Judgement:
    """``base_low_range``: C_Base does not produce enough scores in the low range to derive a
    curve there: the share of its confidences below 0.2 is below 1/20, the share of one of the
    curve's 20 quantile bins (so no bin lies below 0.2), for every model."""
    return quantifiers.every(
        evidence,
        "<",
        ONE_BIN,
        what=f"share of C_Base's confidences below {LOW_END:g}",
        unit="model",
    )


def _share_rows(result: CalibrationResult, estimator: str, low: float, high: float) -> pd.DataFrame:
    """Per model the share of ``estimator``'s confidences in ``[low, high)`` (from the
    histogram of the reliability diagram, 0.05-wide bins) with its 95% Wilson interval over
    the facts."""
    h = result.reliability_histogram
    h = h[h["estimator"] == estimator]
    rows = []
    for model, part in h.groupby("model", sort=False):
        inside = (part["lower"] >= low - 1e-9) & (part["upper"] <= high + 1e-9)  # whole bins
        k, n = int(part.loc[inside, "count"].sum()), int(part["count"].sum())
        lo, hi = wilson_interval(k, n)
        rows.append(
            {
                "unit": f"{model}, {estimator} in [{low:g}, "
                + (f"{high:g})" if high < 1 else "1]"),
                "model": model,
                "estimator": estimator,
                "difference": k / n if n else np.nan,
                "low": float(lo),
                "high": float(hi),
                "n": n,
            }
        )
    return pd.DataFrame(
        rows, columns=["unit", "model", "estimator", "difference", "low", "high", "n"]
    )


#: where the shares of confidences come from
SHARES = "this build, share of the confidences with its 95% Wilson interval over facts"


def base_low_range_build(result: CalibrationResult) -> Evidence:
    return Evidence(_share_rows(result, "Base", 0.0, LOW_END), SHARES)


def margin_full_range_rule(evidence: Evidence) -> Judgement:
    """``margin_full_range``: C_Margin extends the curve over the entire range: at least 1/20
    of its confidences (one quantile bin's worth) lie below 0.2 and at least 1/20 at or above
    0.8 ("enough high-confidences"), for every model (each model-end a unit)."""
    return quantifiers.every(
        evidence,
        ">=",
        ONE_BIN,
        what=f"share of C_Margin's confidences below {LOW_END:g} or from {HIGH_END:g}",
        unit="model-end",
    )


def margin_full_range_build(result: CalibrationResult) -> Evidence:
    rows = pd.concat(
        [
            _share_rows(result, "Margin", 0.0, LOW_END),
            _share_rows(result, "Margin", HIGH_END, 1.0),
        ],
        ignore_index=True,
    )
    return Evidence(rows, SHARES)


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
        headline=True,
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
        "that covers the full $[0,1]$ interval.",
        statement=f"For every model, fewer than 1/{N_BINS} of C_Base's confidences (the "
        f"share of one of the curve's {N_BINS} quantile bins) lie below {LOW_END:g}, "
        f"so its curve has no point there (calib's reading of the lower range: the "
        f"curve's lowest fifth)",
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
        key="margin_full_range",
        paper="kissling2026",
        section="§5.1",
        quote="$C_{\\text{Margin}}$, however, does extend the curve into these lower "
        "confidence regions without limiting the model’s ability to output enough "
        "high-confidences, allowing for evaluation across the entire range.",
        statement=f"For every model, at least 1/{N_BINS} of C_Margin's confidences (one "
        f"quantile bin's worth) lie below {LOW_END:g} and at least 1/{N_BINS} at or "
        f"above {HIGH_END:g}: its curve reaches into both outer fifths of [0, 1] "
        f'(calib\'s reading of "the entire range")',
        quantifier="every",
        metrics=("confidence",),
        about="every model (Figure 2 shows some)",
        chapter="calibration",
        rule=margin_full_range_rule,
        paper_evidence=None,
        build_evidence=margin_full_range_build,
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
