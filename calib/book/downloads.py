"""A chapter's downloads: its executed notebook, its result tables (CSV), the scores it used.

While a chapter runs, ``$CALIB_EXPORT_DIR`` points its kernel at a scratch folder: every
computed table it shows is written there as CSV (:func:`calib.report.table_format.record_table`) and
every score table it reads as a Parquet part (:func:`calib.scoring.usage.record_scores`).
After a successful run :func:`collect` turns that folder into the chapter's downloads:

=====================================================  =====================================
``_build/downloads/<chapter>/tables/<name>.csv``       each result table, unrounded
``_build/downloads/<chapter>/scores/<m>.<d>.parquet``  the score rows the chapter used, one
(``<m>``: the model, ``<d>``: the dataset)             file per model and dataset, each row
                                                       once (columns:
                                                       :mod:`calib.scoring.schema`)
``_build/downloads/<chapter>/manifest.json``           what is there (captions, interval
                                                       columns, rows)
=====================================================  =====================================

The chapter page links them with Sphinx's ``{download}`` role (:func:`downloads_markdown`), so
the built book holds copies under ``_build/html/_downloads/`` and the links are relative: they
work offline. Score tables larger than :data:`MAX_SCORE_BYTES` in all (the paper profile) are
not copied; the page says where they are in the score store instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from calib.book.layout import CHAPTERS_DIR

#: where the downloads of each chapter are kept, relative to the book root
DOWNLOADS_DIR = Path("_build") / "downloads"
#: the most bytes of score parts a chapter's downloads copy (above it: a note, no files)
MAX_SCORE_BYTES = 200_000_000
#: the label of a chapter's downloads section (``{ref}`` target)
LABEL = "downloads-{chapter}"


def _file_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_.") or "model"


def _collect_tables(export: Path, dest: Path) -> list[dict]:
    from calib.report.table_format import TABLE_INDEX, TABLES_SUBDIR

    index = export / TABLES_SUBDIR / TABLE_INDEX
    if not index.is_file():
        return []
    entries = [
        json.loads(line) for line in index.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    (dest / "tables").mkdir(parents=True, exist_ok=True)
    for entry in entries:
        shutil.copy2(export / TABLES_SUBDIR / entry["file"], dest / "tables" / entry["file"])
        entry["file"] = f"tables/{entry['file']}"
    return entries


def _collect_scores(export: Path, dest: Path, max_bytes: int) -> tuple[list[dict], dict | None]:
    import pandas as pd

    from calib.scoring.schema import KEYS
    from calib.scoring.usage import SCORES_SUBDIR

    parts = sorted((export / SCORES_SUBDIR).glob("part-*.parquet"))  # in the order written
    if not parts:
        return [], None
    size = sum(p.stat().st_size for p in parts)
    if size > max_bytes:
        return [], {"bytes": size, "limit": max_bytes}
    import pyarrow as pa
    import pyarrow.parquet as pq

    from calib.scoring.cache import as_frame

    frame = pd.concat([as_frame(pq.read_table(p)) for p in parts], ignore_index=True)
    frame = frame.drop_duplicates(list(KEYS), ignore_index=True)
    (dest / "scores").mkdir(parents=True, exist_ok=True)
    files = []
    for (model, dataset), part in frame.groupby(["model", "dataset"], sort=False):
        name = f"scores/{_file_name(model)}.{_file_name(dataset)}.parquet"
        table = pa.Table.from_pandas(part.reset_index(drop=True), preserve_index=False)
        # without pandas metadata (a frame of Arrow lists names a dtype pandas cannot read back):
        # pandas.read_parquet gives the token lists as arrays, pyarrow as lists
        pq.write_table(table.replace_schema_metadata(None), dest / name)
        files.append(
            {
                "file": name,
                "model": model,
                "dataset": dataset,
                "rows": len(part),
                "instances": int(part.groupby(["relation", "instance"]).ngroups),
                "templates": int(part["template"].nunique()),
            }
        )
    return files, None


def collect(
    export: str | os.PathLike,
    chapter: str,
    root: str | os.PathLike,
    max_score_bytes: int = MAX_SCORE_BYTES,
) -> dict:
    """Turn a chapter run's export folder into ``_build/downloads/<chapter>/`` (replacing the
    previous downloads at once) and return its manifest: ``tables`` (``name``, ``file``,
    ``caption``, ``intervals``), ``scores`` (``file``, ``model``, ``dataset``, ``rows``,
    ``instances``, ``templates``) and ``scores_skipped`` (``bytes``, ``limit``) when the score
    tables were too large to copy. File paths are relative to the chapter's folder."""
    export, root = Path(export), Path(root)
    target = root / DOWNLOADS_DIR / chapter
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{chapter}-"))
    try:
        scores, skipped = _collect_scores(export, staging, max_score_bytes)
        manifest = {
            "chapter": chapter,
            "tables": _collect_tables(export, staging),
            "scores": scores,
            "scores_skipped": skipped,
        }
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if target.exists():
            old = target.with_name(f".{chapter}-old-{os.getpid()}")
            os.replace(target, old)
            shutil.rmtree(old, ignore_errors=True)
        os.replace(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return manifest


#: estimate columns whose bounds are the plain ``low`` / ``high`` columns
PLAIN_BOUNDS = ("difference", "delta", "r", "value", "estimate")


def table_intervals(frame, declared: dict | None = None) -> dict[str, tuple[str, str]]:
    """The (estimate, low, high) columns of a result table: those ``declared`` (the
    ``intervals`` its chapter displayed it with), every ``x`` with ``x_low`` and ``x_high``, and
    ``difference``/``delta``/``r``/``value``/``estimate`` with ``low`` and ``high``.

    A noise floor (``x_floor`` with ``x_floor_low``, ``x_floor_high``) is not an estimate with
    its interval: the floor is the *mean* of the metric over perfectly calibrated draws and its
    range the central 95% of those draws (:mod:`calib.confidence.noise_floor`). For a skewed
    null (confidences near 0, where a rare correct draw moves the ACE far) the mean can lie above
    the 97.5% quantile, so the floor is left out here; :func:`floor_range_violations` checks
    what does hold for it."""
    found = {k: tuple(v) for k, v in (declared or {}).items() if not str(k).endswith(FLOOR_SUFFIX)}
    for col in frame.columns:
        if str(col).endswith(FLOOR_SUFFIX):
            continue
        if f"{col}_low" in frame.columns and f"{col}_high" in frame.columns:
            found.setdefault(col, (f"{col}_low", f"{col}_high"))
    if "low" in frame.columns and "high" in frame.columns:
        for col in PLAIN_BOUNDS:
            if col in frame.columns:
                found.setdefault(col, ("low", "high"))
                break
    return found


def recorded_tables(root: str | os.PathLike) -> Iterator[tuple[str, Path, dict]]:
    """``(chapter/file, path, manifest entry)`` of every result table the built chapters
    recorded for their downloads (``_build/downloads/*/manifest.json``), chapter by chapter."""
    for manifest_path in sorted((Path(root) / DOWNLOADS_DIR).glob("*/manifest.json")):
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        for table in manifest.get("tables", []):
            yield (
                f"{manifest['chapter']}/{table['file']}",
                manifest_path.parent / table["file"],
                table,
            )


#: the ending of a noise-floor column (:func:`calib.confidence.noise_floor.floor_record`)
FLOOR_SUFFIX = "_floor"


def floor_range_violations(root: str | os.PathLike, tolerance: float = 1e-9) -> list[str]:
    """Every noise floor in the result tables of the built chapters whose range is not ordered
    (``x_floor_low <= x_floor_high``), or whose ``x_within_floor`` is not ``x <= x_floor_high``,
    one line each (empty: none). Rows with a missing value are skipped."""
    import pandas as pd

    out = []
    for where, path, _table in recorded_tables(root):
        frame = pd.read_csv(path)
        for col in [c for c in frame.columns if str(c).endswith(FLOOR_SUFFIX)]:
            lo, hi = f"{col}_low", f"{col}_high"
            if lo not in frame.columns or hi not in frame.columns:
                continue
            v = frame[[lo, hi]].apply(pd.to_numeric, errors="coerce")
            for i in v.index[(v[lo] > v[hi] + tolerance)]:
                out.append(
                    f"{where} row {i}: {lo} {float(v.at[i, lo])!r} > {hi} {float(v.at[i, hi])!r}"
                )
            metric = str(col)[: -len(FLOOR_SUFFIX)]
            within = f"{metric}_within_floor"
            if metric in frame.columns and within in frame.columns:
                x = pd.to_numeric(frame[metric], errors="coerce")
                known = x.notna() & v[hi].notna() & frame[within].notna()
                expect = x <= v[hi]
                said = frame[within].astype(str).str.lower().isin(["true", "1", "1.0"])
                for i in frame.index[known & (expect != said)]:
                    out.append(
                        f"{where} row {i}: {within} is {said.at[i]} but "
                        f"{metric} {float(x.at[i])!r} vs {hi} {float(v.at[i, hi])!r}"
                    )
    return out


def interval_violations(root: str | os.PathLike, tolerance: float = 1e-9) -> list[str]:
    """Every interval in the result tables of the built chapters (``_build/downloads``) that
    does not contain its estimate, one line each (empty: all do). Rows with a missing value are
    skipped. Run it on a built book: ``python -c "from calib.book.downloads import
    interval_violations as v; print(v('.'))"``."""
    import pandas as pd

    out = []
    for where, path, table in recorded_tables(root):
        frame = pd.read_csv(path)
        for est, (lo, hi) in table_intervals(frame, table.get("intervals")).items():
            values = frame[[est, lo, hi]].apply(pd.to_numeric, errors="coerce")
            ok = values.isna().any(axis=1) | (
                (values[lo] <= values[est] + tolerance) & (values[est] <= values[hi] + tolerance)
            )
            for i in values.index[~ok]:
                e, a, b = (float(values.at[i, c]) for c in (est, lo, hi))
                out.append(
                    f"{where} row {i}: {est} {e!r} "
                    f"outside [{a!r}, {b!r}] ({table.get('caption', '')[:60]})"
                )
    return out


#: the columns a result table showing an ACE must also have (issue 18: the noise floor beside
#: every ACE; :func:`calib.confidence.noise_floor.floor_record`)
FLOOR_COLUMNS = ("ace_floor",)


def ace_tables(root: str | os.PathLike) -> list[tuple[str, list[str]]]:
    """``(chapter/file, columns)`` of every result table of the built chapters
    (``_build/downloads/*/manifest.json``) that has a column named ``ace``."""
    import pandas as pd

    out = []
    for where, path, _table in recorded_tables(root):
        columns = list(pd.read_csv(path, nrows=0).columns)
        if "ace" in columns:
            out.append((where, columns))
    return out


def floor_violations(root: str | os.PathLike) -> list[str]:
    """Every result table of the built chapters with an ``ace`` column that lacks the noise
    floor beside it (:data:`FLOOR_COLUMNS`), one line each (empty: every ACE table has its
    floor). Run it on a built book: ``python -c "from calib.book.downloads import
    floor_violations as v; print(v('.'))"``."""
    return [
        f"{where}: an ace column without {[c for c in FLOOR_COLUMNS if c not in cols]}"
        for where, cols in ace_tables(root)
        if any(c not in cols for c in FLOOR_COLUMNS)
    ]


def _link(text: str, path: str) -> str:
    return f"{{download}}`{text} <{path}>`"


def downloads_markdown(chapter: str, manifest: dict) -> str:
    """The chapter's downloads section (Markdown for a notebook cell): links relative to the
    executed notebook's folder, which Sphinx turns into copies in the built book."""
    rel = os.path.relpath(DOWNLOADS_DIR / chapter, CHAPTERS_DIR).replace(os.sep, "/")
    lines = [
        f"({LABEL.format(chapter=chapter)})=",
        "## Downloads",
        "",
        f"- This chapter as an executed notebook: {_link(chapter + '.ipynb', chapter + '.ipynb')}"
        " (its metadata holds the parameters and the provenance of the run).",
    ]
    tables = manifest.get("tables") or []
    if tables:
        lines.append("- Result tables, unrounded (CSV), in the order they appear above:")
        for t in tables:
            caption = re.sub(r"\s+", " ", t.get("caption") or "").strip()
            caption = caption if len(caption) <= 110 else caption[:107].rstrip() + "..."
            link = _link(Path(t["file"]).name, f"{rel}/{t['file']}")
            lines.append(f"  - {link}" + (f": {caption}" if caption else ""))
    scores = manifest.get("scores") or []
    if scores:
        lines.append(
            "- The score tables this chapter used (Parquet; one row per scored "
            "statement, per-token log-probabilities and roles; columns as in "
            "`calib.scoring.schema`):"
        )
        for s in scores:
            link = _link(Path(s["file"]).name, f"{rel}/{s['file']}")
            lines.append(
                f"  - {link}: `{s['model']}` on {s['dataset']}, {s['instances']:,} instances, "
                f"{s['templates']} template(s), {s['rows']:,} statements"
            )
    skipped = manifest.get("scores_skipped")
    if skipped:
        lines.append(
            f"- The score tables this chapter used ({skipped['bytes'] / 1e6:,.0f} MB) "
            f"are larger than the book copies ({skipped['limit'] / 1e6:,.0f} MB); they "
            f"are in the score store under `$CALIB_CACHE_DIR/scores/` "
            f"(see {{doc}}`/book/reproduction`)."
        )
    return "\n".join(lines)
