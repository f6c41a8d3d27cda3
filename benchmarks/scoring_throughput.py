"""Token accounting of the causal scorer on BEAR, and its CPU throughput before vs after.

1. Accounting (hardware-independent, deterministic): every BEAR statement under the 12
   templates, tokenised with the SmolLM2 tokenizer, planned as :func:`calib.scoring.clm.clm_score`
   plans it (:mod:`calib.scoring.batching`), at the CPU budget and at a GPU budget: tokens
   forwarded per statement against the minimum (each distinct prefix once, each continuation
   once), padding share, statements per forward pass.
2. Throughput on this CPU: the scorer of a base commit (``--base``, extracted with
   ``git archive`` into a temporary folder and run in its own process) and this checkout's, each
   in a worker process that loads the model once, timed in alternating rounds on the same
   statements; statements/s of both, their ratio, and the largest score difference. What is
   timed: ``clm_score`` on statements encoded beforehand, or with ``--end-to-end``
   ``score_queries`` with the loaded model on an empty cache each round (tokenise, score,
   store, order: the path of ``calib score``).

    python benchmarks/scoring_throughput.py                        # make benchmark (<= 5 min)
    python benchmarks/scoring_throughput.py --no-accounting --end-to-end --base 5a662fa
    python benchmarks/scoring_throughput.py --accounting-per-relation 5 --rounds 1   # smoke
    python benchmarks/scoring_throughput.py --worker                # (internal: one scorer)
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

import numpy as np

REPO = Path(__file__).resolve().parents[1]
BASE_COMMIT = "7424ea6"  # the scorer before token-budget batching (per-instance units)
GPU_BUDGET = 1 << 18  # what calib.scoring.batching.token_budget gives SmolLM2 on an H200


def sample_queries(n_relations: int, per_relation: int, seed: int, templates=None):
    """A seeded BEAR sample: ``n_relations`` relations, ``per_relation`` instances each."""
    from calib.data.bear import PARAPHRASES, load_bear
    from calib.scoring.statements import bear_queries

    bear = load_bear()
    rng = np.random.default_rng(seed)
    rels = sorted(rng.choice(sorted(bear.relations), size=n_relations, replace=False))
    return bear_queries(
        bear.select(list(rels)).sample(per_relation, seed), templates or PARAPHRASES
    )


# --------------------------------------------------------------------------- accounting
def bear_token_ids(tokenizer, start_id: int, per_relation: int | None, templates: str):
    """Token ids (start token first, as :func:`calib.scoring.encoding.encode_clm` makes them)
    of every BEAR statement under ``templates``, grouped by query."""
    from calib.data.bear import load_bear, template_names
    from calib.scoring.encoding import encode_clm
    from calib.scoring.statements import bear_queries

    queries = bear_queries(load_bear().sample(per_relation, 0), template_names(templates))
    check = encode_clm(tokenizer, queries[0].statements, start_id)
    groups = []
    for a in range(0, len(queries), 2000):  # in slices: Python lists of ids are large
        chunk = queries[a : a + 2000]
        # the fast tokenizer's backend: the ids tokenizer(texts)["input_ids"] gives (checked
        # below against encode_clm), without building a BatchEncoding
        flat = [
            e.ids
            for e in tokenizer.backend_tokenizer.encode_batch(
                [s.text for q in chunk for s in q.statements], add_special_tokens=False
            )
        ]
        pos = 0
        for q in chunk:
            groups.append(
                [
                    np.asarray([start_id, *ids], dtype=np.int32)
                    for ids in flat[pos : pos + len(q.statements)]
                ]
            )
            pos += len(q.statements)
    assert [e.ids.tolist() for e in check] == [g.tolist() for g in groups[0]]
    return groups


def accounting(args) -> list[dict]:
    from calib.models.loading import load_tokenizer, start_token_id
    from calib.scoring.accounting import clm_accounting, minimum_tokens
    from calib.scoring.batching import token_budget
    from calib.scoring.run import CPU_CHUNK_STATEMENTS, GPU_CHUNK_STATEMENTS

    t0 = time.perf_counter()
    tok = load_tokenizer(args.model)
    groups = bear_token_ids(
        tok,
        start_token_id(args.model, tok),
        args.accounting_per_relation,
        args.accounting_templates,
    )
    t_enc = time.perf_counter() - t0
    cpu = token_budget("cpu", len(tok))
    settings = [
        ("CPU", cpu, False, CPU_CHUNK_STATEMENTS),
        ("GPU", GPU_BUDGET, True, GPU_CHUNK_STATEMENTS),
    ]
    minimum = minimum_tokens(groups)
    rows = []
    for name, budget, pad, chunk in settings:
        acc = clm_accounting(groups, budget, pad, chunk).as_dict()
        rows.append(
            {
                "setting": name,
                "chunk_statements": chunk,
                **acc,
                "minimum_at_once": minimum,
                "ratio_to_minimum": acc["forwarded"] / minimum,
            }
        )
    n, tokens = rows[0]["statements"], rows[0]["tokens"]
    sample = (
        ""
        if args.accounting_per_relation is None
        else f" ({args.accounting_per_relation} facts per relation)"
    )
    print(
        f"accounting: {args.model} tokenizer, BEAR x {args.accounting_templates} templates"
        f"{sample}: {n:,} statements, {tokens:,} tokens; minimum {minimum:,} forwarded "
        f"({minimum / n:.2f} per statement; {minimum + n:,} counting each statement's last "
        f"token): each distinct prefix once, each continuation once; encoded in {t_enc:.0f} s"
    )
    print(
        f"  {'setting':8} {'budget':>7} {'pad':>5} {'chunk':>7} {'ratio':>6} {'padding':>8} "
        f"{'passes':>7} {'/template':>9} {'stmts/pass':>10} {'fwd/stmt':>8}"
    )
    from calib.data.bear import template_names

    per_template = len(template_names(args.accounting_templates))
    for r in rows:
        print(
            f"  {r['setting']:8} {r['budget']:>7} {r['pad']!s:>5} "
            f"{r['chunk_statements']:>7} {r['ratio_to_minimum']:6.3f} "
            f"{r['padding_share']:8.1%} {r['passes']:>7,} {r['passes'] / per_template:9,.0f} "
            f"{r['statements_per_pass']:10,.0f} "
            f"{r['forwarded_per_statement']:8.2f}"
        )
    print(
        "  ratio: forwarded tokens / minimum; padding: share of forwarded tokens; chunk: "
        "statements per scorer call (score_queries' chunks), prefixes are shared within one"
    )
    return rows


# --------------------------------------------------------------------------- throughput
def worker(args) -> int:
    """One scorer (whichever ``calib`` is on the path) in a loop: ``time`` -> seconds of one
    scoring of the sample; ``scores PATH`` -> sentence totals saved to PATH (npy)."""
    import torch

    from calib.models.loading import load_model
    from calib.scoring.clm import clm_score
    from calib.scoring.encoding import encode_clm

    lm = load_model(args.model, device="cpu", dtype="float32")
    queries = sample_queries(args.relations, args.per_relation, args.seed)
    groups = [encode_clm(lm.tokenizer, q.statements, lm.start_token_id) for q in queries]
    clm_score(lm.model, groups[:4], device="cpu")  # warm-up
    print(
        json.dumps({"ready": sum(len(g) for g in groups), "threads": torch.get_num_threads()}),
        flush=True,
    )
    rounds = 0
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        c0 = time.process_time()  # CPU seconds of every thread: a fairer share under load
        if args.end_to_end:
            rounds += 1
            seconds, totals = _score_queries_once(lm, queries, args.cache / f"r{rounds}")
        else:
            t0 = time.perf_counter()
            out = clm_score(lm.model, groups, device="cpu")
            seconds = time.perf_counter() - t0
            totals = np.asarray([s.sum() for g in out for s in g])
        cpu = time.process_time() - c0
        if cmd == "scores":
            np.save(arg, totals)
        print(json.dumps({"seconds": seconds, "cpu_seconds": cpu}), flush=True)
    return 0


def _score_queries_once(lm, queries, cache: Path) -> tuple[float, np.ndarray]:
    """Seconds of one :func:`calib.scoring.run.score_queries` of ``queries`` with the loaded
    model on an empty cache ``cache`` (everything tokenised, scored and stored: the path of
    ``calib score``), and the sentence totals in the table's order."""
    from calib.scoring.run import score_queries

    t0 = time.perf_counter()
    table = score_queries(lm, queries, device="cpu", progress=False, cache_dir=cache)
    seconds = time.perf_counter() - t0
    shutil.rmtree(cache, ignore_errors=True)
    keys = ["relation", "instance", "template", "option"]
    table = table.sort_values(keys)
    return seconds, np.asarray([float(np.sum(v)) for v in table["token_logprobs"]])


class Worker:
    """A worker process whose ``calib`` comes from ``root``."""

    def __init__(self, root: Path, args):
        env = {**os.environ, "PYTHONPATH": str(root)}
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            "--model",
            args.model,
            "--relations",
            str(args.relations),
            "--per-relation",
            str(args.per_relation),
            "--seed",
            str(args.seed),
            *(["--end-to-end", "--cache", str(args.cache / root.name)] if args.end_to_end else []),
        ]
        self.proc = subprocess.Popen(
            cmd, env=env, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.ready = self._reply()

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.proc.args} ended (exit {self.proc.wait()})")
        return json.loads(line)

    def run(self, cmd: str = "time") -> dict:
        """``{"seconds", "cpu_seconds"}`` of one scoring of the sample."""
        self.proc.stdin.write(cmd + "\n")
        self.proc.stdin.flush()
        return self._reply()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def throughput(args) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="calib-base-"))
    args.cache = tmp / "caches"  # end to end: an empty score cache per round, per worker
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", args.base, "calib"], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive, check=True)
        before, after = Worker(tmp, args), Worker(REPO, args)
        n = after.ready["ready"]
        what = "score_queries end to end" if args.end_to_end else "clm_score after encoding"
        print(
            f"throughput ({what}): {args.model} float32 on cpu ({after.ready['threads']} "
            f"threads), {n} statements ({args.relations} relations x {args.per_relation} x 5 "
            f"paraphrase templates); {args.base} vs this checkout, {args.rounds} alternating "
            f"round(s)"
        )
        t_before, t_after, c_before, c_after = [], [], [], []
        for r in range(args.rounds):
            last = r == args.rounds - 1
            b = before.run(f"scores {tmp / 'before.npy'}" if last else "time")
            a = after.run(f"scores {tmp / 'after.npy'}" if last else "time")
            t_before.append(b["seconds"])
            t_after.append(a["seconds"])
            c_before.append(b["cpu_seconds"])
            c_after.append(a["cpu_seconds"])
            print(
                f"  round {r + 1}: before {n / t_before[-1]:7.1f}  after "
                f"{n / t_after[-1]:7.1f} statements/s; CPU seconds before {c_before[-1]:.1f}, "
                f"after {c_after[-1]:.1f}"
            )
        before.close()
        after.close()
        diff = float(np.abs(np.load(tmp / "before.npy") - np.load(tmp / "after.npy")).max())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    b, a = n / float(np.median(t_before)), n / float(np.median(t_after))
    # the ratio of each round (the two runs adjacent in time), then their median: robust to a
    # load that changes between rounds
    ratio = float(np.median(np.asarray(t_before) / np.asarray(t_after)))
    cpu_ratio = float(np.median(np.asarray(c_before) / np.asarray(c_after)))
    print(
        f"  median: before {b:.1f}, after {a:.1f} statements/s; after / before = {ratio:.2f} "
        f"(median of the rounds' ratios; in CPU seconds {cpu_ratio:.2f}); max |score "
        f"difference| per statement {diff:.1e}"
    )
    return {
        "statements": n,
        "before_per_s": b,
        "after_per_s": a,
        "ratio": ratio,
        "cpu_ratio": cpu_ratio,
        "max_abs_diff": diff,
        "end_to_end": bool(args.end_to_end),
        "rounds_before_s": t_before,
        "rounds_after_s": t_after,
        "rounds_before_cpu_s": c_before,
        "rounds_after_cpu_s": c_after,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--relations", type=int, default=6, help="throughput sample: relations")
    ap.add_argument("--per-relation", type=int, default=1, help="throughput sample: instances")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3, help="alternating timing rounds")
    ap.add_argument("--base", default=BASE_COMMIT, help="the commit to compare with")
    ap.add_argument(
        "--accounting-per-relation",
        type=int,
        default=None,
        help="accounting over a sample of N facts per relation (default: all)",
    )
    ap.add_argument("--accounting-templates", default="all")
    ap.add_argument("--no-accounting", action="store_true")
    ap.add_argument("--no-throughput", action="store_true")
    ap.add_argument("--json", default=None, help="write the results here as JSON")
    ap.add_argument(
        "--end-to-end",
        action="store_true",
        help="time score_queries (tokenise, score, store, on an empty cache) instead of "
        "clm_score after encoding",
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cache", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    t0 = time.perf_counter()
    result = {}
    if not args.no_accounting:
        result["accounting"] = accounting(args)
    if not args.no_throughput:
        result["throughput"] = throughput(args)
    print(f"({time.perf_counter() - t0:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
