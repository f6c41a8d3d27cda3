"""The thread-count promise: a chunk scored with 1 and with 2 intra-op threads (each in its
own process, as a local run and a Ray actor are) gives token log-probabilities equal within
:data:`calib.scoring.schema.ROUNDING_TOLERANCE`, the same predictions and the same derived
estimate tables (confidences within what those differences can move a softmax), and both runs
use one score store: the second reads the first's store without loading a model.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import thread_worker

from calib.scoring.schema import ROUNDING_TOLERANCE

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
UNIT = ["model", "relation", "instance", "template"]


def _run_worker(threads: int, cache: Path, out: Path, stored: Path | None = None) -> dict:
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO), str(HERE)]),
        OMP_NUM_THREADS=str(threads),
        MKL_NUM_THREADS=str(threads),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_VERBOSITY="error",
        HF_HUB_DISABLE_PROGRESS_BARS="1",
    )
    # 600 s only bounds a hang (the work is seconds of tiny-model scoring)
    done = subprocess.run(
        [
            sys.executable,
            str(HERE / "thread_worker.py"),
            str(threads),
            str(cache),
            str(out),
            *([str(stored)] if stored else []),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(Path(f"{out}.json").read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory, tiny_models, _session_cache):
    """The sample scored with 1 thread into one cache and with 2 threads into another; the
    2-thread process also reads the 1-thread cache."""
    from calib.models.tiny import TINY_VERSION

    root = tmp_path_factory.mktemp("threads")
    caches = {}
    for t in (1, 2):
        caches[t] = root / f"cache-{t}"
        for m in thread_worker.MODELS:
            shutil.copytree(
                _session_cache / "models" / f"{m}-{TINY_VERSION}",
                caches[t] / "models" / f"{m}-{TINY_VERSION}",
            )
    one = _run_worker(1, caches[1], root / "one")
    two = _run_worker(2, caches[2], root / "two", stored=caches[1])
    return {
        "info": {1: one, 2: two},
        1: pd.read_parquet(root / "one.parquet"),
        2: pd.read_parquet(root / "two.parquet"),
        "2 read 1": pd.read_parquet(root / "two-stored.parquet"),
    }


def test_the_workers_ran_with_the_thread_counts_asked_for(runs):
    assert runs["info"][1]["threads"] == 1 and runs["info"][2]["threads"] == 2


def test_token_logprobs_agree_within_the_rounding_tolerance(runs):
    one, two = runs[1], runs[2]
    assert len(one) == len(two) > 0
    plain = [c for c in one.columns if c not in ("token_logprobs", "token_roles")]
    pd.testing.assert_frame_equal(one[plain], two[plain])
    assert [list(r) for r in one["token_roles"]] == [list(r) for r in two["token_roles"]]
    for a, b in zip(one["token_logprobs"], two["token_logprobs"]):
        assert len(a) == len(b)
        np.testing.assert_allclose(b, a, rtol=0, atol=ROUNDING_TOLERANCE)


def near_ties(sent: pd.DataFrame, delta: float) -> set:
    """The (model, relation, instance) with a template whose two best options' sentence
    scores lie within ``2 * delta``: there, rounding may pick the other one."""
    top2 = sent.groupby(UNIT)["score"].apply(
        lambda s: np.inf if len(s) < 2 else float(np.diff(np.sort(s.to_numpy())[-2:])[0])
    )
    return {k[:3] for k, gap in top2.items() if gap <= 2 * delta}


def test_predictions_and_derived_tables_are_equal(runs):
    """The estimate table of every estimator (Base, Margin, Average, Consistency, Entropy):
    predictions, correctness, agreement counts equal (away from near-ties, which this sample
    has few of), confidences within what the score differences can move them."""
    from calib.confidence import all_estimates, sentence_scores

    one, two = sentence_scores(runs[1]), sentence_scores(runs[2])
    delta = float(np.abs(one["score"].to_numpy() - two["score"].to_numpy()).max())
    ties = near_ties(one, delta) | near_ties(two, delta)
    est1, est2 = all_estimates(one), all_estimates(two)
    assert est1[["estimator", *UNIT[:3]]].equals(est2[["estimator", *UNIT[:3]]])
    clear = pd.Series([k not in ties for k in zip(*(est1[c] for c in UNIT[:3]))], index=est1.index)
    assert clear.mean() > 0.5, f"{len(ties)} near-ties: the sample says little"
    exact = [c for c in est1.columns if c != "confidence"]
    pd.testing.assert_frame_equal(est1.loc[clear, exact], est2.loc[clear, exact])
    # a softmax probability moves by at most 2 * max|d score|; an entropy-based confidence by
    # at most 2 * (1 + ln n) * max|d score| over n options (first order): bound all by that
    # (Consistency counts agreeing templates: it may jump at a near-tie, excluded here too)
    n = int(runs[1].groupby(UNIT)["option"].size().max())
    bound = 2 * (1 + np.log(n)) * delta
    diff = np.abs(
        est1.loc[clear, "confidence"].to_numpy(float)
        - est2.loc[clear, "confidence"].to_numpy(float)
    )
    assert diff.max() <= bound + 1e-12, (diff.max(), bound)


def test_one_store_serves_both_thread_counts(runs):
    info = runs["info"]
    assert info[1]["stores"] == info[2]["stores"] == info[2]["stored_stores"]
    # read back by the 2-thread process, without a model: the 1-thread run's values exactly
    got, want = runs["2 read 1"], runs[1]
    pd.testing.assert_frame_equal(
        got.drop(columns=["token_logprobs", "token_roles"]),
        want.drop(columns=["token_logprobs", "token_roles"]),
    )
    for a, b in zip(got["token_logprobs"], want["token_logprobs"]):
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes()  # the same stored bytes
