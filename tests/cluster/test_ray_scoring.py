"""Scoring on a local Ray cluster (loopback, 2 CPU workers, tiny models, a few BEAR relations):
the table equals a local run's (token log-probabilities within float32 rounding,
:data:`calib.scoring.schema.ROUNDING_TOLERANCE`: each actor scores with 1 thread, the local run
with torch's default; everything else exactly), a worker killed mid-run loses and duplicates
nothing, and a second invocation that finds everything stored loads no model.

One cluster for the module. Skipped only where Ray is not installed (``make setup`` installs the
``cluster`` extra, so CI runs these).
"""

from __future__ import annotations

import collections
import json
import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from module_from_file import module_from_file

pytestmark = pytest.mark.cluster
ray = pytest.importorskip(
    "ray", reason="Ray is not installed (pip install 'calib[cluster]'; make setup installs it)"
)

from calib.scoring import cluster  # noqa: E402
from calib.scoring.run import score_bear, score_store  # noqa: E402
from calib.scoring.schema import ROUNDING_TOLERANCE  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
RELATIONS = ["P19", "P30", "P105"]  # 25, 6 and 5 options
SAMPLE = dict(per_relation=2, seed=0, relations=RELATIONS, chunk_statements=40, progress=False)


@pytest.fixture(scope="module")
def local_cluster(tmp_path_factory):
    """A Ray cluster on this machine (loopback, 2 CPUs) whose workers import this checkout;
    the caches of the local and the Ray runs."""
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(REPO), *([old] if old else [])])
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        object_store_memory=80 * 2**20,
        logging_level="WARNING",
    )
    try:
        yield {
            "local": tmp_path_factory.mktemp("local-cache"),
            "ray": tmp_path_factory.mktemp("ray-cache"),
        }
    finally:
        cluster.shutdown_pool()
        ray.shutdown()
        if old is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = old


def _float32_lists(column: pd.Series) -> bool:
    """The token log-probabilities are float32: an Arrow list column's value type (the store's
    frames, :func:`calib.scoring.cache.as_frame`), else each row's array."""
    import pyarrow as pa

    if isinstance(column.dtype, pd.ArrowDtype):
        return pa.types.is_float32(column.dtype.pyarrow_dtype.value_type)
    return all(np.asarray(a).dtype == np.float32 for a in column)


def assert_same_table(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Every key, answer and token role equal; token log-probabilities float32 and equal
    within the rounding tolerance (the actors' thread count is not the local run's); the same
    prediction (highest summed log-probability) for every unit whose two best options are not
    within rounding of each other (most of them)."""
    assert len(got) == len(want) > 0
    plain = [c for c in want.columns if c not in ("token_logprobs", "token_roles")]
    pd.testing.assert_frame_equal(got[plain], want[plain])
    assert [list(r) for r in got["token_roles"]] == [list(r) for r in want["token_roles"]]
    assert _float32_lists(got["token_logprobs"]) and _float32_lists(want["token_logprobs"])
    for a, b in zip(got["token_logprobs"], want["token_logprobs"]):
        np.testing.assert_allclose(a, b, rtol=0, atol=ROUNDING_TOLERANCE)
    unit = ["relation", "instance", "template"]

    def sums(table):
        return table.assign(s=[float(np.sum(x, dtype=np.float64)) for x in table["token_logprobs"]])

    a, b = sums(got), sums(want)
    delta = float(np.abs(a["s"].to_numpy() - b["s"].to_numpy()).max())
    top2 = b.groupby(unit)["s"].apply(
        lambda s: np.inf if len(s) < 2 else float(np.diff(np.sort(s.to_numpy())[-2:])[0])
    )
    clear = top2.index[top2 > 2 * delta]  # elsewhere rounding may pick the other option
    assert len(clear) > len(top2) / 2

    def predictions(table):
        return table.loc[table.groupby(unit)["s"].idxmax()].set_index(unit)["option"]

    pd.testing.assert_series_equal(predictions(a).loc[clear], predictions(b).loc[clear])


def stored_units(store) -> collections.Counter:
    """How many chunks of ``store`` hold each unit (from the chunks' footers)."""
    import pyarrow.parquet as pq

    counts = collections.Counter()
    for path in store.chunks():
        for rel, tpl, inst, _digest, _n in json.loads(pq.read_schema(path).metadata[b"calib"])[
            "units"
        ]:
            counts[(rel, tpl, inst)] += 1
    return counts


def test_same_table_as_a_local_run(local_cluster):
    """A causal model (the masked path is checked by the next test)."""
    caches, model = local_cluster, "tiny-gpt2"
    want = score_bear(model, "paraphrase-0..1", cache_dir=caches["local"], device="cpu", **SAMPLE)
    before = cluster.totals()
    got = score_bear(
        model, "paraphrase-0..1", cache_dir=caches["ray"], device="cpu", ray="auto", **SAMPLE
    )
    assert_same_table(got, want)
    after = cluster.totals()
    # the work went through the actors, each loading the model at most once
    assert after.units - before.units > 2
    assert 1 <= after.loads - before.loads <= 2
    store = score_store(model, "bear", cache_dir=caches["ray"])
    local = score_store(model, "bear", cache_dir=caches["local"])
    assert set(stored_units(store).values()) == {1}
    # the local run's chunks, cut smaller so that both workers get several
    ray_chunks, local_chunks = _chunk_units(store), _chunk_units(local)
    units = cluster.work_units(_sample_queries("paraphrase-0..1"), SAMPLE["chunk_statements"], 2)
    assert len(ray_chunks) == len(units) > len(local_chunks)
    assert sorted(u for c in ray_chunks for u in c) == sorted(u for c in local_chunks for u in c)


def _sample_queries(templates: str) -> list:
    """The queries of :data:`SAMPLE` under ``templates``, in the order a run scores them."""
    from calib.data.bear import load_bear, template_names
    from calib.scoring.statements import bear_queries

    bear = load_bear(relations=RELATIONS).sample(SAMPLE["per_relation"], SAMPLE["seed"])
    return bear_queries(bear, template_names(templates))


def _chunk_units(store) -> list[list[tuple]]:
    import pyarrow.parquet as pq

    return [
        [tuple(u[:3]) for u in json.loads(pq.read_schema(p).metadata[b"calib"])["units"]]
        for p in store.chunks()
    ]


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(local_cluster):
    """SIGKILL one actor while it holds a claim (its first unit, loading or scoring): Ray
    restarts it and retries the unit; the table is the local run's (a masked LM here) and each
    unit is stored once, with no claim or partial file left."""
    caches, model = local_cluster, "tiny-bert"
    store = score_store(model, "bear", cache_dir=caches["ray"])
    claims = store.folder / "claims"

    def sigkill(pid: int) -> bool:
        if pid == os.getpid():
            return False
        os.kill(pid, signal.SIGKILL)
        return True

    got, killed = _score_killing_a_claim_holder(model, caches["ray"], claims, sigkill)
    assert _gone(killed[0])
    want = score_bear(model, "paraphrase-2..3", cache_dir=caches["local"], device="cpu", **SAMPLE)
    assert_same_table(got, want)
    counts = stored_units(store)
    assert len(counts) == got.groupby(["relation", "template", "instance"]).ngroups
    assert set(counts.values()) == {1}
    assert not list(claims.glob("*.json")) and not list(store.folder.glob(".tmp-*"))


#: fresh stores tried until an actor is caught holding a claim (a tiny model's unit lasts
#: milliseconds: on a loaded machine the watching thread may see none in one run)
CATCH_ATTEMPTS = 6


def test_an_actor_that_cannot_restart_hands_its_unit_to_the_others(local_cluster, tmp_path):
    """``ray.kill(no_restart=True)`` on an actor that holds a unit: the driver drops it and
    another actor scores the unit; nothing is lost or stored twice. Each attempt scores into an
    empty store of its own, so a run in which no holder was caught leaves nothing behind."""
    from calib.models.loading import dtype_name
    from calib.models.registry import get_spec
    from calib.settings import cache_root

    caches, model = local_cluster, "tiny-gpt2"
    dtype = dtype_name(None, get_spec(model), "cpu")  # named by score_queries before the pool
    for attempt in range(CATCH_ATTEMPTS):
        cache = tmp_path / f"attempt-{attempt}"
        cluster.shutdown_pool()
        key = (model, None, "cpu", dtype, str(cache_root(cache)))
        actors = cluster._pool(ray, key)
        by_pid = {ray.get(a.pid.remote()): a for a in actors}
        assert len(by_pid) == 2
        store = score_store(model, "bear", cache_dir=cache)
        original = list(actors)

        def kill_for_good(pid: int, by_pid=by_pid) -> bool:
            if pid not in by_pid:
                return False
            ray.kill(by_pid[pid], no_restart=True)
            return True

        got, killed = _score_killing_a_claim_holder(
            model, cache, store.folder / "claims", kill_for_good, require=False
        )
        # the run used the actors made here (a key differing from score_queries' would make
        # a new pool, whose pids kill_for_good does not know)
        assert all(a in original for a in cluster._POOL["actors"])
        if killed:
            break
    assert killed, f"no actor was caught holding a claim in {CATCH_ATTEMPTS} runs"
    assert len(cluster._POOL["actors"]) == 1  # the dead one was dropped
    want = score_bear(model, "paraphrase-2..3", cache_dir=caches["local"], device="cpu", **SAMPLE)
    assert_same_table(got, want)
    units = {
        k: n for k, n in stored_units(store).items() if k[1] in ("paraphrase-2", "paraphrase-3")
    }
    assert set(units.values()) == {1}
    assert len(units) == got.groupby(["relation", "template", "instance"]).ngroups


def _score_killing_a_claim_holder(model, cache, claims, kill, require: bool = True) -> tuple:
    """Score the sample on the cluster while a thread calls ``kill(pid)`` on the first process
    seen holding a claim in ``claims`` (``kill`` returns whether it killed it); returns the
    score table and the killed pids, failing if no holder was caught (``require``)."""
    killed: list[int] = []
    stop = threading.Event()

    def killer():
        while not stop.is_set() and not killed:
            for record in sorted(claims.glob("*.json")) if claims.is_dir() else []:
                try:
                    pid = json.loads(record.read_text())["pid"]
                except (OSError, ValueError, KeyError):
                    continue  # released meanwhile
                if kill(pid):
                    killed.append(pid)
                    break
            time.sleep(0.002)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        got = score_bear(
            model, "paraphrase-2..3", cache_dir=cache, device="cpu", ray="auto", **SAMPLE
        )
    finally:
        stop.set()
        thread.join()
    assert killed or not require, "no actor was caught holding a claim"
    return got, killed


def _gone(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie not yet reaped counts as ended)."""
    stat = Path(f"/proc/{pid}/stat")
    if not Path("/proc/self/stat").exists():  # no procfs: ask the OS
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError):
        return True


def test_a_second_invocation_finds_everything_stored_and_loads_no_model(
    local_cluster, monkeypatch, capsys
):
    """``calib score --ray`` over the units of the previous test: nothing goes to the cluster,
    no actor is started, no model is loaded (here or on a worker)."""
    import calib.scoring.run as run
    from calib.cli import main

    def no_model(*args, **kwargs):
        raise AssertionError("the driver loaded a model")

    monkeypatch.setattr(run, "load_model", no_model)
    before = cluster.totals()
    rc = main(
        [
            "score",
            "--model",
            "tiny-bert",
            "--templates",
            "paraphrase-2..3",
            "--relations",
            ",".join(RELATIONS),
            "--per-relation",
            "2",
            "--device",
            "cpu",
            "--cache-dir",
            str(local_cluster["ray"]),
            "--ray",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert (
        "ray: 0 unit(s), 0 statement(s) on the cluster; 0 worker(s) started, 0 model load(s)" in out
    )
    assert cluster.totals() == before


def test_the_chapters_kernels_join_the_cluster(local_cluster, tmp_path):
    """``calib book --ray``: the book's process sets ``$CALIB_RAY`` to the cluster's address;
    a kernel (here a subprocess) joins it and scores its missing units there."""
    import subprocess
    import sys

    cluster.shutdown_pool()  # free the 2 CPUs for the kernel's actors
    script = tmp_path / "kernel.py"
    script.write_text(
        "from calib.scoring import cluster\n"
        "from calib.scoring.run import score_bear\n"
        f"score_bear('tiny-gpt2', 'paraphrase-4', cache_dir={str(local_cluster['ray'])!r},\n"
        f"           device='cpu', **{SAMPLE!r})\n"
        "t = cluster.totals()\n"
        "print('units', t.units, 'loads', t.loads)\n"
    )
    with cluster.cluster_for_chapters("auto") as address:
        assert os.environ[cluster.RAY_ENV] == address
        proc = subprocess.run(
            [sys.executable, str(script)],
            capture_output=True,
            text=True,
            timeout=600,
            env=dict(os.environ),
        )  # only against a hang
    assert cluster.RAY_ENV not in os.environ
    assert ray.is_initialized()  # the module's connection was not closed by the context
    assert proc.returncode == 0, proc.stderr[-3000:]
    units, loads = proc.stdout.split()[1::2]
    assert int(units) > 0 and 1 <= int(loads) <= 2


def _synthetic_scores():
    """``tests/experiments/synthetic_scores.py`` (the chapters' synthetic score tables)."""
    path = REPO / "tests" / "experiments" / "synthetic_scores.py"
    return module_from_file(path, "_synthetic_scores_file")


def test_a_chapters_analysis_on_the_cluster_is_a_serial_runs(local_cluster):
    """``analyse(..., ray=...)``: the calibration chapter's per-model steps as Ray tasks (one
    per model, on the cluster's workers) give the result one process gives, frame for frame
    and to the bit: each model's intervals draw from the chapter's seed alone."""
    from calib.data.bear import PARAPHRASES
    from calib.experiments import calibration

    cluster.shutdown_pool()  # free the 2 CPUs for the tasks
    models = ("m3", "m1", "m2")  # not in sorted order
    scores = _synthetic_scores().random_score_table(
        models=models, templates=PARAPHRASES, n_instances=4, seed=5
    )
    info = pd.DataFrame(
        {"model": list(models), "objective": "clm", "family": "F", "size_m": [1.0, 2.0, 3.0]}
    )
    params = calibration.Params(models=models, n_bootstrap=10, floor_draws=10)
    serial = calibration.analyse(scores, params, info, workers=1)
    on_ray = calibration.analyse(scores, params, info, ray="auto")
    assert serial.table["model"].unique().tolist() == list(models)
    for name, value in vars(serial).items():
        got = getattr(on_ray, name)
        if isinstance(value, pd.DataFrame):
            pd.testing.assert_frame_equal(got, value, check_exact=True, obj=name)
        else:
            assert got == value, name


def test_a_failing_task_on_the_cluster_raises_its_error_here(local_cluster):
    """An error in a model's step on the cluster reaches the caller with that error's message
    (a Ray task error naming it), and the cluster then runs the next call."""
    import sys

    from ray import cloudpickle

    from calib.experiments.per_model import map_models

    frame = pd.DataFrame({"model": list("aabc"), "x": [1.0, 2.0, 3.0, 4.0]})
    here = sys.modules[__name__]  # the workers cannot import this file: its functions by value
    cloudpickle.register_pickle_by_value(here)
    try:
        with pytest.raises(Exception, match="no rows for model c"):
            map_models(_fails_on_c, frame, ray="auto")
        assert map_models(_row_count, frame, ray="auto") == [2, 1, 1]
    finally:
        cloudpickle.unregister_pickle_by_value(here)


def _fails_on_c(part: pd.DataFrame) -> int:
    if part["model"].iloc[0] == "c":
        raise ValueError("no rows for model c")
    return len(part)


def _row_count(part: pd.DataFrame) -> int:
    return len(part)


class _FlakyScorer(cluster.Scorer):
    """A scoring actor whose attempts at a unit are logged (its pid, one line per attempt, in
    a file per unit under ``folder``) and fail: the first attempt at each unit, or every one
    (``always``)."""

    folder = ""
    always = False

    def score(self, store, queries, token_budget, start_token) -> dict:
        log = Path(self.folder) / "-".join(map(str, queries[0].key)).replace("/", "_")
        first = not log.exists()
        with log.open("a") as fh:
            fh.write(f"{os.getpid()}\n")
        if self.always or first:
            raise RuntimeError(f"injected failure of the unit at {queries[0].key}")
        return super().score(store, queries, token_budget, start_token)


def _flaky_run(local_cluster, tmp_path, monkeypatch, always: bool):
    import sys

    from ray import cloudpickle

    attempts = tmp_path / "attempts"
    attempts.mkdir()
    flaky = type("Flaky", (_FlakyScorer,), {"folder": str(attempts), "always": always})
    monkeypatch.setattr(cluster, "Scorer", flaky)
    here = sys.modules[__name__]  # the workers cannot import this file: its classes by value
    cloudpickle.register_pickle_by_value(here)
    cluster.shutdown_pool()
    try:
        got = score_bear(
            "tiny-gpt2",
            "paraphrase-0",
            cache_dir=tmp_path / "cache",
            device="cpu",
            ray="auto",
            **SAMPLE,
        )
    finally:
        cluster.shutdown_pool()
        cloudpickle.unregister_pickle_by_value(here)
    return got, {p.name: p.read_text().split() for p in attempts.iterdir()}


def test_a_failed_unit_is_retried_once_on_another_worker(local_cluster, tmp_path, monkeypatch):
    """Every unit's first attempt raises: each is scored by its second, on the other actor,
    and the table is the local run's."""
    got, attempts = _flaky_run(local_cluster, tmp_path, monkeypatch, always=False)
    assert len(attempts) >= 2
    for pids in attempts.values():
        assert len(pids) == 2 and pids[0] != pids[1]
    want = score_bear(
        "tiny-gpt2", "paraphrase-0", cache_dir=local_cluster["local"], device="cpu", **SAMPLE
    )
    assert_same_table(got, want)


def test_a_unit_failing_twice_fails_the_call_with_its_message(local_cluster, tmp_path, monkeypatch):
    with pytest.raises(cluster.ClusterError, match="injected failure of the unit at") as info:
        _flaky_run(local_cluster, tmp_path, monkeypatch, always=True)
    assert "failed on two workers" in str(info.value)
