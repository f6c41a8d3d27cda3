"""A chapter's recorded result: what ``run(params)`` returned, written beside the executed
notebook, so that the ledger (and anyone) reads the numbers the page shows without running the
chapter again.

A record is a folder ``<build>/chapters/<chapter>.result/`` (:func:`record_path`) holding

===================  ===========================================================================
``manifest.json``    the result class (``module:qualname``), the chapter, each field's kind and
                     file, calib's version, when it was written, and (added by the book's runner
                     when it installs the record) the run's profile, command and provenance
``params.json``      the parameters the chapter ran with (``Params.to_dict()``)
``<field>.parquet``  one file per ``DataFrame`` field (dtypes kept by Parquet's pandas metadata)
``values.json``      the other fields: numbers, text, booleans, ``None``, lists and dicts of them
===================  ===========================================================================

and is written atomically: into a temporary folder beside it, renamed into place when complete
(:func:`write_record`). In a chapter run by the book the notebook's one call :func:`record`
writes into the folder the runner names in :data:`RECORD_ENV`; the runner installs it beside
the executed notebook only when the notebook succeeded, so a failed run leaves the previous
record as it was (:func:`calib.book.chapters.run_chapter`). :func:`load_record` rebuilds the
typed result object.

A result class is a frozen dataclass whose fields are ``DataFrame``, the chapter's ``Params``
(field ``params``) or JSON-able values; anything else is a ``TypeError`` naming the field.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import importlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

#: the environment variable naming the folder a chapter run records its result in
RECORD_ENV = "CALIB_RECORD_DIR"
#: a record's folder name: ``<chapter>.result``
RECORD_SUFFIX = ".result"
MANIFEST, PARAMS, VALUES = "manifest.json", "params.json", "values.json"
#: the records' folder relative to a build folder (beside the executed notebooks)
CHAPTERS_SUBDIR = "chapters"


def record_path(chapter: str, build_dir: str | os.PathLike) -> Path:
    """``<build_dir>/chapters/<chapter>.result``: where a chapter's record lies in a build.

    Parameters
    ----------
    chapter : str
        The chapter's name.
    build_dir : str or os.PathLike
        The build folder.

    Returns
    -------
    pathlib.Path
        The record's folder (it need not exist).
    """
    return Path(build_dir) / CHAPTERS_SUBDIR / f"{chapter}{RECORD_SUFFIX}"


def _class_path(obj) -> str:
    cls = type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


def _load_class(path: str):
    module, _, qualname = path.partition(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _jsonable(value) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_jsonable(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _jsonable(v) for k, v in value.items())
    return False


def _plain(value):
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def write_record(result, folder: str | os.PathLike, chapter: str | None = None) -> Path:
    """Write ``result`` (a frozen dataclass with a ``params`` field) as the record
    ``<folder>/<chapter>.result`` (``chapter``: ``result.params.chapter`` by default),
    atomically: a record already there is replaced only once the new one is complete.

    Parameters
    ----------
    result : object
        A chapter's result: a dataclass instance whose ``params`` field holds its ``Params``.
    folder : str or os.PathLike
        The folder the record is written into (made if missing).
    chapter : str or None
        The chapter's name (default ``result.params.chapter``).

    Returns
    -------
    pathlib.Path
        The record's folder.

    Raises
    ------
    TypeError
        For a result that is no dataclass instance, has no ``params`` field with a ``to_dict``,
        or holds a field that is neither a ``DataFrame``, the ``params`` nor JSON-able.
    """
    if not dataclasses.is_dataclass(result) or isinstance(result, type):
        raise TypeError(f"a recorded result is a dataclass instance, got {type(result).__name__}")
    params = getattr(result, "params", None)
    if params is None or not hasattr(params, "to_dict"):
        raise TypeError(
            f"{type(result).__name__} has no `params` field with the chapter's "
            f"Params; a result carries the parameters it was computed with"
        )
    chapter = chapter or params.chapter
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{chapter}{RECORD_SUFFIX}"
    tmp = Path(tempfile.mkdtemp(dir=folder, prefix=f".{chapter}-"))
    try:
        fields, values = {}, {}
        for f in dataclasses.fields(result):
            value = getattr(result, f.name)
            if f.name == "params":
                (tmp / PARAMS).write_text(json.dumps(value.to_dict(), indent=1), encoding="utf-8")
                fields[f.name] = {"kind": "params", "file": PARAMS}
            elif isinstance(value, pd.DataFrame):
                name = f"{f.name}.parquet"
                value.to_parquet(tmp / name)
                fields[f.name] = {"kind": "frame", "file": name}
            elif _jsonable(value):
                values[f.name] = _plain(value)
                fields[f.name] = {"kind": "value", "file": VALUES}
            else:
                raise TypeError(
                    f"{type(result).__name__}.{f.name}: a {type(value).__name__} "
                    f"cannot be recorded; use a DataFrame or JSON-able values"
                )
        (tmp / VALUES).write_text(json.dumps(values, indent=1), encoding="utf-8")
        import calib

        manifest = {
            "chapter": chapter,
            "result_class": _class_path(result),
            "params_class": _class_path(params),
            "fields": fields,
            "calib_version": calib.__version__,
            "written": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        install(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def install(source: Path, target: Path) -> None:
    """Move the complete record folder ``source`` to ``target``, replacing what was there:
    the old record is moved aside first and removed only after the new one is in place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-old-"))
        os.replace(target, old / "record")
    try:
        os.replace(source, target)
    except BaseException:
        if old is not None:
            os.replace(old / "record", target)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def record(result) -> Path | None:
    """Record ``result`` for the book: into the folder :data:`RECORD_ENV` names (set by the
    book's runner for the chapter's kernel); outside a book run nothing is written and
    ``None`` is returned. The notebook calls this once, after ``run``.

    Parameters
    ----------
    result : object
        The chapter's result, as :func:`write_record` takes it.

    Returns
    -------
    pathlib.Path or None
        The record's folder, or ``None`` outside a book run.

    Raises
    ------
    TypeError
        As in :func:`write_record`.
    """
    folder = os.environ.get(RECORD_ENV)
    if not folder:
        return None
    return write_record(result, folder)


def read_manifest(path: str | os.PathLike) -> dict:
    """The manifest of the record folder ``path``."""
    return json.loads((Path(path) / MANIFEST).read_text(encoding="utf-8"))


def _tuples(value, annotation: object):
    """JSON lists back to tuples where the field's annotation says ``tuple``."""
    if isinstance(value, list) and "tuple" in str(annotation) and "list" not in str(annotation):
        return tuple(value)
    return value


def load_record(chapter: str, build_dir: str | os.PathLike):
    """The result object of ``chapter`` recorded in ``build_dir`` (e.g. ``_build``), rebuilt as
    its class; ``FileNotFoundError`` naming the folder when the chapter has no record there.

    Parameters
    ----------
    chapter : str
        The chapter's name.
    build_dir : str or os.PathLike
        The build folder.

    Returns
    -------
    object
        The result, an instance of the class its manifest names.

    Raises
    ------
    FileNotFoundError
        When the chapter has no record in ``build_dir``.
    ValueError
        When the record lacks a field of the result class (written by another version of the
        chapter).
    """
    path = record_path(chapter, build_dir)
    if not (path / MANIFEST).is_file():
        raise FileNotFoundError(
            f"no recorded result of chapter {chapter!r} in {path} (run `calib run {chapter}`)"
        )
    return load_record_folder(path)


def load_record_folder(path: str | os.PathLike):
    """The result object of the record folder ``path``."""
    path = Path(path)
    manifest = read_manifest(path)
    cls = _load_class(manifest["result_class"])
    params_cls = _load_class(manifest["params_class"])
    values = json.loads((path / VALUES).read_text(encoding="utf-8"))
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        entry = manifest["fields"].get(f.name)
        if entry is None:
            raise ValueError(
                f"{path / MANIFEST}: no field {f.name!r} of {cls.__qualname__} "
                f"(the record was written by another version of the chapter)"
            )
        if entry["kind"] == "params":
            stored = json.loads((path / PARAMS).read_text(encoding="utf-8"))
            kwargs[f.name] = params_cls(**stored)
        elif entry["kind"] == "frame":
            kwargs[f.name] = pd.read_parquet(path / entry["file"])
        else:
            kwargs[f.name] = _tuples(values[f.name], f.type)
    return cls(**kwargs)


@contextlib.contextmanager
def recording_into(folder: str | os.PathLike):
    """Set :data:`RECORD_ENV` to ``folder`` for the block (tests, scripts)."""
    saved = os.environ.get(RECORD_ENV)
    os.environ[RECORD_ENV] = str(folder)
    try:
        yield Path(folder)
    finally:
        if saved is None:
            os.environ.pop(RECORD_ENV, None)
        else:
            os.environ[RECORD_ENV] = saved
