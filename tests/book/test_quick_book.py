"""The real book, every chapter of ``_toc.yml``, built with the ``quick`` profile and opened in
headless Chromium: this is what CI builds on every change.

The chapters run on tiny randomly initialised models (two causal, two masked) and a handful of
BEAR, FACTOR and LAMA instances; every number is a placeholder and every page says so.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest
from book_staging import download_links, page_text, residue
from browser_check import book_pages, check_book, find_chromium, problems

from calib.book import chapters_in_toc, executed_path, offline_violations
from calib.book.build import READERS
from calib.book.downloads import (
    DOWNLOADS_DIR,
    ace_tables,
    floor_range_violations,
    floor_violations,
    interval_violations,
)
from calib.book.layout import book_root
from calib.report.charts import TEXT_COLUMN
from calib.report.table_format import MAX_SHOWN_COLUMNS

pytestmark = pytest.mark.slow

QUICK_LABEL = "Placeholder numbers"
#: a bound on waiting for the second run: only against a hang, never a measurement
HANG_S = 3600
#: charts and tables each chapter shows at least (the chapters' own content, any profile)
EXPECTED = {
    "calibration": (4, 3),
    "linguistic": (4, 2),
    "answer_set": (2, 2),
    "clm_vs_mlm": (1, 2),
    "lpaqa": (3, 3),
    "reductions": (3, 2),
    "factor": (2, 2),
    "start_tokens": (1, 2),
    "ledger": (0, 3),
    "extending": (1, 3),
}
#: what a hover on the first chart mark of a chapter must show (every chapter with charts: some
#: tooltip)
TOOLTIPS = {"calibration": ["model", "estimator", "value", "low", "high", "n"]}


def test_the_toc_lists_every_chapter_notebook():
    root = book_root()
    assert sorted(chapters_in_toc(root)) == sorted(EXPECTED)
    assert sorted(p.stem for p in (root / "notebooks").glob("*.md")) == sorted(EXPECTED)


def test_every_chapter_executed_without_errors(quick_book):
    root = quick_book.root
    for name in EXPECTED:
        nb = nbformat.read(executed_path(name, root), as_version=4)
        assert nb.metadata["calib"]["profile"] == "quick"
        errors = [
            o
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.get("outputs", [])
            if o.output_type == "error"
        ]
        assert not errors, f"{name}: {errors[0]['ename']}: {errors[0]['evalue']}"


def test_the_quick_book_is_offline(quick_book):
    html = quick_book.html
    assert offline_violations(html) == []


def test_every_reported_interval_contains_its_estimate(quick_book):
    root = quick_book.root
    checked = 0
    for name in EXPECTED:
        manifest = json.loads((root / DOWNLOADS_DIR / name / "manifest.json").read_text())
        checked += sum(1 for t in manifest["tables"] if t["intervals"])
    assert checked >= 8  # the check below has tables with intervals to look at
    found = interval_violations(root) + floor_range_violations(root)
    assert not found, "\n".join(found)


def test_every_table_that_shows_an_ace_shows_its_noise_floor(quick_book):
    """Issue 18: every result table of every chapter (its downloads, the tables its page shows)
    with an ``ace`` column has the ``ace_floor`` beside it."""
    root = quick_book.root
    assert any(where.startswith("calibration/") for where, _ in ace_tables(root))
    found = floor_violations(root)
    assert not found, "\n".join(found)


def test_every_chapter_page_links_its_downloads(quick_book):
    root, html = quick_book.root, quick_book.html
    for name in EXPECTED:
        links = download_links(html / "_build" / "chapters" / f"{name}.html")
        names = {p.name for p in links}
        manifest = json.loads((root / DOWNLOADS_DIR / name / "manifest.json").read_text())
        assert f"{name}.ipynb" in names, name
        assert {Path(t["file"]).name for t in manifest["tables"]} <= names, name
        assert manifest["tables"], name  # every chapter shows a computed table
        for path in links:
            assert path.is_file() and path.resolve().is_relative_to(html.resolve()), path
        parquet = [p for p in links if p.suffix == ".parquet"]
        if name in READERS:  # the ledger reads the chapters' records and scores nothing
            assert not parquet, name
            continue
        assert parquet, f"{name}: no score table to download"
        frame = pd.read_parquet(parquet[0])
        assert {"model", "relation", "instance", "token_logprobs"} <= set(frame.columns)


@pytest.mark.browser
def test_every_chapter_renders_in_a_browser(quick_book):
    assert find_chromium(), "headless browser test needs Chromium (apt-get install chromium)"
    html = quick_book.html
    reports = check_book(html, hover=True)
    pages = {f"_build/chapters/{name}.html": want for name, want in EXPECTED.items()}
    found = problems(
        reports,
        charts={p: w[0] for p, w in pages.items()},
        tables={p: w[1] for p, w in pages.items()},
        require_text=QUICK_LABEL,
        tooltips={
            f"_build/chapters/{name}.html": TOOLTIPS.get(name, [])
            for name, (n_charts, _) in EXPECTED.items()
            if n_charts
        },
    )
    assert not found, "\n".join(found)
    # the width check above measured every chart it counted, against a real text column
    widths = [w for r in reports.values() for w in r.chart_widths]
    assert len(widths) == sum(r.charts_rendered for r in reports.values()) > 0
    assert {r.column_width for r in reports.values() if r.chart_widths} == {TEXT_COLUMN}


#: what no page may show (issue 28): a cell's return value (a path), tqdm's notebook warning,
#: the kernel's TCP warning, Altair's warning on panels side by side, any other warning's text
LEFTOVERS = (
    "PosixPath(",
    "TqdmWarning",
    "IProgress not found",
    "without encryption",
    "Automatically deduplicated",
    "UserWarning",
    "FutureWarning",
    "DeprecationWarning",
)


def test_no_page_shows_a_leftover_of_its_run(quick_book):
    html = quick_book.html
    for name in EXPECTED:
        text = page_text(html / "_build" / "chapters" / f"{name}.html")
        found = [mark for mark in LEFTOVERS if mark in text]
        assert not found, f"{name}: {found}"


#: pages for whoever runs the benchmarks at scale: they name the repository's scripts to run
DEVELOPER_PAGES = ("book/scaling.html", "book/scaling_measured.html")


def test_no_page_shows_residue(quick_book):
    """No chapter or prose page (the API part aside) shows, in its prose (code blocks, links
    and rendered math aside), an instruction to fill in the paper's values, an issue number, a
    path in the repository or LaTeX left unrendered (``book_staging.RESIDUE``)."""
    html = quick_book.html
    pages = [
        p for p in book_pages(html) if not p.startswith("book/api/") and p not in DEVELOPER_PAGES
    ]
    assert "_build/chapters/lpaqa.html" in pages and "book/reproduction.html" in pages
    found = [f"{page}: {r}" for page in pages for r in residue(html / page)]
    assert not found, "\n".join(found)


def test_the_run_times_on_the_reproduction_page_are_this_builds(quick_book):
    """Durations are measured: the reproduction page's table holds each chapter's wall time
    as its executed notebook recorded it."""
    from calib.book.build import run_times

    text = page_text(quick_book.html / "book" / "reproduction.html")
    times = run_times(quick_book.root)
    assert len(times) == len(EXPECTED)
    for r in times:
        minutes, rest = divmod(round(r["seconds"]), 60)
        shown = f"{minutes} min {rest} s" if minutes else f"{rest} s"
        assert f"{r['chapter']} quick {r['executed']} {shown}" in text, r


def test_the_ledger_names_no_nan(quick_book):
    text = page_text(quick_book.html / "_build" / "chapters" / "ledger.html")
    assert "nan (no interval)" not in text and ": nan" not in text


def test_every_table_a_page_shows_fits_without_scrolling(quick_book):
    """A computed table shows at most ``MAX_SHOWN_COLUMNS`` columns (an estimate and its
    interval in one cell), the rest in its download (issue 28); the papers' own tables keep
    their printed columns. The browser test checks that every table fits the page."""
    import re

    wide = []
    for name in EXPECTED:
        nb = nbformat.read(executed_path(name, quick_book.root), as_version=4)
        for cell in nb.cells:
            for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
                for table in re.findall(
                    r"<table.*?</table>", out.get("data", {}).get("text/html", ""), re.S
                ):
                    if "calib-reported" in table.split(">")[0]:
                        continue
                    header = table.split("</thead>")[0]
                    n = len(re.findall(r"<th\b", header))
                    if n > MAX_SHOWN_COLUMNS:
                        found = re.search(r"<caption>(.*?)</caption>", table, re.S)
                        what = (found.group(1) if found else header)[:120]
                        wide.append(f"{name}: {n} columns: {what}")
    assert not wide, "\n".join(wide)


#: a table whose header names one of these columns reports time taken, which varies
TIMING_COLUMNS = ("seconds",)


def shown_results(path) -> list[str]:
    """Every table (``text/html`` holding a ``<table>``) and every Markdown text (claims,
    verdicts, correlations) a chapter's executed notebook shows, in order; tables of timings
    are left out (the run-info cell is a markdown cell, not an output, so it is not here)."""
    nb = nbformat.read(path, as_version=4)
    shown = []
    for cell in nb.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            data = out.get("data", {})
            html = data.get("text/html", "")
            if "<table" in html:
                header = html.split("</thead>")[0]
                if not any(f">{c}<" in header for c in TIMING_COLUMNS):
                    shown.append(html)
            elif "text/markdown" in data:
                shown.append(data["text/markdown"])
    return shown


def first_difference(first: list[str], second: list[str], limit: int = 4000) -> str:
    """The first shown result that differs, as a line diff (table rows one per line)."""
    if len(first) != len(second):
        return f"{len(first)} results shown vs {len(second)}"
    for i, (a, b) in enumerate(zip(first, second)):
        if a != b:
            lines = difflib.unified_diff(
                a.replace("<tr", "\n<tr").splitlines(),
                b.replace("<tr", "\n<tr").splitlines(),
                f"result {i} (first)",
                f"result {i} (again)",
                lineterm="",
                n=0,
            )
            return "\n".join(lines)[:limit]
    return ""


def test_the_quick_book_shows_the_same_results_from_a_fresh_cache(quick_book):
    """Every chapter run again with the quick profile in a second, empty cache (the tiny models
    built again there; a process started beside the first build, ``conftest.quick_book``)
    shows the same tables and texts as the quick book."""
    assert quick_book.again is not None, "conftest.quick_book starts the second run"
    code = quick_book.again.wait(timeout=HANG_S)
    log = quick_book.again_log.read_text(encoding="utf-8", errors="replace")
    assert code == 0, f"the second run failed (exit {code}):\n{log[-4000:]}"
    root, again = quick_book.root, quick_book.again_root
    for name in EXPECTED:
        first, second = (
            shown_results(executed_path(name, root)),
            shown_results(executed_path(name, again)),
        )
        assert len(first) >= EXPECTED[name][1]
        assert first == second, (
            f"{name}: results differ between two fresh caches\n" + first_difference(first, second)
        )


def test_every_claims_chapter_opens_with_its_bottom_line(quick_book):
    """Each chapter whose claims the ledger judges states its bottom line before its first
    section: the headline claims with the paper's verdict and this build's, and a link to the
    section of its claims, whose anchor exists."""
    from calib.experiments.ledger import CHAPTERS
    from calib.report.bottom_line import ANCHOR, claims_anchor

    for name in CHAPTERS:
        page = (quick_book.html / "_build" / "chapters" / f"{name}.html").read_text("utf-8")
        article = page.index("<article")
        box = page.index(f'id="{ANCHOR}"')
        assert article < box < page.index("<h2", article), f"{name}: the bottom line is late"
        text = page[box : page.index("</div>", box)]
        assert "The paper&#x27;s own numbers" in text or "The paper's own numbers" in text, name
        assert "This build:" in text and "Of its " in text, name
        anchor = claims_anchor(name)
        assert f'href="#{anchor}"' in text and f'id="{anchor}"' in page, name


def test_the_intro_summarises_the_ledgers_verdicts_per_paper(quick_book):
    """The intro says per paper what this build confirms, contradicts and cannot decide, with
    the same counts as the ledger's recorded table (one computation)."""
    from calib.experiments.claims import PAPERS
    from calib.experiments.records import load_record_folder, record_path
    from calib.report.bottom_line import tallies

    text = page_text(quick_book.html / "book" / "intro.html")
    assert "What this build finds" in text and "placeholders" in text
    table = load_record_folder(record_path("ledger", quick_book.root / "_build")).table
    table = table[~table["beyond_paper"].astype(bool)]
    for paper, title in PAPERS.items():
        counts = tallies(table[table["paper"] == paper])
        said = ", ".join(f"{k} {n}" for k, n in counts.items() if n)
        shown = re.sub(r"\s+:", ":", " ".join(text.split())).replace("\u2019", "'")
        assert f"{title}: Of the paper's {sum(counts.values())} claims, this build {said}." in (
            shown
        ), title


#: clicks the header of the first claims summary's first column twice, and returns that
#: column's texts after each click
_SORT_JS = """(() => {
  const table = document.querySelector("table.calib-sortable");
  const column = () => Array.from(table.tBodies[0].rows).map((r) => r.cells[3].textContent);
  const th = table.tHead.rows[0].cells[3];
  const before = column();
  th.click();
  const up = column();
  th.click();
  return {before: before, up: up, down: column()};
})()"""


def test_the_ledgers_claims_summary_sorts_in_a_browser(quick_book):
    """The ledger's summaries come decided first, and a click on a header sorts them by that
    column in a real browser (book/_static/calib-sort.js), a second click the other way."""
    from browser_check import Chromium

    if find_chromium() is None:
        pytest.fail("no Chromium: `make setup` installs it (apt-get install chromium)")
    page = quick_book.html / "_build" / "chapters" / "ledger.html"
    with Chromium() as browser:
        got = browser.evaluate(page.as_uri(), _SORT_JS)
    assert got["up"] == sorted(got["up"]) and got["down"] == sorted(got["up"], reverse=True)
    assert sorted(got["before"]) == got["up"]  # the same rows, reordered


def test_the_calibration_pages_comparisons_are_the_ones_the_claims_judge(quick_book):
    """Each Margin - Base comparison on the page is the floor-corrected one the claims judge,
    raw beside it; where the two intervals disagree, the page says this sample cannot decide
    it (a floor correction never makes a verdict alone), and so does the judge."""
    from calib.experiments import calibration
    from calib.experiments.quantifiers import floor_split, unit_status
    from calib.experiments.records import load_record_folder, record_path
    from calib.report.prose import compare_sentence

    result = load_record_folder(record_path("calibration", quick_book.root / "_build"))
    diffs = calibration.floor_corrected(result)
    rows = diffs[(diffs["a"] == "Margin") & (diffs["b"] == "Base")]
    assert len(rows) and rows["floor_corrected"].any()
    text = " ".join(page_text(quick_book.html / "_build" / "chapters" / "calibration.html").split())
    split = floor_split(rows)
    for (_, row), is_split in zip(rows.iterrows(), split):
        sentence = compare_sentence(row["a"], row["b"], row.to_dict(), subject=row["model"])
        assert " ".join(sentence.split()) in text
        if is_split:
            assert sentence.startswith("This sample cannot decide")
    assert (unit_status(rows)[split] == "undecided").all()
