"""Tokenised statements held flat (:class:`~calib.scoring.tokens.TokenBatch`), and the fast
tokenisation of causal statements (:func:`~calib.scoring.tokens.clm_tokens`).

At the paper's size (29 models x 209,499 statements per template) a Python object per statement
or per token costs more than the forward pass on a GPU, so the scorers take a
:class:`TokenBatch`: every statement's token ids in one array, with offsets, and the roles of
its scored tokens as small integer codes. ``batch[g]`` still gives query ``g``'s statements as
:class:`~calib.scoring.encoding.Encoded` objects, for tests and small callers.

:func:`clm_tokens` tokenises with the tokenizer's Rust backend directly (the ids and offsets
the ``transformers`` call gives, without its per-statement conversion) and, where the
tokenizer allows it (:func:`space_cut_rule`), a statement is cut at the space before its answer
and at the space after it, and each distinct piece is tokenised once: a query's options share
the text before the answer, a relation's queries the answer and what follows it. The cut is
made only where it provably leaves the token ids and offsets unchanged (a byte-pair-encoding
model, a normaliser and pre-tokeniser that treat the space as a boundary, and no token of the
vocabulary that joins the character before the space to the space); the equality with
tokenising each whole statement is tested for every BEAR statement of both embedded tokenizers.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import chain

import numpy as np

from calib.scoring.encoding import Encoded
from calib.scoring.schema import ROLES
from calib.scoring.statements import Statement, flat_spans, role_codes


def segment_index(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices ``starts[0] .. starts[0] + lengths[0] - 1, starts[1] ...``: the elements of
    several segments of a flat array, one after another (a vectorised concatenation)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    shift = np.asarray(starts, dtype=np.int64) - (ends - lengths)
    return np.arange(total, dtype=np.int64) + np.repeat(shift, lengths)


def offsets_of(counts: np.ndarray) -> np.ndarray:
    """``[0, counts[0], counts[0] + counts[1], ...]``: the offsets of consecutive segments."""
    out = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


@dataclass(frozen=True)
class TokenBatch:
    """Statements of consecutive queries, tokenised, in flat arrays.

    ``ids[starts[s]:starts[s + 1]]``: the model input of statement ``s`` (as
    the ``ids`` of :class:`~calib.scoring.encoding.Encoded`); ``groups[g]:groups[g + 1]``: the
    statements
    of query ``g``; ``targets[target_starts[s]:target_starts[s + 1]]``: the positions of
    statement ``s`` whose tokens are scored, ``roles`` their roles (indices into
    :data:`~calib.scoring.schema.ROLES`); ``words``: MLM only, the word index of every position
    (-1 for added special tokens), flat like ``ids``.
    """

    ids: np.ndarray
    starts: np.ndarray
    groups: np.ndarray
    targets: np.ndarray
    target_starts: np.ndarray
    roles: np.ndarray
    words: np.ndarray | None = None

    @property
    def n_statements(self) -> int:
        return len(self.starts) - 1

    @property
    def lengths(self) -> np.ndarray:
        """Tokens of each statement."""
        return np.diff(self.starts)

    def __len__(self) -> int:
        return len(self.groups) - 1

    def statement(self, s: int) -> Encoded:
        """Statement ``s`` as an :class:`~calib.scoring.encoding.Encoded`."""
        a, b = self.starts[s], self.starts[s + 1]
        t0, t1 = self.target_starts[s], self.target_starts[s + 1]
        return Encoded(
            self.ids[a:b].astype(np.int64),
            self.targets[t0:t1].astype(np.int64),
            tuple(ROLES[c] for c in self.roles[t0:t1]),
            None if self.words is None else self.words[a:b].astype(np.int64),
        )

    def __getitem__(self, g):
        """Query ``g``'s statements as :class:`~calib.scoring.encoding.Encoded` objects."""
        if isinstance(g, slice):
            return [self[i] for i in range(*g.indices(len(self)))]
        if not -len(self) <= g < len(self):
            raise IndexError(g)
        g %= len(self)
        return [self.statement(s) for s in range(self.groups[g], self.groups[g + 1])]

    def grouped(self, sizes: Iterable[int]) -> TokenBatch:
        """The same statements, ``sizes[g]`` of them to query ``g``."""
        groups = offsets_of(np.fromiter(sizes, dtype=np.int64))
        if groups[-1] != self.n_statements:
            raise ValueError(
                f"{groups[-1]} statements grouped, the batch holds {self.n_statements}"
            )
        return replace(self, groups=groups)

    @classmethod
    def from_groups(cls, groups: Sequence[Sequence[Encoded]] | TokenBatch) -> TokenBatch:
        """A batch of already encoded statements (``groups[g][o]``: option ``o`` of query
        ``g``); a batch is returned as it is."""
        if isinstance(groups, TokenBatch):
            return groups
        flat = [e for g in groups for e in g]
        with_words = bool(flat) and all(e.words is not None for e in flat)
        code = {r: i for i, r in enumerate(ROLES)}
        return cls(
            ids=np.concatenate([e.ids for e in flat]).astype(np.int32)
            if flat
            else np.zeros(0, np.int32),
            starts=offsets_of(np.asarray([len(e.ids) for e in flat], dtype=np.int64)),
            groups=offsets_of(np.asarray([len(g) for g in groups], dtype=np.int64)),
            targets=np.concatenate([e.targets for e in flat]).astype(np.int32)
            if flat
            else np.zeros(0, np.int32),
            target_starts=offsets_of(np.asarray([len(e.targets) for e in flat], dtype=np.int64)),
            roles=np.asarray([code[r] for e in flat for r in e.roles], dtype=np.int8),
            words=np.concatenate([e.words for e in flat]).astype(np.int32) if with_words else None,
        )


# ----------------------------------------------------------------------------- the backend
def _backend(tokenizer):
    """The Rust tokenizer behind a fast ``transformers`` tokenizer, in the state its
    ``__call__`` sets for an unpadded, untruncated call."""
    backend = tokenizer.backend_tokenizer
    if backend.padding is not None:
        backend.no_padding()
    if backend.truncation is not None:
        backend.no_truncation()
    split = bool(getattr(tokenizer, "split_special_tokens", False))
    if backend.encode_special_tokens != split:
        backend.encode_special_tokens = split
    return backend


def encode_texts(tokenizer, texts: Sequence[str], special: bool = False):
    """Token ids and character offsets of ``texts``, as ``tokenizer(texts,
    add_special_tokens=special, return_offsets_mapping=True)`` gives them, flat:
    ``(ids, starts, offsets)`` with ``ids[starts[i]:starts[i + 1]]`` the ids of ``texts[i]`` and
    ``offsets`` an ``(n, 2)`` array of their ``(start, end)``."""
    if not texts:
        return np.zeros(0, np.int32), np.zeros(1, np.int64), np.zeros((0, 2), np.int32)
    encs = _backend(tokenizer).encode_batch(list(texts), add_special_tokens=special)
    starts = offsets_of(np.fromiter((len(e.ids) for e in encs), dtype=np.int64, count=len(encs)))
    total = int(starts[-1])
    ids = np.fromiter(chain.from_iterable(e.ids for e in encs), dtype=np.int32, count=total)
    offs = np.fromiter(
        chain.from_iterable(chain.from_iterable(e.offsets for e in encs)),
        dtype=np.int32,
        count=2 * total,
    ).reshape(-1, 2)
    return ids, starts, offs


# ----------------------------------------------------------------------------- the shortcut
def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte-level alphabet (the ``ByteLevel`` pre-tokenizer's): byte -> character."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    keep += range(ord("®"), ord("ÿ") + 1)
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


@dataclass(frozen=True)
class SpaceCuts:
    """Where a tokenizer may be cut: at a space between two other characters, unless the
    character before it is one of ``blocked`` (for a byte-level tokenizer the last byte of the
    character, as a byte-level symbol), because a token of the vocabulary joins it to the
    space that follows. ``byte_level``: characters are compared by their last UTF-8 byte."""

    blocked: frozenset[str]
    byte_level: bool

    def allows(self, before: str) -> bool:
        """Whether a cut at a space may follow the character ``before``."""
        if before.isspace():
            return False
        if self.byte_level:
            return _BYTE_CHARS[before.encode()[-1]] not in self.blocked
        return before not in self.blocked


_BYTE_CHARS = _bytes_to_unicode()
_RULES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _state(component) -> dict | None:
    return None if component is None else json.loads(component.__getstate__())


def space_cut_rule(tokenizer) -> SpaceCuts | None:
    """Whether, and where, statements may be tokenised in pieces cut at spaces with the same
    ids and offsets as whole (``None``: not for this tokenizer; computed once per tokenizer).

    The cut ``left | " " + right`` (the space opens the right piece; a non-space character on
    each side) leaves the tokens unchanged when: the model is byte-pair encoding without
    dropout, which merges within a pre-token only; the pre-tokenisation puts a boundary before
    that space and looks at nothing across it -- GPT-2's byte-level regex split (alone or after
    a digit split), or no split at all after a normaliser that only maps the space to a symbol
    (SentencePiece-style BPE); no vocabulary token holds the character before the space
    followed by the space symbol (so no merge joins them); and no added token holds a space or
    strips one.
    """
    if tokenizer in _RULES:
        return _RULES[tokenizer]
    rule = _rule(tokenizer)
    _RULES[tokenizer] = rule
    return rule


def _rule(tokenizer) -> SpaceCuts | None:
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None or type(backend.model).__name__ != "BPE":
        return None
    if getattr(backend.model, "dropout", None) not in (None, 0.0):
        return None
    norm, pre = _state(backend.normalizer), _state(backend.pre_tokenizer)
    if norm is None:
        parts = [pre] if pre is None or pre.get("type") != "Sequence" else pre["pretokenizers"]
        *first, last = parts
        byte_level = (
            last is not None
            and last.get("type") == "ByteLevel"
            and last.get("use_regex", True)
            and all(p is not None and p.get("type") == "Digits" for p in first)
        )
        if not byte_level:
            return None
        space, is_bytes = _BYTE_CHARS[ord(" ")], True
    elif norm.get("type") == "Replace" and norm.get("pattern") == {"String": " "}:
        inert = pre is None or (
            pre.get("type") == "Split" and pre.get("pattern") == {"String": " "}
        )
        if not inert:  # a split on the space finds none after the normaliser replaced them
            return None
        space, is_bytes = norm["content"], False
    else:
        return None
    for added in backend.get_added_tokens_decoder().values():
        if added.lstrip or added.rstrip or added.single_word or " " in added.content:
            return None
        if added.normalized and space in added.content:
            return None
    blocked = set()
    for token in backend.get_vocab(with_added_tokens=False):
        at = token.find(space, 1)
        while at > 0:
            if token[at - 1] != space:
                blocked.add(token[at - 1])
            at = token.find(space, at + 1)
    return SpaceCuts(frozenset(blocked), is_bytes)


def _cut(statements: Sequence[Statement], rule: SpaceCuts | None):
    """Each statement as pieces: ``(pieces, piece_of, shift, count)``, the distinct piece
    texts, the piece of each part (parts of all statements in order), its first character in
    its statement, and the parts per statement. A statement is cut at the space before its
    object (the answer) and at the space after it, where ``rule`` allows (without a rule it is
    one part). The options of a query share the text before the answer: it is looked up once
    per run of statements that start with it."""
    index: dict[str, int] = {}
    pieces: list[str] = []
    piece_of: list[int] = []
    shift: list[int] = []
    count: list[int] = []
    allowed: dict[str, bool] = {}
    get, add_piece, add_shift, add_count = index.get, piece_of.append, shift.append, count.append
    left, left_k, left_at = "", -1, -1  # the last text before an answer, its piece, its end

    def piece(text: str) -> int:
        k = get(text)
        if k is None:
            k = index[text] = len(pieces)
            pieces.append(text)
        return k

    def ok(before: str) -> bool:
        known = allowed.get(before)
        if known is None:
            known = allowed[before] = rule.allows(before)  # type: ignore[union-attr]
        return known

    for st in statements:
        text = st.text
        spans = st.spans
        n = len(text)
        if rule is None or not spans or spans[-1][0] != "object":  # the object's span is last
            add_piece(piece(text))
            add_shift(0)
            add_count(1)
            continue
        _, a, b = spans[-1]
        # a cut at i: a space there, a character on each side that is not one, the one before
        # allowed by the rule
        c1 = a - 1
        if c1 == left_at and text.startswith(left) and 0 < a < n and not text[a].isspace():
            k1 = left_k
        elif 0 < c1 < n - 1 and text[c1] == " " and not text[a].isspace() and ok(text[c1 - 1]):
            left, left_at = text[:c1], c1
            k1 = left_k = piece(left)
        else:
            c1, k1 = 0, -1
        c2 = (
            b
            if c1 < b < n - 1 and text[b] == " " and not text[b + 1].isspace() and ok(text[b - 1])
            else n
        )
        if c1:
            add_piece(k1)
            add_shift(0)
        add_piece(piece(text[c1:c2]))
        add_shift(c1)
        if c2 < n:
            add_piece(piece(text[c2:]))
            add_shift(c2)
        add_count(1 + (c1 > 0) + (c2 < n))
    return (
        pieces,
        np.asarray(piece_of, dtype=np.int64),
        np.asarray(shift, dtype=np.int64),
        np.asarray(count, dtype=np.int64),
    )


def clm_text_tokens(tokenizer, statements: Sequence[Statement], shortcut: bool = True):
    """The token ids and character offsets of ``statements`` tokenised without special tokens
    (as ``tokenizer(texts, add_special_tokens=False, return_offsets_mapping=True)`` gives
    them), flat: ``(ids, starts, offsets)`` as :func:`encode_texts` returns them. ``shortcut``:
    tokenise distinct pieces cut at spaces where :func:`space_cut_rule` allows it (the same ids
    and offsets; ``False``: every whole statement)."""
    rule = space_cut_rule(tokenizer) if shortcut else None
    pieces, piece_of, shift, count = _cut(statements, rule)
    p_ids, p_starts, p_offs = encode_texts(tokenizer, pieces, special=False)
    part_len = np.diff(p_starts)[piece_of]
    stmt_of_part = np.repeat(np.arange(len(count)), count)
    n_text = np.bincount(stmt_of_part, weights=part_len, minlength=len(count)).astype(np.int64)
    src = segment_index(p_starts[piece_of], part_len)  # every statement's tokens, in order
    offs = p_offs[src] + np.repeat(shift, part_len).astype(np.int32)[:, None]
    return p_ids[src], offsets_of(n_text), offs


def text_roles(
    starts: np.ndarray, offsets: np.ndarray, statements: Sequence[Statement]
) -> np.ndarray:
    """The role of every text token (indices into :data:`~calib.scoring.schema.ROLES`) of
    statements whose tokens are ``starts[s]:starts[s + 1]`` with character ``offsets``
    (:func:`clm_text_tokens`), from the statements' spans
    (:func:`calib.scoring.statements.role_codes`)."""
    n_text = np.diff(starts)
    owner = np.repeat(np.arange(len(n_text)), n_text)
    offs = np.asarray(offsets, dtype=np.int64)
    return role_codes(offs[:, 0], offs[:, 1], owner, *flat_spans(st.spans for st in statements))


def clm_batch(
    ids: np.ndarray,
    starts: np.ndarray,
    roles: np.ndarray,
    start_id: int,
    statements: Sequence[Statement],
) -> TokenBatch:
    """The :class:`TokenBatch` of ``statements`` whose text tokens are ``ids[starts[s]:starts[s
    + 1]]`` with ``roles`` (:func:`clm_text_tokens`, :func:`text_roles`): ``start_id``
    prepended, every later token a target (one query per statement).

    Raises
    ------
    ValueError
        For a statement that tokenises to nothing.
    """
    n_text = np.diff(starts)
    if len(n_text) and n_text.min() == 0:
        bad = statements[int(np.argmin(n_text))]
        raise ValueError(f"statement {bad.text!r} tokenises to nothing")
    out_starts = offsets_of(n_text + 1)
    first = out_starts[:-1]
    out = np.empty(int(out_starts[-1]), dtype=np.int32)
    text_pos = np.ones(len(out), dtype=bool)
    text_pos[first] = False
    out[first] = start_id
    out[text_pos] = ids
    targets = np.nonzero(text_pos)[0] - np.repeat(first, n_text)
    return TokenBatch(
        ids=out,
        starts=out_starts,
        groups=np.arange(len(n_text) + 1, dtype=np.int64),
        targets=targets.astype(np.int32),
        target_starts=offsets_of(n_text),
        roles=np.asarray(roles, dtype=np.int8),
    )


def clm_tokens(
    tokenizer, statements: Sequence[Statement], start_id: int, shortcut: bool = True
) -> TokenBatch:
    """The causal encoding of :func:`calib.scoring.encoding.encode_clm` (tokenised without
    special tokens, ``start_id`` prepended, every later token a target) of many statements at
    once, one query each (:meth:`TokenBatch.grouped` regroups them); ``shortcut`` as in
    :func:`clm_text_tokens`.

    Raises
    ------
    ValueError
        For a statement that tokenises to nothing.
    """
    ids, starts, offsets = clm_text_tokens(tokenizer, statements, shortcut)
    return clm_batch(ids, starts, text_roles(starts, offsets, statements), start_id, statements)
