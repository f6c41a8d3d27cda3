"""Flat tokenisation gives what tokenising each whole statement through ``transformers`` gives:
the same ids, the same roles, for every BEAR statement of both embedded tokenizers (the cut at
spaces, :func:`calib.scoring.tokens.space_cut_rule`, included), and on the tiny models."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from helpers import queries

from calib.scoring.encoding import Encoded, encode_clm
from calib.scoring.statements import bear_queries, flat_spans, role_codes, token_roles
from calib.scoring.tokens import (
    TokenBatch,
    clm_text_tokens,
    clm_tokens,
    encode_texts,
    segment_index,
    space_cut_rule,
)


def whole_statements(tokenizer, statements, start_id: int) -> list[Encoded]:
    """The encoding before issue 27, statement by statement: the ``transformers`` call with
    offsets, the start token prepended, roles by the per-token rule."""
    enc = tokenizer(
        [s.text for s in statements], add_special_tokens=False, return_offsets_mapping=True
    )
    out = []
    for st, ids, offs in zip(statements, enc["input_ids"], enc["offset_mapping"]):
        arr = np.asarray([start_id, *ids], dtype=np.int64)
        out.append(Encoded(arr, np.arange(1, len(arr)), tuple(token_roles(offs, st.spans))))
    return out


def assert_same(batch: TokenBatch, reference: list[Encoded]) -> None:
    assert batch.n_statements == len(reference)
    want_ids = np.concatenate([e.ids for e in reference])
    np.testing.assert_array_equal(batch.ids, want_ids)
    np.testing.assert_array_equal(batch.lengths, [len(e.ids) for e in reference])
    code = {"subject": 0, "object": 1, "template": 2}
    want_roles = np.asarray([code[r] for e in reference for r in e.roles])
    np.testing.assert_array_equal(batch.roles, want_roles)
    np.testing.assert_array_equal(batch.targets, np.concatenate([e.targets for e in reference]))


def test_role_codes_follow_the_per_token_rule():
    """The vectorised roles equal the loop's on random offsets and spans (ties to the object,
    no overlap: template, spans in either order, a statement without spans)."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        n = int(rng.integers(0, 8))
        spans = []
        for role in rng.permutation(["subject", "object"])[: int(rng.integers(0, 3))]:
            a = int(rng.integers(0, 20))
            spans.append((str(role), a, a + int(rng.integers(0, 6))))
        starts = np.sort(rng.integers(0, 25, size=n))
        offs = [(int(a), int(a + rng.integers(0, 5))) for a in starts]
        arr = np.asarray(offs, dtype=np.int64).reshape(-1, 2)
        got = role_codes(arr[:, 0], arr[:, 1], np.zeros(n, np.int64), *flat_spans([spans]))
        want = []
        for a, b in offs:  # the rule as it was written, per token
            best, best_overlap = "template", 0
            for role, s, e in spans:
                overlap = min(b, e) - max(a, s)
                if overlap > best_overlap or (overlap == best_overlap > 0 and role == "object"):
                    best, best_overlap = role, overlap
            want.append(best)
        assert [("subject", "object", "template")[c] for c in got] == want


def test_segment_index():
    np.testing.assert_array_equal(
        segment_index(np.array([5, 0, 9]), np.array([2, 0, 3])), [5, 6, 9, 10, 11]
    )


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-llama"])
def test_tiny_tokenizers_encode_as_before(name, tiny_models, small_bear):
    """tiny-gpt2's byte-level BPE is cut at spaces; tiny-llama's metaspace BPE (which prepends
    a space symbol to the first piece only) is not, and both equal the whole statements."""
    lm = tiny_models[name]
    qs = queries(small_bear)
    statements = [st for q in qs for st in q.statements]
    assert (space_cut_rule(lm.tokenizer) is not None) == (name == "tiny-gpt2")
    batch = clm_tokens(lm.tokenizer, statements, lm.start_token_id)
    assert_same(batch, whole_statements(lm.tokenizer, statements, lm.start_token_id))
    old = [e for q in qs for e in encode_clm(lm.tokenizer, q.statements, lm.start_token_id)]
    assert_same(batch, old)
    grouped = batch.grouped(len(q.statements) for q in qs)
    assert len(grouped) == len(qs)
    assert [e.ids.tolist() for e in grouped[1]] == [
        e.ids.tolist() for e in old[len(qs[0].statements) :][: len(qs[1].statements)]
    ]
    again = TokenBatch.from_groups([grouped[g] for g in range(len(grouped))])
    np.testing.assert_array_equal(again.ids, grouped.ids)
    np.testing.assert_array_equal(again.roles, grouped.roles)


def test_backend_call_equals_the_transformers_call(tiny_models, small_bear):
    tok = tiny_models["tiny-gpt2"].tokenizer
    texts = [st.text for q in queries(small_bear) for st in q.statements]
    ids, starts, offs = encode_texts(tok, texts)
    enc = tok(texts, add_special_tokens=False, return_offsets_mapping=True)
    assert [ids[a:b].tolist() for a, b in pairwise(starts)] == enc["input_ids"]
    assert [offs[a:b].tolist() for a, b in pairwise(starts)] == [
        [list(o) for o in x] for x in enc["offset_mapping"]
    ]


def test_rules_of_the_embedded_tokenizers(embedded_tokenizers):
    """SmolLM2's byte-level BPE may be cut at a space except after a newline (a token joins
    newlines to the spaces after them); Gemma 3's SentencePiece-style BPE except after '>'
    (its vocabulary holds '>▁</')."""
    smol = space_cut_rule(embedded_tokenizers["smollm2-135m-instruct"])
    gemma = space_cut_rule(embedded_tokenizers["gemma-3-270m"])
    assert smol is not None and smol.byte_level and not smol.allows("\n")
    assert smol.allows("n") and smol.allows("é") and smol.allows(".")
    assert gemma is not None and not gemma.byte_level and not gemma.allows(">")
    assert gemma.allows("n") and gemma.allows(")")


def _check_bear(tokenizer, bear, templates) -> int:
    n = 0
    for tpl in templates:
        qs = bear_queries(bear, [tpl])
        statements = [st for q in qs for st in q.statements]
        short = clm_text_tokens(tokenizer, statements, shortcut=True)
        whole = clm_text_tokens(tokenizer, statements, shortcut=False)
        for a, b in zip(short, whole):
            np.testing.assert_array_equal(a, b)
        n += len(statements)
    return n


@pytest.mark.parametrize("name", ["smollm2-135m-instruct", "gemma-3-270m"])
def test_cut_statements_equal_whole_ones_on_a_sample(name, embedded_tokenizers, bear):
    """Ids and offsets of the statements cut at spaces equal the whole statements', for one
    instance per relation under every template, and equal the ``transformers`` call's."""
    from calib.data.bear import template_names

    tok = embedded_tokenizers[name]
    sample = bear.sample(1, 0)
    assert _check_bear(tok, sample, template_names("all")) > 10_000
    qs = bear_queries(sample, ["paraphrase-0", "paraphrase-4"])
    statements = [st for q in qs for st in q.statements]
    assert_same(clm_tokens(tok, statements, 7), whole_statements(tok, statements, 7))


@pytest.mark.slow
@pytest.mark.heavy
@pytest.mark.parametrize("name", ["smollm2-135m-instruct", "gemma-3-270m"])
def test_cut_statements_equal_whole_ones_for_every_bear_statement(name, embedded_tokenizers, bear):
    """Every BEAR statement (every instance, template and answer: 2.5 million per tokenizer):
    the ids and character offsets cut at spaces equal those of the whole statement."""
    from calib.data.bear import template_names

    assert _check_bear(embedded_tokenizers[name], bear, template_names("all")) > 2_000_000
