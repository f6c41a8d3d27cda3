"""``benchmarks/gpu_check.py --smoke`` runs as on a bare GPU machine (from the repository root,
no calib installed on its import path, a tokenizer folder, BEAR copied into a data folder,
offline) and reports what a GPU run would."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_gpu_check_smoke_on_a_bare_machine(tiny_models, tmp_path):
    from calib.data.root import data_root

    tok = tmp_path / "device" / "tokenizer"
    tiny_models["tiny-llama"].tokenizer.save_pretrained(tok)
    data = tmp_path / "device" / "data"
    shutil.copytree(data_root() / "bear", data / "bear")
    out = tmp_path / "gpu_check.json"
    env = {  # nothing of this session's: no CALIB_DATA_DIR, no PYTHONPATH, an empty home
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "HF_HUB_OFFLINE": "1",
        "CALIB_CACHE_DIR": str(tmp_path / "cache"),
        "OMP_NUM_THREADS": "1",
    }
    cmd = [sys.executable, "-I", "benchmarks/gpu_check.py", "--smoke"]
    cmd += ["--tokenizer", str(tok), "--data", str(data), "--json", str(out)]
    run = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "cannot test bf16/fp32 agreement" in run.stdout
    result = json.loads(out.read_text())
    versions = result["versions"]
    assert Path(versions["calib"]) == REPO / "calib"  # this checkout, not an installed calib
    assert {"python", "torch", "transformers", "tokenizers", "numpy", "pyarrow"} <= set(versions)
    assert all(f"{k} {v}" in run.stdout for k, v in versions.items())
    assert [r["model"] for r in result["tiny"]] == ["tiny-gpt2", "tiny-llama", "tiny-bert"]
    assert all(r["fast_vs_naive_max_abs_diff"] < 1e-4 for r in result["tiny"])
    rows = {r["architecture"]: r for r in result["architectures"]}
    assert set(rows) == {"smollm2-135m", "gemma-3-270m", "llama-1b"}
    for r in rows.values():
        assert r["statements"] > 0 and r["statements_per_s"] > 0 and r["mfu"] > 0
        assert r["host_share"] > 0 and r["second_of_family_statements_per_s"] > 0
        assert r["plan"]["peak"] > r["plan"]["weights"] > 0
        assert r["ratio"] == 1.0  # CPU: equal lengths per pass, nothing padded
        assert 0 <= r["same_prediction_share"] <= 1
        assert 0 < r["mean_abs_diff"] <= r["max_abs_diff"] < 1  # bfloat16 rounds a little
        assert "cannot test" in r["agreement_note"]


def test_prepare_writes_a_carry_under_64_mib(tiny_models, tmp_path, monkeypatch):
    """``--prepare`` writes the tokenizer folder and BEAR's data that a bare machine needs,
    well within the device tool's 64 MiB carry (here with the tiny tokenizer)."""
    monkeypatch.syspath_prepend(str(REPO / "benchmarks"))
    import gpu_check

    folder = tmp_path / ".device"
    assert gpu_check.main(["--prepare", str(folder), "--tokenizer", "tiny-llama"]) == 0
    assert (folder / "smollm2" / "tokenizer.json").is_file()
    assert len(list((folder / "data" / "bear").rglob("*.jsonl"))) > 10
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 64 * 2**20
    sys.modules.pop("gpu_check", None)
