"""The memory plan of a pass (:mod:`calib.scoring.memory`) bounds what a pass takes, measured,
for a model of Gemma 3's 262,144-token vocabulary; and taking the logits of a whole pass at once
(the scorer before issue 27) would not fit it. Measured in a process of its own
(``memory_worker.py``: the peak resident memory of one ``clm_score`` call, Linux only).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calib.scoring.memory import model_shape, plan_budget, plan_lines

GEMMA_VOCAB = 262_144
BUDGET = 256
SLICE_LOGITS = 1 << 22  # 16 positions of the vocabulary at a time
WORKER = Path(__file__).with_name("memory_worker.py")


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="Linux only")
@pytest.mark.parametrize("mode", ["sliced", "whole"])
def test_a_pass_stays_within_its_plan(mode, tiny_models, _session_cache):
    out = subprocess.run(
        [sys.executable, str(WORKER), str(BUDGET), str(SLICE_LOGITS), mode],
        env={**os.environ, "CALIB_CACHE_DIR": str(_session_cache)},
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout.strip().splitlines()[-1])
    peak, plan = got["peak"], got["plan"]
    above_weights = plan["peak"] - plan["weights"]  # the weights are resident before the call
    full_logits = BUDGET * GEMMA_VOCAB * 4
    print(f"{mode}: measured {peak / 2**20:.0f} MiB; plan {above_weights / 2**20:.0f} MiB")
    if mode == "whole":
        assert peak > above_weights  # the plan would not hold a pass's whole logits
        assert peak > full_logits / 2
    else:
        assert peak <= above_weights
        assert peak < full_logits / 4


def test_the_plan_of_the_embedded_models_on_an_h200():
    """From the configuration alone: the budget grows to the memory, whatever the vocabulary,
    and the logits before issue 27 would not have fitted at that budget."""
    from calib.models.loading import load_config
    from calib.scoring.memory import H200_BYTES

    shape = model_shape(load_config("tiny-llama"))
    plan = plan_budget(shape, H200_BYTES)
    assert plan.budget == 1 << 20 and plan.peak <= 0.7 * H200_BYTES
    lines = plan_lines("tiny-llama", shape, plan, H200_BYTES)
    assert "budget 1,048,576 tokens" in lines[1]
    big = shape.__class__(**{**shape.__dict__, "vocab": GEMMA_VOCAB})
    same = plan_budget(big, H200_BYTES)
    assert same.budget == plan.budget  # the vocabulary enters through one slice only
    assert same.logits_before > 0.7 * H200_BYTES


def test_calib_plan_prints_the_dry_run(tiny_models, capsys, tmp_path):
    from calib.cli import main

    assert main(["plan", "--model", "tiny-llama", "tiny-bert"]) == 0
    out = capsys.readouterr().out
    assert out.count("tokens per pass on 139 GiB") == 2 and "prefix-peak" in out
    assert main(["plan", "--model", str(tmp_path / "nowhere"), "--memory-gib", "80"]) == 1
    assert "no configuration here" in capsys.readouterr().out
