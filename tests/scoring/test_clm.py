"""The fast CLM scorer equals the naive reference and does not depend on batching or order."""

import numpy as np
import pytest
from helpers import encode, queries

from calib.scoring.clm import clm_score
from calib.scoring.reference import clm_reference

CLMS = ["tiny-gpt2", "tiny-llama"]


@pytest.mark.parametrize("name", CLMS)
def test_fast_equals_reference(name, tiny_models, small_bear):
    lm = tiny_models[name]
    groups = encode(lm, queries(small_bear))
    fast = clm_score(lm.model, groups)
    for encs, values in zip(groups, fast):
        for enc, got in zip(encs, values):
            want = clm_reference(lm.model, enc)
            assert got.shape == want.shape == (len(enc.ids) - 1,)
            assert abs(got.sum() - want.sum()) < 1e-4
            np.testing.assert_allclose(got, want, atol=1e-4)


@pytest.mark.parametrize("name", CLMS)
@pytest.mark.parametrize("pad", [False, True])
def test_token_budget_changes_no_score(name, pad, tiny_models, small_bear, monkeypatch):
    """A tiny budget (a pass per few sequences, answer spaces split) and a huge one (every
    query in one prefix pass) both equal the reference per statement; padded passes mix
    prefix and continuation lengths freely here."""
    if pad:
        monkeypatch.setattr("calib.scoring.batching.MAX_PADDING_SHARE", 1.0)
    lm = tiny_models[name]
    groups = encode(lm, queries(small_bear))
    for budget in (6, 1 << 20):
        got = clm_score(lm.model, groups, token_budget=budget, pad=pad)
        for encs, values in zip(groups[::2], got[::2]):
            for enc, v in zip(encs, values):
                np.testing.assert_allclose(v, clm_reference(lm.model, enc), atol=1e-4)


@pytest.mark.parametrize("name", CLMS)
def test_padded_continuations_equal_buckets(name, tiny_models, small_bear):
    lm = tiny_models[name]
    groups = encode(lm, queries(small_bear))
    buckets = clm_score(lm.model, groups, pad=False)
    padded = clm_score(lm.model, groups, pad=True)
    for gb, gp in zip(buckets, padded):
        for b, q in zip(gb, gp):
            assert b.shape == q.shape
            np.testing.assert_allclose(q, b, atol=1e-4)


@pytest.mark.parametrize("name", CLMS)
def test_invariant_to_order(name, tiny_models, small_bear):
    lm = tiny_models[name]
    groups = encode(lm, queries(small_bear))
    base = clm_score(lm.model, groups)
    rng = np.random.default_rng(0)
    q_order = rng.permutation(len(groups))
    o_orders = [rng.permutation(len(groups[g])) for g in q_order]
    shuffled = [[groups[g][o] for o in oo] for g, oo in zip(q_order, o_orders)]
    got = clm_score(lm.model, shuffled)
    for g, oo, values in zip(q_order, o_orders, got):
        for o, v in zip(oo, values):
            np.testing.assert_allclose(v, base[g][o], atol=1e-4)


def test_scores_every_token_after_the_start(tiny_models, small_bear):
    lm = tiny_models["tiny-gpt2"]
    groups = encode(lm, queries(small_bear)[:3])
    for encs, values in zip(groups, clm_score(lm.model, groups)):
        for enc, v in zip(encs, values):
            assert enc.ids[0] == lm.start_token_id
            assert len(v) == len(enc.roles) == len(enc.ids) - 1
            assert np.all(v < 0)


def _tiny_gemma3(tok, window: int, layers: int):
    """A tiny random Gemma 3 for ``tok``: sliding-window (``window``) and full attention
    layers in turn."""
    import torch
    from transformers import AutoModelForCausalLM, Gemma3TextConfig

    cfg = Gemma3TextConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        sliding_window=window,
        max_position_embeddings=512,
        layer_types=["sliding_attention", "full_attention"] * (layers // 2),
    )
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(cfg).eval()


def test_gemma3_sliding_window_model(tiny_models, small_bear):
    """A tiny Gemma 3 (sliding-window and full attention layers, window shorter than the
    statements): bucketed and padded continuations both equal the reference."""
    tok = tiny_models["tiny-llama"].tokenizer
    model = _tiny_gemma3(tok, window=8, layers=4)
    cfg = model.config
    from calib.scoring.encoding import encode_clm

    groups = [encode_clm(tok, q.statements, tok.bos_token_id) for q in queries(small_bear)]
    assert max(len(e.ids) for g in groups for e in g) > 2 * cfg.sliding_window
    for pad in (False, True):
        fast = clm_score(model, groups, pad=pad)
        for encs, values in zip(groups[::3], fast[::3]):
            for enc, got in zip(encs[:5], values[:5]):
                np.testing.assert_allclose(got, clm_reference(model, enc), atol=1e-4)


def test_lm_pub_quiz_rule_doubles_the_bos_of_a_left_padding_tokenizer(tiny_models, small_bear):
    """lm-pub-quiz 0.3.3 looks for the BOS at position 0 of the padded batch: a tokenizer that
    pads on the left has a pad there unless the instance's first statement is its longest, and
    then every statement of the instance gets two BOS tokens. calib's rule: always one."""
    import copy

    from calib.scoring.encoding import encode_clm, encode_clm_lm_pub_quiz, start_token_count

    lm = tiny_models["tiny-llama"]
    left = copy.deepcopy(lm.tokenizer)
    left.padding_side = "left"
    bos = lm.tokenizer.bos_token_id
    doubled = 0
    for q in queries(small_bear)[:-1]:
        single = encode_clm(left, q.statements, bos)
        assert {start_token_count(e, bos) for e in single} == {1}
        lengths = [len(e.ids) for e in single]
        theirs = encode_clm_lm_pub_quiz(left, q.statements)
        want = 2 if lengths[0] < max(lengths) else 1
        assert {start_token_count(e, bos) for e in theirs} == {want}
        doubled += want == 2
        right = encode_clm_lm_pub_quiz(lm.tokenizer, q.statements)
        assert [e.ids.tolist() for e in right] == [e.ids.tolist() for e in single]
    assert doubled > 0


@pytest.mark.parametrize("window", [8, 256])
def test_a_sliding_window_longer_than_every_statement_allows_padded_prefixes(
    window, tiny_models, small_bear, monkeypatch
):
    """Gemma 3's window (512) is longer than twice every BEAR statement: its prefixes may then
    be padded in one pass as any attention model's (fewer passes); with a window of 8 they are
    not. Both score as the reference."""
    from calib.scoring.batching import model_plan, prefixes_paddable
    from calib.scoring.encoding import encode_clm
    from calib.scoring.tokens import TokenBatch

    tok = tiny_models["tiny-llama"].tokenizer
    model = _tiny_gemma3(tok, window=window, layers=2)
    groups = [encode_clm(tok, q.statements, tok.bos_token_id) for q in queries(small_bear)]
    batch = TokenBatch.from_groups(groups)
    longest = int(batch.lengths.max())
    assert prefixes_paddable(model, longest) == (2 * longest <= window)
    monkeypatch.setattr("calib.scoring.batching.MAX_PADDING_SHARE", 1.0)
    plan = model_plan(model, batch, 1 << 16, pad=True)
    mixed = any(len(set(plan.prefix_len[pp.prefixes].tolist())) > 1 for pp in plan.passes)
    assert mixed == (window == 256)
    fast = clm_score(model, groups, pad=True, token_budget=1 << 16)
    for encs, values in zip(groups[::3], fast[::3]):
        for enc, got in zip(encs[:5], values[:5]):
            np.testing.assert_allclose(got, clm_reference(model, enc), atol=1e-4)
