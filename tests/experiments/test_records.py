"""A chapter's recorded result: written atomically beside the executed notebook, read back as
its typed object with the same frames (dtypes kept), values and parameters."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from calib.experiments import records
from calib.experiments.reductions import Params, ReductionsResult


def _result(seed: int = 0, n_bootstrap: int = 10) -> ReductionsResult:
    frame = pd.DataFrame(
        {
            "model": ["a", "b"],
            "n": np.array([3, 4], dtype=np.int64),
            "ace": [0.1, np.nan],
            "correct": [True, False],
            "label": pd.Categorical(["Sum", "Mean"]),
        }
    )
    empty = pd.DataFrame(
        {"objective": pd.Series([], dtype=object), "difference": pd.Series([], dtype=float)}
    )
    return ReductionsResult(
        params=Params(models=("a", "b"), per_relation=None, seed=seed, n_bootstrap=n_bootstrap),
        objectives={"a": "clm", "b": "mlm"},
        n_relations=5,
        n_facts=10,
        table=frame,
        means=frame.iloc[:1],
        h_differences=empty,
        mean_vs_sum=frame,
        histograms=frame,
        shape=frame,
        authors_means=frame,
    )


def test_a_record_round_trips_frames_values_and_parameters(tmp_path):
    result = _result()
    path = records.write_record(result, tmp_path / "chapters")
    assert path == records.record_path("reductions", tmp_path)
    back = records.load_record("reductions", tmp_path)
    assert type(back) is ReductionsResult and back.params == result.params
    assert back.params.models == ("a", "b")  # tuples again
    assert back.objectives == result.objectives and back.n_facts == 10
    pd.testing.assert_frame_equal(back.table, result.table)  # dtypes kept (int, bool, category)
    pd.testing.assert_frame_equal(back.h_differences, result.h_differences)
    manifest = records.read_manifest(path)
    assert manifest["result_class"] == "calib.experiments.reductions:ReductionsResult"
    assert manifest["fields"]["table"] == {"kind": "frame", "file": "table.parquet"}
    assert json.loads((path / "params.json").read_text())["models"] == ["a", "b"]


def test_a_new_record_replaces_the_old_only_when_complete(tmp_path):
    records.write_record(_result(seed=1), tmp_path / "chapters")
    bad = ReductionsResult(**{**_result(seed=2).__dict__, "n_facts": object()})
    with pytest.raises(TypeError, match=r"ReductionsResult.n_facts: a object cannot be recorded"):
        records.write_record(bad, tmp_path / "chapters")
    assert records.load_record("reductions", tmp_path).params.seed == 1  # the old one is intact
    assert [p.name for p in (tmp_path / "chapters").iterdir()] == ["reductions.result"]
    records.write_record(_result(seed=3), tmp_path / "chapters")
    assert records.load_record("reductions", tmp_path).params.seed == 3


def test_record_writes_only_inside_a_book_run(tmp_path, monkeypatch):
    monkeypatch.delenv(records.RECORD_ENV, raising=False)
    assert records.record(_result()) is None
    with records.recording_into(tmp_path / "run"):
        path = records.record(_result())
    assert path == tmp_path / "run" / "reductions.result" and (path / "manifest.json").is_file()
    with pytest.raises(FileNotFoundError, match="calib run ledger"):
        records.load_record("ledger", tmp_path)


#: every chapter that records its result
CHAPTER_UNITS = (
    "calibration",
    "linguistic",
    "answer_set",
    "clm_vs_mlm",
    "lpaqa",
    "reductions",
    "factor",
    "start_tokens",
    "ledger",
)


def test_a_record_names_classes_that_live_in_the_chapters_package():
    """A manifest names its result and Params classes by ``module:qualname``; in every chapter
    both are defined in ``calib.experiments.<chapter>`` itself (a package's ``__init__``), so
    records written before a chapter became a package, or before its steps move between its
    modules, still load."""
    import dataclasses
    import importlib

    for chapter in CHAPTER_UNITS:
        module = importlib.import_module(f"calib.experiments.{chapter}")
        results = [
            v
            for v in vars(module).values()
            if isinstance(v, type)
            and dataclasses.is_dataclass(v)
            and "params" in {f.name for f in dataclasses.fields(v)}
        ]
        assert len(results) == 1, (chapter, results)
        assert results[0].__module__ == module.__name__, chapter
        assert module.Params.__module__ == module.__name__, chapter


def test_a_record_of_the_module_layout_loads(tmp_path):
    """A record as the chapters wrote it when each was one module (its manifest names
    ``calib.experiments.reductions:ReductionsResult``) reads back."""
    path = records.write_record(_result(), tmp_path)
    manifest = json.loads((path / records.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["result_class"] == "calib.experiments.reductions:ReductionsResult"
    assert manifest["params_class"] == "calib.experiments.reductions:Params"
    assert isinstance(records.load_record_folder(path), ReductionsResult)
