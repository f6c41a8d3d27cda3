"""Scores are those of the scorer before issue 27 (its host side rewritten, its logits taken in
slices): every token log-probability within ``ROUNDING_TOLERANCE``, the same token roles and the
same predicted option, on the tiny models and on a sample of the embedded SmolLM2.

The code before is the main branch's head when issue 27 was taken up
(``benchmarks/host_path.py``'s ``BEFORE_COMMIT``), extracted with ``git archive`` and run in a
subprocess on the same cache; the test is skipped where the checkout has no such commit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import USER_CACHE

from calib.scoring.schema import ROUNDING_TOLERANCE

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from host_path import BEFORE_COMMIT  # noqa: E402

SCRIPT = textwrap.dedent(
    """
    import sys
    from calib.data.bear import load_bear
    from calib.scoring.run import score_queries
    from calib.scoring.statements import bear_queries

    model, per_relation, templates, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    n_relations = int(sys.argv[5])
    bear = load_bear()
    bear = bear.select(sorted(bear.relations)[:n_relations]) if n_relations else bear
    queries = bear_queries(bear.sample(per_relation, 0), templates.split(","))
    table = score_queries(model, queries, device="cpu", progress=False)
    table.to_parquet(out)
    """
)


@pytest.fixture(scope="module")
def before_code(tmp_path_factory):
    root = tmp_path_factory.mktemp("before")
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", BEFORE_COMMIT, "calib"],
            check=True,
            capture_output=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip(f"this checkout has no commit {BEFORE_COMMIT} to compare with")
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


def score_both(
    before_code, cache: Path, model: str, per_relation: int, templates: str, tmp, relations=0
):
    """The score tables of ``model`` from the code before (a subprocess) and from this one,
    each on its own copy of ``cache`` (the models it holds are shared, the scores are not), on
    ``per_relation`` instances of the first ``relations`` relations (0: all) of BEAR."""
    from calib.data.bear import load_bear
    from calib.scoring.run import score_queries
    from calib.scoring.statements import bear_queries

    out = tmp / "before.parquet"
    env = {**os.environ, "PYTHONPATH": str(before_code), "CALIB_CACHE_DIR": str(tmp / "b")}
    _copy_models(cache, tmp / "b")
    _copy_models(cache, tmp / "a")
    subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            model,
            str(per_relation),
            templates,
            str(out),
            str(relations),
        ],
        env=env,
        cwd=before_code,
        check=True,
        capture_output=True,
    )
    bear = load_bear()
    bear = bear.select(sorted(bear.relations)[:relations]) if relations else bear
    queries = bear_queries(bear.sample(per_relation, 0), templates.split(","))
    ours = score_queries(model, queries, device="cpu", progress=False, cache_dir=tmp / "a")
    return pd.read_parquet(out), ours


def _copy_models(cache: Path, to: Path) -> None:
    if (cache / "models").is_dir():  # hard links: converted models are not written again
        shutil.copytree(cache / "models", to / "models", copy_function=os.link, dirs_exist_ok=True)


def assert_equal_scores(before: pd.DataFrame, ours: pd.DataFrame) -> dict:
    keys = ["relation", "instance", "template", "option"]
    assert len(before) == len(ours)
    a = before.sort_values(keys).reset_index(drop=True)
    b = ours.sort_values(keys).reset_index(drop=True)
    pd.testing.assert_frame_equal(
        a[[*keys, "answer", "answer_idx"]], b[[*keys, "answer", "answer_idx"]]
    )
    worst = 0.0
    for x, y, rx, ry in zip(
        a["token_logprobs"], b["token_logprobs"], a["token_roles"], b["token_roles"]
    ):
        assert len(x) == len(y) and list(rx) == list(ry)
        worst = max(worst, float(np.abs(np.asarray(x) - np.asarray(y)).max()))
    assert worst <= ROUNDING_TOLERANCE, worst
    sums = [t.apply(lambda v: float(np.sum(v))) for t in (a["token_logprobs"], b["token_logprobs"])]
    pred = [
        t.assign(s=s).groupby(["relation", "instance", "template"])["s"].idxmax()
        for t, s in zip((a, b), sums)
    ]
    same = float(
        np.mean(a.loc[pred[0], "option"].to_numpy() == b.loc[pred[1], "option"].to_numpy())
    )
    return {"max_abs_diff": worst, "same_prediction": same, "rows": len(a)}


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"])
def test_tiny_models_score_as_before(name, before_code, tiny_models, _session_cache, tmp_path):
    """One instance of each of 12 relations under two templates (the masked models' passes
    cost a copy per token, so not all 60 relations)."""
    before, ours = score_both(
        before_code, _session_cache, name, 1, "paraphrase-0,certainly", tmp_path, relations=12
    )
    got = assert_equal_scores(before, ours)
    assert got["same_prediction"] == 1.0, got
    print(json.dumps(got))


@pytest.mark.slow
def test_smollm2_scores_as_before(before_code, tmp_path):
    """The embedded SmolLM2 (float32 on the CPU), one instance per relation, one template."""
    if not (USER_CACHE / "models" / "smollm2-135m-instruct-v1" / "calib-source.json").exists():
        pytest.skip("the converted SmolLM2 is not in the cache (make book converts it)")
    before, ours = score_both(
        before_code, USER_CACHE, "smollm2-135m-instruct", 1, "paraphrase-0", tmp_path
    )
    got = assert_equal_scores(before, ours)
    assert got["same_prediction"] == 1.0, got
    print(json.dumps(got))
