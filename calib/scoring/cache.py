"""The Parquet score store: scores are computed once, written atomically, and reused.

Layout: ``<cache>/scores/<model key>/<options key>/<dataset>/chunk-<id>.parquet``. A chunk holds
the score-table rows (:mod:`calib.scoring.schema`) of whole *units* — one (relation, template,
instance) with all its options — and lists them in its Parquet metadata with a content hash
of the unit's statements and its row count. A unit is reused only when its content hash matches
(so a changed template, answer space or subject is rescored), and only from a chunk whose file
reads back completely with the row counts it promises; anything else is moved aside as
``*.corrupt`` and rescored. Chunks are written to a temporary file and renamed into place, so a
run killed midway leaves whole chunks only and resumes with the units that are missing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from calib.scoring.schema import SCORE_COLUMNS
from calib.scoring.statements import Query

log = logging.getLogger(__name__)

_META_KEY = b"calib"
SCHEMA = pa.schema([
    ("model", pa.string()), ("dataset", pa.string()), ("relation", pa.string()),
    ("instance", pa.string()), ("template", pa.string()), ("option", pa.int32()),
    ("answer", pa.string()), ("correct", pa.int32()),
    ("token_logprobs", pa.list_(pa.float32())), ("token_roles", pa.list_(pa.string())),
])


def unit_hash(query: Query) -> str:
    """Content hash of a query: its statements (template, subject, answers) and correct index."""
    digest = hashlib.sha1()
    for st in query.statements:
        digest.update(st.text.encode())
        digest.update(b"\x1f")
    digest.update(f"|{query.correct}".encode())
    return digest.hexdigest()[:20]


def slug(text: str) -> str:
    """A file-system-safe name for a key (readable prefix plus a short hash)."""
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60]
    return f"{clean}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class ScoreStore:
    """One store folder for one model, one set of scoring options and one dataset."""

    folder: Path

    @classmethod
    def at(cls, cache_root: Path, model_key: str, options: dict, dataset: str) -> "ScoreStore":
        opts = json.dumps(options, sort_keys=True)
        return cls(Path(cache_root) / "scores" / slug(model_key) / slug(opts) / slug(dataset))

    def chunks(self) -> list[Path]:
        return sorted(self.folder.glob("chunk-*.parquet")) if self.folder.exists() else []

    def _quarantine(self, path: Path, why: str) -> None:
        log.warning("score chunk %s is unusable (%s); it is set aside and rescored", path, why)
        try:
            os.replace(path, path.with_suffix(".corrupt"))
        except OSError:
            pass

    def lookup(self, queries: list[Query]) -> tuple[pd.DataFrame, list[Query]]:
        """Rows stored for ``queries`` (in no particular order) and the queries still missing."""
        wanted = {(q.relation, q.template, q.instance): unit_hash(q) for q in queries}
        where: dict[Path, set] = {}
        claimed: set = set()
        for path in self.chunks():
            try:
                meta = json.loads(pq.read_schema(path).metadata[_META_KEY])
            except Exception as exc:  # noqa: BLE001 - any unreadable footer
                self._quarantine(path, f"footer: {exc}")
                continue
            for rel, tpl, inst, digest, _n in meta["units"]:
                key = (rel, tpl, inst)
                if wanted.get(key) == digest and key not in claimed:
                    where.setdefault(path, set()).add(key)
                    claimed.add(key)
        frames, found = [], set()
        for path, keys in where.items():
            table = self._read_chunk(path)
            if table is None:
                continue
            frame = table.to_pandas()
            index = pd.MultiIndex.from_frame(frame[["relation", "template", "instance"]])
            frames.append(frame[index.isin(list(keys))])
            found |= keys
        missing = [q for q in queries if (q.relation, q.template, q.instance) not in found]
        rows = pd.concat(frames, ignore_index=True) if frames else empty_scores()
        return rows, missing

    def _read_chunk(self, path: Path) -> pa.Table | None:
        try:
            table = pq.read_table(path)
            meta = json.loads(table.schema.metadata[_META_KEY])
        except Exception as exc:  # noqa: BLE001
            self._quarantine(path, f"read: {exc}")
            return None
        promised = sum(u[4] for u in meta["units"])
        if table.num_rows != promised:
            self._quarantine(path, f"{table.num_rows} rows, metadata promises {promised}")
            return None
        counts = table.group_by(["relation", "template", "instance"]).aggregate(
            [("option", "count")]).to_pylist()
        got = {(c["relation"], c["template"], c["instance"]): c["option_count"] for c in counts}
        if any(got.get((r, t, i)) != n for r, t, i, _d, n in meta["units"]):
            self._quarantine(path, "row counts per unit do not match the metadata")
            return None
        return table

    def write(self, frame: pd.DataFrame, queries: list[Query]) -> Path:
        """Write the rows of ``queries`` as one chunk, atomically."""
        units = [[q.relation, q.template, q.instance, unit_hash(q), len(q.statements)]
                 for q in queries]
        table = pa.Table.from_pandas(frame[list(SCORE_COLUMNS)], schema=SCHEMA,
                                     preserve_index=False)
        table = table.replace_schema_metadata({_META_KEY: json.dumps({"units": units})})
        self.folder.mkdir(parents=True, exist_ok=True)
        final = self.folder / f"chunk-{uuid.uuid4().hex[:16]}.parquet"
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".parquet")
        os.close(fd)
        try:
            pq.write_table(table, tmp)
            os.replace(tmp, final)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        return final


def as_stored(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the column types it has when read back from the store."""
    return pa.Table.from_pandas(frame[list(SCORE_COLUMNS)], schema=SCHEMA,
                                preserve_index=False).to_pandas()


def empty_scores() -> pd.DataFrame:
    """A score table with no rows and the schema's columns."""
    return SCHEMA.empty_table().to_pandas()
