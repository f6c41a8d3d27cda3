"""The memory plan of a pass (:mod:`calib.scoring.memory`) bounds what a pass takes, measured,
for a model of Gemma 3's 262,144-token vocabulary; and taking the logits of a whole pass at once
(the scorer before issue 27) would not fit it.

Measured as the peak resident memory of this process (Linux: ``VmHWM`` after resetting it
through ``/proc/self/clear_refs``) while :func:`calib.scoring.clm.clm_score` runs, above what
was resident before: the weights are resident already; large tensors are mapped and unmapped
by the allocator, so the peak follows them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from helpers import queries

from calib.scoring.clm import clm_score
from calib.scoring.encoding import encode_clm
from calib.scoring.memory import model_shape, plan_budget, plan_lines, plan_passes

GEMMA_VOCAB = 262_144
BUDGET = 256
SLICE_LOGITS = 1 << 22  # 16 positions of the vocabulary at a time


def _status(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


def peak_above_now(run) -> int:
    """Bytes of resident memory at the peak of ``run()`` above the resident memory before."""
    Path("/proc/self/clear_refs").write_text("5")  # the high-water mark := now
    before = _status("VmRSS")
    run()
    return _status("VmHWM") - before


@pytest.fixture(scope="module")
def gemma_vocab_model(tiny_models):
    from transformers import AutoModelForCausalLM, Gemma3TextConfig

    cfg = Gemma3TextConfig(
        vocab_size=GEMMA_VOCAB,
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
    return AutoModelForCausalLM.from_config(cfg).eval(), cfg


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux only")
@pytest.mark.parametrize("whole", [False, True], ids=["sliced", "whole-logits"])
def test_a_pass_stays_within_its_plan(
    whole, gemma_vocab_model, tiny_models, small_bear, monkeypatch
):
    model, cfg = gemma_vocab_model
    tok = tiny_models["tiny-llama"].tokenizer  # ids < its 600 tokens: valid in any vocabulary
    groups = [encode_clm(tok, q.statements, tok.bos_token_id) for q in queries(small_bear)]
    shape = model_shape(cfg)
    plan = plan_passes(shape, BUDGET, "float32", "cpu", SLICE_LOGITS)
    if whole:  # the model's own logits for every position of a pass, as before issue 27
        import calib.scoring.clm as clm
        from calib.scoring.heads import OutputSplit, _cache_kwarg

        monkeypatch.setattr(
            clm,
            "output_split",
            lambda m: OutputSplit(m, lambda h: h, GEMMA_VOCAB, True, _cache_kwarg(m)),
        )
    clm_score(model, groups[:2], token_budget=BUDGET, slice_logits=SLICE_LOGITS)  # warm
    peak = peak_above_now(
        lambda: clm_score(model, groups, token_budget=BUDGET, slice_logits=SLICE_LOGITS)
    )
    above_weights = plan.peak - plan.weights
    full_logits = BUDGET * GEMMA_VOCAB * 4
    print(f"measured {peak / 2**20:.0f} MiB; plan {above_weights / 2**20:.0f} MiB above weights")
    if whole:
        assert peak > above_weights  # the plan would not hold a pass's whole logits
        assert peak > full_logits / 2
    else:
        assert peak <= above_weights
        assert peak < full_logits / 2


def test_the_plan_of_the_embedded_models_on_an_h200():
    """From the configuration alone: the budget grows to the memory, whatever the vocabulary,
    and the logits before issue 27 would not have fitted at that budget."""
    from calib.models.loading import load_config
    from calib.scoring.memory import H200_BYTES

    shape = model_shape(load_config("tiny-llama"))
    plan = plan_budget(shape, H200_BYTES)
    assert plan.budget == 1 << 20 and plan.peak <= 0.7 * H200_BYTES
    lines = plan_lines("tiny-llama", shape, plan, H200_BYTES)
    assert "budget 1,048,576 tokens" in lines[1]
    big = shape.__class__(**{**shape.__dict__, "vocab": GEMMA_VOCAB})
    same = plan_budget(big, H200_BYTES)
    assert same.budget == plan.budget  # the vocabulary enters through one slice only
    assert same.logits_before > 0.7 * H200_BYTES


def test_calib_plan_prints_the_dry_run(tiny_models, capsys, tmp_path):
    from calib.cli import main

    assert main(["plan", "--model", "tiny-llama", "tiny-bert"]) == 0
    out = capsys.readouterr().out
    assert out.count("tokens per pass on 139 GiB") == 2 and "prefix-peak" in out
    assert main(["plan", "--model", str(tmp_path / "nowhere"), "--memory-gib", "80"]) == 1
    assert "no configuration here" in capsys.readouterr().out
