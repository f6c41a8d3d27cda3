"""The chapters' conventions (notebooks/*.md), read from their sources without running them:

* code is hidden with the ``hide-input`` tag (the reader can unfold it) on every code cell but
  the parameters cell; the ``extending`` chapter's example cells show their code, which the
  reader is meant to copy. No chapter removes or hides whole cells (``remove-input``,
  ``remove-cell``, ``hide-cell``, ``hide-output``);
* calib is imported as modules under their own names, so a reader can guess where a call
  goes (``from calib.experiments import calibration`` then ``calibration.estimates(...)``):
  no alias, never a name out of a module;
* a chapter that draws charts enables their offline rendering in its setup cell
  (``chart_rendering.enable()``, :func:`calib.report.chart_rendering.enable`);
* the cell that runs a chapter unit (``<chapter>.run(...)``: scoring, with its progress bars on
  stderr) keeps its stderr off the page (``remove-stderr`` or ``remove-output``).
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.md"))
#: the chapter whose example cells show their code
TUTORIAL = "extending"
FORBIDDEN_TAGS = {"remove-input", "remove-cell", "hide-cell", "hide-output"}


def code_cells(path: Path) -> list[tuple[list[str], str]]:
    """``(tags, source)`` of each code cell of a MyST notebook."""
    cells = []
    for body in re.findall(r"```\{code-cell\}[^\n]*\n(.*?)\n```", path.read_text("utf-8"), re.S):
        m = re.match(r":tags: \[([^\]]*)\]\n", body)
        tags = [t.strip() for t in m.group(1).split(",")] if m else []
        cells.append((tags, body[m.end() :] if m else body))
    return cells


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_code_cells_are_hidden_one_way(path):
    cells = code_cells(path)
    assert cells and "parameters" in cells[0][0], "the first code cell is the parameters cell"
    for tags, source in cells[1:]:
        assert not FORBIDDEN_TAGS & set(tags), (path.name, tags, source[:80])
        if path.stem != TUTORIAL:
            assert "hide-input" in tags, (
                f"{path.name}: a code cell without hide-input:\n{source[:200]}"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_calib_is_imported_as_modules_under_their_own_names(path):
    imported: dict[str, str] = {}
    for _tags, source in code_cells(path):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] == "calib" for a in node.names), (
                    f"{path.name}: write `from calib.<stage> import <module>`"
                )
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("calib"):
                for a in node.names:
                    where = f"{path.name}: from {node.module} import {a.name}"
                    assert a.asname is None, f"{where} as {a.asname}: use the module's own name"
                    importlib.import_module(f"{node.module}.{a.name}")  # a module, not a name
                    full = f"{node.module}.{a.name}"
                    assert imported.setdefault(a.name, full) == full, (
                        f"{where}: two modules named {a.name!r}"
                    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_charts_are_rendered_offline_by_an_explicit_call(path):
    sources = [s for _t, s in code_cells(path)]
    if any(re.search(r"(?<![\w.])charts\.\w+\(", s) for s in sources):
        setup = sources[1]
        assert "chart_rendering" in setup and "chart_rendering.enable()" in setup, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_cell_that_runs_the_chapter_keeps_its_stderr_off_the_page(path):
    runs = [(t, s) for t, s in code_cells(path) if re.search(rf"\b{path.stem}\.run\(", s)]
    for tags, source in runs:
        assert {"remove-stderr", "remove-output"} & set(tags), (
            f"{path.name}: the cell that calls {path.stem}.run shows its stderr (progress "
            f"bars, warnings) on the page; tag it remove-stderr:\n{source[:200]}"
        )


def test_the_test_sees_the_chapters():
    assert {p.stem for p in NOTEBOOKS} >= {"lpaqa", "calibration", TUTORIAL}
