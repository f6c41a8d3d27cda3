"""The provenance of a chapter run: what a reader needs to trust or repeat it.

:func:`provenance` returns one JSON-ready record; :func:`~calib.book.chapters.run_chapter` writes it
into the executed notebook's metadata (``metadata["calib"]["provenance"]``) and shows it in the
chapter's run note (:func:`provenance_lines`).

==============  ===============================================================================
key             holds
==============  ===============================================================================
``commit``      the git commit of the checkout that holds the ``calib`` package that ran (else of
                the book root; ``None`` outside a git checkout)
``modified``    whether tracked files differ from that commit (untracked files do not count)
``versions``    calib, torch, transformers, numpy, pandas and Python
``models``      per model :func:`calib.models.fingerprint.model_fingerprint`: the weights'
                hash (GGUF sha256, hub revision, folder fingerprint) with objective and dtype;
                for a hub model the revision asked for and the commit it resolved to
``data``        :func:`calib.data.root.data_version`: checksum list, pinned commits, file check
``device``      where the models ran (``auto``: CUDA if available, else CPU)
``seconds``     the wall time of the chapter's execution
==============  ===============================================================================
"""

from __future__ import annotations

import os
import platform
import subprocess
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

#: the packages whose versions every record names
PACKAGES: tuple[str, ...] = ("torch", "transformers", "numpy", "pandas")


def git_state(root: str | os.PathLike) -> dict:
    """``{"commit": <sha or None>, "modified": <bool or None>}`` of the checkout at ``root``."""

    def git(*args: str) -> str | None:
        try:
            proc = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return proc.stdout if proc.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "modified": None}
    status = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit.strip(), "modified": None if status is None else bool(status.strip())}


def code_checkout(root: str | os.PathLike) -> Path:
    """The folder whose git state the record names: the checkout holding the imported
    ``calib`` package when it is one (the code that ran), else the book root."""
    import calib

    package = Path(calib.__file__).resolve().parents[1]
    return package if (package / ".git").exists() else Path(root)


def versions() -> dict[str, str]:
    """The versions of calib, :data:`PACKAGES` and Python (without importing the packages)."""
    import calib

    out = {"calib": calib.__version__}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    out["python"] = platform.python_version()
    return out


def device_name(device: str | None = "auto") -> str:
    """``device`` with ``"auto"`` resolved as the scorers resolve it (CUDA if available)."""
    if device not in (None, "auto"):
        return str(device)
    try:
        import torch

        if torch.cuda.is_available():
            return f"cuda ({torch.cuda.get_device_name(0)})"
    except ImportError:
        pass
    return "cpu"


def provenance(
    models: Sequence[str],
    root: str | os.PathLike,
    *,
    seconds: float | None = None,
    device: str | None = "auto",
    data_dir: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> dict:
    """The provenance record of a run over ``models`` from the book root ``root``."""
    from calib.data.root import data_version
    from calib.models.fingerprint import model_fingerprint

    return {
        **git_state(code_checkout(root)),
        "versions": versions(),
        "models": [model_fingerprint(m, cache_dir) for m in models],
        "data": data_version(data_dir),
        "device": device_name(device),
        "seconds": None if seconds is None else round(float(seconds), 1),
    }


def provenance_lines(record: dict) -> list[str]:
    """The record as short Markdown lines for a chapter's run note."""
    from calib.models.fingerprint import short_hash

    commit = record.get("commit")
    if commit:
        state = " (with local modifications)" if record.get("modified") else ""
        code = f"commit `{commit[:12]}`{state}"
    else:
        code = "not a git checkout"
    v = record.get("versions", {})
    lines = [
        f"- **Code**: {code}; calib {v.get('calib')}, torch {v.get('torch')}, "
        f"transformers {v.get('transformers')}, Python {v.get('python')}."
    ]
    models = []
    for m in record.get("models", []):
        what = f"`{m['model']}`: {m.get('kind') or 'model'} `{short_hash(m)}`"
        if m.get("revision") and m.get("revision") != m.get("resolved_revision"):
            what += f" (revision `{m['revision']}` asked for)"
        what += f", {m['dtype']}" if m.get("dtype") else ""
        models.append(what + (f" ({m['note']})" if m.get("note") and not m.get("hash") else ""))
    if models:
        lines.append("- **Models**: " + "; ".join(models) + ".")
    d = record.get("data") or {}
    if d:
        check = (
            f"all {d['files']} files present match it"
            if not d.get("mismatched")
            else f"{len(d['mismatched'])} of {d['files']} files differ from it "
            f"(e.g. `{d['mismatched'][0]}`)"
        )
        lines.append(
            f"- **Data**: checksum list `{d['manifest'][:19]}` (the package's `SHA256SUMS`); "
            f"{check}."
        )
    seconds = record.get("seconds")
    lines.append(
        f"- **Run**: device {record.get('device')}"
        + (f"; wall time {seconds:.0f} s" if seconds is not None else "")
        + "."
    )
    return lines
