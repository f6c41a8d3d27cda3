"""calib as a library, installed from its built wheel into a fresh virtual environment that sees
nothing of the source tree: the wheel holds every data file of the package, and ``calib models``,
``calib score`` on a tiny model and :func:`calib.confidence.summary.summary` run from it.

The wheel is built once per session (``python -m build`` on a copy of the checkout's files, so
the checkout gets no ``build/`` or ``*.egg-info``). The fresh environment gets the wheel with
``pip install --no-deps`` and sees the heavy dependencies (torch, transformers, ...) through a
``.pth`` file naming the site-packages of the interpreter running the tests: a path there is
put on ``sys.path`` but its own ``.pth`` files (the editable install's finder of this checkout)
are not run, and the environment's own site-packages come first, so ``import calib`` finds the
wheel's copy (checked). Deselect with ``-m "not wheel"``.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import site
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

REPO = Path(__file__).resolve().parents[1]
_IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", ".*")


def _source_files() -> list[str]:
    """The checkout's files a clean clone would have (tracked, plus new files git does not
    ignore) below ``calib/`` and at the top (``pyproject.toml``, ``README.md``)."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(REPO),
                "ls-files",
                "--cached",
                "--others",
                "--exclude-standard",
                "--",
                "calib",
                "pyproject.toml",
                "README.md",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        files = [f for f in out.splitlines() if (REPO / f).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: the folder as it is
        files = []
    if not files:
        files = [
            str(p.relative_to(REPO))
            for p in (REPO / "calib").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
        ]
        files += ["pyproject.toml", "README.md"]
    return sorted(files)


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """The wheel ``python -m build`` makes (sdist first, the wheel from it), built once."""
    pytest.importorskip("build", reason="the `build` package (dev extra) is not installed")
    work = tmp_path_factory.mktemp("wheel-build")
    src = work / "src"
    for rel in _source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    wheels = list((work / "dist").glob("calib-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


@pytest.fixture(scope="session")
def venv(wheel, tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel installed and the dependencies visible."""
    root = tmp_path_factory.mktemp("wheel-venv") / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120
    )
    python = root / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deps = [p for p in site.getsitepackages() if Path(p).is_dir()]
    assert deps, "no site-packages to take the dependencies from"
    (Path(purelib) / "calib_test_dependencies.pth").write_text("\n".join(deps) + "\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        # a PYTHONPATH naming a checkout with calib.egg-info makes pip see calib as installed
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return root


def _env(tmp_path: Path) -> dict[str, str]:
    """The environment of the installed runs: no ``PYTHONPATH``, a fresh cache, the data root
    (not part of the source tree) and the hub switched off."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CALIB_CACHE_DIR")
    }
    env.update(CALIB_CACHE_DIR=str(tmp_path / "cache"), HF_HUB_OFFLINE="1", PYTHONNOUSERSITE="1")
    return env


def _source_tree_entries(path: list[str]) -> list[str]:
    """The entries of ``sys.path`` that lie in the checkout but not in a site-packages folder
    (the checkout's own virtual environment, e.g. ``.venv``, may hold the dependencies)."""
    return [
        p
        for p in path
        if p and Path(p).resolve().is_relative_to(REPO) and "site-packages" not in Path(p).parts
    ]


def test_a_checkout_folder_on_the_path_is_caught_and_a_venv_inside_it_is_not():
    assert _source_tree_entries([str(REPO), "/usr/lib/python3.11"]) == [str(REPO)]
    assert _source_tree_entries([str(REPO / "calib" / "..")]) == [str(REPO / "calib" / "..")]
    assert _source_tree_entries([str(REPO / ".venv/lib/python3.11/site-packages"), ""]) == []


def _run(args, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, f"{args}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_the_wheel_holds_every_file_of_the_package(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    package = [f for f in _source_files() if f.startswith("calib/")]
    missing = [f for f in package if f not in names]
    assert not missing, f"files of calib/ missing from {wheel.name}: {missing}"
    data = [f for f in package if not f.endswith(".py")]
    # the data files the code reads, wherever the package keeps them
    assert "calib/data/SHA256SUMS" in data and "calib/models/paper_models.csv" in data
    assert sum(f.endswith(".yaml") for f in data) >= 10  # reported values, claims
    assert not [n for n in names if n.startswith(("tests/", "notebooks/", "book/"))]


def test_the_installed_wheel_runs_models_score_and_summary(venv, tmp_path):
    data_dir = os.environ.get("CALIB_DATA_DIR")
    if not data_dir or not Path(data_dir).is_dir():
        pytest.skip("calib score needs the BEAR data (CALIB_DATA_DIR)")
    env = _env(tmp_path)
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    python = venv / "bin" / "python"
    where = _run(
        [python, "-c", "import calib, sys; print(calib.__file__); print(sys.path)"], cwd, env
    ).stdout.splitlines()
    assert Path(where[0]).resolve().is_relative_to(venv.resolve()), where
    assert not _source_tree_entries(ast.literal_eval(where[1])), where[1]

    out = _run([venv / "bin" / "calib", "models"], cwd, env).stdout
    assert "tiny-gpt2" in out and "gemma-3-270m-it" in out and "paper acc." in out

    out = _run(
        [
            venv / "bin" / "calib",
            "score",
            "--model",
            "tiny-gpt2",
            "--templates",
            "paraphrase-0..1",
            "--per-relation",
            "2",
            "--relations",
            "P30,P36",
            "--device",
            "cpu",
        ],
        cwd,
        env,
    ).stdout
    assert "(4 instances x 2 templates)" in out and "accuracy (Base" in out
    assert f"scores: {tmp_path / 'cache'}" in out

    script = """
import json, calib
from calib.confidence.estimators import base
from calib.confidence.reductions import sentence_scores
from calib.confidence.summary import summary
from calib.data.root import data_version
from calib.models.registry import registry
from calib.scoring.run import score_bear

scores = score_bear("tiny-gpt2", "paraphrase-0..1", per_relation=2, relations=["P30", "P36"],
                    device="cpu", progress=False)
table = summary(base(sentence_scores(scores), templates=None), n_boot=20)
print(json.dumps({"file": calib.__file__, "rows": len(table), "n": int(table["n"].sum()),
                  "ace": [float(v) for v in table["ace"]],
                  "models": len(registry()), "manifest": data_version()["manifest"]}))
"""
    got = json.loads(_run([python, "-c", script], cwd, env).stdout.splitlines()[-1])
    assert Path(got["file"]).resolve().is_relative_to(venv.resolve())
    assert got["rows"] == 2 and got["n"] == 8  # per template: 4 instances
    assert all(0 <= v <= 1 for v in got["ace"])
    assert got["models"] >= 35 and got["manifest"].startswith("sha256:")
    assert not list(cwd.iterdir())  # nothing written where it ran
