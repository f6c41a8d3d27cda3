"""The claims of Appendix C (Kissling et al. 2026) tested by the reductions chapter: each rule,
its evidence from the authors' numbers and from this build's result, and ``CLAIMS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from calib.confidence.reductions import REDUCTIONS
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import text_value
from calib.experiments.quantifiers import Evidence
from calib.experiments.reductions.tables import (
    MEANS,
    OBJECTIVES,
    REDUCTION_LABELS,
    SUMS,
    authors_means,
)
from calib.experiments.verdicts import Judgement

if TYPE_CHECKING:
    from calib.experiments.reductions import ReductionsResult

#: a distribution counts as strongly right-skewed above this sample skewness (the usual convention,
#: e.g. Bulmer 1979, Principles of Statistics: an absolute skewness above 1 is "highly skewed")
STRONG_SKEW = 1.0
#: the model of Figure 8
FIGURE8_MODEL = "opt-1.3b"


# ---------------------------------------------------------------------------------------------
# the claims of Appendix C: evidence from the authors' numbers and from this build, and rules

#: where the paper's evidence for Figure 7 comes from
AUTHORS_NOTE = (
    "Figure 7 prints no numbers: the paper's side is computed from the per-model "
    "values the authors' repository stores for the paper's earlier version (16 "
    "models, kissling2026_repo_reduction_strategies), averaged as Figure 7 does"
)
BUILD_SOURCE = "this build, mean over the objective's models, 95% paired bootstrap over facts"


def _label(r: str) -> str:
    return REDUCTION_LABELS.get(r, r)


def _pair_units(frame: pd.DataFrame) -> pd.DataFrame:
    """Evidence rows of :func:`~calib.experiments.reductions.tables.objective_differences`-shaped
    frames: ``unit`` = "CLMs: Sum vs Mean (H)"."""
    units = [
        f"{o.upper()}s: {_label(a)} vs {_label(b)}" + (f" ({m})" if m != "H" else "")
        for o, a, b, m in zip(frame["objective"], frame["a"], frame["b"], frame["metric"])
    ]
    return frame.assign(unit=units)[["unit", *[c for c in frame.columns if c != "unit"]]]


def _authors_differences(pairs: Sequence[tuple[str, str]], metrics: Sequence[str]) -> pd.DataFrame:
    """:func:`~calib.experiments.reductions.tables.objective_differences`-shaped rows from
    :func:`~calib.experiments.reductions.tables.authors_means` (printed values:
    ``low == high == difference``)."""
    means = authors_means().set_index(["objective", "reduction", "metric"])["value"]
    rows = []
    for metric in metrics:
        for obj in OBJECTIVES:
            for a, b in pairs:
                d = float(means[(obj, a, metric)] - means[(obj, b, metric)])
                rows.append(
                    {
                        "objective": obj,
                        "a": a,
                        "b": b,
                        "metric": metric,
                        "difference": d,
                        "low": d,
                        "high": d,
                    }
                )
    return pd.DataFrame(rows)


# sum_reduction: "it resulted in highest H scores for both CLMs and MLMs"

SUM_PAIRS = tuple(("sum", r) for r in REDUCTIONS if r != "sum")


def sum_highest_h(evidence: Evidence) -> Judgement:
    """Sum's mean H is higher than every other reduction's, for CLMs and for MLMs: every
    (objective, other reduction) difference ``H(Sum) - H(other)`` above 0; both objectives
    required."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="mean H(Sum) - mean H(other reduction)",
        unit="objective-reduction pair",
        required=OBJECTIVES,
        required_in="objective",
    )


def sum_highest_h_paper() -> Evidence:
    return Evidence(
        _pair_units(_authors_differences(SUM_PAIRS, ["H"])),
        "authors' repository values, no interval",
    )


def sum_highest_h_build(result: ReductionsResult) -> Evidence:
    missing = [o.upper() for o in OBJECTIVES if o not in set(result.objectives.values())]
    return Evidence(
        _pair_units(result.h_differences),
        BUILD_SOURCE,
        missing=f"this build has no {' or '.join(missing)}" if missing else "",
    )


# mean_trades_accuracy: Mean and Mean (A) lower ACE than the sums, with lower accuracy

MEAN_PAIRS = tuple((m, s) for m in MEANS for s in SUMS)


def mean_trades_accuracy(evidence: Evidence) -> Judgement:
    """Mean and Mean (A) have a lower mean ACE than Sum and Sum (A), and a lower mean accuracy,
    for CLMs and for MLMs: every (objective, mean variant, sum variant, metric) difference
    below 0; both objectives required."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="mean metric(Mean variant) - mean metric(summation variant)",
        unit="comparison",
        required=OBJECTIVES,
        required_in="objective",
    )


def mean_trades_accuracy_paper() -> Evidence:
    return Evidence(
        _pair_units(_authors_differences(MEAN_PAIRS, ["ace", "accuracy"])),
        "authors' repository values, no interval",
    )


def mean_trades_accuracy_build(result: ReductionsResult) -> Evidence:
    missing = [o.upper() for o in OBJECTIVES if o not in set(result.objectives.values())]
    return Evidence(
        _pair_units(result.mean_vs_sum),
        BUILD_SOURCE,
        missing=(f"this build has no {' or '.join(missing)}" if missing else ""),
    )


# mean_right_skewed: "mean reduction yields strongly right-skewed confidence distributions"


def mean_right_skewed(evidence: Evidence) -> Judgement:
    """Under the Mean reduction, every model's Base-Confidence distribution has a sample
    skewness above :data:`STRONG_SKEW` (strongly right-skewed)."""
    return quantifiers.every(
        evidence, ">", STRONG_SKEW, what="skewness of C_Base under Mean", unit="model"
    )


def mean_right_skewed_build(result: ReductionsResult) -> Evidence:
    shape = result.shape[result.shape["reduction"] == "mean"]
    frame = shape.rename(
        columns={
            "model": "unit",
            "skewness": "difference",
            "skewness_low": "low",
            "skewness_high": "high",
        }
    )
    return Evidence(
        frame[["unit", "difference", "low", "high", "n"]].reset_index(drop=True),
        f"this build, 95% BCa bootstrap interval over facts "
        f"({result.params.n_bootstrap} resamples)",
    )


# mean_max_half: "Under full-sequence mean reduction, the confidences of opt-1.3b do not exceed
# 0.5."


def mean_max_half(evidence: Evidence) -> Judgement:
    """The largest C_Base of opt-1.3b under the Mean reduction is at most 0.5
    (``mean_reduction_opt13b_max`` of the paper's text numbers)."""
    return quantifiers.every(
        evidence,
        "<=",
        text_value("mean_reduction_opt13b_max"),
        what="largest C_Base under Mean",
        unit="model",
        required=(FIGURE8_MODEL,),
    )


def mean_max_half_build(result: ReductionsResult) -> Evidence:
    """The largest confidence of opt-1.3b under Mean. On all of BEAR it is the value itself
    (``low == high``); on a sample the population's maximum is at least the sample's, so the
    interval is ``[sample max, 1]``: a sample can show the claim false, never true."""
    shape = result.shape[
        (result.shape["reduction"] == "mean") & (result.shape["model"] == FIGURE8_MODEL)
    ]
    if shape.empty:
        return Evidence.empty(
            f"{FIGURE8_MODEL} is not among this build's models ({', '.join(result.params.models)})"
        )
    top = float(shape["max"].iloc[0])
    high = top if result.params.all_of_bear else 1.0
    frame = pd.DataFrame(
        {"unit": [FIGURE8_MODEL], "difference": [top], "low": [top], "high": [high]}
    )
    where = (
        "all of BEAR"
        if result.params.all_of_bear
        else "a sample of BEAR: the largest confidence of all of BEAR is at least this"
    )
    return Evidence(frame, f"this build, {where}")


CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="sum_reduction",
        paper="kissling2026",
        section="Appendix C",
        quote="as it resulted in highest $H$ scores for both CLMs and MLMs",
        statement="Sum has the highest mean H of the four reductions, for the CLMs and for "
        "the MLMs (Figure 7's means per objective)",
        quantifier="every",
        metrics=("H",),
        about="CLMs and MLMs (each objective's mean)",
        chapter="reductions",
        rule=sum_highest_h,
        paper_evidence=sum_highest_h_paper,
        build_evidence=sum_highest_h_build,
        paper_note=AUTHORS_NOTE,
        needs="causal and masked models in one build (the quick profile's tiny models, or "
        "`calib book --profile paper`)",
    ),
    Claim(
        key="mean_trades_accuracy",
        paper="kissling2026",
        section="Appendix C",
        quote="$Mean$ and Mean (A) do result in better calibration scores than the summation "
        "variants, however this comes with a significant decrease in accuracy",
        statement="Mean and Mean (A) have a lower mean ACE than Sum and Sum (A), and a lower "
        "mean accuracy, for the CLMs and for the MLMs",
        quantifier="every",
        metrics=("ace", "accuracy"),
        about="CLMs and MLMs (each objective's mean)",
        chapter="reductions",
        rule=mean_trades_accuracy,
        paper_evidence=mean_trades_accuracy_paper,
        build_evidence=mean_trades_accuracy_build,
        paper_note=AUTHORS_NOTE,
        needs="causal and masked models in one build (the quick profile's tiny models, or "
        "`calib book --profile paper`)",
    ),
    Claim(
        key="mean_right_skewed",
        paper="kissling2026",
        section="Appendix C",
        quote="mean reduction yields strongly right-skewed confidence distributions",
        statement=f"Under the Mean reduction the distribution of C_Base is strongly "
        f"right-skewed (sample skewness above {STRONG_SKEW:g}) for every model",
        quantifier="every",
        metrics=("confidence",),
        about="every model (Figure 8 shows opt-1.3b)",
        chapter="reductions",
        rule=mean_right_skewed,
        paper_evidence=None,
        build_evidence=mean_right_skewed_build,
        paper_note="Figure 8 prints no numbers (histograms of opt-1.3b), and the authors' "
        "repository stores no confidence distribution",
        needs="any model on BEAR",
    ),
    Claim(
        key="mean_max_half",
        paper="kissling2026",
        section="Appendix C",
        quote="Under full-sequence mean reduction, the confidences of opt-1.3b do not exceed 0.5.",
        statement="Under the Mean reduction no C_Base of opt-1.3b on BEAR exceeds 0.5",
        quantifier="one model",
        metrics=("confidence",),
        about="opt-1.3b",
        chapter="reductions",
        rule=mean_max_half,
        paper_evidence=None,
        build_evidence=mean_max_half_build,
        paper_note="Figure 8 prints no numbers (a histogram), and the authors' repository "
        "stores no confidences of opt-1.3b",
        needs="opt-1.3b on all of BEAR: `calib run reductions -p models '[\"opt-1.3b\"]' -p "
        "per_relation null` where the hub is reachable, or `calib book --profile "
        "paper`",
    ),
)
