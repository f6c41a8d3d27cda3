"""A chapter's parameters: declared, merged with a profile, checked.

A chapter unit (``calib/experiments/<chapter>/`` with a ``Params`` dataclass and ``run``,
:func:`chapter_unit`) declares its parameters in ``Params``, the only home of their defaults;
its notebook's ``parameters`` cell repeats them for papermill and readers and must equal the
dataclass (:func:`cell_differences`; the runner refuses a chapter whose cell differs). Any
other chapter declares them in its ``parameters`` cell alone. A parameters cell holds only
``name = literal`` or ``name: type = literal  # help`` lines.

:func:`resolve_parameters` checks every name, type and value (ranges and choices are declared
once, by parameter name, in :mod:`calib.book.constraints`) *before* anything runs and lists
the chapter's parameters with their types when something is wrong.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import importlib
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
from calib.experiments.params import check_annotation, coerce, conforms


@dataclass(frozen=True)
class Parameter:
    """One line of a chapter's parameters cell: ``name: annotation = default  # help``."""

    name: str
    annotation: str
    default: Any
    help: str = ""
    line: int = 0

    def describe(self) -> str:
        from calib.book.render import literal

        text = f"{self.name}: {self.annotation} = {literal(self.default)}"
        return text + (f"  # {self.help}" if self.help else "")

    def check(self, value) -> Any:
        """``value`` if it has this parameter's type (an int passed for a float becomes a
        float); ``TypeError`` otherwise (:func:`calib.experiments.params.conforms`)."""
        if not conforms(value, self.annotation):
            raise TypeError(
                f"parameter {self.name!r} expects {self.annotation}, got "
                f"{type(value).__name__} {value!r}"
            )
        return coerce(value, self.annotation)


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
    :exc:`~calib.book.layout.ParameterError` naming ``where`` and the line.
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
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and node.value is not None
        ):
            name, value_node = node.target.id, node.value
            annotation = ast.unparse(node.annotation)
        elif (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            name, value_node, annotation = node.targets[0].id, node.value, None
        else:
            raise ParameterError(
                f"{where}, line {node.lineno}: a parameters cell holds only "
                f"`name = literal` or `name: type = literal` lines, got "
                f"{ast.unparse(node)!r}"
            )
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
                    f"{default!r}; annotate it, e.g. `{name}: list[str] | None = None`"
                )
        try:
            check_annotation(annotation)
        except (ValueError, SyntaxError) as exc:
            raise ParameterError(f"{where}, line {node.lineno}: {name!r}: {exc}") from None
        if name in params:
            raise ParameterError(f"{where}, line {node.lineno}: {name!r} is declared twice")
        param = Parameter(name, annotation, default, comments.get(node.lineno, ""), node.lineno)
        try:
            param.check(default)
        except TypeError:
            raise ParameterError(
                f"{where}, line {node.lineno}: the default {default!r} of "
                f"{name!r} is not a {annotation}"
            ) from None
        params[name] = param
    return params


def read_notebook(path: Path):
    import jupytext

    try:
        return jupytext.read(path)
    except Exception as exc:  # noqa: BLE001 - jupytext raises many kinds for a malformed file
        raise BookError(f"{path}: cannot read it as a jupytext notebook: {exc}") from None


def parameters_cell(nb, path: Path) -> int:
    found = [
        i
        for i, cell in enumerate(nb.cells)
        if PARAMETERS_TAG in (cell.get("metadata", {}).get("tags") or [])
    ]
    if len(found) != 1:
        raise ParameterError(
            f"{path}: a chapter needs exactly one code cell tagged {PARAMETERS_TAG!r} "
            f"(```{{code-cell}} ipython3 with :tags: [parameters]); found {len(found)}"
        )
    if nb.cells[found[0]].cell_type != "code":
        raise ParameterError(f"{path}: the cell tagged {PARAMETERS_TAG!r} is not a code cell")
    return found[0]


def chapter_unit(name: str):
    """The module ``calib.experiments.<name>`` when the chapter is a chapter unit (it has
    ``Params`` and ``run``), else ``None``."""
    try:
        module = importlib.import_module(f"calib.experiments.{name}")
    except ModuleNotFoundError as exc:
        if exc.name in (f"calib.experiments.{name}", "calib.experiments"):
            return None
        raise
    return module if hasattr(module, "Params") and hasattr(module, "run") else None


def unit_parameters(params_class) -> dict[str, Parameter]:
    """A chapter unit's ``Params`` as :class:`Parameter` s (name, annotation, default,
    help)."""
    return {
        d.name: Parameter(d.name, d.annotation, d.default, d.help)
        for d in params_class.declared().values()
    }


def cell_parameters(name: str, root: str | os.PathLike | None = None) -> dict[str, Parameter]:
    """The parameters a chapter's notebook declares in its ``parameters`` cell."""
    path = chapter_source(name, root)
    nb = read_notebook(path)
    cell = nb.cells[parameters_cell(nb, path)]
    return parse_parameters(cell.source, where=f"{path} (parameters cell)")


def cell_differences(cell: Mapping[str, Parameter], declared: Mapping[str, Parameter]) -> list[str]:
    """Where a notebook's parameters cell differs from its chapter's ``Params`` (names, order,
    annotations, defaults, help), one phrase each; empty when they are equal."""
    out = []
    if list(cell) != list(declared):
        out.append(f"the cell declares {list(cell)}, Params {list(declared)}")
    for key in [k for k in declared if k in cell]:
        a, b = cell[key], declared[key]
        for what in ("annotation", "default", "help"):
            if getattr(a, what) != getattr(b, what):
                out.append(
                    f"{key}: the cell's {what} is {getattr(a, what)!r}, Params' "
                    f"{getattr(b, what)!r}"
                )
    return out


def chapter_parameters(name: str, root: str | os.PathLike | None = None) -> dict[str, Parameter]:
    """The parameters a chapter declares: a chapter unit's ``Params``
    (:func:`unit_parameters`), else its ``parameters`` cell."""
    unit = chapter_unit(name)
    if unit is not None:
        return unit_parameters(unit.Params)
    return cell_parameters(name, root)


def profile_parameters(
    chapter: str, profile: str | Profile = DEFAULT_PROFILE, root: str | os.PathLike | None = None
) -> dict:
    """The parameters chapter ``chapter`` runs with under ``profile`` when nothing is
    overridden: its declared defaults, then the profile's (:func:`resolve_parameters`)."""
    declared = chapter_parameters(chapter, root)
    values = {name: p.default for name, p in declared.items()}
    values.update(resolve_parameters(chapter, declared, profile, {}, where=chapter))
    return values


def describe_parameters(
    params: Mapping[str, Parameter],
    values: Mapping[str, Any] | None = None,
    profile: str | None = None,
) -> str:
    """One line per parameter: ``name: type = value  # help``, the value being the one a run
    gets (``values``: e.g. the profile's, :meth:`~calib.book.profiles.Profile.defaults_for`;
    where it differs from the notebook's default, the comment names both)."""
    from calib.book.render import literal

    lines = []
    for p in params.values():
        if values is None or p.name not in values or values[p.name] == p.default:
            lines.append(f"  {p.describe()}")
            continue
        text = f"{p.name}: {p.annotation} = {literal(values[p.name])}"
        where = f"profile {profile!r}" if profile else "given"
        note = f"{where}; notebook default: {literal(p.default)}"
        lines.append(f"  {text}  # " + (f"{p.help} ({note})" if p.help else note))
    return "\n".join(lines) or "  (none)"


def list_hint(key: str, annotation: str, value) -> str:
    """For a single text given where a list is expected: how to write the list (YAML, as
    ``-p`` reads it); else ``""``."""
    if isinstance(value, str) and annotation.replace(" ", "").startswith(("list[", "tuple[")):
        return (
            f'; a list is written in brackets: -p {key} \'["{value}"]\' (several: \'["a", "b"]\')'
        )
    return ""


def resolve_parameters(
    chapter: str,
    declared: Mapping[str, Parameter],
    profile: str | Profile = DEFAULT_PROFILE,
    params: Mapping[str, Any] | None = None,
    where: str = "",
) -> dict:
    """Profile defaults overridden by ``params``, checked against ``declared``.

    Every problem (unknown name, wrong type, a value outside its range or choices, a model that
    cannot be loaded here: :mod:`calib.book.constraints`) is collected into one
    :exc:`~calib.book.layout.ParameterError` that lists the chapter's parameters with their types.
    """
    prof = get_profile(profile)
    merged = prof.defaults_for(chapter, declared)
    profile_only = set(prof.chapters.get(chapter, {})) - set(declared)
    problems = [
        f"profile {prof.name!r} sets {k!r}, which the chapter does not declare"
        for k in sorted(profile_only)
    ]
    for key, value in (params or {}).items():
        if key not in declared:
            hint = difflib.get_close_matches(key, list(declared), n=1)
            problems.append(
                f"no parameter {key!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
            )
        merged[key] = value
    checked = {}
    for key, value in merged.items():
        if key not in declared:
            continue
        source = "given" if key in (params or {}) else f"profile {prof.name!r}"
        try:
            checked[key] = declared[key].check(value)
        except TypeError as exc:
            problems.append(f"{exc} ({source}){list_hint(key, declared[key].annotation, value)}")
            continue
        problem = value_problem(key, checked[key])
        if problem:
            problems.append(f"parameter {key!r} = {value!r}: {problem} ({source})")
    if problems:
        defaults = prof.defaults_for(chapter, declared)
        raise ParameterError(
            f"chapter {chapter!r}: " + "; ".join(problems) + "\n"
            f"Parameters of {where or chapter} with profile {prof.name!r} (name: type = "
            f"value):\n{describe_parameters(declared, defaults, prof.name)}"
        )
    return checked


def parse_cli_parameters(
    pairs: Sequence[Sequence[str]], declared: Mapping[str, Parameter] | None = None
) -> dict[str, Any]:
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
