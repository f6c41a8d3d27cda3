"""What a GPU run meets, provoked on the CPU: a pass out of memory (halved and run again), a
budget read after a chunk (PyTorch's cached memory counts as free), more rows than CUDA's grid
allows (split), and masked LMs' passes without a mask where nothing is padded (no device
sync per pass)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import encode, queries

from calib.scoring import backoff
from calib.scoring.batching import MAX_ROWS, model_token_budget, pack, plan_mlm
from calib.scoring.clm import clm_score
from calib.scoring.heads import output_split
from calib.scoring.mlm import mlm_score
from calib.scoring.schema import ROUNDING_TOLERANCE

LIMIT = 64  # tokens a pass may hold before the injected out-of-memory error


def _score(lm, groups, **kw):
    if lm.objective == "clm":
        return clm_score(lm.model, groups, **kw)
    tok = lm.tokenizer
    return mlm_score(lm.model, groups, tok.mask_token_id, tok.pad_token_id, **kw)


def _inject_oom(model, raised: list):
    """A hook on ``model``'s backbone that raises ``torch.OutOfMemoryError`` for a pass of
    more than :data:`LIMIT` tokens (counted in ``raised``)."""

    def hook(_module, args, kwargs):
        ids = kwargs.get("input_ids", args[0] if args else None)
        if ids is not None and ids.numel() > LIMIT:
            raised.append(ids.numel())
            raise torch.OutOfMemoryError("CUDA out of memory (injected)")

    return output_split(model).backbone.register_forward_pre_hook(hook, with_kwargs=True)


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-bert"])
def test_an_out_of_memory_pass_is_halved_and_retried(name, tiny_models, small_bear):
    """A budget of 1024 tokens meets passes that fail above 64: the call halves its budget
    until its passes fit, gives the scores of an undisturbed call, reports each statement once,
    and the model's next call starts at the smaller budget (no error again)."""
    lm = tiny_models[name]
    groups = encode(lm, queries(small_bear)[:6])
    want = _score(lm, groups, token_budget=LIMIT)
    raised: list[int] = []
    done: list[int] = []
    handle = _inject_oom(lm.model, raised)
    try:
        got = _score(lm, groups, token_budget=1024, progress=done.append)
        assert raised, "no pass ran out of memory: the test injected nothing"
        assert backoff.capped(lm.model, 1024) <= LIMIT
        n = len(raised)
        again = _score(lm, groups, token_budget=1024)
        assert len(raised) == n  # the next chunk starts at the budget that fit
    finally:
        handle.remove()
        backoff._CAPS.pop(lm.model, None)
    assert sum(done) == sum(len(g) for g in groups)
    for g_got, g_again, g_want in zip(got, again, want):
        for a, b, w in zip(g_got, g_again, g_want):
            np.testing.assert_allclose(a, w, atol=ROUNDING_TOLERANCE, rtol=0)
            np.testing.assert_allclose(b, w, atol=ROUNDING_TOLERANCE, rtol=0)


def test_out_of_memory_at_one_token_ends_the_call(tiny_models, small_bear):
    lm = tiny_models["tiny-gpt2"]
    groups = encode(lm, queries(small_bear)[:2])
    raised: list[int] = []

    def hook(_module, _args, _kwargs):
        raised.append(1)
        raise torch.OutOfMemoryError("CUDA out of memory (injected)")

    handle = output_split(lm.model).backbone.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        with pytest.raises(torch.OutOfMemoryError, match="injected"):
            clm_score(lm.model, groups, token_budget=8)
    finally:
        handle.remove()
        backoff._CAPS.pop(lm.model, None)
    assert len(raised) == 4  # budgets 8, 4, 2, 1


def test_a_pass_holds_at_most_65535_rows():
    """Short sequences under a huge budget: every pass of the planner and of the masked
    planner stays within CUDA's grid limit on rows."""
    widths = np.ones(MAX_ROWS + 5000, dtype=np.int64)
    for pad in (False, True):
        runs = pack(widths, 1 << 20, pad)
        assert max(b - a for a, b in runs) == MAX_ROWS
        assert sum(b - a for a, b in runs) == len(widths)
    assert max(len(p) for p in plan_mlm(widths * 3, 1 << 22, True)) == MAX_ROWS


def test_the_gpu_budget_counts_pytorchs_cached_memory_as_free(tiny_models, monkeypatch):
    """After a chunk, PyTorch keeps the memory its passes used reserved: CUDA reports it as
    used, but it is free for the next chunk's passes. The budget read then equals the first."""
    gib = 1 << 30
    state = {"free": 8 * gib, "reserved": 0, "allocated": 0}
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda _d=None: (state["free"], 80 * gib))
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda _d=None: state["reserved"])
    monkeypatch.setattr(torch.cuda, "memory_allocated", lambda _d=None: state["allocated"])
    model = tiny_models["tiny-llama"].model
    first = model_token_budget(model, "cuda")
    state.update(free=4 * gib, reserved=4 * gib)  # the first chunk's passes, cached
    assert model_token_budget(model, "cuda") == first
    state.update(allocated=4 * gib)  # really in use: less is left
    assert model_token_budget(model, "cuda") < first


def test_an_unpadded_masked_pass_gets_no_mask(tiny_models, small_bear, monkeypatch):
    """A masked LM's pass of equal lengths gets no attention mask (a mask makes the model
    check it for padding on the device: a sync per pass); a padded pass gets one."""
    lm = tiny_models["tiny-bert"]
    groups = encode(lm, queries(small_bear)[:4])
    masks: list[bool] = []

    def hook(_module, _args, kwargs):
        masks.append(kwargs.get("attention_mask") is not None)

    handle = output_split(lm.model).backbone.register_forward_pre_hook(hook, with_kwargs=True)
    monkeypatch.setattr("calib.scoring.batching.MAX_PADDING_SHARE", 1.0)
    try:
        _score(lm, groups, pad=False)
        assert masks and not any(masks)
        masks.clear()
        _score(lm, groups, pad=True, token_budget=1 << 20)
        assert masks == [True]  # one pass, of mixed lengths
    finally:
        handle.remove()
