"""``benchmarks/paper_scale.py`` at a tiny size: it builds synthetic score tables of BEAR's real
structure, runs chapters' analyses each in a fresh process and writes the figures (its timings
belong on a quiet machine, not here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from module_from_file import module_from_file

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "benchmarks" / "paper_scale.py"


def _module():
    return module_from_file(SCRIPT, "_paper_scale")


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


def test_lpaqa_scores_are_built_one_model_at_a_time_and_compact():
    """The LPAQA benchmark's queries are those of the chapter's lama_queries, and each model's
    sentence scores a compact table of its own (no table of several models)."""
    import pandas as pd

    from calib.data.lama import MANUAL
    from calib.experiments.lpaqa import sample, scoring

    ps = _module()
    lama = sample.load_sample(["P30", "P1303"], None, 2, 3, seed=0).sample
    prompts = pd.DataFrame(
        [
            {"relation": r, "template": t, "text": "[X] in [Y] .", "source": s}
            for r in lama.relations
            for t, s in ((MANUAL, "manual"), ("mined-00", "mined"), ("lpaqa-mine-00", "lpaqa-mine"))
        ]
    )
    keys = ps.lpaqa_query_keys(lama, prompts)
    queries = scoring.lama_queries(lama, prompts)
    want = [
        (q.dataset, q.relation, q.instance, q.template, q.answer_idx, len(q.answers))
        for q in queries
    ]
    assert list(keys.itertuples(index=False, name=None)) == want
    table = ps.lpaqa_sentences(keys, "m", seed=0)
    assert scoring.compact(table) is table and table["model"].unique().tolist() == ["m"]
    assert len(table) == keys["n_options"].sum() and (table["score"] < 0).all()
    top = table.loc[
        table.groupby(["dataset", "relation", "instance", "template"])["score"].idxmax()
    ]
    assert (top["option"] == top["answer_idx"]).mean() > 2 / keys["n_options"].min()


def test_the_lpaqa_benchmark_reads_each_model_in_a_worker(tmp_path):
    out = tmp_path / "lpaqa.json"
    cmd = [
        sys.executable,
        str(SCRIPT),
        "--chapters",
        "lpaqa",
        "--models",
        "2",
        "--lama-relations",
        "P30",
        "--train-per-relation",
        "3",
        "--test-per-relation",
        "4",
        "--top-t",
        "2",
        "--n-bootstrap",
        "10",
        "--workers",
        "2",
        "--out",
        str(out),
    ]
    subprocess.run(cmd, check=True, capture_output=True, cwd=REPO)
    (row,) = json.loads(out.read_text())["chapters"]
    assert row["models"] == 2 and row["facts"] == 7 and row["workers"] == 2
    assert row["peak_worker_gib"] > 0 and row["cpu_workers_s"] > 0


def test_combine_writes_the_rows_of_several_runs_with_each_runs_command(tmp_path):
    """``--combine`` measures nothing: one document of the runs' rows, each run's command, time
    and chapters beside them, the projection of all rows (and its Markdown); a chapter in two
    files is refused."""

    def row(chapter, models):
        return {
            "chapter": chapter,
            "models": models,
            "facts": 7731,
            "paper_facts": 7731,
            "score_rows": 1000,
            "workers": 2,
            "wall_s": 100.0,
            "cpu_s": 190.0,
            "cpu_main_s": 10.0,
            "cpu_workers_s": 180.0,
            "peak_rss_gib": 3.0,
            "peak_main_gib": 2.0,
            "peak_worker_gib": 0.5,
            "table_gib": 1.0,
            "rss_before_gib": 1.2,
            "build_s": 1.0,
        }

    machine = {"cpus": 2, "platform": "x", "load": [2.0, 2.0, 2.0]}
    files = []
    for i, chapters in enumerate((["calibration"], ["factor", "answer_set"])):
        doc = {
            "command": f"python benchmarks/paper_scale.py --chapters {' '.join(chapters)}",
            "machine": machine,
            "when": f"2026-12-02T16:0{i}:00Z",
            "chapters": [row(c, 29) for c in chapters],
        }
        files.append(tmp_path / f"run{i}.json")
        files[-1].write_text(json.dumps(doc))
    out = tmp_path / "all.json"
    script = str(REPO / "benchmarks" / "paper_scale.py")
    args = [sys.executable, script, "--combine", *map(str, files), "--out", str(out)]
    subprocess.run(args, check=True, capture_output=True, cwd=REPO)
    doc = json.loads(out.read_text())
    assert [r["chapter"] for r in doc["chapters"]] == ["calibration", "factor", "answer_set"]
    assert [r["chapters"] for r in doc["runs"]] == [["calibration"], ["factor", "answer_set"]]
    assert doc["runs"][1]["command"].endswith("--chapters factor answer_set")
    assert {r["chapter"] for r in doc["projection"]} == {"calibration", "factor", "answer_set"}
    # a pooled chapter on 2 cores: the driver's CPU plus ceil(29 / 2) models' worker CPU
    calibration = next(r for r in doc["projection"] if r["chapter"] == "calibration")
    assert calibration["wall_s 2 cores"] == pytest.approx(10.0 + 15 * 180.0 / 29, abs=0.1)
    text = out.with_suffix(".md").read_text()
    assert "- factor, answer_set: `python benchmarks/paper_scale.py --chapters factor" in text
    twice = subprocess.run(
        [*args[:3], str(files[0]), str(files[0]), "--out", str(tmp_path / "x.json")],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert (
        twice.returncode != 0 and "['calibration'] measured in more than one file" in twice.stderr
    )
