"""The host's work beside the device's: while a chunk is scored, the next one is tokenised
(in a thread) and the one before is written (in another), so that a run takes about the
longer of host and device time, not their sum (``benchmarks/host_path.py --device-ms``)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import calib.scoring.chunks as chunks
from calib.scoring.run import score_queries
from calib.scoring.schema import ROUNDING_TOLERANCE

#: a guard against a hang only (never reached when the work overlaps): no timing is tested
GUARD_S = 60


@pytest.mark.parametrize("what", ["tokenised ahead", "written behind"])
def test_the_host_works_while_a_chunk_is_scored(
    what, tiny_models, small_bear, tmp_path, monkeypatch
):
    """Scoring chunk 1 waits until chunk 2's tokenising has begun (in its thread); writing
    chunk 1 waits until chunk 2's scoring has begun. Done one after another, as before, the
    waits would not end. The table equals a run without the waits."""
    from calib.scoring.statements import bear_queries

    queries = bear_queries(small_bear, ["paraphrase-0"])
    want = score_queries("tiny-gpt2", queries, cache_dir=tmp_path / "plain", progress=False)
    calls = {"encode": 0, "score": 0}
    encoding_2, scoring_2 = threading.Event(), threading.Event()
    waited: list[bool] = []
    real_encode, real_score, real_write = (
        chunks.encode_batch,
        chunks.score_chunk,
        chunks.write_and_convert,
    )

    def encode(*args, **kwargs):
        calls["encode"] += 1
        if calls["encode"] == 2:
            encoding_2.set()
        return real_encode(*args, **kwargs)

    def score(*args, **kwargs):
        calls["score"] += 1
        if calls["score"] == 1 and what == "tokenised ahead":
            waited.append(encoding_2.wait(GUARD_S))
        if calls["score"] == 2:
            scoring_2.set()
        return real_score(*args, **kwargs)

    def write(*args, **kwargs):
        if what == "written behind" and not scoring_2.is_set():
            waited.append(scoring_2.wait(GUARD_S))
        return real_write(*args, **kwargs)

    monkeypatch.setattr(chunks, "encode_batch", encode)
    monkeypatch.setattr(chunks, "score_chunk", score)
    monkeypatch.setattr(chunks, "write_and_convert", write)
    got = score_queries(
        "tiny-gpt2", queries, cache_dir=tmp_path / "ahead", chunk_statements=60, progress=False
    )
    assert calls["score"] >= 3 and waited == [True]
    assert len(got) == len(want)
    for a, b in zip(got["token_logprobs"], want["token_logprobs"]):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=ROUNDING_TOLERANCE, rtol=0)
