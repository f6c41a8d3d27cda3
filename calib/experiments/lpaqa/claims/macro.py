"""The LPAQA chapter's claims on macro-averaged accuracy (Jiang et al. 2020, §5.2; Table 3): below
micro-averaged accuracy, and the optimised ensembles' smaller macro gains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.lpaqa.claims.evidence import (
    LARGE,
    MACRO_BLANK,
    MODELS_PAPER,
    _build,
    _man,
    _printed,
    _sized,
    _trex,
    all_parts,
    paper_majority,
    reaches_size,
    with_majority,
)
from calib.experiments.lpaqa.selection import MAJORITY_TEST, NO_SET
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement
from calib.prompts.sets import PAPER_SETS

if TYPE_CHECKING:
    from calib.experiments.lpaqa import LpaqaResult

# micro_vs_macro: "macro-averaged accuracy is ... much lower ... than micro-averaged accuracy"


def macro_below_micro(evidence: Evidence) -> Judgement:
    """``micro_vs_macro``: macro - micro accuracy at most
    -:data:`~calib.experiments.lpaqa.claims.evidence.LARGE` (3) points ("much lower", calib's
    reading) for every printed pair
    (every model, prompt set and method, and the majority baseline: 22.0% micro, 2.2%
    macro)."""
    return quantifiers.every(
        evidence, "<=", -LARGE, what="macro accuracy - micro accuracy", unit="method"
    )


def macro_below_micro_paper() -> Evidence:
    micro = _trex().set_index(["model", "prompts"])
    macro = _trex("macro").set_index(["model", "prompts"])
    rows = []
    for key in macro.index:
        for c in ("top1", "top3", "top5", "opti", "oracle"):
            if pd.notna(macro.at[key, c]) and pd.notna(micro.at[key, c]):
                rows.append(
                    (f"{key[0]}, {key[1]}, {c.title()}", macro.at[key, c] - micro.at[key, c])
                )
    base_ = reported("jiang2020_lpaqa_trex_baselines")
    wide = base_.pivot_table(index=["model", "baseline"], columns="averaging", values="accuracy")
    for (model, baseline), r in wide.iterrows():
        rows.append(
            (f"{model}, {baseline}" if model != "none" else baseline, r["macro"] - r["micro"])
        )
    return Evidence(
        _printed(rows, terms=2),
        "LPAQA Tables 2 and 3, printed values (cells blank in the transcription left out)",
    )


def macro_below_micro_build(result: LpaqaResult) -> Evidence:
    ev = _build(result, "macro_vs_micro")
    frame = ev.frame
    if frame.empty:
        return ev
    keep = frame["prompt_set"].isin([*PAPER_SETS, NO_SET]) & frame["a"].isin(
        [
            "top-1",
            *[f"top-{k}" for k in result.params.ensemble_k],
            "optimized",
            "oracle",
            "manual",
            MAJORITY_TEST,
        ]
    )
    # the majority baseline (the paper's: counted on the test facts) does not depend on the
    # model: judged once
    first = result.params.models[0]
    frame = frame[keep & ((frame["a"] != MAJORITY_TEST) | (frame["model"] == first))]
    return Evidence(frame.reset_index(drop=True), ev.source)


# macro_gain / macro_gain_smaller: "Our optimization-based method improves macro-averaged
# accuracy from 22.8% to 25.7% on BERT-base, and from 25.7% to 30.1% on BERT-base ... the gains
# are somewhat smaller"


#: the printed macro gains: 22.8% -> 25.7% (BERT-base), 25.7% -> 30.1% (BERT-large)
MACRO_GAINS = {"BERT-base": 2.9, "BERT-large": 4.4}


def macro_gain(evidence: Evidence) -> Judgement:
    """``macro_gain``: the optimised ensemble of Mine beats the manual prompt in macro
    accuracy, for every model, by the printed gain within the printed precision (+2.9 points
    for BERT-base, +4.4 for BERT-large; the smaller for a model the paper does not test)."""
    what = "macro accuracy(Opti. of Mine) - macro accuracy(manual)"
    return all_parts(
        evidence,
        [
            (
                "above the manual prompt",
                quantifiers.every(evidence, ">", 0.0, unit="model", what=what),
            ),
            ("by the printed gain", reaches_size(evidence, what, "model")),
        ],
    )


def macro_gain_paper() -> Evidence:
    macro, man = _trex("macro").set_index(["model", "prompts"]), _man("macro")
    evidence = Evidence(
        _printed(
            [(m, macro.at[(m, "Mine"), "opti"] - man[m], MACRO_GAINS[m]) for m in MODELS_PAPER],
            terms=2,
            extra=("size",),
        ),
        "LPAQA Table 3 (macro), printed values",
    )
    return paper_majority(evidence, "macro")


def macro_gain_build(result: LpaqaResult) -> Evidence:
    evidence = _sized(_build(result, "macro_gain"), MACRO_GAINS)
    return with_majority(evidence, result, "optimized of Mine", "macro")


def macro_gain_smaller(evidence: Evidence) -> Judgement:
    """``macro_gain_smaller``: the optimised ensemble's gain over the manual prompt (Mine) is
    smaller in macro than in micro accuracy, for every model."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        unit="model",
        what="(Opti. of Mine - manual) in macro - the same in micro",
    )


def macro_gain_smaller_paper() -> Evidence:
    micro = _trex().set_index(["model", "prompts"])
    macro = _trex("macro").set_index(["model", "prompts"])
    mi, ma = _man(), _man("macro")
    return Evidence(
        _printed(
            [
                (
                    m,
                    (macro.at[(m, "Mine"), "opti"] - ma[m])
                    - (micro.at[(m, "Mine"), "opti"] - mi[m]),
                )
                for m in MODELS_PAPER
            ],
            terms=4,
        ),
        "LPAQA Tables 2 and 3, printed values",
    )


def macro_gain_smaller_build(result: LpaqaResult) -> Evidence:
    return _build(result, "macro_gain_smaller")


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="micro_vs_macro",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="indicating that macro-averaged accuracy is a more challenging metric",
        statement="Macro-averaged accuracy is much lower than micro-averaged accuracy, by at "
        f"least {LARGE:g} points (calib's reading of 'much'), for every model, prompt set and "
        "method, and for the majority baseline (22.0% micro, 2.2% macro)",
        quantifier="every",
        metrics=("micro accuracy", "macro accuracy"),
        about="BERT-base and BERT-large; every model of the build",
        chapter="lpaqa",
        rule=macro_below_micro,
        paper_evidence=macro_below_micro_paper,
        build_evidence=macro_below_micro_build,
        paper_note=MACRO_BLANK,
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="macro_gain",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="Our optimization- based method improves macro-averaged accuracy",
        statement="The optimised ensemble (Mine) raises macro accuracy over the manual "
        "prompt (22.8% -> 25.7% on BERT-base, 25.7% -> 30.1% on BERT-large, which "
        "the text calls BERT-base twice), for every model, by the printed gain within the "
        "printed precision (+2.9, +4.4 points)",
        quantifier="every",
        metrics=("macro accuracy",),
        about="BERT-base and BERT-large; every model of the build",
        chapter="lpaqa",
        rule=macro_gain,
        paper_evidence=macro_gain_paper,
        build_evidence=macro_gain_build,
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="macro_gain_smaller",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="again confirms the effectiveness of ensembling multiple prompts, but the gains "
        "are somewhat",
        statement="The optimised ensemble's gain over the manual prompt (Mine) is smaller in "
        "macro than in micro accuracy, for every model",
        quantifier="every",
        metrics=("micro accuracy", "macro accuracy"),
        about="BERT-base and BERT-large; every model of the build",
        chapter="lpaqa",
        rule=macro_gain_smaller,
        paper_evidence=macro_gain_smaller_paper,
        build_evidence=macro_gain_smaller_build,
        needs="any model on LAMA T-REx",
    ),
)
