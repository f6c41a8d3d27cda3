"""Ctrl-C latency: how long ``calib score`` (and optionally ``calib run``) takes from SIGINT to
its exit, with the signal sent at seeded random points after scoring has started.

Each try starts ``calib score`` on the embedded SmolLM2 (whose forward passes are the longest
of the embedded models on a CPU) over a BEAR sample far larger than a try lasts, into an empty
score store (the model itself comes from ``$CALIB_CACHE_DIR``); waits until the progress bar
shows statements scored (the model is loaded and passes are running), then a seeded random
delay, sends SIGINT and times the exit. Every try must exit 130 with the resume message and
leave no partial chunk or claim. Prints each try, then the median and the maximum.

``--competing-load`` runs a 2-thread torch matmul loop beside it the whole time (the loaded
machine of the issue). ``--chapter NAME`` times ``calib run NAME --no-build`` the same way (a
staged copy of the book; the signal after the chapter's kernel has started executing cells).
``--conversion`` times ``calib score`` during the model's first conversion from GGUF (issue 28:
every try starts with no converted model in its cache; the signal a seeded 0..MAX_DELAY s
after the "converting ... from GGUF" line, in a conversion of 20 to 90 s); every try must also
leave no model folder and no partial one.

    python benchmarks/sigint_latency.py                         # 10 tries, calib score
    python benchmarks/sigint_latency.py --competing-load        # beside a 2-thread torch job
    python benchmarks/sigint_latency.py --chapter calibration --profile quick --tries 5
    python benchmarks/sigint_latency.py --model tiny-gpt2 --tries 2     # a quick smoke run
    python benchmarks/sigint_latency.py --conversion --tries 5 --max-delay 15   # first conversion

Timings belong on a quiet machine (state the load beside them).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: the resume message calib prints when a run stops on a signal
RESUME_MARK = "Run the same command again"
#: a bound on one try (start-up, waiting for the marker, the exit): only against a hang
TRY_LIMIT_S = 900
_COMPETING_JOB = """
import torch
torch.set_num_threads(2)
a = torch.randn(1024, 1024)
while True:
    a = torch.tanh(a @ a / 32)
"""
# Python's own Ctrl-C first: a shell leaves SIGINT ignored for background jobs
_CALIB = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from calib.cli import entry; entry()"
)


class Watched:
    """A subprocess whose stderr is read by a thread (kept, and searched for a marker)."""

    def __init__(self, argv: list[str], env: dict, marker: re.Pattern):
        self.proc = subprocess.Popen(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, bufsize=1
        )
        self.err: list[str] = []
        #: when each line of ``err`` was read (time.monotonic)
        self.times: list[float] = []
        self.marked = threading.Event()
        self._marker = marker
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        buf = ""
        while True:
            chunk = self.proc.stderr.read(1)
            if not chunk:
                break
            buf += chunk
            if chunk in "\r\n":  # tqdm redraws its line with \r
                self.err.append(buf)
                self.times.append(time.monotonic())
                if self._marker.search(buf):
                    self.marked.set()
                buf = ""
        self.err.append(buf)

    def stderr(self) -> str:
        self._thread.join(timeout=10)
        return "".join(self.err)


def _score_marker(model: str) -> re.Pattern:
    # the progress bar once statements are done: "scoring M on bear:   3%|...| 120/4000"
    return re.compile(rf"scoring {re.escape(model)} on bear:.*\|\s*[1-9]\d*/\d+")


def try_score(args, env: dict, cache: Path, delay: float) -> dict:
    shutil.rmtree(cache / "scores", ignore_errors=True)
    command = [
        "score",
        "--model",
        args.model,
        "--per-relation",
        str(args.per_relation),
        "--templates",
        "paraphrase-0..4",
        "--device",
        "cpu",
        "--cache-dir",
        str(cache),
    ]
    return _one_try(
        [sys.executable, "-c", _CALIB, *command],
        env,
        _score_marker(args.model),
        delay,
        check_store=cache,
    )


def try_conversion(args, env: dict, cache: Path, delay: float) -> dict:
    """One try of ``calib score`` into a cache without the converted model: the signal lands
    during the conversion (the log line comes right before it starts)."""
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir()
    command = [
        "score",
        "--model",
        args.model,
        "--per-relation",
        "1",
        "--relations",
        "P30",
        "--device",
        "cpu",
        "--cache-dir",
        str(cache),
    ]
    marker = re.compile(rf"converting {re.escape(args.model)} from GGUF")
    result = _one_try([sys.executable, "-c", _CALIB, *command], env, marker, delay)
    models = cache / "models"
    left = sorted(p.name for p in models.iterdir() if p.is_dir()) if models.is_dir() else []
    if left:
        print(f"  FAILED: model folders left behind: {left}", file=sys.stderr)
    result["ok"] = result["ok"] and not left
    return result


def try_chapter(args, env: dict, root: Path, cache: Path, delay: float) -> dict:
    shutil.rmtree(root / "_build", ignore_errors=True)
    shutil.rmtree(cache / "scores", ignore_errors=True)
    command = ["run", args.chapter, "--profile", args.profile, "--no-build", "--root", str(root)]
    # papermill's bar once the kernel runs cells: "Executing:  12%|...| 3/25"
    marker = re.compile(r"Executing:.*\|\s*[1-9]\d*/\d+")
    return _one_try(
        [sys.executable, "-c", _CALIB, *command],
        dict(env, CALIB_CACHE_DIR=str(cache)),
        marker,
        delay,
    )


def _one_try(argv, env, marker, delay, check_store: Path | None = None) -> dict:
    started = time.monotonic()
    w = Watched(argv, env, marker)
    if not w.marked.wait(TRY_LIMIT_S):
        w.proc.kill()
        raise SystemExit(f"no progress within {TRY_LIMIT_S} s:\n{w.stderr()[-3000:]}")
    if w.proc.poll() is not None:
        raise SystemExit(f"the command ended before the signal:\n{w.stderr()[-3000:]}")
    time.sleep(delay)
    sent = time.monotonic()
    w.proc.send_signal(signal.SIGINT)
    try:
        rc = w.proc.wait(TRY_LIMIT_S)
    except subprocess.TimeoutExpired:
        w.proc.kill()
        rc = None
    latency = time.monotonic() - sent
    err = w.stderr()
    # the first line after the signal that says it stopped: the rest is the interpreter's exit
    said = next(
        (t for t, line in zip(w.times, w.err) if t >= sent and RESUME_MARK in line), float("nan")
    )
    ok = rc == 130 and RESUME_MARK in err and "Traceback" not in err
    if check_store is not None:
        scores = check_store / "scores"
        left = [*scores.rglob(".tmp-*"), *scores.rglob("claims/*")] if scores.exists() else []
        ok = ok and not left
    if not ok:
        print(f"  FAILED (exit {rc}):\n{err[-3000:]}", file=sys.stderr)
    return {
        "delay_s": round(delay, 3),
        "latency_s": round(latency, 3),
        "message_s": round(said - sent, 3),
        "exit": rc,
        "ok": ok,
        "until_signal_s": round(sent - started, 1),
    }


def stage_book(root: Path) -> Path:
    """A copy of the book's sources (config, toc, prose, chapter sources) to run chapters in."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(REPO / name, root / name)
    for folder in ("book", "notebooks"):
        shutil.copytree(
            REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb")
        )
    return root


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tries", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--max-delay",
        type=float,
        default=3.0,
        help="the signal comes a seeded uniform 0..MAX_DELAY s after the marker",
    )
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument(
        "--per-relation",
        type=int,
        default=20,
        help="BEAR sample (all relations, 5 templates): far more than a try scores",
    )
    ap.add_argument(
        "--competing-load", action="store_true", help="run a 2-thread torch matmul loop beside it"
    )
    ap.add_argument(
        "--chapter",
        default=None,
        help="time `calib run CHAPTER --no-build` instead of `calib score`",
    )
    ap.add_argument("--profile", default="quick", help="the chapter's profile (default quick)")
    ap.add_argument(
        "--conversion",
        action="store_true",
        help="time calib score during the model's first conversion from GGUF",
    )
    ap.add_argument("--json", default=None, help="write the tries and the summary here")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_VERBOSITY="error",
        PYTHONUNBUFFERED="1",
    )
    competing = None
    if args.competing_load:
        competing = subprocess.Popen(
            [sys.executable, "-c", _COMPETING_JOB], env=dict(env, OMP_NUM_THREADS="2")
        )
    what = (
        f"calib run {args.chapter} --profile {args.profile}"
        if args.chapter
        else f"calib score --model {args.model}, during its first conversion from GGUF"
        if args.conversion
        else f"calib score --model {args.model} --per-relation {args.per_relation}"
    )
    print(
        f"{what}: {args.tries} tries, SIGINT 0..{args.max_delay} s after progress (seed "
        f"{args.seed}){'; beside a 2-thread torch matmul job' if competing else ''}",
        flush=True,
    )
    tries = []
    try:
        with tempfile.TemporaryDirectory(prefix="sigint-") as tmp:
            tmp = Path(tmp)
            # an empty score store for every try; the models from $CALIB_CACHE_DIR (tiny
            # models, of `calib score --model tiny-...` or the quick profile, are built in the
            # temporary cache instead)
            cache = tmp / "cache"
            cache.mkdir()
            tiny = args.profile == "quick" if args.chapter else args.model.startswith("tiny-")
            if not tiny and not args.conversion:  # a conversion starts from an empty cache
                shared = Path(os.environ.get("CALIB_CACHE_DIR") or REPO / ".cache")
                (shared / "models").mkdir(parents=True, exist_ok=True)
                (cache / "models").symlink_to(shared / "models", target_is_directory=True)
            root = stage_book(tmp / "book") if args.chapter else None
            for i in range(args.tries):
                delay = rng.uniform(0, args.max_delay)
                r = (
                    try_chapter(args, env, root, cache, delay)
                    if args.chapter
                    else try_conversion(args, env, cache, delay)
                    if args.conversion
                    else try_score(args, env, cache, delay)
                )
                tries.append(r)
                print(
                    f"  try {i + 1:2d}: signal {r['delay_s']:.2f} s after progress "
                    f"({r['until_signal_s']:.0f} s after start), exit {r['exit']} after "
                    f"{r['latency_s']:.2f} s (resume message after {r['message_s']:.2f} s)"
                    f"{'' if r['ok'] else '  FAILED'}",
                    flush=True,
                )
    finally:
        if competing is not None:
            competing.kill()
            competing.wait()
    lat = [r["latency_s"] for r in tries]
    summary = {
        "command": what,
        "competing_load": bool(competing),
        "tries": len(tries),
        "median_s": round(statistics.median(lat), 3),
        "max_s": round(max(lat), 3),
        "message_median_s": round(statistics.median(r["message_s"] for r in tries), 3),
        "all_ok": all(r["ok"] for r in tries),
        "seed": args.seed,
    }
    print(
        f"SIGINT -> exit: median {summary['median_s']:.2f} s, max {summary['max_s']:.2f} s "
        f"over {len(tries)} tries; {'all' if summary['all_ok'] else 'NOT all'} exited 130 "
        f"with the resume message and nothing half-written; the message came after "
        f"{summary['message_median_s']:.2f} s (median), the rest is the interpreter's exit"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": summary, "tries": tries}, indent=1))
    return 0 if summary["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
