"""The evidence the LPAQA chapter's claims share: the printed tables of T-REx, this build's
comparisons, and what the claims this build cannot test would need (data named relative to the
data root, ``CALIB_DATA_DIR``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd

from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.lpaqa.accuracy import COMPARISONS
from calib.experiments.lpaqa.selection import NO_SET
from calib.experiments.quantifiers import Evidence, printed
from calib.experiments.verdicts import (
    Judgement,
    combine,
    readings,
)

if TYPE_CHECKING:
    from calib.experiments.lpaqa import LpaqaResult

#: where this build's numbers come from (the evidence sentences)
BUILD_SOURCE = (
    "this build, 95% BCa intervals from a bootstrap of the test facts within each relation"
)

#: the printed step of LPAQA's accuracies (percent, one decimal)
STEP = 0.1
#: calib's reading of the paper's words of size, in percentage points of accuracy (each rule
#: that uses one says so in its docstring and its claim's statement): "by a large margin",
#: "much higher", "much lower" -- at least 3 points (a tenth of BERT's ~31-39% accuracy)
LARGE = 3.0
#: "drop dramatically" -- by more than 5 points
DRAMATIC = 5.0
#: "increased significantly" (no test is printed) -- by at least 2 points
SIGNIFICANT = 2.0
#: "small", "slightly" -- within 1 point either way
SMALL = 1.0
#: a "weak" correlation -- a Pearson r below 0.3 (Cohen's "medium" begins at 0.3)
WEAK_R = 0.3


def size_floor(size: float) -> float:
    """The smallest true difference a printed difference ``size`` of two numbers printed to
    :data:`STEP` allows, ``size - STEP``: what "improves by ``size`` points" is tested against
    (a printed size tested within the printed precision)."""
    return size - STEP


def model_size(model: str, sizes: Mapping[str, float]) -> float:
    """The printed size that a model of this build is held to: its own where the paper prints
    one (a model named ``bert-base...`` or ``bert-large...``, also after an organisation's
    ``/``: BERT-base's, BERT-large's; not ``distilbert-base``), else the smallest
    printed size (what the paper reports for its weakest model)."""
    name = model.lower()
    for paper_model, size in sizes.items():
        if re.search(rf"(^|[/_.-]){re.escape(paper_model.lower())}", name):
            return size
    return min(sizes.values())


def reaches_size(evidence: Evidence, what: str, unit: str) -> Judgement:
    """The size part of a claim: each unit's number reaches its printed size (column ``size``)
    within the printed precision, ``number >= size - STEP`` (:func:`size_floor`), for every unit
    that has one (Holm's correction over the units); the evidence shows ``number - (size -
    STEP)``."""
    frame = evidence.frame
    if len(frame) and "size" not in frame.columns:
        return Judgement.untestable("the evidence has no printed size (column `size`)")
    if len(frame):
        frame = frame[frame["size"].notna()].reset_index(drop=True)
    if frame.empty:
        return quantifiers.every(
            Evidence.empty(evidence.missing or "no unit with a printed size", evidence.source),
            ">=",
            0.0,
            unit=unit,
            what=what,
        )
    frame = frame.copy()
    floor = frame["size"].astype(float) - STEP
    for c in ("difference", "low", "high"):
        frame[c] = frame[c] - floor
    return quantifiers.every(
        Evidence(frame, evidence.source, evidence.missing),
        ">=",
        0.0,
        unit=unit,
        what=f"{what} - (printed size - {STEP})",
    )


# ---------------------------------------------------------------------------------------------
# the claims (calib.experiments.claims): each rule is applied to the paper's printed tables and
# to this build's recorded result


MODELS_PAPER = ("BERT-base", "BERT-large")
#: reported tables' prompt-set columns (Tables 8-13) -> the paper's set names
SET_COLUMNS: dict[str, str] = {
    "mine": "Mine",
    "mine_man": "Mine+Man",
    "mine_para": "Mine+Para",
    "man_para": "Man+Para",
}
TABLE2 = "LPAQA Table 2 (micro), printed values"
UNASSIGNED_NOTE = (
    "BERT-large's Top3 and Top5 columns of Table 2 are two printed runs of four "
    "numbers whose order the text extraction does not fix "
    "(jiang2020_lpaqa_trex_unassigned: run a 37.0, 40.6, 38.6, 37.3; run b "
    "36.4, 38.4, 38.6, 38.0); they enter only comparisons that do not depend on "
    "that order, as 'Top3 or Top5 (run a/b)'"
)
MACRO_BLANK = (
    "Table 3's Top1, Top3, Top5 and Oracle columns are blank in the transcription "
    "(32 cells, jiang2020_lpaqa_trex's `missing`), so no macro comparison of them "
    "is judged on the paper's side"
)


def _trex(averaging: str = "micro") -> pd.DataFrame:
    trex = reported("jiang2020_lpaqa_trex")
    return trex[trex["averaging"] == averaging].reset_index(drop=True)


def _man(averaging: str = "micro") -> dict[str, float]:
    base_ = reported("jiang2020_lpaqa_trex_baselines")
    rows = base_[(base_["averaging"] == averaging) & (base_["baseline"] == "Man")]
    return dict(zip(rows["model"], rows["accuracy"]))


def _runs() -> pd.DataFrame:
    """BERT-large's Top3/Top5 runs of Table 2 (order not fixed), one row per prompt set."""
    return reported("jiang2020_lpaqa_trex_unassigned").set_index("prompts")


def _printed(
    rows: list[tuple],
    terms: int,
    step: float = STEP,
    unit_cols: Sequence[str] = ("unit",),
    extra: Sequence[str] = (),
) -> pd.DataFrame:
    """An evidence frame of printed numbers: ``rows`` of ``(*unit_cols, value, *extra)``, each
    value built from ``terms`` numbers printed to ``step`` (2 for a difference of two printed
    accuracies: its rounding is ``terms * step / 2``, :func:`calib.experiments.quantifiers.
    printed`)."""
    frame = pd.DataFrame(rows, columns=[*unit_cols, "value", *extra])
    return printed(frame, "value", list(unit_cols), step=step, terms=terms)


def all_parts(evidence: Evidence, parts: Sequence[tuple[str, Judgement]]) -> Judgement:
    """A claim of several parts on one evidence: :func:`calib.experiments.verdicts.combine` of
    them, or not testable, once, with the evidence's reason when it has no unit."""
    if evidence.frame.empty:
        return Judgement.untestable(evidence.missing or "no unit", evidence.source)
    return combine(parts)


def both_readings(evidence: Evidence, parts: Sequence[tuple[str, Judgement]]) -> Judgement:
    """A sentence of several fair readings on one evidence:
    :func:`calib.experiments.verdicts.readings` of them, or not testable, once, with the
    evidence's reason when it has no unit."""
    if evidence.frame.empty:
        return Judgement.untestable(evidence.missing or "no unit", evidence.source)
    return readings(parts)


def _part(evidence: Evidence, mask, missing: str = "") -> Evidence:
    """The rows ``mask`` of ``evidence`` (a part of a claim), with ``missing`` saying why the
    part may have none."""
    frame = evidence.frame[mask].reset_index(drop=True) if len(evidence.frame) else evidence.frame
    if frame.empty:
        return Evidence.empty(missing or evidence.missing or "no unit", evidence.source)
    return Evidence(frame, evidence.source, evidence.missing)


def _sized(evidence: Evidence, sizes: Mapping[str, float]) -> Evidence:
    """Build evidence with each unit's printed size (``size``: :func:`model_size` of its
    model)."""
    if evidence.frame.empty:
        return evidence
    frame = evidence.frame.assign(size=[model_size(m, sizes) for m in evidence.frame["model"]])
    return Evidence(frame, evidence.source, evidence.missing)


def _build(result: LpaqaResult, kind: str, **where) -> Evidence:
    """Evidence of one :data:`~calib.experiments.lpaqa.accuracy.COMPARISONS` kind of this build
    (rows where the ``where`` columns take the given values or, for a tuple, one of them)."""
    frame = result.comparisons[result.comparisons["kind"] == kind]
    for col, value in where.items():
        frame = frame[frame[col].isin(value if isinstance(value, tuple) else (value,))]
    if frame.empty:
        return Evidence.empty(
            f"this build has no {COMPARISONS[kind]!r} comparison (models "
            f"{', '.join(result.params.models)})"
        )
    frame = frame.reset_index(drop=True)
    # in percentage points, as the paper prints its accuracies (the size thresholds are points)
    frame = frame.assign(**{c: 100.0 * frame[c] for c in ("difference", "low", "high")})
    return Evidence(
        frame,
        f"{BUILD_SOURCE} ({result.params.n_bootstrap} resamples), "
        f"{int(frame['n'].iloc[0])} facts of {int(frame['n_relations'].iloc[0])} "
        f"relations per model, in percentage points",
    )


# the majority baseline beside every gain over the manual prompt

#: the majority baseline in words (this build's: counted on the training pairs)
MAJORITY_WORDS = (
    "the majority baseline (no model: always each relation's most frequent object among its "
    "training pairs)"
)


def _points(value: float, low: float, high: float) -> str:
    return f"{100 * value:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _diff(value: float, low: float, high: float) -> str:
    return f"{100 * value:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]"


def with_majority(
    evidence: Evidence, result: LpaqaResult, method: str, averaging: str = "micro"
) -> Evidence:
    """This build's ``evidence`` of a gain with the majority baseline beside it, in the
    sentence of its source (the rule does not read it): the baseline's ``averaging`` accuracy
    with its 95% interval and, per model, ``method`` (a ``vs_majority`` comparison's ``a``,
    e.g. ``"optimized of Mine+Man"``) minus the baseline, in points with its 95% paired
    interval. A gain over the manual prompt means little where the method does not beat
    always answering the most frequent object."""
    acc = result.accuracy
    base = acc[(acc["prompt_set"] == NO_SET) & (acc["method"] == "majority")]
    comp = result.comparisons
    rows = comp[
        (comp["kind"] == "vs_majority") & (comp["a"] == method) & (comp["averaging"] == averaging)
    ]
    if base.empty or rows.empty:
        return evidence
    b = base.iloc[0]
    each = "; ".join(
        f"{r['model']} {_diff(r['difference'], r['low'], r['high'])}"
        for r in rows.to_dict("records")
    )
    beside = (
        f"beside it, {MAJORITY_WORDS}: {averaging} accuracy "
        f"{_points(b[averaging], b[f'{averaging}_low'], b[f'{averaging}_high'])}; "
        f"{method} - majority, in points: {each}"
    )
    source = f"{evidence.source}; {beside}" if evidence.source else beside
    return replace(evidence, source=source)


def paper_majority(evidence: Evidence, averaging: str = "micro") -> Evidence:
    """The paper's ``evidence`` of a gain with its Majority baseline beside it (22.0% micro,
    2.2% macro: §5.1 and the captions of Tables 2 and 3), in the sentence of its source."""
    base_ = reported("jiang2020_lpaqa_trex_baselines")
    rows = base_[(base_["baseline"] == "Majority") & (base_["averaging"] == averaging)]
    if rows.empty:
        return evidence
    value = float(rows["accuracy"].iloc[0])
    return replace(
        evidence,
        source=f"{evidence.source}; beside it, the paper's Majority baseline (each relation's "
        f"most frequent object): {value:.1f}% {averaging}",
    )


# Tables 8-10 and 14: other LMs, LAMA-UHN, Google-RE, LM-aware prompts (not in this build)


def _opti_minus_man(table: str) -> pd.DataFrame:
    t = reported(table)
    rows = [
        (f"{r['model']}, {name}", r[c] - r["man"])
        for r in t.to_dict("records")
        for c, name in SET_COLUMNS.items()
    ]
    return _printed(rows, terms=2)


UHN_NEEDS = (
    "LAMA-UHN's T-REx subset (T-REx-UHN, Poerner et al. 2019: LAMA T-REx without the "
    "facts whose object a string match on the subject's name gives away); this "
    "build's data has LAMA T-REx only (`lama/facts/` under the data root, "
    "`CALIB_DATA_DIR`); UHN's filter "
    "applied to it, or its released files, would test it"
)
GOOGLE_NEEDS = (
    "LAMA's Google-RE subset (3 relations: place of birth, date of birth, place of "
    "death) with test facts; this build's data has no Google-RE facts (only the "
    "relation list names them)"
)
LMS_NEEDS = (
    "ERNIE (Zhang et al. 2019) and KnowBert (Peters et al. 2019), BERT models with "
    "entity embeddings, beside BERT-base in one build; calib's model registry has "
    "neither"
)
LM_AWARE_NEEDS = (
    "§6.1's LM-aware refinement (mask one prompt token at a time, replace it by the "
    "masked LM's most probable token given T-REx-train pairs, until convergence), "
    "which calib does not implement (§6 lists it among the omitted design "
    "elements)"
)
BERT_NEEDS = "BERT-base and BERT-large on LAMA T-REx in one build (`calib book --profile paper`)"


def not_in_this_build(missing: str) -> Callable[[LpaqaResult], Evidence]:
    """The build evidence of a claim this build's data or models cannot test: no unit, with
    what is missing (the rule then says "not testable")."""

    def evidence(result: LpaqaResult) -> Evidence:
        return Evidence.empty(
            missing, f"this build ({', '.join(result.params.models)} on LAMA T-REx)"
        )

    return evidence


NO_UHN = "this build's data has no LAMA-UHN"
NO_GOOGLE = "this build's data has no Google-RE facts"
NO_LMS = "this build has neither ERNIE nor KnowBert"
NO_LM_AWARE = "calib does not implement §6.1's LM-aware prompt refinement"
NO_BERTS = "this build has not BERT-base and BERT-large"
