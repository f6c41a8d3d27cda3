"""The tiny models are byte-identical wherever they are built, and the score store's key sees
their files: different files never share stored scores."""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from calib.models.hashing import folder_hash
from calib.models.loading import model_key
from calib.models.tiny import TINY_VERSION

NAMES = ("tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta")
REPO = Path(__file__).resolve().parents[2]

_BUILD = """
import sys
from pathlib import Path
from calib.models.tiny import build_tiny
for name in sys.argv[2:]:
    build_tiny(name, Path(sys.argv[1]) / name)
"""


def _hashes(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_every_tiny_model_is_byte_identical_in_another_folder_and_process(
    tiny_models, _session_cache, tmp_path
):
    """The session's tiny models (built by the ``tiny_models`` fixture in this process) against
    a second build in a fresh folder by another interpreter with another hash seed."""
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=str(REPO))
    subprocess.run(
        [sys.executable, "-c", _BUILD, str(tmp_path), *NAMES],
        check=True,
        env=env,
        cwd=tmp_path,
        capture_output=True,
        timeout=600,
    )  # only against a hang
    for name in NAMES:
        first = _hashes(_session_cache / "models" / f"{name}-{TINY_VERSION}")
        again = _hashes(tmp_path / name)
        assert {"config.json", "model.safetensors", "tokenizer.json"} <= set(first)
        assert first == again, f"{name}: files differ: " + ", ".join(
            sorted(f for f in first if first[f] != again.get(f))
        )


def test_the_model_key_hashes_tokenizer_and_weights(tiny_models, _session_cache, tmp_path):
    built = _session_cache / "models" / f"tiny-bert-{TINY_VERSION}"
    assert model_key("tiny-bert").endswith(folder_hash(built))
    copy = shutil.copytree(built, tmp_path / "tiny-bert-copy")
    assert folder_hash(copy) == folder_hash(built)  # same files: same key, wherever they lie
    tok = json.loads((copy / "tokenizer.json").read_text())
    vocab = tok["model"]["vocab"]
    a, b = sorted(vocab)[10:12]
    vocab[a], vocab[b] = vocab[b], vocab[a]  # two ids swapped: same weights, other tokenizer
    (copy / "tokenizer.json").write_text(json.dumps(tok))
    changed = folder_hash(copy)
    assert changed != folder_hash(built)
    assert model_key(str(copy)) == f"tiny-bert-copy@{changed}"
    weights = shutil.copytree(built, tmp_path / "w")
    blob = bytearray((weights / "model.safetensors").read_bytes())
    blob[-1] ^= 1  # one bit of one weight
    (weights / "model.safetensors").write_bytes(bytes(blob))
    assert folder_hash(weights) not in (folder_hash(built), changed)


def test_the_score_store_differs_when_the_files_differ(tiny_models, _session_cache, tmp_path):
    from calib.scoring.run import score_store

    built = _session_cache / "models" / f"tiny-gpt2-{TINY_VERSION}"
    copy = shutil.copytree(built, tmp_path / "tiny-gpt2")
    same = score_store(str(copy), "bear").folder
    (copy / "tokenizer_config.json").write_text(
        (copy / "tokenizer_config.json").read_text().replace("}", ', "x": 1}', 1)
    )
    assert score_store(str(copy), "bear").folder != same
