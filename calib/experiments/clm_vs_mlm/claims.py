"""The claims of §5.3 and §1 (Kissling et al. 2026) tested by the causal-against-masked chapter:
each rule, Table 2's evidence as printed and this build's, and ``CLAIMS``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from calib.data.reported import reported
from calib.experiments import multiplicity, quantifiers
from calib.experiments.claims import Claim
from calib.experiments.clm_vs_mlm.tables import ESTIMATORS
from calib.experiments.paper_tables import pair_brier_differences, text_value
from calib.experiments.quantifiers import (
    CONTRADICTS,
    SUPPORTS,
    Evidence,
    named,
    printed,
)
from calib.experiments.verdicts import (
    FAILS,
    HOLDS,
    UNDECIDED,
    Judgement,
    combine,
    unit_tally,
    verdict_counts,
)

if TYPE_CHECKING:
    from calib.experiments.clm_vs_mlm import ClmVsMlmResult

#: Table 2 prints Brier scores with three decimals
BRIER_STEP = 0.001
#: and accuracies in percent with one decimal
ACCURACY_STEP = 0.1
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


def per_group(
    evidence: Evidence, group: str, judge: Callable[[Evidence], Judgement], group_unit: str
) -> Judgement:
    """A claim about *every* group of units (the evidence's ``group`` column), each group
    judged by ``judge`` on its own units (e.g. :func:`calib.experiments.quantifiers.most` over a
    pair's estimates), the groups combined by :func:`calib.experiments.verdicts.combine`: does
    not hold if a group does not, holds if every group holds, else undecided."""
    frame = evidence.frame
    parts = [
        (f"{group_unit} {g}", judge(Evidence(rows.reset_index(drop=True), evidence.source)))
        for g, rows in frame.groupby(group, sort=False)
    ]
    judged = combine(parts)
    tally = verdict_counts(j.verdict for _, j in parts)
    text = (
        f"{len(parts)} {group_unit}(s): "
        + ", ".join(f"{v.value} {n}" for v, n in tally.items() if n)
        + f" | {judged.evidence}"
    )
    if "gap" in frame.columns and len(frame):
        text += f"; largest accuracy gap of a pair {frame['gap'].max():.3f}"
    return replace(judged, evidence=text)


# clm_better: "CLMs are much better calibrated using most of our estimates (see Table 2)"


def clm_lower_brier(evidence: Evidence) -> Judgement:
    """``clm_better``: in every pair of similar accuracy the CLM has the lower Brier score
    (``Brier(CLM) - Brier(MLM) < 0``) with most of the estimates Table 2 compares (C_Margin,
    C_Average). "Most" applies to the estimates within a pair, as the sentence reads ("CLMs are
    much better calibrated using most of our estimates"): each pair is judged by
    :func:`calib.experiments.quantifiers.most` over its estimates (with two, more than half is
    both); the pairs are the sentence's subject ("CLMs", "across all five model pairs"), a
    claim about every pair (:func:`per_group`). Needs a ``pair`` column."""
    empty = _untestable_if_empty(evidence, "pair")
    if empty:
        return empty
    return per_group(
        evidence,
        "pair",
        lambda ev: quantifiers.most(
            ev, "<", 0.0, what="Brier(CLM) - Brier(MLM)", unit="pair-estimator"
        ),
        "pair",
    )


def clm_lower_brier_paper() -> Evidence:
    d = _paper_differences().assign(value=lambda f: -f["mlm_minus_clm"])
    frame = printed(d, "value", ["pair", "estimator"], step=BRIER_STEP, terms=2)
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


def band_depth(frame: pd.DataFrame, lower: float, upper: float) -> pd.DataFrame:
    """Each unit's depth into the band ``[lower, upper)``: ``min(d - lower, upper - d)``, above
    0 inside the band and at most 0 outside, so that "lies in the band" is "depth > 0" for the
    quantifiers. Its interval over ``[low, high]``: from the smaller of the two ends' depths to
    the depth at the point of the interval nearest the band's middle (the depth is a tent); a
    printed value (``low == high``) keeps its ``rounding``."""
    d, low, high = (frame[c].to_numpy(float) for c in ("difference", "low", "high"))

    def depth(x):
        return np.minimum(x - lower, upper - x)

    middle = np.clip((lower + upper) / 2, low, high)
    return frame.assign(
        difference=depth(d),
        low=np.minimum(depth(low), depth(high)),
        high=np.where(low == high, depth(d), depth(middle)),
    )


#: the weaker of the two fair readings of "often" in "often reaching differences of
#: approximately 0.1 to 0.2": in a good share of the pairs, at least a third (the other: in
#: most pairs, more than half)
OFTEN_SHARE = 1 / 3


def at_least_share(evidence: Evidence, share: float, *, what: str, unit: str) -> Judgement:
    """A claim that at least ``share`` of the units (``r = ceil(share * m)`` of ``m``) have
    ``difference > 0``: holds when ``r`` units support it, does not hold when ``m - r + 1``
    contradict it (so fewer than ``r`` could support it), each conclusion by the
    partial-conjunction test over the units (:func:`calib.experiments.multiplicity.at_least`,
    the ``r``-th smallest one-sided p-value at most ``0.025 / (m - r + 1)``); else undecided."""
    empty = _untestable_if_empty(evidence, unit)
    if empty:
        return empty
    frame = evidence.frame
    m = len(frame)
    r = max(1, int(np.ceil(share * m - 1e-9)))
    status = quantifiers.unit_status(frame, ">", 0.0)
    p_s, p_c = multiplicity.side_p_values(frame, ">", 0.0, status)
    s, c = int((status == SUPPORTS).sum()), int((status == CONTRADICTS).sum())
    holds = s >= r and multiplicity.at_least(p_s, r)
    fails = c >= m - r + 1 and multiplicity.at_least(p_c, m - r + 1)
    verdict = HOLDS if holds else FAILS if fails else UNDECIDED
    where = f" ({evidence.source})" if evidence.source else ""
    text = (
        f"{what} > 0 for at least {r} of {m} {unit}s{where}: {unit_tally(s, c, m, unit)} "
        f"({named(frame)})"
    )
    reason = ""
    if verdict == UNDECIDED:
        reason = f"{s} support it and {m - s - c} are undecided; at least {r} must support it"
    return Judgement(
        verdict,
        text,
        reason,
        units=m,
        correction=multiplicity.correction_text("holm", m, unit, r),
    )


def _band_evidence(evidence: Evidence) -> Evidence:
    lower, upper = large_band()
    return replace(evidence, frame=band_depth(evidence.frame, lower, upper))


def _band_what() -> str:
    lower, upper = large_band()
    return f"depth of Brier(MLM) - Brier(CLM) into [{lower:g}, {upper:g}) (rounds to 0.1-0.2)"


def differences_large(evidence: Evidence) -> Judgement:
    """``pair_differences_large``, "often" read as "in most pairs": for C_Margin and for
    C_Average, the Brier difference MLM - CLM lies in :func:`large_band` (its depth into the
    band above 0, :func:`band_depth`) for more than half of the pairs
    (:func:`calib.experiments.quantifiers.most` per estimator); the claim needs it for both
    estimators (:func:`per_group`). Needs an ``estimator`` column."""
    empty = _untestable_if_empty(evidence, "pair-estimator")
    if empty:
        return empty
    return per_group(
        _band_evidence(evidence),
        "estimator",
        lambda ev: quantifiers.most(ev, ">", 0.0, what=_band_what(), unit="pair"),
        "estimator",
    )


def differences_often(evidence: Evidence) -> Judgement:
    """``pair_differences_often``, the weaker reading of "often": for C_Margin and for
    C_Average, the Brier difference MLM - CLM lies in :func:`large_band` for at least a third
    (:data:`OFTEN_SHARE`) of the pairs (:func:`at_least_share` per estimator); both estimators
    needed. Needs an ``estimator`` column."""
    empty = _untestable_if_empty(evidence, "pair-estimator")
    if empty:
        return empty
    return per_group(
        _band_evidence(evidence),
        "estimator",
        lambda ev: at_least_share(ev, OFTEN_SHARE, what=_band_what(), unit="pair"),
        "estimator",
    )


def differences_large_paper() -> Evidence:
    frame = printed(
        _paper_differences(), "mlm_minus_clm", ["pair", "estimator"], step=BRIER_STEP, terms=2
    )
    return Evidence(frame.drop(columns=["mlm_minus_clm"]), TABLE2_SOURCE)


def differences_large_build(result: ClmVsMlmResult) -> Evidence:
    if result.differences.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    d = _build_differences(result)
    d = d.assign(difference=-d["difference"], low=-d["high"], high=-d["low"])
    return Evidence(_units(d), BUILD_SOURCE + " (MLM - CLM)")


# clm_brier_02: "all CLMs achieve a Brier Score of 0.2 or lower, while none of the MLMs do"


def brier_bound(evidence: Evidence) -> Judgement:
    """``clm_brier_02``: with C_Margin and C_Average every CLM of a pair has a Brier score of
    at most 0.2 (``clm_brier_bound`` of the paper's text numbers) and every MLM one above it:
    two parts, each :func:`calib.experiments.quantifiers.every` over its model-estimators (Holm
    over them), combined by :func:`calib.experiments.verdicts.combine`; CLMs and MLMs both
    required (a part without units is not testable)."""
    frame = evidence.frame
    bound = text_value("clm_brier_bound")
    empty = _untestable_if_empty(evidence, "model-estimator")
    if empty:
        return empty
    parts = []
    for objective, relation in (("clm", "<="), ("mlm", ">")):
        rows = frame[frame["objective"] == objective].reset_index(drop=True)
        name = f"{objective.upper()}s"
        missing = evidence.missing or f"the evidence has no {objective.upper()}"
        judged = quantifiers.every(
            Evidence(rows, evidence.source, missing=missing),
            relation,
            bound,
            what=f"Brier of the {name}",
            unit="model-estimator",
        )
        parts.append((name, judged))
    return combine(parts)


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


# mlm_accuracy_competitive: "MLMs with the same or even lower number of parameters can achieve
# a similar, and in some cases even higher accuracy"

#: calib's reading of "similar" accuracy: the MLM at most this much less accurate (a fraction:
#: 1 point); the paper prints no matching rule, the page shows the differences
SIMILAR_ACCURACY = 0.01


def mlm_competitive(evidence: Evidence) -> Judgement:
    """``mlm_accuracy_competitive``: in the matched pairs MLMs have the same or fewer parameters
    and a similar or higher accuracy, in some pairs a higher one. Three parts, combined by
    :func:`calib.experiments.verdicts.combine`: ``similar``, every pair's ``accuracy(MLM) -
    accuracy(CLM)`` above ``-SIMILAR_ACCURACY`` (Holm over the pairs); ``in some cases
    higher``, at least one pair's above 0 (the claim "every pair at most 0" judged by
    :func:`calib.experiments.quantifiers.every` and turned round: it holds when a pair lies
    above 0 after Holm's correction); ``size`` (``frames["size"]``), every pair's MLM size
    minus CLM size at most 0."""
    empty = _untestable_if_empty(evidence, "pair")
    if empty:
        return empty
    what = "accuracy(MLM) - accuracy(CLM)"
    similar = quantifiers.every(evidence, ">", -SIMILAR_ACCURACY, what=what, unit="pair")
    at_most = quantifiers.every(
        evidence, "<=", 0.0, what=f"{what} (its negation: no pair higher)", unit="pair"
    )
    turned = {HOLDS: FAILS, FAILS: HOLDS}
    higher = replace(
        at_most,
        verdict=turned.get(at_most.verdict, at_most.verdict),
        evidence=f"{at_most.evidence}; 'in some cases higher' holds when a pair lies above 0",
        reason=at_most.reason if at_most.verdict not in turned else "",
        decide_factor=None,
        decide_verdict=None,
    )
    parts = [("similar", similar), ("in some cases higher", higher)]
    size = evidence.frames.get("size")
    if size is None or size.empty:
        parts.append(
            (
                "size",
                Judgement.untestable(
                    evidence.missing or "the evidence has no sizes of the pairs' models"
                ),
            )
        )
    else:
        parts.append(
            (
                "size",
                quantifiers.every(
                    Evidence(size, evidence.source),
                    "<=",
                    0.0,
                    what="parameters(MLM) - parameters(CLM), millions",
                    unit="pair",
                ),
            )
        )
    return combine(parts)


def _size_m(text: str) -> float:
    """Millions of parameters from Table 2's "125M" / "0.8B"."""
    text = str(text).strip().upper()
    return float(text[:-1]) * (1000 if text.endswith("B") else 1)


def mlm_competitive_paper() -> Evidence:
    t2 = reported("kissling2026_table2")
    clm = t2[t2["objective"] == "CLM"].set_index("pair")
    mlm = t2[t2["objective"] == "MLM"].set_index("pair")
    labels = [_pair_label(c, m) for c, m in zip(clm["registry_name"], mlm["registry_name"])]
    acc = pd.DataFrame(
        {"pair": labels, "value": ((mlm["accuracy"] - clm["accuracy"]) / 100).to_numpy()}
    )
    size = pd.DataFrame(
        {
            "pair": labels,
            "value": [_size_m(b) - _size_m(a) for a, b in zip(clm["size"], mlm["size"])],
        }
    )
    return Evidence(
        printed(acc, "value", "pair", step=ACCURACY_STEP / 100, terms=2),
        TABLE2_SOURCE + "; accuracy as a fraction, sizes as printed in parentheses",
        # "the same or even lower number of parameters" compares the printed sizes themselves:
        # equal printed sizes are the same (exact, no rounding)
        frames={"size": printed(size, "value", "pair").assign(rounding=0.0)},
    )


def mlm_competitive_build(result: ClmVsMlmResult) -> Evidence:
    from calib.experiments.answer_set.groups import model_sizes

    pairs = result.pairs
    if pairs.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    acc = result.accuracy.set_index(["model", "scope"])
    rows, sizes = [], []
    known = model_sizes(list(pairs["clm"]) + list(pairs["mlm"]))
    for p in pairs.itertuples(index=False):
        c, m = acc.loc[(p.clm, p.scope)], acc.loc[(p.mlm, p.scope)]
        label = _pair_label(p.clm, p.mlm)
        rows.append(
            {
                "unit": label,
                "difference": float(m["accuracy"] - c["accuracy"]),
                # both on the same facts, but bootstrapped apart: the widest difference of
                # the two intervals (conservative)
                "low": float(m["accuracy_low"] - c["accuracy_high"]),
                "high": float(m["accuracy_high"] - c["accuracy_low"]),
            }
        )
        sc, sm = known.get(p.clm), known.get(p.mlm)
        if sc is not None and sm is not None:
            sizes.append({"unit": label, "value": float(sm - sc)})
    size = printed(pd.DataFrame(sizes), "value").assign(rounding=0.0) if sizes else pd.DataFrame()
    return Evidence(
        pd.DataFrame(rows),
        "this build's pairs, accuracy over all templates with 95% BCa intervals; the "
        "difference's interval from the two intervals' ends (conservative); sizes from the "
        "registry. The pairs are matched on accuracy (within max_gap), so 'similar' is partly "
        "the pairing's doing",
        missing="" if sizes else "the registry gives no size for a pair's model",
        frames={"size": size} if sizes else {},
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
            # each a difference of two printed numbers: off by up to one printed step
            part.rename(columns={"mlm_minus_clm": "difference"}).assign(rounding=BRIER_STEP),
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
        headline=True,
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
        headline=True,
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
        key="mlm_accuracy_competitive",
        paper="kissling2026",
        section="§5.3",
        quote="MLMs with the same or even lower number of parameters can achieve a similar, and "
        "in some cases even higher accuracy",
        statement=f"In every matched pair the MLM has at most the CLM's parameters and an "
        f"accuracy similar to the CLM's (at most {SIMILAR_ACCURACY * 100:g} point lower, "
        f"calib's reading of 'similar'), and in at least one pair a higher one",
        quantifier="every",
        metrics=("accuracy",),
        about="pairs of a CLM and an MLM of similar accuracy (Table 2)",
        chapter="clm_vs_mlm",
        rule=mlm_competitive,
        paper_evidence=mlm_competitive_paper,
        build_evidence=mlm_competitive_build,
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
        "0.1-0.2 (lies in [0.05, 0.25)) in most pairs (the stronger reading of 'often'; "
        "pair_differences_often reads it as 'in at least a third of the pairs')",
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
        key="pair_differences_often",
        paper="kissling2026",
        section="§5.3",
        quote="Across all five model pairs, we observe substantial calibration differences, "
        "often reaching differences of approximately 0.1 to 0.2 for $C_{\\text{Margin}}$ "
        "and $C_{\\text{Average}}$.",
        statement="For C_Margin and for C_Average, the Brier difference MLM - CLM rounds to "
        "0.1-0.2 (lies in [0.05, 0.25)) in at least a third of the pairs (the weaker "
        "reading of 'often'; pair_differences_large reads it as 'in most pairs')",
        quantifier="every",
        metrics=("brier",),
        about="pairs of a CLM and an MLM of similar accuracy, per estimator",
        chapter="clm_vs_mlm",
        rule=differences_often,
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
