"""One error type for bad data, which always says where the problem is."""

from __future__ import annotations

from pathlib import Path


class DataFormatError(ValueError):
    """A data file does not have the expected shape.

    The message names the file, the line (1-based, where the format has lines), the column
    (1-based, in characters, where known), the field and what was expected, e.g.
    ``bear/P19.jsonl, line 4, field 'answer_idx': ...``.
    """

    def __init__(
        self,
        path: str | Path,
        message: str,
        line: int | None = None,
        field: str | None = None,
        column: int | None = None,
    ):
        where = str(path)
        if line is not None:
            where += f", line {line}"
            if column is not None:
                where += f", column {column}"
        if field is not None:
            where += f", field {field!r}"
        super().__init__(f"{where}: {message}")
        self.path, self.line, self.field, self.column = str(path), line, field, column
