"""The downloadable tables of two book builds, cell by cell (issue 24: "the cpu book's numbers
are unchanged except where a new interval method changes an interval (say which, by how much)").

Every CSV file under ``<build>/downloads/<chapter>/`` of either build is matched by its path
(chapter and file name). Columns are matched by name, rows by the shortest leading run of text
columns that tells every row apart (else by position). Cells: where both cells
read as numbers they are equal within ``--atol + --rtol * |before|`` (both NaN are equal),
otherwise as text, exactly. The Markdown report holds, per table, ``unchanged`` or the cells
that differ grouped by column: how many, the largest absolute difference, and the row of that
largest one (its text cells) with both values. Each column is labelled an *interval bound*
where the chapter's ``manifest.json`` lists it among the table's ``intervals`` or its name says
so (``*_low``/``*_high``, ``*_lo``/``*_hi``, ``low``/``high``, ``lo``/``hi``), else a *value*;
a value that changed is named in the summary, since a new interval method should change only
interval bounds. A second part compares the chapters' results the same way
(``<build>/chapters/<chapter>.result/*.parquet`` and ``values.json``: the frames the chapter's
text and figures are made from, some of whose columns no download holds), interval bounds there
known by their names only.

    python benchmarks/book_before_after.py /work/baseline/_build _build \\
        --out benchmarks/results/cpu_book_before_after.md

The report's head records the command and each build's commit (``--before-commit`` /
``--after-commit``, else ``git rev-parse HEAD`` of the folder holding the build, marked
``(dirty)`` where that checkout has uncommitted changes to tracked files).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

#: column names that say they are an interval's bound
INTERVAL_NAME = re.compile(r"(^|_)(low|high|lo|hi)$")
#: a number written in a text cell (not one inside a name: smollm2-135m, gemma-3, Qwen3.5)
NUMBER = re.compile(r"(?:(?<![\w.])-|(?<![\w.-]))\d+(?:\.\d+)?(?:e-?\d+)?(?!\w|\.\d|-\w)")


@dataclass
class ColumnChange:
    """The cells of one column that differ between the builds."""

    column: str
    kind: str  # "interval bound" or "value"
    numeric: bool
    cells: int = 0
    largest: float = 0.0
    example: str = ""
    numbers_in_text: int = 0  # text cells whose numbers (read in order) differ
    number_changes: list[str] = field(default_factory=list)  # those cells' changed numbers


@dataclass
class TableComparison:
    """One table's comparison: its size, what is missing on either side, its changed columns."""

    path: str
    rows: tuple[int | None, int | None]
    columns_only_before: list[str] = field(default_factory=list)
    columns_only_after: list[str] = field(default_factory=list)
    changes: list[ColumnChange] = field(default_factory=list)
    cells: int = 0
    key: list[str] = field(default_factory=list)
    rows_only_before: list[str] = field(default_factory=list)
    rows_only_after: list[str] = field(default_factory=list)
    within: float = 0.0  # the largest difference of numeric cells counted equal

    @property
    def missing(self) -> str | None:
        if self.rows[0] is None:
            return "only in the after build"
        if self.rows[1] is None:
            return "only in the before build"
        return None

    @property
    def unchanged(self) -> bool:
        return (
            self.missing is None
            and self.rows[0] == self.rows[1]
            and not self.columns_only_before
            and not self.columns_only_after
            and not self.rows_only_before
            and not self.rows_only_after
            and not self.changes
        )


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def interval_columns(manifest: Path, file: str) -> set[str]:
    """The columns a chapter's download manifest names as interval bounds of the table
    ``file`` (its path relative to the chapter's folder); empty where there is none."""
    if not manifest.is_file():
        return set()
    for table in json.loads(manifest.read_text()).get("tables", []):
        if table.get("file") == file:
            return {c for bounds in (table.get("intervals") or {}).values() for c in bounds}
    return set()


def _cell(value: object) -> str:
    """A result frame's cell as the text a CSV download would hold (floats in full)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    if isinstance(value, float):
        return repr(value)
    if hasattr(value, "tolist"):
        value = value.tolist()
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _read(path: Path) -> pd.DataFrame:
    """A table as text cells: a CSV download, a result's Parquet frame or its ``values.json``
    (one row per value)."""
    if path.suffix == ".csv":
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    if path.suffix == ".json":
        values = json.loads(path.read_text())
        return pd.DataFrame({"name": list(values), "value": [_cell(v) for v in values.values()]})
    frame = pd.read_parquet(path)
    return pd.DataFrame({c: [_cell(v) for v in frame[c].tolist()] for c in frame.columns})


def row_key(a: pd.DataFrame, b: pd.DataFrame, common: list[str]) -> list[str]:
    """The shortest leading run of text columns (no cell of either table reads as a number)
    whose values tell every row apart in both tables; empty where none does (rows are then
    matched by position)."""
    text = [
        c
        for c in common
        if all(_number(v) is None for v in a[c]) and all(_number(v) is None for v in b[c])
    ]
    for n in range(1, len(text) + 1):
        key = text[:n]
        if not a.duplicated(key).any() and not b.duplicated(key).any():
            return key
    return []


def _row_label(frame: pd.DataFrame, row: int, limit: int = 4) -> str:
    """The row's text cells (those that do not read as numbers), as ``name=value`` pairs."""
    parts = []
    for column in frame.columns:
        value = frame.iloc[row][column]
        if value and _number(value) is None and len(value) <= 60:
            parts.append(f"{column}={value}")
        if len(parts) == limit:
            break
    return f"row {row}" + (f" ({', '.join(parts)})" if parts else "")


def _text_change(x: str, y: str, context: int = 30, width: int = 100) -> str:
    """``x -> y`` cut to where they differ (their common start and end left out)."""
    start = 0
    while start < min(len(x), len(y)) and x[start] == y[start]:
        start += 1
    end = 0
    while end < min(len(x), len(y)) - start and x[-1 - end] == y[-1 - end]:
        end += 1
    begin = max(0, start - context)

    def cut(t: str) -> str:
        middle = t[begin : len(t) - max(0, end - context)]
        return ("…" if begin else "") + _short(middle, width) + ("…" if end > context else "")

    return f"{cut(x)} -> {cut(y)}"


def _number_change(x: str, y: str, limit: int = 8) -> str:
    """The numbers of text ``x`` that ``y`` replaces, drops or adds, in order of reading."""
    a, b = NUMBER.findall(x), NUMBER.findall(y)
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            parts.append(f"{' '.join(a[i1:i2]) or '(none)'} -> {' '.join(b[j1:j2]) or '(none)'}")
    more = f"; and {len(parts) - limit} more" if len(parts) > limit else ""
    return "; ".join(parts[:limit]) + more


def _short(text: str, width: int = 80) -> str:
    text = text.replace("|", "\\|").replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def compare_tables(
    before: Path | None,
    after: Path | None,
    name: str,
    intervals: set[str],
    atol: float,
    rtol: float,
) -> TableComparison:
    """Compare one CSV table of the two builds (``None``: the build lacks it)."""
    a = _read(before) if before is not None else None
    b = _read(after) if after is not None else None
    result = TableComparison(name, (None if a is None else len(a), None if b is None else len(b)))
    if a is None or b is None:
        return result
    result.columns_only_before = [c for c in a.columns if c not in b.columns]
    result.columns_only_after = [c for c in b.columns if c not in a.columns]
    common = [c for c in a.columns if c in b.columns]
    pairs = list(zip(range(len(a)), range(len(b))))
    key = row_key(a, b, common)
    if key:
        result.key = key
        left = {tuple(r): i for i, r in enumerate(a[key].itertuples(index=False, name=None))}
        right = {tuple(r): i for i, r in enumerate(b[key].itertuples(index=False, name=None))}
        pairs = [(i, right[k]) for k, i in left.items() if k in right]
        result.rows_only_before = [", ".join(k) for k in left if k not in right]
        result.rows_only_after = [", ".join(k) for k in right if k not in left]
    for column in common:
        kind = "interval bound" if column in intervals or INTERVAL_NAME.search(column) else "value"
        change = ColumnChange(column, kind, numeric=True)
        for i, j in pairs:
            x, y = a.iloc[i][column], b.iloc[j][column]
            result.cells += 1
            fx, fy = _number(x), _number(y)
            if fx is not None and fy is not None:
                if (math.isnan(fx) and math.isnan(fy)) or fx == fy:
                    continue
                diff = abs(fy - fx)
                if not math.isnan(diff) and diff <= atol + rtol * abs(fx):
                    result.within = max(result.within, diff)
                    continue
                change.cells += 1
                size = math.inf if math.isnan(diff) else diff
                if change.cells == 1 or size > change.largest:
                    change.largest = size
                    change.example = f"{_row_label(a, i)}: {x} -> {y}"
            elif x != y:
                change.numeric = False
                change.cells += 1
                if NUMBER.findall(x) != NUMBER.findall(y):
                    change.numbers_in_text += 1
                    change.number_changes.append(
                        f"{_row_label(a, i, limit=2)}: {_number_change(x, y)}"
                    )
                if not change.example:
                    change.example = f"{_row_label(a, i)}: {_text_change(x, y)}"
        if change.cells:
            result.changes.append(change)
    return result


def _csvs(downloads: Path) -> dict[str, Path]:
    return (
        {p.relative_to(downloads).as_posix(): p for p in sorted(downloads.rglob("*.csv"))}
        if downloads.is_dir()
        else {}
    )


def _results(chapters: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder in sorted(chapters.glob("*.result")) if chapters.is_dir() else []:
        for path in sorted([*folder.glob("*.parquet"), *folder.glob("values.json")]):
            found[f"{folder.name}/{path.name}"] = path
    return found


def compare_results(before: Path, after: Path, atol: float, rtol: float) -> list[TableComparison]:
    """Every chapter result's frames (``chapters/<chapter>.result/*.parquet``) and values
    (``values.json``) of either build, compared as :func:`compare_builds` compares tables;
    interval bounds known by their names only."""
    old, new = _results(before / "chapters"), _results(after / "chapters")
    return [
        compare_tables(old.get(n), new.get(n), n, set(), atol, rtol)
        for n in sorted(set(old) | set(new))
    ]


def compare_builds(before: Path, after: Path, atol: float, rtol: float) -> list[TableComparison]:
    """Every CSV table under ``downloads/`` of either build, compared (sorted by path)."""
    old, new = _csvs(before / "downloads"), _csvs(after / "downloads")
    out = []
    for name in sorted(set(old) | set(new)):
        chapter = name.split("/", 1)[0]
        inner = name.split("/", 1)[1] if "/" in name else name
        intervals = interval_columns(before / "downloads" / chapter / "manifest.json", inner)
        intervals |= interval_columns(after / "downloads" / chapter / "manifest.json", inner)
        out.append(compare_tables(old.get(name), new.get(name), name, intervals, atol, rtol))
    return out


def build_commit(build: Path) -> str:
    """The commit(s) the build's chapters were run at (``run.provenance.commit`` of each
    ``chapters/*.result/manifest.json``, ``(modified)`` where the checkout had changes), else
    ``git rev-parse HEAD`` of the checkout holding ``build`` (``(dirty)`` where tracked files
    differ from it); ``unknown`` outside a checkout."""
    runs = set()
    for manifest in sorted(build.glob("chapters/*.result/manifest.json")):
        provenance = json.loads(manifest.read_text()).get("run", {}).get("provenance", {})
        if provenance.get("commit"):
            modified = " (modified)" if provenance.get("modified") else ""
            runs.add(f"{provenance['commit']}{modified}")
    if runs:
        return ", ".join(sorted(runs)) + " (the chapters' run provenance)"
    try:

        def git(*args: str) -> str:
            done = subprocess.run(["git", *args], cwd=build, capture_output=True, text=True)
            done.check_returncode()
            return done.stdout.strip()

        head = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "-uno")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (dirty)" if dirty else "")


def _number_text(x: float) -> str:
    return "inf/nan" if math.isinf(x) else f"{x:.3g}"


def _part(tables: list[TableComparison], title: str, what: str) -> list[str]:
    """One part of the report: its summary, then each table's section."""
    changed = [t for t in tables if not t.unchanged]
    lines = ["", f"## {title}", "", "### Summary", ""]
    lines += [f"{len(tables) - len(changed)} of {len(tables)} {what} unchanged.", ""]
    values = [(t.path, c) for t in tables for c in t.changes if c.kind == "value" and c.numeric]
    texts = [(t.path, c) for t in tables for c in t.changes if not c.numeric]
    bounds = [(t.path, c) for t in tables for c in t.changes if c.kind == "interval bound"]
    if bounds:
        worst = max(bounds, key=lambda pc: pc[1].largest)
        lines.append(
            f"- interval bounds changed: {sum(c.cells for _, c in bounds)} cells in "
            f"{len(bounds)} columns of {len({p for p, _ in bounds})} tables; largest "
            f"|difference| {_number_text(worst[1].largest)} (`{worst[0]}`, "
            f"`{worst[1].column}`)"
        )
    if values:
        lines.append("- **values that are not interval bounds changed**:")
        lines += [
            f"  - `{p}` `{c.column}`: {c.cells} cells, largest |difference| "
            f"{_number_text(c.largest)}"
            for p, c in values
        ]
    else:
        lines.append("- no numeric value other than an interval bound changed")
    if texts:
        lines.append("- text cells changed:")
        lines += [
            f"  - `{p}` `{c.column}` ({c.kind}): {c.cells} cells, of which "
            f"{c.numbers_in_text} with other numbers in the text"
            for p, c in texts
        ]
    for t in tables:
        lines += ["", f"### `{t.path}`", ""]
        if t.missing:
            lines.append(t.missing)
            continue
        if t.unchanged:
            within = f"; largest difference within tolerance {t.within:.2g}" if t.within else ""
            lines.append(f"unchanged ({t.rows[0]} rows, {t.cells} cells{within})")
            continue
        if t.rows[0] != t.rows[1]:
            lines.append(f"- rows: {t.rows[0]} before, {t.rows[1]} after")
        lines.append(
            f"- rows matched by {', '.join(f'`{k}`' for k in t.key)}"
            if t.key
            else "- rows matched by position"
        )
        for side, keys in (("before", t.rows_only_before), ("after", t.rows_only_after)):
            if keys:
                lines.append(f"- {len(keys)} rows only {side}:")
                lines += [f"  - {_short(k, 160)}" for k in keys]
        if t.columns_only_before:
            lines.append(f"- columns only before: {', '.join(t.columns_only_before)}")
        if t.columns_only_after:
            lines.append(f"- columns only after: {', '.join(t.columns_only_after)}")
        if t.changes:
            n = sum(c.cells for c in t.changes)
            lines += [
                f"{n} of {t.cells} cells differ.",
                "",
                "| column | kind | cells | largest abs. difference | example (the largest; text: "
                "the first) |",
                "|---|---|---|---|---|",
            ]
            for c in t.changes:
                largest = (
                    _number_text(c.largest)
                    if c.numeric
                    else f"text ({c.numbers_in_text} with other numbers)"
                )
                lines.append(f"| `{c.column}` | {c.kind} | {c.cells} | {largest} | {c.example} |")
            for c in t.changes:
                if c.number_changes:
                    lines += ["", f"Numbers that changed in the text of `{c.column}`:", ""]
                    lines += [f"- {_short(n, 400)}" for n in c.number_changes]
    return lines


def report(
    tables: list[TableComparison],
    before: str,
    after: str,
    command: str,
    atol: float,
    rtol: float,
    results: list[TableComparison] | None = None,
) -> str:
    """The Markdown report of :func:`compare_builds`' comparisons (and, where given, of
    :func:`compare_results`', in a part of their own)."""
    lines = [
        "# Book tables before and after",
        "",
        f"- command: `{command}`",
        f"- before: `{before}`",
        f"- after: `{after}`",
        f"- numbers equal within {atol:g} + {rtol:g} x |before|; text cells exactly; columns by "
        "name, rows by their leading text columns (the shortest run that tells rows apart), "
        "else by position",
    ]
    lines += _part(tables, "Downloads: every CSV table (`downloads/<chapter>/`)", "tables")
    if results:
        lines += _part(
            results,
            "Chapter results (`chapters/<chapter>.result/`: the frames and values the chapter's "
            "text and figures are made from; interval bounds known by their names only)",
            "frames",
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="the earlier build folder (holds downloads/)")
    parser.add_argument("after", type=Path, help="the later build folder")
    parser.add_argument("--out", type=Path, help="the Markdown report (default: stdout)")
    parser.add_argument("--atol", type=float, default=1e-9)
    parser.add_argument("--rtol", type=float, default=1e-9)
    parser.add_argument("--before-commit", help="the before build's commit (default: git's)")
    parser.add_argument("--after-commit", help="the after build's commit (default: git's)")
    args = parser.parse_args(argv)
    for build in (args.before, args.after):
        if not (build / "downloads").is_dir():
            print(f"{build}: no downloads/ folder (expected a book build folder)", file=sys.stderr)
            return 2
    tables = compare_builds(args.before, args.after, args.atol, args.rtol)
    results = compare_results(args.before, args.after, args.atol, args.rtol)
    command = shlex.join(["python", "benchmarks/book_before_after.py", *(argv or sys.argv[1:])])
    text = report(
        tables,
        f"{args.before} at {args.before_commit or build_commit(args.before)}",
        f"{args.after} at {args.after_commit or build_commit(args.after)}",
        command,
        args.atol,
        args.rtol,
        results,
    )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
