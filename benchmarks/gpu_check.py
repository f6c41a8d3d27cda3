"""GPU check: the fast scorers on CUDA agree with the naive references, and how fast they are.

Meant for a machine with a GPU but without the hub (the embedded weights need not travel):

1. correctness on CUDA: tiny CLMs and MLMs, fast vs naive per statement (float32), and the
   fast path on CUDA vs on CPU;
2. throughput: models with the *architectures and tokenizers* of the embedded models but random
   weights (``--arch-folder``, a folder holding ``config.json`` and tokenizer files), on CUDA in
   float32 and bfloat16, fast vs naive, on the BEAR paraphrase sample, extrapolated to one
   template over all of BEAR (209,499 statements).

    python benchmarks/gpu_check.py --arch-folder .device/smollm2 --arch-folder .device/gemma
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from calib.models.loading import LoadedModel, load_model
from calib.scoring.clm import clm_score
from calib.scoring.encoding import encode_clm, encode_mlm

import scoring_throughput as st

BEAR_STATEMENTS_PER_TEMPLATE = 209_499


def check_tiny(device: str, queries) -> list[dict]:
    out = []
    for name in ("tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"):
        cpu = load_model(name, device="cpu")
        gpu = load_model(name, device=device)
        groups = [(encode_clm(gpu.tokenizer, q.statements, gpu.start_token_id)
                   if gpu.objective == "clm" else encode_mlm(gpu.tokenizer, q.statements))
                  for q in queries]
        fast_gpu = st.run_fast(gpu, groups)
        fast_cpu = st.run_fast(cpu, groups)
        sub = groups[:: max(1, len(groups) // 6)]
        naive = st.run_naive(gpu, sub)
        idx = list(range(0, len(groups), max(1, len(groups) // 6)))
        d_naive = max(abs(fast_gpu[g][o].sum() - naive[i][o].sum())
                      for i, g in enumerate(idx) for o in range(len(sub[i])))
        d_cpu = max(abs(a.sum() - b.sum()) for ga, gb in zip(fast_gpu, fast_cpu)
                    for a, b in zip(ga, gb))
        row = {"model": name, "objective": gpu.objective, "fast_vs_naive_cuda": float(d_naive),
               "cuda_vs_cpu": float(d_cpu)}
        print(json.dumps(row))
        out.append(row)
    return out


def random_model(folder: Path, device: str, dtype: torch.dtype) -> LoadedModel:
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    config = AutoConfig.from_pretrained(folder)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=dtype).to(device).eval()
    tok = AutoTokenizer.from_pretrained(folder)
    start = 0 if "smollm" in folder.name.lower() else tok.bos_token_id
    return LoadedModel(name=f"random-{folder.name}", objective="clm", model=model, tokenizer=tok,
                       device=torch.device(device), dtype=dtype, key="random",
                       start_token_id=start)


def throughput(lm: LoadedModel, queries, naive_share: float) -> dict:
    groups = [encode_clm(lm.tokenizer, q.statements, lm.start_token_id) for q in queries]
    n = sum(len(g) for g in groups)
    st.run_fast(lm, groups[:4])
    fast, t_fast = st.timed(st.run_fast, lm, groups)
    k = max(1, int(len(groups) * naive_share))
    naive, t_naive = st.timed(st.run_naive, lm, groups[:k])
    n_naive = sum(len(g) for g in groups[:k])
    diff = max(abs(a.sum() - b.sum()) for ga, gb in zip(fast[:k], naive) for a, b in zip(ga, gb))
    buckets, t_buckets = st.timed(
        lambda m, g: clm_score(m.model, g, device=m.device, pad=False), lm, groups)
    diff_buckets = max(abs(a.sum() - b.sum()) for ga, gb in zip(fast, buckets)
                       for a, b in zip(ga, gb))
    rate = n / t_fast
    row = {"model": lm.name, "dtype": str(lm.dtype), "statements": n, "fast_per_s": rate,
           "naive_per_s": n_naive / t_naive, "ratio": rate / (n_naive / t_naive),
           "max_abs_diff": float(diff), "buckets_per_s": n / t_buckets,
           "padded_vs_buckets_max_abs_diff": float(diff_buckets),
           "bear_one_template_minutes": BEAR_STATEMENTS_PER_TEMPLATE / rate / 60,
           "gpu_mem_gb": torch.cuda.max_memory_allocated() / 2**30
           if lm.device.type == "cuda" else None}
    print(json.dumps(row))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--arch-folder", action="append", default=[])
    ap.add_argument("--relations", type=int, default=20)
    ap.add_argument("--per-relation", type=int, default=2)
    ap.add_argument("--naive-share", type=float, default=0.1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    print(f"device {args.device}: "
          f"{torch.cuda.get_device_name() if args.device.startswith('cuda') else 'cpu'}, "
          f"torch {torch.__version__}")
    results = {"tiny": check_tiny(args.device, st.sample_queries(6, 1, 0))}
    queries = st.sample_queries(args.relations, args.per_relation, 0)
    results["throughput"] = []
    for folder in args.arch_folder:
        for dtype in (torch.float32, torch.bfloat16):
            t0 = time.time()
            lm = random_model(Path(folder), args.device, dtype)
            results["throughput"].append(throughput(lm, queries, args.naive_share))
            print(f"  ({time.time() - t0:.0f} s)")
            del lm
            if args.device.startswith("cuda"):
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
