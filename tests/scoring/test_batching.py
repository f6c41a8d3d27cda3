"""The token-budget planner, its accounting, the device's budget and dtype (no GPU needed)."""

import dataclasses

import numpy as np
import pytest
import torch

from calib.scoring.accounting import account, clm_accounting
from calib.scoring.batching import KV_FACTOR, plan_clm, plan_mlm, token_budget

# g0 and g2 share the prefix [1, 5, 6]; g1's prefix is the start token alone
HAND = [[[1, 5, 6, 7], [1, 5, 6, 8, 9]], [[1, 2, 3], [1, 4]], [[1, 5, 6, 7], [1, 5, 6, 3]]]


def _hand():
    return [[np.asarray(ids) for ids in g] for g in HAND]


def test_hand_example_minimum_and_plans(monkeypatch):
    # minimum: prefixes [1] and [1, 5, 6] once (4) + continuations 0, 1, 1, 0, 0, 0 (2)
    plan = plan_clm(_hand(), budget=4, pad=False)
    assert plan.prefix_len.tolist() == [3, 1]
    assert plan.prefix_of.tolist() == [0, 0, 1, 1, 0, 0]
    assert plan.continuation_len.tolist() == [0, 1, 1, 0, 0, 0]
    acc = account(plan)
    assert (acc.statements, acc.tokens, acc.minimum) == (6, 22, 6)
    # equal lengths only: prefix [1], its continuation, prefix [1, 5, 6], its continuation
    assert [(pp.width, len(pp.prefixes)) for pp in plan.passes] == [(1, 1), (3, 1)]
    assert (acc.forwarded, acc.padding, acc.passes, acc.ratio) == (6, 0, 4, 1.0)
    # padded, at most 2% padding per pass: 2 padded positions of 6 + 2 tokens is too many
    monkeypatch.setattr("calib.scoring.batching.MAX_PADDING_SHARE", 0.02)
    assert account(plan_clm(_hand(), budget=8, pad=True)) == acc.__class__(
        8, True, 6, 22, 6, 6, 0, 4
    )
    # with up to half padded: both prefixes in one pass 3 wide, both continuations in one pass
    monkeypatch.setattr("calib.scoring.batching.MAX_PADDING_SHARE", 0.5)
    padded = account(plan_clm(_hand(), budget=8, pad=True))
    assert (padded.forwarded, padded.padding, padded.passes) == (8, 2, 2)
    assert padded.ratio == pytest.approx(8 / 6) and padded.padding_share == 0.25
    assert padded.statements_per_pass == 3
    # chunks of one query each: the shared prefix is then computed twice
    assert clm_accounting(_hand(), 8, True, chunk_statements=1).minimum == 9


@pytest.mark.parametrize("pad", [False, True])
@pytest.mark.parametrize("budget", [1, 7, 40, 1 << 20])
def test_plan_covers_every_statement_once_within_budget(pad, budget):
    rng = np.random.default_rng(budget)
    groups = []
    for _ in range(60):
        stem = [0, *rng.integers(1, 9, rng.integers(0, 6))]
        groups.append(
            [
                np.asarray(stem + list(rng.integers(1, 9, rng.integers(1, 5))))
                for _ in range(rng.integers(1, 7))
            ]
        )
    plan = plan_clm(groups, budget, pad)
    n = sum(len(g) for g in groups)
    stmts = np.concatenate([pp.statements for pp in plan.passes])
    assert sorted(stmts.tolist()) == list(range(n))
    prefixes = np.concatenate([pp.prefixes for pp in plan.passes])
    assert sorted(prefixes.tolist()) == list(range(len(plan.prefix_len)))
    rows = np.concatenate([cp.rows for pp in plan.passes for cp in pp.continuations] or [[]])
    cont = plan.continuation_len
    assert sorted(rows.astype(int).tolist()) == np.nonzero(cont > 0)[0].tolist()
    for pp in plan.passes:
        widths = plan.prefix_len[pp.prefixes]
        assert pp.width == widths.max()
        assert len(widths) == 1 or len(widths) * pp.width <= budget
        assert pad or len(set(widths.tolist())) == 1
        assert set(plan.prefix_of[pp.statements].tolist()) == set(pp.prefixes.tolist())
        for cp in pp.continuations:
            assert cp.width == cont[cp.rows].max()
            assert len(cp.rows) == 1 or (
                len(cp.rows) * cp.width <= budget
                and len(cp.rows) * (pp.width + cp.width) <= KV_FACTOR * budget
            )
            assert pad or len(set(cont[cp.rows].tolist())) == 1
            assert set(plan.prefix_of[cp.rows].tolist()) <= set(pp.prefixes.tolist())
    acc = account(plan)
    assert acc.forwarded >= acc.minimum and (pad or acc.padding == 0)


def test_mlm_plan_covers_every_copy_once():
    widths = np.random.default_rng(0).integers(3, 12, 200)
    for pad in (False, True):
        passes = plan_mlm(widths, 30, pad)
        assert sorted(np.concatenate(passes).tolist()) == list(range(200))
        for idx in passes:
            assert len(idx) * widths[idx].max() <= 30
            assert pad or len(set(widths[idx].tolist())) == 1


@pytest.mark.parametrize("share", [0.02, 1.0])
def test_hand_example_scores_equal_the_reference(share, tiny_models, monkeypatch):
    monkeypatch.setattr("calib.scoring.batching.MAX_PADDING_SHARE", share)
    from calib.scoring.clm import clm_score
    from calib.scoring.encoding import Encoded
    from calib.scoring.reference import clm_reference

    model = tiny_models["tiny-gpt2"].model
    groups = [
        [Encoded(ids, np.arange(1, len(ids)), ("template",) * (len(ids) - 1)) for ids in g]
        for g in _hand()
    ]
    for budget, pad in ((1, False), (4, False), (8, True), (1 << 20, True)):
        got = clm_score(model, groups, token_budget=budget, pad=pad)
        for encs, values in zip(groups, got):
            for enc, v in zip(encs, values):
                np.testing.assert_allclose(v, clm_reference(model, enc), atol=1e-4)


def test_token_budget_from_the_device():
    from calib.models.loading import load_config
    from calib.scoring.memory import H200_BYTES, model_shape, plan_budget

    assert token_budget("cpu", 49152) == 2048
    assert token_budget("cpu", 262144) == 1024  # a CPU pass keeps its logits' caches warm
    # on a GPU the plan of the passes' memory: the vocabulary no longer shrinks the budget
    smol = model_shape(load_config("tiny-llama"))
    big = plan_budget(smol, H200_BYTES)
    small = plan_budget(smol, 8 << 30)
    for plan in (big, small):
        assert plan.budget & (plan.budget - 1) == 0 and 256 <= plan.budget <= 1 << 20
        assert plan.peak <= 0.7 * (H200_BYTES if plan is big else 8 << 30)
    assert small.budget <= big.budget


def test_dtype_defaults_to_bfloat16_on_gpus_only():
    from calib.models.loading import default_dtype, resolve_dtype
    from calib.models.registry import get_spec
    from calib.scoring.run import scoring_options

    # (on CPUs the embedded models follow the CPU's flags: tests/models/test_dtype.py)
    smol, tiny = get_spec("smollm2-135m-instruct"), get_spec("tiny-gpt2")
    assert default_dtype("cuda") == default_dtype("cuda:1") == "bfloat16"
    assert default_dtype("cpu") == "float32"
    assert resolve_dtype(None, smol, "cuda") is torch.bfloat16
    assert resolve_dtype(None, tiny, "cpu") is torch.float32
    assert resolve_dtype(None, None, "cuda") is torch.bfloat16
    assert resolve_dtype("float32", smol, "cuda") is torch.float32  # the caller's word wins
    fixed = dataclasses.replace(tiny, dtype="bfloat16")
    assert resolve_dtype(None, fixed, "cpu") is torch.bfloat16  # so does the registry's
    assert scoring_options("tiny-gpt2", None, None, device="cuda")["dtype"] == "bfloat16"
    assert scoring_options("tiny-gpt2", None, None, device="cpu")["dtype"] == "float32"


@pytest.mark.slow
@pytest.mark.heavy
@pytest.mark.parametrize("name", ["smollm2-135m-instruct", "gemma-3-270m"])
def test_few_large_passes_per_template_at_the_h200_budget(name, embedded_tokenizers, bear):
    """All of BEAR under one template at the H200's budget (2**18 tokens), in the GPU's chunks,
    prefixes padded (as Gemma 3's window of 512 allows for statements of at most 47 tokens):
    at most 30 passes (90 for SmolLM2's tokenizer and 252 for Gemma 3's at the former 2%
    padding rule), forwarding at most 1.2x the minimum tokens."""
    from calib.models.loading import start_token_id
    from calib.scoring.encoding import encode_clm
    from calib.scoring.run import GPU_CHUNK_STATEMENTS
    from calib.scoring.statements import bear_queries

    tok = embedded_tokenizers[name]
    start = start_token_id(name, tok)
    groups = [
        [e.ids for e in encode_clm(tok, q.statements, start)]
        for q in bear_queries(bear, ["paraphrase-0"])
    ]
    assert max(len(ids) for g in groups for ids in g) * 2 <= 512
    acc = clm_accounting(groups, 1 << 18, True, GPU_CHUNK_STATEMENTS)
    assert acc.statements > 200_000
    assert acc.passes <= 30
    assert acc.forwarded <= 1.2 * acc.minimum


def test_padded_runs_are_chosen_by_cost():
    """Ten sequences of 3 tokens and ten of 4: one pass of width 4 pads 10 positions, which is
    worth it when a pass costs more than that (and not when it costs less)."""
    from calib.scoring.batching import pack

    widths = np.asarray([3] * 10 + [4] * 10)
    assert pack(widths, 1000, True, pass_cost=5) == [(0, 10), (10, 20)]
    assert pack(widths, 1000, True, pass_cost=20) == [(0, 20)]
    assert pack(widths, 1000, False, pass_cost=20) == [(0, 10), (10, 20)]
    assert pack(widths, 40, True, pass_cost=20) == [(0, 10), (10, 20)]  # the budget
