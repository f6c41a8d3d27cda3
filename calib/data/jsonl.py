"""Reading the data files (UTF-8 text, JSON, JSON lines) with errors that name file, line,
column and field.

Every loader reads through :func:`read_text`, so a byte that is not UTF-8 is reported with its
line, column and byte offset, not as a bare ``UnicodeDecodeError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable, Mapping
from pathlib import Path
from typing import Any

from calib.data.errors import DataFormatError

_BOM = b"\xef\xbb\xbf"


def read_text(path: Path) -> str:
    """The text of a UTF-8 file (a leading byte-order mark is dropped).

    A byte sequence that is not UTF-8 raises :exc:`~calib.data.errors.DataFormatError` naming the
    file, the line, the column, the byte offset and what to do; so does a folder in the
    file's place.
    """
    if Path(path).is_dir():
        raise DataFormatError(path, "is a folder; expected a data file: put the file in its place")
    data = Path(path).read_bytes()
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = data.rfind(b"\n", 0, exc.start) + 1
        column = len(data[start : exc.start].decode("utf-8", errors="replace")) + 1
        raise DataFormatError(
            path,
            f"byte 0x{data[exc.start]:02x} (byte offset {exc.start}) is not UTF-8 "
            f"({exc.reason}); data files must be UTF-8: re-save the file as UTF-8 (e.g. "
            f"`iconv -f latin1 -t utf-8`) or fetch it again",
            line=data.count(b"\n", 0, start) + 1,
            column=column,
        ) from None


def read_json(path: Path) -> Any:
    """Parse a JSON file; a syntax error names the file, line and column."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise DataFormatError(
            path, f"malformed JSON ({exc.msg})", line=exc.lineno, column=exc.colno
        ) from None


#: field kinds ``check_fields`` knows: (test, what the message says was expected)
KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "text": (lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty string"),
    "string": (lambda v: isinstance(v, str), "a string"),
    "integer": (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
    "number": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
    "strings": (
        lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
        "a list of strings",
    ),
    "list": (lambda v: isinstance(v, list), "a list"),
}


def describe(value: Any) -> str:
    """How a JSON value looks in a message: ``null``, ``true``, ``int 3``, ``str 'x'``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def check_value(
    path: Path, value: Any, kind: str, line: int | None = None, field: str | None = None
) -> Any:
    """``value`` if it is of ``kind`` (a key of :data:`KINDS`), else
    :exc:`~calib.data.errors.DataFormatError` naming file, line and field, the kind expected and the
    value found."""
    test, expected = KINDS[kind]
    if not test(value):
        raise DataFormatError(
            path, f"expected {expected}, got {describe(value)}", line=line, field=field
        )
    return value


def read_jsonl(
    path: Path,
    required: Iterable[str] = (),
    types: Mapping[str, str] | None = None,
    allow_empty: bool = False,
) -> list[dict]:
    """Parse a JSON-lines file into dicts (blank lines skipped).

    Each record must be an object with the ``required`` fields, and each field named in ``types``
    that it has must be of that kind (see :data:`KINDS`); a record that is not, a line that is not
    JSON (with its real column), a byte that is not UTF-8, or a file without any record (unless
    ``allow_empty``) raises :exc:`~calib.data.errors.DataFormatError` naming file, line and field.
    """
    required = tuple(required)
    types = dict(types or {})
    rows = []
    for lineno, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataFormatError(
                path, f"malformed JSON ({exc.msg})", line=lineno, column=exc.colno
            ) from None
        if not isinstance(row, dict):
            raise DataFormatError(path, f"expected a JSON object, got {describe(row)}", line=lineno)
        for field in required:
            if field not in row:
                raise DataFormatError(path, "missing (required field)", line=lineno, field=field)
        for field, kind in types.items():
            if field in row:
                check_value(path, row[field], kind, line=lineno, field=field)
        row["_line"] = lineno
        rows.append(row)
    if not rows and not allow_empty:
        raise DataFormatError(
            path,
            "the file holds no records (it is empty); expected one JSON "
            "object per line; restore the file",
        )
    return rows


def check_unique(
    path: Path,
    rows: list[dict],
    key: Callable[[dict], Hashable],
    field: str,
    describe: Callable[[Hashable], str],
) -> None:
    """Raise :exc:`~calib.data.errors.DataFormatError` at the first row (from :func:`read_jsonl`)
    whose ``key`` repeats an earlier row's, naming both lines: ``"<describe(key)> repeats line
    N"``."""
    seen: dict = {}
    for row in rows:
        k = key(row)
        if k in seen:
            raise DataFormatError(
                path, f"{describe(k)} repeats line {seen[k]}", line=row["_line"], field=field
            )
        seen[k] = row["_line"]
