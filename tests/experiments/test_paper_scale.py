"""``benchmarks/paper_scale.py`` at a tiny size: it builds synthetic score tables of BEAR's real
structure, runs chapters' analyses each in a fresh process and writes the figures (its timings
belong on a quiet machine, not here)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "paper_scale.py"


def _module():
    spec = importlib.util.spec_from_file_location("_paper_scale", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_synthetic_tables_have_the_store_schema_and_bear_structure():
    from calib.confidence.reductions import sentence_scores
    from calib.data.bear import PARAPHRASES, load_bear
    from calib.scoring.schema import SCORE_COLUMNS
    from calib.scoring.statements import bear_queries

    ps = _module()
    bear = load_bear(relations=["P36", "P19"]).sample(2, 0)
    queries = bear_queries(bear, PARAPHRASES[:2])
    table = ps.score_table(queries, ["a", "b"], seed=0)
    assert list(table.columns) == list(SCORE_COLUMNS)
    options = sum(len(q.answers) for q in queries)
    assert len(table) == 2 * options
    rel = bear.relations["P19"]
    part = table[(table["model"] == "a") & (table["relation"] == "P19")]
    assert part["answer"].iloc[: len(rel.answer_labels)].tolist() == list(rel.answer_labels)
    got = part.groupby("instance")["answer_idx"].first().sort_index()
    want = bear.instances.set_index("instance").loc[got.index, "answer_idx"]
    assert (got.to_numpy() == want.to_numpy()).all()
    sent = sentence_scores(table)  # Arrow lists read as the store's: finite, negative
    assert np.isfinite(sent["score"]).all() and (sent["score"] < 0).all()
    as_objects = ps.score_table(queries, ["a", "b"], seed=0, arrow=False)
    assert np.allclose(sentence_scores(as_objects)["score"], sent["score"])
    # the correct option wins more often than chance
    top = sent.loc[sent.groupby(["model", "relation", "instance", "template"])["score"].idxmax()]
    assert (top["option"] == top["answer_idx"]).mean() > 1.5 / len(rel.answer_labels)


def test_the_paper_scale_benchmark_runs_at_a_tiny_size(tmp_path):
    out = tmp_path / "paper_scale.json"
    cmd = [
        sys.executable,
        str(SCRIPT),
        "--chapters",
        "calibration",
        "reductions",
        "--models",
        "2",
        "--relations",
        "P36",
        "P19",
        "P30",
        "--per-relation",
        "2",
        "--n-bootstrap",
        "10",
        "--floor-draws",
        "10",
        "--out",
        str(out),
    ]
    subprocess.run(cmd, check=True, capture_output=True, cwd=REPO)
    doc = json.loads(out.read_text())
    assert doc["command"].startswith("python benchmarks/paper_scale.py --chapters calibration")
    rows = {r["chapter"]: r for r in doc["chapters"]}
    assert set(rows) == {"calibration", "reductions"}
    for r in rows.values():
        assert r["models"] == 2 and r["facts"] == 6
        assert {"wall_s", "cpu_s", "peak_rss_gib"} <= set(r) and r["peak_rss_gib"] > 0
    assert rows["calibration"]["workers"] == 1  # a tiny table stays in one process
    projected = {r["chapter"]: r for r in doc["projection"]}
    assert set(projected) == set(rows)
    assert projected["calibration"]["wall_s 16 cores"] > 0
    assert "| calibration | 2 | 6 |" in out.with_suffix(".md").read_text()
