"""DataFrames to real HTML tables for the book: rounding, intervals, and labelled reported values.

* :func:`format_number` / :func:`format_interval`: ``0.123`` and ``0.123 [0.101, 0.140]``.
* :func:`with_intervals`: replace an estimate column and its bound columns by one text column.
* :func:`html_table`: a frame as an :class:`HtmlTable` (``<table class="calib-table">``) that a
  notebook displays and the book keeps as a real HTML table; an estimate and its interval share
  a cell (the interval on a line below), and a wide frame shows the columns chosen for the page
  (``shown``, at most :data:`MAX_SHOWN_COLUMNS`) while its download keeps them all.
* :func:`reported_table`: the same for the papers' printed values, labelled
  :data:`REPORTED_LABEL` with their source and never mixed into computed tables.
* :func:`record_table`: in a chapter run by ``calib run`` every computed table that
  :func:`html_table` shows is also written, unrounded, as a CSV file for the page's downloads
  (:mod:`calib.book.downloads`), with its caption and interval columns in ``index.jsonl``.
"""

from __future__ import annotations

import html
import json
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from calib.settings import export_dir

#: where recorded tables go below the export folder, and their index
TABLES_SUBDIR = "tables"
TABLE_INDEX = "index.jsonl"
#: the label every table of the papers' own numbers carries
REPORTED_LABEL = "Reported in the paper"
#: the CSS class of a table (the browser test looks for it)
TABLE_CLASS = "calib-table"
#: the CSS class of a table of the papers' (or the authors') values: not a result, not recorded
REPORTED_CLASS = "calib-reported"
#: how a missing value is shown
MISSING = "–"


def _is_missing(value) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return (
        isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isnan(float(value))
    )


def format_number(value, digits: int | None = 3) -> str:
    """A number rounded to ``digits`` decimals (``None``: as given, shortest exact form).

    Integers stay integers, missing values (None, NaN, NA) are :data:`MISSING`, text is
    returned unchanged.
    """
    if _is_missing(value):
        return MISSING
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        if digits is None:
            return repr(value)
        text = f"{value:.{digits}f}"
        return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text
    return str(value)


def format_interval(estimate, lower, upper, digits: int | None = 3) -> str:
    """``"0.123 [0.101, 0.140]"``: an estimate with its interval (e.g. a bootstrap interval).

    A missing bound leaves only the estimate; a missing estimate is :data:`MISSING`.
    """
    if _is_missing(estimate):
        return MISSING
    est = format_number(estimate, digits)
    if _is_missing(lower) or _is_missing(upper):
        return est
    if float(lower) > float(upper):
        raise ValueError(f"interval lower bound {lower} exceeds its upper bound {upper}")
    return f"{est} [{format_number(lower, digits)}, {format_number(upper, digits)}]"


def with_intervals(
    frame: pd.DataFrame, intervals: Mapping[str, tuple[str, str]], digits: int | None = 3
) -> pd.DataFrame:
    """Replace each ``estimate`` column named in ``intervals`` (``{"ACE": ("ACE_lo",
    "ACE_hi")}``) by its :func:`format_interval` text, dropping the bound columns."""
    out = frame.copy()
    drop: list[str] = []
    for est, bounds in intervals.items():
        if not (isinstance(bounds, (tuple, list)) and len(bounds) == 2):
            raise ValueError(f"intervals[{est!r}] must be a (lower, upper) pair of column names")
        missing = [c for c in (est, *bounds) if c not in frame.columns]
        if missing:
            raise ValueError(
                f"with_intervals: the frame lacks column(s) {missing}; it has {list(frame.columns)}"
            )
        lo, hi = bounds
        out[est] = [
            format_interval(e, lo_, hi_, digits)
            for e, lo_, hi_ in zip(frame[est], frame[lo], frame[hi])
        ]
        drop += [lo, hi]
    return out.drop(columns=list(dict.fromkeys(drop)))


@dataclass(frozen=True)
class HtmlTable:
    """An HTML table that notebooks display (``_repr_html_``) and the book keeps as is."""

    html: str

    def _repr_html_(self) -> str:
        return self.html

    def to_html(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html


def _digits_for(column, digits: int | Mapping[str, int | None] | None) -> int | None:
    if isinstance(digits, Mapping):
        return digits.get(column, 3)
    return digits


def _numeric(series: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)


def record_table(
    frame: pd.DataFrame,
    name: str | None = None,
    caption: str | None = None,
    intervals: Mapping[str, tuple[str, str]] | None = None,
) -> str | None:
    """Write ``frame`` as ``<export dir>/tables/<name>.csv`` (unrounded) and add a line with its
    ``caption`` and ``intervals`` to ``index.jsonl``, when a chapter run asked for it
    (:func:`calib.settings.export_dir`); returns the file name, or None outside a chapter run.
    ``name`` defaults to ``table-<k>``, the k-th table of the chapter; a name used twice gets a
    number."""
    folder = export_dir()
    if folder is None:
        return None
    folder = folder / TABLES_SUBDIR
    folder.mkdir(parents=True, exist_ok=True)
    taken = {p.stem for p in folder.glob("*.csv")}
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") if name else ""
    base = base or f"table-{len(taken) + 1:02d}"
    stem, k = base, 2
    while stem in taken:
        stem, k = f"{base}-{k}", k + 1
    frame.to_csv(folder / f"{stem}.csv", index=False)
    entry = {
        "name": stem,
        "file": f"{stem}.csv",
        "caption": caption or "",
        "intervals": {k: list(v) for k, v in (intervals or {}).items()},
    }
    with open(folder / TABLE_INDEX, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")
    return f"{stem}.csv"


#: the CSS class of an interval under its estimate in a table cell
INTERVAL_CLASS = "calib-ci"
#: at most this many columns a page's table shows (more need horizontal scrolling on a laptop's
#: screen, issue 28); a wider frame shows a chosen few (``shown``) and keeps all in its download
MAX_SHOWN_COLUMNS = 9


#: LaTeX commands of the papers' quoted sentences, as text (a table cell renders no math)
_LATEX_SYMBOLS = {
    r"\leq": "≤",
    r"\le": "≤",
    r"\geq": "≥",
    r"\ge": "≥",
    r"\approx": "≈",
    r"\cdot": "·",
    r"\times": "×",
    r"\pm": "±",
    r"\in": "∈",
    r"\sum": "Σ",
    r"\alpha": "\u03b1",
    r"\beta": "β",
    r"\tau": "τ",
    r"\sigma": "\u03c3",
    r"\mu": "μ",
    r"\%": "%",
}
_INLINE_MATH = re.compile(r"\$([^$]+)\$")
_LATEX_TEXT = re.compile(r"\\(?:text|textrm|mathrm|mathit|mathbf|operatorname)\{([^{}]*)\}")


def plain_math(text: str) -> str:
    """``text`` with each inline ``$...$`` formula written as plain text, for a table cell,
    which MathJax does not render (a quoted sentence of the paper: ``$C_{\\text{Margin}}$`` ->
    ``C_Margin``, the book's name of the estimator; ``$\\leq$`` -> ``≤``); text without a
    formula is returned as it is."""

    def one(match: re.Match) -> str:
        if not re.search(r"[\\_^{}]|^[A-Za-z]+$|^[\[(][^A-Za-z$]*[\])]$", match.group(1)):
            return match.group(0)  # not a formula (e.g. two amounts in dollars)
        formula = _LATEX_TEXT.sub(r"\1", match.group(1))
        for command in sorted(_LATEX_SYMBOLS, key=len, reverse=True):
            formula = re.sub(re.escape(command) + r"(?![A-Za-z])", _LATEX_SYMBOLS[command], formula)
        formula = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", formula)
        return formula.replace("{", "").replace("}", "").replace("\\", "").strip()

    return _INLINE_MATH.sub(one, text) if "$" in text else text


def _interval_cell(text: str) -> str:
    """A :func:`format_interval` text as cell HTML: the estimate, and its interval on a line of
    its own below it (a narrow column, not a wide one)."""
    est, sep, bounds = text.partition(" [")
    if not sep:
        return html.escape(text)
    return f'{html.escape(est)}<br><span class="{INTERVAL_CLASS}">[{html.escape(bounds)}</span>'


def html_table(
    frame: pd.DataFrame,
    *,
    digits: int | Mapping[str, int | None] | None = 3,
    intervals: Mapping[str, tuple[str, str]] | None = None,
    caption: str | None = None,
    label: str | None = None,
    note: str | None = None,
    index: bool = False,
    css_class: str = "",
    name: str | None = None,
    record: bool = True,
    shown: Sequence[str] | None = None,
) -> HtmlTable:
    """``frame`` as a real HTML table, numbers rounded to ``digits`` decimals (an int, or a
    mapping column -> digits; ``None`` keeps values as given).

    ``intervals`` merges estimate and bound columns first (:func:`with_intervals`): a cell
    shows the estimate with its interval on a line below it. ``shown`` (column names, after
    that merge) limits the page's table to those columns, in that order; the download keeps
    every column of ``frame``. ``caption`` goes into ``<caption>``, ``label`` into a line above
    the table and ``note`` below it. All text is HTML-escaped. In a chapter run, the frame is
    also recorded for the page's downloads under ``name`` (:func:`record_table`);
    ``record=False``, or the class :data:`REPORTED_CLASS` of the papers' values, skips it.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"html_table: expected a pandas DataFrame, got {type(frame).__name__}")
    data = frame.reset_index() if index else frame
    if record and REPORTED_CLASS not in css_class.split():
        record_table(data, name, caption, intervals)
    numeric_cols = {c for c in data.columns if _numeric(data[c])}
    if intervals:
        data = with_intervals(data, intervals, digits if isinstance(digits, int) else 3)
        numeric_cols |= set(intervals)
    if shown is not None:
        missing = [c for c in shown if c not in data.columns]
        if missing:
            raise ValueError(
                f"html_table: shown names column(s) {missing} the table does not have; it has "
                f"{list(data.columns)}"
            )
        data = data[list(shown)]
    esc = html.escape
    num_class = ' class="num"'
    head = "".join(  # a column name may break after each underscore: no wide header
        f'<th scope="col"{num_class if c in numeric_cols else ""}>'
        f"{esc(str(c)).replace('_', '_<wbr>')}</th>"
        for c in data.columns
    )
    body = []
    for row in data.itertuples(index=False, name=None):
        cells = []
        for col, value in zip(data.columns, row):
            text = (
                format_number(value, _digits_for(col, digits))
                if col in numeric_cols and not isinstance(value, str)
                else (MISSING if _is_missing(value) else str(value))
            )
            cls = num_class if col in numeric_cols else ""
            body_html = (
                _interval_cell(text) if intervals and col in intervals else esc(plain_math(text))
            )
            cells.append(f"<td{cls}>{body_html}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    classes = " ".join(c for c in (TABLE_CLASS, css_class) if c)
    parts = ['<div class="calib-table-wrap">']
    if label:
        parts.append(f'<p class="calib-table-label">{esc(label)}</p>')
    parts.append(f'<table class="{classes}">')
    if caption:
        parts.append(f"<caption>{esc(plain_math(caption))}</caption>")
    parts.append(f"<thead><tr>{head}</tr></thead>")
    parts.append("<tbody>" + "".join(body) + "</tbody></table>")
    if note:
        parts.append(f'<p class="calib-table-note">{esc(plain_math(note))}</p>')
    parts.append("</div>")
    return HtmlTable("".join(parts))


def _source_of(frame: pd.DataFrame) -> str:
    """A citation line from the metadata :func:`calib.data.reported.reported` puts in attrs."""
    attrs = frame.attrs or {}
    paper = attrs.get("paper") or {}
    bits = [str(attrs[k]) for k in ("table",) if attrs.get(k) and attrs[k] != "unknown"]
    if isinstance(paper, Mapping) and paper.get("citation"):
        bits.append(str(paper["citation"]))
    return ", ".join(bits)


def reported_table(
    frame: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    source: str | None = None,
    caption: str | None = None,
    label: str | None = None,
    digits: int | Mapping[str, int | None] | None = None,
    note: str | None = None,
) -> HtmlTable:
    """The papers' printed values (or the authors' released ones) as a separate table, values
    as given (``digits=None``), never a column of a computed one.

    Frames from :func:`calib.data.reported.reported` carry their own ``label`` ("reported in
    the paper ...", "reported in the authors' repository ...") and ``source`` in ``attrs``: the
    table is labelled with them. Otherwise the label is :data:`REPORTED_LABEL` with ``source``
    (default: a citation built from ``attrs``)."""
    attrs = frame.attrs or {}
    own, where = attrs.get("label"), attrs.get("source")
    if label is None and own:
        label = own[0].upper() + own[1:]
        if source is None and isinstance(where, Mapping) and where.get("where"):
            source = str(where["where"])
        text = f"{label}. Source: {source}." if source else label
        cap = caption if caption is not None else attrs.get("table") or attrs.get("caption")
    else:
        src = source if source is not None else _source_of(frame)
        text = (label or REPORTED_LABEL) + (f" ({src})" if src else "")
        cap = caption if caption is not None else attrs.get("caption")
    shown = frame[list(columns)] if columns is not None else frame
    return html_table(
        shown, digits=digits, caption=cap, label=text, note=note, css_class=REPORTED_CLASS
    )


def with_bounds(
    frame: pd.DataFrame, columns: Sequence[str], intervals: Mapping[str, tuple[str, str]]
) -> pd.DataFrame:
    """``frame``'s ``columns`` (in that order) and the bound columns of those of them named in
    ``intervals``: the frame :func:`html_table` shows with ``intervals`` (which merges each
    estimate with its bounds and drops the bound columns)."""
    bounds = [b for c in columns if c in intervals for b in intervals[c]]
    return frame[[*columns, *[b for b in bounds if b not in columns]]]
