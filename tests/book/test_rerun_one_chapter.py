"""Re-executing one chapter on a fresh clone gives its page (issue 28).

``calib run calibration --profile quick -p per_relation 2`` in a copy of the book's sources with
nothing executed (a fresh clone's): it exits 0 and builds the book from what was executed; the
calibration page says 2 per relation, every other chapter's page says it was not run and
gives the command that runs it, and the ledger, run again after the chapter, judges the claims
of those chapters "not run in this build" and lists calibration's run with its parameters.

The run reads the quick book's score cache (``conftest.quick_book``): a larger sample of the
same seed holds this one, so nothing is scored again and only the chapter, the ledger and the
HTML cost time.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from book_staging import REPO, book_sources, page_text

from calib.book import chapters_in_toc
from calib.experiments import records

pytestmark = pytest.mark.slow

#: a bound on the command: only against a hang, never a measurement
HANG_S = 3600
#: what a run's output must not hold (issue 28: every run printed the first two)
NOISE = ("TqdmWarning", "without encryption", "Traceback")


@pytest.fixture(scope="module")
def rerun(quick_book, tmp_path_factory):
    """The command run in a fresh copy of the sources: ``(root, completed process)``."""
    root = book_sources(tmp_path_factory.mktemp("fresh-clone"))
    env = dict(
        os.environ,
        CALIB_CACHE_DIR=str(quick_book.cache),
        PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        HF_HUB_OFFLINE="1",
    )
    command = ["run", "calibration", "--profile", "quick", "-p", "per_relation", "2"]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from calib.cli import entry; entry()",
            *command,
            "--root",
            str(root),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )
    return root, done


def test_it_exits_0_and_builds_the_book(rerun):
    root, done = rerun
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert (root / "_build" / "html" / "index.html").is_file()
    assert "8 of 10 chapter(s) not run in this build" in done.stdout
    found = [mark for mark in NOISE if mark in output]
    assert not found, f"{found} in the output:\n{output[-4000:]}"


def test_only_the_calibration_page_says_2_per_relation(rerun):
    root, _ = rerun
    chapters = root / "_build" / "html" / "_build" / "chapters"
    pages = {name: page_text(chapters / f"{name}.html") for name in chapters_in_toc(root)}
    calibration = pages.pop("calibration")
    assert (
        "this run: 4 models (tiny-gpt2, tiny-llama, tiny-bert, tiny-roberta); 2 instances "
        "per relation of 5 relations (P36, P37, P19, P30, P105), seed 0"
    ) in calibration
    assert "with per_relation = 2 (the profile's default: 3)" in calibration
    # its parameters cell (highlighted: a span per token)
    assert re.search(r"per_relation\s*:\s*int\s*\|\s*None\s*=\s*2\b", calibration)
    assert "3 instances per relation" not in calibration and "3 per relation" not in calibration
    assert "calib run calibration --profile quick -p per_relation 2" in calibration
    ledger = pages.pop("ledger")
    assert "Not run in this build." not in ledger
    for name, text in pages.items():
        assert "Not run in this build." in text, name
        assert f"calib run {name} --profile quick" in text, name
        assert "per relation" not in text and "per_relation" not in text, name


def test_the_ledger_judges_what_ran_and_says_not_run_for_the_rest(rerun):
    root, _ = rerun
    judged = records.load_record("ledger", root / "_build")
    settings = judged.settings.set_index("chapter")
    assert settings.at["calibration", "status"] == "recorded"
    assert "per_relation = 2" in settings.at["calibration", "parameters"]
    assert settings.at["calibration", "command"] == (
        "calib run calibration --profile quick -p per_relation 2"
    )
    others = settings.drop(index="calibration")
    assert set(others["status"]) <= {"not run in this build", "does not record its result yet"}
    table = judged.table
    assert (
        table.loc[table["chapter"] != "calibration", "verdict"] == "not run in this build"
    ).all()
    assert (
        table.loc[table["chapter"] == "calibration", "verdict"] != "not run in this build"
    ).all()
    ledger = page_text(root / "_build" / "html" / "_build" / "chapters" / "ledger.html")
    assert "not run in this build" in ledger and "per_relation = 2" in ledger
