"""A chapter's parameters: one frozen dataclass per chapter, the only home of its defaults.

Each chapter module declares ::

    @dataclass(frozen=True)
    class Params(ChapterParams):
        chapter: ClassVar[str] = "reductions"
        models: tuple[str, ...] = parameter(("smollm2-135m-instruct", "gemma-3-270m"),
                                            "models (registry names or hub ids)")
        per_relation: int | None = parameter(1, "instances per relation (None: all of BEAR)")

Types are the annotations (as text: ``int``, ``float``, ``str``, ``bool``, ``tuple[str, ...]``,
``X | None``, ``Literal[...]``, ``dict[...]``: :func:`check_annotation`); a value of the wrong
type is a :class:`ParameterError` naming the chapter and the parameter, an unknown name one
naming the nearest known name (:meth:`ChapterParams.from_mapping`). Sequences are stored as
tuples (a list given for a ``tuple[...]`` becomes a tuple), so a ``Params`` is hashable and
cannot change.

The chapter's notebook declares the same names, types and defaults in its ``parameters`` cell
(papermill injects values there; ``tests/book/test_chapter_units.py`` checks that the cell
equals the dataclass); the book reads a converted chapter's parameters from ``Params``
(:func:`calib.book.parameters.chapter_parameters`) and checks ranges and choices by name
(:mod:`calib.book.constraints`).
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar


class ParameterError(ValueError):
    """A wrong parameter name or type for a chapter."""


def parameter(default: Any, help: str = "") -> Any:
    """A ``Params`` field with its default and help text (the notebook cell's comment).

    Parameters
    ----------
    default : object
        The parameter's default.
    help : str
        The help text (default ``""``).

    Returns
    -------
    dataclasses.Field
        The field (its ``metadata["help"]`` the help text).
    """
    return dataclasses.field(default=default, metadata={"help": help})


# ---------------------------------------------------------------------------------------------
# type annotations as text: what they allow


_SIMPLE = {
    "int": int,
    "float": float,
    "str": str,
    "bool": bool,
    "list": list,
    "dict": dict,
    "tuple": tuple,
}


def _node(annotation: str) -> ast.expr:
    return ast.parse(annotation, mode="eval").body


def check_annotation(annotation: str) -> None:
    """Raise ``ValueError`` if ``annotation`` uses anything :func:`conforms` cannot check."""

    def walk(node):
        if isinstance(node, ast.Constant) and node.value is None:
            return
        if isinstance(node, ast.Name) and (node.id in _SIMPLE or node.id in ("Any", "object")):
            return
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            walk(node.left)
            walk(node.right)
            return
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            kind = node.value.id
            if kind == "Literal":
                if all(isinstance(a, ast.Constant) for a in args):
                    return
            elif kind in ("list", "dict", "tuple", "Optional", "Union"):
                for a in args:
                    if not (isinstance(a, ast.Constant) and a.value is Ellipsis):
                        walk(a)
                return
        raise ValueError(
            f"unsupported type annotation {annotation!r}: use int, float, str, "
            f"bool, list[...], dict[..., ...], tuple[...], Literal[...], "
            f"X | None, Any"
        )

    walk(_node(annotation))


def _conforms(value, node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return value is None if node.value is None else value == node.value
    if isinstance(node, ast.Name):
        if node.id in ("Any", "object"):
            return True
        if node.id == "float":
            return isinstance(value, (int, float)) and not isinstance(value, bool)
        if node.id == "int":
            return isinstance(value, int) and not isinstance(value, bool)
        return isinstance(value, _SIMPLE[node.id])
    if isinstance(node, ast.BinOp):
        return _conforms(value, node.left) or _conforms(value, node.right)
    if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
        raise ValueError(f"unsupported type annotation {ast.unparse(node)!r}")
    args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    kind = node.value.id
    if kind in ("Optional", "Union"):
        return (kind == "Optional" and value is None) or any(_conforms(value, a) for a in args)
    if kind == "Literal":
        return any(
            isinstance(a, ast.Constant) and type(value) is type(a.value) and value == a.value
            for a in args
        )
    if kind == "list":
        return isinstance(value, list) and all(_conforms(v, args[0]) for v in value)
    if kind == "tuple":
        if not isinstance(value, (tuple, list)):
            return False
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            return all(_conforms(v, args[0]) for v in value)
        return len(value) == len(args) and all(_conforms(v, a) for v, a in zip(value, args))
    if kind == "dict":
        return isinstance(value, dict) and all(
            _conforms(k, args[0]) and _conforms(v, args[1]) for k, v in value.items()
        )
    return False


def conforms(value, annotation: str) -> bool:
    """Whether ``value`` has the type ``annotation`` names (a list passes for a ``tuple[...]``,
    an int for a ``float``)."""
    return _conforms(value, _node(annotation))


def _names(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def coerce(value, annotation: str, tuples: bool = False):
    """``value`` as ``annotation`` stores it: an int given for a ``float`` (and not also an
    ``int``) becomes a float; with ``tuples``, a list given for a ``tuple[...]`` becomes a
    tuple."""
    node = _node(annotation)
    top = (
        {node.id}
        if isinstance(node, ast.Name)
        else (
            {n.id for n in (node.left, node.right) if isinstance(n, ast.Name)}
            if isinstance(node, ast.BinOp)
            else set()
        )
    )
    if (
        "float" in top
        and "int" not in top
        and isinstance(value, int)
        and not isinstance(value, bool)
    ):
        return float(value)
    if (
        tuples
        and isinstance(value, list)
        and "tuple" in _names(node)
        and "list" not in _names(node)
    ):
        return tuple(value)
    return value


def plain(value):
    """``value`` with every tuple a list (for JSON, papermill, a profile's lists)."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


# ---------------------------------------------------------------------------------------------
# the base of every chapter's Params


def _annotation(f: dataclasses.Field) -> str:
    """A field's annotation as text (a chapter module has ``from __future__ import
    annotations``, so every annotation is a string)."""
    if not isinstance(f.type, str):
        raise TypeError(
            f"parameter {f.name!r} is annotated {f.type!r}, not as text; the chapter's "
            f"module needs `from __future__ import annotations`"
        )
    return f.type


@dataclass(frozen=True)
class Declared:
    """One parameter of a chapter as ``Params`` declares it."""

    name: str
    annotation: str
    default: Any
    help: str = ""


class ChapterParams:
    """The base of each chapter's ``@dataclass(frozen=True) class Params``: checks every
    value's type when it is made (:class:`ParameterError` naming the chapter), stores
    sequences as tuples, and reads or writes plain mappings."""

    #: the chapter's name (``notebooks/<chapter>.md``, ``calib/experiments/<chapter>.py``)
    chapter: ClassVar[str] = ""

    if TYPE_CHECKING:  # every subclass is a dataclass: what dataclasses.fields() needs
        __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def __post_init__(self):
        problems = []
        for f in dataclasses.fields(self):
            value, annotation = getattr(self, f.name), _annotation(f)
            if not conforms(value, annotation):
                problems.append(
                    f"{f.name!r} expects {annotation}, got {type(value).__name__} {value!r}"
                )
                continue
            object.__setattr__(self, f.name, coerce(value, annotation, tuples=True))
        if problems:
            raise ParameterError(f"chapter {self.chapter!r}: " + "; ".join(problems))

    @classmethod
    def declared(cls) -> dict[str, Declared]:
        """The parameters in declaration order: name, annotation (text), default, help."""
        out = {}
        for f in dataclasses.fields(cls):
            if f.default is dataclasses.MISSING:
                raise TypeError(
                    f"{cls.__qualname__}.{f.name} has no default; every chapter parameter needs one"
                )
            out[f.name] = Declared(f.name, _annotation(f), f.default, f.metadata.get("help", ""))
        return out

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]):
        """``Params`` with the defaults overridden by ``mapping``; a key that is not a
        parameter is a :class:`ParameterError` naming the chapter and the nearest name.

        Parameters
        ----------
        mapping : mapping
            Values by parameter name.

        Returns
        -------
        calib.experiments.params.ChapterParams
            The chapter's ``Params`` (an instance of the class it is called on).

        Raises
        ------
        ParameterError
            For a key that is not a parameter, or a value of the wrong type.
        """
        names = list(cls.declared())
        unknown = [k for k in mapping if k not in names]
        if unknown:
            bits = []
            for key in unknown:
                near = difflib.get_close_matches(key, names, n=1)
                bits.append(f"{key!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
            raise ParameterError(
                f"chapter {cls.chapter!r} has no parameter "
                f"{', '.join(bits)}; its parameters: {', '.join(names)}"
            )
        return cls(**dict(mapping))

    @classmethod
    def from_namespace(cls, namespace: Mapping[str, Any]):
        """``Params`` from the values of its names in ``namespace`` (a notebook's
        ``globals()`` after papermill injected the parameters); a missing name is an error.

        Parameters
        ----------
        namespace : mapping
            A namespace holding every parameter's name (other names are ignored).

        Returns
        -------
        calib.experiments.params.ChapterParams
            The chapter's ``Params`` (an instance of the class it is called on).

        Raises
        ------
        ParameterError
            For a missing name, or a value of the wrong type.
        """
        missing = [n for n in cls.declared() if n not in namespace]
        if missing:
            raise ParameterError(
                f"chapter {cls.chapter!r}: the namespace lacks the "
                f"parameter(s) {missing}; run the parameters cell first"
            )
        return cls(**{n: namespace[n] for n in cls.declared()})

    def to_dict(self) -> dict[str, Any]:
        """The values as plain JSON-able data (tuples as lists)."""
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}
