"""The token cache: a second model with the same tokenizer reads the statements' ids instead of
tokenising them; another tokenizer never reads them; a damaged or unwritable cache only means
tokenising again."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from helpers import queries
from test_tokens import assert_same, whole_statements

import calib.scoring.token_cache as token_cache
from calib.scoring.token_cache import TokenCache, token_digest, tokenizer_digest


def _statements(qs):
    return [st for q in qs for st in q.statements]


def test_second_model_of_a_family_reads_the_ids(tiny_models, small_bear, tmp_path, monkeypatch):
    lm = tiny_models["tiny-gpt2"]
    qs = queries(small_bear)
    first = TokenCache(tmp_path, lm.tokenizer).clm(qs, lm.start_token_id)
    assert_same(first, whole_statements(lm.tokenizer, _statements(qs), lm.start_token_id))
    assert len(list((tmp_path / "tokens").rglob("part-*.npz"))) == 1

    def no_tokenising(*args, **kwargs):
        raise AssertionError("tokenised although cached")

    monkeypatch.setattr(token_cache, "clm_text_tokens", no_tokenising)
    twin = copy.deepcopy(lm.tokenizer)  # another object, the same content
    again = TokenCache(tmp_path, twin).clm(qs[::-1], lm.start_token_id)  # any order
    want = whole_statements(lm.tokenizer, _statements(qs[::-1]), lm.start_token_id)
    assert_same(again, want)
    assert len(again) == len(qs)
    assert [len(again[g]) for g in range(len(again))] == [len(q.statements) for q in qs[::-1]]


def test_new_units_are_added_and_mixed_with_cached_ones(tiny_models, small_bear, tmp_path):
    lm = tiny_models["tiny-gpt2"]
    qs = queries(small_bear)
    cache = TokenCache(tmp_path, lm.tokenizer)
    cache.clm(qs[::2], lm.start_token_id)
    mixed = TokenCache(tmp_path, lm.tokenizer).clm(qs, lm.start_token_id)
    assert_same(mixed, whole_statements(lm.tokenizer, _statements(qs), lm.start_token_id))
    assert len(list((tmp_path / "tokens").rglob("part-*.npz"))) == 2


def test_keyed_by_the_tokenizer_content_and_the_spans(tiny_models, small_bear, tmp_path):
    from dataclasses import replace

    a, b = tiny_models["tiny-gpt2"].tokenizer, tiny_models["tiny-roberta"].tokenizer
    assert tokenizer_digest(a) == tokenizer_digest(copy.deepcopy(a))
    assert tokenizer_digest(a) != tokenizer_digest(b)
    q = queries(small_bear)[0]
    moved = replace(q, statements=tuple(replace(s, spans=s.spans[::-1]) for s in q.statements))
    assert token_digest(q) != token_digest(moved)  # roles depend on the spans


def test_a_damaged_part_is_removed_and_tokenised_again(tiny_models, small_bear, tmp_path):
    lm = tiny_models["tiny-gpt2"]
    qs = queries(small_bear)
    TokenCache(tmp_path, lm.tokenizer).clm(qs, lm.start_token_id)
    (part,) = (tmp_path / "tokens").rglob("part-*.npz")
    part.write_bytes(part.read_bytes()[:100])
    got = TokenCache(tmp_path, lm.tokenizer).clm(qs, lm.start_token_id)
    assert_same(got, whole_statements(lm.tokenizer, _statements(qs), lm.start_token_id))
    assert not part.exists() and len(list((tmp_path / "tokens").rglob("part-*.npz"))) == 1


@pytest.mark.skipif(__import__("os").geteuid() == 0, reason="root writes into read-only folders")
def test_an_unwritable_cache_still_tokenises(tiny_models, small_bear, tmp_path):
    lm = tiny_models["tiny-gpt2"]
    qs = queries(small_bear)
    tmp_path.chmod(0o500)
    try:
        got = TokenCache(tmp_path, lm.tokenizer).clm(qs, lm.start_token_id)
    finally:
        tmp_path.chmod(0o700)
    assert np.array_equal(
        got.ids, TokenCache(tmp_path / "x", lm.tokenizer).clm(qs, lm.start_token_id).ids
    )


def test_score_queries_fills_the_token_cache(tiny_models, small_bear, tmp_path):
    from calib.scoring.run import score_queries

    lm = tiny_models["tiny-gpt2"]
    qs = queries(small_bear)
    score_queries(lm, qs, cache_dir=tmp_path, progress=False)
    folder = tmp_path / "tokens" / tokenizer_digest(lm.tokenizer)
    assert len(list(folder.glob("part-*.npz"))) >= 1
