"""How much the scores change with torch's intra-op thread count (float32 reductions in another
order), and whether anything derived from them changes.

Each model scores one seeded BEAR sample in one worker process per thread count
(``OMP_NUM_THREADS`` and ``torch.set_num_threads``), through the scorer a run uses
(:func:`calib.scoring.chunks.score_chunk`, no store); the parent compares every table with the
first: per-token log-probabilities (largest absolute and relative difference, share of tokens
that differ at all), sentence log-likelihoods, each query's prediction (Base: the option with
the highest summed log-probability) and its accuracy, and the smallest gap between a query's
two best options (how close a prediction came to flipping). Not a timing: run it anywhere.

    python benchmarks/thread_rounding.py                                  # tiny models + SmolLM2
    python benchmarks/thread_rounding.py --models tiny-gpt2 --threads 1,2,4 --per-relation 1
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
MODELS = ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta", "smollm2-135m-instruct"]
RELATIONS = ["P19", "P30", "P36", "P105", "P176", "P1412"]


def worker(model: str, threads: int, out: str, per_relation: int, templates: str) -> None:
    """Score the sample with ``threads`` intra-op threads; write the table to ``out``."""
    import torch

    torch.set_num_threads(threads)
    from calib.data.bear import load_bear, template_names
    from calib.models.loading import load_model
    from calib.scoring.chunks import score_chunk
    from calib.scoring.statements import bear_queries

    queries = bear_queries(
        load_bear(relations=RELATIONS).sample(per_relation, 0), template_names(templates)
    )
    # tiny models are built into a temporary cache; the others come from $CALIB_CACHE_DIR
    lm = load_model(
        model,
        device="cpu",
        cache_dir=os.environ.get("ROUNDING_TINY_CACHE") if model.startswith("tiny-") else None,
    )
    table = score_chunk(lm, queries, None, None).to_pandas()  # an Arrow table of the rows
    table["threads"] = torch.get_num_threads()
    table.to_parquet(out)


def compare(base, other) -> dict:
    keys = ["relation", "instance", "template", "option"]
    base, other = (
        base.sort_values(keys).reset_index(drop=True),
        other.sort_values(keys).reset_index(drop=True),
    )
    assert (base[keys] == other[keys]).all().all()
    a = np.concatenate(base["token_logprobs"].to_numpy()).astype(np.float64)
    b = np.concatenate(other["token_logprobs"].to_numpy()).astype(np.float64)
    d = np.abs(a - b)
    sa = np.asarray([x.sum(dtype=np.float64) for x in base["token_logprobs"]])
    sb = np.asarray([x.sum(dtype=np.float64) for x in other["token_logprobs"]])
    q = ["relation", "instance", "template"]

    def predictions(frame, sums):
        f = frame[[*q, "option", "answer_idx"]].assign(s=sums)
        best = f.loc[f.groupby(q)["s"].idxmax()].set_index(q)
        top2 = f.groupby(q)["s"].apply(
            lambda s: np.diff(np.sort(s.to_numpy())[-2:])[0] if len(s) > 1 else np.inf
        )
        return best["option"], (best["option"] == best["answer_idx"]).mean(), top2.min()

    pa, acc_a, gap = predictions(base, sa)
    pb, acc_b, _ = predictions(other, sb)
    return {
        "statements": len(base),
        "tokens": len(a),
        "max_abs_token": float(d.max()),
        "max_rel_token": float((d / np.maximum(np.abs(a), 1e-30)).max()),
        "share_tokens_differing": float((d > 0).mean()),
        "max_abs_sentence": float(np.abs(sa - sb).max()),
        "predictions_differing": int((pa != pb.reindex(pa.index)).sum()),
        "accuracy": [float(acc_a), float(acc_b)],
        "smallest_top2_gap": float(gap),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--threads", default="1,2", help="thread counts; the first is the base")
    ap.add_argument("--per-relation", type=int, default=2)
    ap.add_argument("--templates", default="paraphrase-0..4")
    ap.add_argument(
        "--worker", nargs=3, metavar=("MODEL", "THREADS", "OUT"), help=argparse.SUPPRESS
    )
    args = ap.parse_args()
    if args.worker:
        model, threads, out = args.worker
        worker(model, int(threads), out, args.per_relation, args.templates)
        return
    import pandas as pd

    threads = [int(t) for t in args.threads.split(",")]
    print(
        f"relations {RELATIONS}, {args.per_relation} per relation, templates "
        f"{args.templates}; threads {threads} (the first is the base)"
    )
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for model in args.models.split(","):
            tables = []
            for t in threads:
                out = Path(tmp) / f"{model}-{t}.parquet"
                env = dict(
                    os.environ,
                    OMP_NUM_THREADS=str(t),
                    MKL_NUM_THREADS=str(t),
                    ROUNDING_TINY_CACHE=str(Path(tmp) / "cache"),
                    HF_HUB_DISABLE_PROGRESS_BARS="1",
                    TRANSFORMERS_VERBOSITY="error",
                    PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
                )
                subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--worker",
                        model,
                        str(t),
                        str(out),
                        "--per-relation",
                        str(args.per_relation),
                        "--templates",
                        args.templates,
                    ],
                    env=env,
                    check=True,
                )
                tables.append(pd.read_parquet(out))
            for t, table in zip(threads[1:], tables[1:]):
                assert int(table["threads"].iloc[0]) == t
                r = compare(tables[0], table)
                results[f"{model} {threads[0]} vs {t} threads"] = r
                print(
                    f"{model:24s} {threads[0]} vs {t}: max|d| token {r['max_abs_token']:.2e} "
                    f"(rel {r['max_rel_token']:.1e}, {r['share_tokens_differing']:.1%} of "
                    f"{r['tokens']} tokens differ), sentence {r['max_abs_sentence']:.2e}; "
                    f"predictions differing {r['predictions_differing']}, accuracy "
                    f"{r['accuracy'][0]:.4f} / {r['accuracy'][1]:.4f}, smallest top-2 gap "
                    f"{r['smallest_top2_gap']:.2e}",
                    flush=True,
                )
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
