"""Scoring on a Ray cluster (``calib score --ray``, ``calib book --ray``; the optional extra
``pip install calib[cluster]``).

:func:`calib.scoring.run.score_queries` hands the units it finds missing from the score store to
:func:`score_on_ray` when Ray is asked for (its ``ray`` argument, or ``$CALIB_RAY``). The missing
queries of one model are cut into *work units*: consecutive queries, in the order a local run
scores them (relation by relation, template by template), of about ``chunk_statements``
statements each, and small enough that every actor gets several (:func:`work_units`: N GPUs
share one model's work) -- the chunks a local run would write, cut smaller where the cluster
has many workers; the table is the local run's within float32 rounding
(:data:`calib.scoring.schema.ROUNDING_TOLERANCE`: an actor's thread count is
``$CALIB_RAY_CPUS_PER_WORKER``, a local run's torch's default). A pool of
Ray actors (one per GPU of the cluster; without GPUs one per ``$CALIB_RAY_CPUS_PER_WORKER``
CPUs, at most ``$CALIB_RAY_WORKERS``) each loads the model once, on its first unit, and takes
units from the driver's queue; a unit is claimed, scored and written to the store atomically by
the actor (:func:`calib.scoring.chunks.score_missing`, the local code path), so the store must be
on a file system all nodes share (``CALIB_CACHE_DIR``). The driver only reads the store back.

A unit whose scoring raises (a CUDA error, say) is tried once more, on another actor where
there is one; a second failure ends the call with the unit's error in the message.

Faults: an actor whose process (or node) dies is restarted by Ray and its unfinished unit is
retried (``max_restarts``, ``max_task_retries``); an actor that cannot be restarted is dropped
and its unit goes back to the queue for the others. A unit a dead actor had claimed is found
stale by the next claim (:class:`calib.scoring.cache.Claims`: the OS released its lock), its
partial file is removed and it is scored again; a unit whose chunk was written before the
actor died is found stored and not scored again. So no unit is missing or stored twice.

Ray is imported only here, and only when asked for.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import logging
import os
import select
import socket
import sys
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

#: names a Ray cluster to score on (``auto``: join the running local cluster or start one);
#: set by ``calib score --ray`` / ``calib book --ray``, read by ``score_queries``
RAY_ENV = "CALIB_RAY"
#: at most this many scoring actors (default: one per GPU, else one per CPU worker)
WORKERS_ENV = "CALIB_RAY_WORKERS"
#: CPUs (torch threads) of each actor on a cluster without GPUs (default 1)
CPUS_ENV = "CALIB_RAY_CPUS_PER_WORKER"
#: how often Ray restarts a dead actor and retries its unit before the unit goes elsewhere
MAX_RESTARTS = 3
#: the driver checks for Ctrl-C this often (seconds) while it waits for the actors
_POLL_S = 0.5
_LOCAL = ("", "auto", "local")


class ClusterError(RuntimeError):
    """Ray is missing, or the cluster cannot score (no worker left)."""


def ray_address(value: str | None = None) -> str | None:
    """The cluster asked for: ``value`` (``--ray``), else ``$CALIB_RAY``; None: no Ray."""
    if value is None:
        value = os.environ.get(RAY_ENV)
    return None if value is None else value.strip()


def import_ray():
    """The ``ray`` module, or :class:`ClusterError` saying how to install it."""
    # imported in a chapter's kernel, Ray would note on the page that ipywidgets is missing
    logging.getLogger("ray.widgets.util").setLevel(logging.WARNING)
    try:
        import ray
    except ImportError as exc:
        raise ClusterError(
            "scoring on a Ray cluster (--ray, $CALIB_RAY) needs Ray: pip install 'calib[cluster]'"
        ) from exc
    return ray


#: how long (seconds) :func:`connect` waits for a cluster at an address to answer (default 5)
CONNECT_ENV = "CALIB_RAY_CONNECT_S"
#: what an HTTP/2 client sends first (a gRPC server, as Ray's are, answers with its SETTINGS)
_HTTP2_GREETING = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def cluster_problem(address: str, timeout: float | None = None) -> str | None:
    """Why no Ray cluster answers at ``address`` (``HOST:PORT`` or ``ray://HOST:PORT``), in one
    line naming it and what to check, or ``None`` when a gRPC server answers there, as a Ray
    head node's (GCS, or Ray Client) does: a TCP connection, then the HTTP/2 greeting every
    gRPC server returns. Waits at most ``timeout`` seconds (default ``$CALIB_RAY_CONNECT_S``,
    else 5), checking for Ctrl-C (:func:`calib.interrupt.check_interrupted`) every 0.1 s:
    ``ray.init`` waits minutes for an address where no cluster is, deaf to Ctrl-C."""
    from calib.interrupt import check_interrupted

    timeout = float(os.environ.get(CONNECT_ENV) or 5) if timeout is None else timeout
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    if not port.isdigit():
        return (
            f"--ray {address!r}: expected HOST:PORT (the head node's, e.g. 10.0.0.1:6379, or "
            f"ray://10.0.0.1:10001), or auto"
        )
    check = (
        f"check that a cluster runs there (`ray status` on its head node), that {address} "
        f"is its head node's address (port 6379 by default; ray://HOST:10001 for Ray Client) "
        f"and that no firewall blocks the port"
    )
    deadline = time.monotonic() + timeout

    def wait(readable: bool) -> bool:
        while True:
            check_interrupted()
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            r, w, _ = select.select(
                [sock] if readable else [], [] if readable else [sock], [], min(0.1, left)
            )
            if r or w:
                return True

    try:
        family, kind, proto, _, where = socket.getaddrinfo(
            host.strip("[]") or "127.0.0.1", int(port), type=socket.SOCK_STREAM
        )[0]
    except (OSError, UnicodeError) as exc:
        return f"no Ray cluster at {address}: its host is not known here ({exc}); {check}"
    with socket.socket(family, kind, proto) as sock:
        sock.setblocking(False)
        code = sock.connect_ex(where)
        if code not in (0, errno.EINPROGRESS):
            return f"no Ray cluster answers at {address} ({os.strerror(code)}); {check}"
        if not wait(readable=False):
            return f"no Ray cluster answers at {address} (no connection in {timeout:g} s); {check}"
        code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code:
            return f"no Ray cluster answers at {address} ({os.strerror(code)}); {check}"
        answer = b""
        with contextlib.suppress(OSError):
            sock.sendall(_HTTP2_GREETING)
            while len(answer) < 9 and wait(readable=True):
                chunk = sock.recv(64)
                if not chunk:
                    break
                answer += chunk
    if len(answer) < 9 or answer[3] != 4:  # an HTTP/2 frame header, of type SETTINGS
        return (
            f"no Ray cluster answers at {address}: something listens there but did not answer "
            f"as a Ray cluster does within {timeout:g} s; {check}"
        )
    return None


def connect(address: str | None):
    """Connect this process to the cluster at ``address`` (``auto``/empty: the running local
    cluster -- ``$RAY_ADDRESS`` or ``ray start --head`` -- else a new local one), once. An
    address where no cluster answers is a :class:`ClusterError` within seconds
    (:func:`cluster_problem`)."""
    remote = (address or "").lower() not in _LOCAL
    connected = getattr(sys.modules.get("ray"), "is_initialized", lambda: False)()
    if remote and not connected:
        if importlib.util.find_spec("ray") is None:
            import_ray()  # says how to install it
        problem = cluster_problem(str(address))
        if problem:
            raise ClusterError(problem)
    ray = import_ray()
    if not ray.is_initialized():
        ray.init(
            address=None if (address or "").lower() in _LOCAL else address, logging_level="WARNING"
        )
    return ray


@dataclass
class RayTotals:
    """What the cluster did in this process (summed over calls; :func:`totals`)."""

    units: int = 0  # work units sent to actors (each completed once)
    statements: int = 0
    loads: int = 0  # models loaded by actors (restarts included)
    workers: int = 0  # actors started


_TOTALS = RayTotals()
_POOL: dict = {}


def totals() -> RayTotals:
    """The running totals of this process (a copy)."""
    return RayTotals(**vars(_TOTALS))


#: work units per actor a model's missing queries are cut into at least (so that N GPUs
#: share one model's work, and the last units are short)
UNITS_PER_WORKER = 4


def work_units(queries: Sequence, max_statements: int, workers: int | None = None) -> list[list]:
    """``queries`` cut into consecutive units of about ``max_statements`` statements (the last
    query may pass it): the chunks :meth:`calib.scoring.cache.Claims.claim` forms locally;
    given ``workers``, cut smaller where that gives each of them fewer than
    :data:`UNITS_PER_WORKER` units."""
    if workers:
        total = sum(len(q.statements) for q in queries)
        max_statements = min(max_statements, max(1, -(-total // (UNITS_PER_WORKER * workers))))
    units: list[list] = []
    current: list = []
    size = 0
    for q in queries:
        if current and size >= max_statements:
            units.append(current)
            current, size = [], 0
        current.append(q)
        size += len(q.statements)
    if current:
        units.append(current)
    return units


class Scorer:
    """A Ray actor that loads one model once (on its first unit) and scores units into stores."""

    def __init__(self, name, objective, device, dtype, cache_dir, threads):
        import torch

        if threads:
            torch.set_num_threads(threads)
        self.load_args = dict(
            name=name, objective=objective, device=device, dtype=dtype, cache_dir=cache_dir
        )
        self.lm = None

    def pid(self) -> int:
        return os.getpid()

    def score(self, store, queries, token_budget, start_token) -> dict:
        """Claim, score and write ``queries`` into ``store`` (units stored meanwhile are
        skipped, units another process holds are waited for)."""
        from tqdm import tqdm

        from calib.models.loading import load_model
        from calib.scoring.chunks import count_statements, score_missing

        loads = []

        def get_model():
            if self.lm is None:
                args = dict(self.load_args)  # on a GPU actor, Ray set CUDA_VISIBLE_DEVICES
                self.lm = load_model(args.pop("name"), **args)
                loads.append(1)
            return self.lm

        with tqdm(disable=True) as bar:
            score_missing(
                store,
                list(queries),
                get_model,
                count_statements(queries),
                token_budget,
                bar,
                start_token,
            )
        return {
            "statements": count_statements(queries),
            "loads": len(loads),
            "pid": os.getpid(),
            "host": socket.gethostname(),
        }


def cluster_device(address: str | None, device: str | None) -> str | None:
    """The device the cluster's actors score on: ``"cuda"`` for ``"auto"`` (or ``None``) when
    the cluster has GPUs, else ``"cpu"``; an explicit device as given. The driver keys the
    score store by it, so the store names the dtype the actors use (bfloat16 on GPUs)."""
    if device not in (None, "auto"):
        return device
    return "cuda" if int(connect(address).cluster_resources().get("GPU", 0)) else "cpu"


def _resources(ray) -> tuple[int, dict, int]:
    """How many actors, the resources of each, and their torch threads (0: Ray's default)."""
    cluster = ray.cluster_resources()
    limit = int(os.environ.get(WORKERS_ENV) or 0)
    gpus = int(cluster.get("GPU", 0))
    if gpus:
        n, each, threads = gpus, {"num_cpus": 1, "num_gpus": 1}, 0
    else:
        threads = max(1, int(os.environ.get(CPUS_ENV) or 1))
        n, each = max(1, int(cluster.get("CPU", 1)) // threads), {"num_cpus": threads}
    return (min(n, limit) if limit > 0 else n), each, threads


def _pool(ray, key: tuple) -> list:
    """The actors for ``key`` (model and loading options), kept for later calls of this
    process; the actors of another model are ended first (to free their memory)."""
    if _POOL.get("key") == key:
        return _POOL["actors"]
    for actor in _POOL.get("actors", []):
        ray.kill(actor)
    n, each, threads = _resources(ray)
    remote = ray.remote(Scorer).options(
        max_restarts=MAX_RESTARTS, max_task_retries=MAX_RESTARTS, **each
    )
    actors = [remote.remote(*key, threads) for _ in range(n)]
    _POOL.update(key=key, actors=actors)
    _TOTALS.workers += n
    return actors


def shutdown_pool() -> None:
    """End this process's scoring actors (if any)."""
    if _POOL.get("actors"):
        ray = import_ray()
        for actor in _POOL["actors"]:
            ray.kill(actor)
    _POOL.clear()


@contextlib.contextmanager
def cluster_for_chapters(address: str | None):
    """For ``calib book --ray`` / ``calib run --ray``: connect to the cluster (starting a
    local one if need be) and set ``$CALIB_RAY`` to its address for the chapters' kernels,
    whose ``score_queries`` calls then score their missing units on it; on exit the variable
    is restored and this process disconnects (stopping a cluster it started). ``None``: no
    Ray, nothing changes."""
    if address is None:
        yield None
        return
    started = not import_ray().is_initialized()
    ray = connect(address)
    old = os.environ.get(RAY_ENV)
    os.environ[RAY_ENV] = ray.get_runtime_context().gcs_address
    try:
        yield os.environ[RAY_ENV]
    finally:
        if old is None:
            os.environ.pop(RAY_ENV, None)
        else:
            os.environ[RAY_ENV] = old
        if started:  # else the caller connected and disconnects
            shutdown_pool()
            ray.shutdown()


def _take(units: deque, actor, failed_on: dict, alone: bool):
    """The first ``(number, unit)`` of ``units`` that ``actor`` may score (removed from
    ``units``): any but one that failed on it, unless it is the only actor left; else None."""
    for i, (number, unit) in enumerate(units):
        if alone or failed_on.get(number) is not actor:
            del units[i]
            return number, unit
    return None


def _cause(err) -> str:
    """The message of the error a Ray task raised (its type and text, on one line)."""
    from calib.models.loading import one_line

    cause = getattr(err, "cause", None)
    return f"{type(cause).__name__}: {one_line(cause)}" if cause is not None else one_line(err)


def score_on_ray(
    address: str | None,
    store,
    missing: Sequence,
    *,
    model: str,
    objective: str | None,
    device: str | None,
    dtype: str | None,
    cache_dir,
    chunk_statements: int,
    token_budget: int | None,
    start_token: str,
    bar=None,
):
    """Score the ``missing`` queries of ``model`` into ``store`` on the cluster at ``address``
    (see the module docstring) and return their rows, read back from the store
    (:class:`~calib.scoring.cache.UnitRows`, one per chunk)."""
    from calib.interrupt import check_interrupted
    from calib.settings import cache_root

    ray = connect(address)
    actors = list(_pool(ray, (model, objective, device, dtype, str(cache_root(cache_dir)))))
    units = deque(enumerate(work_units(missing, chunk_statements, len(actors))))
    idle = list(actors)
    running: dict = {}  # ray object ref -> (actor, (unit number, unit))
    failed_on: dict = {}  # unit number -> the actor its first attempt failed on
    while units or running:
        for actor in list(idle):
            job = _take(units, actor, failed_on, alone=len(actors) == 1)
            if job is not None:
                idle.remove(actor)
                running[actor.score.remote(store, job[1], token_budget, start_token)] = (
                    actor,
                    job,
                )
        ready, _ = ray.wait(list(running), num_returns=1, timeout=_POLL_S)
        check_interrupted()  # Ctrl-C: stop waiting (units being scored are written whole)
        if not ready:
            continue
        (ref,) = ready
        actor, (number, unit) = running.pop(ref)
        try:
            done = ray.get(ref)
        except ray.exceptions.RayActorError as err:  # restarted MAX_RESTARTS times: give up
            actors.remove(actor)
            units.appendleft((number, unit))
            if not actors:
                _POOL.clear()
                raise ClusterError(
                    f"every scoring actor of {model} died; the units stored "
                    f"so far are in {store.folder} (run again to resume)"
                ) from err
            continue
        except ray.exceptions.RayTaskError as err:  # the unit's scoring raised
            idle.append(actor)
            if number in failed_on:
                raise ClusterError(
                    f"a unit of {model} ({len(unit)} queries from {unit[0].key}) failed on two "
                    f"workers; the units stored so far are in {store.folder}: "
                    f"{_cause(err)}"
                ) from err
            failed_on[number] = actor
            units.appendleft((number, unit))  # once more, on another actor where there is one
            continue
        idle.append(actor)
        _TOTALS.units += 1
        _TOTALS.statements += done["statements"]
        _TOTALS.loads += done["loads"]
        if bar is not None:
            bar.update(done["statements"])
    if len(actors) < len(_POOL.get("actors", [])):
        _POOL["actors"] = actors
    rows, lost = store.lookup_rows(list(missing))
    if lost:
        raise ClusterError(
            f"{len(lost)} unit(s) scored on the cluster cannot be read from "
            f"{store.folder} (e.g. {lost[0].key}): is that folder on a file "
            f"system the driver and every node share ($CALIB_CACHE_DIR)?"
        )
    return rows
