"""Ctrl-C and SIGTERM that land anywhere during scoring (here: inside a finaliser, in the middle
of a forward pass, where Python's own Ctrl-C is printed as "Exception ignored" and lost) stop
it at the next forward pass: the chunk being scored is discarded, the chunks before it are
whole, no claim or partial file is left, the previous handlers are back, and the next call
resumes to the full table. In this process (tiny model, no subprocess); the subprocess test of
``calib score`` is in ``test_cache_folder.py``.

SIGINT's previous handler is Python's own (``default_int_handler``), whose KeyboardInterrupt a
finaliser swallows; SIGTERM's is a record-only guard, so that a bug fails the test instead of
killing the test session.
"""

from __future__ import annotations

import signal

import pytest
import score_worker
from fault_helpers import assert_same_table, leftovers

import calib.scoring.chunks as chunking
import calib.scoring.run as run


class RaisesInFinaliser:
    """An object whose finaliser raises ``signum`` in this process."""

    def __init__(self, signum: int):
        self.signum = signum

    def __del__(self):
        signal.raise_signal(self.signum)


@pytest.fixture
def signal_in_second_chunk(monkeypatch, tiny_models):
    """Arrange for ``signum`` to be raised from a finaliser during the second forward pass of
    the second chunk; returns a record of the passes and chunks and the model."""
    lm = tiny_models[score_worker.MODEL]
    seen = {"chunks": 0, "passes": [], "signum": None}
    real = chunking.score_chunk

    def counted(*args, **kwargs):
        seen["chunks"] += 1
        return real(*args, **kwargs)

    def hook(module, args, output):
        seen["passes"].append(seen["chunks"])
        if seen["chunks"] == 2 and seen["passes"].count(2) == 2:
            RaisesInFinaliser(seen["signum"])  # made and finalised here, mid-pass

    monkeypatch.setattr(chunking, "score_chunk", counted)
    handle = lm.model.base_model.register_forward_hook(hook)  # a pass: the backbone's forward
    yield lm, seen
    handle.remove()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_raised_in_a_finaliser_mid_pass_stops_at_the_next_pass(
    signum, signal_in_second_chunk, cache, worker_queries, reference
):
    lm, seen = signal_in_second_chunk
    seen["signum"] = signum
    guarded = []
    previous = signal.signal(
        signum,
        signal.default_int_handler if signum == signal.SIGINT else lambda s, f: guarded.append(s),
    )
    try:
        with pytest.raises(run.ScoringInterrupted) as info:
            run.score_queries(
                lm,
                worker_queries,
                cache_dir=cache,
                chunk_statements=score_worker.CHUNK_STATEMENTS,
                progress=False,
            )
        restored = signal.getsignal(signum)
    finally:
        installed = signal.signal(signum, previous)
    assert restored is installed  # the handler before the call is back
    assert guarded == [] and info.value.signum == signum
    # the signal came in pass 2 of chunk 2: no pass after it
    assert seen["chunks"] == 2 and seen["passes"][-1] == 2 and seen["passes"].count(2) == 2
    store = info.value.store
    assert store.folder == run.score_store(lm, "bear", cache_dir=cache).folder
    assert len(store.chunks()) == 1  # the first chunk whole, nothing of the second
    _stored, missing = store.lookup(worker_queries)
    assert 0 < len(missing) < len(worker_queries)
    assert not leftovers(cache) and not list(store.folder.glob("*.corrupt"))
    seen["signum"] = None
    assert_same_table(
        run.score_queries(
            lm,
            worker_queries,
            cache_dir=cache,
            chunk_statements=score_worker.CHUNK_STATEMENTS,
            progress=False,
        ),
        reference,
    )


def test_sigterm_during_calib_score_exits_143_with_the_resume_message(
    signal_in_second_chunk, cache, monkeypatch, capsys
):
    """The command's side (in this process): exit status 128 + SIGTERM, and the lines that say
    where the scores are and how to resume."""
    from calib.cli import main

    lm, seen = signal_in_second_chunk
    seen["signum"] = signal.SIGTERM
    monkeypatch.setattr(run, "load_model", lambda *a, **k: lm)
    monkeypatch.setattr(run, "CPU_CHUNK_STATEMENTS", score_worker.CHUNK_STATEMENTS)
    guarded = []
    previous = signal.signal(signal.SIGTERM, lambda s, f: guarded.append(s))
    try:
        code = main(
            [
                "score",
                "--model",
                score_worker.MODEL,
                "--relations",
                ",".join(score_worker.RELATIONS),
                "--per-relation",
                str(score_worker.PER_RELATION),
                "--templates",
                score_worker.TEMPLATES,
                "--cache-dir",
                str(cache),
                "--device",
                "cpu",
            ]
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    err = capsys.readouterr().err
    assert code == 143 and guarded == [], err
    assert "calib score: interrupted (SIGTERM, exit 143)." in err
    assert "Run the same command again to resume" in err
    assert not leftovers(cache)


def test_a_signal_in_the_first_layer_stops_the_pass_before_the_second(
    tiny_models, cache, worker_queries
):
    """A pass of a real model lasts a second or more on a CPU, so the scorer also checks
    between layers: a signal raised (from a finaliser) as the first block of a pass starts
    stops it before the second block runs."""
    import torch

    from calib.scoring.heads import output_split

    lm = tiny_models[score_worker.MODEL]
    output_split(lm.model)  # its one check of the model runs it: before the hooks count passes
    blocks = next(m for m in lm.model.modules() if isinstance(m, torch.nn.ModuleList))
    assert len(blocks) >= 2
    calls = {"first": 0, "second": 0}

    def first(module, args):
        calls["first"] += 1
        if calls["first"] == 3:  # the third pass
            RaisesInFinaliser(signal.SIGINT)

    def second(module, args):
        calls["second"] += 1

    handles = [
        blocks[0].register_forward_pre_hook(first),
        blocks[1].register_forward_pre_hook(second),
    ]
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(run.ScoringInterrupted):
            run.score_queries(
                lm,
                worker_queries,
                cache_dir=cache,
                chunk_statements=score_worker.CHUNK_STATEMENTS,
                progress=False,
            )
    finally:
        signal.signal(signal.SIGINT, previous)
        for handle in handles:
            handle.remove()
    # these hooks run before the scorer's own (registered later, by the scorer): the signal
    # is recorded as the third pass enters the first block, the scorer's check right after
    # stops the pass, and the second block never runs in it
    assert calls == {"first": 3, "second": 2}
    assert not leftovers(cache)
