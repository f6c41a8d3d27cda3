"""The chapter units (``calib/experiments/<chapter>.py`` with ``Params``, ``run`` and
``CLAIMS``): each notebook's parameters cell equals its dataclass, the book reads the
parameters from the dataclass and refuses a cell that differs, the profiles reach only declared
parameters, and a chapter run records its result for the ledger, which then shows that run's
parameters and numbers (on the quick profile's tiny models)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from book_staging import REPO

from calib.book import PROFILES, ParameterError, chapter_parameters, chapters_in_toc, run_chapter
from calib.book.layout import ChapterFailed
from calib.book.parameters import cell_differences, cell_parameters, chapter_unit
from calib.experiments import records

UNITS = [name for name in chapters_in_toc(REPO) if chapter_unit(name) is not None]


def test_the_converted_chapters_are_units():
    assert {"reductions", "ledger"} <= set(UNITS)
    for name in UNITS:
        unit = chapter_unit(name)
        assert unit.Params.chapter == name and callable(unit.run)


@pytest.mark.parametrize("name", UNITS)
def test_the_notebooks_parameters_cell_equals_its_dataclass(name):
    """Names, order, types, defaults and help text: the cell is for papermill and readers, the
    dataclass is the home of the defaults."""
    declared = chapter_parameters(name, REPO)  # read from Params
    assert cell_differences(cell_parameters(name, REPO), declared) == []
    assert list(declared) == list(chapter_unit(name).Params.declared())


@pytest.mark.parametrize("name", UNITS)
def test_the_notebook_calls_run_once_and_records_its_result(name):
    cells = re.findall(
        r"```\{code-cell\}[^\n]*\n(.*?)\n```",
        (REPO / "notebooks" / f"{name}.md").read_text(encoding="utf-8"),
        re.S,
    )
    text = "\n".join(cells)
    assert text.count(f"{name}.run(") == 1, name
    assert text.count("records.record(result)") == 1, name
    assert f"{name}.Params.from_namespace(globals())" in text, name


def test_a_cell_that_differs_from_params_is_named_before_anything_runs(tmp_path):
    root = tmp_path / "book"
    (root / "notebooks").mkdir(parents=True)
    for item in ("_config.yml", "_toc.yml"):
        shutil.copy2(REPO / item, root / item)
    text = (REPO / "notebooks" / "reductions.md").read_text(encoding="utf-8")
    (root / "notebooks" / "reductions.md").write_text(
        text.replace("histogram_bins: int = 20", "histogram_bins: int = 10"), encoding="utf-8"
    )
    with pytest.raises(
        ParameterError, match="histogram_bins: the cell's default is 10, Params' 20"
    ):
        run_chapter("reductions", "quick", root=root, log=None)


def test_every_profile_value_reaches_a_declared_parameter():
    for profile in PROFILES.values():
        for chapter, values in profile.chapters.items():
            assert set(values) <= set(chapter_parameters(chapter, REPO)), (profile.name, chapter)


@pytest.mark.slow
def test_a_chapter_rerun_with_p_is_what_the_ledger_then_judges(tmp_path, quick_book, monkeypatch):
    """`calib run reductions -p per_relation 2 -p models ...` then the ledger: the ledger
    shows that run's parameters and judges its recorded numbers; a failed run after it leaves
    the record as it was. It reads the quick book's score cache (``conftest.quick_book``),
    whose larger sample of the same seed holds this one's: nothing is scored again."""
    monkeypatch.setenv("CALIB_CACHE_DIR", str(quick_book.cache))
    root = tmp_path / "book"
    root.mkdir()
    for item in ("_config.yml", "_toc.yml"):
        shutil.copy2(REPO / item, root / item)
    shutil.copytree(REPO / "notebooks", root / "notebooks")
    given = {"per_relation": 2, "models": ["tiny-gpt2", "tiny-bert"], "n_bootstrap": 10}
    run_chapter(
        "reductions", "quick", given, root=root, progress=False, stream_output=False, log=None
    )
    build = root / "_build"
    recorded = records.load_record("reductions", build)
    assert recorded.params.per_relation == 2 and recorded.params.models == (
        "tiny-gpt2",
        "tiny-bert",
    )
    manifest = records.read_manifest(records.record_path("reductions", build))
    assert (
        manifest["run"]["profile"] == "quick" and "-p per_relation 2" in manifest["run"]["command"]
    )

    run_chapter("ledger", "quick", root=root, progress=False, stream_output=False, log=None)
    judged = records.load_record("ledger", build)
    settings = judged.settings.set_index("chapter")
    assert settings.at["reductions", "status"] == "recorded"
    assert "per_relation = 2" in settings.at["reductions", "parameters"]
    assert "'tiny-gpt2', 'tiny-bert'" in settings.at["reductions", "parameters"]
    assert settings.at["reductions", "command"] == manifest["run"]["command"]
    rows = judged.table.set_index("key")
    first = recorded.h_differences.iloc[0]  # this run's numbers, as the chapter page shows them
    label = {"sum": "Sum", "mean": "Mean"}
    assert (
        f"{first['objective'].upper()}s: {label[first['a']]} vs {label[first['b']]}: "
        f"{first['difference']:.3f}"
    ) in rows.at["sum_reduction", "evidence"]
    assert rows.at["margin_bear", "verdict"] == "not run in this build"
    page = json.loads((build / "chapters" / "ledger.ipynb").read_text())
    assert any(
        "per_relation = 2" in "".join(o.get("data", {}).get("text/html", ""))
        for c in page["cells"]
        for o in c.get("outputs", [])
    )

    # a run that fails after recording leaves the previous record (and page) intact
    source = root / "notebooks" / "reductions.md"
    source.write_text(
        source.read_text() + "\n```{code-cell} ipython3\n:tags: [hide-input]\n\n"
        'raise RuntimeError("boom")\n```\n'
    )
    with pytest.raises(ChapterFailed, match="boom"):
        run_chapter(
            "reductions",
            "quick",
            {**given, "n_bootstrap": 11},
            root=root,
            progress=False,
            stream_output=False,
            log=None,
        )
    assert records.load_record("reductions", build).params.n_bootstrap == 10
    assert records.read_manifest(records.record_path("reductions", build)) == manifest
