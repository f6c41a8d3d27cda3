"""Tokenising statements once, the same way for the fast scorers and the naive references."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from calib.scoring.statements import Statement, token_roles


@dataclass(frozen=True)
class Encoded:
    """One tokenised statement.

    ``ids``: the model input (CLM: start token + statement; MLM: with the tokenizer's special
    tokens). ``targets``: positions in ``ids`` whose tokens are scored, in order. ``roles``: one
    per target. ``words``: MLM only, the word index of every position (-1 for specials), for
    the within-word masking.
    """

    ids: np.ndarray
    targets: np.ndarray
    roles: tuple[str, ...]
    words: np.ndarray | None = None


def _tokenize(tokenizer, texts: Sequence[str], special: bool):
    enc = tokenizer(list(texts), add_special_tokens=special, return_offsets_mapping=True)
    return enc


def encode_clm(tokenizer, statements: Sequence[Statement], start_id: int) -> list[Encoded]:
    """Tokenise without special tokens and prepend ``start_id``, so the first word is scored
    too (paper §2.3). Every token after the start token is a target."""
    enc = _tokenize(tokenizer, [s.text for s in statements], special=False)
    out = []
    for st, ids, offs in zip(statements, enc["input_ids"], enc["offset_mapping"]):
        if not ids:
            raise ValueError(f"statement {st.text!r} tokenises to nothing")
        arr = np.asarray([start_id, *ids], dtype=np.int64)
        out.append(Encoded(arr, np.arange(1, len(arr)), tuple(token_roles(offs, st.spans))))
    return out


def encode_mlm(tokenizer, statements: Sequence[Statement]) -> list[Encoded]:
    """Tokenise with the tokenizer's special tokens; every token of the text (one with a word
    index from the fast tokenizer's ``word_ids``) is a target, and ``words`` holds the word
    index per position (-1 for the added special tokens)."""
    enc = _tokenize(tokenizer, [s.text for s in statements], special=True)
    out = []
    for i, st in enumerate(statements):
        ids = np.asarray(enc["input_ids"][i], dtype=np.int64)
        # the tokenizer's added special tokens ([CLS], <s>, ...) have no word; [UNK] has one
        words = np.asarray([-1 if w is None else w for w in enc.word_ids(i)], dtype=np.int64)
        targets = np.nonzero(words >= 0)[0]
        if targets.size == 0:
            raise ValueError(f"statement {st.text!r} tokenises to nothing")
        offs = [enc["offset_mapping"][i][t] for t in targets]
        out.append(Encoded(ids, targets, tuple(token_roles(offs, st.spans)), words))
    return out


def mlm_masked_positions(enc: Encoded, target: int) -> np.ndarray:
    """Positions to mask when scoring ``target`` with the within-word left-to-right PLL
    (Kauf & Ivanova 2023): the target and every later token of the same word."""
    words = enc.words
    if words is None or words[target] < 0:
        return np.asarray([target])
    later = np.arange(len(enc.ids)) >= target
    return np.nonzero(later & (words == words[target]))[0]
