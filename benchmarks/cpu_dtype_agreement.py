"""Does a model score the cpu book's sample the same in a cheaper number format, and how much
faster is it? Agreement with float32 and the throughput ratio, measured in one run.

1. Agreement (deterministic for a given seed): the sample of the ``cpu`` profile
   (:mod:`calib.book.profiles`: ``--per-relation`` facts of every relation, ``--seed``, the five
   paraphrase templates) is scored through the normal scorer
   (:func:`calib.scoring.run.score_bear`, so the scores land in, or come from, the score store
   of that dtype) in the reference format (the first of ``--dtypes``) and in each other one.
   Compared: the predicted option of every query (instance x template); the sentence scores
   (sum of token log-probabilities, paper Appendix C); accuracy and ACE of Base, Margin,
   Average/min, Consistency/min and Entropy/min (:func:`calib.confidence.summary`, with their
   bootstrap intervals). The bar: the same prediction for >= 99% of queries, and every
   accuracy and ACE within the half-width of the reference's 95% interval of it.
2. Throughput: one worker process per format, each loading its model once, timed on the same
   slice of the sample in alternating rounds (the order flips every round); the ratio of each
   round (the runs adjacent in time), then their median.

Formats: ``float32``, ``bfloat16``, ``float16`` (the loader's dtypes), and ``int8-dynamic``:
float32 weights, then :func:`torch.ao.quantization.quantize_dynamic` (int8 weights, activations
quantised per pass) on every ``nn.Linear`` except the output layer, which (tied to the
embeddings) is kept as a bfloat16 copy (``int8-dynamic:float32``: kept in float32); and
``bfloat16-autocast``: float32 weights and residual stream, the forward pass under
``torch.autocast("cpu", torch.bfloat16)`` (matrix products in bfloat16), the output layer in
float32. Their scores are stored under their own model keys (``<key>+int8-dynamic-head-<dtype>``,
``<key>+bfloat16-autocast-head-float32``).

    python benchmarks/cpu_dtype_agreement.py --dtypes float32,bfloat16 \\
        --json benchmarks/results/cpu_smollm2_bf16_vs_fp32.json
    python benchmarks/cpu_dtype_agreement.py --dtypes float32,int8-dynamic \\
        --json benchmarks/results/cpu_smollm2_int8_vs_fp32.json
    python benchmarks/cpu_dtype_agreement.py --dtypes float32,bfloat16-autocast \\
        --json benchmarks/results/cpu_smollm2_autocast_vs_fp32.json
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[1]
INT8 = "int8-dynamic"
AUTOCAST = "bfloat16-autocast"
ESTIMATORS = ("Base", "Margin", "Average/min", "Consistency/min", "Entropy/min")
#: share of queries whose predicted option must be the same in both formats
SAME_PREDICTION_BAR = 0.99
LOADED_LABEL = (
    "measured on a loaded machine (other jobs shared its CPU cores); the lead re-measures quietly"
)


# --------------------------------------------------------------------------- formats
def int8_head(variant: str) -> str:
    """The output layer's dtype of an ``int8-dynamic[:HEAD]`` format (default bfloat16)."""
    _, _, head = variant.partition(":")
    head = head or "bfloat16"
    if head not in ("bfloat16", "float32"):
        raise SystemExit(f"format {variant!r}: the output layer is kept in bfloat16 or float32")
    return head


class CastHead(torch.nn.Module):
    """An output layer holding its own copy of the (tied) weight of ``linear`` in ``dtype``; its
    input is cast to ``dtype``, and so are the logits it returns (also under autocast)."""

    def __init__(self, linear: torch.nn.Linear, dtype: torch.dtype):
        super().__init__()
        self.weight = torch.nn.Parameter(
            linear.weight.detach().to(dtype).clone(), requires_grad=False
        )
        self.bias = (
            None
            if linear.bias is None
            else torch.nn.Parameter(linear.bias.detach().to(dtype).clone(), requires_grad=False)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.autocast("cpu", enabled=False):
            return torch.nn.functional.linear(x.to(self.weight.dtype), self.weight, self.bias)


def autocast_forward(net: torch.nn.Module, dtype: torch.dtype) -> None:
    """Run ``net``'s forward under ``torch.autocast("cpu", dtype)`` (its signature kept, so the
    scorer still finds the cache argument)."""
    inner = net.forward

    @functools.wraps(inner)
    def forward(*args, **kwargs):
        with torch.autocast("cpu", dtype=dtype):
            return inner(*args, **kwargs)

    net.forward = forward


def custom(variant: str) -> bool:
    """Whether ``variant`` is a format of this script rather than a loader dtype."""
    return variant.startswith(INT8) or variant == AUTOCAST


def load_variant(model: str, variant: str, cache_dir=None):
    """``model`` loaded on the CPU in ``variant`` (a dtype name, ``int8-dynamic[:HEAD]`` or
    ``bfloat16-autocast``)."""
    from calib.models.loading import load_model

    if not custom(variant):
        return load_model(model, device="cpu", dtype=variant, cache_dir=cache_dir)
    if variant == AUTOCAST:
        lm = load_model(model, device="cpu", dtype="float32", cache_dir=cache_dir)
        net = lm.model
        net.set_output_embeddings(CastHead(net.get_output_embeddings(), torch.float32))
        autocast_forward(net, torch.bfloat16)
        return dataclasses.replace(lm, key=f"{lm.key}+{AUTOCAST}-head-float32")
    head = int8_head(variant)
    lm = load_model(model, device="cpu", dtype="float32", cache_dir=cache_dir)
    net = lm.model
    out = net.get_output_embeddings()
    net.set_output_embeddings(CastHead(out, getattr(torch, head)))
    torch.ao.quantization.quantize_dynamic(net, {torch.nn.Linear}, dtype=torch.qint8, inplace=True)
    return dataclasses.replace(lm, key=f"{lm.key}+{INT8}-head-{head}")


def score_sample(model: str, variant: str, args):
    """The score table of the cpu sample in ``variant``, through the normal scorer."""
    from calib.scoring.run import score_bear

    target = load_variant(model, variant, args.cache_dir) if custom(variant) else model
    kwargs = {} if custom(variant) else {"dtype": variant}
    t0 = time.perf_counter()
    relations = args.relations.split(",") if args.relations else None
    scores = score_bear(
        target,
        templates=args.templates,
        per_relation=args.per_relation,
        seed=args.seed,
        relations=relations,
        device="cpu",
        cache_dir=args.cache_dir,
        **kwargs,
    )
    return scores, time.perf_counter() - t0


# --------------------------------------------------------------------------- agreement
def agreement(ref, other, n_boot: int, seed: int) -> dict:
    """How ``other``'s score table agrees with ``ref``'s (same queries and options)."""
    from calib.confidence import all_estimates, sentence_scores, summary
    from calib.confidence.probabilities import template_predictions

    keys = ["relation", "instance", "template", "option"]
    sa, sb = sentence_scores(ref), sentence_scores(other)
    sa, sb = (
        sa.sort_values(keys).reset_index(drop=True),
        sb.sort_values(keys).reset_index(drop=True),
    )
    if not sa[keys].equals(sb[keys]):
        raise RuntimeError("the two score tables hold different statements")
    diff = np.abs(sa["score"].to_numpy() - sb["score"].to_numpy())
    n_tokens = np.asarray([len(t) for t in ref.sort_values(keys)["token_logprobs"]])
    pa, pb = template_predictions(sa), template_predictions(sb)
    same = pa["prediction"].to_numpy() == pb["prediction"].to_numpy()
    tables = {}
    for name, sent in (("ref", sa), ("other", sb)):
        est = all_estimates(sent)
        tables[name] = summary(
            est[est["estimator"].isin(ESTIMATORS)], n_boot=n_boot, seed=seed
        ).set_index("estimator")
    rows, passes = [], bool(same.mean() >= SAME_PREDICTION_BAR)
    for e in ESTIMATORS:
        a, b = tables["ref"].loc[e], tables["other"].loc[e]
        row = {"estimator": e, "n": int(a["n"])}
        for m in ("accuracy", "ace"):
            half = (a[f"{m}_high"] - a[f"{m}_low"]) / 2
            d = float(b[m] - a[m])
            row.update(
                {
                    f"{m}_ref": float(a[m]),
                    f"{m}_ref_low": float(a[f"{m}_low"]),
                    f"{m}_ref_high": float(a[f"{m}_high"]),
                    f"{m}_other": float(b[m]),
                    f"{m}_other_low": float(b[f"{m}_low"]),
                    f"{m}_other_high": float(b[f"{m}_high"]),
                    f"{m}_difference": d,
                    f"{m}_ref_half_width": float(half),
                    f"{m}_within_half_width": bool(abs(d) <= half),
                }
            )
            passes &= abs(d) <= half
        rows.append(row)
    return {
        "queries": len(same),
        "same_prediction": int(same.sum()),
        "same_prediction_share": float(same.mean()),
        "statements": len(diff),
        "sentence_score_abs_diff_mean": float(diff.mean()),
        "sentence_score_abs_diff_median": float(np.median(diff)),
        "sentence_score_abs_diff_max": float(diff.max()),
        "token_abs_diff_mean": float(diff.sum() / n_tokens.sum()),
        "estimators": rows,
        "passes_bar": bool(passes),
    }


# --------------------------------------------------------------------------- throughput
def slice_queries(args):
    """The throughput slice: ``--slice-per-relation`` facts of the first ``--slice-relations``
    relations of the sample, under the sample's templates."""
    from calib.data.bear import load_bear, template_names
    from calib.scoring.statements import bear_queries

    bear = load_bear()
    rels = sorted(bear.relations)[: args.slice_relations]
    return bear_queries(
        bear.select(rels).sample(args.slice_per_relation, args.seed), template_names(args.templates)
    )


def worker(args) -> int:
    """One format's scorer in a loop: each line on stdin -> seconds of one scoring of the
    slice (the same passes :func:`calib.scoring.clm.clm_score` makes for the store)."""
    from calib.scoring.clm import clm_score
    from calib.scoring.encoding import encode_clm

    lm = load_variant(args.model, args.worker, args.cache_dir)
    groups = [
        encode_clm(lm.tokenizer, q.statements, lm.start_token_id) for q in slice_queries(args)
    ]
    clm_score(lm.model, groups[:4], device="cpu")  # warm-up
    print(
        json.dumps(
            {
                "ready": sum(len(g) for g in groups),
                "threads": torch.get_num_threads(),
                "tokens": int(sum(len(e.ids) for g in groups for e in g)),
            }
        ),
        flush=True,
    )
    for _ in sys.stdin:
        t0 = time.perf_counter()
        clm_score(lm.model, groups, device="cpu")
        print(json.dumps({"seconds": time.perf_counter() - t0}), flush=True)
    return 0


class Worker:
    """A worker process scoring the slice in one format."""

    def __init__(self, variant: str, args):
        cmd = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--worker",
            variant,
            "--model",
            args.model,
            "--templates",
            args.templates,
            "--seed",
            str(args.seed),
            "--slice-relations",
            str(args.slice_relations),
            "--slice-per-relation",
            str(args.slice_per_relation),
        ]
        if args.cache_dir:
            cmd += ["--cache-dir", str(args.cache_dir)]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        self.proc = subprocess.Popen(
            cmd,
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
        self.ready = self._reply()

    def _reply(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.proc.args} ended (exit {self.proc.wait()})")
        return json.loads(line)

    def time(self) -> float:
        self.proc.stdin.write("time\n")
        self.proc.stdin.flush()
        return self._reply()["seconds"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def throughput(ref: str, other: str, args) -> dict:
    """Statements/s of ``ref`` and ``other`` on the slice, alternating, and their ratio."""
    workers = {ref: Worker(ref, args), other: Worker(other, args)}
    n = workers[ref].ready["ready"]
    print(
        f"throughput: {other} vs {ref}, {n} statements ({args.slice_relations} relations x "
        f"{args.slice_per_relation} x {args.templates}), "
        f"{workers[ref].ready['threads']} threads, {args.rounds} alternating rounds; "
        f"load average before {os.getloadavg()[0]:.1f}"
    )
    seconds = {ref: [], other: []}
    for r in range(args.rounds):
        for v in (ref, other) if r % 2 == 0 else (other, ref):
            seconds[v].append(workers[v].time())
        print(
            f"  round {r + 1}: {ref} {n / seconds[ref][-1]:6.1f}  {other} "
            f"{n / seconds[other][-1]:6.1f} statements/s"
        )
    for w in workers.values():
        w.close()
    ratio = float(np.median(np.asarray(seconds[ref]) / np.asarray(seconds[other])))
    out = {
        "label": LOADED_LABEL,
        "statements": n,
        "tokens": workers[ref].ready["tokens"],
        "threads": workers[ref].ready["threads"],
        "rounds": args.rounds,
        "ref_per_s": n / float(np.median(seconds[ref])),
        "other_per_s": n / float(np.median(seconds[other])),
        "ratio_other_over_ref": ratio,
        "rounds_ref_s": seconds[ref],
        "rounds_other_s": seconds[other],
        "load_average_after": os.getloadavg()[0],
    }
    print(
        f"  median: {ref} {out['ref_per_s']:.1f}, {other} {out['other_per_s']:.1f} "
        f"statements/s; {other} / {ref} = {ratio:.2f} (median of the rounds' ratios; "
        f"{LOADED_LABEL})"
    )
    return out


# --------------------------------------------------------------------------- main
def report(ref: str, other: str, agree: dict) -> None:
    print(
        f"agreement: {other} vs {ref}: same predicted option for {agree['same_prediction']} of "
        f"{agree['queries']} queries ({agree['same_prediction_share']:.2%}; bar "
        f"{SAME_PREDICTION_BAR:.0%}); |sentence score difference| mean "
        f"{agree['sentence_score_abs_diff_mean']:.4f}, max "
        f"{agree['sentence_score_abs_diff_max']:.3f} nats over {agree['statements']} "
        f"statements ({agree['token_abs_diff_mean']:.4f} per token)"
    )
    print(
        f"  {'estimator':16} {'accuracy ' + ref:>16} {other:>9} {'diff':>7} {'half':>6}   "
        f"{'ACE ' + ref:>12} {other:>9} {'diff':>7} {'half':>6}"
    )
    for r in agree["estimators"]:
        print(
            f"  {r['estimator']:16} {r['accuracy_ref']:16.3f} {r['accuracy_other']:9.3f} "
            f"{r['accuracy_difference']:+7.3f} {r['accuracy_ref_half_width']:6.3f}"
            f"{'' if r['accuracy_within_half_width'] else '!'}  "
            f"{r['ace_ref']:12.3f} {r['ace_other']:9.3f} {r['ace_difference']:+7.3f} "
            f"{r['ace_ref_half_width']:6.3f}{'' if r['ace_within_half_width'] else '!'}"
        )
    print(
        f"  passes the bar: {agree['passes_bar']} (half: half-width of the {ref} 95% interval;"
        f" ! marks a difference beyond it)"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument(
        "--dtypes",
        default="float32,bfloat16",
        help="formats, the reference first: float32, bfloat16, float16, "
        "int8-dynamic[:bfloat16|float32] (the output layer's dtype), "
        "bfloat16-autocast",
    )
    ap.add_argument("--per-relation", type=int, default=2, help="the cpu profile's sample")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--templates", default="paraphrase-0..4")
    ap.add_argument(
        "--relations",
        default=None,
        help="comma-separated relation ids (default: all, as the cpu profile)",
    )
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3, help="alternating throughput rounds")
    ap.add_argument("--slice-relations", type=int, default=6, help="throughput slice")
    ap.add_argument("--slice-per-relation", type=int, default=1, help="throughput slice")
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch threads for scoring and timing (default: torch's)",
    )
    ap.add_argument("--no-throughput", action="store_true")
    ap.add_argument("--cache-dir", default=None, help="score cache (default $CALIB_CACHE_DIR)")
    ap.add_argument("--json", default=None, help="write the results here as JSON")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.worker:
        return worker(args)
    variants = [v.strip() for v in args.dtypes.split(",") if v.strip()]
    if len(variants) < 2:
        raise SystemExit("--dtypes: a reference and at least one format to compare with it")
    for v in variants:
        if v.startswith(INT8):
            int8_head(v)
    t_start = time.perf_counter()
    ref = variants[0]
    result = {
        "model": args.model,
        "device": "cpu",
        "reference": ref,
        "sample": {
            "per_relation": args.per_relation,
            "seed": args.seed,
            "templates": args.templates,
            "relations": args.relations or "all",
        },
        "torch": torch.__version__,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "bar": {
            "same_prediction_share": SAME_PREDICTION_BAR,
            "accuracy_and_ace": "within the half-width of the reference's 95% "
            "bootstrap interval, per estimator",
        },
        "threads": torch.get_num_threads(),
        "n_boot": args.n_boot,
        "candidates": [],
    }
    ref_scores, ref_s = score_sample(args.model, ref, args)
    print(
        f"scored {args.model} in {ref}: {len(ref_scores)} statements ({ref_s:.0f} s; 0 when "
        f"the store already held them)"
    )
    for other in variants[1:]:
        scores, s = score_sample(args.model, other, args)
        print(f"scored {args.model} in {other}: {len(scores)} statements ({s:.0f} s)")
        agree = agreement(ref_scores, scores, args.n_boot, args.seed)
        report(ref, other, agree)
        entry = {"format": other, "agreement": agree}
        if not args.no_throughput:
            entry["throughput"] = throughput(ref, other, args)
        result["candidates"].append(entry)
    print(f"({time.perf_counter() - t_start:.0f} s)")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
