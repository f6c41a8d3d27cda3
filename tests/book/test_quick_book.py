"""The real book, every chapter of ``_toc.yml``, built with the ``quick`` profile and opened in
headless Chromium: this is what CI builds on every change.

The chapters run on tiny randomly initialised models (two causal, two masked) and a handful of
BEAR, FACTOR and LAMA instances; every number is a placeholder and every page says so.
"""

from __future__ import annotations

import shutil
import time

import nbformat
import pytest
from browser_check import check_book, find_chromium, problems

from calib.book import build_book, chapters_in_toc, executed_path, offline_violations
from calib.book.layout import book_root

pytestmark = pytest.mark.slow

QUICK_LABEL = "Placeholder numbers"
#: charts and tables each chapter shows at least (the chapters' own content, any profile)
EXPECTED = {"calibration": (3, 3), "linguistic": (3, 2), "answer_set": (2, 2),
            "clm_vs_mlm": (1, 2), "lpaqa": (2, 3), "reductions": (2, 2), "factor": (1, 2),
            "start_tokens": (1, 2), "ledger": (0, 3)}


@pytest.fixture(scope="module")
def quick_book(tmp_path_factory):
    """A copy of the book's sources built with the quick profile (strict Sphinx)."""
    src = book_root()
    root = tmp_path_factory.mktemp("quick-book")
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(src / name, root / name)
    for folder in ("book", "notebooks"):
        shutil.copytree(src / folder, root / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.ipynb"))
    started = time.time()
    html = build_book("quick", root=root, strict=True, progress=False, stream_output=False,
                      log=None)
    print(f"quick book built in {time.time() - started:.0f} s")
    return root, html


def test_the_toc_lists_every_chapter_notebook():
    root = book_root()
    assert sorted(chapters_in_toc(root)) == sorted(EXPECTED)
    assert sorted(p.stem for p in (root / "notebooks").glob("*.md")) == sorted(EXPECTED)


def test_every_chapter_executed_without_errors(quick_book):
    root, _ = quick_book
    for name in EXPECTED:
        nb = nbformat.read(executed_path(name, root), as_version=4)
        assert nb.metadata["calib"]["profile"] == "quick"
        errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                  if o.output_type == "error"]
        assert not errors, f"{name}: {errors[0]['ename']}: {errors[0]['evalue']}"


def test_the_quick_book_is_offline(quick_book):
    _, html = quick_book
    assert offline_violations(html) == []


@pytest.mark.browser
def test_every_chapter_renders_in_a_browser(quick_book):
    assert find_chromium(), "headless browser test needs Chromium (apt-get install chromium)"
    _, html = quick_book
    reports = check_book(html)
    pages = {f"_build/chapters/{name}.html": want for name, want in EXPECTED.items()}
    found = problems(reports, charts={p: w[0] for p, w in pages.items()},
                     tables={p: w[1] for p, w in pages.items()}, require_text=QUICK_LABEL)
    assert not found, "\n".join(found)
