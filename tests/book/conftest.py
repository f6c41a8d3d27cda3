"""Fixtures of the book tests.

Helpers live in modules beside this file (importable from the tests, since this folder is on
``sys.path``): ``book_staging`` stages a copy of the book with fixture chapters,
``browser_check`` opens a built book in headless Chromium.
"""

from __future__ import annotations

import time

import pytest
from book_staging import FIXTURES, stage_book


@pytest.fixture(scope="session")
def fixture_book(tmp_path_factory):
    """The fixture chapter run with the ``quick`` profile and built strictly (Sphinx warnings
    are errors), beside a chapter never run (``notrun``, whose page says so); returns
    ``(root, html_dir, seconds)`` with the run and build times."""
    from calib.book import build_html, run_chapter

    root = stage_book(
        tmp_path_factory.mktemp("book"),
        {"fixture": FIXTURES / "fixture.md", "notrun": FIXTURES / "failing.md"},
    )
    started = time.time()
    run_chapter("fixture", "quick", root=root, progress=False, stream_output=False, log=None)
    ran = time.time()
    html = build_html(root, strict=True, quiet=True, log=None, profile="quick")
    built = time.time()
    return root, html, {"run": ran - started, "build": built - ran}
