"""Scoring a store's missing units, one claimed chunk at a time: the one code path of a local
run (:func:`calib.scoring.run.score_queries`) and of a Ray actor
(:class:`calib.scoring.cluster.Scorer`).

A chunk is about ``chunk_statements`` statements of consecutive queries. It is claimed first
(:class:`calib.scoring.cache.Claims`, so concurrent runs score each unit once), encoded, scored
by :func:`calib.scoring.clm.clm_score` or :func:`calib.scoring.mlm.mlm_score` and written to
the store atomically (:meth:`calib.scoring.cache.ScoreStore.write`); an interrupted chunk
(Ctrl-C, :mod:`calib.interrupt`) is discarded and its claim released, so a later run resumes
with whole chunks only. The host works beside the device: while a chunk is scored, the next
one is tokenised in a thread and the one before is written in another (``_Ahead``), so
that a run takes about the longer of the two, not their sum.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from concurrent.futures import Future

import numpy as np
import pandas as pd
import pyarrow as pa

from calib.interrupt import check_interrupted
from calib.models.loading import LoadedModel
from calib.scoring.cache import SCHEMA, ScoreStore, UnitRows, as_frame, as_table
from calib.scoring.clm import clm_score
from calib.scoring.encoding import encode_clm_lm_pub_quiz, encode_mlm
from calib.scoring.logprobs import Scores
from calib.scoring.mlm import mlm_score
from calib.scoring.schema import ROLES
from calib.scoring.statements import Query
from calib.scoring.token_cache import TokenCache
from calib.scoring.tokens import TokenBatch, clm_tokens
from calib.settings import CacheWriteError

#: bytes a stored statement takes at most, about (for the space a run needs)
STORED_BYTES = 400


def count_statements(queries: Sequence[Query]) -> int:
    """How many statements (query x option) ``queries`` hold."""
    return sum(len(q.statements) for q in queries)


def encode_groups(lm: LoadedModel, queries: Sequence[Query], start_token: str) -> list:
    """The encoded statements of each query (CLM: with ``start_token``'s start tokens), as
    :class:`~calib.scoring.encoding.Encoded` objects."""
    batch = encode_batch(lm, queries, start_token)
    return [batch[g] for g in range(len(batch))]


def encode_batch(
    lm: LoadedModel, queries: Sequence[Query], start_token: str, cache_root=None
) -> TokenBatch:
    """The statements of ``queries`` tokenised for ``lm`` (one group per query). A causal
    model's statements under calib's ``"single"`` start token are read from the token cache
    under ``cache_root`` where it has them (:mod:`calib.scoring.token_cache`, keyed by the
    tokenizer's content) and tokenised and added there otherwise (``cache_root`` ``None``: no
    cache)."""
    if lm.objective == "clm" and start_token == "lm-pub-quiz-0.3.3":
        return TokenBatch.from_groups(
            [encode_clm_lm_pub_quiz(lm.tokenizer, q.statements) for q in queries]
        )
    if lm.objective == "clm":
        if lm.start_token_id is None:
            raise ValueError(f"CLM {lm.name!r} has no start token id to prepend")
        if cache_root is not None:
            return TokenCache(cache_root, lm.tokenizer).clm(queries, lm.start_token_id)
        statements = [st for q in queries for st in q.statements]
        batch = clm_tokens(lm.tokenizer, statements, lm.start_token_id)
        return batch.grouped(len(q.statements) for q in queries)
    flat = encode_mlm(lm.tokenizer, [st for q in queries for st in q.statements])
    groups, pos = [], 0
    for q in queries:
        groups.append(flat[pos : pos + len(q.statements)])
        pos += len(q.statements)
    return TokenBatch.from_groups(groups)


def score_table(name: str, queries: Sequence[Query], batch: TokenBatch, scores: Scores) -> pa.Table:
    """The score-table rows (:mod:`calib.scoring.schema`) of ``queries`` as an Arrow table of
    the store's schema (:data:`calib.scoring.cache.SCHEMA`), built column by column from the
    flat token batch and scores (no Python object per row but the answers')."""
    sizes = np.diff(batch.groups)
    query_of = pa.array(np.repeat(np.arange(len(queries)), sizes))
    first = np.repeat(batch.groups[:-1], sizes)

    def per_query(values, kind) -> pa.Array:
        return pa.array(values, kind).take(query_of)

    roles = pa.DictionaryArray.from_arrays(
        pa.array(batch.roles.astype(np.int8)), pa.array(list(ROLES))
    ).cast(pa.string())
    columns = {
        "model": pa.array([name], pa.string()).take(pa.array(np.zeros(len(first), np.int64))),
        "dataset": per_query([q.dataset for q in queries], pa.string()),
        "relation": per_query([q.relation for q in queries], pa.string()),
        "instance": per_query([q.instance for q in queries], pa.string()),
        "template": per_query([q.template for q in queries], pa.string()),
        "option": pa.array((np.arange(len(first)) - first).astype(np.int32)),
        "answer": pa.array([a for q in queries for a in q.answers], pa.string()),
        "answer_idx": per_query([q.answer_idx for q in queries], pa.int32()),
        "token_logprobs": pa.ListArray.from_arrays(
            pa.array(scores.starts.astype(np.int32)),
            pa.array(np.asarray(scores.values, dtype=np.float32)),
        ),
        "token_roles": pa.ListArray.from_arrays(
            pa.array(batch.target_starts.astype(np.int32)), roles
        ),
    }
    return pa.table(columns, schema=SCHEMA)


def score_batch(lm: LoadedModel, batch: TokenBatch, token_budget: int | None, progress) -> Scores:
    """The scores of a tokenised chunk (:func:`calib.scoring.clm.clm_score` or
    :func:`calib.scoring.mlm.mlm_score`)."""
    if lm.objective == "clm":
        return clm_score(
            lm.model, batch, device=lm.device, progress=progress, token_budget=token_budget
        )
    tok = lm.tokenizer
    return mlm_score(
        lm.model,
        batch,
        tok.mask_token_id,
        tok.pad_token_id or 0,
        device=lm.device,
        progress=progress,
        token_budget=token_budget,
    )


def score_chunk(
    lm: LoadedModel,
    queries: Sequence[Query],
    token_budget: int | None,
    progress,
    start_token: str = "single",
    cache_root=None,
    batch: TokenBatch | None = None,
) -> pa.Table:
    """The score-table rows (:mod:`calib.scoring.schema`) of ``queries`` under ``lm``, as an
    Arrow table of the store's schema (:func:`score_table`); ``progress(n)`` is called with
    the statements finished after each forward pass. ``cache_root``: where the token cache
    lies (:func:`encode_batch`; ``None``: none); ``batch``: the queries already tokenised."""
    if batch is None:
        batch = encode_batch(lm, queries, start_token, cache_root)
    return score_table(lm.name, queries, batch, score_batch(lm, batch, token_budget, progress))


class _Ahead:
    """Host work beside the scoring: the next chunk's statements tokenised in one thread
    while a chunk is scored (a guess at the next claim, used only if the claim is exactly
    those queries), and each chunk written (converted, its claim then released) in another
    while the next is scored. :meth:`close` joins both; a chunk being written is written
    whole (the store's write is atomic)."""

    def __init__(self) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.encoder = ThreadPoolExecutor(1, thread_name_prefix="calib-encode-ahead")
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="calib-write-behind")
        self.guess: tuple[list, Future] | None = None  # (query keys, future of their batch)
        self.writes: list[Future] = []  # futures of each chunk's UnitRows, in chunk order

    def encode_next(self, lm, queries: list[Query], start_token: str, cache_root) -> None:
        """Start tokenising ``queries`` (the guess at the next claim)."""
        if queries:
            future = self.encoder.submit(encode_batch, lm, queries, start_token, cache_root)
            self.guess = ([q.key for q in queries], future)

    def batch(self, lm, queries: list[Query], start_token: str, cache_root) -> TokenBatch:
        """The tokenised ``queries``: the guess if it was them, else tokenised now (after the
        guess is done: one tokenising at a time, for the token cache)."""
        guess, self.guess = self.guess, None
        if guess is not None:
            batch = guess[1].result()
            if guess[0] == [q.key for q in queries]:
                return batch
        return encode_batch(lm, queries, start_token, cache_root)

    def write(self, store: ScoreStore, table: pa.Table, claim) -> None:
        """Write ``table`` (the rows of ``claim``'s queries) behind, then release the claim."""

        def task() -> UnitRows:
            with claim:  # released once its chunk is written (or on failure)
                return write_and_convert(store, table, claim)

        self.writes.append(self.writer.submit(task))

    def written(self, left: int, finished_only: bool = False) -> list[UnitRows]:
        """The rows of the chunks written (those finished so far with ``finished_only``); a
        failed write raises its error, with the space about ``left`` more statements need."""
        out = []
        for future in self.writes:
            if finished_only and not future.done():
                break
            try:
                out.append(future.result())
            except CacheWriteError as exc:
                per = (exc.needed or 0) / max(left, 1)
                raise exc.needing(int(max(per, STORED_BYTES) * left)) from exc.__cause__
        return out

    def close(self) -> None:
        self.encoder.shutdown(wait=True, cancel_futures=True)
        self.writer.shutdown(wait=True)


def _next_guess(todo: list[Query], chunk_statements: int) -> list[Query]:
    """The queries the next claim takes if no other process claims any: the first
    ``chunk_statements`` statements' worth of ``todo`` (as :meth:`Claims.claim` counts)."""
    out, size = [], 0
    for q in todo:
        if size >= chunk_statements:
            break
        out.append(q)
        size += len(q.statements)
    return out


def score_missing(
    store: ScoreStore,
    missing: list[Query],
    get_model,
    chunk_statements: int,
    token_budget: int | None,
    bar,
    start_token: str = "single",
) -> list[UnitRows]:
    """Score ``missing`` into ``store`` one claimed chunk at a time; units another process
    claims meanwhile are waited for and read from the store (each unit is scored once). Returns
    the rows of all of ``missing`` (:class:`~calib.scoring.cache.UnitRows`, Arrow).
    ``get_model()`` loads the model (once, when a chunk first needs it); ``bar.update(n)``
    counts statements. The next chunk is tokenised while one is scored, and each is written
    while the next is scored (``_Ahead``). A signal recorded by
    :func:`calib.interrupt.stop_on_signals` stops it at the next forward pass (or claim, or
    wait) with :class:`calib.interrupt.Interrupted`: the chunk being scored is not written and
    its claim is released; a chunk already being written is finished first."""
    ahead = _Ahead()
    try:
        parts = _score_claimed(
            store, missing, get_model, chunk_statements, token_budget, bar, start_token, ahead
        )
    finally:
        ahead.close()
    return [*ahead.written(count_statements(missing)), *parts]


def _score_claimed(
    store, missing, get_model, chunk_statements, token_budget, bar, start_token, ahead: _Ahead
) -> list[UnitRows]:
    """The loop of :func:`score_missing`: each claimed chunk scored and handed to ``ahead``
    to write; returns the rows read back from the store (units other processes stored)."""
    parts: list[UnitRows] = []
    claims = store.claims()
    todo = list(missing)
    lost_before: set = set()
    while todo:
        check_interrupted()
        ahead.written(count_statements(todo), finished_only=True)  # a failed write: stop now
        try:
            claim = claims.claim(todo, chunk_statements)
        except CacheWriteError as exc:
            raise exc.needing(STORED_BYTES * count_statements(todo), "scores") from exc.__cause__
        if claim.queries:
            with contextlib.ExitStack() as held:
                held.enter_context(claim)  # released here unless handed to the writer
                lm = get_model()
                check_interrupted()  # loading may take long
                batch = ahead.batch(lm, claim.queries, start_token, store.root)
                ahead.encode_next(
                    lm, _next_guess(claim.rest, chunk_statements), start_token, store.root
                )
                table = score_chunk(
                    lm, claim.queries, token_budget, bar.update, start_token, batch=batch
                )
                held.pop_all()
                ahead.write(store, table, claim)
        lost: list[Query] = []
        if claim.stored:  # scored by another process meanwhile
            rows, lost = store.lookup_rows(claim.stored)
            parts += rows
            bar.update(count_statements(claim.stored) - count_statements(lost))
            again = [q for q in lost if q.key in lost_before]
            if again:
                raise RuntimeError(
                    f"{len(again)} unit(s) that another process stored in {store.folder} cannot "
                    f"be read back nor set aside (e.g. {again[0].key}); check that folder"
                )
            lost_before |= {q.key for q in lost}
        todo = [*claim.busy, *claim.rest, *lost]
        if not claim.queries and not claim.rest and not lost and claim.busy:
            claims.wait(stop=check_interrupted)  # only units another process holds are left
    return parts


def write_and_convert(store: ScoreStore, frame: pd.DataFrame | pa.Table, claim) -> UnitRows:
    """Write the rows :func:`score_chunk` gave for the claim's queries to ``store`` and return
    them as :class:`~calib.scoring.cache.UnitRows` with their pandas frame: the write (Arrow,
    without Python's lock) runs in a thread beside the conversion to pandas (which needs it),
    and is done, or has raised, when this returns."""
    table = as_table(frame)
    failed: list[BaseException] = []

    def write() -> None:
        try:
            store.write(table, claim.queries, claim)
        except BaseException as exc:  # noqa: BLE001 - raised again below, in this thread
            failed.append(exc)

    writer = threading.Thread(target=write, name="calib-store-write")
    writer.start()
    try:
        converted = as_frame(table)
    finally:
        writer.join()
    if failed:
        raise failed[0]
    return UnitRows(
        table,
        [(q.relation, q.template, q.instance) for q in claim.queries],
        np.asarray([len(q.statements) for q in claim.queries], dtype=np.int64),
        converted,
    )
