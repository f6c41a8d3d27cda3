"""The host side of scoring at the paper's size: statements/s of the whole ``score_queries``
path with a model that costs nothing, this checkout against the code before issue 27.

What a GPU leaves to the host per statement sets the ceiling of scoring on a GPU: the store
lookup and claim, tokenising, planning the passes, building each pass's inputs, reading the
results back, assembling the rows, writing the store and putting the rows in order. This times
exactly that: :func:`calib.scoring.run.score_queries` on all of BEAR under one template (209,499
statements) with the GPU settings (token budget 262,144, padded passes, one chunk) and a
stand-in model of the real shape that does no compute (``benchmarks/standin.py``: every
device operation, the logsumexp over the vocabulary included, is O(1)), with a real tokenizer
(SmolLM2's, then Gemma 3's). Three measurements, each in a fresh process, alternating in rounds:

* ``before``: the code of ``--before`` (a commit, extracted with ``git archive`` into a
  temporary folder and run from there; by default the main branch before issue 27), on an
  empty cache;
* ``cold``: this checkout on an empty cache (tokenising included);
* ``warm``: this checkout with the statements' token ids already in the cache for this
  tokenizer (a second model of the family: another model key, the same tokenizer), the score
  store empty.

Per-process constants (loading the tokenizer, importing, hashing the tokenizer's content and
scanning its vocabulary once) are outside the timed call: each process first scores a few
queries into a scratch cache. Timings under load are not figures; the ratios of one run are.

    python benchmarks/host_path.py --json benchmarks/results/host_path.json
    python benchmarks/host_path.py --per-relation 5 --rounds 1   # a quick indication

``--device-us N`` measures instead whether the host's work hides behind the device's: the
stand-in's scorer call then lasts at least ``N`` microseconds per statement (a modelled device
time, which overlaps the scorer's own host work as a GPU's queue does; the wait is a sleep,
which releases the GIL as a GPU's wait does), and this checkout's cold run is timed with and
without it. With the host's tokenising and writing beside the scoring
(:mod:`calib.scoring.chunks`), the run takes about max(host, device), not host + device.

    python benchmarks/host_path.py --device-us 10 --rounds 1   # 100,000 statements/s modelled
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCHMARKS = Path(__file__).resolve().parent
#: the main branch's head before issue 27 (the scorer whose host side this replaced)
BEFORE_COMMIT = "5a662fa"
GPU_BUDGET = 1 << 18
#: the stand-in's shapes (vocabulary, hidden size) per tokenizer: those of the models
SHAPES = {"smollm2-135m-instruct": (49152, 576), "gemma-3-270m": (262144, 640)}


def _queries(template: str, per_relation: int | None):
    from calib.data.bear import load_bear
    from calib.scoring.statements import bear_queries

    return bear_queries(load_bear().sample(per_relation, 0), [template])


def worker(args) -> int:
    """One timed ``score_queries`` with whichever ``calib`` is on the path; prints JSON."""
    sys.path.insert(0, str(BENCHMARKS))
    import torch
    from standin import gpu_settings, stand_in_lm

    import calib.scoring.chunks as chunks
    from calib.models.loading import load_tokenizer, start_token_id
    from calib.scoring.run import score_queries

    tok = load_tokenizer(args.tokenizer)
    vocab, hidden = SHAPES.get(args.tokenizer, (len(tok), 512))
    queries = _queries(args.template, args.per_relation)
    n = sum(len(q.statements) for q in queries)
    gpu_settings(chunks, new_code=args.code == "new")
    if args.device_us:
        scorer = chunks.clm_score

        def modelled(model, batch, *a, **k):
            # the device runs the passes while the host builds them and waits at the end
            # (one copy back per call): the call lasts max(host, device); waiting as a sleep
            # (no GIL held, as a GPU's wait)
            t0 = time.perf_counter()
            out = scorer(model, batch, *a, **k)
            device = batch.n_statements * args.device_us / 1e6
            time.sleep(max(0.0, device - (time.perf_counter() - t0)))
            return out

        chunks.clm_score = modelled
    start = start_token_id(args.tokenizer, tok) if not Path(args.tokenizer).is_dir() else 0
    from calib.scoring.run import GPU_CHUNK_STATEMENTS

    def lm(key: str):
        return stand_in_lm(tok, start, vocab, hidden, key)

    settings = dict(token_budget=GPU_BUDGET, chunk_statements=GPU_CHUNK_STATEMENTS, progress=False)
    with tempfile.TemporaryDirectory() as scratch:  # imports, per-process hashes: untimed
        t0 = time.perf_counter()
        score_queries(lm("warm-up@0"), queries[:20], cache_dir=scratch, **settings)
        setup = time.perf_counter() - t0
    key = "second-of-family@0" if args.mode == "warm" else "first@0"
    t0, c0 = time.perf_counter(), time.process_time()
    table = score_queries(lm(key), queries, cache_dir=args.cache, **settings)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if len(table) != n:
        raise RuntimeError(f"{len(table)} rows for {n} statements")
    print(
        json.dumps(
            {
                "statements": n,
                "seconds": seconds,
                "cpu_seconds": cpu,
                "statements_per_s": n / seconds,
                "setup_seconds": setup,
                "threads": torch.get_num_threads(),
            }
        ),
        flush=True,
    )
    return 0


def run_worker(
    root: Path, args, tokenizer: str, mode: str, cache: Path, device_us: float = 0.0
) -> dict:
    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--worker",
        "--tokenizer",
        tokenizer,
        "--mode",
        mode,
        "--code",
        "new" if root == REPO else "before",
        "--cache",
        str(cache),
        "--device-us",
        str(device_us),
        "--template",
        args.template,
    ]
    if args.per_relation is not None:
        cmd += ["--per-relation", str(args.per_relation)]
    out = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"worker {mode} ({root}) failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tokenizers", default="smollm2-135m-instruct,gemma-3-270m")
    ap.add_argument("--template", default="paraphrase-0")
    ap.add_argument("--per-relation", type=int, default=None, help="default: all of BEAR")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--before", default=BEFORE_COMMIT, help="the commit to compare with")
    ap.add_argument("--json", default=None)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--mode", default="cold", help=argparse.SUPPRESS)
    ap.add_argument("--code", default="new", help=argparse.SUPPRESS)
    ap.add_argument(
        "--device-us",
        type=float,
        default=0.0,
        help="modelled device microseconds per statement: time host and device together",
    )
    ap.add_argument("--tokenizer", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cache", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    if args.device_us:
        return beside(args, argv)
    import numpy as np

    tmp = Path(tempfile.mkdtemp(prefix="calib-host-path-"))
    results: dict = {}
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", args.before, "calib"],
            check=True,
            capture_output=True,
        ).stdout
        old = tmp / "before"
        old.mkdir()
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        for tokenizer in args.tokenizers.split(","):
            rounds = []
            for r in range(args.rounds):
                before = run_worker(old, args, tokenizer, "cold", tmp / f"b{r}")
                cold = run_worker(REPO, args, tokenizer, "cold", tmp / f"n{r}")
                warm = run_worker(REPO, args, tokenizer, "warm", tmp / f"n{r}")
                rounds.append({"before": before, "cold": cold, "warm": warm})
                print(
                    f"{tokenizer} round {r + 1}: before {before['statements_per_s']:9,.0f}  "
                    f"cold {cold['statements_per_s']:9,.0f}  warm "
                    f"{warm['statements_per_s']:9,.0f} statements/s "
                    f"({before['statements']:,} statements)",
                    flush=True,
                )
                for f in ("b", "n"):
                    shutil.rmtree(tmp / f"{f}{r}", ignore_errors=True)

            def median(kind, rounds=rounds):
                return float(np.median([x[kind]["statements_per_s"] for x in rounds]))

            def ratio(kind, rounds=rounds):  # per round (adjacent in time), then the median
                return float(
                    np.median([x["before"]["seconds"] / x[kind]["seconds"] for x in rounds])
                )

            results[tokenizer] = {
                "statements": rounds[0]["before"]["statements"],
                "warm_statements_per_s": median("warm"),
                "cold_statements_per_s": median("cold"),
                "before_statements_per_s": median("before"),
                "warm_over_before": ratio("warm"),
                "cold_over_before": ratio("cold"),
                "rounds": rounds,
            }
            r = results[tokenizer]
            print(
                f"{tokenizer}: median before {r['before_statements_per_s']:,.0f}, cold "
                f"{r['cold_statements_per_s']:,.0f} ({r['cold_over_before']:.1f}x), warm "
                f"{r['warm_statements_per_s']:,.0f} ({r['warm_over_before']:.1f}x) statements/s",
                flush=True,
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    first = results[args.tokenizers.split(",")[0]]
    out = {
        "command": "python benchmarks/host_path.py " + " ".join(argv or sys.argv[1:]),
        "before_commit": args.before,
        "template": args.template,
        "per_relation": args.per_relation,
        "load_average_at_end": os.getloadavg(),
        **{k: first[k] for k in ("statements", "warm_statements_per_s", "cold_statements_per_s")},
        "before_statements_per_s": first["before_statements_per_s"],
        "tokenizer": args.tokenizers.split(",")[0],
        "by_tokenizer": results,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


def beside(args, argv) -> int:
    """Host alone, device alone (modelled), and both in one run, per tokenizer and round."""
    tmp = Path(tempfile.mkdtemp(prefix="calib-host-beside-"))
    out: dict = {"command": "python benchmarks/host_path.py " + " ".join(argv or sys.argv[1:])}
    try:
        for tokenizer in args.tokenizers.split(","):
            rows = []
            for r in range(args.rounds):
                host = run_worker(REPO, args, tokenizer, "cold", tmp / f"h{r}")
                both = run_worker(REPO, args, tokenizer, "cold", tmp / f"d{r}", args.device_us)
                device = host["statements"] * args.device_us / 1e6
                row = {
                    "host_s": host["seconds"],
                    "device_s": device,
                    "end_to_end_s": both["seconds"],
                    "over_max": both["seconds"] / max(host["seconds"], device),
                    "over_sum": both["seconds"] / (host["seconds"] + device),
                }
                rows.append(row)
                print(
                    f"{tokenizer} round {r + 1} ({host['statements']:,} statements): host "
                    f"{row['host_s']:.2f} s, device (modelled) {device:.2f} s, both "
                    f"{row['end_to_end_s']:.2f} s = {row['over_max']:.2f} x max, "
                    f"{row['over_sum']:.2f} x sum",
                    flush=True,
                )
                for f in ("h", "d"):
                    shutil.rmtree(tmp / f"{f}{r}", ignore_errors=True)
            out[tokenizer] = rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["load_average_at_end"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
