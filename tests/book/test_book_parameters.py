"""Chapter parameters, profiles and the toc: everything that must fail before anything runs."""

from __future__ import annotations

import argparse
import re

import pytest
from book_staging import FIXTURES, REPO, stage_book

from calib import book
from calib.book import (
    PROFILES,
    ChapterNotExecuted,
    ChapterNotFound,
    Parameter,
    ParameterError,
    chapter_parameters,
    chapters_in_toc,
    check_chapters_executed,
    parse_cli_parameters,
    parse_parameters,
    rerun_command,
    resolve_parameters,
    run_chapter,
)
from calib.book.profiles import UnknownProfile
from calib.experiments.params import plain


@pytest.fixture
def root(tmp_path):
    return stage_book(
        tmp_path / "book", {"fixture": FIXTURES / "fixture.md", "failing": FIXTURES / "failing.md"}
    )


@pytest.fixture
def no_execution(monkeypatch):
    """Make any attempt to execute a notebook fail the test."""
    import papermill

    def forbidden(*args, **kwargs):
        raise AssertionError("a notebook was executed although its parameters were wrong")

    monkeypatch.setattr(papermill, "execute_notebook", forbidden)


# -- the parameters cell ----------------------------------------------------------------------


def test_fixture_parameters_are_read_with_types_defaults_and_help(root):
    params = chapter_parameters("fixture", root)
    assert list(params) == ["n", "seed", "models", "noise", "label", "relations"]
    assert params["n"] == Parameter("n", "int", 400, "synthetic instances per model", 1)
    assert params["models"].annotation == "list[str]"
    assert params["relations"].annotation == "list[str] | None"
    assert params["relations"].default is None


def test_types_are_inferred_from_unannotated_literals():
    params = parse_parameters("a = 1\nb = 0.5\nc = 'x'\nd = True\ne = ['p', 'q']\nf = [1, 'x']\n")
    assert {k: p.annotation for k, p in params.items()} == {
        "a": "int",
        "b": "float",
        "c": "str",
        "d": "bool",
        "e": "list[str]",
        "f": "list",
    }


@pytest.mark.parametrize(
    "source, message",
    [
        ("x = compute()", "must be a literal"),
        ("x = None", "cannot infer the type"),
        ("import os", "only `name = literal`"),
        ("x: set[int] = 1", "unsupported type annotation"),
        ("x: int = 'a'", "is not a int"),
        ("x = 1\nx = 2", "declared twice"),
        ("x = (", "not valid Python"),
    ],
)
def test_bad_parameters_cells_are_rejected_with_the_line(source, message):
    with pytest.raises(ParameterError, match=re.escape(message)):
        parse_parameters(source, where="nb.md (parameters cell)")


def test_a_chapter_needs_exactly_one_parameters_cell(tmp_path):
    text = (FIXTURES / "fixture.md").read_text().replace(":tags: [parameters]\n", "")
    source = tmp_path / "noparams.md"
    source.write_text(text)
    root = stage_book(tmp_path / "b", {"noparams": source})
    with pytest.raises(ParameterError, match="exactly one code cell tagged 'parameters'"):
        chapter_parameters("noparams", root)


@pytest.mark.parametrize(
    "annotation, good, bad",
    [
        ("int", [0, -3], [True, 1.5, "1", None]),
        ("float", [0.5, 2], [False, "0.5", None]),
        ("str", ["a"], [1, None, ["a"]]),
        ("bool", [True, False], [0, "true"]),
        ("list[str]", [[], ["a", "b"]], ["a", [1], None, ("a",)]),
        ("list[str] | None", [None, ["a"]], ["a", [None]]),
        ("Optional[int]", [None, 3], [3.0]),
        ("dict[str, float]", [{}, {"a": 1, "b": 0.5}], [{"a": "x"}, {1: 0.5}, []]),
        ("tuple[int, ...]", [(1, 2), [3]], [(1, "x")]),
        ("Literal['sum', 'mean']", ["sum", "mean"], ["max", 1]),
        ("Any", [None, 1, "x"], []),
    ],
)
def test_parameter_type_checks(annotation, good, bad):
    param = Parameter("p", annotation, None)
    for value in good:
        param.check(value)
    for value in bad:
        with pytest.raises(TypeError, match=re.escape(f"expects {annotation}")):
            param.check(value)


def test_an_int_given_for_a_float_becomes_a_float():
    assert Parameter("p", "float", 0.5).check(2) == 2.0
    assert isinstance(Parameter("p", "float | None", 0.5).check(2), float)
    assert isinstance(Parameter("p", "int | float", 0.5).check(2), int)


# -- resolving: profile defaults + given values -------------------------------------------------


def test_profile_defaults_reach_only_declared_parameters_and_given_values_win(root):
    declared = chapter_parameters("fixture", root)
    values = resolve_parameters("fixture", declared, "quick", {"n": 10})
    assert values == {
        "models": PROFILES["quick"].shared["models"],
        "relations": PROFILES["quick"].shared["relations"],
        "seed": 0,
        "n": 10,
    }
    assert "per_relation" not in values  # the fixture does not declare it


def test_profile_parameters_are_a_chapters_full_settings_under_a_profile(root):
    values = book.profile_parameters("fixture", "quick", root)
    declared = chapter_parameters("fixture", root)
    assert set(values) == set(declared)
    assert values["models"] == PROFILES["quick"].shared["models"]
    assert values["n"] == declared["n"].default  # the chapter's own default where not set


def test_a_wrong_name_and_type_are_reported_together_with_the_parameter_list(root):
    declared = chapter_parameters("fixture", root)
    with pytest.raises(ParameterError) as info:
        resolve_parameters("fixture", declared, "quick", {"nn": 5, "noise": "high"})
    text = str(info.value)
    assert "no parameter 'nn' (did you mean 'n'?)" in text
    assert "parameter 'noise' expects float, got str 'high'" in text
    # the values a run with this profile gets, the notebook's default named where it differs
    assert "with profile 'quick'" in text
    for line in (
        "n: int = 400  # synthetic instances per model",
        "noise: float = 0.1",
        'models: list[str] = ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"]  # names '
        'shown in the charts (profile \'quick\'; notebook default: ["model-a", "model-b"])',
        'relations: list[str] | None = ["P36", "P37", "P19", "P30", "P105"]  # accepted from '
        "the profiles, unused here (profile 'quick'; notebook default: None)",
    ):
        assert line in [shown.strip() for shown in text.splitlines()], line


def test_a_text_given_for_a_list_says_how_to_write_the_list(root):
    declared = chapter_parameters("fixture", root)
    with pytest.raises(ParameterError) as info:
        resolve_parameters("fixture", declared, "quick", {"models": "tiny-gpt2"})
    first = str(info.value).splitlines()[0]
    assert "expects list[str], got str 'tiny-gpt2' (given)" in first
    assert """a list is written in brackets: -p models '["tiny-gpt2"]'""" in first


def test_run_chapter_fails_at_once_on_a_wrong_parameter(root, no_execution):
    with pytest.raises(ParameterError, match="no parameter 'per_relaton'") as info:
        run_chapter("fixture", "quick", {"per_relaton": 20}, root=root, log=None)
    assert "seed: int = 0" in str(info.value)
    with pytest.raises(ParameterError, match="expects int, got str"):
        run_chapter("fixture", "cpu", {"n": "many"}, root=root, log=None)
    assert not (root / "_build" / "chapters").exists()


def test_an_unknown_chapter_lists_the_chapters_there_are(root):
    with pytest.raises(ChapterNotFound, match=r"did you mean 'fixture'.*failing, fixture"):
        run_chapter("fixtur", root=root, log=None)
    with pytest.raises(ChapterNotFound, match="is not a chapter name"):
        run_chapter("../etc", root=root, log=None)


def test_an_unknown_profile_is_named(root, no_execution):
    with pytest.raises(book.BookError, match="unknown profile 'gpu'"):
        run_chapter("fixture", "gpu", root=root, log=None)
    with pytest.raises(UnknownProfile, match=r"unknown profile 'quik' \(did you mean 'quick'\?\)"):
        run_chapter("fixture", "quik", root=root, log=None)


# -- the command line -------------------------------------------------------------------------


def test_cli_values_are_yaml_except_for_plain_text_parameters(root):
    declared = chapter_parameters("fixture", root)
    values = parse_cli_parameters(
        [["per_relation", "20"], ["models", '["a", "b"]'], ["relations", "null"], ["label", "123"]],
        declared,
    )
    assert values == {"per_relation": 20, "models": ["a", "b"], "relations": None, "label": "123"}


def test_cli_run_with_a_wrong_parameter_exits_2_and_prints_the_parameters(
    root, no_execution, capsys
):
    args = argparse.Namespace(
        chapter="fixture",
        parameter=[["n", "ten"]],
        profile="quick",
        no_build=True,
        strict=False,
        root=str(root),
    )
    assert book.cli_run(args) == 2
    err = capsys.readouterr().err
    assert "parameter 'n' expects int, got str 'ten'" in err
    assert "noise: float = 0.1" in err


def test_the_cli_parser_accepts_the_documented_command():
    from calib.cli import build_parser

    args = build_parser().parse_args(
        [
            "run",
            "calibration",
            "-p",
            "per_relation",
            "20",
            "-p",
            "models",
            '["smollm2-135m-instruct"]',
        ]
    )
    assert args.chapter == "calibration" and args.profile == "cpu" and not args.no_build
    assert parse_cli_parameters(args.parameter) == {
        "per_relation": 20,
        "models": ["smollm2-135m-instruct"],
    }


def test_rerun_command_repeats_the_given_parameters():
    cmd = rerun_command("calibration", "cpu", {"per_relation": 20, "models": ["a b"]})
    assert cmd == ("calib run calibration --profile cpu -p per_relation 20 -p models '[\"a b\"]'")


# -- the toc and executed chapters ------------------------------------------------------------


def test_chapters_are_read_from_the_toc(root):
    assert chapters_in_toc(root) == ["fixture", "failing"]


def test_every_chapter_of_the_real_toc_has_a_source_with_a_parameters_cell():
    for name in chapters_in_toc(REPO):
        chapter_parameters(name, REPO)  # raises if the source or its parameters cell is bad


def test_an_unexecuted_chapter_stops_the_build_with_the_command_to_make_it(root):
    with pytest.raises(ChapterNotExecuted) as info:
        check_chapters_executed(root, "quick")
    text = str(info.value)
    assert "fixture: " in text and "failing: " in text
    assert "calib run fixture --profile quick --no-build" in text


def test_a_chapter_not_run_gets_a_page_that_says_so_and_still_counts_as_not_run(root):
    """The book is built from what was executed (issue 28): each toc chapter without an
    executed notebook gets a page with its title, "Not run in this build" and the command that
    runs it; such a page is no executed chapter for anything that asks."""
    import json

    import nbformat

    from calib.book import book_summary, is_executed, not_executed, write_not_run_pages
    from calib.book.layout import executed_path

    assert write_not_run_pages(root, "quick") == ["fixture", "failing"]
    for name in ("fixture", "failing"):
        nb = nbformat.read(executed_path(name, root), as_version=4)
        assert nb.metadata["calib"] == {
            "chapter": name,
            "not_run": True,
            "command": f"calib run {name} --profile quick",
        }
        text = "\n".join(c.source for c in nb.cells)
        assert text.startswith("# Fixture chapter" if name == "fixture" else "# ")
        assert (
            "**Not run in this build.**" in text and f"`calib run {name} --profile quick`" in text
        )
        assert not is_executed(name, root)
    assert not_executed(root) == ["fixture", "failing"]
    with pytest.raises(ChapterNotExecuted):
        check_chapters_executed(root, "quick")
    assert book_summary(root, []) == (
        "0 chapter(s) executed now; the book shows no executed chapter and 2 not run in this build"
    )
    # an executed chapter (its metadata names its profile) is left alone, and the summary
    # names the profile the chapters ran with, not the one on the command line
    path = executed_path("fixture", root)
    path.write_text(json.dumps({"metadata": {"calib": {"profile": "quick"}}, "cells": []}))
    assert write_not_run_pages(root) == ["failing"] and is_executed("fixture", root)
    assert json.loads(path.read_text())["metadata"]["calib"] == {"profile": "quick"}
    assert "`calib run failing --profile quick`" in executed_path("failing", root).read_text()
    assert book_summary(root, []) == (
        "0 chapter(s) executed now; the book shows 1 run with profile 'quick' and 1 not run in "
        "this build"
    )


def test_a_missing_data_root_stops_a_chapter_before_its_kernel(root, no_execution, monkeypatch):
    from calib.book import ChapterDataMissing
    from calib.book.commands import usage_status

    monkeypatch.setenv("CALIB_DATA_DIR", str(root / "no-data-here"))
    with pytest.raises(ChapterDataMissing) as info:
        run_chapter("fixture", "quick", root=root, log=None, params={"relations": None})
    text = str(info.value)
    assert "\n" not in text and text.startswith(
        "chapter 'fixture' cannot run: the chapter reads BEAR"
    )
    assert "'bear/metadata_relations.json' is missing under the data root" in text
    assert str(root / "no-data-here") in text and "CALIB_DATA_DIR" in text
    assert usage_status(info.value) == 2
    with pytest.raises(ChapterDataMissing):
        book.build_book("quick", root=root, log=None)  # before any chapter runs


def test_a_toc_chapter_without_a_source_fails_before_any_execution(tmp_path, no_execution):
    root = stage_book(tmp_path / "b", {"fixture": FIXTURES / "fixture.md"})
    (root / "notebooks" / "fixture.md").unlink()
    with pytest.raises(ChapterNotFound, match="no chapter 'fixture'"):
        book.build_book("quick", root=root, log=None)


# -- profiles ---------------------------------------------------------------------------------


def test_profiles_use_the_shared_names_and_the_quick_profile_is_labelled():
    assert set(PROFILES) == {"quick", "cpu", "paper"}
    for profile in PROFILES.values():
        assert set(profile.shared) <= set(book.SHARED_PARAMETERS), profile.name
        assert profile.description and profile.label
    assert PROFILES["quick"].synthetic
    assert not PROFILES["cpu"].synthetic and not PROFILES["paper"].synthetic
    assert PROFILES["cpu"].shared["models"] == ["smollm2-135m-instruct", "gemma-3-270m"]


def test_quick_and_cpu_models_are_registry_names():
    registry = pytest.importorskip("calib.models.registry")
    names = set(registry.registry())
    for profile in ("quick", "cpu"):
        missing = set(PROFILES[profile].shared["models"]) - names
        assert not missing, f"profile {profile}: {missing} not in the model registry"


def test_every_chapter_declares_the_cpu_profile_as_its_defaults():
    """A chapter opened and run by hand (papermill, Jupyter) gives what `make book` gives."""
    cpu = PROFILES["cpu"]
    checked = set()
    for name in chapters_in_toc(REPO):
        declared = chapter_parameters(name, REPO)
        for key, value in cpu.defaults_for(name, declared).items():
            assert plain(declared[key].default) == plain(value), (
                name,
                key,
                declared[key].default,
                value,
            )
            checked.add(key)
    # every value the cpu profile sets reached a chapter: none is checked against nothing
    assert checked >= set(cpu.shared)
    for chapter, values in cpu.chapters.items():
        assert set(values) <= set(chapter_parameters(chapter, REPO)), chapter


def test_the_reproduction_pages_allocation_is_derived_from_the_profiles():
    """The page includes the table generated from the profiles (no copy of their values): each
    chapter's row carries its profile's models and sample, and a chapter's override shows in
    its row alone."""
    import dataclasses
    import importlib
    from dataclasses import replace

    from calib.book.profile_sizes import allocation, allocation_markdown

    text = (REPO / "book" / "reproduction.md").read_text()
    assert "{include} ../_build/allocation.md" in text
    chapters = ["calibration", "linguistic", "ledger"]
    cpu = PROFILES["cpu"]
    frame = allocation(cpu, chapters).set_index("chapter")
    assert list(frame.index) == ["calibration", "linguistic"]  # the ledger has no models
    for chapter in frame.index:
        params = importlib.import_module(f"calib.experiments.{chapter}").Params
        values = {f.name: f.default for f in dataclasses.fields(params)}
        values.update(cpu.defaults_for(chapter, list(values)))  # the profile over the Params
        assert frame.at[chapter, "models"] == ", ".join(values["models"])
        assert f"per_relation = {values['per_relation']!r}" in frame.at[chapter, "sample"]
        assert frame.at[chapter, "facts per model"] == values["per_relation"] * 60
    moved = replace(cpu, chapters={**cpu.chapters, "linguistic": {"per_relation": 7}})
    rows = allocation(moved, chapters).set_index("chapter")
    assert rows.at["linguistic", "facts per model"] == 7 * 60
    assert rows.at["calibration", "facts per model"] == frame.at["calibration", "facts per model"]
    assert "| linguistic | " in allocation_markdown({"cpu": moved}, chapters)


# -- where things run -------------------------------------------------------------------------


def test_the_book_root_defaults_to_the_checkout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert book.book_root() == REPO
    with pytest.raises(book.BookError, match=r"has no _toc.yml"):
        book.book_root(tmp_path)


def test_kernels_and_sphinx_import_this_calib_and_run_this_python(monkeypatch):
    import json
    import os
    import sys
    from pathlib import Path

    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    with book.kernel_environment({"CALIB_X": "1"}):
        first, *rest = os.environ["PYTHONPATH"].split(os.pathsep)
        assert (Path(first) / "calib" / "book" / "__init__.py").is_file()
        assert rest == ["/elsewhere"]
        spec = (
            Path(os.environ["JUPYTER_PATH"].split(os.pathsep)[0])
            / "kernels"
            / book.KERNEL_NAME
            / "kernel.json"
        )
        assert json.loads(spec.read_text())["argv"][0] == sys.executable
        assert os.environ["CALIB_X"] == "1"
    assert os.environ["PYTHONPATH"] == "/elsewhere" and "CALIB_X" not in os.environ


def test_values_out_of_range_and_unloadable_models_fail_before_any_kernel(
    root, no_execution, monkeypatch
):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ParameterError) as info:
        run_chapter(
            "fixture",
            "quick",
            {
                "seed": -1,
                "models": ["tiny-gpt2", "tiny-gtp2"],
                "relations": ["P19", "P99999", "19"],
            },
            root=root,
            log=None,
        )
    text = str(info.value)
    assert "parameter 'seed' = -1: must be at least 0 (given)" in text
    assert (
        "model 'tiny-gtp2' is not a registry name (see `calib models`; did you mean 'tiny-gpt2'?)"
    ) in text and "HF_HUB_OFFLINE=1" in text
    assert "'P99999' is not a BEAR relation" in text
    assert "seed: int = 0" in text  # the parameter list follows
    assert not (root / "_build" / "chapters").exists()


@pytest.mark.parametrize(
    "chapter, given, message",
    [
        ("calibration", {"per_relation": 0}, "'per_relation' = 0: must be at least 1"),
        ("calibration", {"n_bootstrap": -5}, "'n_bootstrap' = -5: must be at least 1"),
        ("calibration", {"reduction": "median"}, "'reduction' = 'median': must be one of"),
        ("calibration", {"models": []}, "'models' = []: must not be empty"),
        ("answer_set", {"ks": [1, 5]}, "element 0 (1) must be at least 2"),
        ("lpaqa", {"adam_lr": 0.0}, "'adam_lr' = 0.0: must be greater than 0"),
        ("lpaqa", {"pivots": ["es", "xx"]}, "element 1 ('xx') must be one of"),
        ("factor", {"factor_subsets": ["news", "news"]}, "lists ['news'] more than once"),
        ("clm_vs_mlm", {"pair_within": "family"}, "must be one of ['probe', 'domain']"),
        (
            "start_tokens",
            {"template": "paraphrase-9"},
            "'template' = 'paraphrase-9': must be one of",
        ),
        ("reductions", {"histogram_bins": 0}, "'histogram_bins' = 0: must be at least 1"),
    ],
)
def test_the_real_chapters_check_ranges_and_choices(chapter, given, message):
    declared = chapter_parameters(chapter)
    with pytest.raises(ParameterError, match=re.escape(message)):
        resolve_parameters(chapter, declared, "quick", given)


def test_the_profiles_pass_the_value_checks():
    for chapter in chapters_in_toc(REPO):
        declared = chapter_parameters(chapter, REPO)
        for profile in ("quick", "cpu"):
            resolve_parameters(chapter, declared, profile, {})


def test_every_constraint_names_a_parameter_some_chapter_declares():
    from calib.book.constraints import CONSTRAINTS

    names = {n for c in chapters_in_toc(REPO) for n in chapter_parameters(c, REPO)}
    assert set(CONSTRAINTS) <= names
