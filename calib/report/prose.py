"""Sentences generated from numbers, so that a chapter never asserts what its results do not show.

A comparison is worded from a paired bootstrap result
(:func:`calib.confidence.bootstrap.paired_difference`): it says "lower"/"higher" only when the
interval of the difference excludes 0, and says that the run cannot tell them apart otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from calib.experiments.quantifiers import floor_split
from calib.experiments.verdicts import AGREEMENT, Verdict

METRIC_NAMES = {
    "ace": "ACE",
    "brier": "Brier score",
    "accuracy": "accuracy",
    "ece": "ECE",
    "mce": "MCE",
    "rms": "RMS calibration error",
    "auroc": "AUROC",
    "aurc": "AURC",
    "gap": "signed calibration gap",
    "H": "H (harmonic mean of accuracy and 1 - ACE)",
}
#: for these metrics a lower value is better (the signed gap has no better direction: use
#: :func:`change_sentence`)
LOWER_IS_BETTER = {"ace", "brier", "ece", "mce", "rms", "aurc"}


def fmt(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


def _difference(diff: Mapping) -> str:
    return (
        f"difference {fmt(diff['difference'])}, 95% interval [{fmt(diff['low'])}, "
        f"{fmt(diff['high'])}]"
    )


def compare_sentence(a: str, b: str, diff: Mapping, subject: str = "") -> str:
    """One sentence comparing ``a`` with ``b`` from a paired-difference result (``metric``,
    ``difference`` = a - b, ``low``, ``high``; see
    :func:`calib.confidence.bootstrap.paired_difference`). A floor-corrected ACE comparison
    (:func:`calib.experiments.floors.floor_corrected_differences`) gives both intervals and
    says "better" or "worse" only where both decide alike, as the claims' judge does
    (:func:`calib.experiments.quantifiers.floor_split`)."""
    metric = diff["metric"]
    name = METRIC_NAMES.get(metric, metric)
    where = f" for {subject}" if subject else ""
    interval = _difference(diff)
    if diff.get("floor_corrected") is True or diff.get("floor_corrected") == 1:
        raw = {
            "difference": diff["raw_difference"],
            "low": diff["raw_low"],
            "high": diff["raw_high"],
        }
        interval = f"raw {_difference(raw)}; with each noise floor taken out {interval}"
        split = floor_split(pd.DataFrame([dict(diff)]), "<", 0.0).iloc[0]
        if split:
            return (
                f"This sample cannot decide whether {a} or {b} has the lower {name}{where} "
                f"({interval}): the raw and the floor-corrected differences do not agree, so "
                f"the floors, an artefact of the sample size, would make the verdict."
            )
    if diff["low"] > 0 or diff["high"] < 0:
        direction = "higher" if diff["difference"] > 0 else "lower"
        better = (direction == "lower") == (metric in LOWER_IS_BETTER)
        verdict = "better" if better else "worse"
        return (
            f"{a} has a {direction} {name} than {b}{where} ({interval}): {verdict} on this sample."
        )
    return (
        f"This run cannot tell {a} and {b} apart by {name}{where} ({interval}, which includes 0)."
    )


def agreement_sentence(claim: str, verdict: Verdict | str, evidence: str) -> str:
    """State a run's verdict on a claim of the paper: "The paper reports that <claim>; this run
    agrees (<evidence>)." -- the one wording, by verdict
    (:data:`calib.experiments.verdicts.AGREEMENT`)."""
    return f"The paper reports that {claim}; {AGREEMENT[Verdict(verdict)]} ({evidence})."


def change_sentence(a: str, b: str, diff: Mapping, quantity: str, subject: str = "") -> str:
    """One neutral sentence on a paired difference ``a - b`` (keys ``difference``, ``low``,
    ``high``) of a ``quantity`` that has no better direction (e.g. mean confidence): "lower" or
    "higher" only when the interval excludes 0."""
    where = f" for {subject}" if subject else ""
    interval = _difference(diff)
    if diff["low"] > 0 or diff["high"] < 0:
        direction = "higher" if diff["difference"] > 0 else "lower"
        return f"{a} gives a {direction} {quantity} than {b}{where} ({interval})."
    return (
        f"This run shows no change in {quantity} between {a} and {b}{where} ({interval}, "
        f"which includes 0)."
    )


def correlation_sentence(x: str, y: str, result: Mapping, subject: str = "") -> str:
    """One sentence on a correlation with its interval (keys ``r``, ``low``, ``high``, ``n``;
    see :func:`calib.confidence.bootstrap.correlation_interval`): its sign is asserted only when
    the interval excludes 0."""
    where = f" ({subject})" if subject else ""
    numbers = (
        f"r = {fmt(result['r'], 2)}, 95% interval [{fmt(result['low'], 2)}, "
        f"{fmt(result['high'], 2)}], {result['n']} models"
    )
    if result["low"] > 0 or result["high"] < 0:
        sign = "positively" if result["r"] > 0 else "negatively"
        return f"Across models{where}, {y} is {sign} correlated with {x} ({numbers})."
    return (
        f"Across models{where}, the correlation of {y} with {x} cannot be told apart from "
        f"0 ({numbers}; the interval includes 0)."
    )


def sample_size_sentence(
    n: int, unit: str = "BEAR facts", per: str = "model", detail: str = "", n_bins: int | None = 20
) -> str:
    """How many facts stand behind each number of a chapter: "Each number on this page rests
    on **180 BEAR facts** per model (detail); ACE's 20 equal-count bins hold about 9 each."
    ``n_bins=None`` leaves out the bins (a chapter without ACE)."""
    where = f" ({detail})" if detail else ""
    text = f"Each number on this page rests on **{n:,} {unit}** per {per}{where}"
    if n_bins:
        per_bin = n / n_bins
        if per_bin < 1:
            text += (
                f"; that is fewer than ACE's {n_bins} equal-count bins, so some bins are "
                f"empty and dropped"
            )
        else:
            shown = f"{per_bin:.0f}" if per_bin == int(per_bin) else f"about {per_bin:.1f}"
            text += f"; the {n_bins} equal-count bins of ACE hold {shown} each"
    return text + "."
