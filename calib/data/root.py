"""Where the data lives, and how a missing file is fetched.

The data root is, in order: an explicit argument, the ``CALIB_DATA_DIR`` environment variable,
or a per-user cache (``$XDG_CACHE_HOME/calib/data``, default ``~/.cache/calib/data``).
Files are addressed by their path below the root (``bear/P19.jsonl``). A file that is missing
is downloaded from its pinned upstream commit when the machine is online, and its sha256 is
checked against ``SHA256SUMS`` (shipped with the package) before it is moved into place; offline,
a :class:`DataNotFoundError` names the file and the environment variable.
"""

from __future__ import annotations

import fnmatch
import hashlib
import io
import logging
import os
import tarfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from calib.settings import atomic_write, resolve_dir

log = logging.getLogger(__name__)

ENV_VAR = "CALIB_DATA_DIR"

#: upstream sources: (local glob, repo, commit, path in repo ({name} = file stem), tar member)
_RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
_BEAR = ("lm-pub-quiz/BEAR", "3818fdc029d335b603631255c135d2a87b0bd24d")
_KCAL = ("diamir707/knowledge-calibration", "a569db410fc4513329c90f445f322f3da176c40e")
_FACTOR = ("AI21Labs/factor", "ee9de30abf28e94b163167dc41ad51fbbdb48c32")
_FEWSHOT = ("tonyzhaozh/few-shot-learning", "e04d8643be91c2cce63f33e07760ff75d5aa3ad0")
_PARAREL = ("yanaiela/pararel", "cb5554678457beb5ac163d888f1ce8cf174b3f0b")
_LPAQA = ("jzbjyb/LPAQA", "3204221b47e66caa9bc3aebbcc4b2c2600dbaa1b")


@dataclass(frozen=True)
class Source:
    """One family of files and where its members come from upstream."""

    pattern: str  # glob below the data root
    repo: str
    commit: str
    path: str  # path in the repo; {name} is the local file name, {stem} its stem
    tar_member: str | None = None  # when `path` is an archive: the member, same placeholders

    def url(self, relpath: str) -> str:
        return _RAW.format(repo=self.repo, commit=self.commit, path=self._fill(self.path, relpath))

    def member(self, relpath: str) -> str | None:
        return None if self.tar_member is None else self._fill(self.tar_member, relpath)

    @staticmethod
    def _fill(template: str, relpath: str) -> str:
        p = Path(relpath)
        return template.format(name=p.name, stem=p.stem, parent=p.parent.name)


SOURCES: tuple[Source, ...] = (
    Source("bear/metadata_relations.json", *_KCAL, "data/BEAR/metadata_relations.json"),
    Source("bear/metadata_relations_bear3.json", *_BEAR, "BEAR/metadata_relations.json"),
    Source("bear/relation_info.json", *_KCAL, "data/relation_info.json"),
    Source("bear/P*.jsonl", *_BEAR, "BEAR/{name}"),
    Source("factor/*_factor.csv", *_FACTOR, "data/{name}"),
    Source("lama/relations.jsonl", *_FEWSHOT, "data/lama/relations.jsonl"),
    Source("lama/facts/P*.jsonl", *_PARAREL, "data/trex_lms_vocab/{name}"),
    Source("lama/sentences/train/P*.jsonl", *_FEWSHOT, "data/lama/original_rob/{stem}/train.jsonl"),
    Source("lama/sentences/dev/P*.jsonl", *_FEWSHOT, "data/lama/original_rob/{stem}/dev.jsonl"),
    Source("lpaqa/TREx_train/P*.jsonl", *_LPAQA, "TREx_train.tar.gz", "TREx_train/{name}"),
    Source("lpaqa/prompt/*/P*", *_LPAQA, "prompt/{parent}/{name}"),
)


class DataNotFoundError(FileNotFoundError):
    """A data file is neither under the data root nor downloadable."""


class DataIntegrityError(ValueError):
    """A downloaded file does not have the pinned sha256."""


def data_root(root: str | os.PathLike | None = None) -> Path:
    """The data root: ``root`` if given, else ``$CALIB_DATA_DIR``, else the user cache.

    Parameters
    ----------
    root : str or os.PathLike or None
        The data root asked for (``~`` expanded).

    Returns
    -------
    pathlib.Path
        The data root (it need not exist).
    """
    return resolve_dir(root, ENV_VAR, "calib", "data")


@lru_cache(maxsize=1)
def checksums() -> dict[str, str]:
    """Pinned sha256 per relative path, from the ``SHA256SUMS`` shipped with the package.

    Returns
    -------
    dict
        sha256 (hex) by path relative to the data root.
    """
    text = (Path(__file__).with_name("SHA256SUMS")).read_text()
    out = {}
    for line in text.splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            out[name.strip().removeprefix("./")] = digest
    return out


def source_for(relpath: str) -> Source | None:
    """The upstream :class:`Source` whose pattern matches ``relpath``, if any.

    Parameters
    ----------
    relpath : str
        A path below the data root (``bear/P19.jsonl``).

    Returns
    -------
    calib.data.root.Source or None
        The first source of ``SOURCES`` whose pattern matches, else ``None``.
    """
    for src in SOURCES:
        if fnmatch.fnmatch(relpath, src.pattern):
            return src
    return None


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def data_file(relpath: str, root: str | os.PathLike | None = None, download: bool = True) -> Path:
    """Path of the data file ``relpath`` (e.g. ``"bear/P19.jsonl"``) under the data root.

    A missing file is downloaded from its pinned upstream commit (and its sha256 verified) when
    ``download`` is true and the network answers; otherwise :class:`DataNotFoundError` says which
    file is missing, under which root, and how to point ``CALIB_DATA_DIR`` at a copy.

    Parameters
    ----------
    relpath : str
        The file's path below the data root.
    root : str or os.PathLike or None
        The data root (:func:`data_root`).
    download : bool
        Download a missing file that has an upstream source (default ``True``).

    Returns
    -------
    pathlib.Path
        The file's path (present, or downloaded and verified).

    Raises
    ------
    DataNotFoundError
        When the file is missing and has no upstream source, downloading is off, or the download
        failed.
    DataIntegrityError
        When the downloaded file does not have its pinned sha256.
    """
    base = data_root(root)
    path = base / relpath
    if path.exists():
        check_pinned(relpath, path)
        return path
    src = source_for(relpath)
    reason = "no upstream source is known for it"
    if src is not None and download:
        try:
            _download(src, relpath, path)
            return path
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            reason = f"downloading {src.url(relpath)} failed ({exc})"
    elif src is not None:
        reason = "downloading was switched off"
    raise DataNotFoundError(
        f"data file {relpath!r} is missing under the data root {str(base)!r} and {reason}. "
        f"Set {ENV_VAR} to a folder holding it (CI uses ../shared/data)."
    )


def _download(src: Source, relpath: str, dest: Path) -> None:
    expected = checksums().get(relpath)
    if expected is None:
        raise DataNotFoundError(f"{relpath!r} has no pinned sha256 in calib/data/SHA256SUMS")
    with urllib.request.urlopen(src.url(relpath), timeout=30) as resp:
        payload = resp.read()
    member = src.member(relpath)
    if member is not None:
        with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
            fh = tar.extractfile(member)
            if fh is None:
                raise DataNotFoundError(f"{member!r} is not in {src.url(relpath)}")
            payload = fh.read()
    got = hashlib.sha256(payload).hexdigest()
    if got != expected:
        raise DataIntegrityError(
            f"{src.url(relpath)} has sha256 {got}, expected {expected} (calib/data/SHA256SUMS)"
        )
    atomic_write(dest, payload)


def data_files(pattern: str, root: str | os.PathLike | None = None) -> list[Path]:
    """Existing files under the root that match a glob such as ``"bear/P*.jsonl"``, sorted.

    Where nothing matches locally, the pinned checksum list names the files to download.

    Parameters
    ----------
    pattern : str
        A glob below the data root.
    root : str or os.PathLike or None
        The data root (:func:`data_root`).

    Returns
    -------
    list of pathlib.Path
        The matching files under the root; where none is there, the pinned files that match,
        each fetched by :func:`data_file` (an empty list if none is pinned).

    Raises
    ------
    DataNotFoundError
        As in :func:`data_file`, for a pinned file that cannot be downloaded.
    DataIntegrityError
        As in :func:`data_file`.
    """
    base = data_root(root)
    found = sorted(base.glob(pattern))
    if found:
        for path in found:
            check_pinned(path.relative_to(base).as_posix(), path)
        return found
    names = sorted(n for n in checksums() if fnmatch.fnmatch(n, pattern))
    return [data_file(n, root) for n in names]


_VERIFIED: dict[tuple, str] = {}
_WARNED: set[Path] = set()


def _cached_sha256(path: Path) -> str:
    """``sha256_file``, remembered in this process while the file's path, inode, size,
    modification and change times stay the same (writing a file changes its change time,
    which no tool sets back)."""
    st = path.stat()
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if key not in _VERIFIED:
        _VERIFIED[key] = sha256_file(path)
    return _VERIFIED[key]


def check_pinned(relpath: str, path: Path) -> None:
    """Warn, once per file and process, where the data file ``path`` (``relpath`` below the
    root) differs from its sha256 in ``SHA256SUMS``: it is read as it is, and
    :func:`data_version` lists it in a chapter's provenance. Files without a pinned sha256 and
    folders are not checked."""
    expected = checksums().get(relpath)
    if expected is None or path in _WARNED or not path.is_file():
        return
    if _cached_sha256(path) != expected:
        _WARNED.add(path)
        log.warning(
            "data file %s differs from the file pinned for %s (sha256 %s... in "
            "calib/data/SHA256SUMS); it is read as it is, and a chapter's provenance lists it",
            path,
            relpath,
            expected[:12],
        )


def data_version(root: str | os.PathLike | None = None) -> dict:
    """Which data a run read: the data ``root``; ``manifest``, the sha256 of the pinned checksum
    list ``SHA256SUMS`` shipped with the package; ``pinned``, the upstream repositories and
    commits the files come from; and the check of the files present under the root against
    that list: ``files`` checked, ``mismatched`` (their paths, where the sha256 differs) and
    ``absent`` (listed files not present, e.g. never needed so never downloaded).

    Parameters
    ----------
    root : str or os.PathLike or None
        The data root (:func:`data_root`).

    Returns
    -------
    dict
        ``root``, ``manifest`` (``"sha256:..."``), ``pinned`` (commit by repository), ``files``
        (an int), ``mismatched`` (a list of paths) and ``absent`` (an int).
    """
    base = data_root(root)
    manifest = hashlib.sha256((Path(__file__).with_name("SHA256SUMS")).read_bytes()).hexdigest()
    checked, mismatched, absent = 0, [], 0
    for relpath, digest in sorted(checksums().items()):
        path = base / relpath
        if not path.is_file():
            absent += 1
            continue
        checked += 1
        if _cached_sha256(path) != digest:
            mismatched.append(relpath)
    pinned = {src.repo: src.commit for src in SOURCES}
    return {
        "root": str(base),
        "manifest": f"sha256:{manifest}",
        "pinned": pinned,
        "files": checked,
        "mismatched": mismatched,
        "absent": absent,
    }
