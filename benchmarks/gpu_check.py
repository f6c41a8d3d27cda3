"""GPU check: ``score_bear`` end to end on three architectures in bfloat16, the host's share of
it, the passes' memory against their plan, and the agreement with float32. One prepared script
for a lent device: with the defaults it scores one template over all of BEAR (209,499
statements) per architecture. ``--smoke`` runs a tiny version on the CPU (tested).

For each architecture (random weights, built from a config in this file; no hub needed): the
SmolLM2-135M, Gemma-3-270M and Llama-3.2-1B shapes, scored through
:func:`calib.scoring.run.score_bear` (tokenising, the store lookup and claim, the passes, the
rows written to a fresh store and returned in order) at the device's token budget on BEAR under
one template:

* statements/s end to end, cold (nothing cached) and as the second model of a family (the
  statements' token ids in the token cache); the **host share**: the same ``score_bear`` with
  the zero-cost stand-in of the same shapes (``standin.py``: every device operation O(1)) on
  this machine's CPU, over the real run's seconds;
* tokens/s (forwarded by the plan, padding included, and the minimum), model FLOPs
  utilisation: 2 x (non-embedding parameters + output layer) FLOPs per minimum token over the
  device's dense bf16 peak (``--peak-tflops``, H200: 989);
* the memory plan of the passes from the configuration (:mod:`calib.scoring.memory`) and the
  peak CUDA allocated during the run, and whether it stayed within the plan;
* bfloat16 vs float32 on a subsample (same weights): share of queries with the same predicted
  option, mean and max |difference| of the sentence log-likelihood per statement;
* first, the tiny registry models on the device against the naive reference (float32);
* ``--plans``: the memory plan of every registry model whose configuration is on the machine.

Token ids come from one tokenizer (``--tokenizer``: a registry name or folder; SmolLM2's by
default) for all three, so their lengths are SmolLM2's.

**On a bare GPU machine** (the checkout without an installed calib, no GGUF packages, no data,
offline): the script puts its checkout first on the import path itself. Here, where the
embedded SmolLM2 and BEAR are, ``--prepare .device`` writes what it needs into ``.device/``:
SmolLM2's tokenizer as a folder (``.device/smollm2``) and BEAR's data (``.device/data/bear``,
1.6 MiB); it prints their size, a few MiB of the 64 MiB a carry may hold. The device tool
carries ``.device`` (ignored by git), and there, from the repository root:

    python benchmarks/gpu_check.py --prepare .device            # here
    python benchmarks/gpu_check.py --tokenizer .device/smollm2 --data .device/data \
        --json gpu_check.json                                    # there (carry: .device)
    python benchmarks/gpu_check.py --smoke

It prints the versions of Python, torch, transformers, tokenizers, numpy and pyarrow and
where calib was imported from. The bfloat16/float32 agreement it prints is measured on random
weights, whose near-uniform predictions agree whatever the precision: it tests nothing about
trained models (``benchmarks/cpu_dtype_agreement.py`` measures that on the embedded models).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO / "benchmarks", REPO):  # a bare checkout: its calib, and standin.py beside
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import numpy as np  # noqa: E402 - after the import path is set
import torch  # noqa: E402

from calib.scoring.accounting import account  # noqa: E402
from calib.scoring.batching import model_plan, model_token_budget  # noqa: E402
from calib.scoring.clm import clm_score  # noqa: E402

H200_BF16_TFLOPS = 989.0
#: what the agreement line says (random weights: see the module docstring)
RANDOM_WEIGHTS_NOTE = (
    "random weights: near-uniform predictions agree in any precision; "
    "this cannot test bf16/fp32 agreement"
)
#: the libraries whose versions a run prints
LIBRARIES = ("torch", "transformers", "tokenizers", "numpy", "pyarrow")


def versions() -> dict:
    """Python's version, each of :data:`LIBRARIES`' and where calib was imported from."""
    import importlib

    import calib

    out = {"python": sys.version.split()[0], "calib": str(Path(calib.__file__).parent)}
    for name in LIBRARIES:
        out[name] = getattr(importlib.import_module(name), "__version__", "?")
    if torch.cuda.is_available():
        out["cuda"] = str(torch.version.cuda)
    return out


def prepare(folder: Path, tokenizer: str) -> None:
    """Write ``tokenizer``'s files (``folder/smollm2``) and BEAR's data (``folder/data/bear``)
    for a bare machine; prints their size."""
    from calib.data.bear import load_bear
    from calib.data.root import data_root
    from calib.models.loading import load_tokenizer

    load_bear()  # every BEAR file present (fetched where missing)
    load_tokenizer(tokenizer).save_pretrained(folder / "smollm2")
    shutil.copytree(data_root() / "bear", folder / "data" / "bear", dirs_exist_ok=True)
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    print(f"{folder}: {size / 2**20:.1f} MiB (carry it: the device tool's limit is 64 MiB)")


def architectures(smoke: bool, vocab: int) -> dict:
    """Configs of the three architectures (tiny stand-ins with ``smoke``)."""
    from transformers import Gemma3TextConfig, LlamaConfig

    if smoke:
        small = dict(
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=vocab,
        )
        return {
            "smollm2-135m": LlamaConfig(**small, tie_word_embeddings=True),
            "gemma-3-270m": Gemma3TextConfig(
                **small,
                head_dim=16,
                sliding_window=8,
                layer_types=["sliding_attention", "full_attention"],
            ),
            "llama-1b": LlamaConfig(**small),
        }
    return {
        "smollm2-135m": LlamaConfig(
            vocab_size=49152,
            hidden_size=576,
            intermediate_size=1536,
            num_hidden_layers=30,
            num_attention_heads=9,
            num_key_value_heads=3,
            max_position_embeddings=8192,
            rope_theta=100000.0,
            tie_word_embeddings=True,
        ),
        "gemma-3-270m": Gemma3TextConfig(
            vocab_size=262144,
            hidden_size=640,
            intermediate_size=2048,
            num_hidden_layers=18,
            num_attention_heads=4,
            num_key_value_heads=1,
            head_dim=256,
            sliding_window=512,
            max_position_embeddings=32768,
            layer_types=(["sliding_attention"] * 5 + ["full_attention"]) * 3,
        ),
        "llama-1b": LlamaConfig(
            vocab_size=128256,
            hidden_size=2048,
            intermediate_size=8192,
            num_hidden_layers=16,
            num_attention_heads=32,
            num_key_value_heads=8,
            head_dim=64,
            max_position_embeddings=131072,
            rope_theta=500000.0,
            tie_word_embeddings=True,
        ),
    }


def flops_per_token(model) -> float:
    """2 x (parameters without the input embedding, plus the output layer's matrix)."""
    emb = model.get_input_embeddings().weight
    head = model.get_output_embeddings().weight
    params = sum(p.numel() for p in model.parameters())
    tied = head.data_ptr() == emb.data_ptr()
    return 2.0 * (params - emb.numel() + (head.numel() if tied else 0))


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def check_tiny(device: str, queries) -> list[dict]:
    """Tiny registry models on ``device``: fast (default budget) vs the naive reference."""
    from calib.models.loading import load_model
    from calib.scoring.encoding import encode_clm, encode_mlm
    from calib.scoring.mlm import mlm_score
    from calib.scoring.reference import clm_reference, mlm_reference

    out = []
    for name in ("tiny-gpt2", "tiny-llama", "tiny-bert"):
        lm = load_model(name, device=device, dtype="float32")
        tok = lm.tokenizer
        if lm.objective == "clm":
            groups = [encode_clm(tok, q.statements, lm.start_token_id) for q in queries]
            fast = clm_score(lm.model, groups, device=lm.device)
            naive = [[clm_reference(lm.model, e, lm.device) for e in g] for g in groups]
        else:
            groups = [encode_mlm(tok, q.statements) for q in queries]
            fast = mlm_score(
                lm.model, groups, tok.mask_token_id, tok.pad_token_id or 0, device=lm.device
            )
            naive = [
                [mlm_reference(lm.model, e, tok.mask_token_id, lm.device) for e in g]
                for g in groups
            ]
        diff = max(abs(a.sum() - b.sum()) for ga, gb in zip(fast, naive) for a, b in zip(ga, gb))
        row = {"model": name, "fast_vs_naive_max_abs_diff": float(diff)}
        print(json.dumps(row), flush=True)
        out.append(row)
    return out


def sentence_totals(scores) -> list[np.ndarray]:
    return [np.asarray([s.sum() for s in g]) for g in scores]


def agreement(a, b) -> dict:
    """Same predicted option share, mean and max |difference| per statement."""
    same = float(np.mean([x.argmax() == y.argmax() for x, y in zip(a, b)]))
    d = np.abs(np.concatenate(a) - np.concatenate(b))
    return {
        "same_prediction_share": same,
        "mean_abs_diff": float(d.mean()),
        "max_abs_diff": float(d.max()),
    }


def _loaded(name: str, model, tok, start: int, device: str, key: str):
    from calib.models.loading import LoadedModel

    return LoadedModel(
        name=f"gpu-check-{name}",
        objective="clm",
        model=model,
        tokenizer=tok,
        device=torch.device(device),
        dtype=next(model.parameters()).dtype,
        key=key,
        start_token_id=start,
    )


def one_architecture(name: str, config, tok, start: int, bear, sub, args) -> dict:
    """``score_bear`` end to end (encoding, scoring, the rows stored) with a random model of
    ``config``, cold (the token cache empty) and as the second model of a family (the token
    ids cached); the same call with the zero-cost stand-in of the same shapes on the host
    (``standin.py``) is the host's share; the plan of the passes' memory against the peak."""
    import tempfile

    from standin import gpu_settings, stand_in_lm
    from transformers import AutoModelForCausalLM

    import calib.scoring.chunks as chunks
    from calib.scoring.memory import model_shape, plan_passes
    from calib.scoring.run import score_bear, score_queries
    from calib.scoring.statements import bear_queries

    device = args.device
    torch.manual_seed(0)
    t0 = time.perf_counter()
    model = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16).to(device).eval()
    built = time.perf_counter() - t0
    budget = args.token_budget or model_token_budget(model, device)
    pad = not device.startswith("cpu")
    queries = bear_queries(bear.sample(args.per_relation, 0), [args.template])
    batch = chunks.encode_batch(_loaded(name, model, tok, start, device, "x@0"), queries, "single")
    acc = account(model_plan(model, batch, budget, pad))
    shape = model_shape(config, parameters=sum(p.numel() for p in model.parameters()))
    plan = plan_passes(shape, budget, "bfloat16", "cpu" if device.startswith("cpu") else "cuda")
    kw = dict(
        token_budget=budget,
        progress=False,
        per_relation=args.per_relation,
        relations=sorted(bear.relations),
    )
    with tempfile.TemporaryDirectory() as tmp:
        warm_up = _loaded(name, model, tok, start, device, "warm-up@0")
        score_queries(warm_up, queries[:8], cache_dir=f"{tmp}/w", token_budget=budget)
        if device.startswith("cuda"):
            torch.cuda.reset_peak_memory_stats()
        sync(device)
        t0 = time.perf_counter()
        table = score_bear(
            _loaded(name, model, tok, start, device, "first@0"), args.template, cache_dir=tmp, **kw
        )
        sync(device)
        cold = time.perf_counter() - t0
        peak = torch.cuda.max_memory_allocated() if device.startswith("cuda") else None
        t0 = time.perf_counter()
        score_bear(
            _loaded(name, model, tok, start, device, "second@0"), args.template, cache_dir=tmp, **kw
        )
        sync(device)
        warm = time.perf_counter() - t0
        # the host alone: the stand-in of the same shapes, the GPU's settings, on this CPU
        real_clm_score = chunks.clm_score
        gpu_settings(chunks)
        try:
            standin = stand_in_lm(tok, start, shape.vocab, shape.hidden, "stand-in@0")
            score_queries(standin, queries[:8], cache_dir=f"{tmp}/ws", token_budget=budget)
            t0 = time.perf_counter()
            score_bear(
                stand_in_lm(tok, start, shape.vocab, shape.hidden, "stand-in-2@0"),
                args.template,
                cache_dir=f"{tmp}/s",
                **kw,
            )
            host = time.perf_counter() - t0
        finally:
            chunks.clm_score = real_clm_score
    n = len(table)
    fpt = flops_per_token(model)
    row = {
        "architecture": name,
        "parameters": sum(p.numel() for p in model.parameters()),
        "budget": budget,
        "statements": n,
        "seconds": cold,
        "statements_per_s": n / cold,
        "second_of_family_seconds": warm,
        "second_of_family_statements_per_s": n / warm,
        "host_seconds": host,
        "host_share": host / cold,
        "forwarded_tokens_per_s": acc.forwarded / cold,
        "minimum_tokens_per_s": acc.minimum / cold,
        "ratio": acc.ratio,
        "padding_share": acc.padding_share,
        "statements_per_pass": acc.statements_per_pass,
        "mfu": fpt * acc.minimum / cold / (args.peak_tflops * 1e12),
        "bear_x12_minutes": 2_513_988 / (n / cold) / 60,
        "build_s": built,
        "plan": plan.as_dict(),
    }
    if peak is not None:
        row["gpu_peak_gib"] = peak / 2**30
        row["gpu_peak_within_plan"] = peak <= plan.peak
    # bfloat16 vs float32, the same weights, on the subsample
    low = sentence_totals(clm_score(model, sub, device=device, token_budget=budget))
    model32 = model.float()
    f32 = sentence_totals(clm_score(model32, sub, device=device, token_budget=budget))
    row.update(agreement(low, f32), agreement_note=RANDOM_WEIGHTS_NOTE)
    print(json.dumps(row), flush=True)
    del model, model32
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument(
        "--smoke", action="store_true", help="tiny architectures and sample, on the CPU (seconds)"
    )
    ap.add_argument(
        "--tokenizer",
        default=None,
        help="registry name or folder (default: smollm2-135m-instruct; smoke: tiny-llama)",
    )
    ap.add_argument("--data", default=None, help="the data root (a folder holding bear/)")
    ap.add_argument(
        "--prepare", default=None, help="write the tokenizer and BEAR into this folder, and stop"
    )
    ap.add_argument("--template", default="paraphrase-0")
    ap.add_argument(
        "--per-relation", type=int, default=None, help="facts per relation (default: all; smoke: 1)"
    )
    ap.add_argument(
        "--agreement-per-relation",
        type=int,
        default=10,
        help="facts per relation of the float32 comparison (smoke: 1)",
    )
    ap.add_argument("--architectures", default="smollm2-135m,gemma-3-270m,llama-1b")
    ap.add_argument("--token-budget", type=int, default=None, help="default: from the device")
    ap.add_argument("--peak-tflops", type=float, default=H200_BF16_TFLOPS)
    ap.add_argument("--json", default=None)
    ap.add_argument(
        "--plans",
        action="store_true",
        help="also print the memory plan of every registry model whose configuration is here",
    )
    args = ap.parse_args(argv)
    if args.data:
        os.environ["CALIB_DATA_DIR"] = str(Path(args.data).resolve())
    if args.prepare:
        prepare(Path(args.prepare), args.tokenizer or "smollm2-135m-instruct")
        return 0
    from calib.data.bear import load_bear
    from calib.models.loading import load_tokenizer, start_token_id
    from calib.scoring.encoding import encode_clm
    from calib.scoring.statements import bear_queries

    if args.smoke:
        args.device = "cpu"
        args.tokenizer = args.tokenizer or "tiny-llama"
        args.per_relation = args.per_relation or 1
        args.agreement_per_relation = 1
    tok_name = args.tokenizer or "smollm2-135m-instruct"
    tok = load_tokenizer(tok_name)
    start = (
        start_token_id(tok_name, tok)
        if not Path(tok_name).is_dir()
        else (tok.bos_token_id if tok.bos_token_id is not None else 0)
    )
    print(
        f"device {args.device}: "
        f"{torch.cuda.get_device_name() if args.device.startswith('cuda') else 'cpu'}, "
        f"tokenizer {tok_name}",
        flush=True,
    )
    results: dict = {"versions": versions()}
    print("versions: " + ", ".join(f"{k} {v}" for k, v in results["versions"].items()), flush=True)
    bear = load_bear()
    if args.smoke:
        bear = bear.select(sorted(bear.relations)[:2])
    results["tiny"] = check_tiny(args.device, bear_queries(bear.sample(1, 0), [args.template])[:6])

    def encoded(per_relation):
        qs = bear_queries(bear.sample(per_relation, 0), [args.template])
        return [encode_clm(tok, q.statements, start) for q in qs]

    sub = encoded(args.agreement_per_relation)
    configs = architectures(args.smoke, len(tok))
    results["architectures"] = [
        one_architecture(name, configs[name], tok, start, bear, sub, args)
        for name in args.architectures.split(",")
    ]
    for r in results["architectures"]:
        print(
            f"{r['architecture']:14} score_bear {r['statements_per_s']:10,.0f} statements/s "
            f"(second of a family {r['second_of_family_statements_per_s']:,.0f}), host share "
            f"{r['host_share']:.0%}, {r['forwarded_tokens_per_s']:12,.0f} tokens/s  MFU "
            f"{r['mfu']:6.1%}"
        )
        print(
            f"{'':14} same prediction bf16/fp32 {r['same_prediction_share']:.1%}, |diff| mean "
            f"{r['mean_abs_diff']:.3f} max {r['max_abs_diff']:.3f} ({RANDOM_WEIGHTS_NOTE})"
        )
    if args.plans:  # the registry's models, from their configurations (where they are here)
        from calib.scoring.memory import H200_BYTES, print_plans

        print_plans(["all"], H200_BYTES)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
