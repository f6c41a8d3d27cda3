"""What identifies a model's weights, for the provenance of a chapter (without loading it).

:func:`model_fingerprint` says where a model's weights come from and how to recognise them
again: the sha256 of an embedded model's GGUF file, the revision (commit) of a hub model's
cached snapshot (with the revision asked for: ``NAME@REVISION`` or the registry's), the content
hash of a local folder, or the builder version and content hash of a tiny model.
It reuses the hashing behind the score store's keys (:mod:`calib.models.hashing`,
:func:`calib.models.loading.model_key`).
"""

from __future__ import annotations

import os
from pathlib import Path

from calib.models.hashing import file_sha256, folder_hash
from calib.models.loading import ModelLoadError, dtype_name, model_key
from calib.models.locate import embedded_missing, gguf_path, model_ref, resolved_revision
from calib.models.registry import get_spec
from calib.models.tiny import TINY_VERSION, tiny_folder
from calib.settings import cache_root


def model_fingerprint(name: str, cache_dir: str | os.PathLike | None = None) -> dict:
    """A record of ``name``'s weights: ``model``, ``kind`` (``embedded``, ``tiny``, ``folder``,
    ``hub``), ``source`` (file, folder or hub id), ``hash`` (``sha256:<hex>`` of a GGUF file,
    ``folder:<hex>`` of a local folder's files, ``revision:<commit>`` of a hub snapshot,
    ``tiny:<version>-<hex>`` of a tiny model's builder version and files;
    ``None`` when it cannot be told here, with ``note`` saying why), ``revision`` (hub models:
    the revision asked for, ``NAME@REVISION`` or the registry's; ``None``: the default branch)
    and ``resolved_revision`` (hub models: the commit it resolves to in the local Hugging Face
    cache; ``None`` when not cached), ``objective`` and ``dtype`` (the registry's defaults; the
    dtype on this machine's CPU, :func:`calib.models.loading.dtype_name`; for an unregistered
    model the CPU default), and ``key``,
    the score store's key of the weights.

    Parameters
    ----------
    name : str
        A registry name, local folder or hub id, optionally ``NAME@REVISION``.
    cache_dir : str or os.PathLike or None
        The cache root (default :func:`calib.settings.cache_root`).

    Returns
    -------
    dict
        The record above; ``note`` is ``""`` unless something could not be told (a name
        :func:`calib.models.locate.model_ref` rejects, whose message it then holds, or a hub
        revision not in the local cache).
    """
    spec = get_spec(name)
    out = {
        "model": name,
        "kind": spec.kind if spec else None,
        "source": None,
        "hash": None,
        "revision": None,
        "resolved_revision": None,
        "objective": spec.objective if spec else None,
        "dtype": dtype_name(None, spec, "cpu"),
        "key": None,
        "note": "",
    }
    try:
        ref = model_ref(name)
        out["key"] = model_key(name, cache_dir)
    except ModelLoadError as exc:
        out["note"] = str(exc)
        return out
    if ref.kind == "embedded":
        path = gguf_path(ref.required_spec)
        if path is None:  # model_key found it a moment ago
            out["note"] = embedded_missing(ref.required_spec)
            return out
        out.update(source=str(path), hash=f"sha256:{file_sha256(path)}")
    elif ref.kind == "tiny":
        folder = tiny_folder(ref.required_spec.name, cache_root(cache_dir))
        out.update(
            source="built locally (calib.models.tiny)",
            hash=f"tiny:{TINY_VERSION}-{folder_hash(folder)}",
        )
    elif ref.kind == "folder":
        folder = Path(ref.required_source).resolve()
        out.update(kind="folder", source=str(folder), hash=f"folder:{folder_hash(folder)}")
    else:
        commit = resolved_revision(ref.source, ref.revision)
        out.update(kind="hub", source=ref.source, revision=ref.revision, resolved_revision=commit)
        if commit is not None:
            out["hash"] = f"revision:{commit}"
        else:
            asked = f"revision {ref.revision!r}" if ref.revision else "the default branch"
            out["note"] = (
                f"{asked} is not in the local Hugging Face cache: the commit is resolved at load"
            )
    return out


def short_hash(fingerprint: dict, length: int = 12) -> str:
    """``sha256:1a2b3c4d5e6f`` style: the kind of hash and its first ``length`` characters."""
    value = fingerprint.get("hash")
    if not value:
        return "unknown"
    kind, _, digest = value.partition(":")
    return f"{kind}:{digest[:length]}"
