"""A model folder in the cache that is damaged, and a local model changed in place (issue 39,
cases 3 and 5): a folder calib built is checked against the stamp written with it and built
again when it differs; a local folder's files are hashed when a process first uses them, so a
change with size and modification time restored still changes the store's key."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys

import score_worker
from fault_helpers import REPO

from calib.models.hashing import STAMP
from calib.models.loading import load_model, model_key
from calib.models.tiny import TINY_VERSION


def _damage_in_place(path) -> None:
    """Flip bytes in the middle of ``path``: same size, same modification time."""
    st = path.stat()
    blob = bytearray(path.read_bytes())
    middle = len(blob) // 2
    blob[middle : middle + 4] = bytes(b ^ 0xFF for b in blob[middle : middle + 4])
    with open(path, "r+b") as fh:
        fh.write(bytes(blob))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns


def test_a_truncated_tiny_model_is_built_again(cache, caplog):
    """``models/tiny-gpt2-v2/model.safetensors`` cut short: every later load failed with
    "Error while deserializing header"."""
    folder = cache / "models" / f"{score_worker.MODEL}-{TINY_VERSION}"
    assert (folder / STAMP).is_file()  # written with the folder
    key = model_key(score_worker.MODEL, cache)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with caplog.at_level(logging.WARNING, logger="calib.models.folders"):
        lm = load_model(score_worker.MODEL, device="cpu", cache_dir=cache)
    assert lm.key == key  # built again, byte for byte
    assert [r.getMessage() for r in caplog.records if r.name == "calib.models.folders"] == [
        f"the cached model folder {folder} is damaged (model.safetensors has 1000 bytes, "
        f"{weights.stat().st_size} when it was written); it is built again"
    ]


def test_a_tiny_model_changed_in_place_is_built_again(cache):
    folder = cache / "models" / f"{score_worker.MODEL}-{TINY_VERSION}"
    key = model_key(score_worker.MODEL, cache)
    _damage_in_place(folder / "model.safetensors")
    assert model_key(score_worker.MODEL, cache) == key


def test_a_damaged_converted_model_is_converted_again(tmp_path, monkeypatch, tiny_models):
    """An embedded model's converted folder (the conversion, 30-90 s, replaced by saving a
    tiny model as it would save SmolLM2's): converted once, again after its weights were
    cut short, and not again while it is whole."""
    import calib.models.loading as loading
    from calib.models.folders import save_model_folder
    from calib.models.hashing import file_sha256
    from calib.models.locate import gguf_path
    from calib.models.registry import get_spec

    spec = get_spec("smollm2-135m-instruct")
    src = gguf_path(spec)
    lm = tiny_models["tiny-llama"]
    converted = []

    def convert(name, folder):
        converted.append(name)
        source = json.dumps({"gguf": src.name, "sha256": file_sha256(src)})
        save_model_folder(lm.model, lm.tokenizer, folder, name, {"calib-source.json": source})

    monkeypatch.setattr(loading, "convert", convert)
    folder = loading.converted_folder(spec, tmp_path)
    assert loading.converted_folder(spec, tmp_path) == folder and len(converted) == 1
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-8])
    assert loading.converted_folder(spec, tmp_path) == folder and len(converted) == 2
    assert loading.converted_folder(spec, tmp_path) == folder and len(converted) == 2


def test_a_damaged_folder_without_a_stamp_is_named_when_it_fails_to_load(cache):
    """A folder built before calib stamped its folders is stamped as it is; where it does not
    load, the error names the folder to remove."""
    import pytest

    from calib.models.locate import ModelLoadError

    folder = cache / "models" / f"{score_worker.MODEL}-{TINY_VERSION}"
    (folder / STAMP).unlink()
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(ModelLoadError) as info:
        load_model(score_worker.MODEL, device="cpu", cache_dir=cache)
    assert str(info.value).endswith(f"; remove its cached folder {folder}, and it is built again")
    assert (folder / STAMP).is_file()


def test_a_local_model_changed_in_place_gets_another_key(cache, tmp_path):
    """Same size, same modification time, other bytes: the next process that uses the folder
    hashes it again (the README: "different files never share scores")."""
    local = shutil.copytree(
        cache / "models" / f"{score_worker.MODEL}-{TINY_VERSION}", tmp_path / "local"
    )
    before = model_key(str(local), cache)
    _damage_in_place(local / "model.safetensors")
    script = (
        "import sys; from calib.models.loading import model_key; print(model_key(*sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(local), str(cache)],
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    after = done.stdout.strip()
    assert after.startswith("local@") and after != before
