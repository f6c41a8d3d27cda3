"""The claims of Appendix C (Kissling et al. 2026) tested by the reductions chapter: each rule,
its evidence from the authors' numbers and from this build's result, and ``CLAIMS``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from calib.confidence.bootstrap import correlation_interval
from calib.confidence.reductions import REDUCTIONS
from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.floors import floor_corrected_differences
from calib.experiments.paper_tables import text_value
from calib.experiments.quantifiers import Evidence
from calib.experiments.reductions.distributions import UPPER_QUANTILE
from calib.experiments.reductions.tables import (
    MEANS,
    OBJECTIVES,
    REDUCTION_LABELS,
    SUMS,
    authors_means,
)
from calib.experiments.verdicts import TOO_SMALL, UNDECIDED, Judgement, combine

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
    (``mean_reduction_opt13b_max`` of the paper's text numbers). On all of BEAR the largest
    value is known (``low == high``) and decides it either way; on a sample the largest value of
    all of BEAR is only bounded from below (``[sample max, 1]``), so a sample can refute the
    claim but never confirm it: where it does not refute it the verdict is "cannot be decided at
    this size", with all of BEAR (the frame's ``n_all`` facts against its ``n``) to decide it."""
    judged = quantifiers.every(
        evidence,
        "<=",
        text_value("mean_reduction_opt13b_max"),
        what="largest C_Base under Mean",
        unit="model",
        required=(FIGURE8_MODEL,),
    )
    frame = evidence.frame
    if judged.verdict != UNDECIDED or "n_all" not in frame.columns:
        return judged
    n, n_all = float(frame["n"].iloc[0]), float(frame["n_all"].iloc[0])
    return Judgement(
        TOO_SMALL,
        judged.evidence,
        "a sample's largest confidence can show that some confidence of all of BEAR exceeds "
        "0.5, never that none does: only all of BEAR decides the claim",
        units=judged.units,
        correction=judged.correction,
        decide_factor=n_all / n if n > 0 else None,
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
        {
            "unit": [FIGURE8_MODEL],
            "difference": [top],
            "low": [top],
            "high": [high],
            "n": [int(shape["n"].iloc[0])],
            "n_all": [int(text_value("bear_instances"))],
        }
    )
    where = (
        "all of BEAR"
        if result.params.all_of_bear
        else "a sample of BEAR: the largest confidence of all of BEAR is at least this"
    )
    return Evidence(frame, f"this build, {where}")


# mean_caps_confidence: "the choice of reduction strategy itself limits the model's ability to
# express high confidences"


def mean_caps(evidence: Evidence) -> Judgement:
    """``mean_caps_confidence``: for every model the 99th percentile of C_Base
    (:data:`~calib.experiments.reductions.distributions.UPPER_QUANTILE`) under Mean and under
    Mean (A) is lower than under Sum: every model-reduction's paired difference of the
    percentiles below 0 (a percentile, not the largest value, which no sample bounds); does not
    hold when one lies above 0 after Holm's correction over the units."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what=f"{UPPER_QUANTILE:.0%} percentile of C_Base (Mean variant) - (Sum)",
        unit="model-reduction",
    )


def mean_caps_build(result: ReductionsResult) -> Evidence:
    d = result.percentile_differences
    if d.empty:
        return Evidence.empty("this build's result has no percentile differences")
    frame = d.assign(unit=d["model"] + ": " + d["a"].map(_label) + " vs " + d["b"].map(_label))
    return Evidence(
        frame.reset_index(drop=True),
        f"this build, 95% paired percentile bootstrap over facts "
        f"({result.params.n_bootstrap} resamples)",
    )


# mean_ace_depends_on_accuracy: "artificially low calibration errors, especially for
# low-accuracy models. For high-accuracy models, however, the effect is reversed"

#: the seed and resamples of the bootstrap over models behind the correlation
CORRELATION_BOOTSTRAP = (0, 2000)


def mean_ace_by_accuracy(evidence: Evidence) -> Judgement:
    """``mean_ace_depends_on_accuracy``: Mean's effect on ACE grows with accuracy and turns
    round at the top. Two parts, combined by :func:`calib.experiments.verdicts.combine`: the
    Pearson correlation across models of ``ACE(Mean) - ACE(Sum)`` with the model's accuracy
    under Sum is above 0 (its 95% interval from a bootstrap over models: ``frames["correlation"]``),
    and for the most accurate model ``ACE(Mean) - ACE(Sum)`` is above 0 (the reversal: its
    calibration error increases under Mean; the evidence's frame, one row). Either part against
    its direction makes the claim not hold."""
    corr = evidence.frames.get("correlation")
    if evidence.frame.empty or corr is None or corr.empty:
        return Judgement.untestable(
            evidence.missing or "the evidence has no correlation over models"
        )
    return combine(
        [
            (
                "correlation with accuracy",
                quantifiers.every(
                    Evidence(corr, evidence.source, sample="models"),
                    ">",
                    0.0,
                    what="Pearson r of ACE(Mean) - ACE(Sum) with accuracy (Sum), across models",
                    unit="correlation",
                ),
            ),
            (
                "the most accurate model",
                quantifiers.every(
                    evidence,
                    ">",
                    0.0,
                    what="ACE(Mean) - ACE(Sum) of the most accurate model",
                    unit="model",
                ),
            ),
        ]
    )


def _by_accuracy_evidence(
    d: pd.DataFrame, accuracy: pd.Series, source: str, printed_values: bool
) -> Evidence:
    """The two parts' evidence from per-model differences ``d`` (``model``, ``difference``,
    ``low``, ``high``) and accuracies under Sum (by model)."""
    d = d.assign(accuracy=d["model"].map(accuracy)).dropna(subset=["accuracy"])
    if len(d) < 3:
        return Evidence.empty(
            f"a correlation across models needs 3 or more models; this evidence has {len(d)}",
            source,
        )
    seed, n_boot = CORRELATION_BOOTSTRAP
    c = correlation_interval(d["accuracy"], d["difference"], n_boot=n_boot, seed=seed)
    corr = pd.DataFrame(
        {
            "unit": [f"r over {len(d)} models"],
            "difference": [c["r"]],
            "low": [c["low"]],
            "high": [c["high"]],
        }
    )
    top = d.loc[[d["accuracy"].idxmax()]]
    top = top.assign(unit=top["model"] + f" (accuracy {float(top['accuracy'].iloc[0]):.3f})")
    cols = ["unit", "model", "accuracy", "difference", "low", "high"]
    if printed_values:
        top = top.assign(rounding=0.0)  # the repository's values, unrounded
    return Evidence(
        top[[*cols, *(["rounding"] if printed_values else [])]].reset_index(drop=True),
        source,
        frames={"correlation": corr},
    )


def mean_ace_by_accuracy_paper() -> Evidence:
    repo = reported("kissling2026_repo_reduction_strategies")
    wide = repo.pivot_table(
        index="registry_name", columns="reduction_label", values=["ace", "accuracy"]
    )
    diff = (wide["ace"]["Mean"] - wide["ace"]["Sum"]).rename("difference")
    d = diff.reset_index().rename(columns={"registry_name": "model"})
    d = d.assign(low=d["difference"], high=d["difference"])
    return _by_accuracy_evidence(
        d,
        wide["accuracy"]["Sum"],
        "the authors' repository's per-model values (the earlier version's 16 models), the "
        "correlation's 95% interval from a bootstrap over the models",
        printed_values=True,
    )


def mean_ace_by_accuracy_build(result: ReductionsResult) -> Evidence:
    d = result.model_differences
    if d.empty:
        return Evidence.empty("this build's result has no per-model differences")
    d = d[(d["a"] == "mean") & (d["b"] == "sum")].assign(metric="ace")
    floors = result.table.rename(columns={"reduction": "estimator"})
    d = floor_corrected_differences(d, floors, keys=("model",))
    t = result.table[result.table["reduction"] == "sum"].set_index("model")["accuracy"]
    return _by_accuracy_evidence(
        d,
        t,
        "this build: ACE(Mean) - ACE(Sum) per model floor-corrected (calib.experiments.floors), "
        "95% paired bootstrap over facts; the correlation's 95% interval from a bootstrap over "
        "the models",
        printed_values=False,
    )


CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="sum_reduction",
        headline=True,
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
        paper_source="authors' repository",
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
        paper_source="authors' repository",
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
        statement="Under the Mean reduction no C_Base of opt-1.3b on BEAR exceeds 0.5 (only "
        "all of BEAR can show it; a sample can only refute it)",
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
    Claim(
        key="mean_caps_confidence",
        paper="kissling2026",
        section="Appendix C",
        quote="Moreover, the choice of reduction strategy itself limits the model’s ability to "
        "express high confidences.",
        statement=f"For every model the {UPPER_QUANTILE:.0%} percentile of C_Base is lower "
        f"under Mean and under Mean (A) than under Sum",
        quantifier="every",
        metrics=("confidence",),
        about="every model (Figure 8 shows opt-1.3b)",
        chapter="reductions",
        rule=mean_caps,
        paper_evidence=None,
        build_evidence=mean_caps_build,
        paper_note="Figure 8 shows opt-1.3b's distributions without numbers, and the authors' "
        "repository stores no confidences",
        needs="any model on BEAR",
    ),
    Claim(
        key="mean_ace_depends_on_accuracy",
        paper="kissling2026",
        section="Appendix C",
        quote="For high-accuracy models, however, the effect is reversed: "
        "calibration error increases because confidences remain too low despite correct "
        "predictions.",
        statement="Mean's change of ACE against Sum grows with accuracy (Pearson r across "
        "models above 0) and turns round at the top: the most accurate model's ACE is "
        "higher under Mean than under Sum",
        quantifier="comparison",
        metrics=("ace", "accuracy"),
        about="the models (a correlation across them needs 3 or more)",
        chapter="reductions",
        rule=mean_ace_by_accuracy,
        paper_evidence=mean_ace_by_accuracy_paper,
        build_evidence=mean_ace_by_accuracy_build,
        paper_note="Figure 8 prints no numbers: the paper's side is computed from the per-model "
        "accuracy and ACE the authors' repository stores for the earlier version's 16 "
        "models (kissling2026_repo_reduction_strategies)",
        paper_source="authors' repository",
        needs="three or more models on BEAR, one of them of high accuracy: `calib book "
        "--profile paper`",
    ),
)
