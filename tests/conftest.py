"""Shared fixtures: data root, an isolated cache, the tiny models, a small BEAR sample.

``CALIB_DATA_DIR`` defaults to ``../shared/data`` beside the checkout (as in CI). Every test
session gets its own cache folder, so tests never read scores or models a user computed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
_shared = REPO.parent / "shared" / "data"
if "CALIB_DATA_DIR" not in os.environ and _shared.exists():
    os.environ["CALIB_DATA_DIR"] = str(_shared)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# one intra-op thread per process (torch, and the kernels and workers the tests start, which
# inherit it): the tests run tiny models, where a second thread saves nothing, and on a loaded
# 2-core machine OpenMP's threads wait on each other: tiny-bert's small passes ran 24x slower
# with 2 threads than with 1 under load (7 s against 162 s). tests/scoring/test_thread_counts.py
# sets its own counts.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")


#: test files run together under pytest-xdist (``make test`` runs ``-n 2 --dist loadfile``):
#: each group's files share a costly session fixture (the quick book, minutes; the faults
#: tests' reference table), which is then made once, in the one worker that runs them. Every
#: other file is a group of its own, as ``--dist loadfile`` has it (its module fixtures made
#: once). An entry is a file or a folder (ending in ``/``), relative to the repository.
FILE_GROUPS: dict[str, tuple[str, ...]] = {
    "quick_book": (
        "tests/book/test_quick_book.py",
        "tests/book/test_chapter_units.py",
        "tests/book/test_ace_floor_tables.py",
        "tests/book/test_rerun_one_chapter.py",
    ),
    "faults": ("tests/faults/",),
}
#: the session fixtures behind :data:`FILE_GROUPS`: a test that reads one lies in its group
SHARED_FIXTURES = {"quick_book": "quick_book", "reference": "faults"}


def xdist_group(nodeid: str) -> str:
    """The group of a test (its id): the :data:`FILE_GROUPS` entry that holds its file, else
    the file."""
    path = nodeid.split("::", 1)[0]
    for group, entries in FILE_GROUPS.items():
        if any(path == e or (e.endswith("/") and path.startswith(e)) for e in entries):
            return group
    return path


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadfile``: pytest-xdist's file scheduling with the files of a
    :data:`FILE_GROUPS` entry as one unit. (Its own ``loadgroup`` cannot do it under pytest 9:
    it renames the tests' ids, which pytest 9 no longer reads back.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return xdist_group(nodeid)

    return FileGroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """A test that reads a shared fixture but whose file is not in that fixture's group
    (:data:`SHARED_FIXTURES`) stops the run: under pytest-xdist the fixture would be made in
    each worker that runs one (minutes, for the quick book)."""
    stray = [
        f"{item.nodeid} reads {name!r}; add its file to FILE_GROUPS[{group!r}]"
        for item in items
        for name, group in SHARED_FIXTURES.items()
        if name in getattr(item, "fixturenames", ()) and xdist_group(item.nodeid) != group
    ]
    if stray:
        raise pytest.UsageError("tests/conftest.py: " + "; ".join(stray))


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory):
    """An empty cache root for the whole session (``CALIB_CACHE_DIR``)."""
    cache = tmp_path_factory.mktemp("calib-cache")
    old = os.environ.get("CALIB_CACHE_DIR")
    os.environ["CALIB_CACHE_DIR"] = str(cache)
    yield cache
    if old is None:
        os.environ.pop("CALIB_CACHE_DIR", None)
    else:
        os.environ["CALIB_CACHE_DIR"] = old


def _papers_dir() -> Path | None:
    """The papers' text (``shared/papers``): ``CALIB_PAPERS_DIR``, else beside the data root,
    else beside the checkout."""
    candidates = [os.environ.get("CALIB_PAPERS_DIR")]
    if os.environ.get("CALIB_DATA_DIR"):
        candidates.append(str(Path(os.environ["CALIB_DATA_DIR"]).parent / "papers"))
    candidates.append(str(REPO.parent / "shared" / "papers"))
    for c in candidates:
        if c and (Path(c) / "kissling2026_self_aware_knowledge_probing.txt").is_file():
            return Path(c)
    return None


@pytest.fixture(scope="session")
def paper_text():
    """The papers' full text by short name (``kissling2026``, ``jiang2020``); the test is
    skipped where the papers folder is absent."""
    folder = _papers_dir()
    if folder is None:
        pytest.skip("the papers' text (shared/papers) is not on this machine; set CALIB_PAPERS_DIR")
    return {
        "kissling2026": (folder / "kissling2026_self_aware_knowledge_probing.txt").read_text(
            encoding="utf-8"
        ),
        "jiang2020": (folder / "jiang2020_lpaqa.txt").read_text(encoding="utf-8"),
    }


@pytest.fixture(scope="session")
def tiny_models(_session_cache):
    """The four tiny models, loaded once: name -> LoadedModel (float32, CPU)."""
    from calib.models.loading import load_model

    return {
        name: load_model(name, device="cpu")
        for name in ("tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta")
    }


@pytest.fixture(scope="session")
def bear():
    from calib.data.bear import load_bear

    return load_bear()


@pytest.fixture(scope="session")
def small_bear(bear):
    """Two instances from each of five relations with different answer-space sizes and a
    template whose object comes before the subject."""
    return bear.select(["P19", "P1412", "P30", "P36", "P103"]).sample(2, seed=0)
