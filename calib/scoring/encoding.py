"""Tokenising statements once, the same way for the fast scorers and the naive references.

A causal LM's statement gets one start token in front (:func:`encode_clm`, paper §2.3). The
start-token rule :data:`START_TOKENS` ``"lm-pub-quiz-0.3.3"`` reproduces, only to measure its
effect, how the BEAR authors' library put start tokens in front
(:func:`encode_clm_lm_pub_quiz`): with a tokenizer that pads on the left it gives most
statements *two*.
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

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


#: the start-token rules of the causal scorer: ``"single"`` (calib's: one start token before
#: every statement, :func:`encode_clm`) and ``"lm-pub-quiz-0.3.3"`` (as that library did it,
#: :func:`encode_clm_lm_pub_quiz`: two BOS tokens for most instances when the tokenizer pads
#: on the left; only for measuring the effect)
START_TOKENS: tuple[str, ...] = ("single", "lm-pub-quiz-0.3.3")


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


_BOS_COPIES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _with_bos(tokenizer):
    """A copy of ``tokenizer`` with ``add_bos_token = True`` (what lm-pub-quiz sets while it
    encodes), made once per tokenizer. A copy, because setting the flag back afterwards, as
    lm-pub-quiz does, can leave a tokenizer that added a BOS before no longer adding one."""
    if tokenizer not in _BOS_COPIES:
        twin = copy.deepcopy(tokenizer)
        twin.add_bos_token = True
        _BOS_COPIES[tokenizer] = twin
    return _BOS_COPIES[tokenizer]


def encode_clm_lm_pub_quiz(tokenizer, statements: Sequence[Statement]) -> list[Encoded]:
    """The statements of *one instance* tokenised as lm-pub-quiz 0.3.3 does it
    (``CausalLMEvaluator.encode``), to measure what its start tokens change; calib's own rule is
    :func:`encode_clm`.

    That code tokenises an instance's statements as one padded batch with ``add_bos_token``
    on and looks for the BOS token at position 0 *of the padded batch*, i.e. of the first
    statement. A tokenizer that pads on the right has it there. One that pads on the left has a
    pad token there whenever the first statement is shorter than the longest; the code then
    concludes that no BOS was added, writes the BOS text before every statement and tokenises
    again, and a tokenizer that adds its own BOS puts it in front of that one: two BOS tokens
    (and the first word is tokenised as one that follows a special token). The targets are the
    tokens that are not special, after the first, as lm-pub-quiz scores them.
    """
    tok = _with_bos(tokenizer)
    texts = [s.text for s in statements]
    first = tok(texts, padding=True, add_special_tokens=True)["input_ids"][0]
    shift = 0
    if first[0] != tok.bos_token_id and tok.bos_token is not None:
        shift = len(tok.bos_token)
        texts = [tok.bos_token + t for t in texts]
    enc = tok(
        texts, add_special_tokens=True, return_offsets_mapping=True, return_special_tokens_mask=True
    )
    out = []
    for st, ids, offs, special in zip(
        statements, enc["input_ids"], enc["offset_mapping"], enc["special_tokens_mask"]
    ):
        targets = np.asarray([i for i in range(1, len(ids)) if not special[i]], dtype=np.int64)
        if not targets.size:
            raise ValueError(f"statement {st.text!r} tokenises to nothing")
        moved = [(max(offs[i][0] - shift, 0), max(offs[i][1] - shift, 0)) for i in targets]
        out.append(
            Encoded(np.asarray(ids, dtype=np.int64), targets, tuple(token_roles(moved, st.spans)))
        )
    return out


def start_token_count(enc: Encoded, start_id: int) -> int:
    """How many copies of ``start_id`` open an encoded statement (2: a doubled BOS)."""
    n = 0
    while n < len(enc.ids) and enc.ids[n] == start_id:
        n += 1
    return n


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
