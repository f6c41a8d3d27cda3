"""Build a small book from the fixture chapter and open it in headless Chromium.

The book is the real configuration and prose pages plus ``fixtures/fixture.md`` run with the
``quick`` profile (``conftest.fixture_book``: papermill, then a strict ``jupyter-book build``).
"""

from __future__ import annotations

import json
import sys

import nbformat
import pandas as pd
import pytest
from book_staging import FIXTURES, download_links, page_text, stage_book
from browser_check import check_book, find_chromium, is_redirect, problems

from calib.book import BANNER_TAG, ChapterFailed, executed_path, offline_violations, run_chapter
from calib.models.tiny import TINY_VERSION

pytestmark = pytest.mark.slow

FIXTURE_PAGE = "_build/chapters/fixture.html"
QUICK_LABEL = "Placeholder numbers"


def test_the_executed_chapter_records_its_run(fixture_book):
    root, _, _ = fixture_book
    nb = nbformat.read(executed_path("fixture", root), as_version=4)
    meta = nb.metadata["calib"]
    assert meta["profile"] == "quick" and meta["synthetic"] is True
    assert meta["parameters"] == {
        "models": ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"],
        "relations": ["P36", "P37", "P19", "P30", "P105"],
        "seed": 0,
    }
    assert meta["command"] == "calib run fixture --profile quick"
    banner = [c for c in nb.cells if BANNER_TAG in c.metadata.get("tags", [])]
    assert len(banner) == 1 and nb.cells.index(banner[0]) == 1  # right after the title
    assert "```{warning}" in banner[0].source and "quick" in banner[0].source
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_the_chapter_shows_one_parameters_cell_with_the_values_it_ran_with(fixture_book):
    root, _, _ = fixture_book
    nb = nbformat.read(executed_path("fixture", root), as_version=4)
    assert not [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    lines = cells[0].source.splitlines()
    assert (
        'models: list[str] = ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"]  '
        '# names shown in the charts (notebook default: ["model-a", "model-b"])' in lines
    )
    assert "n: int = 400  # synthetic instances per model" in lines  # not set: unchanged
    assert nb.metadata["papermill"]["parameters"]["models"][0] == "tiny-gpt2"


def test_the_run_records_its_provenance(fixture_book):
    root, _, _ = fixture_book
    nb = nbformat.read(executed_path("fixture", root), as_version=4)
    record = nb.metadata["calib"]["provenance"]
    assert {"commit", "modified", "versions", "models", "data", "device", "seconds"} <= set(record)
    assert set(record["versions"]) >= {"calib", "torch", "transformers", "python"}
    assert record["versions"]["python"] == ".".join(map(str, sys.version_info[:3]))
    models = {m["model"]: m for m in record["models"]}
    assert models["tiny-gpt2"]["hash"].startswith("tiny:") and models["tiny-gpt2"]["dtype"]
    assert record["data"]["manifest"].startswith("sha256:") and record["seconds"] > 0
    note = next(c for c in nb.cells if BANNER_TAG in c.metadata.get("tags", []))
    for text in (
        "**Code**",
        "**Models**",
        f"`tiny-gpt2`: tiny `tiny:{TINY_VERSION}-",
        "**Data**",
        "wall time",
        "end of this page",
    ):
        assert text in note.source, text


def test_the_downloads_are_on_the_page_and_work_offline(fixture_book):
    root, html, _ = fixture_book
    folder = root / "_build" / "downloads" / "fixture"
    manifest = json.loads((folder / "manifest.json").read_text())
    assert [t["caption"] for t in manifest["tables"]] == [
        "Synthetic accuracy with a made-up interval"
    ]  # the reported table is not a result
    table = pd.read_csv(folder / manifest["tables"][0]["file"])
    assert list(table.columns) == ["model", "accuracy", "confidence", "accuracy_lo", "accuracy_hi"]
    assert manifest["tables"][0]["intervals"] == {"accuracy": ["accuracy_lo", "accuracy_hi"]}
    assert manifest["scores"] == []  # the fixture scores nothing
    links = download_links(html / FIXTURE_PAGE)
    assert {p.name for p in links} == {"fixture.ipynb", "table-01.csv"}
    for path in links:
        assert path.is_file() and path.resolve().is_relative_to(html.resolve()), path
    assert (
        nbformat.read(next(p for p in links if p.suffix == ".ipynb"), as_version=4).metadata[
            "calib"
        ]["chapter"]
        == "fixture"
    )


def test_the_chapter_ran_in_the_runners_python(fixture_book):
    root, _, _ = fixture_book
    nb = nbformat.read(executed_path("fixture", root), as_version=4)
    printed = [
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.output_type == "stream"
    ]
    assert sys.executable in "".join(printed)


def test_charts_and_tables_are_in_the_executed_notebook(fixture_book):
    root, _, _ = fixture_book
    nb = nbformat.read(executed_path("fixture", root), as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    charts = [o for o in outputs if 'class="calib-chart"' in o.get("data", {}).get("text/html", "")]
    assert len(charts) == 2
    for chart in charts:
        assert chart["data"]["image/svg+xml"].lstrip().startswith("<svg")
        assert "<svg" in chart["data"]["text/html"]  # the static fallback inside the container
    tables = [o for o in outputs if "<table" in o.get("data", {}).get("text/html", "")]
    assert len(tables) == 2


def test_a_chapter_not_run_has_a_page_that_says_so_with_its_command(fixture_book):
    """Issue 28: the book is built from what was executed; the chapter not run is in the toc
    and the built book, its page giving the command that runs it."""
    _, html, _ = fixture_book
    page = page_text(html / "_build" / "chapters" / "notrun.html")
    assert "Failing chapter" in page and "Not run in this build." in page
    assert "calib run notrun --profile quick" in page
    assert "How this chapter was run" not in page and "Re-run:" not in page  # no run note


def test_the_built_pages_load_nothing_from_other_hosts(fixture_book):
    _, html, _ = fixture_book
    assert offline_violations(html) == []
    assert (html / "_static" / "vega" / "vega-bundle.js").stat().st_size > 100_000
    assert (html / "_static" / "mathjax").is_dir()


def test_every_page_says_the_numbers_are_placeholders(fixture_book):
    _, html, _ = fixture_book
    pages = [p for p in html.rglob("*.html") if "_static" not in p.parts]
    assert len(pages) >= 5
    for page in pages:
        if is_redirect(page):
            continue  # jupyter-book's index.html
        assert QUICK_LABEL in page.read_text(encoding="utf-8"), page


@pytest.mark.browser
def test_the_book_renders_in_a_browser_without_errors(fixture_book):
    assert find_chromium(), "headless browser test needs Chromium (apt-get install chromium)"
    _, html, _ = fixture_book
    reports = check_book(html, hover=True)
    assert FIXTURE_PAGE in reports and "book/methods.html" in reports
    found = problems(
        reports,
        charts={FIXTURE_PAGE: 2},
        tables={FIXTURE_PAGE: 2},
        require_text=QUICK_LABEL,
        tooltips={FIXTURE_PAGE: ["model", "estimator", "accuracy", "count"]},
    )
    assert not found, "\n".join(found)
    assert reports[FIXTURE_PAGE].reported_tables == 1


@pytest.mark.browser
def test_the_browser_check_catches_broken_pages(fixture_book, tmp_path):
    """The checker must fail a page whose chart cannot render or that calls another host."""
    _, html, _ = fixture_book
    page = tmp_path / "broken.html"
    source = (html / FIXTURE_PAGE).read_text(encoding="utf-8")
    static = (html / "_static").as_uri()
    source = (
        source.replace("../../_static", static)
        .replace('class="calib-chart-spec">{', 'class="calib-chart-spec">{oops', 1)
        .replace("</body>", '<img src="https://example.org/x.png"></body>')
    )
    page.write_text(source, encoding="utf-8")
    report = check_book(tmp_path, ["broken.html"])["broken.html"]
    assert report.external_requests == ["https://example.org/x.png"]
    found = problems({"broken.html": report}, tooltips={"broken.html": []})
    assert any("not rendered" in line for line in found), found
    assert any("no tooltip appeared" in line for line in found), found
    assert any("failed request" in line for line in found), found


def test_a_failing_chapter_keeps_the_previous_notebook(tmp_path):
    root = stage_book(tmp_path / "b", {"failing": FIXTURES / "failing.md"})
    target = executed_path("failing", root)
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps({"previous": True}))
    with pytest.raises(ChapterFailed, match=r"RuntimeError: fixture failure \(seed 7\)"):
        run_chapter(
            "failing",
            "quick",
            {"seed": 7},
            root=root,
            progress=False,
            stream_output=False,
            log=None,
        )
    assert json.loads(target.read_text()) == {"previous": True}
    partial = nbformat.read(root / "_build" / "failed" / "failing.ipynb", as_version=4)
    assert any(o.output_type == "error" for c in partial.cells for o in c.get("outputs", []))
    leftovers = [p.name for p in target.parent.iterdir() if p.name != "failing.ipynb"]
    assert leftovers == []
    assert not [p for p in (root / "_build").iterdir() if p.name.startswith(".run-")]


def test_a_run_injects_the_parameters_without_papermill_warnings(tmp_path, caplog):
    """papermill's own reading of a parameters cell does not understand ``int | None``; the
    runner injects the checked values itself, so no "Passed unknown parameter" line appears."""
    source = tmp_path / "params.md"
    source.write_text(
        (FIXTURES / "failing.md")
        .read_text()
        .replace(
            "seed: int = 0", "seed: int = 0\nper_relation: int | None = None  # as the chapters"
        )
        .replace(
            'raise RuntimeError(f"fixture failure (seed {seed})")',
            'print("ran with", seed, per_relation)',
        )
    )
    root = stage_book(tmp_path / "b", {"params": source})
    with caplog.at_level("INFO", logger="papermill"):
        run_chapter(
            "params", "quick", {"seed": 3}, root=root, progress=False, stream_output=False, log=None
        )
    assert not [r for r in caplog.records if "unknown parameter" in r.getMessage()]
    assert [r for r in caplog.records if r.name.startswith("papermill")]  # the log was seen
    nb = nbformat.read(executed_path("params", root), as_version=4)
    printed = "".join(
        o.get("text", "")
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if o.output_type == "stream"
    )
    assert "ran with 3 3" in printed  # seed given, per_relation from the quick profile
