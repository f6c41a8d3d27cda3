"""A cache folder that is full or read-only, and Ctrl-C during ``calib score``: one clear line
(the folder, the variable that sets it, the space needed, or where the scores went and how to
resume), nothing half-written left, and a resumed run that completes the table.

Full and read-only folders are real where this machine lets the tests mount a small tmpfs
(root in CI containers usually can); elsewhere those tests skip and the simulated ones (an
``OSError`` with ``ENOSPC``/``EROFS`` where the write happens) still run.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import score_worker
from fault_helpers import REPO, assert_same_table, calib_command, leftovers

import calib.scoring.run as run
from calib.settings import CACHE_ENV, CacheWriteError, write_problem


@contextlib.contextmanager
def tmpfs(where: Path, size: str):
    """A tmpfs of ``size`` mounted at ``where`` (skips the test where mounting is refused)."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(
            f"cannot mount a tmpfs here ({done.stderr.decode().strip()[:80]}); the "
            f"simulated full/read-only tests cover this machine"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def leave_free(where: Path, n_bytes: int) -> None:
    """Fill the file system of ``where`` up to ``n_bytes`` of free space."""
    st = os.statvfs(where)
    (where / "filler").write_bytes(bytes(max(st.f_bavail * st.f_frsize - n_bytes, 0)))


def remount(where: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(where)], check=True)


def _one_line(exc: BaseException, folder: Path, reason: str) -> str:
    text = str(exc)
    assert "\n" not in text
    assert str(folder) in text and CACHE_ENV in text and reason in text, text
    return text


# -- full ---------------------------------------------------------------------------------------


def test_a_full_cache_stops_scoring_with_one_line_and_resumes(
    tmp_path, tiny_models, cache, worker_queries, reference, monkeypatch
):
    """The cache fills up after a few chunks: the error names the store folder and the space
    the rest needs; the chunks written are whole, nothing partial is left, and with space
    again the run resumes and completes the table."""
    with tmpfs(tmp_path / "small", "2m") as small:
        full = shutil.copytree(cache, small / "cache")
        leave_free(small, 20_000)  # room for two or three chunks
        with pytest.raises(CacheWriteError) as info:
            run.score_queries(
                score_worker.MODEL,
                worker_queries,
                cache_dir=full,
                chunk_statements=score_worker.CHUNK_STATEMENTS,
                progress=False,
            )
        text = _one_line(
            info.value,
            run.score_store(score_worker.MODEL, "bear", cache_dir=full).folder,
            "no space left on the device",
        )
        assert "free " in text and "Nothing half-written was left" in text
        assert not leftovers(full)
        store = run.score_store(score_worker.MODEL, "bear", cache_dir=full)
        _stored, missing = store.lookup(worker_queries)
        assert 0 < len(missing) <= len(worker_queries)
        assert not list(store.folder.glob("*.corrupt"))  # what was written is whole
        (small / "filler").unlink()
        table = run.score_queries(
            score_worker.MODEL,
            worker_queries,
            cache_dir=full,
            chunk_statements=score_worker.CHUNK_STATEMENTS,
            progress=False,
        )
        assert_same_table(table, reference)


def test_a_full_cache_while_building_a_model(tmp_path):
    from calib.models.tiny import tiny_folder

    with tmpfs(tmp_path / "small", "64k") as small:
        with pytest.raises(CacheWriteError) as info:
            tiny_folder("tiny-llama", small)
        text = _one_line(info.value, small / "models", "no space left on the device")
        assert "the tiny model tiny-llama" in text
        assert not [p for p in (small / "models").iterdir() if p.is_dir()]


def test_a_full_disk_is_reported_where_mounting_is_not_possible(cache, worker_queries, monkeypatch):
    """Simulated: the Parquet writer fails with ENOSPC."""
    import calib.scoring.cache as cache_module

    def full(*args, **kwargs):
        Path(args[1]).write_bytes(b"PAR1 partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache_module.pq, "write_table", full)
    with pytest.raises(CacheWriteError) as info:
        run.score_queries(score_worker.MODEL, worker_queries, cache_dir=cache, progress=False)
    _one_line(
        info.value,
        run.score_store(score_worker.MODEL, "bear", cache_dir=cache).folder,
        "no space left on the device",
    )
    assert not leftovers(cache)


def test_write_problems_are_recognised_in_every_form():
    from safetensors import SafetensorError

    assert write_problem(OSError(errno.EROFS, "x")) == "the file system is read-only"
    assert (
        write_problem(
            OSError(
                "[Errno 28] Error writing bytes to file. Detail: [errno 28] No space left on device"
            )
        )
        == "no space left on the device"
    )
    assert (
        write_problem(
            SafetensorError(
                "Error while serializing: IoError(Os { code: 28, kind: StorageFull, "
                'message: "No space left on device" })'
            )
        )
        == "no space left on the device"
    )
    assert (
        write_problem(
            SafetensorError(
                "Error while serializing: I/O error: No space left on device (os error 28)"
            )
        )
        == "no space left on the device"
    )
    assert write_problem(OSError(errno.EACCES, "x")) == "permission denied"
    assert write_problem(ValueError("unrelated")) is None
    assert write_problem(OSError(errno.ENOENT, "x")) is None


# -- read-only ----------------------------------------------------------------------------------


@pytest.fixture
def read_only(tmp_path):
    """``make(source)``: a read-only copy of the folder ``source`` (a read-only tmpfs)."""
    mounts = []

    def make(source: Path) -> Path:
        where = tmp_path / f"ro-{len(mounts)}"
        stack = contextlib.ExitStack()
        mounts.append(stack)
        stack.enter_context(tmpfs(where, "20m"))
        copy = shutil.copytree(source, where / "cache")
        remount(where, "ro")
        return copy

    yield make
    for stack in mounts:
        stack.close()


def test_a_read_only_cache_serves_what_it_holds(
    read_only, cache, worker_queries, reference, monkeypatch
):
    run.score_queries(
        score_worker.MODEL,
        worker_queries,
        cache_dir=cache,
        chunk_statements=score_worker.CHUNK_STATEMENTS,
        progress=False,
    )
    frozen = read_only(cache)

    def no_model(*args, **kwargs):
        raise AssertionError("the model was loaded although every unit is stored")

    monkeypatch.setattr(run, "load_model", no_model)
    assert_same_table(
        run.score_queries(score_worker.MODEL, worker_queries, cache_dir=frozen, progress=False),
        reference,
    )


def test_a_read_only_cache_that_lacks_scores_is_one_line(read_only, cache, worker_queries, capsys):
    from calib.cli import main

    frozen = read_only(cache)
    with pytest.raises(CacheWriteError) as info:
        run.score_queries(score_worker.MODEL, worker_queries, cache_dir=frozen, progress=False)
    _one_line(info.value, frozen / "scores", "the file system is read-only")
    code = main(
        [
            "score",
            "--model",
            "tiny-gpt2",
            "--relations",
            "P30",
            "--per-relation",
            "1",
            "--templates",
            "paraphrase-0",
            "--cache-dir",
            str(frozen),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 1 and err.startswith("calib score: cannot write scores into")
    assert "the file system is read-only" in err and CACHE_ENV in err and "at least" in err


def test_a_read_only_cache_without_the_model_is_one_line(read_only, tmp_path):
    from calib.models.tiny import tiny_folder

    empty = tmp_path / "empty"
    empty.mkdir()
    frozen = read_only(empty)
    with pytest.raises(CacheWriteError) as info:
        tiny_folder("tiny-gpt2", frozen)
    _one_line(info.value, frozen / "models", "the file system is read-only")


def test_a_read_only_folder_is_reported_where_mounting_is_not_possible(
    cache, worker_queries, monkeypatch
):
    """Simulated: creating the store's folders fails with EROFS (as root, chmod would not)."""
    real_mkdir = Path.mkdir

    def read_only_mkdir(self, *args, **kwargs):
        if "scores" in self.parts:
            raise OSError(errno.EROFS, "Read-only file system", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", read_only_mkdir)
    with pytest.raises(CacheWriteError) as info:
        run.score_queries(score_worker.MODEL, worker_queries, cache_dir=cache, progress=False)
    _one_line(info.value, cache / "scores", "the file system is read-only")


# -- Ctrl-C -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_ctrl_c_during_calib_score_says_where_the_scores_are_and_how_to_resume(cache):
    """SIGINT once ``calib score`` has stored its first chunk (it is then scoring the next
    one; where exactly the signal lands does not matter, :mod:`calib.interrupt`): exit 130
    within a bound derived from the work, the lines that say what is stored and how to resume,
    nothing half-written."""
    command = [
        "score",
        "--model",
        "tiny-gpt2",
        "--relations",
        "P36",
        "--templates",
        "paraphrase-0..4",
        "--cache-dir",
        str(cache),
    ]
    env = dict(os.environ, PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", TRANSFORMERS_VERBOSITY="error")
    started = time.monotonic()
    proc = subprocess.Popen(
        calib_command(command), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    # 600 s only bounds a hang: start-up and the first chunk take seconds on a quiet machine
    end = started + 600
    while not list((cache / "scores").rglob("chunk-*.parquet")):
        assert proc.poll() is None and time.monotonic() < end, proc.communicate()
        time.sleep(0.05)
    startup = time.monotonic() - started  # interpreter, imports, model load, one chunk
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    # it stops at its next forward pass (milliseconds with this model), says so and exits;
    # allow that and the exit three times what the start took under the present load, plus
    # 30 s of slack for a machine that gets busier meanwhile
    bound = 30 + 3 * startup
    _out, err = proc.communicate(timeout=bound)
    took = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert took < bound  # (communicate raised otherwise)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "Exception ignored" not in err, err
    store = run.score_store("tiny-gpt2", "bear", cache_dir=cache)
    n_units, n_chunks = store.units(), len(store.chunks())
    assert 0 < n_units < 60 * 5
    assert (
        f"{n_units} unit(s) (instance x template) in {n_chunks} chunk(s) in {store.folder}" in err
    )
    assert "Run the same command again to resume" in err
    assert f"calib {' '.join(command)}" in err
    assert not leftovers(cache)
