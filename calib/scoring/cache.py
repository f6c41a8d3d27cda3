"""The Parquet score store: scores are computed once, written atomically, and reused.

Layout: ``<cache>/scores/<model key>/<options key>/<dataset>/chunk-<id>.parquet``. A chunk holds
the score-table rows (:mod:`calib.scoring.schema`) of whole *units* — one (relation, template,
instance) with all its options — and lists them in its Parquet metadata with a content hash
of the unit's statements and its row count. A unit is reused only when its content hash matches
(so a changed template, answer space or subject is rescored), and only from a chunk whose file
reads back completely with the row counts it promises; anything else is moved aside as
``*.corrupt`` and rescored. Chunks are written to a temporary file and renamed into place, so a
run killed midway leaves whole chunks only and resumes with the units that are missing.

Several processes may fill one store at once (two ``calib score`` runs, or workers of one
run): before scoring, a process *claims* the units it will score (:meth:`ScoreStore.claims`,
:class:`Claims`). A claim is a file ``claims/<id>.json`` listing the units, held by an OS-level
lock on ``claims/<id>.lock`` until the units' chunk is written; claims are made under the
store's own lock file ``.lock``. Another process skips the units claimed by a live holder,
scores the rest, then waits for the holders and reads their units from the store, so every unit
is scored once. The OS releases the locks of a process that dies (also by ``SIGKILL``), so a
crashed holder's claim is found stale and its units are claimed again; nobody waits for ever.
Reading a store takes no lock: chunks appear whole, by rename.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import socket
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from calib.scoring.schema import SCORE_COLUMNS
from calib.scoring.statements import Query
from calib.scoring.tokens import offsets_of, segment_index
from calib.settings import cache_lock, cache_writes

if TYPE_CHECKING:
    from filelock import BaseFileLock

log = logging.getLogger(__name__)

_META_KEY = b"calib"
_LOCK = ".lock"
_CLAIMS = "claims"
#: the Arrow schema of the store's score rows (one row per statement)
SCHEMA = pa.schema(
    [
        ("model", pa.string()),
        ("dataset", pa.string()),
        ("relation", pa.string()),
        ("instance", pa.string()),
        ("template", pa.string()),
        ("option", pa.int32()),
        ("answer", pa.string()),
        ("answer_idx", pa.int32()),
        ("token_logprobs", pa.list_(pa.float32())),
        ("token_roles", pa.list_(pa.string())),
    ]
)
#: columns renamed since chunks were first written, read under their new names: the correct
#: option's index was stored as ``correct`` before it became ``answer_idx`` (same values, so
#: the scorer version and the stored chunks stay valid)
_RENAMED = {"correct": "answer_idx"}


def unit_hash(query: Query) -> str:
    """Content hash of a query: its statements (template, subject, answers) and correct index.
    Computed once per query object (the lookup, the claim, the write and the token cache all
    ask for it; a query is immutable)."""
    known = query.__dict__.get("_unit_hash")
    if known is None:  # sha1 of every text followed by \x1f, then |answer_idx, in one update
        texts = "".join(f"{st.text}\x1f" for st in query.statements)
        known = hashlib.sha1(f"{texts}|{query.answer_idx}".encode()).hexdigest()[:20]
        object.__setattr__(query, "_unit_hash", known)  # a memo beside the frozen fields
    return known


def footer_units(schema: pa.Schema) -> list[list]:
    """The units a chunk's footer lists (``[relation, template, instance, hash, rows]`` each),
    or ``ValueError`` saying what is wrong with it: no calib metadata, malformed JSON, no
    ``"units"`` list, or a unit of another shape."""
    meta = json.loads((schema.metadata or {})[_META_KEY])
    units = meta.get("units") if isinstance(meta, dict) else None
    if not isinstance(units, list):
        raise ValueError('the footer has no "units" list')
    for unit in units:
        if not (
            isinstance(unit, list)
            and len(unit) == 5
            and all(isinstance(v, str) for v in unit[:4])
            and isinstance(unit[4], int)
            and not isinstance(unit[4], bool)
        ):
            raise ValueError(
                f"a unit of the footer is {unit!r}, expected [relation, template, instance, "
                f"hash, rows]"
            )
    return units


def slug(text: str) -> str:
    """A file-system-safe name for a key (readable prefix plus a short hash)."""
    clean = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")[:60]
    return f"{clean}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"


@dataclass(frozen=True)
class ScoreStore:
    """One store folder for one model, one set of scoring options and one dataset."""

    folder: Path

    @classmethod
    def at(cls, cache_root: Path, model_key: str, options: dict, dataset: str) -> ScoreStore:
        opts = json.dumps(options, sort_keys=True)
        return cls(Path(cache_root) / "scores" / slug(model_key) / slug(opts) / slug(dataset))

    def chunks(self) -> list[Path]:
        return sorted(self.folder.glob("chunk-*.parquet")) if self.folder.exists() else []

    def units(self) -> int:
        """How many units the chunks' footers list (without reading the rows)."""
        total = 0
        for path in self.chunks():
            with contextlib.suppress(Exception):
                total += len(footer_units(pq.read_schema(path)))
        return total

    def _quarantine(self, path: Path, why: str) -> None:
        log.warning("score chunk %s is unusable (%s); it is set aside and rescored", path, why)
        with contextlib.suppress(OSError):
            os.replace(
                path,
                path.with_name(f"{path.stem}.{uuid.uuid4().hex[:6]}.corrupt")
                if path.is_dir()
                else path.with_suffix(".corrupt"),
            )

    @property
    def root(self) -> Path:
        """The cache root the store lies under (``<root>/scores/<model>/<options>/<dataset>``)."""
        return self.folder.parents[3]

    def lookup(self, queries: list[Query]) -> tuple[pd.DataFrame, list[Query]]:
        """Rows stored for ``queries`` (in no particular order) and the queries still missing."""
        parts, missing = self.lookup_rows(queries)
        if not parts:
            return empty_scores(), missing
        return pa.concat_tables([p.table for p in parts]).to_pandas(), missing

    def lookup_rows(self, queries: list[Query]) -> tuple[list[UnitRows], list[Query]]:
        """As :meth:`lookup`, the rows as :class:`UnitRows` (one per chunk read: Arrow tables,
        whole units in the chunk's order), without converting them to pandas."""
        wanted = {(q.relation, q.template, q.instance): unit_hash(q) for q in queries}
        where: dict[Path, set] = {}
        claimed: set = set()
        for path in self.chunks():
            try:
                units = footer_units(pq.read_schema(path))
            except Exception as exc:  # noqa: BLE001 - any unreadable footer
                self._quarantine(path, f"footer: {exc}")
                continue
            for rel, tpl, inst, digest, _n in units:
                key = (rel, tpl, inst)
                if wanted.get(key) == digest and key not in claimed:
                    where.setdefault(path, set()).add(key)
                    claimed.add(key)
        parts, found = [], set()
        for path, keys in where.items():
            read = self._read_chunk(path)
            if read is None:
                continue
            table, units = read
            parts.append(_units_of(table, units, keys))
            found |= keys
        missing = [q for q in queries if (q.relation, q.template, q.instance) not in found]
        return parts, missing

    def _read_chunk(self, path: Path) -> tuple[pa.Table, list] | None:
        """The chunk's rows and its footer's units, checked (else set aside: ``None``)."""
        try:
            table = pq.read_table(path, page_checksum_verification=True)
            units = footer_units(table.schema)
        except Exception as exc:  # noqa: BLE001
            self._quarantine(path, f"read: {exc}")
            return None
        promised = sum(u[4] for u in units)
        if table.num_rows != promised:
            self._quarantine(path, f"{table.num_rows} rows, metadata promises {promised}")
            return None
        counts = (
            table.group_by(["relation", "template", "instance"])
            .aggregate([("option", "count")])
            .to_pylist()
        )
        got = {(c["relation"], c["template"], c["instance"]): c["option_count"] for c in counts}
        if any(got.get((r, t, i)) != n for r, t, i, _d, n in units):
            self._quarantine(path, "row counts per unit do not match the metadata")
            return None
        table = table.rename_columns([_RENAMED.get(n, n) for n in table.column_names])
        return table.replace_schema_metadata(None), units

    def write(
        self, frame: pd.DataFrame | pa.Table, queries: list[Query], claim: Claim | None = None
    ) -> Path:
        """Write the rows of ``queries`` (a score table, or an Arrow table of the store's
        schema) as one chunk, atomically (a read-only or full cache is a
        :class:`~calib.settings.CacheWriteError`, and no partial file is left). Under a
        ``claim``, the partial file is named after it, so that it is removed with the claim
        if this process dies while writing."""
        units = [
            [q.relation, q.template, q.instance, unit_hash(q), len(q.statements)] for q in queries
        ]
        table = as_table(frame)
        table = table.replace_schema_metadata({_META_KEY: json.dumps({"units": units})})
        final = self.folder / f"chunk-{uuid.uuid4().hex[:16]}.parquet"
        with cache_writes(self.folder, "scores", needed=table.nbytes):
            self.folder.mkdir(parents=True, exist_ok=True)
            tag = f"{claim.path.stem}-" if claim is not None and claim.path else ""
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=f".tmp-{tag}", suffix=".parquet")
            os.close(fd)
            try:
                pq.write_table(table, tmp, write_page_checksum=True)
                os.replace(tmp, final)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        return final

    def lock(self, timeout: float = -1):
        """The store's lock (a context manager): held only for short bookkeeping, such as
        making a claim (see the module docstring)."""
        return cache_lock(self.folder / _LOCK, "the score store's lock file", timeout)

    def claims(self) -> Claims:
        """A process's view of the claims and stored units of this store, to claim units
        with (:meth:`Claims.claim`)."""
        return Claims(self)


def as_table(frame: pd.DataFrame | pa.Table) -> pa.Table:
    """A score table as an Arrow table of the store's :data:`SCHEMA` (an Arrow table of that
    schema is returned as it is)."""
    if isinstance(frame, pa.Table):
        return (
            frame if frame.schema.equals(SCHEMA) else frame.select(list(SCORE_COLUMNS)).cast(SCHEMA)
        )
    return pa.Table.from_pandas(frame[list(SCORE_COLUMNS)], schema=SCHEMA, preserve_index=False)


def _list_as_arrow(dtype: pa.DataType):
    return pd.ArrowDtype(dtype) if pa.types.is_list(dtype) else None


# -- reading Arrow list dtypes back from pandas' metadata ----------------------------------------

#: an Arrow list type as ``str`` writes it: ``list<item: float>``, ``large_list<x: string not
#: null>``, nested to any depth
_LIST_TYPE = re.compile(r"^(list|large_list)<([^:<>]+): (.+)>$")
_NOT_NULL = " not null"


def parse_list_type(text: str) -> pa.DataType:
    """The Arrow list type whose ``str`` is ``text`` (``list<item: float>``; lists of lists;
    any item type :func:`pyarrow.type_for_alias` knows), or ``TypeError``."""
    m = _LIST_TYPE.match(text)
    if m is None:
        raise TypeError(f"not an Arrow list type: {text!r}")
    kind, name, item = m.groups()
    nullable = not item.endswith(_NOT_NULL)
    item = item.removesuffix(_NOT_NULL)
    if _LIST_TYPE.match(item):
        item_type = parse_list_type(item)
    else:
        try:
            item_type = pa.type_for_alias(item)
        except ValueError:
            raise TypeError(f"unknown Arrow item type {item!r} in {text!r}") from None
    field = pa.field(name, item_type, nullable=nullable)
    return pa.large_list(field) if kind == "large_list" else pa.list_(field)


@pd.api.extensions.register_extension_dtype
class ArrowListDtypeName(pd.api.extensions.ExtensionDtype):
    """Reads the name of an Arrow list dtype back (``"list<item: float>[pyarrow]"``, as
    :func:`as_frame`'s token columns name theirs) as that :class:`pandas.ArrowDtype`.

    ``DataFrame.to_parquet`` records each column's dtype by name in the file's pandas metadata,
    and ``pandas.read_parquet`` looks the names up in pandas' dtype registry, where
    ``pandas.ArrowDtype`` parses flat types only (pandas-dev/pandas#53011, #57411; the file
    itself is fine). Registered with pandas when this module is imported (as every reader of
    scores does: :func:`calib.scoring.run.score_bear`, the store), this entry parses the list
    names, so a score table written with ``to_parquet`` reads back with
    ``pandas.read_parquet`` as the same frame (list columns as ``pandas.ArrowDtype``). A
    process that has not imported calib can read such a file with
    ``pandas.read_parquet(path, dtype_backend="pyarrow")`` or ``pyarrow.parquet.read_table``.
    Only :meth:`construct_from_string` is used: it returns a ``pandas.ArrowDtype``, never an
    instance of this class."""

    name = "arrow list (calib)"
    type = list

    @classmethod
    def construct_from_string(cls, string):
        """The ``pandas.ArrowDtype`` named ``string`` (``"<list type>[pyarrow]"``), or
        ``TypeError`` (pandas then tries its other dtypes)."""
        if not isinstance(string, str) or not string.endswith("[pyarrow]"):
            raise TypeError(f"not an Arrow list dtype name: {string!r}")
        return pd.ArrowDtype(parse_list_type(string.removesuffix("[pyarrow]")))

    @classmethod
    def construct_array_type(cls):
        """The array type of the dtypes this entry gives."""
        return pd.arrays.ArrowExtensionArray


def as_frame(table: pa.Table) -> pd.DataFrame:
    """A score table read from the store as a frame: the token lists stay Arrow lists
    (``pandas.ArrowDtype``: one buffer of values and one of offsets per column, ~12 bytes per
    token, instead of a Python object holding a NumPy array per row); the other
    columns as ``Table.to_pandas`` gives them (the table's pandas metadata, if any, is not
    read: it may name the types of another frame). Iterating such a column gives Python
    lists; :func:`calib.confidence.reductions.token_arrays` reads its buffers without a copy
    per row."""
    return table.replace_schema_metadata(None).to_pandas(types_mapper=_list_as_arrow)


def as_stored(frame: pd.DataFrame | pa.Table) -> pd.DataFrame:
    """``frame`` with the column types it has when read back from the store."""
    return as_frame(as_table(frame))


def empty_scores() -> pd.DataFrame:
    """A score table with no rows and the schema's columns."""
    return as_frame(SCHEMA.empty_table())


@dataclass(frozen=True)
class UnitRows:
    """Score rows of whole units, one unit after another, each unit's options in order:
    ``table`` (Arrow, the store's :data:`SCHEMA`), ``units`` the ``(relation, template,
    instance)`` of each unit in row order, ``counts`` the rows of each; ``frame``, where
    already made, the same rows in pandas."""

    table: pa.Table
    units: list[tuple[str, str, str]]
    counts: np.ndarray
    #: the rows as a pandas score table, where already converted
    frame: pd.DataFrame | None = None

    def pandas(self) -> pd.DataFrame:
        """The rows as a pandas score table (:data:`SCHEMA`'s types)."""
        return self.frame if self.frame is not None else as_frame(self.table)


def _units_of(table: pa.Table, units: list, keys: set) -> UnitRows:
    """The rows of the units ``keys`` of a chunk whose footer lists ``units`` (as written: the
    rows of each unit together, in the footer's order; a chunk written otherwise is sorted by
    its rows' keys first)."""
    counts = np.asarray([u[4] for u in units], dtype=np.int64)
    key_of = [(u[0], u[1], u[2]) for u in units]
    unit_of_row = np.repeat(np.arange(len(units)), counts)
    expect = {
        col: pa.array([k[i] for k in key_of], pa.string()).take(pa.array(unit_of_row))
        for i, col in enumerate(("relation", "template", "instance"))
    }
    starts = offsets_of(counts)[:-1]
    expect["option"] = pa.array(
        (np.arange(len(unit_of_row)) - starts[unit_of_row]).astype(np.int32)
    )
    laid_out = table.num_rows == len(unit_of_row) and all(
        pc.all(pc.equal(table[c], expect[c])).as_py() is not False for c in expect
    )
    if not laid_out:  # rows of units not together in the footer's order: put them so
        position = {k: i for i, k in enumerate(key_of)}
        rows = table.select(["relation", "template", "instance", "option"]).to_pandas()
        unit_pos = [position[k] for k in zip(rows["relation"], rows["template"], rows["instance"])]
        table = table.take(pa.array(np.lexsort((rows["option"].to_numpy(), unit_pos))))
    keep = np.asarray([k in keys for k in key_of], dtype=bool)
    if not keep.all():
        table = table.take(pa.array(segment_index(starts[keep], counts[keep])))
    return UnitRows(table, [k for k, y in zip(key_of, keep) if y], counts[keep])


@dataclass
class Claim:
    """The outcome of one :meth:`Claims.claim`: the units this process now holds (``queries``;
    score them, write them, then :meth:`release`), those another process has stored since
    (``stored``), those a live process holds (``busy``), and those left for a later claim
    (``rest``). A context manager that releases the claim on exit."""

    queries: list[Query]
    stored: list[Query]
    busy: list[Query]
    rest: list[Query]
    path: Path | None = None
    lock: BaseFileLock | None = None

    def release(self) -> None:
        """Give the units up (after their chunk is written, or on failure)."""
        if self.path is None:
            return
        _remove_claim(self.path)
        with contextlib.suppress(Exception):
            if self.lock is not None:
                self.lock.release()
        self.path = self.lock = None

    def __enter__(self) -> Claim:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class Claims:
    """Claiming a store's units, one batch at a time, so that concurrent processes score each
    unit once (see the module docstring). Keeps an index of the units the chunks hold, read
    incrementally (each chunk's footer once)."""

    def __init__(self, store: ScoreStore):
        self.store = store
        self._footers: dict[Path, list[tuple[tuple, str]]] = {}
        self._stored: dict[tuple, set[tuple[str, Path]]] = {}

    @property
    def folder(self) -> Path:
        return self.store.folder / _CLAIMS

    def _refresh(self) -> None:
        """Read the footers of new chunks; forget the units of chunks that are gone."""
        present = set(self.store.chunks())
        for path in set(self._footers) - present:
            for key, digest in self._footers.pop(path):
                self._stored.get(key, set()).discard((digest, path))
        for path in sorted(present - set(self._footers)):
            try:
                units = [((r, t, i), d) for r, t, i, d, _n in footer_units(pq.read_schema(path))]
            except Exception:  # noqa: BLE001 - unreadable: lookup() sets it aside
                units = []
            self._footers[path] = units
            for key, digest in units:
                self._stored.setdefault(key, set()).add((digest, path))

    def _is_stored(self, q: Query) -> bool:
        digest = unit_hash(q)
        return any(
            d == digest for d, _p in self._stored.get((q.relation, q.template, q.instance), ())
        )

    def live(self) -> dict[Path, dict]:
        """The claims of live holders (record path -> the record). A claim whose lock is free
        was left by a process that died: it is removed, with any partial chunk it was
        writing, and its units are free again."""
        from filelock import FileLock, Timeout

        out = {}
        for lock_path in sorted(self.folder.glob("*.lock")) if self.folder.is_dir() else []:
            path = lock_path.with_suffix(".json")
            probe = FileLock(str(lock_path))
            try:
                probe.acquire(timeout=0)
            except Timeout:
                with contextlib.suppress(OSError, ValueError):
                    out[path] = json.loads(path.read_text())
                continue
            except OSError:
                continue  # a read-only store: nobody can be writing to it
            try:
                if path.exists():  # else its holder has just released it, as it should
                    log.warning(
                        "claim %s was left by a process that ended; its units are free again",
                        path.name,
                    )
                for partial in self.store.folder.glob(f".tmp-{path.stem}-*"):
                    with contextlib.suppress(OSError):
                        partial.unlink()
                with contextlib.suppress(OSError):
                    (self.folder / f".{path.stem}.part").unlink()
                _remove_claim(path)
            finally:
                probe.release()
        return out

    def claim(self, queries: list[Query], max_statements: int | None = None) -> Claim:
        """Claim, in order, the units of ``queries`` that are neither stored nor claimed by a
        live process, up to about ``max_statements`` statements (the last unit may pass it;
        ``None``: all). Made under the store's lock."""
        with self.store.lock():
            busy_keys = {
                tuple(u) for record in self.live().values() for u in record.get("units", [])
            }
            self._refresh()  # after the claims: a claim ends only after its chunk is written
            mine, stored, busy, rest, size = [], [], [], [], 0
            for q in queries:
                if self._is_stored(q):
                    stored.append(q)
                elif (q.relation, q.template, q.instance) in busy_keys:
                    busy.append(q)
                elif max_statements is None or size < max_statements:
                    mine.append(q)
                    size += len(q.statements)
                else:
                    rest.append(q)
            if not mine:
                return Claim([], stored, busy, rest)
            return self._hold(mine, stored, busy, rest)

    def _hold(self, mine, stored, busy, rest) -> Claim:
        from filelock import FileLock

        name = uuid.uuid4().hex[:16]
        path = self.folder / f"{name}.json"
        with cache_writes(self.folder, "a claim file"):
            self.folder.mkdir(parents=True, exist_ok=True)
            lock = FileLock(str(path.with_suffix(".lock")))
            lock.acquire(timeout=0)
            tmp = self.folder / f".{name}.part"
            try:
                record = {
                    "pid": os.getpid(),
                    "host": socket.gethostname(),
                    "units": [[q.relation, q.template, q.instance] for q in mine],
                }
                tmp.write_text(json.dumps(record))
                os.replace(tmp, path)
            except BaseException:
                with contextlib.suppress(OSError):
                    tmp.unlink()
                lock.release()
                _remove_claim(path)  # its lock file too (a full disk: the write behind failed)
                raise
        return Claim(mine, stored, busy, rest, path, lock)

    def wait(self, poll: float = 0.5, stop=None) -> None:
        """Block until a live claim of another process ends (returns at once if none);
        ``stop()`` is called at every poll (it may raise to stop waiting, as
        :func:`calib.interrupt.check_interrupted` does after Ctrl-C)."""
        from filelock import FileLock

        live = self.live()
        if not live:
            return
        path, record = next(iter(live.items()))
        log.warning(
            "waiting for process %s on %s, which is scoring %d unit(s) of %s",
            record.get("pid"),
            record.get("host"),
            len(record.get("units", [])),
            self.store.folder,
        )
        probe = FileLock(str(path.with_suffix(".lock")))
        while path.exists():
            if stop is not None:
                stop()
            try:
                probe.acquire(timeout=poll)
            except Exception:  # noqa: BLE001 - Timeout: still held
                continue
            try:
                if not path.exists():  # released, the lock file re-created by this probe
                    _remove_claim(path)
            finally:
                probe.release()
            return


def _remove_claim(path: Path) -> None:
    """Remove a claim's record, then its lock file (the caller holds or has just probed the
    lock)."""
    for part in (path, path.with_suffix(".lock")):
        with contextlib.suppress(OSError):
            part.unlink()
