"""Fixtures of the book tests.

Helpers live in modules beside this file (importable from the tests, since this folder is on
``sys.path``): ``book_staging`` stages a copy of the book with fixture chapters,
``browser_check`` opens a built book in headless Chromium, ``quick_again`` runs the quick book's
chapters a second time.

The real book built with the ``quick`` profile (:func:`quick_book`) is built once per test run
and shared by every test that reads it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from book_staging import FIXTURES, REPO, book_sources, stage_book

#: the test that compares the quick book with a second run in a fresh cache; when it is
#: collected, that run starts beside the first build (:func:`quick_book`)
AGAIN_TEST = "test_the_quick_book_shows_the_same_results_from_a_fresh_cache"


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


@dataclass
class QuickBook:
    """The quick book: its ``root``, ``html`` and score ``cache`` (its own: the session's holds
    scores other tests made with other thread counts or batches, equal to these only within
    float32 rounding, ``ROUNDING_TOLERANCE``, and a shown digit may round the other way), and
    the second run of its chapters in a fresh cache (``again``, a process started beside the
    build, into ``again_root``; its output in ``again_log``), or ``None`` when the test that
    reads it was not collected."""

    root: Path
    html: Path
    cache: Path
    again: subprocess.Popen | None
    again_root: Path
    again_log: Path
    seconds: float


@pytest.fixture(scope="session")
def quick_book(tmp_path_factory, request):
    """The real book, every chapter of ``_toc.yml``, built once per test run with the quick
    profile (strict Sphinx) in a cache of its own (:class:`QuickBook`)."""
    from calib.book import build_book

    root = book_sources(tmp_path_factory.mktemp("quick-book"))
    cache = tmp_path_factory.mktemp("quick-book-cache")
    again_root = book_sources(tmp_path_factory.mktemp("quick-book-again"))
    again_log = again_root / "run.log"
    again = None
    if any(item.originalname == AGAIN_TEST for item in request.session.items):
        env = dict(
            os.environ,
            CALIB_CACHE_DIR=str(tmp_path_factory.mktemp("quick-book-again-cache")),
            PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        )
        with open(again_log, "w", encoding="utf-8") as log:
            again = subprocess.Popen(
                [sys.executable, str(Path(__file__).with_name("quick_again.py")), str(again_root)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
    old = os.environ.get("CALIB_CACHE_DIR")
    os.environ["CALIB_CACHE_DIR"] = str(cache)
    started = time.time()
    try:
        html = build_book(
            "quick", root=root, strict=True, progress=False, stream_output=False, log=None
        )
    finally:
        if old is None:
            os.environ.pop("CALIB_CACHE_DIR", None)
        else:
            os.environ["CALIB_CACHE_DIR"] = old
    seconds = time.time() - started
    print(f"quick book built in {seconds:.0f} s")
    yield QuickBook(root, html, cache, again, again_root, again_log, seconds)
    if again is not None and again.poll() is None:
        again.kill()
        again.wait()
