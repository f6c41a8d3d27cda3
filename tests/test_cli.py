"""The ``calib`` command line."""

import subprocess
import sys

import numpy as np

from calib.cli import main


def test_models_lists_registry(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "gemma-3-270m" in out and "tiny-bert" in out


def test_score_prints_where_scores_went(tiny_models, capsys, tmp_path):
    code = main(
        [
            "score",
            "--model",
            "tiny-llama",
            "--templates",
            "paraphrase-0..1",
            "--per-relation",
            "1",
            "--relations",
            "P30,P36",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert f"scores: {tmp_path}" in out
    assert "(2 instances x 2 templates)" in out
    assert "accuracy (Base" in out and "chance" in out
    assert list(tmp_path.rglob("chunk-*.parquet"))


def test_score_unknown_model_fails_with_message(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code = main(
        ["score", "--model", "nobody/nothing-here", "--per-relation", "1", "--relations", "P30"]
    )
    assert code == 2
    assert "not a registry name" in capsys.readouterr().err


def test_score_token_budget_is_not_part_of_the_cache_key(
    tiny_models, capsys, tmp_path, monkeypatch
):
    """``--token-budget`` reaches the scorer and changes neither the store nor the scores;
    ``--batch-size`` is gone."""
    import pytest

    import calib.scoring.clm as clm
    from calib.scoring.run import score_bear

    budgets = []
    real = clm.clm_score

    def spy(*args, **kwargs):
        budgets.append(kwargs.get("token_budget"))
        return real(*args, **kwargs)

    monkeypatch.setattr("calib.scoring.chunks.clm_score", spy)
    argv = [
        "score",
        "--model",
        "tiny-llama",
        "--templates",
        "paraphrase-0",
        "--per-relation",
        "1",
        "--relations",
        "P30,P36",
        "--cache-dir",
        str(tmp_path / "a"),
    ]
    assert main([*argv, "--token-budget", "8"]) == 0
    assert budgets == [8]
    first = capsys.readouterr().out
    assert main([*argv[:-1], str(tmp_path / "b")]) == 0
    assert budgets[-1] is None  # picked from the device
    second = capsys.readouterr().out
    # the same store layout under both roots, and the same scores to float rounding
    a, b = (
        {p.parent.relative_to(tmp_path / r) for p in (tmp_path / r).rglob("chunk-*.parquet")}
        for r in "ab"
    )
    assert a == b and len(a) == 1
    kw = dict(templates="paraphrase-0", per_relation=1, relations=["P30", "P36"], progress=False)
    sa = score_bear("tiny-llama", cache_dir=tmp_path / "a", **kw)
    sb = score_bear("tiny-llama", cache_dir=tmp_path / "b", **kw)
    assert len(budgets) == 2  # both read back from the stores
    for x, y in zip(sa["token_logprobs"], sb["token_logprobs"]):
        assert abs(float(np.sum(x)) - float(np.sum(y))) < 1e-4
    assert first.splitlines()[-1] == second.splitlines()[-1]  # same accuracy line
    with pytest.raises(SystemExit):
        main([*argv, "--batch-size", "8"])


def _entry_with(code: int, ray: bool = False) -> subprocess.CompletedProcess:
    """``calib.cli.entry`` in a fresh interpreter whose ``main`` returns ``code``, with an exit
    hook that prints ``teardown`` (and a module named ``ray`` loaded, if ``ray``)."""
    script = (
        "import atexit, sys, types, calib.cli as cli\n"
        "atexit.register(lambda: print('teardown', flush=True))\n"
        + ("sys.modules['ray'] = types.ModuleType('ray')\n" if ray else "")
        + f"cli.main = lambda: (print('said where the scores are', flush=True), {code})[1]\n"
        "cli.entry()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )


def test_a_run_stopped_by_a_signal_leaves_without_the_interpreters_teardown():
    for code in (130, 143):
        done = _entry_with(code)
        assert done.returncode == code
        assert done.stdout == "said where the scores are\n"  # flushed, and no exit hooks ran
    finished = _entry_with(0)
    assert finished.returncode == 0 and finished.stdout.endswith("teardown\n")
    with_ray = _entry_with(130, ray=True)  # Ray's exit hook must run (it leaves the cluster)
    assert with_ray.returncode == 130 and with_ray.stdout.endswith("teardown\n")
