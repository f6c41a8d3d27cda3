"""Fixtures of the fault-injection tests: a cache with the tiny model already built and the
reference score table (helpers live in ``fault_helpers.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
import score_worker


@pytest.fixture
def cache(tmp_path, tiny_models, _session_cache) -> Path:
    """An empty score cache holding the worker's tiny model (so workers do not build it)."""
    from calib.models.tiny import TINY_VERSION

    folder = f"{score_worker.MODEL}-{TINY_VERSION}"
    cache = tmp_path / "cache"
    shutil.copytree(_session_cache / "models" / folder, cache / "models" / folder)
    return cache


@pytest.fixture(scope="session")
def worker_queries():
    return score_worker.queries()


@pytest.fixture(scope="session")
def reference(tiny_models, worker_queries, tmp_path_factory) -> pd.DataFrame:
    """The worker's table scored in one go, in this process."""
    from calib.scoring.run import score_queries

    return score_queries(
        score_worker.MODEL,
        worker_queries,
        cache_dir=tmp_path_factory.mktemp("reference"),
        chunk_statements=score_worker.CHUNK_STATEMENTS,
        progress=False,
    )


@pytest.fixture
def no_model(monkeypatch):
    """Building, converting or loading a model fails the test (bad input is refused first)."""
    import calib.models.loading as loading
    import calib.models.tiny as tiny
    import calib.scoring.run as run

    def refuse(*args, **kwargs):
        raise AssertionError("a model was built or loaded for a bad input")

    for module, name in (
        (run, "load_model"),
        (loading, "load_model"),
        (loading, "convert"),
        (tiny, "build_tiny"),
    ):
        monkeypatch.setattr(module, name, refuse)
