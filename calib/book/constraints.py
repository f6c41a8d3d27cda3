"""The allowed values of chapter parameters, by parameter name: the one place for ranges and
choices.

A parameter's *type* is declared in the chapter's ``parameters`` cell; its *allowed values* are
declared here, once, by name, and apply to every chapter that declares a parameter of that name
(``per_relation`` means the same in every chapter). :func:`calib.book.parameters.resolve_parameters`
checks them with the types, before a kernel starts, so ``-p per_relation 0`` or a model that
cannot be loaded here is refused at once with every problem listed. ``None`` (where the type
allows it) always passes: it means "all" or "the default".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

#: a check returns what is wrong with a value, or ``None``
Check = Callable[[Any], "str | None"]


def at_least(low: float) -> Check:
    def check(value):
        return None if value is None or value >= low else f"must be at least {low}"

    return check


def above(low: float) -> Check:
    def check(value):
        return None if value is None or value > low else f"must be greater than {low}"

    return check


def one_of(choices: Iterable) -> Check:
    choices = tuple(choices)

    def check(value):
        return None if value is None or value in choices else f"must be one of {list(choices)}"

    return check


def each(inner: Check) -> Check:
    """Every element of a list passes ``inner``; the first failure is named with its index."""

    def check(values):
        for i, value in enumerate(values or []):
            problem = inner(value)
            if problem:
                return problem if repr(value) in problem else f"element {i} ({value!r}) {problem}"
        return None

    return check


def non_empty(values) -> str | None:
    return None if values is None or len(values) else "must not be empty"


def distinct(values) -> str | None:
    dup = sorted({v for v in values or [] if list(values).count(v) > 1}, key=str)
    return None if not dup else f"lists {dup} more than once"


def all_of(*checks: Check) -> Check:
    def check(value):
        for inner in checks:
            problem = inner(value)
            if problem:
                return problem
        return None

    return check


def model(name) -> str | None:
    """A model that can be loaded here (:func:`calib.models.locate.model_problem`)."""
    from calib.models.locate import model_problem

    return model_problem(name)


def _relation(name, known: Callable[[], set[str] | None], what: str) -> str | None:
    if not re.fullmatch(r"P\d+", str(name)):
        return f"{name!r} is not a relation id like 'P19'"
    ids = known()
    if ids is not None and name not in ids:
        return f"{name!r} is not a {what} relation (the data root has {len(ids)})"
    return None


def _bear_ids() -> set[str] | None:
    """BEAR's relation ids, from the metadata under the data root (``None``: not there; the
    chapter then says so itself)."""
    from calib.data.jsonl import read_json
    from calib.data.root import data_file

    try:
        meta = read_json(data_file("bear/metadata_relations.json", download=False))
    except (OSError, ValueError):
        return None
    return set(meta) if isinstance(meta, dict) else None


def _lama_ids() -> set[str] | None:
    from calib.data.root import data_root

    ids = {p.stem for p in (data_root() / "lama" / "facts").glob("P*.jsonl")}
    return ids or None


def bear_relation(name) -> str | None:
    return _relation(name, _bear_ids, "BEAR")


def lama_relation(name) -> str | None:
    return _relation(name, _lama_ids, "LAMA T-REx")


def factor_subset(name) -> str | None:
    from calib.data.factor import OFFLINE_SUBSETS, SUBSETS, factor_path
    from calib.data.root import data_root

    if name not in SUBSETS:
        return f"must be one of {list(SUBSETS)}"
    if name not in OFFLINE_SUBSETS and not (data_root() / factor_path(name)).is_file():
        return (
            f"({factor_path(name)}) is download-only and not under the data root "
            f"{str(data_root())!r}; put the file there or choose from {list(OFFLINE_SUBSETS)}"
        )
    return None


def _choices(module: str, attribute: str) -> Check:
    """:func:`one_of` the tuple ``module.attribute``, imported when first checked."""

    def check(value):
        import importlib

        return one_of(getattr(importlib.import_module(module), attribute))(value)

    return check


_MODELS = all_of(non_empty, distinct, each(model))
_POSITIVE = at_least(1)

#: parameter name -> the check of its value (after the type check)
CONSTRAINTS: dict[str, Check] = {
    "models": _MODELS,
    "relations": all_of(non_empty, distinct, each(bear_relation)),
    "example_relations": all_of(non_empty, distinct, each(bear_relation)),
    "template": _choices("calib.data.bear", "TEMPLATE_NAMES"),
    "per_relation": _POSITIVE,
    "seed": at_least(0),
    "n_bootstrap": _POSITIVE,
    "aggregations": all_of(
        non_empty, each(_choices("calib.confidence.estimators", "AGGREGATIONS"))
    ),
    "reduction": _choices("calib.confidence.reductions", "REDUCTIONS"),
    "curve_bins": _POSITIVE,
    "recalibration_folds": at_least(2),
    "floor_draws": _POSITIVE,
    "histogram_bins": _POSITIVE,
    "max_sentences": at_least(0),
    "ks": all_of(non_empty, each(at_least(2))),
    "repeats": _POSITIVE,
    "factor_subsets": all_of(non_empty, distinct, each(factor_subset)),
    "factor_items": _POSITIVE,
    "factor_max_tokens": _POSITIVE,
    "factor_completion_words": _POSITIVE,
    "pair_within": _choices("calib.experiments.clm_vs_mlm.pairing", "SCOPES"),
    "min_instances": _POSITIVE,
    "max_gap": at_least(0),
    "lama_relations": all_of(non_empty, distinct, each(lama_relation)),
    "n_relations": _POSITIVE,
    "answer_space": _choices("calib.data.lama", "ANSWER_SPACES"),
    "train_per_relation": _POSITIVE,
    "test_per_relation": _POSITIVE,
    "top_t": _POSITIVE,
    "pivots": all_of(distinct, each(_choices("calib.prompts.translators", "PIVOT_CODES"))),
    "paraphrase_rounds": _POSITIVE,
    "ensemble_k": all_of(non_empty, each(_POSITIVE)),
    "adam_steps": _POSITIVE,
    "adam_lr": above(0),
    "reference_per_set": at_least(0),
    "bear_per_relation": _POSITIVE,
    "bear_top_k": _POSITIVE,
}


def value_problem(name: str, value) -> str | None:
    """What is wrong with ``value`` for the parameter ``name`` (``None``: nothing, or no
    constraint is declared for that name)."""
    check = CONSTRAINTS.get(name)
    return None if check is None else check(value)


#: the data a chapter reads, told by the parameters it declares: parameter name -> (the data
#: set, a file of it that every run of such a chapter reads, below the data root)
DATA_BY_PARAMETER: dict[str, tuple[str, str]] = {
    "per_relation": ("BEAR", "bear/metadata_relations.json"),
    "relations": ("BEAR", "bear/metadata_relations.json"),
    "factor_items": ("FACTOR", "factor/news_factor.csv"),
    "lama_relations": ("LAMA T-REx", "lama/relations.jsonl"),
}


def data_problem(declared: Iterable[str]) -> str | None:
    """Why the data a chapter with the parameters ``declared`` reads is not to be had here (one
    line: the data set, the file, the data root and ``CALIB_DATA_DIR``), found before its
    kernel starts; ``None`` when every such file is under the data root or was downloaded now
    from its pinned source (:func:`calib.data.root.data_file`)."""
    from calib.data.root import DataNotFoundError, data_file

    needed = dict.fromkeys(DATA_BY_PARAMETER[n] for n in declared if n in DATA_BY_PARAMETER)
    for what, relpath in needed:
        try:
            data_file(relpath)
        except (DataNotFoundError, OSError, ValueError) as exc:
            return f"the chapter reads {what}, and {exc}"
    return None
