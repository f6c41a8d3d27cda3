"""Where calib keeps what it computes: the cache root for converted models and scores.

``$CALIB_CACHE_DIR`` if set (the Makefile points it at ``.cache/`` in the checkout, which git
ignores), else ``$XDG_CACHE_HOME/calib`` (default ``~/.cache/calib``). A write into it that
fails because the folder is read-only or full is a :class:`CacheWriteError` with a one-line
message (:func:`cache_writes`).
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
from pathlib import Path

CACHE_ENV = "CALIB_CACHE_DIR"


def resolve_dir(given: str | os.PathLike | None, env_var: str, *user_cache_parts: str) -> Path:
    """``given`` if not None, else ``$env_var`` if set, else ``$XDG_CACHE_HOME`` (default
    ``~/.cache``) joined with ``user_cache_parts``."""
    if given is not None:
        return Path(given).expanduser()
    env = os.environ.get(env_var)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).joinpath(*user_cache_parts)


def atomic_write(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it and a rename, so a reader
    sees the old file or the whole new one; the temporary file never stays behind."""
    import tempfile

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def cache_root(cache_dir: str | os.PathLike | None = None) -> Path:
    """The cache root: ``cache_dir`` if given, else ``$CALIB_CACHE_DIR``, else the user cache."""
    return resolve_dir(cache_dir, CACHE_ENV, "calib")


def cache_problem(cache_dir: str | os.PathLike | None = None) -> str | None:
    """Why the cache root (:func:`cache_root`) cannot be a folder, in one line, or ``None``:
    it, or the nearest of its parents that exists, is not a folder."""
    root = cache_root(cache_dir)
    where = "" if cache_dir is not None or not os.environ.get(CACHE_ENV) else f" ({CACHE_ENV})"
    for path in (root, *root.parents):
        if path.is_dir():
            return None
        if path.exists():
            what = "" if path == root else f" cannot be made: {path}"
            return f"the cache folder {root}{where}{what} is a file, not a folder"
    return None


#: set by ``calib run`` for a chapter's kernel: the folder where the chapter's result tables and
#: the score rows it used are recorded for the page's downloads (:mod:`calib.book.downloads`)
EXPORT_ENV = "CALIB_EXPORT_DIR"


def export_dir() -> Path | None:
    """The folder named by ``$CALIB_EXPORT_DIR`` (a chapter run by ``calib run``), else None."""
    value = os.environ.get(EXPORT_ENV)
    return Path(value) if value else None


#: what a failed write into the cache looks like: read-only, full, or not ours to write
_WRITE_ERRNOS = {
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
}
_ERRNO_IN_TEXT = re.compile(r"(?:\[errno |errno |code: |os error )(\d+)", re.IGNORECASE)


class CacheWriteError(OSError):
    """The cache folder cannot be written (read-only, full, or no permission).

    The message is one line naming the folder, the environment variable that sets it and the
    free space the write needs (an estimate)."""

    def __init__(self, folder: str | os.PathLike, reason: str, needed: int | None, what: str):
        self.folder, self.reason, self.needed, self.what = Path(folder), reason, needed, what
        space = f" with at least {human_bytes(needed)} free" if needed else ""
        full = reason in (_WRITE_ERRNOS[errno.ENOSPC], _WRITE_ERRNOS[errno.EDQUOT])
        fix = (
            f"free {human_bytes(needed) if needed else 'space'} there or set {CACHE_ENV} to "
            f"a folder{space}"
            if full
            else f"set {CACHE_ENV} to a writable folder{space}"
        )
        super().__init__(
            f"cannot write {what} into the cache folder {self.folder}: {reason}; "
            f"{fix}. Nothing half-written was left behind."
        )

    def needing(self, needed: int, what: str | None = None) -> CacheWriteError:
        """The same error with a (larger) estimate of the space needed."""
        return CacheWriteError(self.folder, self.reason, needed, what or self.what)


def human_bytes(n: int) -> str:
    """``1.5 GB``, ``20 MB``, ``340 kB``: decimal units, rounded up."""
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            value = n / size
            return f"{value:.1f} {unit}" if value < 10 else f"{math.ceil(value)} {unit}"
    return f"{n} bytes"


def write_problem(exc: BaseException) -> str | None:
    """Why ``exc`` (an ``OSError``, pyarrow or safetensors error) failed to write, if it is a
    read-only, full or forbidden folder; ``None`` for any other error."""
    code = getattr(exc, "errno", None)
    if code not in _WRITE_ERRNOS:
        found = _ERRNO_IN_TEXT.search(str(exc))
        if found is None:
            return None
        code = int(found.group(1))
    return _WRITE_ERRNOS.get(code)


@contextlib.contextmanager
def cache_writes(folder: str | os.PathLike, what: str, needed: int | None = None):
    """Turn a read-only, full or forbidden ``folder`` into a :class:`CacheWriteError` (one line:
    folder, ``CACHE_ENV``, space needed); other errors pass through unchanged."""
    try:
        yield
    except CacheWriteError:
        raise
    except Exception as exc:
        reason = write_problem(exc)
        if reason is None:
            raise
        raise CacheWriteError(folder, reason, needed, what) from exc


@contextlib.contextmanager
def cache_lock(path: str | os.PathLike, what: str, timeout: float = -1):
    """Hold the lock file ``path`` (an OS-level ``flock`` through :mod:`filelock`) for the
    block: other processes asking for it wait (up to ``timeout`` seconds, ``-1``: for ever).
    The operating system releases it when the holder ends, also by a crash or ``SIGKILL``, so a
    dead holder never blocks anyone. A folder that cannot hold the file is a
    :class:`CacheWriteError`."""
    from filelock import FileLock

    path = Path(path)
    with cache_writes(path.parent, what):
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(path))
        lock.acquire(timeout=timeout)
    try:
        yield lock
    finally:
        lock.release()
