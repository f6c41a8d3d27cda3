"""Scoring runs at once on one cache, and runs killed with SIGKILL at random points: every unit
is scored once, nothing half-written stays, and the table is the one scored in one go."""

from __future__ import annotations

import collections
import random
import signal
import time

import pytest
from fault_helpers import assert_same_table, leftovers, scored_units, start_worker, stored_table

pytestmark = pytest.mark.slow


#: seconds a wait may take before the test fails: only against a hang (each wait is for seconds
#: of tiny-model work, which a loaded machine may stretch many times)
HANG_S = 600


def _wait_for(predicate, timeout: float = HANG_S, poll: float = 0.05) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        time.sleep(poll)


def test_two_runs_at_once_score_each_unit_once(
    cache, tmp_path, worker_queries, reference, monkeypatch
):
    log = tmp_path / "units.log"
    workers = [start_worker(cache, log, sleep=0.3) for _ in range(2)]
    for w in workers:
        assert w.wait(timeout=HANG_S) == 0, log.with_suffix(".out").read_text()[-3000:]
    units = scored_units(log)
    counts = collections.Counter(u[1:] for u in units)
    assert len(counts) == len(worker_queries)  # every unit scored ...
    assert set(counts.values()) == {1}  # ... once
    assert not leftovers(cache)
    assert_same_table(stored_table(cache, worker_queries, monkeypatch), reference)


def test_sigkill_at_random_points_then_resume(
    cache, tmp_path, worker_queries, reference, monkeypatch
):
    """Three runs killed after a seeded random time once scoring has begun (during scoring,
    between chunks or while a chunk is written), then a run that completes."""
    rng = random.Random(11)
    log = tmp_path / "units.log"
    killed = 0
    for _round in range(3):
        before = len(scored_units(log))
        worker = start_worker(cache, log, sleep=0.15)
        _wait_for(
            lambda before=before, worker=worker: (
                len(scored_units(log)) > before or worker.poll() is not None
            )
        )
        time.sleep(rng.uniform(0.0, 0.4))
        if worker.poll() is None:
            worker.send_signal(signal.SIGKILL)
            killed += 1
        worker.wait(timeout=HANG_S)  # killed (or done): ends at once
    assert killed >= 2
    done = {u[1:] for u in scored_units(log)}
    assert len(done) > 0
    final = start_worker(cache, log)
    assert final.wait(timeout=HANG_S) == 0, log.with_suffix(".out").read_text()[-3000:]
    assert {u[1:] for u in scored_units(log)} == {
        (q.relation, q.template, q.instance) for q in worker_queries
    }
    assert not leftovers(cache), "a killed run left partial files that were not cleaned"
    assert_same_table(stored_table(cache, worker_queries, monkeypatch), reference)


def test_a_killed_holder_does_not_block_a_waiting_run(
    cache, tmp_path, worker_queries, reference, monkeypatch
):
    """A slow run holds claims; a second run scores what is free and waits for the rest; the
    first is killed: the second takes over its claimed units and finishes."""
    log = tmp_path / "units.log"
    # the slow run sleeps holding its first claim for longer than any wait of this test (it is
    # killed first), so the second run finds it busy however long its own start takes
    slow = start_worker(cache, log, sleep=2 * HANG_S)
    second = None
    try:
        _wait_for(lambda: len(scored_units(log)) > 0)  # the slow run sleeps holding its claim
        second = start_worker(cache, log, sleep=0)
        _wait_for(lambda: "waiting for process" in log.with_suffix(".out").read_text())
        slow.send_signal(signal.SIGKILL)
        assert second.wait(timeout=HANG_S) == 0, log.with_suffix(".out").read_text()[-3000:]
    finally:  # a failed wait leaves no sleeping worker behind
        for w in (slow, second):
            if w is not None and w.poll() is None:
                w.kill()
                w.wait()
    units = scored_units(log)
    by_pid = collections.Counter(u[0] for u in units)
    assert by_pid[str(slow.pid)] >= 1 and by_pid[str(second.pid)] >= 1
    assert {u[1:] for u in units} == {(q.relation, q.template, q.instance) for q in worker_queries}
    assert "left by a process that ended" in log.with_suffix(".out").read_text()
    assert not leftovers(cache)
    assert_same_table(stored_table(cache, worker_queries, monkeypatch), reference)
