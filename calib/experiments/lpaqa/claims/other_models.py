"""The LPAQA chapter's claims on other models and data (Jiang et al. 2020, §5.2, Tables 8 and 9):
ERNIE and KnowBert against BERT, the optimised ensembles on LAMA-UHN.
"""

from __future__ import annotations

import pandas as pd

from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.lpaqa.claims.evidence import (
    LMS_NEEDS,
    NO_LMS,
    NO_UHN,
    SET_COLUMNS,
    UHN_NEEDS,
    _opti_minus_man,
    _printed,
    not_in_this_build,
)
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement


def uhn_beats_manual(evidence: Evidence) -> Judgement:
    """``uhn_opti_beats_manual``: on LAMA-UHN, the optimised ensemble of every prompt set
    beats the manual prompts, for both models."""
    return quantifiers.every(
        evidence, ">", 0.0, unit="model-set", what="accuracy(Opti.) - accuracy(Man) on T-REx-UHN"
    )


def uhn_beats_manual_paper() -> Evidence:
    return Evidence(_opti_minus_man("jiang2020_lpaqa_uhn"), "LPAQA Table 9, printed values")


def _lms() -> pd.DataFrame:
    return reported("jiang2020_lpaqa_lms").set_index("model")


def ernie_beats_bert(evidence: Evidence) -> Judgement:
    """``ernie_beats_bert``: ERNIE - BERT above 0 with the manual prompts and with every prompt
    set's optimised ensemble."""
    return quantifiers.every(
        evidence, ">", 0.0, unit="column", what="accuracy(ERNIE) - accuracy(BERT)"
    )


def ernie_beats_bert_paper() -> Evidence:
    t = _lms()
    cols = {"man": "Man", **SET_COLUMNS}
    return Evidence(
        _printed([(name, t.at["ERNIE", c] - t.at["BERT", c]) for c, name in cols.items()]),
        "LPAQA Table 8, printed values",
    )


def generated_widen_gap(evidence: Evidence) -> Judgement:
    """``prompts_widen_ernie_gap``: the ERNIE - BERT difference with each prompt set's
    optimised ensemble exceeds the difference with the manual prompts."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        unit="prompt set",
        what="(ERNIE - BERT) with the set's Opti. - (ERNIE - BERT) with Man",
    )


def generated_widen_gap_paper() -> Evidence:
    t = _lms()
    gap = t.loc["ERNIE"] - t.loc["BERT"]
    return Evidence(
        _printed([(name, gap[c] - gap["man"]) for c, name in SET_COLUMNS.items()]),
        "LPAQA Table 8, printed values",
    )


def knowbert_below_bert(evidence: Evidence) -> Judgement:
    """``knowbert_below_bert``: KnowBert - BERT below 0 in every column of Table 8."""
    return quantifiers.every(
        evidence, "<", 0.0, unit="column", what="accuracy(KnowBert) - accuracy(BERT)"
    )


def knowbert_below_bert_paper() -> Evidence:
    t = _lms()
    cols = {"man": "Man", **SET_COLUMNS}
    return Evidence(
        _printed([(name, t.at["KnowBert", c] - t.at["BERT", c]) for c, name in cols.items()]),
        "LPAQA Table 8, printed values",
    )


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="ernie_beats_bert",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="ERNIE outperforms BERT by 1 point even with the manually defined prompts",
        statement="ERNIE is more accurate (micro) than BERT with the manual prompts and with "
        "every prompt set's optimised ensemble (Table 8)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and ERNIE",
        chapter="lpaqa",
        rule=ernie_beats_bert,
        paper_evidence=ernie_beats_bert_paper,
        build_evidence=not_in_this_build(NO_LMS),
        needs=LMS_NEEDS,
    ),
    Claim(
        key="prompts_widen_ernie_gap",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="prompt generation methods further emphasize the difference between the two methods",
        statement="ERNIE's lead over BERT is larger with every prompt set's optimised "
        "ensemble than with the manual prompts (1.0 point; 4.2 with Mine+Man)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and ERNIE",
        chapter="lpaqa",
        rule=generated_widen_gap,
        paper_evidence=generated_widen_gap_paper,
        build_evidence=not_in_this_build(NO_LMS),
        needs=LMS_NEEDS,
    ),
    Claim(
        key="knowbert_below_bert",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="KnowBert underperforms BERT on LAMA",
        statement="KnowBert is less accurate (micro) than BERT with the manual prompts and "
        "with every prompt set's optimised ensemble (Table 8)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and KnowBert",
        chapter="lpaqa",
        rule=knowbert_below_bert,
        paper_evidence=knowbert_below_bert_paper,
        build_evidence=not_in_this_build(NO_LMS),
        needs=LMS_NEEDS,
    ),
    Claim(
        key="uhn_opti_beats_manual",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="optimized ensembles can still outperform manual prompts by a large margin",
        statement="On LAMA-UHN (T-REx-UHN) the optimised ensemble of every prompt set beats "
        "the manual prompts, for both models (Table 9)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and BERT-large",
        chapter="lpaqa",
        rule=uhn_beats_manual,
        paper_evidence=uhn_beats_manual_paper,
        build_evidence=not_in_this_build(NO_UHN),
        needs=UHN_NEEDS,
    ),
)
