"""``benchmarks/gpu_check.py --smoke`` runs on the CPU and reports what a GPU run would."""

import json
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_gpu_check_smoke(tiny_models, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import gpu_check

    out = tmp_path / "gpu_check.json"
    assert gpu_check.main(["--smoke", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
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
    sys.modules.pop("gpu_check", None)
