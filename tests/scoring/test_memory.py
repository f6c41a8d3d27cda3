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
    assert main(["plan", "--model", str(tmp_path / "nowhere"), "--memory-gib", "80"]) == 2
    err = capsys.readouterr().err.strip()  # a model that is not here: one line, no plan
    assert err.startswith("calib plan: model ") and err.endswith("no such folder"), err


def _size(text: str) -> float:
    """Table 3's size ("137M", "2.0B") in parameters."""
    return float(text[:-1]) * {"M": 1e6, "B": 1e9}[text[-1]]


def test_every_paper_model_gets_a_plan_from_its_configuration_alone(capsys):
    """The 29 models of Table 3, without the hub: each configuration built from
    ``paper_configs.json`` has its objective, Table 3's size (parameters counted on the meta
    device, within 0.7x to 1.35x: Table 3's sizes leave out some embeddings, gemma-2b's 2.0B
    counts 2.51B; a wrong width or depth is off by more) and a plan on an H200 that fits it;
    ``calib plan`` prints all 29 from those configurations."""
    from calib.models.registry import registry
    from calib.models.shapes import shape_config, shape_names
    from calib.scoring.batching import GPU_MEMORY_SHARE
    from calib.scoring.memory import H200_BYTES, print_plans

    paper = [s for s in registry().values() if s.kind == "hub"]
    assert len(paper) == 29 and sorted(shape_names()) == sorted(s.name for s in paper)
    for spec in paper:
        shape = model_shape(shape_config(spec.name))
        assert shape.objective == spec.objective, spec.name
        assert 0.7 <= shape.parameters / _size(spec.size) <= 1.35, (spec.name, shape.parameters)
        plan = plan_budget(shape, H200_BYTES)
        assert plan.peak <= GPU_MEMORY_SHARE * H200_BYTES, spec.name
    capsys.readouterr()
    assert print_plans([s.name for s in paper], H200_BYTES) == 0
    out = capsys.readouterr().out
    assert out.count("tokens per pass on 139 GiB") == 29
    assert out.count("configuration: built from calib/models/paper_configs.json") == 29


def test_the_built_configuration_has_the_embedded_gemmas_shapes():
    """gemma-3-270m-it's built configuration against a real one: the embedded gemma-3-270m
    (the base model of the same architecture), converted in the developer's cache."""
    from conftest import USER_CACHE

    from calib.models.loading import CONVERTED_VERSION
    from calib.models.shapes import shape_config

    folder = USER_CACHE / "models" / f"gemma-3-270m-{CONVERTED_VERSION}"
    if not (folder / "config.json").is_file():
        pytest.skip("the converted gemma-3-270m is not in the cache (make book converts it)")
    from transformers import AutoConfig

    real = model_shape(AutoConfig.from_pretrained(folder))
    built = model_shape(shape_config("gemma-3-270m-it"))
    assert built == real
