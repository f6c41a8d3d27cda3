"""The evidence the LPAQA chapter's claims share: the printed tables of T-REx, this build's
comparisons, and what the claims this build cannot test would need (data named relative to the
data root, ``CALIB_DATA_DIR``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from calib.data.reported import reported
from calib.experiments.lpaqa.accuracy import COMPARISONS
from calib.experiments.quantifiers import Evidence, printed

if TYPE_CHECKING:
    from calib.experiments.lpaqa import LpaqaResult

#: where this build's numbers come from (the evidence sentences)
BUILD_SOURCE = (
    "this build, 95% BCa intervals from a bootstrap of the test facts within each relation"
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


def _printed(rows: list[tuple], unit_cols: Sequence[str] = ("unit",)) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=[*unit_cols, "value"])
    return printed(frame, "value", list(unit_cols))


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
    return Evidence(
        frame.reset_index(drop=True),
        f"{BUILD_SOURCE} ({result.params.n_bootstrap} resamples), "
        f"{int(frame['n'].iloc[0])} facts of {int(frame['n_relations'].iloc[0])} "
        f"relations per model",
    )


# Tables 8-10 and 14: other LMs, LAMA-UHN, Google-RE, LM-aware prompts (not in this build)


def _opti_minus_man(table: str) -> pd.DataFrame:
    t = reported(table)
    rows = [
        (f"{r['model']}, {name}", r[c] - r["man"])
        for r in t.to_dict("records")
        for c, name in SET_COLUMNS.items()
    ]
    return _printed(rows)


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
