"""Ctrl-C and SIGTERM during ``calib run``: the chapter's kernel is stopped (interrupted, or
killed after the grace period when it ignores the interrupt), the executed notebook is not
written, nothing is left in the build tree but the partial notebook in ``_build/failed/``, and
the command exits 130 (143 for SIGTERM) with one clear line.

The fixture chapter notes its kernel's pid in a marker file and sleeps; the signal is sent once
the marker exists (the kernel is then running the cell, wherever exactly it is). Waits: 600 s
bounds a hang only; the exit must come within a bound derived from how long the start took
under the present load.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest
from book_staging import FIXTURES, REPO, stage_book

from calib.book import executed_path
from calib.book.chapters import KERNEL_GRACE_ENV

pytestmark = pytest.mark.slow

SLEEPER_CELL = """import os, pathlib, signal, time
{ignore}pathlib.Path(os.environ["SLEEPER_MARKER"]).write_text(str(os.getpid()))
time.sleep(600)"""


def _calib(args: list[str]) -> list[str]:
    """``calib ARGS`` with Python's own Ctrl-C handler first (a shell may leave SIGINT ignored
    for a background job, and an ignored signal stays ignored)."""
    return [
        sys.executable,
        "-c",
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from calib.cli import entry; entry()",
        *args,
    ]


def _gone(pid: int, within: float) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
            return True
        time.sleep(0.1)
    return False


def _interrupt_a_run(tmp_path: Path, signum: int, ignore_sigint: bool, grace: float) -> dict:
    source = tmp_path / "sleeper.md"
    source.write_text(
        (FIXTURES / "failing.md")
        .read_text()
        .replace(
            'raise RuntimeError(f"fixture failure (seed {seed})")',
            SLEEPER_CELL.format(
                ignore="signal.signal(signal.SIGINT, signal.SIG_IGN)\n" if ignore_sigint else ""
            ),
        )
    )
    root = stage_book(tmp_path / "b", {"sleeper": source})
    marker = tmp_path / "kernel.pid"
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        SLEEPER_MARKER=str(marker),
        **{KERNEL_GRACE_ENV: str(grace)},
    )
    started = time.monotonic()
    proc = subprocess.Popen(
        _calib(["run", "sleeper", "--profile", "quick", "--no-build", "--root", str(root)]),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    end = started + 600
    while not (marker.exists() and marker.read_text()):
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()
        time.sleep(0.05)
    startup = time.monotonic() - started  # imports, kernel start, the first cells
    kernel = int(marker.read_text())
    proc.send_signal(signum)
    # the kernel stops (at once, or after the grace period), papermill returns, the command
    # says so: allow three times what the start took under this load, plus the grace period
    # and 30 s of slack
    _out, err = proc.communicate(timeout=30 + grace + 3 * startup)
    return {"root": root, "code": proc.returncode, "err": err, "kernel": kernel, "startup": startup}


def _assert_stopped_cleanly(run: dict, code: int) -> None:
    root, err = run["root"], run["err"]
    assert run["code"] == code, err[-3000:]
    assert "calib run: chapter 'sleeper' interrupted after" in err, err[-3000:]
    assert "its kernel stopped; _build/chapters/sleeper.ipynb was not written" in err
    assert "Run the same command again" in err
    assert "Traceback" not in err, err[-3000:]
    assert _gone(run["kernel"], within=30 + run["startup"]), "the kernel is still running"
    assert not executed_path("sleeper", root).exists()
    partial = root / "_build" / "failed" / "sleeper.ipynb"
    nbformat.read(partial, as_version=4)  # whole
    assert not [p.name for p in (root / "_build").iterdir() if p.name.startswith(".run-")]
    assert not list((root / "_build").rglob("*.tmp"))


def test_ctrl_c_during_calib_run_interrupts_the_kernel_and_writes_no_notebook(tmp_path):
    run = _interrupt_a_run(tmp_path, signal.SIGINT, ignore_sigint=False, grace=600)
    _assert_stopped_cleanly(run, 130)


def test_sigterm_kills_a_kernel_that_ignores_the_interrupt_after_the_grace_period(tmp_path):
    run = _interrupt_a_run(tmp_path, signal.SIGTERM, ignore_sigint=True, grace=1)
    _assert_stopped_cleanly(run, 143)
