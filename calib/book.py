"""The book: profiles, chapter runs with checked parameters, and the jupyter-book build.

Layout, relative to the *book root* (the repository root):

=================================  ==========================================================
``_config.yml``, ``_toc.yml``      jupyter-book 1 configuration. The toc lists the prose pages
                                   (``book/*.md``) and each chapter as
                                   ``_build/chapters/<name>``: the executed notebook.
``notebooks/<name>.md``            a chapter's source: a jupytext MyST notebook with one cell
                                   tagged ``parameters`` (``name: type = literal`` lines).
``_build/chapters/<name>.ipynb``   the executed chapter (a build product, replaced atomically).
``_build/failed/<name>.ipynb``     the partial notebook of a chapter's last failed run.
``_build/html``                    the built book.
=================================  ==========================================================

A :class:`Profile` gives default parameters (models, data size); :func:`run_chapter` merges
them with the caller's parameters, checks names and types against the chapter's ``parameters``
cell *before* anything runs, executes the notebook with papermill and writes it into the build
tree; :func:`build_book` runs every chapter in the toc, then ``jupyter-book build``
(``execute_notebooks: "off"``: jupyter-book never re-executes), and checks that the HTML loads
nothing from another host (:func:`offline_violations`). ``calib run`` and ``calib book``
(:func:`cli_run`, :func:`cli_book`) are the command-line entry points.
"""

from __future__ import annotations

import ast
import contextlib
import datetime as _dt
import difflib
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import tokenize
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: where executed chapters live, relative to the book root (the toc points here)
CHAPTERS_DIR = Path("_build") / "chapters"
#: where the partial notebook of a failed run is kept
FAILED_DIR = Path("_build") / "failed"
#: the built HTML
HTML_DIR = Path("_build") / "html"
#: chapter sources
NOTEBOOKS_DIR = Path("notebooks")
#: the tag of the cell that declares a chapter's parameters (papermill's convention)
PARAMETERS_TAG = "parameters"
#: the tag of the cell the runner inserts to say how a chapter was run
BANNER_TAG = "calib-run-info"

Log = Callable[[str], None]


class BookError(Exception):
    """A problem with the book: a missing chapter, a bad parameter, a failed run or build."""


class ChapterNotFound(BookError):
    """No ``notebooks/<name>.md`` for a chapter."""


class ParameterError(BookError, ValueError):
    """A wrong parameter name, type or parameters cell."""


class ChapterNotExecuted(BookError):
    """The toc lists a chapter that has no executed notebook yet."""


class ChapterFailed(BookError):
    """A cell of the chapter raised."""


# ---------------------------------------------------------------------------------------------
# profiles


@dataclass(frozen=True)
class Profile:
    """Default parameters for the chapters, by profile.

    ``shared`` values go to every chapter whose parameters cell declares that name (the shared
    names are :data:`SHARED_PARAMETERS`); ``chapters[name]`` values go to that chapter and must be
    declared there. A value may be a zero-argument callable, resolved when a chapter runs (so
    that the paper's model list is read from the registry only when needed). ``synthetic``
    profiles produce placeholder numbers; the book labels their chapters on every page.
    """

    name: str
    description: str
    label: str  # a few words for the label on every page
    shared: Mapping[str, Any]
    chapters: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    synthetic: bool = False

    def defaults_for(self, chapter: str, declared: Mapping[str, Parameter]) -> dict[str, Any]:
        """The profile's defaults for ``chapter``, restricted to the parameters it declares."""
        out = {k: _resolve(v) for k, v in self.shared.items() if k in declared}
        out.update({k: _resolve(v) for k, v in self.chapters.get(chapter, {}).items()})
        return out


def _resolve(value):
    return value() if callable(value) else value


def _paper_models() -> list[str]:
    from calib.models.registry import paper_models

    names = [spec.name for spec in paper_models()]
    if not names:
        raise BookError("the paper profile needs the model list of the paper's Table 3 "
                        "(calib/models/paper_models.csv), which is missing or empty")
    return names


#: the parameter names profiles set for every chapter that declares them
SHARED_PARAMETERS: tuple[str, ...] = ("models", "relations", "per_relation", "seed",
                                      "n_bootstrap")

#: the relations of the quick profile: two 1:1 relations (60 options), a 25-option, a 6-option
#: and a 5-option relation
QUICK_RELATIONS = ["P36", "P37", "P19", "P30", "P105"]

PROFILES: dict[str, Profile] = {
    "quick": Profile(
        name="quick",
        description=("tiny randomly initialised models on a handful of BEAR instances "
                     "(3 per relation, 5 relations): placeholder numbers that only show the "
                     "pipeline runs; used by the tests"),
        label="tiny randomly initialised models on a handful of instances",
        shared={"models": ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"],
                "relations": QUICK_RELATIONS, "per_relation": 3, "seed": 0,
                "n_bootstrap": 20},
        synthetic=True,
    ),
    "cpu": Profile(
        name="cpu",
        description=("the two embedded offline models (smollm2-135m-instruct, gemma-3-270m) "
                     "on a seeded BEAR sample of 10 instances per relation, all 60 relations"),
        label="two small offline models on a seeded BEAR sample",
        shared={"models": ["smollm2-135m-instruct", "gemma-3-270m"], "relations": None,
                "per_relation": 10, "seed": 0, "n_bootstrap": 1000},
    ),
    "paper": Profile(
        name="paper",
        description=("the 29 models of the paper's Table 3 on all of BEAR (a GPU machine "
                     "with the Hugging Face hub)"),
        label="the paper's models on all of BEAR",
        shared={"models": _paper_models, "relations": None, "per_relation": None, "seed": 0,
                "n_bootstrap": 1000},
    ),
}
DEFAULT_PROFILE = "cpu"


def get_profile(profile: str | Profile) -> Profile:
    """A profile by name (``quick``, ``cpu``, ``paper``) or the profile itself."""
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        raise BookError(f"unknown profile {profile!r}; known: {sorted(PROFILES)}") from None


# ---------------------------------------------------------------------------------------------
# paths and the toc


def book_root(root: str | os.PathLike | None = None) -> Path:
    """The book root: ``root``, else the current folder if it holds ``_toc.yml``, else the
    checkout this package lies in."""
    if root is not None:
        path = Path(root).resolve()
    else:
        cwd = Path.cwd()
        path = cwd if (cwd / "_toc.yml").is_file() else Path(__file__).resolve().parents[1]
    if not (path / "_toc.yml").is_file():
        raise BookError(f"{path} is not a book root: it has no _toc.yml (run from the "
                        f"repository root or pass root=)")
    return path


def _toc_files(node) -> list[str]:
    out: list[str] = []
    if isinstance(node, Mapping):
        for key in ("root", "file"):
            if isinstance(node.get(key), str):
                out.append(node[key])
        for value in node.values():
            if isinstance(value, (list, Mapping)):
                out += _toc_files(value)
    elif isinstance(node, list):
        for item in node:
            out += _toc_files(item)
    return out


def chapters_in_toc(root: str | os.PathLike | None = None) -> list[str]:
    """The chapter names the toc lists, in order (its ``_build/chapters/<name>`` entries)."""
    import yaml

    root = book_root(root)
    toc_path = root / "_toc.yml"
    try:
        toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise BookError(f"{toc_path}: not valid YAML: {exc}") from None
    prefix = CHAPTERS_DIR.as_posix() + "/"
    names = []
    for entry in _toc_files(toc):
        entry = entry.strip().lstrip("./")
        if entry.startswith(prefix):
            name = entry[len(prefix):]
            name = re.sub(r"\.ipynb$", "", name)
            if "/" in name or not name:
                raise BookError(f"{toc_path}: chapter entry {entry!r} must be "
                                f"{prefix}<name> (no subfolders)")
            if name in names:
                raise BookError(f"{toc_path}: chapter {name!r} is listed twice")
            names.append(name)
    return names


def available_chapters(root: str | os.PathLike | None = None) -> list[str]:
    """The chapter sources in ``notebooks/`` (names without ``.md``)."""
    folder = book_root(root) / NOTEBOOKS_DIR
    return sorted(p.stem for p in folder.glob("*.md")) if folder.is_dir() else []


def chapter_source(name: str, root: str | os.PathLike | None = None) -> Path:
    """``notebooks/<name>.md``, or :class:`ChapterNotFound` listing the chapters there are."""
    root = book_root(root)
    if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", name or ""):
        raise ChapterNotFound(f"{name!r} is not a chapter name (letters, digits, _ . -)")
    path = root / NOTEBOOKS_DIR / f"{name}.md"
    if not path.is_file():
        have = available_chapters(root)
        hint = difflib.get_close_matches(name, have, n=1)
        raise ChapterNotFound(
            f"no chapter {name!r}: {path} does not exist"
            + (f" (did you mean {hint[0]!r}?)" if hint else "")
            + f". Chapters in {root / NOTEBOOKS_DIR}: {', '.join(have) or 'none'}")
    return path


def executed_path(name: str, root: str | os.PathLike | None = None) -> Path:
    """Where the executed notebook of chapter ``name`` lives."""
    return book_root(root) / CHAPTERS_DIR / f"{name}.ipynb"


def check_chapters_executed(root: str | os.PathLike | None = None,
                            profile: str = DEFAULT_PROFILE) -> list[str]:
    """The toc's chapters; :class:`ChapterNotExecuted` naming each one without an executed
    notebook and the command that makes it."""
    root = book_root(root)
    names = chapters_in_toc(root)
    missing = [n for n in names if not executed_path(n, root).is_file()]
    if missing:
        lines = "\n".join(f"  {n}: {executed_path(n, root)} is missing; run "
                          f"`calib run {n} --profile {profile} --no-build`" for n in missing)
        raise ChapterNotExecuted(
            f"the toc ({root / '_toc.yml'}) lists chapter(s) that have not been executed:\n"
            f"{lines}\nor run `calib book --profile {profile}` to execute every chapter.")
    return names


# ---------------------------------------------------------------------------------------------
# parameters


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


def _read_notebook(path: Path):
    import jupytext

    try:
        return jupytext.read(path)
    except Exception as exc:  # jupytext raises various errors for malformed text notebooks
        raise BookError(f"{path}: cannot read it as a jupytext notebook: {exc}") from None


def _parameters_cell(nb, path: Path) -> int:
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
    nb = _read_notebook(path)
    cell = nb.cells[_parameters_cell(nb, path)]
    return parse_parameters(cell.source, where=f"{path} (parameters cell)")


def describe_parameters(params: Mapping[str, Parameter]) -> str:
    """One line per parameter: ``name: type = default  # help``."""
    return "\n".join(f"  {p.describe()}" for p in params.values()) or "  (none)"


def resolve_parameters(chapter: str, declared: Mapping[str, Parameter],
                       profile: str | Profile = DEFAULT_PROFILE,
                       params: Mapping[str, Any] | None = None, where: str = "") -> dict:
    """Profile defaults overridden by ``params``, checked against ``declared``.

    Every problem (unknown name, wrong type) is collected into one :class:`ParameterError`
    that lists the chapter's parameters with their types.
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
        if key in declared:
            try:
                checked[key] = declared[key].check(value)
            except TypeError as exc:
                source = "given" if key in (params or {}) else f"profile {prof.name!r}"
                problems.append(f"{exc} ({source})")
    if problems:
        raise ParameterError(
            f"chapter {chapter!r}: " + "; ".join(problems) + "\n"
            f"Parameters of {where or chapter} (name: type = default):\n"
            f"{describe_parameters(declared)}")
    return checked


# ---------------------------------------------------------------------------------------------
# running a chapter


#: the kernel the chapters run in: this very Python (see :func:`_kernel_environment`)
KERNEL_NAME = "calib-python3"
_STANDARD_KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}


@contextlib.contextmanager
def _kernel_environment(extra: Mapping[str, str] | None = None):
    """Run kernels and Sphinx with this process's Python and ``calib``.

    Puts a kernelspec :data:`KERNEL_NAME` whose ``argv`` is ``sys.executable`` first on
    ``JUPYTER_PATH`` (so a user's own ``python3`` kernelspec cannot swap the interpreter), puts
    the folder holding this ``calib`` first on ``PYTHONPATH``, and sets ``extra``.
    """
    package_parent = str(Path(__file__).resolve().parents[1])
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="calib-kernel-") as jupyter_dir:
        spec_dir = Path(jupyter_dir) / "kernels" / KERNEL_NAME
        spec_dir.mkdir(parents=True)
        (spec_dir / "kernel.json").write_text(json.dumps({
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (calib)", "language": "python"}), encoding="utf-8")
        paths = [package_parent, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                   if p and p != package_parent]]
        os.environ["PYTHONPATH"] = os.pathsep.join(paths)
        os.environ["JUPYTER_PATH"] = os.pathsep.join(
            [jupyter_dir, *[p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]])
        os.environ.update(extra or {})
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _format_value(value) -> str:
    return json.dumps(value) if not isinstance(value, str) else value


def rerun_command(chapter: str, profile: str, params: Mapping[str, Any]) -> str:
    """The ``calib run`` command that repeats a run."""
    parts = ["calib", "run", chapter, "--profile", profile]
    for key, value in params.items():
        parts += ["-p", key, _format_value(value)]
    return " ".join(shlex.quote(p) for p in parts)


def _run_info_cell(prof: Profile, chapter: str, values: Mapping[str, Any],
                   given: Mapping[str, Any], seconds: float, when: str):
    import nbformat

    command = rerun_command(chapter, prof.name, given)
    lines = []
    if prof.synthetic:
        lines += ["```{warning}",
                  f"**Placeholder numbers: `{prof.name}` profile.** This chapter ran on "
                  f"{prof.description}. Nothing on this page is a result about language "
                  "models or the papers.",
                  "```", ""]
    params = ", ".join(f"`{k} = {v!r}`" for k, v in values.items()) or "none"
    lines += ["```{admonition} How this chapter was run",
              ":class: note",
              f"Profile `{prof.name}` ({prof.description}); executed {when} in "
              f"{seconds:.1f} s. Parameters: {params}.",
              "",
              f"Re-run: `{command}` (see {{doc}}`/book/reproduction`).",
              "```"]
    cell = nbformat.v4.new_markdown_cell("\n".join(lines))
    cell.metadata["tags"] = [BANNER_TAG]
    return cell


def _insert_after_title(nb, cell) -> None:
    for i, existing in enumerate(nb.cells):
        if existing.cell_type == "markdown" and existing.source.lstrip().startswith("# "):
            nb.cells.insert(i + 1, cell)
            return
    nb.cells.insert(0, cell)


def _write_atomically(nb, target: Path) -> None:
    import nbformat

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            nbformat.write(nb, fh)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _first_error(nb) -> str:
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                return f"{out.get('ename')}: {out.get('evalue')}"
    return ""


def run_chapter(name: str, profile: str | Profile = DEFAULT_PROFILE,
                params: Mapping[str, Any] | None = None, *,
                root: str | os.PathLike | None = None, kernel: str = KERNEL_NAME,
                progress: bool = True, stream_output: bool = True,
                env: Mapping[str, str] | None = None, log: Log | None = print) -> Path:
    """Execute ``notebooks/<name>.md`` into ``_build/chapters/<name>.ipynb``.

    Parameters: the profile's defaults overridden by ``params``, checked before execution
    (:func:`resolve_parameters`). The notebook is converted with jupytext, run with papermill
    (working folder: the book root) and written atomically with a cell saying how it was run
    (and, for a synthetic profile, that its numbers are placeholders) plus
    ``metadata["calib"]``. On failure the previous executed notebook stays as it was, the
    partial one goes to ``_build/failed/<name>.ipynb`` and :class:`ChapterFailed` is raised.
    """
    import nbformat
    import papermill as pm

    log = log or (lambda _msg: None)
    root = book_root(root)
    prof = get_profile(profile)
    source = chapter_source(name, root)
    nb = _read_notebook(source)
    cell = nb.cells[_parameters_cell(nb, source)]
    declared = parse_parameters(cell.source, where=f"{source} (parameters cell)")
    given = dict(params or {})
    values = resolve_parameters(name, declared, prof, given, where=str(source))
    unused = [k for k in prof.shared if k not in declared]
    nb.metadata["kernelspec"] = dict(_STANDARD_KERNELSPEC)

    target = executed_path(name, root)
    failed = root / FAILED_DIR / f"{name}.ipynb"
    build = root / "_build"
    build.mkdir(parents=True, exist_ok=True)
    log(f"[calib] chapter {name!r} ({source.relative_to(root)}), profile {prof.name!r}: "
        + ", ".join(f"{k}={v!r}" for k, v in values.items())
        + (f" (profile defaults not declared by the chapter: {', '.join(unused)})"
           if unused else ""))
    started = time.time()
    when = _dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    with tempfile.TemporaryDirectory(dir=build, prefix=f".run-{name}-") as tmp:
        src_ipynb, out_ipynb = Path(tmp) / "input.ipynb", Path(tmp) / f"{name}.ipynb"
        nbformat.write(nb, src_ipynb)
        try:
            with _kernel_environment(env):
                pm.execute_notebook(
                    str(src_ipynb), str(out_ipynb), parameters=values, kernel_name=kernel,
                    language="python", cwd=str(root), progress_bar=progress,
                    stdout_file=sys.stdout if stream_output else None,
                    stderr_file=sys.stderr if stream_output else None)
        except Exception as exc:
            detail = ""
            if out_ipynb.is_file():
                partial = nbformat.read(out_ipynb, as_version=4)
                detail = _first_error(partial)
                failed.parent.mkdir(parents=True, exist_ok=True)
                os.replace(out_ipynb, failed)
            kept = (f"; the previous {target.relative_to(root)} is unchanged"
                    if target.is_file() else "")
            raise ChapterFailed(
                f"chapter {name!r} failed after {time.time() - started:.1f} s: "
                f"{detail or type(exc).__name__ + ': ' + str(exc).strip()[:2000]}\n"
                f"The partial notebook is {failed}{kept}.") from exc
        seconds = time.time() - started
        executed = nbformat.read(out_ipynb, as_version=4)
    executed.metadata["kernelspec"] = dict(_STANDARD_KERNELSPEC)
    executed.metadata["calib"] = {
        "chapter": name, "profile": prof.name, "profile_description": prof.description,
        "profile_label": prof.label,
        "synthetic": prof.synthetic, "parameters": values, "given": given,
        "executed": when, "seconds": round(seconds, 2), "command": rerun_command(
            name, prof.name, given)}
    _insert_after_title(executed, _run_info_cell(prof, name, values, given, seconds, when))
    _write_atomically(executed, target)
    with contextlib.suppress(FileNotFoundError):
        failed.unlink()
    log(f"[calib] chapter {name!r} done in {seconds:.1f} s -> {target}")
    return target


# ---------------------------------------------------------------------------------------------
# building the book


_EXTERNAL = re.compile(
    r"""<(script|link|img|iframe|source|audio|video|embed)\b[^>]*?\b(src|href)\s*=\s*["']"""
    r"""((?:https?:)?//[^"']+)["']""", re.IGNORECASE)
_CSS_EXTERNAL = re.compile(r"""(?:@import\s+|url\()\s*["']?((?:https?:)?//[^"')\s]+)""",
                           re.IGNORECASE)


def offline_violations(html_dir: str | os.PathLike) -> list[tuple[str, str]]:
    """(file, url) for each script, style sheet, font, image or frame that a built page or
    style sheet would load from another host. ``<a href>`` links are allowed."""
    html_dir = Path(html_dir)
    found = []
    for path in sorted(html_dir.rglob("*.html")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _EXTERNAL.finditer(text):
            tag, url = match.group(1).lower(), match.group(3)
            if tag == "link" and not re.search(
                    r"""rel\s*=\s*["'][^"']*(stylesheet|preload|icon|modulepreload|prefetch)""",
                    match.group(0), re.IGNORECASE):
                continue
            found.append((str(path.relative_to(html_dir)), url))
    for path in sorted(html_dir.rglob("*.css")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _CSS_EXTERNAL.finditer(text):
            found.append((str(path.relative_to(html_dir)), match.group(1)))
    return found


def _jupyter_book_command() -> list[str]:
    script = Path(sys.executable).with_name("jupyter-book")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from jupyter_book.cli.main import main; "
            "sys.exit(main())"]


def build_html(root: str | os.PathLike | None = None, *, strict: bool = False,
               profile: str = DEFAULT_PROFILE, log: Log | None = print,
               quiet: bool = False) -> Path:
    """``jupyter-book build`` the book root into ``_build/html`` from the executed chapters.

    Fails with :class:`ChapterNotExecuted` before building if a toc chapter has no executed
    notebook, with :class:`BookError` if the build fails (``strict``: on any Sphinx warning)
    or if a page would load anything from another host.
    """
    log = log or (lambda _msg: None)
    root = book_root(root)
    names = check_chapters_executed(root, profile)
    for name in names:
        source = root / NOTEBOOKS_DIR / f"{name}.md"
        if source.is_file() and source.stat().st_mtime > executed_path(name, root).stat().st_mtime:
            log(f"[calib] warning: {source.relative_to(root)} changed after chapter {name!r} "
                f"was executed; run `calib run {name}` to update it")
    log(f"[calib] building the book ({len(names)} chapter(s)) -> {root / HTML_DIR}")
    cmd = [*_jupyter_book_command(), "build", str(root), "--path-output", str(root)]
    if strict:
        cmd += ["-W", "--keep-going"]
    if quiet:
        cmd += ["-q"]
    started = time.time()
    with _kernel_environment():
        proc = subprocess.run(cmd, cwd=root, text=True, capture_output=quiet)
    if proc.returncode != 0:
        tail = ((proc.stdout or "") + (proc.stderr or ""))[-4000:] if quiet else ""
        raise BookError(f"jupyter-book build failed (exit {proc.returncode})"
                        + (" with warnings treated as errors" if strict else "")
                        + (f":\n{tail}" if tail else "; see the output above"))
    html = root / HTML_DIR
    bad = offline_violations(html)
    if bad:
        listing = "\n".join(f"  {f}: {u}" for f, u in bad[:20])
        raise BookError(f"the built book would load {len(bad)} resource(s) from other hosts:\n"
                        f"{listing}")
    log(f"[calib] book built in {time.time() - started:.1f} s: {html / 'index.html'}")
    return html


def build_book(profile: str | Profile = DEFAULT_PROFILE, *,
               root: str | os.PathLike | None = None, execute: bool = True,
               strict: bool = False, progress: bool = True, stream_output: bool = True,
               log: Log | None = print) -> Path:
    """Execute every chapter of the toc with ``profile`` (unless ``execute=False``), then
    build the HTML (:func:`build_html`). Returns ``_build/html``."""
    log = log or (lambda _msg: None)
    root = book_root(root)
    prof = get_profile(profile)
    names = chapters_in_toc(root)
    for name in names:  # every source exists and every parameters cell parses: fail early
        declared = chapter_parameters(name, root)
        resolve_parameters(name, declared, prof, {}, where=str(chapter_source(name, root)))
    started = time.time()
    if execute:
        for i, name in enumerate(names, 1):
            log(f"[calib] [{i}/{len(names)}] chapter {name}")
            run_chapter(name, prof, root=root, progress=progress, stream_output=stream_output,
                        log=log)
    html = build_html(root, strict=strict, profile=prof.name, log=log)
    log(f"[calib] profile {prof.name!r}: {len(names)} chapter(s) and the book in "
        f"{time.time() - started:.1f} s")
    return html


# ---------------------------------------------------------------------------------------------
# command line (called from calib.cli)


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


def cli_run(args) -> int:
    """``calib run CHAPTER [-p NAME VALUE]... [--profile P] [--no-build]``."""
    try:
        root = book_root(getattr(args, "root", None))
        declared = chapter_parameters(args.chapter, root)
        params = parse_cli_parameters(args.parameter, declared)
        started = time.time()
        run_chapter(args.chapter, args.profile, params, root=root)
        if not args.no_build:
            build_html(root, profile=args.profile, strict=getattr(args, "strict", False))
        print(f"[calib] total {time.time() - started:.1f} s")
    except BookError as exc:
        print(f"calib run: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ParameterError, ChapterNotFound)) else 1
    return 0


def cli_book(args) -> int:
    """``calib book [--profile P] [--no-execute] [--strict]``."""
    try:
        build_book(args.profile, root=getattr(args, "root", None),
                   execute=not getattr(args, "no_execute", False),
                   strict=getattr(args, "strict", False))
    except BookError as exc:
        print(f"calib book: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ParameterError, ChapterNotFound)) else 1
    return 0
