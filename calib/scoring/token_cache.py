"""The token cache: the token ids of statements, tokenised once per tokenizer.

Models of one family share a tokenizer (Llama 3.2 1B/3B and 3.1 8B, the Gemma 3 sizes, the
Qwen3.5 sizes), so the second model of a family need not tokenise BEAR again. The cache is
keyed by the tokenizer's *content* (:func:`tokenizer_digest`: a hash of its serialised form:
normaliser, pre-tokeniser, vocabulary and merges, added tokens), not by a model's name, so two
names of one tokenizer share it and a changed tokenizer never reads another's ids.

Layout: ``<cache>/tokens/<tokenizer digest>/part-<id>.npz``. A part holds whole units (one
query: its statements' text tokens, as :func:`calib.scoring.tokens.clm_text_tokens` gives
them, without a start token, and each token's role, :func:`calib.scoring.tokens.text_roles`)
keyed by :func:`token_digest`, a hash of the statements' texts and spans (what the ids and
roles depend on); the start token is prepended when a batch is assembled
(:func:`calib.scoring.tokens.clm_batch`). Parts are written to a temporary file and renamed
into place, so readers see whole parts only; a part that does not read back whole is removed.
The cache is an optimisation: a cache folder that cannot be written only means tokenising again.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import uuid
import weakref
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from calib.scoring.statements import Query
from calib.scoring.tokens import (
    TokenBatch,
    clm_batch,
    clm_text_tokens,
    offsets_of,
    segment_index,
    text_roles,
)

log = logging.getLogger(__name__)

#: bump when what a part holds changes meaning
TOKENS_VERSION = "2"
_DIGESTS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tokenizer_digest(tokenizer) -> str:
    """A hash of the tokenizer's serialised content (its Rust backend's JSON, padding and
    truncation left out), computed once per tokenizer object."""
    known = _DIGESTS.get(tokenizer)
    if known is None:
        from calib.scoring.tokens import _backend

        text = _backend(tokenizer).to_str()
        known = hashlib.sha256(f"{TOKENS_VERSION}\0{text}".encode()).hexdigest()[:20]
        _DIGESTS[tokenizer] = known
    return known


def token_digest(query: Query) -> str:
    """A hash of what a query's token ids and roles depend on: its statements' texts and spans
    (computed once per query object)."""
    known = query.__dict__.get("_token_digest")
    if known is None:
        texts = "\x1f".join([st.text for st in query.statements])
        spans = repr([st.spans for st in query.statements])
        known = hashlib.sha1(f"{texts}\x1e{spans}".encode()).hexdigest()[:20]
        object.__setattr__(query, "_token_digest", known)  # a memo beside the frozen fields
    return known


class _Part:
    """One part file, read whole."""

    def __init__(self, path: Path):
        with np.load(path, allow_pickle=False) as data:
            self.units = data["units"]
            self.unit_statements = data["unit_statements"].astype(np.int64)
            self.statement_tokens = data["statement_tokens"].astype(np.int64)
            self.ids = data["ids"]
            self.roles = data["roles"]
        if (
            self.unit_statements.sum() != len(self.statement_tokens)
            or self.statement_tokens.sum() != len(self.ids)
            or self.roles.shape != self.ids.shape
            or len(self.units) != len(self.unit_statements)
        ):
            raise ValueError("its arrays do not agree in length")


class TokenCache:
    """The cached text tokens of one tokenizer under ``root`` (the cache root), and the causal
    token batches assembled from them (:meth:`clm`)."""

    def __init__(self, root: str | os.PathLike, tokenizer):
        self.tokenizer = tokenizer
        self.folder = Path(root) / "tokens" / tokenizer_digest(tokenizer)
        self._parts: dict[Path, _Part] = {}
        self._where: dict[str, tuple[Path, int]] = {}

    def _refresh(self) -> None:
        """Read the parts written since the last look (each once)."""
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob("part-*.npz")):
            if path in self._parts:
                continue
            try:
                part = _Part(path)
            except Exception as exc:  # noqa: BLE001 - any unreadable part: drop it
                log.warning("token cache part %s is unusable (%s); it is removed", path, exc)
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            self._parts[path] = part
            for u, digest in enumerate(part.units.tolist()):
                self._where.setdefault(digest.decode(), (path, u))

    def _write(self, digests: list[str], counts, statement_tokens, ids, roles) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".npz")
            with os.fdopen(fd, "wb") as fh:
                np.savez(
                    fh,
                    units=np.asarray(digests, dtype="S20"),
                    unit_statements=np.asarray(counts, dtype=np.int32),
                    statement_tokens=np.asarray(statement_tokens, dtype=np.int32),
                    ids=ids.astype(np.int32),
                    roles=roles.astype(np.int8),
                )
            os.replace(tmp, self.folder / f"part-{uuid.uuid4().hex[:16]}.npz")
        except OSError as exc:  # a read-only or full cache: tokenise again next time
            log.info("token cache %s not written (%s)", self.folder, exc)
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(tmp)

    def clm(self, queries: Sequence[Query], start_id: int, shortcut: bool = True) -> TokenBatch:
        """The causal :class:`~calib.scoring.tokens.TokenBatch` of ``queries`` (one group per
        query, ``start_id`` first in every statement): the units cached are read, the others
        tokenised (:func:`~calib.scoring.tokens.clm_text_tokens`) and added to the cache.

        Raises
        ------
        ValueError
            For a statement that tokenises to nothing.
        """
        if not queries:
            return clm_batch(np.zeros(0, np.int32), np.zeros(1, np.int64), np.zeros(0), 0, [])
        self._refresh()
        digests = [token_digest(q) for q in queries]
        where = [self._where.get(d) for d in digests]
        new = [i for i, w in enumerate(where) if w is None]
        # the pool: every part some unit is read from, then the newly tokenised units
        paths = list(dict.fromkeys(w[0] for w in where if w is not None))
        sources = [self._parts[p] for p in paths]
        if new:
            statements = [st for i in new for st in queries[i].statements]
            ids, starts, offsets = clm_text_tokens(self.tokenizer, statements, shortcut)
            roles = text_roles(starts, offsets, statements)
            counts = [len(queries[i].statements) for i in new]
            n_tokens = np.diff(starts)
            if len(n_tokens) and n_tokens.min() > 0:  # else clm_batch says which one
                self._write([digests[i] for i in new], counts, n_tokens, ids, roles)
            fresh = _Fresh(counts, n_tokens, ids, roles)
            sources.append(fresh)  # type: ignore[arg-type]
        unit_base = offsets_of(np.asarray([len(s.units) for s in sources], dtype=np.int64))
        source_of = {p: k for k, p in enumerate(paths)}
        pool_unit = np.empty(len(queries), dtype=np.int64)
        for i, w in enumerate(where):
            if w is not None:
                pool_unit[i] = unit_base[source_of[w[0]]] + w[1]
        if new:
            pool_unit[new] = unit_base[-2] + np.arange(len(new))
        unit_statements = np.concatenate([s.unit_statements for s in sources])
        statement_tokens = np.concatenate([s.statement_tokens for s in sources])
        unit_start = offsets_of(unit_statements)[:-1]
        token_start = offsets_of(statement_tokens)[:-1]
        stmts = segment_index(unit_start[pool_unit], unit_statements[pool_unit])
        toks = segment_index(token_start[stmts], statement_tokens[stmts])
        one = len(sources) == 1
        ids = (sources[0].ids if one else np.concatenate([s.ids for s in sources]))[toks]
        roles = (sources[0].roles if one else np.concatenate([s.roles for s in sources]))[toks]
        batch = clm_batch(
            ids,
            offsets_of(statement_tokens[stmts]),
            roles,
            start_id,
            [st for q in queries for st in q.statements],
        )
        return batch.grouped(len(q.statements) for q in queries)


class _Fresh:
    """Newly tokenised units, in the form of a part."""

    def __init__(self, counts, statement_tokens, ids, roles):
        self.units = np.zeros(len(counts), dtype="S20")
        self.unit_statements = np.asarray(counts, dtype=np.int64)
        self.statement_tokens = np.asarray(statement_tokens, dtype=np.int64)
        self.ids = ids
        self.roles = roles
