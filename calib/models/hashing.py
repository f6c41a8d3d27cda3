"""Content hashes of model files and folders, and the stamp calib writes into a folder it builds.

A file's sha256 is computed the first time a process asks for it and remembered, in that
process only, while the file's path, inode, size, modification and change times stay the same
(writing a file gives it a new change time, which no tool can set back). So a folder changed
in place is hashed anew, even with its size and modification time restored, and two folders
share a hash only when their files are the same (:func:`folder_hash`, the score store's key).
That costs a process 0.5 to 0.9 s for the embedded SmolLM2-135M (its 98 MB GGUF and 538 MB
converted folder, on the project's 2-core machine), once.

A folder that calib builds in its cache (a tiny model, an embedded model converted from GGUF)
holds a stamp, :data:`STAMP`: the size and sha256 of each of its files when it was written.
:func:`stamp_problem` compares the folder with it, so that a damaged folder (a file truncated
or changed) is found and built again (:func:`calib.models.tiny.tiny_folder`,
:func:`calib.models.loading.converted_folder`) instead of failing every later load.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

#: the stamp of a folder calib built: file name -> [size in bytes, sha256]
STAMP = "calib-files.json"
#: files of a model folder that do not change what it computes (and the stamp, which is made
#: from the others)
_NOT_HASHED = (".md", ".rst", ".lock", ".part", ".tmp")

_KNOWN: dict[tuple, str] = {}


def file_sha256(path: str | os.PathLike) -> str:
    """The sha256 (hex) of the file ``path``, computed once per process while the file stays
    as it is (see the module docstring)."""
    path = Path(path).resolve()
    st = path.stat()
    key = (str(path), st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    if key not in _KNOWN:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        _KNOWN[key] = digest.hexdigest()
    return _KNOWN[key]


def hashed_files(folder: str | os.PathLike) -> list[Path]:
    """The files of a model folder that its hash covers (configuration, tokenizer, weights;
    hidden files, documentation and the stamp left out), sorted by name."""
    return [
        p
        for p in sorted(Path(folder).iterdir())
        if p.is_file()
        and not p.name.startswith(".")
        and p.suffix not in _NOT_HASHED
        and p.name != STAMP
    ]


def folder_hash(folder: str | os.PathLike) -> str:
    """Content hash of a model folder: the name and sha256 of each of its
    :func:`hashed_files`, so two folders share a hash only when those files are identical."""
    digest = hashlib.sha256()
    for path in hashed_files(folder):
        digest.update(f"{path.name}\0{file_sha256(path)}\n".encode())
    return digest.hexdigest()[:16]


def write_stamp(folder: str | os.PathLike) -> None:
    """Write :data:`STAMP` into ``folder``: the size and sha256 of each of its files."""
    files = {p.name: [p.stat().st_size, file_sha256(p)] for p in hashed_files(folder)}
    (Path(folder) / STAMP).write_text(json.dumps(files, indent=1, sort_keys=True))


def stamp_problem(folder: str | os.PathLike) -> str | None:
    """How ``folder`` differs from its :data:`STAMP` (a file gone, of another size or other
    content; one line), or ``None`` when every file is as stamped. A folder without a stamp
    (built before calib wrote them) is stamped now, as it is."""
    folder = Path(folder)
    try:
        stamped = json.loads((folder / STAMP).read_text())
    except FileNotFoundError:
        with contextlib.suppress(OSError):  # a read-only cache: stamped by a later process
            write_stamp(folder)
        return None
    except (OSError, ValueError) as exc:
        return f"its stamp {STAMP} is unreadable ({exc})"
    if not isinstance(stamped, dict) or not all(
        isinstance(v, list) and len(v) == 2 for v in stamped.values()
    ):
        return f"its stamp {STAMP} is malformed"
    for name, (size, sha) in sorted(stamped.items()):
        path = folder / name
        if not path.is_file():
            return f"{name} is gone"
        if path.stat().st_size != size:
            return f"{name} has {path.stat().st_size} bytes, {size} when it was written"
        if file_sha256(path) != sha:
            return f"{name} has changed since it was written (its sha256 differs)"
    return None
