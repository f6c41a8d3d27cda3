"""A chapter's Params: the only home of its defaults, with types checked, sequences as tuples,
an unknown name naming the nearest one."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass
from typing import ClassVar

import pytest

from calib.experiments.params import (
    ChapterParams,
    ParameterError,
    coerce,
    conforms,
    parameter,
    plain,
)


@dataclass(frozen=True)
class Params(ChapterParams):
    chapter: ClassVar[str] = "example"

    models: tuple[str, ...] = parameter(("a", "b"), "models to score")
    per_relation: int | None = parameter(2, "instances per relation")
    level: float = parameter(0.5, "a level")
    relations: tuple[str, ...] | None = parameter(None, "relations")


def test_the_declared_parameters_are_the_fields_with_their_help():
    declared = Params.declared()
    assert list(declared) == ["models", "per_relation", "level", "relations"]
    assert declared["models"].annotation == "tuple[str, ...]"
    assert declared["models"].default == ("a", "b") and declared["models"].help == "models to score"
    assert "chapter" not in declared  # a class variable, not a parameter


def test_values_are_checked_and_stored_as_they_are_declared():
    p = Params(models=["x"], level=1, relations=["P19"])
    assert p.models == ("x",) and p.relations == ("P19",)  # lists become tuples
    assert p.level == 1.0 and isinstance(p.level, float)
    assert hash(p) == hash(Params(models=("x",), level=1.0, relations=("P19",)))
    with pytest.raises(FrozenInstanceError):
        p.level = 2.0
    with pytest.raises(
        ParameterError,
        match="chapter 'example': 'per_relation' expects int \\| None, got str 'two'",
    ):
        Params(per_relation="two")
    with pytest.raises(ParameterError, match="'models' expects"):
        Params(models=[1, 2])


def test_an_unknown_name_is_an_error_naming_the_chapter_and_the_nearest_name():
    assert Params.from_mapping({"per_relation": 3}).per_relation == 3
    with pytest.raises(
        ParameterError,
        match="chapter 'example' has no parameter "
        "'per_relatoin' \\(did you mean 'per_relation'\\?\\)",
    ):
        Params.from_mapping({"per_relatoin": 3})


def test_a_notebooks_namespace_and_plain_values():
    namespace = {
        "models": ["m"],
        "per_relation": None,
        "level": 0.1,
        "relations": None,
        "display": print,
    }
    p = Params.from_namespace(namespace)
    assert p.models == ("m",) and p.per_relation is None
    assert p.to_dict() == {"models": ["m"], "per_relation": None, "level": 0.1, "relations": None}
    with pytest.raises(ParameterError, match="lacks the parameter\\(s\\) \\['level'"):
        Params.from_namespace({"models": ["m"], "per_relation": 1})
    assert plain({"a": (1, (2,))}) == {"a": [1, [2]]}


def test_the_annotation_checks():
    assert conforms(["a"], "tuple[str, ...]") and conforms(("a",), "tuple[str, ...]")
    assert not conforms("a", "tuple[str, ...]") and conforms(None, "int | None")
    assert coerce(["a"], "tuple[str, ...] | None", tuples=True) == ("a",)
    assert coerce(["a"], "list[str]", tuples=True) == ["a"]
    assert coerce(3, "float") == 3.0 and coerce(3, "int | float") == 3


def test_a_params_class_needs_its_annotations_as_text():
    import dataclasses

    # a chapter module without `from __future__ import annotations` (real types, not text)
    untyped = dataclasses.make_dataclass(
        "Params", [("n", int, dataclasses.field(default=1))], bases=(ChapterParams,), frozen=True
    )
    with pytest.raises(TypeError, match="from __future__ import annotations"):
        untyped()
    with pytest.raises(TypeError, match="from __future__ import annotations"):
        untyped.declared()
