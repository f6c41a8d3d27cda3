"""Helpers of the fault-injection tests (importable from them, since this folder is on
``sys.path``): a scoring worker run in a subprocess (``score_worker.py``), the units it logged,
the table a cache holds, table comparison and what a run left behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import score_worker

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
KEYS = ["relation", "instance", "template", "option"]


def start_worker(cache: Path, log: Path, sleep: float = 0.0) -> subprocess.Popen:
    """``score_worker.py`` in a subprocess (its output in ``log`` + ``.out``)."""
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_VERBOSITY="error",
        HF_HUB_DISABLE_PROGRESS_BARS="1",
    )
    out = open(log.with_suffix(".out"), "ab")  # noqa: SIM115 - the worker writes it after we return
    return subprocess.Popen(
        [sys.executable, str(HERE / "score_worker.py"), str(cache), str(log), str(sleep)],
        env=env,
        stdout=out,
        stderr=subprocess.STDOUT,
    )


def calib_command(args: list[str]) -> list[str]:
    """The command line that runs ``calib ARGS`` in a subprocess with Python's own Ctrl-C
    handler installed first: a shell leaves SIGINT ignored for a background job (``make test
    &`` in a script), the child would inherit that, and :mod:`calib.interrupt` keeps an
    ignored signal ignored."""
    return [
        sys.executable,
        "-c",
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "from calib.cli import entry; entry()",
        *args,
    ]


def scored_units(log: Path) -> list[tuple[str, ...]]:
    """(pid, relation, template, instance) per unit scored, from a worker log."""
    return [tuple(line.split()) for line in log.read_text().splitlines()] if log.exists() else []


def stored_table(cache: Path, queries, monkeypatch) -> pd.DataFrame:
    """The table of ``queries`` read from ``cache``; loading the model fails the test (so
    every unit must be stored)."""
    import calib.scoring.run as run

    def no_model(*args, **kwargs):
        raise AssertionError("a unit was missing from the store")

    with monkeypatch.context() as m:
        m.setattr(run, "load_model", no_model)
        return run.score_queries(score_worker.MODEL, queries, cache_dir=cache, progress=False)


def assert_same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Same rows, keys, answers and token roles; log-probabilities equal to float32 rounding
    (chunks of other sizes pad the batches differently)."""
    assert len(got) == len(want)
    assert not got.duplicated(KEYS).any()
    plain = [c for c in got.columns if c != "token_logprobs"]
    pd.testing.assert_frame_equal(
        got[plain].drop(columns="token_roles"), want[plain].drop(columns="token_roles")
    )
    assert [list(r) for r in got["token_roles"]] == [list(r) for r in want["token_roles"]]
    for a, b in zip(got["token_logprobs"], want["token_logprobs"]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-5)


def leftovers(cache: Path) -> list[str]:
    """Partial chunks and claims left in the score stores."""
    scores = cache / "scores"
    found = [*scores.rglob(".tmp-*"), *scores.rglob("claims/*")] if scores.exists() else []
    return sorted(str(p.relative_to(cache)) for p in found)
