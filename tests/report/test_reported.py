"""The reported-numbers files: they load, carry their provenance, hold plausible values, and name
models that calib knows; the loader rejects malformed files with a message that says where."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from calib.data.errors import DataFormatError
from calib.report import reported as rep

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


def test_paper_models_csv():
    rows = _paper_models()
    assert list(rows[0]) == ["name", "hub_id", "objective", "size", "family", "source",
                             "hub_id_source", "size_source"]
    names = [r["name"] for r in rows]
    assert len(set(names)) == len(names)
    assert len({r["hub_id"] for r in rows}) == len(rows)
    for r in rows:
        assert r["name"] == r["name"].lower() and " " not in r["name"]
        assert r["objective"] in ("clm", "mlm")
        assert "/" in r["hub_id"] and r["size"] and r["family"] and r["source"]
    # the abstract of arXiv v1 counts ten causal and six masked models; the repo list matches
    from_repo = [r for r in rows if r["hub_id_source"].startswith("authors' repo")]
    assert sum(r["objective"] == "clm" for r in from_repo) == 10
    assert sum(r["objective"] == "mlm" for r in from_repo) == 6
    unverified = [r for r in rows if r not in from_repo]
    assert all("UNVERIFIED" in r["source"] for r in unverified)


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


def test_not_recovered_table_keeps_its_declared_layout():
    frame = rep.reported("kissling2026_table1")
    assert frame.attrs["status"] == "not_recovered"
    assert {"model", "registry_name", "estimator", "ace", "brier"} <= set(frame.columns)
    assert "kissling2026_table1" not in rep.available_tables()


def test_unknown_table_names_the_known_ones():
    with pytest.raises(KeyError, match="kissling2026_table1"):
        rep.reported("no_such_table")


# ----- the loader rejects malformed files -------------------------------------------------------

def _good_doc(table_id: str = "t") -> dict:
    return {
        "id": table_id, "status": "complete", "label": "reported in the paper",
        "paper": {"citation": "A (2026)", "arxiv_id": "1", "arxiv_version": "v1",
                  "arxiv_url": "https://arxiv.org/abs/1"},
        "table": "Table 9", "section": "5", "source": {"kind": "paper", "where": "p. 3"},
        "caption": "c",
        "columns": [{"name": "model", "unit": "label", "description": "m"},
                    {"name": "ace", "unit": "fraction", "description": "a"}],
        "rows": [["gpt2", 0.25]],
    }


def _write(tmp_path: Path, doc: dict, table_id: str = "t") -> Path:
    (tmp_path / f"{table_id}.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    return tmp_path


def test_a_good_file_loads(tmp_path):
    frame = rep.reported("t", _write(tmp_path, _good_doc()))
    assert frame["ace"].tolist() == [0.25]
    assert rep.available_tables(tmp_path) == ["t"]


@pytest.mark.parametrize("change, field", [
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
])
def test_a_malformed_file_is_rejected_with_file_and_field(tmp_path, change, field):
    doc = _good_doc()
    change(doc)
    folder = _write(tmp_path, doc)
    with pytest.raises(DataFormatError) as err:
        rep.reported("t", folder)
    assert "t.yaml" in str(err.value) and err.value.field == field
