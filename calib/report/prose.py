"""Sentences generated from numbers, so that a chapter never asserts what its results do not show.

A comparison is worded from a paired bootstrap result
(:func:`calib.confidence.bootstrap.paired_difference`): it says "lower"/"higher" only when the
interval of the difference excludes 0, and says that the run cannot tell them apart otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping

METRIC_NAMES = {"ace": "ACE", "brier": "Brier score", "accuracy": "accuracy", "ece": "ECE"}
#: for these metrics a lower value is better
LOWER_IS_BETTER = {"ace", "brier", "ece"}


def fmt(x: float, digits: int = 3) -> str:
    return f"{x:.{digits}f}"


def compare_sentence(a: str, b: str, diff: Mapping, subject: str = "") -> str:
    """One sentence comparing ``a`` with ``b`` from a paired-difference result (``metric``,
    ``difference`` = a - b, ``low``, ``high``; see
    :func:`calib.confidence.bootstrap.paired_difference`)."""
    metric = diff["metric"]
    name = METRIC_NAMES.get(metric, metric)
    where = f" for {subject}" if subject else ""
    interval = f"difference {fmt(diff['difference'])}, 95% interval [{fmt(diff['low'])}, " \
               f"{fmt(diff['high'])}]"
    if diff["low"] > 0 or diff["high"] < 0:
        direction = "higher" if diff["difference"] > 0 else "lower"
        better = (direction == "lower") == (metric in LOWER_IS_BETTER)
        verdict = "better" if better else "worse"
        return (f"{a} has a {direction} {name} than {b}{where} ({interval}): {verdict} on this "
                f"sample.")
    return (f"This run cannot tell {a} and {b} apart by {name}{where} ({interval}, which "
            f"includes 0).")


def agreement_sentence(claim: str, holds: bool | None, evidence: str) -> str:
    """State whether a claim of the paper holds in this run: ``holds`` True/False/None
    (None: the run cannot decide)."""
    if holds is None:
        return f"The paper reports that {claim}; this run cannot decide it ({evidence})."
    verb = "agrees" if holds else "does not agree"
    return f"The paper reports that {claim}; this run {verb} ({evidence})."
