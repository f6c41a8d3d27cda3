"""A damaged score store: chunks corrupted (random bytes), truncated, deleted or replaced by a
folder, and what a killed run leaves (a claim, a partial chunk). The damaged units are set
aside and rescored; the table equals the one scored in one go."""

from __future__ import annotations

import json
import random
import shutil

import pyarrow.parquet as pq
import pytest
import score_worker
from fault_helpers import assert_same_table, leftovers

import calib.scoring.chunks as chunking
import calib.scoring.run as run


@pytest.fixture(scope="module")
def stored(tmp_path_factory, tiny_models, worker_queries):
    """A cache with every unit of the worker's table stored (about six chunks)."""
    cache = tmp_path_factory.mktemp("stored")
    run.score_queries(
        tiny_models[score_worker.MODEL],
        worker_queries,
        cache_dir=cache,
        chunk_statements=score_worker.CHUNK_STATEMENTS,
        progress=False,
    )
    return cache


@pytest.fixture
def damaged(stored, tmp_path):
    """A copy of the stored cache to damage, and its chunks."""
    cache = shutil.copytree(stored, tmp_path / "cache")
    chunks = sorted((cache / "scores").rglob("chunk-*.parquet"))
    assert len(chunks) >= 4
    return cache, chunks


def _rescore(cache, tiny_models, worker_queries, monkeypatch):
    """Score again, counting the units scored."""
    scored = []
    real = chunking.score_chunk
    monkeypatch.setattr(
        chunking,
        "score_chunk",
        lambda lm, chunk, *a, **k: scored.extend(chunk) or real(lm, chunk, *a, **k),
    )
    table = run.score_queries(
        tiny_models[score_worker.MODEL],
        worker_queries,
        cache_dir=cache,
        chunk_statements=score_worker.CHUNK_STATEMENTS,
        progress=False,
    )
    return table, scored


def _units_in(chunk):
    return len(json.loads(pq.read_schema(chunk).metadata[b"calib"])["units"])


@pytest.mark.parametrize("seed", range(10))
def test_a_corrupted_chunk_is_set_aside_and_rescored(
    damaged, seed, tiny_models, worker_queries, reference, monkeypatch
):
    """Eight random bytes of one chunk overwritten at a seeded place (anywhere: magic, data
    pages, footer, metadata)."""
    cache, chunks = damaged
    rng = random.Random(seed)
    victim = chunks[rng.randrange(len(chunks))]
    n_units = _units_in(victim)
    blob = bytearray(victim.read_bytes())
    at = rng.randrange(len(blob) - 8)
    blob[at : at + 8] = bytes(rng.randrange(256) for _ in range(8))
    victim.write_bytes(bytes(blob))
    table, scored = _rescore(cache, tiny_models, worker_queries, monkeypatch)
    assert_same_table(table, reference)
    assert len(scored) <= n_units  # at most the victim's units are rescored
    if scored:
        assert not victim.exists() and list(victim.parent.glob("*.corrupt"))


def test_a_truncated_chunk_is_rescored(
    damaged, tiny_models, worker_queries, reference, monkeypatch
):
    cache, chunks = damaged
    victim = chunks[1]
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 3])
    table, scored = _rescore(cache, tiny_models, worker_queries, monkeypatch)
    assert len(scored) == _units_in(chunks[0])  # the chunks hold two units each
    assert victim.with_suffix(".corrupt").exists()
    assert_same_table(table, reference)


def test_a_deleted_chunk_is_rescored(damaged, tiny_models, worker_queries, reference, monkeypatch):
    cache, chunks = damaged
    n = _units_in(chunks[2])
    chunks[2].unlink()
    table, scored = _rescore(cache, tiny_models, worker_queries, monkeypatch)
    assert len(scored) == n
    assert_same_table(table, reference)


def test_a_chunk_replaced_by_a_folder_is_set_aside(
    damaged, tiny_models, worker_queries, reference, monkeypatch
):
    cache, chunks = damaged
    victim = chunks[0]
    n = _units_in(victim)
    victim.unlink()
    victim.mkdir()
    (victim / "part-0.parquet").write_bytes(chunks[1].read_bytes())  # even a readable one
    table, scored = _rescore(cache, tiny_models, worker_queries, monkeypatch)
    assert len(scored) == n
    assert not victim.exists() and [p for p in victim.parent.glob("*.corrupt") if p.is_dir()]
    assert_same_table(table, reference)


def test_every_chunk_damaged_at_once(damaged, tiny_models, worker_queries, reference, monkeypatch):
    cache, chunks = damaged
    chunks[0].write_bytes(b"")
    chunks[1].write_bytes(b"PAR1" + bytes(100) + b"PAR1")
    chunks[2].unlink()
    chunks[3].unlink()
    chunks[3].mkdir()
    for chunk in chunks[4:]:
        chunk.write_bytes(chunk.read_bytes()[:-10])
    table, scored = _rescore(cache, tiny_models, worker_queries, monkeypatch)
    assert len(scored) == len(worker_queries)
    assert_same_table(table, reference)


def test_what_a_killed_run_leaves_is_cleaned_and_its_units_rescored(
    damaged, tiny_models, worker_queries, reference, monkeypatch
):
    """A claim record and lock file nobody holds, and the partial chunk it was writing."""
    cache, chunks = damaged
    victim = chunks[0]
    n = _units_in(victim)
    units = json.loads(pq.read_schema(victim).metadata[b"calib"])["units"]
    victim.unlink()
    claims = victim.parent / "claims"
    claims.mkdir(exist_ok=True)
    (claims / "deadbeef.json").write_text(
        json.dumps({"pid": 999999, "host": "gone", "units": [u[:3] for u in units]})
    )
    (claims / "deadbeef.lock").touch()
    (victim.parent / ".tmp-deadbeef-x1y2.parquet").write_bytes(b"PAR1 half a chunk")
    table, scored = _rescore(cache, tiny_models, worker_queries, monkeypatch)
    assert len(scored) == n
    assert not leftovers(cache)
    assert_same_table(table, reference)


@pytest.mark.parametrize(
    "footer",
    [
        lambda units: {"chunk": "no units"},
        lambda units: {"units": [u[:4] for u in units]},
        lambda units: {"units": "P30"},
    ],
    ids=["no-units", "four-fields", "units-not-a-list"],
)
def test_a_chunk_whose_footer_lacks_its_units_is_set_aside_and_rescored(
    footer, damaged, tiny_models, worker_queries, reference, monkeypatch
):
    """A valid Parquet chunk whose footer JSON has no unit list, or units of four fields,
    is damage like any other (issue 39): set aside, its units rescored, the store usable."""
    cache, chunks = damaged
    victim = chunks[1]
    units = json.loads(pq.read_schema(victim).metadata[b"calib"])["units"]
    table = pq.read_table(victim)
    meta = {b"calib": json.dumps(footer(units)).encode()}
    pq.write_table(table.replace_schema_metadata(meta), victim)
    assert run.score_store(score_worker.MODEL, "bear", cache_dir=cache).units() == sum(
        _units_in(c) for c in chunks if c != victim
    )
    table, scored = _rescore(cache, tiny_models, worker_queries, monkeypatch)
    assert len(scored) == len(units)
    assert victim.with_suffix(".corrupt").exists()
    assert_same_table(table, reference)
