"""The book's layout on disk: the book root, the toc's chapters, sources and executed notebooks.

Paths are relative to the *book root* (the repository root): ``notebooks/<name>.md`` is a
chapter's source, ``_build/chapters/<name>.ipynb`` its executed notebook (the toc lists it as
``_build/chapters/<name>``), ``_build/failed/<name>.ipynb`` the partial notebook of a failed
run, ``_build/html`` the built book.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

#: where executed chapters live, relative to the book root (the toc points here)
CHAPTERS_DIR = Path("_build") / "chapters"
#: where the partial notebook of a failed run is kept
FAILED_DIR = Path("_build") / "failed"
#: the built HTML
HTML_DIR = Path("_build") / "html"
#: the intro's summary of this build's verdicts (:func:`calib.book.build.write_summary`), which
#: ``book/intro.md`` includes
SUMMARY_FILE = Path("_build") / "summary.md"
#: the profiles' allocation of facts to chapters (:func:`calib.book.build.write_allocation`),
#: which ``book/reproduction.md`` includes
ALLOCATION_FILE = Path("_build") / "allocation.md"
#: chapter sources
NOTEBOOKS_DIR = Path("notebooks")
#: the tag of the cell that declares a chapter's parameters (papermill's convention)
PARAMETERS_TAG = "parameters"
#: the tag of the cell the runner inserts to say how a chapter was run
BANNER_TAG = "calib-run-info"

Log = Callable[[str], None]


class BookError(Exception):
    """A problem with the book: a missing chapter, a bad parameter, a failed run or build."""


class NotABookRoot(BookError):
    """The folder given (or found) as the book root has no ``_toc.yml``."""


class ChapterNotFound(BookError):
    """No ``notebooks/<name>.md`` for a chapter."""


class ParameterError(BookError, ValueError):
    """A wrong parameter name, type or parameters cell."""


class ChapterNotExecuted(BookError):
    """The toc lists a chapter that has no executed notebook yet."""


class ChapterDataMissing(BookError):
    """The data a chapter reads is not under the data root and cannot be downloaded (found
    before its kernel starts, :func:`calib.book.constraints.data_problem`)."""


class ChapterFailed(BookError):
    """A cell of the chapter raised."""


def book_root(root: str | os.PathLike | None = None) -> Path:
    """The book root: ``root``, else the current folder if it holds ``_toc.yml``, else the
    checkout this package lies in."""
    if root is not None:
        path = Path(root).resolve()
    else:
        cwd = Path.cwd()
        import calib

        checkout = Path(calib.__file__).resolve().parents[1]
        path = cwd if (cwd / "_toc.yml").is_file() else checkout
    if not (path / "_toc.yml").is_file():
        raise NotABookRoot(
            f"{path} is not a book root: it has no _toc.yml (run from the "
            f"repository root or pass --root FOLDER; in Python, root=FOLDER)"
        )
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
            name = entry[len(prefix) :]
            name = re.sub(r"\.ipynb$", "", name)
            if "/" in name or not name:
                raise BookError(
                    f"{toc_path}: chapter entry {entry!r} must be {prefix}<name> (no subfolders)"
                )
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
            + f". Chapters in {root / NOTEBOOKS_DIR}: {', '.join(have) or 'none'}"
        )
    return path


def executed_path(name: str, root: str | os.PathLike | None = None) -> Path:
    """Where the executed notebook of chapter ``name`` lives."""
    return book_root(root) / CHAPTERS_DIR / f"{name}.ipynb"


#: a page written for a chapter not run is small; an executed chapter is larger than this or
#: is read to tell (:func:`is_executed`)
_NOT_RUN_MAX_BYTES = 64_000


def is_executed(name: str, root: str | os.PathLike | None = None) -> bool:
    """Whether chapter ``name`` has an executed notebook in the build (not only the page that
    says it was not run, :func:`calib.book.render.not_run_notebook`)."""
    import json

    path = executed_path(name, root)
    if not path.is_file():
        return False
    if path.stat().st_size > _NOT_RUN_MAX_BYTES:
        return True
    try:
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    except (OSError, ValueError):
        return True  # not a page calib wrote: jupyter-book will say what is wrong with it
    return not (meta.get("calib") or {}).get("not_run", False)


def chapter_title(name: str, root: str | os.PathLike | None = None) -> str:
    """The first level-1 heading (``# Title``) of a chapter's source, else its name."""
    path = chapter_source(name, root)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return name


def not_executed(root: str | os.PathLike | None = None) -> list[str]:
    """The toc's chapters that have no executed notebook in the build (:func:`is_executed`)."""
    return [n for n in chapters_in_toc(root) if not is_executed(n, root)]


def check_chapters_executed(
    root: str | os.PathLike | None = None, profile: str | None = None
) -> list[str]:
    """The toc's chapters; :class:`ChapterNotExecuted` naming each one without an executed
    notebook and the command that makes it (with ``--profile profile`` if given)."""
    root = book_root(root)
    names = chapters_in_toc(root)
    missing = [n for n in names if not is_executed(n, root)]
    if missing:
        opt = f" --profile {profile}" if profile else ""
        lines = "\n".join(
            f"  {n}: {executed_path(n, root)} is missing; run `calib run {n}{opt} --no-build`"
            for n in missing
        )
        raise ChapterNotExecuted(
            f"the toc ({root / '_toc.yml'}) lists chapter(s) that have not been executed:\n"
            f"{lines}\nor run `calib book{opt}` to execute every chapter."
        )
    return names
