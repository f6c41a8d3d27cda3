"""Loading a tokenizer and model from a registry name, a local folder or a hub id.

* Embedded GGUF models are converted once into a cached Hugging Face folder (dequantised,
  quantisation attributes cleared) under ``<cache>/models/``; later loads take seconds.
* Tiny models are built into the same cache on first use.
* Anything else is a local folder or a hub id; the objective (``clm``/``mlm``) is inferred from
  the configuration's architecture unless given.
* A hub model is loaded at the revision asked for (``NAME@REVISION``, else the registry's
  ``revision``, else the default branch): every ``from_pretrained`` of its configuration,
  tokenizer and weights gets ``revision=`` (:func:`calib.models.locate.model_ref`).

Tokenizers must be "fast" (they give character offsets, which token roles need). calib pads
batches itself with attention masks, so a tokenizer without a pad token is fine: its pad token
is set to EOS (or UNK) only so that the tokenizer object stays usable.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from calib.models.conversion import convert
from calib.models.folders import intact
from calib.models.hashing import file_sha256, folder_hash
from calib.models.locate import (
    ModelLoadError,
    ModelRef,
    embedded_missing,
    folder_problem,
    gguf_path,
    model_ref,
    resolved_revision,
)
from calib.models.registry import COMMIT_HASH, ModelSpec, get_spec
from calib.models.tiny import TINY_VERSION, tiny_folder
from calib.settings import cache_lock, cache_root

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

log = logging.getLogger(__name__)

_CLM_SUFFIXES = ("ForCausalLM", "LMHeadModel")
_MLM_SUFFIXES = ("ForMaskedLM",)
_DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
#: the dtypes a model can be loaded in, by name
DTYPE_NAMES: tuple[str, ...] = tuple(_DTYPES)
CONVERTED_VERSION = "v1"


@dataclass
class LoadedModel:
    """A model ready for scoring."""

    name: str
    objective: str
    model: torch.nn.Module = field(repr=False)
    tokenizer: PreTrainedTokenizerBase = field(repr=False)
    device: torch.device
    dtype: torch.dtype
    key: str  # identifies the weights: registry name or id plus revision or content hash
    start_token_id: int | None = None  # CLM: prepended so the first word is scored too
    revision: str | None = None  # hub models: the revision asked for (None: default branch)
    resolved_revision: str | None = None  # hub models: the commit loaded (None: not known)


def device_problem(device: str | torch.device | None, here: bool = True) -> str | None:
    """Why ``device`` cannot be used (one line), or ``None``: a name torch does not know, or
    (with ``here``) a device this machine does not have, such as CUDA without a GPU."""
    if device in (None, "auto"):
        return None
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError, ValueError):
        return f"{device!r} is not a device torch knows: expected auto, cpu, cuda or cuda:N"
    if not here or dev.type == "cpu":
        return None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            return f"device {device!r} asked for, but CUDA is not available here"
        count = torch.cuda.device_count()
        if dev.index is not None and dev.index >= count:
            return f"device {device!r} asked for, but this machine has {count} GPU(s)"
        return None
    backend = getattr(torch, dev.type, None)
    available = getattr(backend, "is_available", None)
    if available is None or not available():
        return f"device {device!r} asked for, but torch has no {dev.type} device here"
    return None


def resolve_device(device: str | torch.device | None = "auto") -> torch.device:
    """``"auto"`` picks CUDA when available, else CPU; otherwise ``torch.device(device)``
    (a :exc:`~calib.models.locate.ModelLoadError` where :func:`device_problem` finds one)."""
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    problem = device_problem(device)
    if problem:
        raise ModelLoadError(problem)
    return torch.device(device)


def device_type(device: str | torch.device | None) -> str:
    """``"cuda"``, ``"cpu"``, ... for a device name (``"auto"``: as :func:`resolve_device`
    picks), without checking that the device is there."""
    if device in (None, "auto"):
        return "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device).type


#: the flags (as Linux's ``/proc/cpuinfo`` lists them) of CPUs with native bfloat16 arithmetic:
#: AVX512-BF16 (Cooper Lake, Sapphire Rapids, Zen 4 and later) and AMX-BF16 (Sapphire Rapids)
BFLOAT16_CPU_FLAGS: tuple[str, ...] = ("avx512_bf16", "amx_bf16")


@lru_cache(maxsize=4)
def cpu_flags(cpuinfo: str | os.PathLike = "/proc/cpuinfo") -> frozenset[str]:
    """This CPU's feature flags, from the first ``flags`` line of ``cpuinfo`` (Linux's
    ``/proc/cpuinfo``); empty where that file is missing or unreadable (then the CPU does not
    count as having native bfloat16)."""
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def native_bfloat16(flags: Iterable[str] | None = None) -> bool:
    """Whether a CPU with feature ``flags`` (default: this one's, :func:`cpu_flags`) has native
    bfloat16 arithmetic (any of :data:`BFLOAT16_CPU_FLAGS`); without it torch emulates
    bfloat16 matrix products, more slowly than float32."""
    have = cpu_flags() if flags is None else set(flags)
    return any(f in have for f in BFLOAT16_CPU_FLAGS)


def default_dtype(
    device: str | torch.device | None,
    spec: ModelSpec | None = None,
    flags: Iterable[str] | None = None,
) -> str:
    """The dtype a model runs in when neither the call nor its registry entry names one:
    bfloat16 on GPUs (log-probabilities are still taken in float32,
    :func:`calib.scoring.logprobs.token_logprobs`); on a CPU bfloat16 for a registry entry with
    ``cpu_bfloat16`` when the CPU has native bfloat16 (:func:`native_bfloat16` of ``flags``,
    default this CPU's), else float32."""
    if device_type(device) == "cuda":
        return "bfloat16"
    if spec is not None and spec.cpu_bfloat16 and native_bfloat16(flags):
        return "bfloat16"
    return "float32"


def dtype_name(
    dtype: str | torch.dtype | None,
    spec: ModelSpec | None,
    device: str | torch.device | None = "cpu",
    flags: Iterable[str] | None = None,
) -> str:
    """The name of the dtype to load in (``"float32"``, ...): ``dtype`` if given, else the
    registry entry's ``dtype``, else :func:`default_dtype` for ``device`` (and the CPU's
    ``flags``). The score store's key names this dtype
    (:func:`calib.scoring.run.scoring_options`).

    Parameters
    ----------
    dtype : str or torch.dtype or None
        The dtype asked for (a ``torch.dtype`` is named without ``torch.``).
    spec : calib.models.registry.ModelSpec or None
        The model's registry entry, if any.
    device : str or torch.device or None
        The device the model runs on (default ``"cpu"``).
    flags : iterable of str or None
        The CPU's flags (default this CPU's, :func:`cpu_flags`).

    Returns
    -------
    str
        The dtype's name.
    """
    if isinstance(dtype, torch.dtype):
        return str(dtype).replace("torch.", "")
    return dtype or (spec.dtype if spec else None) or default_dtype(device, spec, flags)


def resolve_dtype(
    dtype: str | torch.dtype | None,
    spec: ModelSpec | None,
    device: str | torch.device | None = "cpu",
) -> torch.dtype:
    """The dtype to load in: :func:`dtype_name` as a ``torch.dtype``."""
    if isinstance(dtype, torch.dtype):
        return dtype
    name = dtype_name(dtype, spec, device)
    if name not in _DTYPES:
        raise ModelLoadError(f"dtype {name!r} is not one of {sorted(_DTYPES)}")
    return _DTYPES[name]


def model_key(name: str, cache_dir: str | os.PathLike | None = None) -> str:
    """A key that changes when the model's files change (the score store's folder name).

    Every model loaded from a folder is keyed by the content hash of that folder
    (:func:`calib.models.hashing.folder_hash`: tokenizer, configuration and weights): embedded
    models by their GGUF's sha256 and the hash of the folder converted from it (converted first
    if need be), tiny models by the builder version and the hash of the folder built (built
    first if need be), local folders by their hash. Hub ids: the commit that the revision asked
    for (``@REVISION``, else the registry's, else the default branch) resolves to in the local
    Hugging Face cache (:func:`calib.models.locate.resolved_revision`); not cached: the revision
    asked for when it is a full commit hash, else ``hub`` (plus ``-REVISION`` when one was asked
    for), which becomes the commit once the model has been loaded.

    Parameters
    ----------
    name : str
        A registry name, local folder or hub id, optionally ``NAME@REVISION``.
    cache_dir : str or os.PathLike or None
        The cache root (default :func:`calib.settings.cache_root`).

    Returns
    -------
    str
        ``<name>@<version or hash or commit>``.

    Raises
    ------
    calib.models.locate.ModelLoadError
        For a name :func:`calib.models.locate.model_ref` rejects, or an embedded model whose GGUF
        package is not installed.
    """
    ref = model_ref(name)
    if ref.kind == "embedded":
        spec = ref.required_spec
        path = gguf_path(spec)
        if path is None:
            raise ModelLoadError(embedded_missing(spec))
        folder = converted_folder(spec, cache_dir)
        return f"{spec.name}@gguf-{file_sha256(path)[:12]}-{folder_hash(folder)[:12]}"
    if ref.kind == "tiny":
        spec = ref.required_spec
        folder = tiny_folder(spec.name, cache_root(cache_dir))
        return f"{spec.name}@{TINY_VERSION}-{folder_hash(folder)}"
    if ref.kind == "folder":
        folder = Path(ref.required_source).resolve()
        return f"{folder.name}@{folder_hash(folder)}"
    commit = resolved_revision(ref.source, ref.revision)
    if commit is None and ref.revision and COMMIT_HASH.fullmatch(ref.revision):
        commit = ref.revision
    if commit is None:
        commit = f"hub-{ref.revision}" if ref.revision else "hub"
    return f"{ref.source}@{commit}"


def converted_folder(spec: ModelSpec, cache_dir: str | os.PathLike | None = None) -> Path:
    """The cached Hugging Face folder of an embedded GGUF model, converted on first use.

    The GGUF is loaded with ``transformers`` (dequantised to float32), the quantisation
    attributes are cleared so ``save_pretrained`` writes plain weights, and the folder is
    written atomically, in a child process that Ctrl-C stops at once, leaving no folder
    (:func:`calib.models.conversion.convert`).
    """
    src = gguf_path(spec)
    if src is None:
        raise ModelLoadError(embedded_missing(spec))
    folder = cache_root(cache_dir) / "models" / f"{spec.name}-{CONVERTED_VERSION}"
    stamp = folder / "calib-source.json"
    want = {"gguf": src.name, "sha256": file_sha256(src)}

    def usable(say: bool = True) -> bool:
        return stamp.exists() and json.loads(stamp.read_text()) == want and intact(folder, say)

    if usable():
        return folder
    with cache_lock(folder.with_name(folder.name + ".lock"), f"the converted model {spec.name}"):
        if usable(say=False):
            return folder  # another process converted it meanwhile
        t0 = time.time()
        log.warning("converting %s from GGUF once (20-60 s) into %s", spec.name, folder)
        convert(spec.name, folder)
        log.warning("converted %s in %.0f s", spec.name, time.time() - t0)
    return folder


def infer_objective(config) -> str | None:
    """``"clm"`` or ``"mlm"`` from a configuration's ``architectures``, else ``None``."""
    for arch in getattr(config, "architectures", None) or []:
        if arch.endswith(_CLM_SUFFIXES):
            return "clm"
        if arch.endswith(_MLM_SUFFIXES):
            return "mlm"
    from transformers.models.auto.modeling_auto import (
        MODEL_FOR_CAUSAL_LM_MAPPING_NAMES,
        MODEL_FOR_MASKED_LM_MAPPING_NAMES,
    )

    mtype = getattr(config, "model_type", None)
    if (
        mtype in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
        and mtype not in MODEL_FOR_MASKED_LM_MAPPING_NAMES
    ):
        return "clm"
    if (
        mtype in MODEL_FOR_MASKED_LM_MAPPING_NAMES
        and mtype not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES
    ):
        return "mlm"
    return None


def _source(ref: ModelRef, cache_dir) -> str:
    """The folder or hub id that ``from_pretrained`` loads ``ref`` from (with
    ``revision=ref.revision``)."""
    if ref.kind == "embedded":
        return str(converted_folder(ref.required_spec, cache_dir))
    if ref.kind == "tiny":
        return str(tiny_folder(ref.required_spec.name, cache_root(cache_dir)))
    return ref.required_source


def one_line(exc: BaseException, limit: int = 400) -> str:
    """An exception's message on one line (its lines joined, runs of blanks squeezed), cut to
    ``limit`` characters with an ellipsis: transformers' messages run over several lines, and
    their first alone can end mid-sentence ("... from one of: ")."""
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _not_loadable(name: str, ref: ModelRef, exc: Exception) -> ModelLoadError:
    if ref.kind == "folder":
        problem = folder_problem(ref.required_source)
        return ModelLoadError(
            f"cannot load model {name!r}: "
            + (problem or f"its folder did not load ({type(exc).__name__}: {one_line(exc)})")
        )
    at = f" at revision {ref.revision!r}" if ref.revision else ""
    return ModelLoadError(
        f"cannot load model {name!r}: it is not a registry name (see `calib models`), not a "
        f"local folder, and the Hugging Face hub did not provide it{at} "
        f"({type(exc).__name__}: {one_line(exc, 200)}). Offline, only the "
        f"embedded models, tiny models, local folders and hub snapshots in the local Hugging "
        f"Face cache can be loaded."
    )


def load_config(name: str, cache_dir: str | os.PathLike | None = None):
    """The configuration of ``name`` (registry name, local folder or hub id, optionally
    ``@REVISION``), without the weights; a :exc:`~calib.models.locate.ModelLoadError` when nothing
    provides it."""
    from transformers import AutoConfig

    ref = model_ref(name)
    try:
        return AutoConfig.from_pretrained(_source(ref, cache_dir), revision=ref.revision)
    except (OSError, ValueError) as exc:
        raise _not_loadable(name, ref, exc) from None


def _usable(tokenizer, name: str):
    """``tokenizer`` checked to be fast (offsets) and given a pad token when it has none."""
    if not getattr(tokenizer, "is_fast", False):
        raise ModelLoadError(
            f"the tokenizer of {name!r} is not a fast tokenizer; calib needs "
            f"character offsets to tell subject, object and template tokens"
        )
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    return tokenizer


def load_tokenizer(name: str, cache_dir: str | os.PathLike | None = None):
    """The (fast) tokenizer of ``name`` (registry name, local folder or hub id), without the
    weights."""
    from transformers import AutoTokenizer

    ref = model_ref(name)
    try:
        tokenizer = AutoTokenizer.from_pretrained(_source(ref, cache_dir), revision=ref.revision)
    except (OSError, ValueError) as exc:
        raise ModelLoadError(
            f"the tokenizer of {name!r} cannot be loaded: {one_line(exc)}"
        ) from None
    return _usable(tokenizer, name)


#: model types whose position ids start after the padding index (RoBERTa's scheme)
_PADDING_OFFSET_POSITIONS = (
    "roberta",
    "xlm-roberta",
    "xlm-roberta-xl",
    "camembert",
    "data2vec-text",
)


def context_length(name: str, cache_dir: str | os.PathLike | None = None) -> int | None:
    """How many tokens one input of ``name`` may hold, special tokens included: the
    configuration's position embeddings (``max_position_embeddings`` or ``n_positions``; for
    RoBERTa-like models less the padding offset), capped by the tokenizer's
    ``model_max_length`` when that is set. ``None`` when neither says."""
    config = load_config(name, cache_dir)
    config = getattr(config, "text_config", None) or config
    positions = getattr(config, "max_position_embeddings", None) or getattr(
        config, "n_positions", None
    )
    if positions and getattr(config, "model_type", "") in _PADDING_OFFSET_POSITIONS:
        positions -= (getattr(config, "pad_token_id", None) or 0) + 1
    limit = getattr(load_tokenizer(name, cache_dir), "model_max_length", None)
    limits = [int(v) for v in (positions, limit) if v and v < 1_000_000_000]
    return min(limits) if limits else None


def start_token_id(name: str, tokenizer) -> int:
    """The start token calib puts before a causal model's statements: the registry's
    ``start_token_id``, else the tokenizer's BOS, else its EOS."""
    spec = get_spec(name)
    if spec is not None and spec.start_token_id is not None:
        return spec.start_token_id
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    if start is None:
        raise ModelLoadError(
            f"{name!r} has neither a BOS nor an EOS token to start with; "
            f"register it with start_token_id"
        )
    return start


def load_model(
    name: str,
    objective: str | None = None,
    device: str | None = "auto",
    dtype: str | torch.dtype | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> LoadedModel:
    """Load ``name`` (registry name, local folder or hub id; a hub model optionally pinned as
    ``NAME@REVISION``) for scoring, in eval mode.

    ``objective`` overrides the inferred one; asking for ``"mlm"`` from a model without a masked-LM
    head (or ``"clm"`` from one without a causal head) is a
    :exc:`~calib.models.locate.ModelLoadError`.

    Parameters
    ----------
    name : str
        A registry name, local folder or hub id, optionally ``NAME@REVISION``.
    objective : str or None
        ``"clm"`` or ``"mlm"``; ``None`` (default): the registry's, else inferred from the
        model's configuration.
    device : str or None
        ``"auto"`` (default: a GPU when there is one), ``"cpu"``, ``"cuda"`` ...
        (:func:`resolve_device`).
    dtype : str or torch.dtype or None
        The dtype to load in; ``None``: the registry's, else the device's default
        (:func:`dtype_name`).
    cache_dir : str or os.PathLike or None
        The cache root (default :func:`calib.settings.cache_root`).

    Returns
    -------
    calib.models.loading.LoadedModel
        The model in eval mode on its device, without gradients, with its tokenizer, objective,
        dtype, store key, start token (causal models) and revisions.

    Raises
    ------
    calib.models.locate.ModelLoadError
        For a name that cannot be resolved, an objective that cannot be told or does not match
        the model's head, a model the transformers loaders reject, an unusable tokenizer, a
        masked LM without a mask token, or a dtype that is not known.
    """
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    ref = model_ref(name)
    spec = get_spec(name)
    config = load_config(name, cache_dir)
    source = _source(ref, cache_dir)
    inferred = infer_objective(config)
    wanted = objective or (spec.objective if spec else None) or inferred
    if wanted not in ("clm", "mlm"):
        raise ModelLoadError(
            f"cannot tell whether {name!r} is a causal or masked LM "
            f"(architectures {getattr(config, 'architectures', None)}); "
            f"pass objective='clm' or 'mlm'"
        )
    if inferred is not None and wanted != inferred:
        raise ModelLoadError(
            f"model {name!r} is a {'causal' if inferred == 'clm' else 'masked'} LM "
            f"(architectures {config.architectures}); it cannot be scored as {wanted!r}"
        )
    auto = AutoModelForCausalLM if wanted == "clm" else AutoModelForMaskedLM
    dev = resolve_device(device)
    torch_dtype = resolve_dtype(dtype, spec, dev)
    if ref.kind == "folder" and (problem := folder_problem(source)):
        raise ModelLoadError(f"model {name!r} cannot be loaded: {problem}")
    try:
        tokenizer = AutoTokenizer.from_pretrained(source, revision=ref.revision)
        model = auto.from_pretrained(source, revision=ref.revision, dtype=torch_dtype)
    except Exception as exc:  # noqa: BLE001 - OSError, ValueError, safetensors' own error ...
        built = ref.kind in ("embedded", "tiny")  # a folder calib built in its cache
        raise ModelLoadError(
            f"model {name!r} cannot be loaded as a "
            f"{'causal' if wanted == 'clm' else 'masked'} LM: {one_line(exc)}"
            + (f"; remove its cached folder {source}, and it is built again" if built else "")
        ) from None
    _usable(tokenizer, name)
    model.eval().to(dev)
    model.requires_grad_(False)
    start = None
    if wanted == "clm":
        start = start_token_id(name, tokenizer)
    elif tokenizer.mask_token_id is None:
        raise ModelLoadError(f"masked LM {name!r} has no mask token")
    key = model_key(name, cache_dir)  # a hub model is in the cache now: keyed by its commit
    resolved = resolved_revision(ref.source, ref.revision) if ref.kind == "hub" else None
    return LoadedModel(
        name=ref.label,
        objective=wanted,
        model=model,
        tokenizer=tokenizer,
        device=dev,
        dtype=torch_dtype,
        key=key,
        start_token_id=start,
        revision=ref.revision,
        resolved_revision=resolved,
    )
