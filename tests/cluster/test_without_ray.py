"""The Ray option without a cluster: the flag, the error without Ray, a local run that never
imports Ray, and the work units (the chunks a local run writes). Run with or without Ray."""

from __future__ import annotations

import argparse
import json
import sys

import pyarrow.parquet as pq
import pytest

from calib.cli import build_parser, main
from calib.scoring import cluster
from calib.scoring.run import score_bear, score_store

SAMPLE = dict(per_relation=2, seed=0, relations=["P30", "P105"], progress=False)


@pytest.fixture
def no_ray(monkeypatch):
    """Importing ``ray`` fails (as where it is not installed); no ``$CALIB_RAY``."""
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delenv(cluster.RAY_ENV, raising=False)


@pytest.mark.parametrize(
    "argv, want", [([], None), (["--ray"], "auto"), (["--ray", "10.0.0.1:6379"], "10.0.0.1:6379")]
)
def test_the_ray_flag(argv, want):
    parser = build_parser()
    args = parser.parse_args(["score", "--model", "tiny-gpt2", *argv])
    assert args.ray == want
    assert parser.parse_args(["book", "--profile", "paper", *argv]).ray == want
    assert parser.parse_args(["run", "calibration", *argv]).ray == want


def test_without_ray_installed_the_error_says_how_to_install_it(no_ray, tmp_path, capsys):
    with pytest.raises(cluster.ClusterError, match=r"pip install 'calib\[cluster\]'"):
        cluster.connect("auto")
    rc = main(
        [
            "score",
            "--model",
            "tiny-gpt2",
            "--templates",
            "paraphrase-0",
            "--relations",
            "P105",
            "--per-relation",
            "1",
            "--device",
            "cpu",
            "--cache-dir",
            str(tmp_path),
            "--ray",
        ]
    )
    assert rc == 2
    assert "pip install 'calib[cluster]'" in capsys.readouterr().err
    from calib.book.commands import cli_book

    rc = cli_book(argparse.Namespace(profile="quick", ray="auto", root=None))
    assert rc == 2
    assert "calib book: " in capsys.readouterr().err


def test_a_local_run_never_imports_ray_and_writes_the_work_units(no_ray, tmp_path):
    """Without ``--ray`` nothing imports Ray (importing it would fail here), and the chunks the
    local run writes are :func:`calib.scoring.cluster.work_units` of its queries, the units a
    cluster run hands to its actors (so both score the same batches)."""
    from calib.data.bear import load_bear, template_names
    from calib.scoring.statements import bear_queries

    score_bear(
        "tiny-gpt2",
        "paraphrase-0..1",
        cache_dir=tmp_path,
        device="cpu",
        chunk_statements=12,
        **SAMPLE,
    )
    bear = load_bear(relations=SAMPLE["relations"]).sample(2, 0)
    queries = bear_queries(bear, template_names("paraphrase-0..1"))
    want = sorted(
        sorted((q.relation, q.template, q.instance) for q in unit)
        for unit in cluster.work_units(queries, 12)
    )
    store = score_store("tiny-gpt2", "bear", cache_dir=tmp_path)
    chunks = sorted(
        sorted(tuple(u[:3]) for u in json.loads(pq.read_schema(p).metadata[b"calib"])["units"])
        for p in store.chunks()
    )
    assert len(want) > 2
    assert chunks == want


def test_work_units_cut_like_a_claim():
    class Q:
        def __init__(self, n):
            self.statements = [None] * n

    units = cluster.work_units([Q(5), Q(5), Q(30), Q(1), Q(6)], 10)
    assert [[len(q.statements) for q in u] for u in units] == [[5, 5], [30], [1, 6]]
    assert cluster.work_units([], 10) == []


def test_work_units_give_every_worker_several():
    """One model's 200 statements on 8 workers: units of about 200 / (4 * 8) statements
    (whole queries), not one 500,000-statement chunk that one worker scores alone."""

    class Q:
        def __init__(self, n):
            self.statements = [None] * n

    units = cluster.work_units([Q(5)] * 40, 500_000, workers=8)
    assert [sum(len(q.statements) for q in u) for u in units] == [10] * 20
    assert len(cluster.work_units([Q(5)] * 40, 500_000)) == 1  # a local run's one chunk
