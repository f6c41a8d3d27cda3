"""A chapter's parameters: read from its ``parameters`` cell, merged with a profile, checked.

A parameters cell holds only ``name = literal`` or ``name: type = literal  # help`` lines.
:func:`resolve_parameters` checks every name, type and value (ranges and choices are declared
once, by parameter name, in :mod:`calib.book.constraints`) *before* anything runs and lists
the chapter's parameters with their types when something is wrong.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import io
import os
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from calib.book.constraints import value_problem
from calib.book.layout import PARAMETERS_TAG, BookError, ParameterError, chapter_source
from calib.book.profiles import DEFAULT_PROFILE, Profile, get_profile


@dataclass(frozen=True)
class Parameter:
    """One line of a chapter's parameters cell: ``name: annotation = default  # help``."""

    name: str
    annotation: str
    default: Any
    help: str = ""
    line: int = 0

    def describe(self) -> str:
        text = f"{self.name}: {self.annotation} = {self.default!r}"
        return text + (f"  # {self.help}" if self.help else "")

    def check(self, value) -> Any:
        """``value`` if it has this parameter's type (an int passed for a float becomes a
        float); ``TypeError`` otherwise."""
        node = ast.parse(self.annotation, mode="eval").body
        if not _conforms(value, node):
            raise TypeError(f"parameter {self.name!r} expects {self.annotation}, got "
                            f"{type(value).__name__} {value!r}")
        return _coerce(value, node)


_SIMPLE = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict,
           "tuple": tuple}


def _check_annotation(node: ast.expr, text: str) -> None:
    """Raise ``ValueError`` if the annotation uses anything :func:`_conforms` cannot check."""
    if isinstance(node, ast.Constant) and node.value is None:
        return
    if isinstance(node, ast.Name) and (node.id in _SIMPLE or node.id in ("Any", "object")):
        return
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        _check_annotation(node.left, text)
        _check_annotation(node.right, text)
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
                    _check_annotation(a, text)
            return
    raise ValueError(f"unsupported type annotation {text!r}: use int, float, str, bool, "
                     f"list[...], dict[..., ...], tuple[...], Literal[...], X | None, Any")


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
    args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    kind = node.value.id
    if kind in ("Optional", "Union"):
        return (kind == "Optional" and value is None) or any(_conforms(value, a) for a in args)
    if kind == "Literal":
        return any(type(value) is type(a.value) and value == a.value for a in args)
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
            _conforms(k, args[0]) and _conforms(v, args[1]) for k, v in value.items())
    return False


def _coerce(value, node: ast.expr):
    floaty = (isinstance(node, ast.Name) and node.id == "float") or (
        isinstance(node, ast.BinOp) and any(isinstance(n, ast.Name) and n.id == "float"
                                            for n in (node.left, node.right))
        and not any(isinstance(n, ast.Name) and n.id == "int" for n in (node.left, node.right)))
    if floaty and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _infer_annotation(default) -> str | None:
    if isinstance(default, bool):
        return "bool"
    for kind in (int, float, str):
        if isinstance(default, kind):
            return kind.__name__
    if isinstance(default, list):
        kinds = {type(v) for v in default}
        if len(kinds) == 1 and next(iter(kinds)) in (int, float, str, bool):
            return f"list[{next(iter(kinds)).__name__}]"
        return "list"
    if isinstance(default, dict):
        return "dict"
    if isinstance(default, tuple):
        return "tuple"
    return None


def _line_comments(source: str) -> dict[int, str]:
    comments = {}
    with contextlib.suppress(tokenize.TokenError, IndentationError):
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.string.lstrip("#").strip()
    return comments


def parse_parameters(source: str, where: str = "parameters cell") -> dict[str, Parameter]:
    """The parameters declared by a ``parameters`` cell's Python ``source``.

    Each statement must be ``name = literal`` (type inferred from the literal) or
    ``name: type = literal``; a trailing comment is the parameter's help. Anything else is a
    :class:`ParameterError` naming ``where`` and the line.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ParameterError(f"{where}, line {exc.lineno}: not valid Python: {exc.msg}") from None
    comments = _line_comments(source)
    params: dict[str, Parameter] = {}
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # a docstring or a bare comment string
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            name, value_node = node.target.id, node.value
            annotation = ast.unparse(node.annotation)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            name, value_node, annotation = node.targets[0].id, node.value, None
        else:
            raise ParameterError(
                f"{where}, line {node.lineno}: a parameters cell holds only "
                f"`name = literal` or `name: type = literal` lines, got "
                f"{ast.unparse(node)!r}")
        try:
            default = ast.literal_eval(value_node)
        except ValueError:
            raise ParameterError(
                f"{where}, line {node.lineno}: the default of {name!r} must be a literal "
                f"(number, string, list, dict, None ...), got {ast.unparse(value_node)!r}"
            ) from None
        if annotation is None:
            annotation = _infer_annotation(default)
            if annotation is None:
                raise ParameterError(
                    f"{where}, line {node.lineno}: cannot infer the type of {name!r} from "
                    f"{default!r}; annotate it, e.g. `{name}: list[str] | None = None`")
        try:
            _check_annotation(ast.parse(annotation, mode="eval").body, annotation)
        except (ValueError, SyntaxError) as exc:
            raise ParameterError(f"{where}, line {node.lineno}: {name!r}: {exc}") from None
        if name in params:
            raise ParameterError(f"{where}, line {node.lineno}: {name!r} is declared twice")
        param = Parameter(name, annotation, default, comments.get(node.lineno, ""), node.lineno)
        try:
            param.check(default)
        except TypeError:
            raise ParameterError(f"{where}, line {node.lineno}: the default {default!r} of "
                                 f"{name!r} is not a {annotation}") from None
        params[name] = param
    return params


def read_notebook(path: Path):
    import jupytext

    try:
        return jupytext.read(path)
    except Exception as exc:  # jupytext raises various errors for malformed text notebooks
        raise BookError(f"{path}: cannot read it as a jupytext notebook: {exc}") from None


def parameters_cell(nb, path: Path) -> int:
    found = [i for i, cell in enumerate(nb.cells)
             if PARAMETERS_TAG in (cell.get("metadata", {}).get("tags") or [])]
    if len(found) != 1:
        raise ParameterError(
            f"{path}: a chapter needs exactly one code cell tagged {PARAMETERS_TAG!r} "
            f"(```{{code-cell}} ipython3 with :tags: [parameters]); found {len(found)}")
    if nb.cells[found[0]].cell_type != "code":
        raise ParameterError(f"{path}: the cell tagged {PARAMETERS_TAG!r} is not a code cell")
    return found[0]


def chapter_parameters(name: str, root: str | os.PathLike | None = None
                       ) -> dict[str, Parameter]:
    """The parameters a chapter declares (read from its ``parameters`` cell)."""
    path = chapter_source(name, root)
    nb = read_notebook(path)
    cell = nb.cells[parameters_cell(nb, path)]
    return parse_parameters(cell.source, where=f"{path} (parameters cell)")


def profile_parameters(chapter: str, profile: str | Profile = DEFAULT_PROFILE,
                       root: str | os.PathLike | None = None) -> dict:
    """The parameters chapter ``chapter`` runs with under ``profile`` when nothing is
    overridden: its declared defaults, then the profile's (:func:`resolve_parameters`). A
    chapter that reports on other chapters (the ledger) uses this to compute from the same
    settings, and so from the same stored scores."""
    declared = chapter_parameters(chapter, root)
    values = {name: p.default for name, p in declared.items()}
    values.update(resolve_parameters(chapter, declared, profile, {}, where=chapter))
    return values


def describe_parameters(params: Mapping[str, Parameter]) -> str:
    """One line per parameter: ``name: type = default  # help``."""
    return "\n".join(f"  {p.describe()}" for p in params.values()) or "  (none)"


def resolve_parameters(chapter: str, declared: Mapping[str, Parameter],
                       profile: str | Profile = DEFAULT_PROFILE,
                       params: Mapping[str, Any] | None = None, where: str = "") -> dict:
    """Profile defaults overridden by ``params``, checked against ``declared``.

    Every problem (unknown name, wrong type, a value outside its range or choices, a model that
    cannot be loaded here: :mod:`calib.book.constraints`) is collected into one
    :class:`ParameterError` that lists the chapter's parameters with their types.
    """
    prof = get_profile(profile)
    merged = prof.defaults_for(chapter, declared)
    profile_only = set(prof.chapters.get(chapter, {})) - set(declared)
    problems = [f"profile {prof.name!r} sets {k!r}, which the chapter does not declare"
                for k in sorted(profile_only)]
    for key, value in (params or {}).items():
        if key not in declared:
            hint = difflib.get_close_matches(key, list(declared), n=1)
            problems.append(f"no parameter {key!r}"
                            + (f" (did you mean {hint[0]!r}?)" if hint else ""))
        merged[key] = value
    checked = {}
    for key, value in merged.items():
        if key not in declared:
            continue
        source = "given" if key in (params or {}) else f"profile {prof.name!r}"
        try:
            checked[key] = declared[key].check(value)
        except TypeError as exc:
            problems.append(f"{exc} ({source})")
            continue
        problem = value_problem(key, checked[key])
        if problem:
            problems.append(f"parameter {key!r} = {value!r}: {problem} ({source})")
    if problems:
        raise ParameterError(
            f"chapter {chapter!r}: " + "; ".join(problems) + "\n"
            f"Parameters of {where or chapter} (name: type = default):\n"
            f"{describe_parameters(declared)}")
    return checked


def parse_cli_parameters(pairs: Sequence[Sequence[str]],
                         declared: Mapping[str, Parameter] | None = None) -> dict[str, Any]:
    """``-p NAME VALUE`` pairs to values: VALUE is YAML (``20``, ``'["a", "b"]'``, ``null``);
    for a parameter declared as plain ``str`` the text is taken as it is."""
    import yaml

    out: dict[str, Any] = {}
    for name, text in pairs:
        if declared and name in declared and declared[name].annotation == "str":
            out[name] = text
            continue
        try:
            out[name] = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ParameterError(f"-p {name} {text!r}: not a valid YAML value: {exc}") from None
    return out
