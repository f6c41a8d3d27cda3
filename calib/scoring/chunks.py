"""Scoring a store's missing units, one claimed chunk at a time: the one code path of a local
run (:func:`calib.scoring.run.score_queries`) and of a Ray actor
(:class:`calib.scoring.cluster.Scorer`).

A chunk is about ``chunk_statements`` statements of consecutive queries. It is claimed first
(:class:`calib.scoring.cache.Claims`, so concurrent runs score each unit once), encoded, scored
by :func:`calib.scoring.clm.clm_score` or :func:`calib.scoring.mlm.mlm_score` and written to
the store atomically (:meth:`calib.scoring.cache.ScoreStore.write`); an interrupted chunk
(Ctrl-C, :mod:`calib.interrupt`) is discarded and its claim released, so a later run resumes
with whole chunks only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.interrupt import check_interrupted
from calib.models.loading import LoadedModel
from calib.scoring.cache import ScoreStore, as_stored
from calib.scoring.clm import clm_score
from calib.scoring.encoding import encode_clm, encode_clm_lm_pub_quiz, encode_mlm
from calib.scoring.mlm import mlm_score
from calib.scoring.schema import SCORE_COLUMNS
from calib.scoring.statements import Query
from calib.settings import CacheWriteError

#: bytes a stored statement takes at most, about (for the space a run needs)
STORED_BYTES = 400


def count_statements(queries: Sequence[Query]) -> int:
    """How many statements (query x option) ``queries`` hold."""
    return sum(len(q.statements) for q in queries)


def encode_groups(lm: LoadedModel, queries: Sequence[Query], start_token: str) -> list:
    """The encoded statements of each query (CLM: with ``start_token``'s start tokens)."""
    if lm.objective == "clm" and start_token == "lm-pub-quiz-0.3.3":
        return [encode_clm_lm_pub_quiz(lm.tokenizer, q.statements) for q in queries]
    statements = [st for q in queries for st in q.statements]
    if lm.objective == "clm":
        if lm.start_token_id is None:
            raise ValueError(f"CLM {lm.name!r} has no start token id to prepend")
        flat = encode_clm(lm.tokenizer, statements, lm.start_token_id)
    else:
        flat = encode_mlm(lm.tokenizer, statements)
    groups, pos = [], 0
    for q in queries:
        groups.append(flat[pos : pos + len(q.statements)])
        pos += len(q.statements)
    return groups


def score_chunk(
    lm: LoadedModel,
    queries: Sequence[Query],
    token_budget: int | None,
    progress,
    start_token: str = "single",
) -> pd.DataFrame:
    """The score-table rows (:mod:`calib.scoring.schema`) of ``queries`` under ``lm``;
    ``progress(n)`` is called with the statements finished after each forward pass."""
    groups = encode_groups(lm, queries, start_token)
    if lm.objective == "clm":
        scores = clm_score(
            lm.model, groups, device=lm.device, progress=progress, token_budget=token_budget
        )
    else:
        tok = lm.tokenizer
        scores = mlm_score(
            lm.model,
            groups,
            tok.mask_token_id,
            tok.pad_token_id or 0,
            device=lm.device,
            progress=progress,
            token_budget=token_budget,
        )
    rows: dict[str, list] = {c: [] for c in SCORE_COLUMNS}
    for q, encs, values in zip(queries, groups, scores):
        for o, (enc, lp) in enumerate(zip(encs, values)):
            for col, val in (
                ("model", lm.name),
                ("dataset", q.dataset),
                ("relation", q.relation),
                ("instance", q.instance),
                ("template", q.template),
                ("option", o),
                ("answer", q.answers[o]),
                ("answer_idx", q.answer_idx),
                ("token_logprobs", lp.astype(np.float32)),
                ("token_roles", list(enc.roles)),
            ):
                rows[col].append(val)
    return pd.DataFrame(rows)


def score_missing(
    store: ScoreStore,
    missing: list[Query],
    get_model,
    chunk_statements: int,
    token_budget: int | None,
    bar,
    start_token: str = "single",
) -> list[pd.DataFrame]:
    """Score ``missing`` into ``store`` one claimed chunk at a time; units another process
    claims meanwhile are waited for and read from the store (each unit is scored once). Returns
    the score frames of all of ``missing``. ``get_model()`` loads the model (once, when a chunk
    first needs it); ``bar.update(n)`` counts statements. A signal recorded by
    :func:`calib.interrupt.stop_on_signals` stops it at the next forward pass (or claim, or
    wait) with :class:`calib.interrupt.Interrupted`: the unfinished chunk is not written and
    its claim is released."""
    frames = []
    claims = store.claims()
    todo = list(missing)
    lost_before: set = set()
    while todo:
        check_interrupted()
        try:
            claim = claims.claim(todo, chunk_statements)
        except CacheWriteError as exc:
            raise exc.needing(STORED_BYTES * count_statements(todo), "scores") from exc.__cause__
        with claim:
            if claim.queries:
                lm = get_model()
                check_interrupted()  # loading may take long
                frame = score_chunk(lm, claim.queries, token_budget, bar.update, start_token)
                try:
                    store.write(frame, claim.queries, claim)
                except CacheWriteError as exc:  # the space for all that is left
                    per = (exc.needed or 0) / max(count_statements(claim.queries), 1)
                    raise exc.needing(
                        int(max(per, STORED_BYTES) * count_statements(todo))
                    ) from exc.__cause__
                frames.append(as_stored(frame))
        lost: list[Query] = []
        if claim.stored:  # scored by another process meanwhile
            rows, lost = store.lookup(claim.stored)
            frames.append(rows)
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
    return frames
