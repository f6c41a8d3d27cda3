"""Throughput of the fast scorers against the naive references, on real BEAR statements.

Scores a fixed seeded BEAR sample under the five paraphrase templates twice: with the fast
path (:func:`calib.scoring.clm.clm_score`: shared-prefix key/value reuse, length buckets) and
with the naive reference (one statement, one full forward pass), checks that both give the same
scores, and prints statements per second and the speed-up ratio. No cache is involved.

    python benchmarks/scoring_throughput.py                       # SmolLM2, CPU
    python benchmarks/scoring_throughput.py --model gemma-3-270m --compare-dtype float32
    python benchmarks/scoring_throughput.py --device cuda --relations 60 --per-relation 5
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from calib.data.bear import PARAPHRASES, load_bear
from calib.models.loading import load_model
from calib.scoring.clm import clm_score
from calib.scoring.encoding import encode_clm, encode_mlm
from calib.scoring.mlm import mlm_score
from calib.scoring.reference import clm_reference, mlm_reference
from calib.scoring.statements import bear_queries


def sample_queries(n_relations: int, per_relation: int, seed: int):
    bear = load_bear()
    rng = np.random.default_rng(seed)
    rels = sorted(rng.choice(sorted(bear.relations), size=n_relations, replace=False))
    return bear_queries(bear.select(list(rels)).sample(per_relation, seed), PARAPHRASES)


def run_fast(lm, groups):
    if lm.objective == "clm":
        return clm_score(lm.model, groups, device=lm.device)
    tok = lm.tokenizer
    return mlm_score(lm.model, groups, tok.mask_token_id, tok.pad_token_id or 0, device=lm.device)


def run_naive(lm, groups):
    if lm.objective == "clm":
        return [[clm_reference(lm.model, e, lm.device) for e in g] for g in groups]
    return [[mlm_reference(lm.model, e, lm.tokenizer.mask_token_id, lm.device) for e in g]
            for g in groups]


def timed(fn, lm, groups):
    if lm.device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = fn(lm, groups)
    if lm.device.type == "cuda":
        torch.cuda.synchronize()
    return out, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--relations", type=int, default=6, help="relations in the sample")
    ap.add_argument("--per-relation", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default=None, help="default: the model's registry dtype")
    ap.add_argument("--compare-dtype", default=None,
                    help="also score with this dtype and report how much the scores move")
    ap.add_argument("--naive-share", type=float, default=1.0,
                    help="score only this share of queries naively (time extrapolated)")
    ap.add_argument("--json", default=None, help="write the results here as JSON")
    args = ap.parse_args(argv)

    lm = load_model(args.model, device=args.device, dtype=args.dtype)
    queries = sample_queries(args.relations, args.per_relation, args.seed)
    encode = (lambda q: encode_clm(lm.tokenizer, q.statements, lm.start_token_id)) \
        if lm.objective == "clm" else (lambda q: encode_mlm(lm.tokenizer, q.statements))
    groups = [encode(q) for q in queries]
    n = sum(len(g) for g in groups)
    print(f"model {lm.name} ({lm.objective}, {lm.dtype}, {lm.device}, "
          f"{torch.get_num_threads()} threads); {len(queries)} queries, {n} statements "
          f"over {args.relations} relations x 5 paraphrase templates")
    run_fast(lm, groups[:2])  # warm-up
    fast, t_fast = timed(run_fast, lm, groups)
    k = max(1, int(round(len(groups) * args.naive_share)))
    sub = groups[:k]
    n_sub = sum(len(g) for g in sub)
    naive, t_naive = timed(run_naive, lm, sub)
    diff = max(abs(float(a.sum()) - float(b.sum()))
               for ga, gb in zip(fast[:k], naive) for a, b in zip(ga, gb))
    fast_rate, naive_rate = n / t_fast, n_sub / t_naive
    result = {"model": lm.name, "dtype": str(lm.dtype), "device": str(lm.device),
              "statements": n, "fast_s": t_fast, "fast_per_s": fast_rate,
              "naive_statements": n_sub, "naive_s": t_naive, "naive_per_s": naive_rate,
              "ratio": fast_rate / naive_rate, "max_abs_diff": diff}
    print(f"fast : {t_fast:8.1f} s  {fast_rate:8.1f} statements/s")
    print(f"naive: {t_naive:8.1f} s  {naive_rate:8.1f} statements/s  ({n_sub} statements)")
    print(f"same scores: max |fast - naive| per statement = {diff:.2e}")
    print(f"speed-up (fast / naive): {fast_rate / naive_rate:.2f}x")
    if args.compare_dtype:
        other = load_model(args.model, device=args.device, dtype=args.compare_dtype)
        alt, t_alt = timed(run_fast, other, groups)
        a = [np.asarray([s.sum() for s in g]) for g in fast]
        b = [np.asarray([s.sum() for s in g]) for g in alt]
        d = np.abs(np.concatenate(a) - np.concatenate(b))
        agree = float(np.mean([x.argmax() == y.argmax() for x, y in zip(a, b)]))
        result.update(compare_dtype=args.compare_dtype, compare_per_s=n / t_alt,
                      compare_mean_abs_diff=float(d.mean()), compare_max_abs_diff=float(d.max()),
                      compare_argmax_agreement=agree)
        print(f"{args.compare_dtype}: {n / t_alt:.1f} statements/s; sentence scores differ by "
              f"{d.mean():.3f} on average (max {d.max():.3f}); same predicted option in "
              f"{agree:.1%} of queries")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
