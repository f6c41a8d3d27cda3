"""``make test`` runs the suite in two pytest-xdist processes (``-n 2 --dist loadfile``), each
running whole test files; the files that share a costly session fixture
(``tests/conftest.py``: ``FILE_GROUPS``, ``SHARED_FIXTURES``) run in one, so that the fixture
is made once."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: a suite of four files: the tests of a and b read the shared fixture (in one group), c's
#: tests a module fixture, d's nothing; each fixture records the worker that made it
SUITE = {
    "test_a.py": (
        "def test_a1(quick_book): pass\ndef test_a2(quick_book): pass\ndef test_a3(): pass\n"
    ),
    "test_b.py": "def test_b1(quick_book): pass\n",
    "test_c.py": "".join(f"def test_c{i}(module_thing): pass\n" for i in range(4)),
    "test_d.py": "".join(f"def test_d{i}(): pass\n" for i in range(4)),
}
FIXTURES = """

FILE_GROUPS = {"quick_book": ("test_a.py", "test_b.py")}


def _made(what):
    with open(os.path.join(os.environ["MADE"], what), "a") as fh:
        fh.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
    return True


@pytest.fixture(scope="session")
def quick_book():
    return _made("quick_book")


@pytest.fixture(scope="module")
def module_thing():
    return _made("module_thing")
"""


def _suite(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    conftest = (REPO / "tests" / "conftest.py").read_text()
    (tmp_path / "conftest.py").write_text(conftest + FIXTURES)
    (tmp_path / "made").mkdir()
    return tmp_path / "made"


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args, str(folder)],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "MADE": str(folder / "made")},
        timeout=600,
    )


def test_make_test_runs_two_xdist_workers_by_default():
    """``make test``'s pytest line passes ``$(XDIST)``, which is ``-n 2 --dist loadfile``;
    ``TEST_WORKERS=0`` (one process) makes it ``-n 0``. (Read with ``--eval``: ``make -n test``
    would run the recipe, which calls ``$(MAKE)``.)"""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    make = (REPO / "Makefile").read_text()
    recipe = re.search(r"^test: .*?(?=^\S)", make, re.M | re.S)
    assert recipe and re.search(r'-m pytest -m "not heavy" \$\(XDIST\)', recipe.group(0))

    def xdist(*args: str) -> str:
        return subprocess.run(
            [
                "make",
                "-s",
                "--eval",
                "print-xdist: ; @printf '%s\\n' '$(XDIST)'",
                "print-xdist",
                *args,
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    assert xdist() == "-n 2 --dist loadfile --no-loadscope-reorder"
    assert xdist("TEST_WORKERS=0").startswith("-n 0 ")


def test_files_that_share_a_costly_fixture_run_in_one_worker(tmp_path):
    """Under ``-n 2 --dist loadfile`` with the project's scheduler, the session fixture read by
    tests of two files is made once, and a file's module fixture once; both workers ran tests.
    (pytest-xdist's own scheduling makes the session fixture in each worker that runs a test
    of those files: two here, as long as both workers take a file of the group.)"""
    pytest.importorskip("xdist")
    made = _suite(tmp_path, SUITE)
    run = _pytest(tmp_path, "-v", "-n", "2", "--dist", "loadfile", "--no-loadscope-reorder")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "12 passed" in run.stdout
    assert (made / "quick_book").read_text().split() in (["gw0"], ["gw1"])
    assert len((made / "module_thing").read_text().split()) == 1
    workers = set(re.findall(r"\[(gw\d)\]", run.stdout))
    assert workers == {"gw0", "gw1"}, run.stdout


def test_a_test_reading_a_shared_fixture_outside_its_group_stops_the_run(tmp_path):
    """A test file that reads the quick book but is not in its group is a usage error, named
    with the test and the fix (it would build the book once more under xdist)."""
    _suite(tmp_path, {**SUITE, "test_e.py": "def test_e1(quick_book): pass\n"})
    run = _pytest(tmp_path)
    assert run.returncode == 4, run.stdout + run.stderr
    assert "test_e.py::test_e1 reads 'quick_book'; add its file to FILE_GROUPS['quick_book']" in (
        run.stdout + run.stderr
    )
