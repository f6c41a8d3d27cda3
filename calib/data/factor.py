"""FACTOR (Muhlgay et al., 2024): a prefix and four completions, one factual and three not.

Kissling et al. (2026, Appendix F) score the four completions of every FACTOR item given its
prefix and read the option softmax exactly as on BEAR. The subsets:

==========  ==============================  ====================================================
subset      file (below the data root)      availability
==========  ==============================  ====================================================
``news``    ``factor/news_factor.csv``      offline (1,036 items), pinned download
``expert``  ``factor/expert_factor.csv``    offline (236 items), pinned download
``wiki``    ``factor/wiki_factor.csv``      download-only: not in the offline data and without a
                                            pinned checksum; put the file there yourself to use
                                            it (the paper's Table 4 uses Wiki-FACTOR)
==========  ==============================  ====================================================

Each row has a prefix (``turncated_prefixes``, the column FACTOR's own evaluation script
reads, or ``full_prefix``), the true ``completion`` and ``contradiction_0..2``. An item is kept
when its prefix and all four completions are non-empty and the four completions differ (after
stripping surrounding whitespace); otherwise it is *skipped and counted* (``Factor.skipped``
lists file, line, field and reason), or with ``on_invalid="error"`` a
:class:`~calib.data.errors.DataFormatError` names the file, line and field. Completions lose
their leading spaces, as in FACTOR's ``eval_factuality.py``; the statement is then ``prefix +
completion`` (:func:`calib.scoring.statements.continuation_statement`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from calib.data.errors import DataFormatError
from calib.data.jsonl import read_text
from calib.data.root import DataNotFoundError, data_file, data_root, source_for
from calib.data.sampling import sample_groups

#: the subsets, by name; ``wiki`` is download-only
SUBSETS: tuple[str, ...] = ("news", "expert", "wiki")
#: the subsets in the offline data (and with a pinned checksum)
OFFLINE_SUBSETS: tuple[str, ...] = ("news", "expert")
#: the true completion first, then the three contradictions
COMPLETION_COLUMNS: tuple[str, ...] = (
    "completion",
    "contradiction_0",
    "contradiction_1",
    "contradiction_2",
)
#: the prefix columns a FACTOR file has; the first is what FACTOR's evaluation script reads
PREFIX_COLUMNS: tuple[str, ...] = ("turncated_prefixes", "full_prefix")
#: what to do with an item that has an empty or duplicate completion (or an empty prefix)
ON_INVALID: tuple[str, ...] = ("skip", "error")
#: the columns of ``Factor.items``
ITEM_COLUMNS: tuple[str, ...] = ("subset", "item", "line", "doc_id", "prefix", "completions")
#: the columns of ``Factor.skipped``
SKIP_COLUMNS: tuple[str, ...] = ("subset", "file", "line", "field", "reason")

csv.field_size_limit(1 << 24)


def factor_path(subset: str) -> str:
    """The path of a subset's file below the data root (``factor/news_factor.csv``).

    Parameters
    ----------
    subset : str
        One of :data:`SUBSETS`.

    Returns
    -------
    str
        The path relative to the data root.

    Raises
    ------
    ValueError
        For an unknown subset.
    """
    if subset not in SUBSETS:
        raise ValueError(f"unknown FACTOR subset {subset!r}; known: {list(SUBSETS)}")
    return f"factor/{subset}_factor.csv"


@dataclass(frozen=True)
class Factor:
    """FACTOR items, validated.

    ``items``: one row per kept item with ``subset``, ``item`` (the 0-based data row of the
    file, as text: unique within a subset), ``line`` (the file line the row starts on),
    ``doc_id``, ``prefix`` and ``completions`` (a tuple of four texts, the true one first).
    ``skipped``: one row per left-out item with ``subset, file, line, field, reason``.
    ``eligible``: after :meth:`sample`, the number of items per subset it drew from.
    """

    items: pd.DataFrame = field(repr=False)
    skipped: pd.DataFrame = field(repr=False)
    #: items per subset before :meth:`sample` drew from them (``None``: not sampled)
    eligible: dict[str, int] | None = None

    def sample(self, per_subset: int | None, seed: int = 0) -> Factor:
        """A seeded sample of ``per_subset`` items from every subset (all if fewer; ``None``
        keeps everything). Each subset is shuffled by its own generator (seeded by ``seed``
        and the subset name) and the first ``per_subset`` are kept in file order, so a larger
        sample contains a smaller one with the same seed."""
        if per_subset is None:
            return self
        if per_subset < 1:
            raise ValueError(f"per_subset must be at least 1, got {per_subset}")
        items = sample_groups(self.items, "subset", per_subset, seed)
        before = self.items.groupby("subset", sort=False).size().to_dict()
        return replace(
            self, items=items, eligible=before if self.eligible is None else self.eligible
        )

    def shorter_than(self, max_completion_words: int | None) -> Factor:
        """Only the items whose longest completion has at most ``max_completion_words``
        whitespace-separated words (``None``: all). For models with a short context (the
        tiny test models have 256 positions); the items left out are added to ``skipped``."""
        if max_completion_words is None:
            return self
        if self.eligible is not None:
            raise ValueError("shorter_than() must come before sample()")
        longest = self.items["completions"].map(lambda cs: max(len(c.split()) for c in cs))
        out = longest > max_completion_words
        dropped = self.items[out]
        extra = pd.DataFrame(
            {
                "subset": dropped["subset"],
                "file": dropped["subset"].map(factor_path),
                "line": dropped["line"],
                "field": "completions",
                "reason": [
                    f"a completion has {n} words (> max_completion_words={max_completion_words})"
                    for n in longest[out]
                ],
            }
        )
        skipped = (
            pd.concat([self.skipped, extra], ignore_index=True) if len(extra) else self.skipped
        )
        return replace(self, items=self.items[~out].reset_index(drop=True), skipped=skipped)

    def skip_counts(self) -> pd.DataFrame:
        """Per subset: ``in_file`` (items in the file), ``invalid`` (empty prefix, empty or
        duplicate completion), ``too_long`` (left out by :meth:`shorter_than`), ``eligible``
        (the rest) and ``sampled`` (the items kept by :meth:`sample`; all eligible ones when
        not sampled)."""
        long = self.skipped["field"] == "completions"
        eligible = (
            self.eligible
            if self.eligible is not None
            else self.items.groupby("subset", sort=False).size().to_dict()
        )
        rows = []
        for subset in dict.fromkeys([*eligible, *self.skipped["subset"]]):
            mine = self.skipped["subset"] == subset
            n_invalid, n_long = int((mine & ~long).sum()), int((mine & long).sum())
            n_eligible = int(eligible.get(subset, 0))
            rows.append(
                {
                    "subset": subset,
                    "in_file": n_eligible + n_invalid + n_long,
                    "invalid": n_invalid,
                    "too_long": n_long,
                    "eligible": n_eligible,
                    "sampled": int((self.items["subset"] == subset).sum()),
                }
            )
        return pd.DataFrame(
            rows, columns=["subset", "in_file", "invalid", "too_long", "eligible", "sampled"]
        )

    def __len__(self) -> int:
        return len(self.items)


def _read_rows(path: Path):
    """``(line, row)`` for every record of a CSV file; ``line`` is where the record starts."""
    reader = csv.DictReader(io.StringIO(read_text(path), newline=""))
    try:
        if reader.fieldnames is None:
            raise DataFormatError(path, "the file is empty; expected a CSV header")
        line = reader.line_num + 1
        for row in reader:
            yield line, row, reader.fieldnames
            line = reader.line_num + 1
    except csv.Error as exc:
        raise DataFormatError(path, f"malformed CSV ({exc})", line=reader.line_num) from None


def _local_only(subset: str, root) -> Path:
    """The path of a download-only subset (``wiki``), or a :class:`DataNotFoundError` saying
    which file to download from where (the pinned FACTOR commit) and where to put it."""
    path = data_root(root) / factor_path(subset)
    if not path.is_file():
        src = source_for(factor_path(subset))
        url = src.url(factor_path(subset)) if src is not None else "AI21Labs/factor, data/"
        raise DataNotFoundError(
            f"FACTOR subset {subset!r} needs the file {factor_path(subset)!r} under the data "
            f"root {str(data_root(root))!r}, and it is not there. Wiki-FACTOR (the paper's "
            f"Table 4, asked for by the `paper` profile) is download-only: it is not part of "
            f"the offline data and calib has no pinned checksum for it, so it is never fetched "
            f"automatically. Download {url} (FACTOR's repository at the commit the other "
            f"subsets are pinned to) to {str(path)!r}, or choose from {list(OFFLINE_SUBSETS)} "
            f'(e.g. `-p factor_subsets \'["news", "expert"]\'`).'
        )
    return path


def _load_subset(subset: str, root, prefix_column: str, on_invalid: str):
    relpath = factor_path(subset)
    path = _local_only(subset, root) if subset not in OFFLINE_SUBSETS else data_file(relpath, root)
    items, skipped = [], []
    index = -1
    for line, row, header in _read_rows(path):
        index += 1
        if index == 0:
            missing = [c for c in (prefix_column, *COMPLETION_COLUMNS) if c not in header]
            if missing:
                raise DataFormatError(
                    path,
                    f"missing column(s) {missing}; the header has {list(header)}",
                    line=1,
                    field=missing[0],
                )
        if None in row:  # more fields than the header
            raise DataFormatError(
                path,
                f"the record has {len(header) + len(row[None])} fields, the header {len(header)}",
                line=line,
            )
        problem = None
        prefix = row[prefix_column]
        completions = []
        for col in COMPLETION_COLUMNS:
            value = row[col]
            if value is None:
                problem = (col, "the record ends before this field")
                break
            completions.append(value.lstrip(" "))
        if problem is None and (prefix is None or not prefix.strip()):
            problem = (prefix_column, "the prefix is empty")
        if problem is None:
            for col, value in zip(COMPLETION_COLUMNS, completions):
                if not value.strip():
                    problem = (col, "the completion is empty")
                    break
        if problem is None:
            seen: dict[str, str] = {}
            for col, value in zip(COMPLETION_COLUMNS, completions):
                key = value.strip()
                if key in seen:
                    problem = (col, f"the completion repeats {seen[key]!r}")
                    break
                seen[key] = col
        if problem is not None:
            if on_invalid == "error":
                raise DataFormatError(
                    path,
                    f"{problem[1]} (an item needs a prefix and four "
                    f"different non-empty completions)",
                    line=line,
                    field=problem[0],
                )
            skipped.append((subset, relpath, line, problem[0], problem[1]))
            continue
        items.append((subset, str(index), line, row.get("doc_id", ""), prefix, tuple(completions)))
    if index < 0:
        raise DataFormatError(path, "the file holds a header but no items")
    return items, skipped


def load_factor(
    subsets=OFFLINE_SUBSETS,
    root=None,
    *,
    prefix_column: str = PREFIX_COLUMNS[0],
    on_invalid: str = "skip",
) -> Factor:
    """Load FACTOR ``subsets`` (names from :data:`SUBSETS`) from the data root.

    ``prefix_column``: ``turncated_prefixes`` (default; what FACTOR's evaluation script reads)
    or ``full_prefix``. ``on_invalid``: ``"skip"`` leaves out items with an empty prefix or an
    empty or duplicate completion and lists them in ``Factor.skipped``; ``"error"`` raises a
    :class:`~calib.data.errors.DataFormatError` naming file, line and field. Asking for
    ``wiki`` without its file under the data root raises
    :class:`~calib.data.root.DataNotFoundError` saying that it is download-only.

    Parameters
    ----------
    subsets : str or sequence of str
        One subset or several, each at most once (default :data:`OFFLINE_SUBSETS`).
    root : str or os.PathLike or None
        The data root; ``None``: ``$CALIB_DATA_DIR``, else the user cache
        (:func:`calib.data.root.data_root`).
    prefix_column : str
        One of :data:`PREFIX_COLUMNS` (default ``turncated_prefixes``).
    on_invalid : str
        One of :data:`ON_INVALID` (default ``"skip"``).

    Returns
    -------
    calib.data.factor.Factor
        ``items`` (:data:`ITEM_COLUMNS`) and ``skipped`` (:data:`SKIP_COLUMNS`), not sampled.

    Raises
    ------
    ValueError
        For no subset, an unknown or repeated subset, an unknown ``prefix_column`` or
        ``on_invalid``.
    calib.data.errors.DataFormatError
        For a malformed file, and with ``on_invalid="error"`` for an invalid item.
    calib.data.root.DataNotFoundError
        When a data file is missing under the root and cannot be downloaded; for ``wiki``,
        whenever its file is not under the root.
    """
    names = [subsets] if isinstance(subsets, str) else list(subsets)
    if not names:
        raise ValueError(f"no FACTOR subset selected; choose from {list(SUBSETS)}")
    for name in names:
        if name not in OFFLINE_SUBSETS:
            _local_only(name, root)  # unknown names and a missing wiki file fail here
    if len(set(names)) != len(names):
        raise ValueError(f"subsets {names} lists a subset twice")
    if prefix_column not in PREFIX_COLUMNS:
        raise ValueError(
            f"unknown prefix_column {prefix_column!r}; expected one of {list(PREFIX_COLUMNS)}"
        )
    if on_invalid not in ON_INVALID:
        raise ValueError(f"unknown on_invalid {on_invalid!r}; expected one of {list(ON_INVALID)}")
    items, skipped = [], []
    for name in names:
        got, left = _load_subset(name, root, prefix_column, on_invalid)
        items += got
        skipped += left
    return Factor(
        items=pd.DataFrame(items, columns=list(ITEM_COLUMNS)),
        skipped=pd.DataFrame(skipped, columns=list(SKIP_COLUMNS)),
    )
