"""The claims of §5.3 and §1 (Kissling et al. 2026) tested by the causal-against-masked chapter:
each rule, Table 2's evidence as printed and this build's, and ``CLAIMS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.clm_vs_mlm.tables import ESTIMATORS
from calib.experiments.paper_tables import pair_brier_differences, text_value
from calib.experiments.quantifiers import (
    CONTRADICTS,
    MAX_NAMED,
    OPEN,
    SUPPORTS,
    Evidence,
    named,
    printed,
)
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, Judgement, Verdict, unit_tally

if TYPE_CHECKING:
    from calib.experiments.clm_vs_mlm import ClmVsMlmResult

#: Table 2's names of them (its column heads C_Margin, C_Average)
PAPER_ESTIMATORS: dict[str, str] = {"Margin": "Margin", "Average/min": "Average"}


# ---------------------------------------------------------------------------------------------
# the claims of §5.3 and §1: evidence from Table 2 as printed and from this build, and rules

#: where the paper's evidence comes from
TABLE2_SOURCE = "Table 2, printed values (12 rows, 6 pairs)"
#: §5.3 says "five model pairs"; Table 2 prints six
FIVE_PAIRS_NOTE = (
    '§5.3 speaks of "all five model pairs", but Table 2 prints six; the '
    "paper's side judges the six printed pairs"
)
BUILD_SOURCE = "this build, 95% paired bootstrap intervals over the instances of each pair's scope"
#: what would test the claims where a build has no pair
NEEDS = (
    "a masked LM and a causal LM of similar accuracy, e.g. opt-125m with roberta-base: "
    "`calib book --profile paper`"
)


def no_pair_reason(result: ClmVsMlmResult) -> str:
    """Why ``result`` has no causal-masked pair: no masked (or causal) model, or none within
    ``max_gap`` (naming the closest pair left out)."""
    kinds = set(result.objectives.values())
    if "mlm" not in kinds:
        return (
            f"this build has no masked model (its models: "
            f"{', '.join(result.objectives)}), so no pair of similar accuracy is formed"
        )
    if "clm" not in kinds:
        return "this build has no causal model, so no pair is formed"
    gap = result.params.max_gap
    if len(result.left_out):
        c = result.left_out.iloc[0]
        return (
            f"no causal-masked pair within the largest accuracy gap {gap:g} (the closest: "
            f"{c['clm']} and {c['mlm']}, gap {c['gap']:.3f})"
        )
    return "no causal-masked pair was formed (no scope with enough instances)"


def _pair_label(clm: str, mlm: str) -> str:
    return f"{clm} vs {mlm}"


def table2_gaps() -> pd.DataFrame:
    """Table 2's pairs with their printed accuracies as fractions: ``pair``, ``clm``, ``mlm``
    (registry names), ``clm_accuracy``, ``mlm_accuracy``, ``gap`` (absolute difference; where
    the default ``max_gap`` comes from)."""
    t2 = reported("kissling2026_table2")
    clm = t2[t2["objective"] == "CLM"].set_index("pair")
    mlm = t2[t2["objective"] == "MLM"].set_index("pair")
    out = pd.DataFrame(
        {
            "clm": clm["registry_name"],
            "mlm": mlm["registry_name"],
            "clm_accuracy": (clm["accuracy"] / 100).round(6),
            "mlm_accuracy": (mlm["accuracy"] / 100).round(6),
        }
    )
    out["gap"] = (out["clm_accuracy"] - out["mlm_accuracy"]).abs().round(12)
    return out.reset_index()


def _paper_differences() -> pd.DataFrame:
    """Table 2 per pair and estimator: ``pair`` ("opt-125m vs roberta-base"), ``estimator``
    (Margin, Average), ``mlm_minus_clm`` (Brier) and the pair's accuracy ``gap`` (fraction)."""
    d = pair_brier_differences()
    gaps = table2_gaps().set_index("pair")["gap"]
    rows = [
        {
            "pair": _pair_label(r.clm, r.mlm),
            "estimator": est,
            "mlm_minus_clm": getattr(r, col),
            "gap": float(gaps[r.pair]),
        }
        for r in d.itertuples()
        for est, col in (("Margin", "margin"), ("Average", "average"))
    ]
    return pd.DataFrame(rows)


def _build_differences(result: ClmVsMlmResult) -> pd.DataFrame:
    """This build's pair-estimator rows: ``pair``, ``estimator``, ``clm_minus_mlm`` with
    ``low``/``high``, and the pair's accuracy ``gap``."""
    d = result.differences
    gaps = result.pairs.set_index("pair")["gap"]
    return pd.DataFrame(
        {
            "pair": [_pair_label(c, m) for c, m in zip(d["clm"], d["mlm"])],
            "estimator": d["estimator"].map(PAPER_ESTIMATORS),
            "difference": d["difference"].astype(float),
            "low": d["low"].astype(float),
            "high": d["high"].astype(float),
            "gap": d["pair"].map(gaps).astype(float).to_numpy(),
        }
    )


def _units(frame: pd.DataFrame) -> pd.DataFrame:
    """``unit`` = "pair, estimator"."""
    out = frame.copy()
    out.insert(0, "unit", out["pair"] + ", " + out["estimator"])
    return out


def _untestable_if_empty(evidence: Evidence, unit: str) -> Judgement | None:
    if len(evidence.frame):
        return None
    return Judgement.untestable(
        evidence.missing or f"the evidence has no {unit}", evidence=evidence.source
    )


def _status_counts(status: pd.Series) -> tuple[int, int, int]:
    return (int((status == SUPPORTS).sum()), int((status == CONTRADICTS).sum()), len(status))


_STATUS_OF = {HOLDS: SUPPORTS, FAILS: CONTRADICTS, UNDECIDED: OPEN}


def nested_verdict(frame: pd.DataFrame, status: pd.Series, group: str) -> tuple[Verdict, pd.Series]:
    """A claim about *every* group of units, each group judged as a claim about *most* of its
    units (:func:`calib.experiments.quantifiers.most_verdict`: more than half support it;
    contradicted when even every undecided unit counted as support would be at most half).
    Returns the verdict over the groups (:func:`~calib.experiments.quantifiers.every_verdict`)
    and each group's status."""
    groups = {}
    for g, part in status.groupby(frame[group], sort=False):
        groups[g] = _STATUS_OF[quantifiers.most_verdict(*_status_counts(part))]
    per = pd.Series(groups, name="status")
    return quantifiers.every_verdict(*_status_counts(per)), per


def _nested_judgement(
    evidence: Evidence,
    status: pd.Series,
    *,
    claim: str,
    group: str,
    group_unit: str,
    members: str,
    inner_unit: str,
) -> Judgement:
    frame = evidence.frame
    verdict, per = nested_verdict(frame, status, group)
    s, c, n = _status_counts(status)
    gs, gc, gn = _status_counts(per)
    where = f" ({evidence.source})" if evidence.source else ""
    text = (
        f"{claim}{where}: each {group_unit} judged on most of its {members}: "
        f"{unit_tally(gs, gc, gn, group_unit)}; over the {inner_unit}s: "
        f"{unit_tally(s, c, n, inner_unit)}"
    )
    if n <= 2 * MAX_NAMED:
        text += f" ({named(frame, 2 * MAX_NAMED)})"
    elif c:
        text += f"; against it: {named(frame[status == CONTRADICTS])}"
    if "gap" in frame.columns and len(frame):
        text += f"; largest accuracy gap of a pair {frame['gap'].max():.3f}"
    reason = ""
    if verdict == UNDECIDED:
        open_ = list(per[per == OPEN].index)
        reason = (
            f"{len(open_)} {group_unit}(s) undecided (their 95% intervals decide most "
            f"of their {members} neither way): {', '.join(map(str, open_))}"
        )
    return Judgement(verdict, text, reason)


# clm_better: "CLMs are much better calibrated using most of our estimates (see Table 2)"


def clm_lower_brier(evidence: Evidence) -> Judgement:
    """``clm_better``: in every pair of similar accuracy the CLM has the lower Brier score
    (``Brier(CLM) - Brier(MLM) < 0``) with most of the estimates Table 2 compares (C_Margin,
    C_Average). "Most" applies to the estimates within a pair, as the sentence reads ("CLMs are
    much better calibrated using most of our estimates"); with two estimates, more than half
    is both. The pairs are the sentence's subject ("CLMs", "across all five model pairs"): a
    claim about every pair. Needs a ``pair`` column."""
    empty = _untestable_if_empty(evidence, "pair")
    if empty:
        return empty
    status = quantifiers.unit_status(evidence.frame, "<", 0.0)
    return _nested_judgement(
        evidence,
        status,
        claim="Brier(CLM) - Brier(MLM) < 0",
        group="pair",
        group_unit="pair",
        members="estimates",
        inner_unit="pair-estimator",
    )


def clm_lower_brier_paper() -> Evidence:
    d = _paper_differences().assign(value=lambda f: -f["mlm_minus_clm"])
    frame = printed(d, "value", ["pair", "estimator"])
    return Evidence(frame.drop(columns=["mlm_minus_clm", "value"]), TABLE2_SOURCE)


def clm_lower_brier_build(result: ClmVsMlmResult) -> Evidence:
    if result.differences.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    return Evidence(_units(_build_differences(result)), BUILD_SOURCE)


# pair_differences_large: "often reaching differences of approximately 0.1 to 0.2"


def large_band() -> tuple[float, float]:
    """The differences "approximately 0.1 to 0.2" (``pair_difference_low``, ``_high`` of the
    paper's text numbers) read at the precision the sentence states, one decimal: those that
    round to a value from 0.1 to 0.2, ``[0.05, 0.25)`` (the reading of
    :func:`calib.experiments.paper_tables.consistency_checks`)."""
    return (text_value("pair_difference_low") - 0.05, text_value("pair_difference_high") + 0.05)


def band_status(frame: pd.DataFrame, lower: float, upper: float) -> pd.Series:
    """Per unit: :data:`~calib.experiments.quantifiers.SUPPORTS` when its whole interval lies in
    ``[lower, upper)``, :data:`~calib.experiments.quantifiers.CONTRADICTS` when it all lies outside
    it (below ``lower`` or from ``upper`` on), undecided otherwise (also with a missing
    interval)."""
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    supports = (low >= lower) & (high < upper)
    contradicts = (high < lower) | (low >= upper)
    return pd.Series(
        np.where(supports, SUPPORTS, np.where(contradicts, CONTRADICTS, OPEN)),
        index=frame.index,
        name="status",
    )


def differences_large(evidence: Evidence) -> Judgement:
    """``pair_differences_large``: for C_Margin and for C_Average, the Brier difference MLM - CLM is
    "often" about 0.1 to 0.2: for each estimator, more than half of the pairs
    (:func:`~calib.experiments.quantifiers.most_verdict`; "often" read as "in most pairs") have a
    difference in :func:`large_band`; the claim needs it for both estimators. Needs an ``estimator``
    column."""
    empty = _untestable_if_empty(evidence, "pair-estimator")
    if empty:
        return empty
    lower, upper = large_band()
    status = band_status(evidence.frame, lower, upper)
    return _nested_judgement(
        evidence,
        status,
        claim=f"{lower:g} <= Brier(MLM) - Brier(CLM) < {upper:g} (rounds to 0.1-0.2)",
        group="estimator",
        group_unit="estimator",
        members="pairs",
        inner_unit="pair-estimator",
    )


def differences_large_paper() -> Evidence:
    frame = printed(_paper_differences(), "mlm_minus_clm", ["pair", "estimator"])
    return Evidence(frame.drop(columns=["mlm_minus_clm"]), TABLE2_SOURCE)


def differences_large_build(result: ClmVsMlmResult) -> Evidence:
    if result.differences.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    d = _build_differences(result)
    d = d.assign(difference=-d["difference"], low=-d["high"], high=-d["low"])
    return Evidence(_units(d), BUILD_SOURCE + " (MLM - CLM)")


# clm_brier_02: "all CLMs achieve a Brier Score of 0.2 or lower, while none of the MLMs do"


def brier_bound_status(frame: pd.DataFrame, bound: float) -> pd.Series:
    """Per model-estimator unit (column ``objective``): a CLM supports the claim when its whole
    interval is at most ``bound`` and contradicts it when all of it is above; an MLM the other
    way round ("none of the MLMs do")."""
    clm = quantifiers.unit_status(frame, "<=", bound)
    mlm = quantifiers.unit_status(frame, ">", bound)
    return clm.where(frame["objective"].to_numpy() == "clm", mlm)


def brier_bound(evidence: Evidence) -> Judgement:
    """``clm_brier_02``: with C_Margin and C_Average every CLM of a pair has a Brier score of
    at most 0.2 (``clm_brier_bound`` of the paper's text numbers) and every MLM one above it:
    holds iff every model-estimator unit supports it, does not hold as soon as one contradicts
    it; CLMs and MLMs both required."""
    frame = evidence.frame
    bound = text_value("clm_brier_bound")
    empty = _untestable_if_empty(evidence, "model-estimator")
    if empty:
        return empty
    status = brier_bound_status(frame, bound)
    s, c, n = _status_counts(status)
    where = f" ({evidence.source})" if evidence.source else ""
    text = (
        f"Brier <= {bound:g} for every CLM and > {bound:g} for every MLM{where}: "
        f"{unit_tally(s, c, n, 'model-estimator')}"
    )
    text += f"; against it: {named(frame[status == CONTRADICTS])}" if c else f" ({named(frame)})"
    if c:
        return Judgement(FAILS, text)
    lacking = [o.upper() for o in ("clm", "mlm") if o not in set(frame["objective"].unique())]
    if lacking:
        return Judgement.untestable(
            evidence.missing or f"the evidence has no {' or '.join(lacking)}", text
        )
    verdict = quantifiers.every_verdict(s, c, n)
    reason = (
        ""
        if verdict != UNDECIDED
        else (
            f"the 95% interval includes {bound:g} for {n - s - c} model-estimator(s): "
            + named(frame[status == OPEN])
        )
    )
    return Judgement(verdict, text, reason)


def brier_bound_paper() -> Evidence:
    t2 = reported("kissling2026_table2")
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "model": t2["registry_name"],
                    "objective": t2["objective"].str.lower(),
                    "estimator": est,
                    "brier": t2[col],
                }
            )
            for est, col in (("Margin", "brier_margin"), ("Average", "brier_average"))
        ],
        ignore_index=True,
    )
    frame = printed(
        long.assign(label=long["model"] + " (" + long["objective"].str.upper() + ")"),
        "brier",
        ["label", "estimator"],
    )
    return Evidence(frame.drop(columns=["label", "brier"]), TABLE2_SOURCE)


def brier_bound_build(result: ClmVsMlmResult) -> Evidence:
    rows = result.pair_rows
    if rows.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    parts = []
    for est, col in zip(ESTIMATORS, ("brier_margin", "brier_average")):
        parts.append(
            pd.DataFrame(
                {
                    "unit": rows["model"]
                    + " ("
                    + rows["objective"].str.upper()
                    + "), "
                    + PAPER_ESTIMATORS[est],
                    "model": rows["model"],
                    "objective": rows["objective"],
                    "estimator": est,
                    "difference": rows[col].astype(float),
                    "low": rows[f"{col}_low"].astype(float),
                    "high": rows[f"{col}_high"].astype(float),
                }
            )
        )
    return Evidence(
        pd.concat(parts, ignore_index=True),
        "this build's pairs, 95% BCa bootstrap intervals over each pair's instances",
    )


# reliability_gap (§1): "MLMs—despite competitive factual accuracy—remain fundamentally less
# aware of their own knowledge than CLMs"


def reliability_gap(evidence: Evidence) -> Judgement:
    """``reliability_gap``: at matched ("competitive") accuracy, MLMs are on average worse
    calibrated than CLMs: for each estimator of Table 2, the mean over the pairs of
    ``Brier(MLM) - Brier(CLM)`` is above 0 (one unit per estimator, each the mean over
    pairs)."""
    return quantifiers.every(
        evidence, ">", 0.0, what="mean over the pairs of Brier(MLM) - Brier(CLM)", unit="estimator"
    )


def reliability_gap_paper() -> Evidence:
    d = _paper_differences()
    rows = []
    for est, part in d.groupby("estimator", sort=False):
        m = quantifiers.mean_of_printed(
            part.rename(columns={"mlm_minus_clm": "difference"}),
            f"{est} (mean over {len(part)} pairs)",
        )
        rows.append(m)
    return Evidence(pd.concat(rows, ignore_index=True), TABLE2_SOURCE + ", means over pairs")


def reliability_gap_build(result: ClmVsMlmResult) -> Evidence:
    m = result.mean_differences
    if m.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    units = [
        f"{PAPER_ESTIMATORS[e]} (mean over {n} pair{'s' if n != 1 else ''})"
        for e, n in zip(m["estimator"], m["n_pairs"])
    ]
    frame = pd.DataFrame(
        {
            "unit": units,
            "difference": m["difference"].astype(float),
            "low": m["low"].astype(float),
            "high": m["high"].astype(float),
        }
    )
    return Evidence(
        frame,
        f"this build, 95% paired bootstrap over the sample's facts "
        f"({result.params.n_bootstrap} resamples, BCa)",
    )


CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="reliability_gap",
        paper="kissling2026",
        section="§1",
        quote="MLMs—despite competitive factual accuracy—remain fundamentally less aware of "
        "their own knowledge than CLMs",
        statement="At similar accuracy, masked models are worse calibrated than causal ones: "
        "for C_Margin and for C_Average, the mean over the accuracy-matched pairs "
        "of Brier(MLM) - Brier(CLM) is above 0",
        quantifier="on average",
        metrics=("brier",),
        about="pairs of a CLM and an MLM of similar accuracy (Table 2)",
        chapter="clm_vs_mlm",
        rule=reliability_gap,
        paper_evidence=reliability_gap_paper,
        build_evidence=reliability_gap_build,
        needs=NEEDS,
    ),
    Claim(
        key="clm_better",
        paper="kissling2026",
        section="§5.3",
        quote="we find that CLMs are much better calibrated using most of our estimates",
        statement="In every pair of a CLM and an MLM of similar accuracy, the CLM has the "
        "lower Brier score with most of the estimates of Table 2 (C_Margin, "
        "C_Average: with two, both)",
        quantifier="most",
        metrics=("brier",),
        about="pairs of a CLM and an MLM of similar accuracy (within max_gap)",
        chapter="clm_vs_mlm",
        rule=clm_lower_brier,
        paper_evidence=clm_lower_brier_paper,
        build_evidence=clm_lower_brier_build,
        paper_note=FIVE_PAIRS_NOTE,
        needs=NEEDS,
    ),
    Claim(
        key="pair_differences_large",
        paper="kissling2026",
        section="§5.3",
        quote="Across all five model pairs, we observe substantial calibration differences, "
        "often reaching differences of approximately 0.1 to 0.2 for $C_{\\text{Margin}}$ "
        "and $C_{\\text{Average}}$.",
        statement="For C_Margin and for C_Average, the Brier difference MLM - CLM rounds to "
        '0.1-0.2 (lies in [0.05, 0.25)) in most pairs ("often")',
        quantifier="most",
        metrics=("brier",),
        about="pairs of a CLM and an MLM of similar accuracy, per estimator",
        chapter="clm_vs_mlm",
        rule=differences_large,
        paper_evidence=differences_large_paper,
        build_evidence=differences_large_build,
        paper_note=FIVE_PAIRS_NOTE,
        needs=NEEDS,
    ),
    Claim(
        key="clm_brier_02",
        paper="kissling2026",
        section="§5.3",
        quote="For $C_{\\text{Margin}}$ and $C_{\\text{Average}}$, all CLMs achieve a Brier "
        "Score of 0.2 or lower, while none of the MLMs do.",
        statement="With C_Margin and with C_Average every CLM of a pair has a Brier score of "
        "at most 0.2 and no MLM does",
        quantifier="every",
        metrics=("brier",),
        about="the models of the pairs (Table 2)",
        chapter="clm_vs_mlm",
        rule=brier_bound,
        paper_evidence=brier_bound_paper,
        build_evidence=brier_bound_build,
        paper_note="the paper's own Table 2 is against the sentence for the units named above",
        needs=NEEDS,
    ),
)
