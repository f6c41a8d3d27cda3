"""Reading JSON and JSON-lines files with errors that name file, line and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable

from calib.data.errors import DataFormatError


def read_json(path: Path) -> Any:
    """Parse a JSON file; a syntax error names the file and line."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataFormatError(path, f"malformed JSON ({exc.msg}, column {exc.colno})",
                              line=exc.lineno) from None


def read_jsonl(path: Path, required: Iterable[str] = ()) -> list[dict]:
    """Parse a JSON-lines file into dicts (blank lines skipped).

    Each record must be an object with the ``required`` fields; a record that is not, or a line
    that is not JSON, raises :class:`DataFormatError` naming file, line and field.
    """
    required = tuple(required)
    rows = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataFormatError(path, f"malformed JSON ({exc.msg}, column {exc.colno})",
                                      line=lineno) from None
            if not isinstance(row, dict):
                raise DataFormatError(path, f"expected a JSON object, got {type(row).__name__}",
                                      line=lineno)
            for field in required:
                if field not in row:
                    raise DataFormatError(path, "missing (required field)", line=lineno,
                                          field=field)
            row["_line"] = lineno
            rows.append(row)
    return rows


def check_unique(path: Path, rows: list[dict], key: Callable[[dict], Hashable], field: str,
                 describe: Callable[[Hashable], str]) -> None:
    """Raise :class:`DataFormatError` at the first row (from :func:`read_jsonl`) whose ``key``
    repeats an earlier row's, naming both lines: ``"<describe(key)> repeats line N"``."""
    seen: dict = {}
    for row in rows:
        k = key(row)
        if k in seen:
            raise DataFormatError(path, f"{describe(k)} repeats line {seen[k]}",
                                  line=row["_line"], field=field)
        seen[k] = row["_line"]
