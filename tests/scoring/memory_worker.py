"""Measures the peak resident memory of one ``clm_score`` call on a tiny model of Gemma 3's
vocabulary, in a process of its own (run by ``test_memory.py``); prints JSON.

Large allocations are made to map and unmap memory at once (``mallopt(M_MMAP_THRESHOLD,
1 MiB)``: glibc otherwise raises the threshold after the first free and keeps freed blocks in
its heap), so that the resident memory follows the tensors alive. The peak is ``VmHWM`` after
resetting it (``/proc/self/clear_refs``), above the resident memory before the call.

    python tests/scoring/memory_worker.py BUDGET SLICE_LOGITS sliced|whole
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

M_MMAP_THRESHOLD = -3


def status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def main(budget: int, slice_logits: int, mode: str) -> None:
    ctypes.CDLL("libc.so.6").mallopt(M_MMAP_THRESHOLD, 1 << 20)
    import torch
    from transformers import AutoModelForCausalLM, Gemma3TextConfig

    import calib.scoring.clm as clm
    from calib.data.bear import load_bear
    from calib.models.loading import load_model
    from calib.scoring.encoding import encode_clm
    from calib.scoring.heads import OutputSplit, _cache_kwarg
    from calib.scoring.memory import model_shape, plan_passes
    from calib.scoring.statements import bear_queries

    cfg = Gemma3TextConfig(
        vocab_size=262_144,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        sliding_window=8,
        max_position_embeddings=256,
        layer_types=["sliding_attention", "full_attention"],
    )
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(cfg).eval()
    tok = load_model("tiny-llama", device="cpu").tokenizer  # ids valid in any vocabulary
    bear = load_bear().select(["P19", "P1412", "P30", "P36", "P103"]).sample(2, seed=0)
    qs = bear_queries(bear, ["paraphrase-0", "paraphrase-4"])
    groups = [encode_clm(tok, q.statements, tok.bos_token_id) for q in qs]
    if mode == "whole":  # the model's own logits for every position of a pass, as before
        clm.output_split = lambda m: OutputSplit(m, lambda h: h, 262_144, True, _cache_kwarg(m))
    clm.clm_score(model, groups[:2], token_budget=budget, slice_logits=slice_logits)  # warm
    Path("/proc/self/clear_refs").write_text("5")
    before = status("VmRSS")
    clm.clm_score(model, groups, token_budget=budget, slice_logits=slice_logits)
    peak = status("VmHWM") - before
    plan = plan_passes(model_shape(cfg), budget, "float32", "cpu", slice_logits)
    print(json.dumps({"peak": peak, "plan": plan.as_dict()}))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
