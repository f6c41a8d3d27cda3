"""The book's API part (``book/api/``) and the methods page's links into it.

One strict build (Sphinx warnings are errors, and ``nitpicky`` from ``_config.yml``: every
cross-reference must resolve) of the book's prose pages and API pages, staged from the real
``_config.yml`` and ``book/`` without any chapter (nothing is executed), then the same build
again with one broken role planted on the methods page: it must fail and name the role.
"""

from __future__ import annotations

import importlib
import pkgutil
import posixpath
import re

import pytest
import yaml
from book_staging import REPO, stage_book

from calib.book import BookError, build_html, chapters_in_toc

#: the packages the API part documents, one page each (``book/api/<name>.md``)
PACKAGES = ("confidence", "scoring", "data", "models", "experiments", "report", "prompts")
#: a MyST role naming a Python object: {py:func}`calib.x.y` or {py:func}`~calib.x.y`
ROLE = re.compile(r"\{py:(mod|func|class|exc|data|meth|attr)\}`~?([\w.]+)`")
#: a role that cannot resolve, planted to see the build fail
BROKEN = "calib.confidence.no_such_function"
#: role -> the inventory types it may resolve to
ROLE_TYPES = {
    "mod": {"py:module"},
    "func": {"py:function"},
    "class": {"py:class", "py:exception"},
    "exc": {"py:exception", "py:class"},
    "data": {"py:data"},
    "meth": {"py:method"},
    "attr": {"py:attribute", "py:property"},
}


def roles(text: str) -> list[tuple[str, str]]:
    """The (role, target) of every Python role in a MyST page's text."""
    return ROLE.findall(text)


def prose(notebook_text: str) -> str:
    """A jupytext notebook's markdown: its text without the code cells."""
    return re.sub(r"```\{code-cell\}.*?\n```", "", notebook_text, flags=re.S)


@pytest.fixture(scope="module")
def api_book(tmp_path_factory):
    """(root, html, methods_html, failure): the strict build of the prose and API pages, the
    methods page it built, and the message of the same build with :data:`BROKEN` planted on
    the methods page (``None`` if that build passed)."""
    root = stage_book(tmp_path_factory.mktemp("api-book"), {})
    html = build_html(root, strict=True, quiet=True, log=None)
    methods_html = (html / "book" / "methods.html").read_text(encoding="utf-8")
    methods = root / "book" / "methods.md"
    text = methods.read_text(encoding="utf-8")
    # incremental: only the methods page is read again
    methods.write_text(text + f"\n\nA planted role: {{py:func}}`{BROKEN}`.\n", encoding="utf-8")
    failure = None
    try:
        build_html(root, strict=True, quiet=True, log=None)
    except BookError as exc:
        failure = str(exc)
    finally:
        methods.write_text(text, encoding="utf-8")
    return root, html, methods_html, failure


@pytest.fixture(scope="module")
def inventory(api_book):
    """The built book's ``objects.inv``: {type: {name: ...}}."""
    from sphinx.util.inventory import InventoryFile

    _, html, _, _ = api_book
    with open(html / "objects.inv", "rb") as fh:
        return InventoryFile.load(fh, "", posixpath.join)


def test_the_config_is_strict_offline_and_nitpicky():
    config = yaml.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))["sphinx"]
    settings = config["config"]
    assert settings["nitpicky"] is True
    for ext in ("sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.napoleon"):
        assert ext in settings["extensions"] and ext in config["extra_extensions"]
    assert not any("intersphinx" in e for e in settings["extensions"])
    assert settings["autosummary_generate"] is False  # nothing is written into the sources
    # the exemptions are for other libraries' names: a calib target is never exempt
    for _, pattern in settings["nitpick_ignore_regex"]:
        assert not re.fullmatch(pattern, BROKEN), pattern
        assert not re.fullmatch(pattern, "calib.scoring"), pattern


def test_the_api_part_is_in_the_toc_and_not_a_chapter():
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    captions = [part["caption"] for part in toc["parts"]]
    assert captions.index("API") == captions.index("Back matter") - 1
    api = toc["parts"][captions.index("API")]["chapters"]
    listed = [api[0]["file"]] + [s["file"] for s in api[0].get("sections", [])]
    pages = sorted(
        p.with_suffix("").relative_to(REPO).as_posix() for p in (REPO / "book" / "api").glob("*.md")
    )
    assert sorted(listed) == pages
    assert {f"book/api/{name}" for name in PACKAGES} <= set(listed)
    assert not any(name.startswith("api") for name in chapters_in_toc(REPO))


def test_the_prose_and_api_pages_build_strictly(api_book):
    _, html, _, _ = api_book
    for name in ("index", *PACKAGES):
        assert (html / "book" / "api" / f"{name}.html").is_file(), name


def test_every_api_page_lists_every_module_of_its_package(api_book):
    _, html, _, _ = api_book
    for name in PACKAGES:
        package = importlib.import_module(f"calib.{name}")
        modules = sorted(m.name for m in pkgutil.iter_modules(package.__path__))
        source = (REPO / "book" / "api" / f"{name}.md").read_text(encoding="utf-8")
        table = re.search(r"\.\. autosummary::\n(?:   :\w+:.*\n)*\n((?:   \S+\n)+)", source)
        assert table, name
        assert sorted(table.group(1).split()) == modules, name
        page = (html / "book" / "api" / f"{name}.html").read_text(encoding="utf-8")
        for module in modules:
            # the module's entry (automodule) is on the page, and the table links it
            assert f'id="module-calib.{name}.{module}"' in page, (name, module)
            assert f'href="#module-calib.{name}.{module}"' in page, (name, module)
    index = (REPO / "book" / "api" / "index.md").read_text(encoding="utf-8")
    for name in PACKAGES:
        assert f"   calib.{name}\n" in index, name


def test_every_module_of_a_chapter_package_has_its_entry(api_book):
    """A chapter is a package (``calib/experiments/<chapter>/``): each of its modules, at any
    depth, has its ``automodule`` section on the experiments page."""
    _, html, _, _ = api_book
    import calib.experiments

    source = (REPO / "book" / "api" / "experiments.md").read_text(encoding="utf-8")
    page = (html / "book" / "api" / "experiments.html").read_text(encoding="utf-8")
    packages = [m for m in pkgutil.iter_modules(calib.experiments.__path__) if m.ispkg]
    assert len(packages) >= 8
    for package in packages:
        name = f"calib.experiments.{package.name}"
        modules = [name] + [
            m.name
            for m in pkgutil.walk_packages(importlib.import_module(name).__path__, f"{name}.")
        ]
        for module in modules:
            assert f".. automodule:: {module}\n" in source, module
            assert f'id="module-{module}"' in page, module


def test_every_role_on_the_methods_page_links_its_api_entry(api_book):
    _, _, methods_html, _ = api_book
    source = (REPO / "book" / "methods.md").read_text(encoding="utf-8")
    named = roles(source)
    assert len(named) >= 30
    links = re.findall(r'<a class="reference internal" href="api/\w+\.html#([^"]+)"', methods_html)
    assert len(links) == len(named)
    for role, target in named:
        anchor = f"module-{target}" if role == "mod" else target
        assert anchor in links, (role, target)
    # every calib name in backticks is a role (a module, function or class named in code)
    assert not re.findall(r"(?<![`}])`calib\.[\w.]+`", source)


def test_every_role_in_the_prose_and_the_extending_chapter_resolves(inventory):
    pages = [*sorted((REPO / "book").rglob("*.md")), REPO / "notebooks" / "extending.md"]
    found = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        if page.parent.name == "notebooks":
            text = prose(text)
        for role, target in roles(text):
            types = [t for t in ROLE_TYPES[role] if target in inventory.get(t, {})]
            assert types, f"{page.relative_to(REPO)}: {{py:{role}}}`{target}` is not in the API"
            found += 1
    assert found >= 39


def test_a_broken_role_fails_the_build_and_is_named(api_book):
    _, _, _, failure = api_book
    assert failure is not None, "the build with a broken role passed"
    assert BROKEN in failure
    # it is the only problem: everything else resolved
    assert len(re.findall(r"reference target not found", failure)) == 1, failure


#: the public functions (and classes, and ``Class.method``) whose docstrings have numpydoc
#: sections so far (issue 20); one added here must keep them
WITH_SECTIONS = {
    "calib.confidence.reductions": ("sentence_scores", "harmonic_mean"),
    "calib.confidence.probabilities": (
        "log_softmax",
        "option_probabilities",
        "template_predictions",
    ),
    "calib.confidence.estimators": (
        "base",
        "margin",
        "average",
        "consistency",
        "entropy",
        "entropy_normalised",
        "linguistic",
        "rejection_rate",
        "all_estimates",
    ),
    "calib.confidence.metrics": (
        "ace",
        "ece",
        "mce",
        "rms_calibration_error",
        "signed_gap",
        "brier",
        "accuracy",
        "calibration_curve",
        "auroc",
        "aurc",
        "accuracy_rejection_curve",
        "accuracy_per_relation",
    ),
    "calib.confidence.noise_floor": (
        "floor_draws",
        "noise_floor",
        "floor_record",
        "mean_floor_record",
    ),
    "calib.confidence.recalibration": (
        "relation_folds",
        "fit_temperature",
        "temperature_scaling",
        "fit_platt",
        "platt_transform",
        "platt_scaling",
    ),
    "calib.confidence.selective": (
        "risk_coverage_curve",
        "selective_prediction",
        "selective_differences",
    ),
    "calib.confidence.summary": ("gap_direction", "summary", "compare_reductions"),
    "calib.confidence.gap": ("signed_gaps", "gap_by_range"),
    "calib.confidence.bootstrap": (
        "bootstrap_metrics",
        "bootstrap_interval",
        "paired_difference",
        "paired_estimates_difference",
        "estimator_differences",
        "correlation_interval",
    ),
    "calib.confidence.subsample": ("subsample_options", "subsample_repeats"),
    "calib.confidence.schema": ("check_sentence_scores",),
    "calib.confidence.reliability": (
        "wilson_interval",
        "reliability_curve",
        "confidence_histogram",
        "reliability_diagram",
    ),
    "calib.scoring.run": (
        "ScoringInterrupted",
        "scoring_options",
        "score_store",
        "score_queries",
        "score_bear",
    ),
    "calib.data.bear": ("template_names", "load_bear", "one_to_one_relations"),
    "calib.data.factor": ("factor_path", "load_factor"),
    "calib.data.lama": (
        "load_relations",
        "load_lama",
        "answer_spaces",
        "load_sentences",
        "load_lpaqa_prompts",
    ),
    "calib.data.root": (
        "data_root",
        "checksums",
        "source_for",
        "data_file",
        "data_files",
        "data_version",
    ),
    "calib.data.reported": ("all_tables", "available_tables", "metadata", "reported"),
    "calib.models.registry": ("split_revision", "get_spec"),
    "calib.models.loading": ("dtype_name", "model_key", "load_model"),
    "calib.models.locate": ("model_ref",),
    "calib.models.fingerprint": ("model_fingerprint",),
    **{
        f"calib.experiments.{chapter}": ("run", "analyse")
        for chapter in (
            "calibration",
            "linguistic",
            "answer_set",
            "clm_vs_mlm",
            "lpaqa",
            "reductions",
            "factor",
            "start_tokens",
        )
    },
    "calib.experiments.ledger": ("run",),
    "calib.experiments.verdicts": (
        "Judgement.untestable",
        "Judgement.not_run",
        "unit_tally",
        "verdict_counts",
        "counts_sentence",
    ),
    "calib.experiments.claims": ("section_key", "Claim.judge_paper", "Claim.judge_build"),
    "calib.experiments.quantifiers": (
        "printed",
        "mean_of_printed",
        "unit_status",
        "every_verdict",
        "most_verdict",
        "every",
        "most",
        "on_average",
    ),
    "calib.experiments.params": (
        "parameter",
        "ChapterParams.from_mapping",
        "ChapterParams.from_namespace",
    ),
    "calib.experiments.records": ("record_path", "write_record", "record", "load_record"),
}


def test_the_public_functions_have_parameters_and_returns_sections():
    import inspect

    for module, names in WITH_SECTIONS.items():
        mod = importlib.import_module(module)
        for name in names:
            fn = mod
            for part in name.split("."):
                fn = getattr(fn, part)
            doc = inspect.getdoc(fn) or ""
            if inspect.isclass(fn):  # a class documents its constructor's parameters
                assert "\nParameters\n----------\n" in doc, f"{module}.{name}"
            else:
                assert "\nReturns\n-------\n" in doc, f"{module}.{name}"
            # "name : type", or "*args" / "**kwargs" on a line of their own
            documented = {
                a or b for a, b in re.findall(r"^(?:(\w+) :|\*\*?(\w+)$)", doc, flags=re.M)
            }
            for parameter in inspect.signature(fn).parameters:
                if parameter in ("self", "cls"):
                    continue
                assert parameter in documented, f"{module}.{name}: {parameter}"
