"""The reported-numbers files: they load, carry their provenance, hold plausible values, and name
models that calib knows; the loader rejects malformed files with a message that says where."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from calib.data import reported as rep
from calib.data.errors import DataFormatError

PAPER_MODELS = Path(rep.__file__).parents[1] / "models" / "paper_models.csv"
ALL = rep.all_tables()


def _paper_models() -> list[dict]:
    with open(PAPER_MODELS, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_the_directory_holds_tables_of_both_papers():
    assert any(t.startswith("kissling2026_") for t in ALL)
    assert any(t.startswith("jiang2020_") for t in ALL)
    assert set(rep.available_tables()) <= set(ALL)
    assert rep.available_tables(), "no table with values"


@pytest.mark.parametrize("table_id", ALL)
def test_every_file_loads_with_its_metadata(table_id):
    frame = rep.reported(table_id)
    meta = frame.attrs
    assert meta["id"] == table_id
    for key in ("label", "table", "section", "caption"):
        assert isinstance(meta[key], str) and meta[key].strip(), key
    for key in rep.PAPER_KEYS:
        assert meta["paper"][key].strip(), key
    assert meta["source"]["kind"] in rep.SOURCE_KINDS
    assert "reported" in meta["label"], "the label must say the values are reported, not ours"
    assert list(frame.columns) == [c["name"] for c in meta["columns"]]
    if meta["status"] == "not_recovered":
        assert frame.empty and meta["missing"].strip()
    else:
        assert len(frame) > 0
    if meta["source"]["kind"] == "repository":
        assert len(meta["source"]["commit"]) == 40


@pytest.mark.parametrize("table_id", ALL)
def test_values_are_numbers_in_their_unit_range(table_id):
    frame = rep.reported(table_id)
    for col in frame.attrs["columns"]:
        values = frame[col["name"]].dropna()
        if col["unit"] == "label":
            assert all(isinstance(v, str) and v for v in values)
            continue
        assert pd.api.types.is_numeric_dtype(frame[col["name"]])
        if col["unit"] == "fraction":  # the calibration paper: accuracy, ACE, Brier in [0, 1]
            assert values.between(0, 1).all(), col["name"]
        elif col["unit"] == "percent":  # LPAQA and FACTOR accuracy, printed in percent
            assert values.between(0, 100).all(), col["name"]
        elif col["unit"] == "count":
            assert (values >= 0).all(), col["name"]


@pytest.mark.parametrize("table_id", ALL)
def test_registry_names_are_rows_of_paper_models(table_id):
    frame = rep.reported(table_id)
    if "registry_name" not in frame.columns:
        return
    names = {row["name"] for row in _paper_models()}
    unknown = set(frame["registry_name"].dropna()) - names
    assert not unknown, f"{table_id}: not in paper_models.csv: {sorted(unknown)}"


def test_base_ace_of_the_figure_legend_agrees_with_the_repository():
    """Two independent transcriptions: the legend's C_Base ACE (3 decimals) and the unrounded
    C_Base ACE of the Sum reduction stored in the repository."""
    legend = rep.reported("kissling2026_fig_calibration_curves_estimates_legend")
    repo = rep.reported("kissling2026_repo_reduction_strategies")
    sums = repo[repo["reduction_label"] == "Sum"].set_index("registry_name")["ace"]
    base = legend[legend["estimator"] == "C_Base"]
    assert len(base) == 3
    for name, ace in zip(base["registry_name"], base["ace"]):
        assert math.isclose(round(sums[name], 3), ace), name


def test_the_repository_legend_equals_table1_and_is_labelled_as_the_repository():
    legend = rep.reported("kissling2026_fig_calibration_curves_estimates_legend")
    t1 = rep.reported("kissling2026_table1").set_index("registry_name")
    column = {"C_Base": "ace_base", "C_Margin": "ace_margin", "C_Average^Min": "ace_average"}
    shown = legend[legend["estimator"].isin(list(column))]
    assert len(shown) == 9
    for row in shown.itertuples():
        assert t1.at[row.registry_name, column[row.estimator]] == row.ace
    epistemic = rep.metadata("kissling2026_fig_calibration_curves_epistemic_legend")
    assert epistemic["source"]["kind"] == "repository"
    assert "not the paper's Figure 6" in epistemic["label"]
    assert "gemma-3-4b and gemma-3-12b" in epistemic["notes"]


def test_unknown_table_names_the_known_ones():
    with pytest.raises(KeyError, match="kissling2026_table1"):
        rep.reported("no_such_table")


# ----- the transcribed tables: shapes --------------------------------------------------------


def _objective(table_id: str) -> pd.Series:
    spec = {r["name"]: r["objective"] for r in _paper_models()}
    return rep.reported(table_id)["registry_name"].map(spec)


def test_table1_has_25_models_17_causal_and_8_masked():
    t1 = rep.reported("kissling2026_table1")
    assert len(t1) == 25 and t1["registry_name"].is_unique
    assert _objective("kissling2026_table1").value_counts().to_dict() == {"clm": 17, "mlm": 8}
    assert t1.drop(columns=["model", "registry_name"]).notna().all().all()
    assert t1.shape[1] == 2 + 4 + 5  # ACE of four estimators, Brier of five


def test_table2_has_six_pairs_of_a_causal_then_a_masked_model():
    t2 = rep.reported("kissling2026_table2")
    assert len(t2) == 12
    assert t2["pair"].tolist() == [p for p in range(1, 7) for _ in range(2)]
    assert t2["objective"].tolist() == ["CLM", "MLM"] * 6
    assert (_objective("kissling2026_table2").str.upper() == t2["objective"]).all()


def test_table3_has_29_models_21_causal_8_masked_and_marks_the_instruction_tuned():
    t3 = rep.reported("kissling2026_table3")
    assert len(t3) == 29 and t3["registry_name"].is_unique
    assert t3["objective"].value_counts().to_dict() == {"CLM": 21, "MLM": 8}
    it = t3[t3["instruction_tuned"] == "yes"]
    assert len(it) == 11 and it["model"].str.endswith("(IT)").all()
    assert set(it["registry_name"]) >= {"gemma-3-270m-it", "llama-3.2-1b-instruct", "qwen3.5-0.8b"}


def test_table4_has_16_causal_models():
    t4 = rep.reported("kissling2026_table4")
    assert len(t4) == 16
    assert set(_objective("kissling2026_table4")) == {"clm"}


def test_the_paper_models_csv_agrees_with_table3():
    t3 = rep.reported("kissling2026_table3")
    rows = _paper_models()
    assert [r["name"] for r in rows] == t3["registry_name"].tolist()
    for r, printed in zip(rows, t3.itertuples()):
        assert r["paper_name"] == printed.model
        assert r["objective"] == printed.objective.lower()
        assert r["instruction_tuned"] == printed.instruction_tuned


def test_the_lpaqa_table_leaves_unassigned_cells_blank_and_says_which():
    trex = rep.reported("jiang2020_lpaqa_trex")
    assert len(trex) == 16 and trex.attrs["status"] == "partial"
    values = trex[["top1", "top3", "top5", "opti", "oracle"]]
    assert int(values.isna().sum().sum()) == 40
    large_micro = trex[(trex["model"] == "BERT-large") & (trex["averaging"] == "micro")]
    assert large_micro[["top3", "top5"]].isna().all().all()
    assert trex.loc[trex["averaging"] == "macro", "opti"].notna().all()
    for run in ("37.0, 40.6, 38.6, 37.3", "20.7, 21.3, 21.2, 22.8"):
        assert run in trex.attrs["missing"]


def test_text_numbers_have_unique_keys_and_units():
    nums = rep.reported("kissling2026_text_numbers")
    assert nums["key"].is_unique
    assert set(nums["relation"]) <= {"=", "<", "<=", "about"}
    assert set(nums["value_unit"]) <= {
        "fraction",
        "percent",
        "percentage points",
        "count",
        "million parameters",
    }
    frac = nums[nums["value_unit"] == "fraction"]["value"]
    assert frac.between(0, 1).all()


# ----- the transcribed tables: every cell against the paper's text ----------------------------


def _tsv_rows(text: str, header: str, n: int) -> list[list[str]]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    return [line.split("\t") for line in lines[start + 1 : start + 1 + n]]


def test_every_table1_cell_is_the_papers(paper_text):
    line = next(
        li
        for li in paper_text["kissling2026"].splitlines()
        if li.startswith("ACE ($\\downarrow$) Brier Score")
    )
    t1 = rep.reported("kissling2026_table1")
    for row in t1.itertuples(index=False):
        printed = re.search(re.escape(row.model) + r"((?: \d\.\d{3}){9})", line)
        assert printed, row.model
        assert [float(x) for x in printed.group(1).split()] == list(row[2:]), row.model


def test_every_cell_of_tables_2_3_4_is_the_papers(paper_text):
    text = paper_text["kissling2026"]
    t2 = rep.reported("kissling2026_table2")
    printed_rows = _tsv_rows(text, "Model\tAcc.\t$C_{\\text{Margin}}$", 12)
    for ours, printed in zip(t2.itertuples(index=False), printed_rows, strict=True):
        assert printed[0] == f"{ours.model} ({ours.size})"
        assert [float(x) for x in printed[1:]] == [
            ours.accuracy,
            ours.brier_margin,
            ours.brier_average,
        ]
    t3 = rep.reported("kissling2026_table3")
    printed_rows = _tsv_rows(text, "Model\t# Param.\tObjective\tAccuracy", 29)
    for ours, printed in zip(t3.itertuples(index=False), printed_rows, strict=True):
        assert printed == [ours.model, ours.parameters, ours.objective, f"{ours.accuracy:.1f}"]
    t4 = rep.reported("kissling2026_table4")
    for ours, printed in zip(
        t4.itertuples(index=False), _tsv_rows(text, "Model\t$Accuracy$", 16), strict=True
    ):
        assert printed[0] == ours.model
        assert [float(x) for x in printed[1:]] == list(ours[2:])


def test_every_quoted_sentence_is_in_the_paper(paper_text):
    flat = " ".join(paper_text["kissling2026"].split())
    nums = rep.reported("kissling2026_text_numbers")
    for key, quote in zip(nums["key"], nums["quote"]):
        assert " ".join(quote.split()) in flat, key


def test_a_few_text_numbers_against_the_tables():
    nums = rep.reported("kissling2026_text_numbers").set_index("key")["value"]
    t1 = rep.reported("kissling2026_table1").set_index("registry_name")
    t4 = rep.reported("kissling2026_table4").set_index("registry_name")
    assert t1.at["opt-6.7b", "ace_average"] == nums["average_ace_opt67b"] == 0.024
    assert t1.at["qwen3.5-9b", "ace_average"] == nums["average_ace_qwen9b"] == 0.034
    assert t4.at["opt-6.7b", "accuracy"] == nums["factor_opt67b_accuracy"]
    assert t4.at["opt-6.7b", "ace_base"] == nums["factor_opt67b_ace"]
    # Appendix F's FACTOR means are those of Table 4's first ten rows (the earlier version's)
    first10 = rep.reported("kissling2026_table4").head(10)
    # (printed to 3 decimals: 0.4755 as 0.475, 0.4457 as 0.446)
    assert abs(first10["ace_base"].mean() - nums["factor_mean_ace_base"]) <= 0.0005 + 1e-9
    assert abs(first10["ace_margin"].mean() - nums["factor_mean_ace_margin"]) <= 0.0005 + 1e-9
    sub = rep.reported("kissling2026_repo_answer_space_subsampling")
    gpt2_large = sub[(sub["registry_name"] == "gpt2-large") & (sub["sample_size"] == 5)]
    assert round(100 * gpt2_large["accuracy"].iloc[0], 2) == nums["bear5_gpt2_large_accuracy"]
    assert round(gpt2_large["ace"].iloc[0], 2) == nums["bear5_gpt2_large_ace"]


def test_table2_keeps_the_values_that_differ_from_table1_with_a_note():
    t1 = rep.reported("kissling2026_table1").set_index("registry_name")
    t2 = rep.reported("kissling2026_table2").set_index("registry_name")
    assert t2.at["gemma-3-270m-it", "brier_margin"] == 0.224
    assert t1.at["gemma-3-270m-it", "brier_margin"] == 0.218
    assert (
        t2.at["modernbert-base", "brier_margin"],
        t2.at["modernbert-base", "brier_average"],
    ) == (0.289, 0.152)
    assert (
        t1.at["modernbert-base", "brier_margin"],
        t1.at["modernbert-base", "brier_average"],
    ) == (0.279, 0.147)
    note = rep.metadata("kissling2026_table2")["notes"]
    for text in ("0.224", "0.289 / 0.152", "five model pairs"):
        assert text in note


def _runs(text: str) -> set[tuple[float, ...]]:
    """Every run of four consecutive number lines in the LPAQA text."""
    nums = [float(li) if re.fullmatch(r"\d+\.\d", li.strip()) else None for li in text.splitlines()]
    return {tuple(nums[i : i + 4]) for i in range(len(nums) - 3) if None not in nums[i : i + 4]}


def test_every_assigned_lpaqa_column_is_a_run_of_the_papers_text(paper_text):
    runs = _runs(paper_text["jiang2020"])
    trex = rep.reported("jiang2020_lpaqa_trex")
    checked = 0
    for (model, averaging), part in trex.groupby(["model", "averaging"]):
        assert part["prompts"].tolist() == ["Mine", "Mine+Man", "Mine+Para", "Man+Para"]
        for method in ("top1", "top3", "top5", "opti", "oracle"):
            column = part[method]
            if column.notna().all():
                assert tuple(column) in runs, (model, averaging, method)
                checked += 1
    assert checked == 10
    base = rep.reported("jiang2020_lpaqa_trex_baselines")
    for model, value in (("BERT-base", 31.1), ("BERT-large", 32.3)):
        assert f"{model} (Man={value})" in paper_text["jiang2020"]
        assert value in base["accuracy"].tolist()


# ----- the loader rejects malformed files -------------------------------------------------------


def _good_doc(table_id: str = "t") -> dict:
    return {
        "id": table_id,
        "status": "complete",
        "label": "reported in the paper",
        "paper": {
            "citation": "A (2026)",
            "arxiv_id": "1",
            "arxiv_version": "v1",
            "arxiv_url": "https://arxiv.org/abs/1",
        },
        "table": "Table 9",
        "section": "5",
        "source": {"kind": "paper", "where": "p. 3"},
        "caption": "c",
        "columns": [
            {"name": "model", "unit": "label", "description": "m"},
            {"name": "ace", "unit": "fraction", "description": "a"},
        ],
        "rows": [["gpt2", 0.25]],
    }


def _write(tmp_path: Path, doc: dict, table_id: str = "t") -> Path:
    (tmp_path / f"{table_id}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    return tmp_path


def test_a_number_column_takes_any_finite_number(tmp_path):
    doc = _good_doc()
    doc["columns"][1]["unit"] = "number"
    doc["rows"] = [["gpt2", -15], ["gpt2", 12000]]
    assert rep.reported("t", _write(tmp_path, doc))["ace"].tolist() == [-15.0, 12000.0]


def test_a_good_file_loads(tmp_path):
    frame = rep.reported("t", _write(tmp_path, _good_doc()))
    assert frame["ace"].tolist() == [0.25]
    assert rep.available_tables(tmp_path) == ["t"]


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda d: d["rows"].__setitem__(0, ["gpt2", 1.5]), "ace"),  # fraction out of range
        (lambda d: d["rows"].__setitem__(0, ["gpt2", "0.2"]), "ace"),  # a number as text
        (lambda d: d["rows"].__setitem__(0, ["gpt2"]), "rows"),  # a short row
        (lambda d: d.pop("caption"), "caption"),
        (lambda d: d["paper"].pop("arxiv_version"), "arxiv_version"),
        (lambda d: d.__setitem__("id", "other"), "id"),
        (lambda d: d.__setitem__("status", "done"), "status"),
        (lambda d: d["columns"][1].__setitem__("unit", "ratio"), "columns"),
        (lambda d: d.__setitem__("status", "partial"), "missing"),  # partial needs 'missing'
        (lambda d: d.update(status="not_recovered", missing="x"), "rows"),  # rows must be empty
    ],
)
def test_a_malformed_file_is_rejected_with_file_and_field(tmp_path, change, field):
    doc = _good_doc()
    change(doc)
    folder = _write(tmp_path, doc)
    with pytest.raises(DataFormatError) as err:
        rep.reported("t", folder)
    assert "t.yaml" in str(err.value) and err.value.field == field
