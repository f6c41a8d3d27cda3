"""The LPAQA chapter's claims on other models and data (Jiang et al. 2020, §5.2, Tables 8 and 9):
ERNIE and KnowBert against BERT, the optimised ensembles on LAMA-UHN.
"""

from __future__ import annotations

import pandas as pd

from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.lpaqa.claims.evidence import (
    DRAMATIC,
    LARGE,
    LMS_NEEDS,
    MODELS_PAPER,
    NO_LMS,
    NO_UHN,
    SET_COLUMNS,
    UHN_NEEDS,
    _man,
    _opti_minus_man,
    _printed,
    _trex,
    all_parts,
    both_readings,
    not_in_this_build,
    reaches_size,
)
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement


def uhn_beats_manual(evidence: Evidence) -> Judgement:
    """``uhn_opti_beats_manual``: on LAMA-UHN, the optimised ensemble of every prompt set
    beats the manual prompts "by a large margin", at least
    :data:`~calib.experiments.lpaqa.claims.evidence.LARGE` (3) points (calib's reading), for both
    models."""
    return quantifiers.every(
        evidence,
        ">=",
        LARGE,
        unit="model-set",
        what="accuracy(Opti.) - accuracy(Man) on T-REx-UHN",
    )


# uhn_drop: "Although the overall performances drop dramatically compared to the performances on
# the original LAMA benchmark (Table 2)"

#: calib's second reading of "drop dramatically": by at least a fifth of the T-REx accuracy
DRAMATIC_SHARE = 0.2


def uhn_drop(evidence: Evidence) -> Judgement:
    """``uhn_drop``: accuracy on T-REx-UHN minus that on T-REx, for the same model and method
    (Man and each set's Opti.), is at most
    -:data:`~calib.experiments.lpaqa.claims.evidence.DRAMATIC` (5) points for every unit (reading
    A, ``frame``), and the relative change
    UHN / T-REx - 1 at most -:data:`DRAMATIC_SHARE` (a fifth) for every unit (reading B,
    ``frames["relative"]``): two fair readings of "drop dramatically" (calib's thresholds), both
    judged and shown: the verdict where they agree, undecided where they disagree."""
    rel = evidence.frames.get("relative")
    rel_ev = (
        Evidence(rel, evidence.source)
        if rel is not None and len(rel)
        else Evidence.empty(evidence.missing or "no unit", evidence.source)
    )
    return both_readings(
        evidence,
        [
            (
                f"A: at least {DRAMATIC:g} points",
                quantifiers.every(
                    evidence,
                    "<=",
                    -DRAMATIC,
                    unit="model-method",
                    what="accuracy(T-REx-UHN) - accuracy(T-REx)",
                ),
            ),
            (
                f"B: at least {DRAMATIC_SHARE:.0%} of it",
                quantifiers.every(
                    rel_ev,
                    "<=",
                    -DRAMATIC_SHARE,
                    unit="model-method",
                    what="accuracy(T-REx-UHN) / accuracy(T-REx) - 1",
                ),
            ),
        ],
    )


def _ratio_rounding(u: float, t: float, half: float = 0.05) -> float:
    """The half-width of ``u / t`` for two numbers each printed to ``+- half``."""
    r = u / t
    return max((u + half) / (t - half) - r, r - (u - half) / (t + half))


def uhn_drop_paper() -> Evidence:
    uhn = reported("jiang2020_lpaqa_uhn").set_index("model")
    micro, man = _trex().set_index(["model", "prompts"]), _man()
    pairs = []
    for m in MODELS_PAPER:
        pairs.append((f"{m}, Man", uhn.at[m, "man"], man[m]))
        pairs += [
            (f"{m}, {name} Opti.", uhn.at[m, c], micro.at[(m, name), "opti"])
            for c, name in SET_COLUMNS.items()
        ]
    points = _printed([(u, a - b) for u, a, b in pairs], terms=2)
    relative = pd.DataFrame(
        {
            "unit": [u for u, _, _ in pairs],
            "difference": [a / b - 1 for _, a, b in pairs],
            "rounding": [_ratio_rounding(a, b) for _, a, b in pairs],
        }
    )
    relative["low"] = relative["high"] = relative["difference"]
    return Evidence(points, "LPAQA Tables 9 and 2, printed values", frames={"relative": relative})


def uhn_beats_manual_paper() -> Evidence:
    return Evidence(_opti_minus_man("jiang2020_lpaqa_uhn"), "LPAQA Table 9, printed values")


def _lms() -> pd.DataFrame:
    return reported("jiang2020_lpaqa_lms").set_index("model")


#: the printed ERNIE - BERT differences: "by 1 point even with the manually defined prompts",
#: "the highest accuracy numbers differing by 4.2 points using the Mine+Man method"
ERNIE_GAPS = {"man": 1.0, "mine_man": 4.2}


def ernie_beats_bert(evidence: Evidence) -> Judgement:
    """``ernie_beats_bert``: ERNIE - BERT above 0 with the manual prompts and with every prompt
    set's optimised ensemble; and by the printed sizes within the printed precision (column
    ``size``): 1 point with the manual prompts, 4.2 with Mine+Man."""
    what = "accuracy(ERNIE) - accuracy(BERT)"
    return all_parts(
        evidence,
        [
            ("above BERT", quantifiers.every(evidence, ">", 0.0, unit="column", what=what)),
            ("by the printed 1 and 4.2 points", reaches_size(evidence, what, "column")),
        ],
    )


def ernie_beats_bert_paper() -> Evidence:
    t = _lms()
    cols = {"man": "Man", **SET_COLUMNS}
    return Evidence(
        _printed(
            [
                (name, t.at["ERNIE", c] - t.at["BERT", c], ERNIE_GAPS.get(c, float("nan")))
                for c, name in cols.items()
            ],
            terms=2,
            extra=("size",),
        ),
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
        _printed([(name, gap[c] - gap["man"]) for c, name in SET_COLUMNS.items()], terms=4),
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
        _printed(
            [(name, t.at["KnowBert", c] - t.at["BERT", c]) for c, name in cols.items()], terms=2
        ),
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
        "every prompt set's optimised ensemble (Table 8), by the printed sizes within the "
        "printed precision: 1 point with the manual prompts, 4.2 with Mine+Man",
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
        f"the manual prompts by a large margin, at least {LARGE:g} points (calib's reading of "
        "'a large margin'), for both models (Table 9)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and BERT-large",
        chapter="lpaqa",
        rule=uhn_beats_manual,
        paper_evidence=uhn_beats_manual_paper,
        build_evidence=not_in_this_build(NO_UHN),
        needs=UHN_NEEDS,
    ),
    Claim(
        key="uhn_drop",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="Although the overall performances drop dramatically compared to the "
        "performances on the original LAMA benchmark",
        statement="Accuracy on T-REx-UHN is far below that on T-REx for the same model and "
        f"method (Man and each set's Opti.): by at least {DRAMATIC:g} points (reading A) and "
        f"by at least {DRAMATIC_SHARE:.0%} of the T-REx accuracy (reading B), for every unit; "
        "two fair readings of 'drop dramatically' (calib's thresholds), both judged and shown "
        "(undecided where they disagree)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and BERT-large",
        chapter="lpaqa",
        rule=uhn_drop,
        paper_evidence=uhn_drop_paper,
        build_evidence=not_in_this_build(NO_UHN),
        needs=UHN_NEEDS,
    ),
)
