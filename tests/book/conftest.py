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


@dataclass
class _QuickStart:
    """The quick book's build (and second run), started in processes of their own when
    collection ends (:func:`pytest_collection_finish`), so that they run while the tests that
    do not read the book do (the build is one kernel at a time: a core of its own)."""

    root: Path
    cache: Path
    build: subprocess.Popen
    build_log: Path
    again: subprocess.Popen | None
    again_root: Path
    again_log: Path


#: the quick book's processes, once started (one per test session)
_STARTED: dict[str, _QuickStart] = {}


def _reads_quick_book(item) -> bool:
    return "quick_book" in getattr(item, "fixturenames", ())


def _xdist_worker(config) -> bool:
    """Whether this process is a pytest-xdist worker (``make test`` runs two)."""
    return hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """In one process, the tests that read the quick book run last (in their order), after
    every other test: its build runs beside those (:func:`pytest_collection_finish`). Under
    pytest-xdist they run first: their files are one unit (``tests/conftest.py``), handed to a
    worker first (``--no-loadscope-reorder``), which starts the build at the first of them
    while the other worker runs the rest."""
    items.sort(key=lambda item: _reads_quick_book(item) != _xdist_worker(config))


def _popen(args: list[str], log: Path, cache: Path) -> subprocess.Popen:
    env = dict(
        os.environ,
        CALIB_CACHE_DIR=str(cache),
        PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    )
    with open(log, "w", encoding="utf-8") as out:
        return subprocess.Popen(
            [sys.executable, *args],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )


def pytest_collection_finish(session):
    """Start the quick book's build (and, where the determinism test is collected, its second
    run in a fresh cache) as soon as the tests are known, where a collected test reads it. A
    pytest-xdist worker does not: it cannot know whether it will run those tests, and the one
    that does starts them at the first (:func:`quick_book`)."""
    if session.config.option.collectonly or _xdist_worker(session.config):
        return
    if any(map(_reads_quick_book, session.items)):
        _start_quick_book(session)


def _start_quick_book(session) -> _QuickStart:
    """Start the quick book's processes (:class:`_QuickStart`), once per process."""
    if "quick" in _STARTED:
        return _STARTED["quick"]
    factory = session.config._tmp_path_factory
    root = book_sources(factory.mktemp("quick-book"))
    cache = factory.mktemp("quick-book-cache")
    build_log = root / "build.log"
    here = Path(__file__).parent
    build = _popen([str(here / "quick_build.py"), str(root)], build_log, cache)
    again_root = book_sources(factory.mktemp("quick-book-again"))
    again_log = again_root / "run.log"
    again = None
    if any(item.originalname == AGAIN_TEST for item in session.items):
        again_cache = factory.mktemp("quick-book-again-cache")
        again = _popen([str(here / "quick_again.py"), str(again_root)], again_log, again_cache)
    _STARTED["quick"] = _QuickStart(root, cache, build, build_log, again, again_root, again_log)
    return _STARTED["quick"]


def pytest_sessionfinish(session, exitstatus):
    """No process of the quick book outlives the session (a run stopped early, -x, Ctrl-C)."""
    started = _STARTED.pop("quick", None)
    for proc in (started.build, started.again) if started else ():
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


#: the longest the quick book's build may take before its tests fail (a hang, not a slow run)
BUILD_HANG_S = 3600


@pytest.fixture(scope="session")
def quick_book(request):
    """The real book, every chapter of ``_toc.yml``, built once per test run with the quick
    profile (strict Sphinx) in a cache of its own (:class:`QuickBook`), by the process that
    :func:`pytest_collection_finish` started (a pytest-xdist worker starts it here)."""
    started = _STARTED.get("quick") or _start_quick_book(request.session)
    try:
        code = started.build.wait(timeout=BUILD_HANG_S)
    except subprocess.TimeoutExpired:
        started.build.kill()
        code = f"killed after {BUILD_HANG_S} s"
    log = started.build_log.read_text(encoding="utf-8", errors="replace")
    if code != 0:
        pytest.fail(f"the quick book's build failed (exit {code}):\n{log[-4000:]}")
    seconds = float(log.rsplit("quick book built in ", 1)[1].split(" s", 1)[0])
    html = started.root / "_build" / "html"
    yield QuickBook(
        started.root,
        html,
        started.cache,
        started.again,
        started.again_root,
        started.again_log,
        seconds,
    )
