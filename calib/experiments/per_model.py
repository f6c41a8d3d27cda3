"""Independent work per model, spread over processes.

A chapter's analysis is, for the most part, the same steps on each model's rows: every
bootstrap of one model draws its resamples from the chapter's ``seed`` alone (the models share
nothing), so the steps can run on each model's part of the score table in another process and
give what one process gives on the whole table, to the bit. :func:`map_models` runs a function
on each model's part: in the calling process (one worker), in a local pool of ``workers``
processes (the default where the table is large enough for a pool to pay: see
:func:`worker_count`), or as tasks on a Ray cluster where one is asked for (``ray``, else
``$CALIB_RAY``, as ``calib book --ray`` sets it; :mod:`calib.scoring.cluster` connects).

The parts are made one at a time as workers free up (slices of the table where a model's rows
are one run, as the store gives them), so that at most ``workers`` models' rows are in flight
beside the table; the results come back in the order of the models.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

import numpy as np
import pandas as pd

#: the environment variable that sets the default number of worker processes
WORKERS_ENV = "CALIB_WORKERS"
#: below this many score rows a pool's start-up (a fresh interpreter importing calib: seconds)
#: costs more than it saves, and the analysis stays in the calling process by default
MIN_ROWS_FOR_POOL = 200_000


def worker_count(n_models: int, rows: int, workers: int | None = None) -> int:
    """The processes :func:`map_models` uses: ``workers`` (else ``$CALIB_WORKERS``, else one
    per CPU where the table has at least :data:`MIN_ROWS_FOR_POOL` rows, else 1), at most one
    per model.

    Parameters
    ----------
    n_models : int
        The models (independent tasks).
    rows : int
        Rows of the score table.
    workers : int or None
        Asked-for processes (1: in the calling process).

    Returns
    -------
    int
        At least 1.
    """
    if workers is None and os.environ.get(WORKERS_ENV):
        try:
            workers = int(os.environ[WORKERS_ENV])
        except ValueError:
            raise ValueError(
                f"${WORKERS_ENV} must be a whole number of processes, got "
                f"{os.environ[WORKERS_ENV]!r}"
            ) from None
    if workers is None:
        workers = (os.cpu_count() or 1) if rows >= MIN_ROWS_FOR_POOL else 1
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    return max(1, min(workers, n_models))


def model_rows(scores: pd.DataFrame, column: str = "model") -> dict[Any, Any]:
    """Row positions of each model of ``scores`` (in first-seen order)."""
    return dict(scores.groupby(column, sort=False).indices)


def model_part(scores: pd.DataFrame, positions) -> pd.DataFrame:
    """The rows of ``scores`` at the ascending ``positions`` (one model's), indexed from 0: a
    slice of the table where they are one run (as the store gives each model's rows, one model
    after another: no copy of the columns until the part is sent to a worker), else a copy."""
    positions = np.asarray(positions)
    if len(positions) and positions[-1] - positions[0] + 1 == len(positions):
        return scores.iloc[int(positions[0]) : int(positions[-1]) + 1].reset_index(drop=True)
    return scores.take(positions).reset_index(drop=True)


def map_models(
    fn: Callable[..., Any],
    scores: pd.DataFrame | Sequence[pd.DataFrame],
    workers: int | None = None,
    ray: str | None = None,
    column: str = "model",
) -> list:
    """``[fn(part) for part in each model's rows of scores]``, in the order in which the
    models first appear, spread over processes; with several tables,
    ``fn(part_1, part_2, ...)``, each part the model's rows of one table (none: its first 0
    rows), the models in the order they first appear in the first table, then the others.

    Parameters
    ----------
    fn : callable
        A picklable function of one model's rows (a module-level function, or a
        ``functools.partial`` of one): it must not depend on the other models.
    scores : pandas.DataFrame or sequence of pandas.DataFrame
        A table with a ``column`` (default ``model``), or several.
    workers : int or None
        Processes (:func:`worker_count`); 1 runs in the calling process.
    ray : str or None
        A Ray cluster's address (``"auto"``, ``"ray://..."``, ``"local"``); by default
        ``$CALIB_RAY`` (:func:`calib.scoring.cluster.ray_address`), None there: no Ray.
    column : str
        The column that names the model.

    Returns
    -------
    list
        ``fn``'s results, one per model.
    """
    if not isinstance(scores, pd.DataFrame):
        return _map_tables(fn, list(scores), workers, ray, column)
    rows = model_rows(scores, column)
    parts = (model_part(scores, rows[m]) for m in rows)
    return map_models_parts(fn, parts, len(rows), len(scores), workers, ray)


def _map_tables(fn, tables: list[pd.DataFrame], workers, ray, column) -> list:
    """:func:`map_models` over several tables: each model's rows of every table, as one
    tuple, to ``fn(*parts)``."""
    from functools import partial

    rows = [model_rows(t, column) for t in tables]
    models = list(dict.fromkeys(m for r in rows for m in r))

    def part(t, r, m):
        return model_part(t, r[m]) if m in r else t.iloc[:0]

    parts = (tuple(part(t, r, m) for t, r in zip(tables, rows)) for m in models)
    return map_models_parts(
        partial(_star, fn), parts, len(models), sum(map(len, tables)), workers, ray
    )


def map_models_parts(fn, parts, n_models: int, rows: int, workers=None, ray=None) -> list:
    """``[fn(p) for p in parts]`` (one part per model, made lazily), in the calling process,
    a local pool or on Ray as :func:`map_models` decides for ``n_models`` and ``rows``."""
    from calib.scoring.cluster import ray_address

    address = ray_address(ray)
    if address is not None and n_models > 1:
        return _on_ray(fn, parts, address)
    n = worker_count(n_models, rows, workers)
    if n == 1:
        return [fn(p) for p in parts]
    return _on_pool(fn, parts, n_models, n)


def _star(fn, parts):
    return fn(*parts)


def _on_pool(fn, parts, n_tasks: int, n_workers: int) -> list:
    """``fn`` on each part in a pool of ``n_workers`` fresh processes (spawned: no state of
    this process, such as Arrow's thread pools, is forked), at most ``n_workers`` parts in
    flight. An error or Ctrl-C stops the workers at once."""
    out: list = [None] * n_tasks
    pool = ProcessPoolExecutor(n_workers, mp_context=multiprocessing.get_context("spawn"))
    running: dict[Future, int] = {}
    try:
        for i, part in enumerate(parts):
            if len(running) >= n_workers:
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for f in done:
                    out[running.pop(f)] = f.result()
            running[pool.submit(fn, part)] = i
            del part
        for f in list(running):
            out[running.pop(f)] = f.result()
    except BaseException:
        for f in running:
            f.cancel()
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return out


def _on_ray(fn, parts, address: str) -> list:
    """``fn`` on each part as a Ray task on the cluster at ``address``."""
    from calib.scoring.cluster import connect

    ray = connect(address)
    task = ray.remote(_call)
    refs = [task.remote(fn, ray.put(part)) for part in parts]
    try:
        return list(ray.get(refs))
    except BaseException:
        for ref in refs:
            ray.cancel(ref, force=True)
        raise


def _call(fn, part):
    return fn(part)


def concat_parts(parts: Sequence[dict], key: str) -> pd.DataFrame:
    """The frames under ``key`` of each model's results, one after the other."""
    frames = [p[key] for p in parts if p[key] is not None and len(p[key].columns)]
    if not frames:
        return parts[0][key]
    return pd.concat(frames, ignore_index=True)


def by_first_seen(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame`` sorted, stably, by the first-seen order of ``column``'s values: the models'
    frames put one after the other, in the order of a step that puts ``column`` first (a
    metric, then the models)."""
    if not len(frame):
        return frame
    rank = {v: i for i, v in enumerate(frame[column].unique())}
    order = frame[column].map(rank).to_numpy()
    return frame.iloc[order.argsort(kind="stable")].reset_index(drop=True)


def in_first_seen_order(frame: pd.DataFrame, source: pd.DataFrame, columns) -> pd.DataFrame:
    """``frame`` sorted, stably, by the order in which its ``columns`` values (e.g. model and
    dataset) first appear in ``source``: the models' frames put one after the other, in the
    order of a step that groups ``source`` by ``columns`` unsorted (``groupby(sort=False)``)."""
    if not len(frame):
        return frame.reset_index(drop=True)
    columns = list(columns)
    seen = pd.MultiIndex.from_frame(source[columns].drop_duplicates())
    rank = seen.get_indexer(pd.MultiIndex.from_frame(frame[columns]))
    if (rank < 0).any():
        raise ValueError(f"a row of the frame has {columns} values the source does not have")
    return frame.iloc[rank.argsort(kind="stable")].reset_index(drop=True)


def by_sorted(frame: pd.DataFrame, column: str = "model") -> pd.DataFrame:
    """``frame`` sorted, stably, by ``column``: the models' frames put one after the other, in
    the order of a step that groups by ``column`` first, sorted (``groupby(sort=True)``)."""
    return frame.sort_values(column, kind="stable").reset_index(drop=True)
