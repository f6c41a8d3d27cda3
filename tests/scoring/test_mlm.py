"""The batched within-word PLL equals the naive one-masked-copy-per-pass reference."""

import numpy as np
import pytest
from helpers import encode, queries, sentence_totals

from calib.scoring.encoding import Encoded, mlm_masked_positions
from calib.scoring.mlm import mlm_score
from calib.scoring.reference import mlm_reference

MLMS = ["tiny-bert", "tiny-roberta"]


def test_within_word_masking_positions():
    # [CLS] Pe ##t ##ra was [SEP]: words 0 0 0 1, specials -1
    enc = Encoded(
        ids=np.arange(6),
        targets=np.arange(1, 5),
        roles=("subject",) * 3 + ("template",),
        words=np.asarray([-1, 0, 0, 0, 1, -1]),
    )
    assert mlm_masked_positions(enc, 1).tolist() == [1, 2, 3]
    assert mlm_masked_positions(enc, 2).tolist() == [2, 3]
    assert mlm_masked_positions(enc, 3).tolist() == [3]
    assert mlm_masked_positions(enc, 4).tolist() == [4]


@pytest.mark.parametrize("name", MLMS)
def test_fast_equals_reference(name, tiny_models, small_bear):
    lm = tiny_models[name]
    mask, pad = lm.tokenizer.mask_token_id, lm.tokenizer.pad_token_id
    qs = queries(small_bear)
    # the reference is slow (one pass per token): four statements of every fourth query, each
    # relation of the sample among them
    groups = [g[:4] for g in encode(lm, qs[::4])]
    fast = mlm_score(lm.model, groups, mask, pad)
    for encs, values in zip(groups, fast):
        for enc, got in zip(encs, values):
            want = mlm_reference(lm.model, enc, mask)
            assert got.shape == want.shape == (len(enc.targets),)
            assert abs(got.sum() - want.sum()) < 1e-4


@pytest.mark.parametrize("name", MLMS)
def test_invariant_to_batch_size_and_order(name, tiny_models, small_bear):
    lm = tiny_models[name]
    mask, pad = lm.tokenizer.mask_token_id, lm.tokenizer.pad_token_id
    groups = encode(lm, queries(small_bear)[::8])
    big = sentence_totals(mlm_score(lm.model, groups, mask, pad, token_budget=1 << 20))
    # a 50-token budget splits every statement's masked copies over several passes (a pass
    # each for a few copies): a few statements of each query are enough to cover it
    few = [g[:3] for g in groups]
    few_big = sentence_totals(mlm_score(lm.model, few, mask, pad, token_budget=1 << 20))
    small = sentence_totals(mlm_score(lm.model, few, mask, pad, token_budget=50))
    padded = sentence_totals(mlm_score(lm.model, few, mask, pad, token_budget=50, pad=True))
    np.testing.assert_allclose(padded, few_big, atol=1e-4)
    np.testing.assert_allclose(small, few_big, atol=1e-4)
    rev = [list(reversed(g)) for g in reversed(groups)]
    got = sentence_totals(
        [list(reversed(g)) for g in reversed(mlm_score(lm.model, rev, mask, pad))]
    )
    np.testing.assert_allclose(got, big, atol=1e-4)


def test_special_tokens_are_not_scored_but_unknown_words_are(tiny_models):
    from calib.scoring.encoding import encode_mlm
    from calib.scoring.statements import fill_template

    lm = tiny_models["tiny-bert"]
    st = fill_template("[X] speaks [Y].", "Žžž", "Dutch")  # Žžž is not in the tiny vocabulary
    enc = encode_mlm(lm.tokenizer, [st])[0]
    tokens = lm.tokenizer.convert_ids_to_tokens(enc.ids)
    assert tokens[0] == "[CLS]" and tokens[-1] == "[SEP]"
    assert 0 not in enc.targets and len(enc.ids) - 1 not in enc.targets
    assert "[UNK]" in [tokens[t] for t in enc.targets]
    assert enc.roles[0] == "subject"
