"""Bad options of ``calib score`` and ``calib plan`` (issue 39, cases 6 and 7): each is one line
naming the option, its value and what was expected, exit 2, before any data is read or any
model is built or loaded."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fault_helpers import REPO

from calib.cli import main

SCORE = ["score", "--model", "tiny-gpt2", "--relations", "P30", "--per-relation", "1"]

#: extra options -> the start of the line expected after "calib score: "
SCORE_CASES = {
    "reversed range": (
        ["--templates", "paraphrase-4..0"],
        "--templates 'paraphrase-4..0': template range 'paraphrase-4..0' is empty",
    ),
    "no template": (["--templates", ""], "--templates '': '' selects no template"),
    "index out of range": (["--templates", "12"], "--templates '12': template index 12 is out"),
    "unknown device": (["--device", "tpu"], "--device 'tpu': 'tpu' is not a device torch knows"),
    "dtype": (["--dtype", "float8"], "--dtype 'float8': must be one of ['float32', "),
    "negative budget": (["--token-budget", "-5"], "--token-budget -5: must be at least 1"),
    "zero budget": (["--token-budget", "0"], "--token-budget 0: must be at least 1"),
    "seed": (["--seed", "-1"], "--seed -1: must be at least 0"),
    "per relation": (["--per-relation", "0"], "--per-relation 0: must be at least 1"),
}


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("case", sorted(SCORE_CASES))
def test_a_bad_score_option_is_one_line_naming_it(case, tmp_path, capsys, no_model):
    extra, expected = SCORE_CASES[case]
    code = main([*SCORE, "--cache-dir", str(tmp_path / "cache"), *extra])
    err = _one_line(capsys)
    assert code == 2
    assert err.startswith(f"calib score: {expected}"), err


def test_cuda_without_a_gpu_is_refused_before_the_model(tmp_path, capsys, no_model):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    code = main([*SCORE, "--cache-dir", str(tmp_path), "--device", "cuda"])
    assert code == 2
    assert _one_line(capsys) == (
        "calib score: --device 'cuda': device 'cuda' asked for, but CUDA is not available here"
    )


def test_a_cache_dir_that_is_a_file(tmp_path, capsys, no_model, monkeypatch):
    file = tmp_path / "cache"
    file.write_text("not a folder")
    assert main([*SCORE, "--cache-dir", str(file)]) == 2
    assert _one_line(capsys) == (
        f"calib score: --cache-dir '{file}': the cache folder {file} is a file, not a folder"
    )
    assert main([*SCORE, "--cache-dir", str(file / "sub")]) == 2
    assert _one_line(capsys).endswith(f"cannot be made: {file} is a file, not a folder")
    monkeypatch.setenv("CALIB_CACHE_DIR", str(file))
    assert main(SCORE) == 2
    assert _one_line(capsys) == (
        f"calib score: the cache folder {file} (CALIB_CACHE_DIR) is a file, not a folder"
    )


@pytest.mark.parametrize(
    "extra, expected",
    [
        (["--memory-gib", "-1"], "calib plan: --memory-gib -1.0: must be greater than 0"),
        (["--dtype", "float99"], "calib plan: --dtype 'float99': must be one of ['float32', "),
    ],
    ids=["memory", "dtype"],
)
def test_a_bad_plan_option_prints_no_plan(extra, expected, capsys, no_model):
    code = main(["plan", "--model", "tiny-gpt2", *extra])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.strip().startswith(expected) and "\n" not in captured.err.strip()


def test_plan_of_an_unknown_model_is_one_line(capsys, monkeypatch, no_model):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code = main(["plan", "--model", "nobody/nothing-here"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    err = captured.err.strip()
    assert err.startswith("calib plan: model 'nobody/nothing-here' is not a registry name"), err
    assert "\n" not in err


def _calib(args: list[str], **kwargs) -> subprocess.CompletedProcess:
    """``calib ARGS`` (:func:`calib.cli.entry`) in a subprocess."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "calib.cli", *args],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        **kwargs,
    )


def test_calib_models_with_its_output_closed():
    """``calib models >&-``: no output to write to."""
    done = _calib(["models"], preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "calib models: the standard output is closed; redirect it to a file or /dev/null instead"
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_calib_models_into_a_full_device():
    """``calib models > /dev/full``: the write fails."""
    with open("/dev/full", "w") as full:
        done = _calib(["models"], stdout=full)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "calib models: cannot write to the standard output: [Errno 28] No space left on device"
    )
