"""The evidence the calibration chapter's claims share: rows of this build's differences and
thresholds, Table 1 as printed, one judgement from several parts, and the notes and needs the
claims name.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.experiments.calibration.estimators import PAPER_BLOCK
from calib.experiments.paper_tables import table1_long, text_value
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, UNTESTABLE, Judgement

#: "For ACE, we consider values < 0.1 well-calibrated" (Table 1's caption)
WELL_CALIBRATED = text_value("well_calibrated_ace")
#: "an ACE of under 0.05, indicating good calibration" (§5.1)
GOOD_CALIBRATION = text_value("margin_ace_gemma7b")
#: a difference of ACE counts as *small* ("comparable", §5.1) below the ACE the paper calls good
#: calibration: a gap smaller than the whole error of a well-aligned estimate
SMALL_ACE_DIFFERENCE = GOOD_CALIBRATION
#: "models larger than 1B parameters" (§5.1), in millions
LARGE_MODEL_M = 1000.0


# ---------------------------------------------------------------------------------------------
# the claims: evidence from the paper's printed tables and from this build, and the rules

BUILD = "this build, 95% paired bootstrap intervals over facts"
TABLE1 = "Table 1, printed values"
#: how the build's side of a threshold claim on ACE reads its interval
THRESHOLD_NOTE = (
    "this build: a unit supports the threshold only if the upper end of its ACE's "
    "95% interval does, and contradicts it only if the lower end of its debiased "
    "ACE's interval (ACE minus its noise floor, beyond the paper) does: ACE at "
    "this sample size is biased upward, the debiased ACE downward"
)


def _combine(parts: Sequence[tuple[str, Judgement]]) -> Judgement:
    """One judgement of a claim with several parts: does not hold if a part does not, holds if
    every part holds, not testable if a part is not testable (and none fails), else
    undecided; the evidence and reasons name each part."""
    verdicts = [j.verdict for _, j in parts]
    if FAILS in verdicts:
        verdict = FAILS
    elif all(v == HOLDS for v in verdicts):
        verdict = HOLDS
    elif UNTESTABLE in verdicts:
        verdict = UNTESTABLE
    else:
        verdict = UNDECIDED
    evidence = " | ".join(f"{name}: {j.evidence}" for name, j in parts if j.evidence)
    reason = "; ".join(
        f"{name}: {j.reason}" for name, j in parts if j.reason and j.verdict != HOLDS
    )
    return Judgement(verdict, evidence, reason)


def _part(evidence: Evidence, name: str, missing: str) -> Evidence:
    frame = evidence.frames.get(name)
    if frame is None or frame.empty:
        return Evidence.empty(missing, evidence.source)
    return Evidence(frame, evidence.source)


def _paper_table(metric: str) -> pd.DataFrame:
    """Table 1 long with ``value`` = ``metric``, and Table 3's size and family per model."""
    long = table1_long()
    return long.dropna(subset=[metric]).assign(model=long["registry_name"], value=long[metric])


def _wide(frame: pd.DataFrame, value: str = "value") -> pd.DataFrame:
    return frame.pivot_table(index="model", columns="estimator", values=value, sort=False)


def _differences(
    diffs: pd.DataFrame,
    a: str,
    b: str | Sequence[str],
    metrics: Sequence[str] = ("ace", "brier"),
    sign: float = 1.0,
) -> pd.DataFrame:
    """Evidence rows of :func:`~calib.experiments.calibration.tables.estimator_comparisons`' rows
    ``a`` vs ``b`` (one or several): unit "model, metric: a - b", or with ``sign`` -1 "model,
    metric: b - a" (the difference and its interval negated)."""
    bs = [b] if isinstance(b, str) else list(b)
    part = diffs[(diffs["a"] == a) & diffs["b"].isin(bs) & diffs["metric"].isin(list(metrics))]
    if sign > 0:
        units = [
            f"{m}, {k}: {a} - {o}" for m, k, o in zip(part["model"], part["metric"], part["b"])
        ]
        d, lo, hi = part["difference"], part["low"], part["high"]
    else:
        units = [
            f"{m}, {k}: {o} - {a}" for m, k, o in zip(part["model"], part["metric"], part["b"])
        ]
        d, lo, hi = -part["difference"], -part["high"], -part["low"]
    return pd.DataFrame(
        {
            "unit": units,
            "model": part["model"].to_numpy(),
            "metric": part["metric"].to_numpy(),
            "difference": d.to_numpy(),
            "low": lo.to_numpy(),
            "high": hi.to_numpy(),
        }
    )


def _threshold_rows(
    table: pd.DataFrame, estimators: Sequence[str], shift: float = 0.0, best: bool = False
) -> pd.DataFrame:
    """Evidence rows of the ACE of ``estimators`` per model, against a threshold: the ACE
    (``difference``), the lower end of the debiased ACE's interval (``low``) and the upper end
    of the ACE's (``high``) (:data:`THRESHOLD_NOTE`), minus ``shift``. With ``best``, one row
    per model: its best estimate (the lowest of each)."""
    part = table[(table["block"] == PAPER_BLOCK) & table["estimator"].isin(list(estimators))]
    frame = pd.DataFrame(
        {
            "model": part["model"],
            "estimator": part["estimator"],
            "difference": part["ace"] - shift,
            "low": part["ace_debiased_low"] - shift,
            "high": part["ace_high"] - shift,
            "floor": part["ace_floor"],
        }
    )
    if best:
        frame = (
            frame.groupby("model", sort=False)
            .agg(
                difference=("difference", "min"),
                low=("low", "min"),
                high=("high", "min"),
                floor=("floor", "min"),
            )
            .reset_index()
        )
        frame.insert(1, "estimator", "best estimate")
    frame.insert(0, "unit", frame["model"] + ", " + frame["estimator"])
    return frame.reset_index(drop=True)


NEEDS_BOTH = (
    "causal and masked models in one build (the quick profile's tiny models, or "
    "`calib book --profile paper`)"
)


ANY_MODEL = "any model on BEAR"
PAPER_PROFILE = "`calib book --profile paper` (a GPU machine with the Hugging Face hub)"
