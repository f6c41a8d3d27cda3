"""The LPAQA chapter's claims on prompt selection and ensembles (Jiang et al. 2020, the abstract,
§5.1, §5.2; Table 2): the best methods against the manual prompts, the ensembles against top-1,
the optimised ensemble against the rank-based ones, and the oracle as their bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.lpaqa.claims.evidence import (
    MACRO_BLANK,
    MODELS_PAPER,
    TABLE2,
    UNASSIGNED_NOTE,
    _build,
    _man,
    _printed,
    _runs,
    _trex,
)
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement

if TYPE_CHECKING:
    from calib.experiments.lpaqa import LpaqaResult

# lpaqa_beats_manual: "the best of the proposed prompt generation methods increases
# micro-averaged accuracy from 31.1% to 34.1% on BERT-base, and from 32.3% to 39.4% on
# BERT-large ... the manually created prompts are a somewhat weak lower bound"


def top1_beats_manual(evidence: Evidence) -> Judgement:
    """``lpaqa_beats_manual``: per model, the best Top1 over the paper's prompt sets minus the
    manual prompt's micro accuracy is above 0, for every model."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        unit="model",
        what="best Top1 over the prompt sets - manual prompt (micro)",
    )


def top1_beats_manual_paper() -> Evidence:
    micro, man = _trex(), _man()
    best = micro.groupby("model")["top1"].max()
    return Evidence(_printed([(m, best[m] - man[m]) for m in MODELS_PAPER]), TABLE2)


def top1_beats_manual_build(result: LpaqaResult) -> Evidence:
    return _build(result, "best_top1_vs_manual")


# lpaqa_ensembles: "ensembling multiple prompts almost always leads to better ..."


def _rank_units(cols: Sequence[str], against: str) -> list[tuple]:
    """Paper units ``(model, set, column)``: the printed ``column - against`` of Table 2
    (micro) for each of ``cols`` (``top3``, ``top5``, ``opti``) and each prompt set. BERT-large's
    Top3 and Top5 cells are blank (their two runs' order is not fixed): in their place come its
    two runs, ``Top3 or Top5 (run a)`` and ``(run b)``, which is the same pair of comparisons
    whichever run is which."""
    runs = _runs()
    rows = []
    for r in _trex().to_dict("records"):
        values = []
        for c in cols:
            if pd.notna(r[c]):
                values.append((c.title(), r[c]))
        if r["model"] == "BERT-large" and ("top3" in cols or "top5" in cols):
            values += [
                (f"Top3 or Top5 ({run.replace('_', ' ')})", runs.at[r["prompts"], run])
                for run in ("run_a", "run_b")
            ]
        rows += [
            (f"{r['model']}, {r['prompts']}, {name}", value - r[against]) for name, value in values
        ]
    return rows


def ensembles_beat_top1(evidence: Evidence) -> Judgement:
    """``lpaqa_ensembles``: ensemble - Top1 of the same prompt set above 0 for *most*
    comparisons (the paper's "almost always")."""
    return quantifiers.most(
        evidence, ">", 0.0, what="accuracy(ensemble) - accuracy(Top1)", unit="comparison"
    )


def ensembles_beat_top1_paper() -> Evidence:
    return Evidence(_printed(_rank_units(["top3", "top5", "opti"], "top1")), TABLE2)


def ensembles_beat_top1_build(result: LpaqaResult) -> Evidence:
    return _build(result, "ensemble_vs_top1")


# top5_beats_top1: "The simple average used in Top3 and Top5 outperforms Top1 across different
# prompt generation methods"


def rank_beats_top1(evidence: Evidence) -> Judgement:
    """``top5_beats_top1``: the rank-based Top3 and Top5 ensembles beat Top1 in every prompt
    set, for every model."""
    return quantifiers.every(
        evidence, ">", 0.0, what="accuracy(TopK) - accuracy(Top1)", unit="comparison"
    )


def rank_beats_top1_paper() -> Evidence:
    return Evidence(_printed(_rank_units(["top3", "top5"], "top1")), TABLE2)


def rank_beats_top1_build(result: LpaqaResult) -> Evidence:
    ks = tuple(f"top-{k}" for k in result.params.ensemble_k if k > 1)
    return _build(result, "ensemble_vs_top1", a=ks)


# lpaqa_optimised: "outperforming the rank-based ensemble by a large margin"


def optimised_beats_rank(evidence: Evidence) -> Judgement:
    """``lpaqa_optimised``: Opti. - TopK of the same prompt set above 0, for every prompt set,
    K and model (the rule tests the direction; "a large margin" has no threshold in the
    paper, the sizes are in the evidence)."""
    return quantifiers.every(
        evidence, ">", 0.0, what="accuracy(Opti.) - accuracy(TopK)", unit="comparison"
    )


def optimised_beats_rank_paper() -> Evidence:
    micro = _trex()
    runs = _runs()
    rows = []
    for r in micro.to_dict("records"):
        if r["model"] == "BERT-large":
            for run in ("run_a", "run_b"):
                rows.append(
                    (
                        f"BERT-large, {r['prompts']}, Opti. vs Top3 or Top5 "
                        f"({run.replace('_', ' ')})",
                        r["opti"] - runs.at[r["prompts"], run],
                    )
                )
        else:
            rows += [
                (f"{r['model']}, {r['prompts']}, Opti. vs {c.title()}", r["opti"] - r[c])
                for c in ("top3", "top5")
            ]
    return Evidence(_printed(rows), TABLE2)


def optimised_beats_rank_build(result: LpaqaResult) -> Evidence:
    return _build(result, "optimized_vs_rank")


# abstract_gain: "our methods can improve accuracy from 31.1% to 39.6%"


def abstract_gain(evidence: Evidence) -> Judgement:
    """``abstract_gain``: the optimised ensemble of Mine+Man beats the manual prompts (micro),
    for every model (the abstract's numbers are BERT-base's, Table 2)."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        unit="model",
        what="accuracy(Opti. of Mine+Man) - accuracy(manual prompt)",
    )


def abstract_gain_paper() -> Evidence:
    ab = reported("jiang2020_lpaqa_abstract").set_index("quantity")["accuracy"]
    before = float(ab[ab.index.str.startswith("before")].iloc[0])
    after = float(ab[ab.index.str.startswith("after")].iloc[0])
    micro = _trex().set_index(["model", "prompts"])
    table = float(micro.at[("BERT-base", "Mine+Man"), "opti"]) - _man()["BERT-base"]
    return Evidence(
        _printed(
            [
                ("BERT-base (abstract: 31.1% -> 39.6%)", after - before),
                ("BERT-base (Table 2: Man, Mine+Man Opti.)", table),
            ]
        ),
        "LPAQA abstract and Table 2, printed values",
    )


def abstract_gain_build(result: LpaqaResult) -> Evidence:
    return _build(result, "abstract_gain")


# oracle_upper_bound: "Oracle represents the upper bound of the performance of the generated
# prompts"


def oracle_upper_bound(evidence: Evidence) -> Judgement:
    """``oracle_upper_bound``: Oracle - the best other method of the same prompt set is at
    least 0, for every prompt set and model."""
    return quantifiers.every(
        evidence,
        ">=",
        0.0,
        unit="prompt set",
        what="accuracy(Oracle) - max(accuracy of Top1, TopK, Opti.)",
    )


def oracle_upper_bound_paper() -> Evidence:
    micro = _trex()
    runs = _runs()
    rows = []
    for r in micro.to_dict("records"):
        others = [r["top1"], r["opti"]]
        if r["model"] == "BERT-large":
            others += [runs.at[r["prompts"], "run_a"], runs.at[r["prompts"], "run_b"]]
        else:
            others += [r["top3"], r["top5"]]
        rows.append((f"{r['model']}, {r['prompts']}", r["oracle"] - max(others)))
    return Evidence(_printed(rows), TABLE2)


def oracle_upper_bound_build(result: LpaqaResult) -> Evidence:
    return _build(result, "oracle_bound")


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="abstract_gain",
        paper="jiang2020",
        section="LPAQA Abstract",
        quote="our methods can improve accuracy from 31.1%",
        statement="The optimised ensemble of the generated prompts (Mine+Man, Table 2's "
        "39.6%) is more accurate (micro) than the manual prompts (31.1%), for every "
        "model",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base in the paper; every model of the build",
        chapter="lpaqa",
        rule=abstract_gain,
        paper_evidence=abstract_gain_paper,
        build_evidence=abstract_gain_build,
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="oracle_upper_bound",
        paper="jiang2020",
        section="LPAQA §5.1",
        quote="Oracle represents the upper bound of the performance of the generated prompts",
        statement="The oracle is at least as accurate as every other method (Top1, TopK, "
        "Opti.) of the same prompt set, for every prompt set and model",
        quantifier="every",
        metrics=("micro accuracy", "macro accuracy"),
        about="BERT-base and BERT-large; every model of the build",
        chapter="lpaqa",
        rule=oracle_upper_bound,
        paper_evidence=oracle_upper_bound_paper,
        build_evidence=oracle_upper_bound_build,
        paper_note=f"{UNASSIGNED_NOTE}; {MACRO_BLANK}",
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="lpaqa_beats_manual",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="the manually created prompts are a somewhat weak lower bound",
        statement='The best Top1 prompt over the prompt sets ("the best of the proposed '
        'prompt generation methods": 31.1% -> 34.1% on BERT-base, 32.3% -> 39.4% '
        "on BERT-large) beats the manual prompt in micro accuracy, for every model",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and BERT-large; every model of the build",
        chapter="lpaqa",
        rule=top1_beats_manual,
        paper_evidence=top1_beats_manual_paper,
        build_evidence=top1_beats_manual_build,
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="lpaqa_ensembles",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="ensembling multiple prompts almost always leads to better",
        statement="An ensemble (Top3, Top5, Opti.) beats Top1 of the same prompt set for most "
        '(model, prompt set, ensemble) comparisons ("almost always"); in this '
        "build in micro and in macro accuracy",
        quantifier="most",
        metrics=("micro accuracy", "macro accuracy"),
        about="BERT-base and BERT-large, the four prompt sets; every model of the build",
        chapter="lpaqa",
        rule=ensembles_beat_top1,
        paper_evidence=ensembles_beat_top1_paper,
        build_evidence=ensembles_beat_top1_build,
        paper_note=f"{UNASSIGNED_NOTE}; {MACRO_BLANK}",
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="top5_beats_top1",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="Top5 outperforms Top1 across different prompt generation methods",
        statement='The rank-based ensembles ("The simple average used in Top3 and Top5") '
        "beat Top1 in every prompt set, for every model",
        quantifier="every",
        metrics=("micro accuracy", "macro accuracy"),
        about="BERT-base and BERT-large, the four prompt sets; every model of the build",
        chapter="lpaqa",
        rule=rank_beats_top1,
        paper_evidence=rank_beats_top1_paper,
        build_evidence=rank_beats_top1_build,
        paper_note=f"{UNASSIGNED_NOTE}; whichever order, BERT-large's Mine row has Top3 and "
        f"Top5 of 37.0 and 36.4 against a Top1 of 37.0; {MACRO_BLANK}",
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="lpaqa_optimised",
        paper="jiang2020",
        section="LPAQA §5.2",
        quote="outperforming the rank-based ensemble by a large margin",
        statement="The optimised ensemble beats the rank-based ensembles (Top3, Top5) of the "
        "same prompt set in micro accuracy, for every prompt set and model (the "
        'direction is tested; the paper gives "a large margin" no threshold)',
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and BERT-large, the four prompt sets; every model of the build",
        chapter="lpaqa",
        rule=optimised_beats_rank,
        paper_evidence=optimised_beats_rank_paper,
        build_evidence=optimised_beats_rank_build,
        paper_note=UNASSIGNED_NOTE,
        needs="any model on LAMA T-REx",
    ),
)
