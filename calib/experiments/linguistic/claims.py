"""The claims of the linguistic chapter (Kissling et al. 2026, §6, Appendix G and the
Introduction): each rule, its evidence from the paper's printed numbers and from this build's
result, and ``CLAIMS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from calib.data.bear import PLAIN
from calib.data.reported import reported
from calib.experiments import multiplicity, quantifiers
from calib.experiments.claims import Claim
from calib.experiments.floors import floor_corrected_differences
from calib.experiments.linguistic.scale import LARGEST_DROP_CELL, largest_drop_cell
from calib.experiments.quantifiers import OPEN, SUPPORTS, Evidence, unit_status
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, Judgement, combine

if TYPE_CHECKING:
    from calib.experiments.linguistic import LinguisticResult

#: the numeric templates that weaken a statement (§6: "numerical weakeners such as 'I'm 0%
#: confident…'"): those stating less than 50%
NUMERIC_WEAKENERS: tuple[str, ...] = ("numeric-0", "numeric-25")
#: the models of Figure 6 (base and instruction-tuned gemma-3-4b and gemma-3-12b), by the names
#: :func:`~calib.experiments.linguistic.models.canonical_name` gives them
FIGURE6_MODELS: tuple[str, ...] = ("gemma-3-4b", "gemma-3-4b-it", "gemma-3-12b", "gemma-3-12b-it")
#: the instruction-tuned models §6 says "certainly" lowers the ACE of
CERTAINLY_IT_MODELS: tuple[str, ...] = ("gemma-3-4b-it", "gemma-3-12b-it")
ONLY_GAIN_CELL: tuple[str, str] = ("roberta-base", "certainly")
#: how the quantities of :func:`~calib.experiments.linguistic.injections.injection_effects` are
#: named in tables and sentences
QUANTITY_NAMES = {
    "ace": "ACE",
    "accuracy": "accuracy",
    "confidence": "mean Base-Confidence",
    "gap": "signed calibration gap",
}


# ---------------------------------------------------------------------------------------------
# the claims of §6, Appendix G and the Introduction: evidence from the paper's printed numbers
# and from this build, and rules

BUILD_SOURCE = "this build, 95% paired bootstrap intervals over facts"
#: the paper prints no number for these figures
FIGURES_NOTE = (
    "Figures 5, 6 and 11 print no numbers (bars and curves only), and the text "
    "states none for this claim"
)


def _effect_rows(result: LinguisticResult, quantity: str) -> pd.DataFrame:
    """Evidence rows of one quantity of
    :func:`~calib.experiments.linguistic.injections.injection_effects`: ``unit`` "model, template",
    ``difference`` = ``delta``, with ``paper_name``."""
    eff = result.effects[result.effects["quantity"] == quantity]
    names = dict(zip(result.models["model"], result.models["paper_name"]))
    return pd.DataFrame(
        {
            "unit": eff["model"] + ", " + eff["template"],
            "model": eff["model"],
            "paper_name": eff["model"].map(names),
            "template": eff["template"],
            "difference": eff["delta"],
            "low": eff["low"],
            "high": eff["high"],
        }
    ).reset_index(drop=True)


def _floor_corrected(result: LinguisticResult, rows: pd.DataFrame) -> pd.DataFrame:
    """ACE rows of :func:`_effect_rows` (``model``, ``template``) with each change
    floor-corrected (:func:`calib.experiments.floors.floor_corrected_differences`: the change of
    the two templates' noise floors taken out, the interval widened by the floors' Monte-Carlo
    error), from the floors of ``result.calibration``; the raw change stays as
    ``raw_difference``."""
    if rows.empty:
        return rows
    frame = rows.assign(plain=PLAIN, metric="ace")
    out = floor_corrected_differences(
        frame, result.calibration, a="template", b="plain", estimator="template"
    )
    return out.drop(columns=["plain", "metric"])


#: how the floor correction is named in an evidence's source
FLOOR_SOURCE = (
    "ACE changes floor-corrected (each template's noise floor taken out, calib.experiments.floors)"
)


def _counted(frame: pd.DataFrame, relation: str = "<") -> tuple[int, int, int]:
    """``(supports, undecided, n)`` of an evidence frame's units, each side corrected by Holm
    over the frame's units (:func:`calib.experiments.multiplicity.corrected_status`: a unit
    counts as an improvement, or as none, only where that survives the correction)."""
    raw = unit_status(frame, relation, 0.0)
    status = multiplicity.corrected_status(
        frame, relation, 0.0, raw, sides=("supports", "contradicts")
    )
    return int((status == SUPPORTS).sum()), int((status == OPEN).sum()), len(frame)


def _share(supports: int, undecided: int, n: int) -> str:
    return (
        f"{supports} of {n} ({supports / n:.0%}), {supports + undecided} of {n} counting "
        f"the undecided"
    )


# possibly_vs_numeric: "verbal weakeners such as possibly improve calibration more consistently
# than numerical weakeners"


def possibly_more_consistent(evidence: Evidence) -> Judgement:
    """``possibly_vs_numeric``: the share of models whose ACE "possibly" lowers (the 95%
    interval of ACE(possibly) - ACE(plain) below 0, after Holm's correction over the models)
    against the share of (model, numeric weakener) cells (:data:`NUMERIC_WEAKENERS`) whose ACE
    is lowered (Holm over the cells). Holds when possibly's
    share of significant improvements exceeds the numeric weakeners' share even with every
    undecided numeric cell counted as an improvement; does not hold when possibly's share,
    counting every undecided model as an improvement, is at most the numeric weakeners' share
    of significant improvements; otherwise undecided. Evidence rows: ACE(injected) -
    ACE(plain) per model and ``template`` (a column)."""
    frame = evidence.frame
    pos = frame[frame["template"] == "possibly"] if len(frame) else frame
    num = frame[frame["template"].isin(NUMERIC_WEAKENERS)] if len(frame) else frame
    if pos.empty or num.empty:
        return Judgement.untestable(
            evidence.missing
            or "the evidence lacks the 'possibly' or the numeric weakener templates"
        )
    ps, pu, pn = _counted(pos)
    ns, nu, nn = _counted(num)
    text = (
        f"ACE(injected) - ACE(plain) < 0 ({evidence.source}): 'possibly' lowers ACE for "
        f"{_share(ps, pu, pn)} models; {' and '.join(NUMERIC_WEAKENERS)} for "
        f"{_share(ns, nu, nn)} model-template cells"
    )
    if ps / pn > (ns + nu) / nn:
        return Judgement(HOLDS, text)
    if (ps + pu) / pn <= ns / nn:
        return Judgement(FAILS, text)
    return Judgement(
        UNDECIDED,
        text,
        "the undecided models or cells could reverse the "
        "comparison of the shares: "
        + f"{pu} model(s) under 'possibly' and {nu} numeric cell(s) have a 95% "
        f"interval that includes 0",
    )


def possibly_more_consistent_build(result: LinguisticResult) -> Evidence:
    frame = _effect_rows(result, "ace")
    frame = frame[frame["template"].isin(["possibly", *NUMERIC_WEAKENERS])]
    within = result.ace_changes.set_index(["model", "template"])["within_floors"]
    n_within = int(
        sum(within.get((m, t), False) for m, t in zip(frame["model"], frame["template"]))
    )
    return Evidence(
        _floor_corrected(result, frame.reset_index(drop=True)),
        f"{BUILD_SOURCE}; {FLOOR_SOURCE}; both ACEs within their noise floors for {n_within} "
        f"of {len(frame)} cells",
    )


# certainly_it_gemma3: "for gemma-3-4b-it and gemma-3-12b-it, certainly reduces overconfidence
# and thereby lowers ACE"


def certainly_lowers_ace(evidence: Evidence) -> Judgement:
    """For each of gemma-3-4b-it and gemma-3-12b-it, "certainly" lowers ACE and the signed
    calibration gap (overconfidence): every (model, quantity) change below 0; both models
    required."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="change under 'certainly' (injected - plain)",
        unit="model-quantity cell",
        required=CERTAINLY_IT_MODELS,
        required_in="paper_name",
    )


def certainly_lowers_ace_build(result: LinguisticResult) -> Evidence:
    rows = []
    for quantity in ("ace", "gap"):
        part = _effect_rows(result, quantity)
        part = part[
            (part["template"] == "certainly") & part["paper_name"].isin(CERTAINLY_IT_MODELS)
        ]
        if quantity == "ace":  # the gap is a difference of means: it has no floor
            part = _floor_corrected(result, part)
        rows.append(part.assign(unit=part["model"] + ", " + QUANTITY_NAMES[quantity]))
    frame = pd.concat(rows, ignore_index=True)
    if frame.empty:
        return Evidence.empty(
            f"neither {' nor '.join(CERTAINLY_IT_MODELS)} is among this "
            f"build's models ({', '.join(result.params.models)})"
        )
    return Evidence(frame, f"{BUILD_SOURCE}; {FLOOR_SOURCE}")


# it_not_systematic: "instruction-tuning does not systematically shift log-likelihoods in line
# with the intended meaning of the injections"

#: the verbal markers and the direction of confidence each one means: +1 raises it, -1 lowers it
INTENDED_SIGN: dict[str, int] = {"certainly": 1, "possibly": -1}


def it_not_aligned(evidence: Evidence) -> Judgement:
    """``it_not_systematic``: the negation of "every instruction-tuned model shifts its mean
    C_Base as each marker means". Units are instruction-tuned model-markers, the number the
    change of mean C_Base under the marker times its intended sign (:data:`INTENDED_SIGN`:
    above 0 is in line with the marker's meaning). Holds when at least one unit lies below 0
    after Holm's correction over the units (an instruction-tuned model shifts against a
    marker's meaning); does not hold when every unit's interval lies above 0 (every shift is in
    line); undecided otherwise. Judged as the claim "every unit > 0" by
    :func:`calib.experiments.quantifiers.every`, its verdict turned round."""
    judged = quantifiers.every(
        evidence,
        ">",
        0.0,
        what="sign(marker) x change of mean C_Base (injected - plain)",
        unit="model-marker",
    )
    turned = {HOLDS: FAILS, FAILS: HOLDS}
    if judged.verdict not in turned:
        return judged
    text = (
        f"{judged.evidence}; the claim is the negation: it holds when a unit shifts against "
        f"the marker's meaning, and does not hold when every unit shifts in line with it"
    )
    return Judgement(turned[judged.verdict], text, units=judged.units, correction=judged.correction)


def it_not_aligned_build(result: LinguisticResult) -> Evidence:
    conf = _effect_rows(result, "confidence")
    conf = conf[conf["template"].isin(list(INTENDED_SIGN))]
    tuned = dict(zip(result.models["model"], result.models["instruction_tuned"]))
    sign = conf["template"].map(INTENDED_SIGN).astype(float)
    signed = conf.assign(
        difference=conf["difference"] * sign,
        low=(conf["low"] * sign).where(sign > 0, conf["high"] * sign),
        high=(conf["high"] * sign).where(sign > 0, conf["low"] * sign),
    )
    is_it = signed["model"].map(tuned).fillna(False).astype(bool)
    frame, base = signed[is_it].reset_index(drop=True), signed[~is_it]
    contrast = (
        f"; the base models beside (not judged): {quantifiers.named(base)}" if len(base) else ""
    )
    if frame.empty:
        return Evidence.empty(
            f"no instruction-tuned model among this build's models "
            f"({', '.join(result.params.models)}){contrast}"
        )
    return Evidence(frame, f"{BUILD_SOURCE}, mean C_Base{contrast}")


# possibly_shifts_curve: "the injection of possibly shifts the calibration curve closer to the
# identity line, thereby reducing ACE"


def possibly_lowers_ace(evidence: Evidence) -> Judgement:
    """For each model of Figure 6 (base and instruction-tuned gemma-3-4b and gemma-3-12b),
    ACE(possibly) - ACE(plain) < 0; all four required."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="ACE(possibly) - ACE(plain)",
        unit="model",
        required=FIGURE6_MODELS,
        required_in="paper_name",
    )


def possibly_lowers_ace_build(result: LinguisticResult) -> Evidence:
    frame = _effect_rows(result, "ace")
    frame = frame[
        (frame["template"] == "possibly") & frame["paper_name"].isin(FIGURE6_MODELS)
    ].reset_index(drop=True)
    if frame.empty:
        return Evidence.empty(
            f"none of Figure 6's models ({', '.join(FIGURE6_MODELS)}) is "
            f"among this build's models ({', '.join(result.params.models)})"
        )
    frame = _floor_corrected(result, frame)
    return Evidence(frame.assign(unit=frame["model"]), f"{BUILD_SOURCE}; {FLOOR_SOURCE}")


# certainly_above_baseline: "the calibration curve under certainly can lie above the curve of
# the non-injected baseline"


def certainly_curve_above(evidence: Evidence) -> Judgement:
    """For the instruction-tuned models of Figure 6, the calibration curve under "certainly"
    lies above the plain one, read over the whole curve: the signed gap (mean confidence minus
    accuracy) under certainly minus under plain is below 0 (more accuracy for the confidence
    given). Holds when that interval is below 0 for both models; does not hold when one lies
    above 0 after Holm's correction over the two (the curve under certainly lies below the
    plain one as a whole). The paper's "can lie above" may mean "somewhere" only; this rule
    reads it as "as a whole" (the sentence's own reason, the surprise that certainly lowers
    overconfidence, is a statement about the whole curve), and the claim's statement says so."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="gap(certainly) - gap(plain)",
        unit="model",
        required=CERTAINLY_IT_MODELS,
        required_in="paper_name",
    )


def certainly_curve_above_build(result: LinguisticResult) -> Evidence:
    frame = _effect_rows(result, "gap")
    frame = frame[
        (frame["template"] == "certainly") & frame["paper_name"].isin(CERTAINLY_IT_MODELS)
    ].reset_index(drop=True)
    if frame.empty:
        return Evidence.empty(
            f"neither {' nor '.join(CERTAINLY_IT_MODELS)} is among this "
            f"build's models ({', '.join(result.params.models)})"
        )
    return Evidence(frame.assign(unit=frame["model"]), BUILD_SOURCE)


# injections_accuracy: "the injections significantly reduce accuracy"


def injections_lower_accuracy(evidence: Evidence) -> Judgement:
    """Most (model, injected template) cells have a lower accuracy than the plain template
    (the 95% interval of accuracy(injected) - accuracy(plain) below 0), as
    :func:`calib.experiments.quantifiers.most` decides (the paper names one exception, so
    "every" would misstate it)."""
    return quantifiers.most(
        evidence, "<", 0.0, what="accuracy(injected) - accuracy(plain)", unit="model-template cell"
    )


def injections_lower_accuracy_build(result: LinguisticResult) -> Evidence:
    return Evidence(_effect_rows(result, "accuracy"), BUILD_SOURCE)


# larger_more_sensitive: "larger models are more sensitive to these injections, particularly to
# numerical confidence expressions"


def _two_parts(evidence: Evidence, what: str, unit: str) -> Judgement:
    """A "most" claim with parts (the evidence's ``part`` column): each part judged by
    :func:`calib.experiments.quantifiers.most`, the parts combined by
    :func:`calib.experiments.verdicts.combine` (holds when every part holds, does not hold when
    some part does not)."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or f"the evidence has no {unit}")
    return combine(
        [
            (
                str(part),
                quantifiers.most(
                    Evidence(rows.reset_index(drop=True), evidence.source),
                    ">",
                    0.0,
                    what=f"{what} ({part})",
                    unit=unit,
                ),
            )
            for part, rows in frame.groupby("part", sort=False)
        ]
    )


def larger_more_sensitive(evidence: Evidence) -> Judgement:
    """For most pairs of consecutive sizes within a family, the larger model's mean accuracy
    drop under the injections exceeds the smaller's (part ``all injections``), and the excess
    is larger for the numeric injections than for the verbal ones (part ``numeric beyond
    verbal``); both parts must hold (``_two_parts``)."""
    return _two_parts(evidence, "accuracy drop(larger) - accuracy drop(smaller)", "size pair")


def pairs_note(models: pd.DataFrame) -> str:
    """Why :func:`~calib.experiments.linguistic.models.size_pairs` found no pair among the rows of
    :func:`~calib.experiments.linguistic.models.model_table`."""
    listed = ", ".join(
        f"{m} ({f or 'no family'}, {s or 'no size'})"
        for m, f, s in zip(models["model"], models["family"], models["size"])
    )
    return (
        f"no two models of this build are sizes of one family with the same instruction "
        f"tuning: {listed}"
    )


def larger_more_sensitive_build(result: LinguisticResult) -> Evidence:
    if result.sensitivity_pairs.empty:
        return Evidence.empty(pairs_note(result.models))
    return Evidence(result.sensitivity_pairs, BUILD_SOURCE)


# largest_drop: gemma-7b's -15 pp under "I'm 25% confident" is the largest decrease; roberta-base's
# +0.2 pp under "certainly" the only increase


def largest_drop_rule(evidence: Evidence) -> Judgement:
    """Appendix G's two cells: every other cell's accuracy change minus gemma-7b's under
    numeric-25 is above 0 (part ``largest``: no other cell falls as far), roberta-base's change
    under certainly is above 0 (part ``gain``) and every other cell's change is at most 0 (part
    ``no other gain``). Units carry their threshold relation in ``relation``; each part is
    judged by :func:`calib.experiments.quantifiers.every` (Holm over its cells) and the parts
    combined by :func:`calib.experiments.verdicts.combine`; both models are required."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or "no accuracy change was scored")
    judged = combine(
        [
            (
                str(part),
                quantifiers.every(
                    Evidence(rows.reset_index(drop=True), evidence.source),
                    relation,
                    0.0,
                    what=f"{part}",
                    unit="cell",
                ),
            )
            for (part, relation), rows in frame.groupby(["part", "relation"], sort=False)
        ]
    )
    if judged.verdict == FAILS:
        return judged
    present = set(frame["paper_name"].unique()) if "paper_name" in frame.columns else set()
    lacking = [m for m in (LARGEST_DROP_CELL[0], ONLY_GAIN_CELL[0]) if m not in present]
    if lacking:
        return Judgement.untestable(
            evidence.missing or f"the evidence has no {', '.join(lacking)}",
            evidence=judged.evidence,
        )
    return judged


def largest_drop_printed() -> pd.DataFrame:
    """The two cells Appendix G prints (``largest_accuracy_drop``, ``only_accuracy_gain`` of the
    paper's text numbers), as fractions: ``model``, ``template``, ``change``. They are the
    claim's own numbers; no other cell is printed (Figure 11 has no numbers), so they cannot
    show that no other cell falls further or gains: the claim's paper side is not testable."""
    nums = reported("kissling2026_text_numbers").set_index("key")["value"]
    return pd.DataFrame(
        {
            "model": [LARGEST_DROP_CELL[0], ONLY_GAIN_CELL[0]],
            "template": [LARGEST_DROP_CELL[1], ONLY_GAIN_CELL[1]],
            "change": [nums["largest_accuracy_drop"] / 100, nums["only_accuracy_gain"] / 100],
        }
    )


def largest_drop_build(result: LinguisticResult) -> Evidence:
    acc = _effect_rows(result, "accuracy")
    top_model, top_template = largest_drop_cell(result.effects)
    top = acc[(acc["model"] == top_model) & (acc["template"] == top_template)].iloc[0]
    here = f"{top_model} under {top_template}: {quantifiers.interval_text(top)}"
    if top["difference"] >= 0:
        here = f"none (no cell's accuracy falls; the smallest change: {here})"
    names = dict(zip(result.models["model"], result.models["paper_name"]))
    by_paper = {v: k for k, v in names.items()}
    drop_model, gain_model = (by_paper.get(LARGEST_DROP_CELL[0]), by_paper.get(ONLY_GAIN_CELL[0]))
    if drop_model is None or gain_model is None:
        lacking = [
            m
            for m, b in ((LARGEST_DROP_CELL[0], drop_model), (ONLY_GAIN_CELL[0], gain_model))
            if b is None
        ]
        ref = result.drops[result.drops["reference"] == f"{top_model}, {top_template}"]
        s, _u, n = _counted(ref, ">")
        return Evidence.empty(
            f"{' and '.join(lacking)} not among this build's models; this build's largest "
            f"accuracy decrease: {here} (accuracy as a fraction), significantly larger than "
            f"{s} of the other {n} cells' (95% paired intervals)",
            BUILD_SOURCE,
        )
    # the claim is about the paper's models: the cells of this build's other models are left out
    paper = set(result.models.loc[result.models["in_paper"], "model"])
    acc = acc[acc["model"].isin(paper)]
    ref = f"{drop_model}, {LARGEST_DROP_CELL[1]}"
    largest = result.drops[(result.drops["reference"] == ref) & result.drops["model"].isin(paper)]
    largest = largest.assign(
        part="change(other cell) - change(gemma-7b, numeric-25)",
        relation=">",
        paper_name=largest["model"].map(names),
    )
    is_gain = (acc["model"] == gain_model) & (acc["template"] == ONLY_GAIN_CELL[1])
    gain = acc[is_gain].assign(part="change(roberta-base, certainly)", relation=">")
    others = acc[~is_gain].assign(part="change(other cell)", relation="<=")
    cols = ["unit", "part", "relation", "paper_name", "difference", "low", "high"]
    frame = pd.concat([largest[cols], gain[cols], others[cols]], ignore_index=True)
    return Evidence(frame, f"{BUILD_SOURCE}; this build's largest decrease: {here}")


# scale_dependency: "while smaller models are "semantically blind" to expressions of doubt,
# larger models begin to align their internal confidence with linguistic cues"


def larger_align_more(evidence: Evidence) -> Judgement:
    """For most pairs of consecutive sizes within a family, the larger model's alignment of
    Base-Confidence with the cues (:func:`~calib.experiments.linguistic.scale.alignment`) exceeds
    the smaller's."""
    return quantifiers.most(
        evidence, ">", 0.0, what="alignment(larger) - alignment(smaller)", unit="size pair"
    )


def larger_align_more_build(result: LinguisticResult) -> Evidence:
    if result.alignment_pairs.empty:
        return Evidence.empty(pairs_note(result.models))
    return Evidence(result.alignment_pairs, BUILD_SOURCE)


PAPER_PROFILE = "`calib book --profile paper`"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="scale_dependency",
        paper="kissling2026",
        section="Introduction",
        quote="our results suggest a clear scale-dependency for linguistic confidence: while "
        'smaller models are "semantically blind" to expressions of doubt, larger '
        "models begin to align their internal confidence with linguistic cues",
        statement="Within a model family, the larger model's Base-Confidence follows the "
        "linguistic cues more than the smaller's: the alignment (the mean over "
        "'possibly', 'certainly' and numeric-100 vs numeric-0 of the change of mean "
        "confidence in the direction the cue states) is higher for the larger "
        "model of most pairs of consecutive sizes",
        quantifier="most",
        metrics=("confidence",),
        about="pairs of consecutive sizes of one family (instruction tuning alike)",
        chapter="linguistic",
        rule=larger_align_more,
        paper_evidence=None,
        build_evidence=larger_align_more_build,
        paper_note=FIGURES_NOTE,
        needs=f"two or more sizes of one family (e.g. gpt2 .. gpt2-xl, opt-125m .. opt-6.7b, "
        f"gemma-3-270m-it .. gemma-3-12b-it): {PAPER_PROFILE}",
    ),
    Claim(
        key="possibly_vs_numeric",
        paper="kissling2026",
        section="§6",
        quote="verbal weakeners such as possibly improve calibration more consistently than "
        "numerical weakeners such as “I’m 0% confident…”, which exhibit lower and more "
        "variable effects across models",
        statement="'possibly' lowers ACE in a larger share of models than the numeric "
        "weakeners ('I'm 0% / 25% confident') lower it in (model, template) cells, "
        "each improvement judged by its 95% paired interval",
        quantifier="comparison",
        metrics=("ace",),
        about="every model",
        chapter="linguistic",
        rule=possibly_more_consistent,
        paper_evidence=None,
        build_evidence=possibly_more_consistent_build,
        paper_note="Figure 5 prints no numbers: its ACE differences are shown only as bars",
        needs="any models on BEAR's injected templates",
    ),
    Claim(
        key="certainly_it_gemma3",
        paper="kissling2026",
        section="§6",
        quote="for gemma-3-4b-it and gemma-3-12b-it, certainly reduces overconfidence and "
        "thereby lowers ACE",
        statement="For gemma-3-4b-it and for gemma-3-12b-it, 'certainly' lowers the signed "
        "calibration gap (overconfidence) and the ACE of Base-Confidence against "
        "the plain template",
        quantifier="every",
        metrics=("ace", "gap"),
        about="gemma-3-4b-it, gemma-3-12b-it",
        chapter="linguistic",
        rule=certainly_lowers_ace,
        paper_evidence=None,
        build_evidence=certainly_lowers_ace_build,
        paper_note="Figure 5 prints no numbers; the text states the direction only",
        needs=f"gemma-3-4b-it and gemma-3-12b-it: {PAPER_PROFILE}",
    ),
    Claim(
        key="it_not_systematic",
        headline=True,
        paper="kissling2026",
        section="§6",
        quote="instruction-tuning does not systematically shift log-likelihoods in line with "
        "the intended meaning of the injections",
        statement="Not every instruction-tuned model shifts its mean C_Base as the verbal "
        "markers mean (up under 'certainly', down under 'possibly'): for at least one "
        "instruction-tuned model and marker the shift goes against the marker's meaning",
        quantifier="every",
        metrics=("confidence",),
        about="the instruction-tuned models (the paper names gemma-3-4b-it and "
        "gemma-3-12b-it) under 'certainly' and 'possibly'",
        chapter="linguistic",
        rule=it_not_aligned,
        paper_evidence=None,
        build_evidence=it_not_aligned_build,
        paper_note="Figure 5 prints no numbers (bars of ACE differences) and the paper prints "
        "no mean confidences",
        needs=f"instruction-tuned models, e.g. gemma-3-4b-it and gemma-3-12b-it: {PAPER_PROFILE}",
    ),
    Claim(
        key="possibly_shifts_curve",
        headline=True,
        paper="kissling2026",
        section="§6",
        quote="the injection of possibly shifts the calibration curve closer to the identity "
        "line, thereby reducing ACE",
        statement="For the base and instruction-tuned gemma-3-4b and gemma-3-12b, 'possibly' "
        "lowers the ACE of Base-Confidence against the plain template",
        quantifier="every",
        metrics=("ace",),
        about="gemma-3-4b, gemma-3-4b-it, gemma-3-12b, gemma-3-12b-it (Figure 6)",
        chapter="linguistic",
        rule=possibly_lowers_ace,
        paper_evidence=None,
        build_evidence=possibly_lowers_ace_build,
        paper_note="Figure 6 prints no numbers in the text (its ACE values are in the "
        "figure's legend only); the authors' repository holds legend values for "
        "gemma-2b and gemma-7b of an earlier version, other models",
        needs="gemma-3-4b-it and gemma-3-12b-it (`calib book --profile paper`) and the base "
        "models google/gemma-3-4b-pt and google/gemma-3-12b-pt, which the paper's "
        "Table 3 does not list: `calib run linguistic --profile paper -p models "
        '\'["gemma-3-4b-it", "gemma-3-12b-it", "google/gemma-3-4b-pt", '
        '"google/gemma-3-12b-pt"]\'`',
    ),
    Claim(
        key="certainly_above_baseline",
        paper="kissling2026",
        section="§6",
        quote="for the instruction-tuned models, where the calibration curve under certainly "
        "can lie above the curve of the non-injected baseline",
        statement="For gemma-3-4b-it and gemma-3-12b-it the calibration curve under "
        "'certainly' lies above the plain template's, read over the whole curve: "
        "the signed gap (mean confidence minus accuracy) is lower under 'certainly' "
        "(a curve above the plain one in a few bins only, the weakest reading of "
        "'can lie above', is not what this rule tests)",
        quantifier="every",
        metrics=("gap",),
        about="gemma-3-4b-it, gemma-3-12b-it",
        chapter="linguistic",
        rule=certainly_curve_above,
        paper_evidence=None,
        build_evidence=certainly_curve_above_build,
        paper_note="Figure 6 prints no numbers (calibration curves only)",
        needs=f"gemma-3-4b-it and gemma-3-12b-it: {PAPER_PROFILE}",
    ),
    Claim(
        key="injections_accuracy",
        paper="kissling2026",
        section="Appendix G",
        quote="we find that the injections significantly reduce accuracy",
        statement="In most (model, injected template) cells accuracy is lower than under the "
        "plain template (95% paired interval below 0)",
        quantifier="most",
        metrics=("accuracy",),
        about="every model and injected template",
        chapter="linguistic",
        rule=injections_lower_accuracy,
        paper_evidence=None,
        build_evidence=injections_lower_accuracy_build,
        paper_note="Figure 11 prints no numbers; the text prints only the two extreme cells "
        "(-15 pp for gemma-7b under numeric-25, +0.2 pp for roberta-base under "
        "certainly), which are no sample of the cells",
        needs="any models on BEAR's injected templates",
    ),
    Claim(
        key="larger_more_sensitive",
        paper="kissling2026",
        section="Appendix G",
        quote="We also observe that larger models are more sensitive to these injections, "
        "particularly to numerical confidence expressions.",
        statement="For most pairs of consecutive sizes within a family, the larger model's "
        "mean accuracy drop under the injections is larger than the smaller's, and "
        "more so for the numeric injections than for the verbal ones",
        quantifier="most",
        metrics=("accuracy",),
        about="pairs of consecutive sizes of one family (instruction tuning alike)",
        chapter="linguistic",
        rule=larger_more_sensitive,
        paper_evidence=None,
        build_evidence=larger_more_sensitive_build,
        paper_note="Figure 11 prints no numbers; the text prints two cells of different "
        "model families, which compare no sizes",
        needs=f"two or more sizes of one family (e.g. gpt2 .. gpt2-xl, opt-125m .. opt-6.7b, "
        f"gemma-3-270m-it .. gemma-3-12b-it): {PAPER_PROFILE}",
    ),
    Claim(
        key="largest_drop",
        paper="kissling2026",
        section="Appendix G",
        quote="gemma-7b shows a drop of 15 percentage points in accuracy for the injection of "
        '"I’m 25% confident….", the largest decrease observed overall. The only LM '
        "where we observe a slight improvement compared to the unaltered template is "
        "roberta-base, where accuracy increased by 0.2 percentage points for the "
        'injection of "certainly"',
        statement="gemma-7b's accuracy change under numeric-25 (-15 pp) is the largest "
        "decrease of all (model, injected template) cells, and roberta-base's under "
        "'certainly' (+0.2 pp) is the only increase",
        quantifier="every",
        metrics=("accuracy",),
        about="every (model, injected template) cell; gemma-7b and roberta-base",
        chapter="linguistic",
        rule=largest_drop_rule,
        paper_evidence=None,
        build_evidence=largest_drop_build,
        paper_note="the paper prints these two cells only (Appendix G's text: -15 pp and +0.2 "
        "pp; Figure 11 prints no numbers): they are the claim's own numbers, and without "
        "the other cells nothing printed can show that no other cell falls further or "
        "gains, so the paper's side cannot test it",
        needs=f"gemma-7b and roberta-base with the other models: {PAPER_PROFILE}",
    ),
)
