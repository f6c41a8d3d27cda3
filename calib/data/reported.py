"""The papers' reported numbers, kept as data beside (never mixed into) calib's own results.

One YAML file per table or figure lives in ``calib/data/reported/``; ``README.md`` there lists
them, where each came from and what could not be recovered. A file holds values exactly as the
source prints or stores them (never computed here) plus the metadata a chapter needs to label
them "reported in the paper":

``id``
    the file's stem, e.g. ``kissling2026_table1``.
``status``
    ``complete`` (every value of the table/figure is here), ``partial`` (some are; ``missing``
    says which are not) or ``not_recovered`` (no values; ``missing`` says why, and ``columns``
    still declares the table's layout so it can be filled in later).
``label``
    how the book should caption the values, e.g. "reported in the paper".
``paper``
    ``citation``, ``arxiv_id``, ``arxiv_version``, ``arxiv_url``.
``table``, ``section``
    the table or figure and the paper section it belongs to (``unknown`` when not visible).
``source``
    ``kind`` (``paper``, ``repository`` or ``none``), ``where`` (address or file) and, for a
    repository, ``commit``.
``caption``
    what the rows and columns mean.
``columns``
    a list of ``{name, unit, description}``; ``unit`` is one of :data:`UNITS`.
``rows``
    a list of lists, one value per column in column order; ``null`` marks a value left out
    (``missing`` then says why).

Use :func:`reported` for a table as a DataFrame (its metadata in ``frame.attrs``),
:func:`metadata` for the metadata alone, :func:`available_tables` / :func:`all_tables` for ids.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from calib.data.errors import DataFormatError

REPORTED_DIR = Path(__file__).with_name("reported")

STATUSES = ("complete", "partial", "not_recovered")
SOURCE_KINDS = ("paper", "repository", "none")
#: unit -> allowed closed range of values (``None``: no range; ``label``: text)
UNITS: dict[str, tuple[float, float] | None] = {
    "fraction": (0.0, 1.0),  # accuracy, ACE, Brier, confidence as a number in [0, 1]
    "percent": (0.0, 100.0),  # the same quantities printed in percent
    "count": None,  # a non-negative integer (e.g. number of answer options)
    "number": None,  # any finite number (a value whose unit another column names)
    "label": None,  # text: a model name, an estimator, a prompt set
}
REQUIRED_KEYS = (
    "id",
    "status",
    "label",
    "paper",
    "table",
    "section",
    "source",
    "caption",
    "columns",
    "rows",
)
PAPER_KEYS = ("citation", "arxiv_id", "arxiv_version", "arxiv_url")
SOURCE_KEYS = ("kind", "where")


def _yaml_loader():
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _table_path(table_id: str, directory: Path) -> Path:
    path = directory / f"{table_id}.yaml"
    if not path.is_file():
        known = ", ".join(all_tables(directory)) or "(none)"
        raise KeyError(f"no reported table {table_id!r} in {directory}; known: {known}")
    return path


def _check_text(path: Path, doc: dict, key: str, where: dict | None = None) -> None:
    holder = doc if where is None else where
    value = holder.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DataFormatError(path, "expected a non-empty text", field=key)


def _check_value(path: Path, row_no: int, column: dict, value: Any) -> None:
    """Check one cell against its column's unit (``None`` = left out, always allowed)."""
    if value is None:
        return
    unit, name = column["unit"], column["name"]
    if unit == "label":
        if not isinstance(value, str):
            raise DataFormatError(path, f"row {row_no}: expected text, got {value!r}", field=name)
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise DataFormatError(path, f"row {row_no}: expected a number, got {value!r}", field=name)
    if unit == "count":
        if not isinstance(value, int) or value < 0:
            raise DataFormatError(
                path, f"row {row_no}: expected a non-negative integer, got {value!r}", field=name
            )
        return
    bounds = UNITS[unit]
    if bounds is None:
        return
    low, high = bounds
    if not low <= value <= high:
        raise DataFormatError(
            path,
            f"row {row_no}: {value!r} is outside [{low:g}, {high:g}] for unit {unit!r}",
            field=name,
        )


def _validate(path: Path, doc: Any) -> dict:
    """Check a parsed file against the format in the module docstring; return it."""
    if not isinstance(doc, dict):
        raise DataFormatError(path, "expected a mapping at the top level")
    for key in REQUIRED_KEYS:
        if key not in doc:
            raise DataFormatError(path, "missing key", field=key)
    if doc["id"] != path.stem:
        raise DataFormatError(path, f"id {doc['id']!r} differs from the file name", field="id")
    if doc["status"] not in STATUSES:
        raise DataFormatError(path, f"expected one of {STATUSES}", field="status")
    for key in ("label", "table", "section", "caption"):
        _check_text(path, doc, key)
    for group, keys in (("paper", PAPER_KEYS), ("source", SOURCE_KEYS)):
        if not isinstance(doc[group], dict):
            raise DataFormatError(path, "expected a mapping", field=group)
        for key in keys:
            _check_text(path, doc, key, doc[group])
    if doc["source"]["kind"] not in SOURCE_KINDS:
        raise DataFormatError(path, f"expected one of {SOURCE_KINDS}", field="source.kind")

    columns = doc["columns"]
    if not isinstance(columns, list) or not columns:
        raise DataFormatError(path, "expected a non-empty list", field="columns")
    names = []
    for col in columns:
        if not isinstance(col, dict) or not isinstance(col.get("name"), str):
            raise DataFormatError(
                path, f"expected {{name, unit, description}}, got {col!r}", field="columns"
            )
        if col.get("unit") not in UNITS:
            raise DataFormatError(
                path, f"column {col['name']!r}: unit must be one of {tuple(UNITS)}", field="columns"
            )
        _check_text(path, col, "description")
        names.append(col["name"])
    if len(set(names)) != len(names):
        raise DataFormatError(path, f"duplicate column names in {names}", field="columns")

    rows = doc["rows"]
    if not isinstance(rows, list):
        raise DataFormatError(path, "expected a list (possibly empty)", field="rows")
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, list) or len(row) != len(columns):
            raise DataFormatError(
                path,
                f"row {i}: expected a list of {len(columns)} values "
                f"({', '.join(names)}), got {row!r}",
                field="rows",
            )
        for col, value in zip(columns, row):
            _check_value(path, i, col, value)

    missing = doc.get("missing")
    if doc["status"] == "not_recovered":
        if rows:
            raise DataFormatError(path, "a not_recovered table must have no rows", field="rows")
        if doc["source"]["kind"] != "none":
            raise DataFormatError(
                path, "a not_recovered table has source kind 'none'", field="source.kind"
            )
    elif not rows:
        raise DataFormatError(path, f"status {doc['status']!r} needs rows", field="rows")
    if doc["status"] in ("partial", "not_recovered") and not (
        isinstance(missing, str) and missing.strip()
    ):
        raise DataFormatError(
            path,
            f"status {doc['status']!r} needs a 'missing' text saying what is absent and why",
            field="missing",
        )
    return doc


def _load(table_id: str, directory: str | Path | None) -> dict:
    directory = REPORTED_DIR if directory is None else Path(directory)
    path = _table_path(table_id, directory)
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.load(fh, Loader=_yaml_loader())
    except yaml.YAMLError as err:
        raise DataFormatError(path, f"not valid YAML: {err}") from err
    return _validate(path, doc)


def all_tables(directory: str | Path | None = None) -> list[str]:
    """Ids of every reported-table file, including those whose values were not recovered.

    Parameters
    ----------
    directory : str or pathlib.Path or None
        The folder of YAML files (default ``calib/data/reported/``).

    Returns
    -------
    list of str
        The ids (file stems), sorted.
    """
    directory = REPORTED_DIR if directory is None else Path(directory)
    return sorted(p.stem for p in directory.glob("*.yaml"))


def available_tables(directory: str | Path | None = None) -> list[str]:
    """Ids of the tables that hold values (status ``complete`` or ``partial``).

    Parameters
    ----------
    directory : str or pathlib.Path or None
        The folder of YAML files (default ``calib/data/reported/``).

    Returns
    -------
    list of str
        The ids, sorted.

    Raises
    ------
    calib.data.errors.DataFormatError
        For a file that is not valid YAML or fails validation.
    """
    return [t for t in all_tables(directory) if _load(t, directory)["status"] != "not_recovered"]


def metadata(table_id: str, directory: str | Path | None = None) -> dict:
    """The metadata of a reported table (every key but ``rows``), validated.

    Parameters
    ----------
    table_id : str
        The table's id (its file stem).
    directory : str or pathlib.Path or None
        The folder of YAML files (default ``calib/data/reported/``).

    Returns
    -------
    dict
        A copy of the file's keys but ``rows``.

    Raises
    ------
    KeyError
        For an id without a file, naming the known ids.
    calib.data.errors.DataFormatError
        For a file that is not valid YAML or fails validation.
    """
    doc = _load(table_id, directory)
    return {k: copy.deepcopy(v) for k, v in doc.items() if k != "rows"}


def reported(table_id: str, directory: str | Path | None = None) -> pd.DataFrame:
    """A reported table as a DataFrame, values exactly as in its file.

    Columns are those the file declares, in order: ``label`` columns hold text, ``count``
    columns nullable integers, ``fraction``/``percent`` columns floats (NaN where a value was
    left out). ``frame.attrs`` holds the metadata (:func:`metadata`), so a chart can cite
    ``attrs["label"]``, ``attrs["paper"]``, ``attrs["table"]`` and ``attrs["caption"]``. A table
    with status ``not_recovered`` comes back empty, with its declared columns.

    Parameters
    ----------
    table_id : str
        The table's id (its file stem, e.g. ``kissling2026_table1``).
    directory : str or pathlib.Path or None
        The folder of YAML files (default ``calib/data/reported/``).

    Returns
    -------
    pandas.DataFrame
        The table, its metadata in ``attrs``.

    Raises
    ------
    KeyError
        For an id without a file, naming the known ids.
    calib.data.errors.DataFormatError
        For a file that is not valid YAML or fails validation.
    """
    doc = _load(table_id, directory)
    names = [c["name"] for c in doc["columns"]]
    frame = pd.DataFrame(doc["rows"], columns=names)
    for col in doc["columns"]:
        name, unit = col["name"], col["unit"]
        if unit == "label":
            frame[name] = frame[name].astype("object")
        elif unit == "count":
            frame[name] = frame[name].astype("Int64")
        else:
            frame[name] = frame[name].astype("float64")
    frame.attrs.update({k: copy.deepcopy(v) for k, v in doc.items() if k != "rows"})
    return frame
