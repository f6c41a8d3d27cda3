"""Device memory of a causal scorer's passes, planned from a model's configuration alone.

Before a model is loaded (or a GPU lent), its configuration says what each kind of forward pass
of :func:`calib.scoring.clm.clm_score` holds on the device at its peak, for a token budget:

* the weights (parameters counted on PyTorch's ``meta`` device: no memory, exact);
* a **prefix pass** of ``budget`` tokens: its key/value cache (kept for its continuations),
  its hidden states, the largest transient of one layer (the MLP's up/gate products or the
  attention's projections and scores), and one slice of logits of the output layer
  (:func:`calib.scoring.heads.slice_positions` positions x the vocabulary, in the model's dtype
  and in float32, and logsumexp's float32 temporary);
* a **continuation pass** of ``budget`` tokens: the prefix pass's cache, the copies of it that
  its rows attend to (at most ``KV_FACTOR * budget`` positions,
  :data:`calib.scoring.batching.KV_FACTOR`), its own new keys and values, the same transient
  and the same slice of logits.

The vocabulary enters only through the slice of logits, so the budget no longer shrinks for a
large vocabulary: :func:`plan_budget` takes the largest power of two whose peak fits
:data:`calib.scoring.batching.GPU_MEMORY_SHARE` of the memory. What the scorer before the
vocabulary slice held for comparison: the logits of a whole pass in the model's dtype, plus the
float32 upcast of the prefix pass's last positions (``logits_before``). ``calib plan --model
NAME`` prints it.
The estimate is an upper bound by design (it counts the attention scores materialised, as the
CPU's attention does; a GPU's fused attention holds less); a CPU test checks that a pass's
measured allocations stay within it for a model of Gemma 3's vocabulary.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from calib.scoring.batching import GPU_MEMORY_SHARE, KV_FACTOR, MAX_BUDGET, MIN_BUDGET
from calib.scoring.heads import slice_positions

#: the widest statement planned for (tokens; BEAR's longest statements have about 50)
PLAN_WIDTH = 64
_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


@dataclass(frozen=True)
class Shape:
    """What the plan needs of a configuration (its text part for a multimodal model)."""

    model_type: str
    objective: str
    parameters: int
    vocab: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    intermediate: int
    #: layers that cache keys and values (Qwen3.5's linear-attention layers keep a fixed state)
    attention_layers: int


def _count_parameters(config) -> int:
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    auto = AutoModelForMaskedLM if _objective(config) == "mlm" else AutoModelForCausalLM
    with torch.device("meta"):
        model = auto.from_config(config)
    return sum(p.numel() for p in model.parameters())


def _objective(config) -> str:
    from calib.models.loading import infer_objective

    return infer_objective(config) or "clm"


def model_shape(config, parameters: int | None = None) -> Shape:
    """The :class:`Shape` of a ``transformers`` configuration (``parameters``: counted on the
    meta device unless given)."""
    text = getattr(config, "text_config", None) or config
    hidden = int(getattr(text, "hidden_size", 0) or getattr(text, "n_embd", 0))
    layers = int(getattr(text, "num_hidden_layers", 0) or getattr(text, "n_layer", 0))
    heads = int(getattr(text, "num_attention_heads", 0) or getattr(text, "n_head", 1))
    kv_heads = int(getattr(text, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(text, "head_dim", None) or hidden // max(heads, 1))
    inter = int(
        getattr(text, "intermediate_size", None)
        or getattr(text, "ffn_dim", None)
        or getattr(text, "n_inner", None)
        or 4 * hidden
    )
    types = getattr(text, "layer_types", None) or []
    attention = sum(1 for t in types if "attention" in t and "linear" not in t) if types else layers
    return Shape(
        model_type=str(getattr(text, "model_type", "")),
        objective=_objective(config),
        parameters=int(parameters if parameters is not None else _count_parameters(config)),
        vocab=int(text.vocab_size),
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=inter,
        attention_layers=attention,
    )


@dataclass(frozen=True)
class PassPlan:
    """Bytes a pass holds at its peak, by part, for ``budget`` tokens per pass."""

    budget: int
    slice_positions: int
    weights: int
    prefix_cache: int
    hidden_states: int
    layer_transient: int
    logit_slice: int
    continuation_cache: int
    prefix_peak: int
    continuation_peak: int
    logits_before: int

    @property
    def peak(self) -> int:
        return max(self.prefix_peak, self.continuation_peak)

    def as_dict(self) -> dict:
        return {**asdict(self), "peak": self.peak}


def plan_passes(
    shape: Shape,
    budget: int,
    dtype: str = "bfloat16",
    device_type: str = "cuda",
    slice_logits: int | None = None,
    width: int = PLAN_WIDTH,
) -> PassPlan:
    """The peak bytes of a prefix pass and of a continuation pass of ``budget`` tokens (see
    the module docstring); ``width``: the longest statement planned for (attention scores)."""
    b = _DTYPE_BYTES.get(dtype, 4)
    # a masked model keeps no cache; its passes are all of the first kind
    kv_token = 2 * shape.attention_layers * shape.kv_heads * shape.head_dim * b
    kv_token *= shape.objective != "mlm"
    weights = shape.parameters * b
    prefix_cache = budget * kv_token
    hidden_states = budget * shape.hidden * b
    # one layer at a time: the MLP's gate and up products and their product, or the attention's
    # projections and its (float32) scores over at most ``width`` keys, beside the residual
    mlp = 3 * shape.intermediate * b
    attention = (shape.heads + 2 * shape.kv_heads) * shape.head_dim * b + shape.heads * width * 8
    layer_transient = budget * (max(mlp, attention) + 3 * shape.hidden * b)
    n = slice_positions(shape.vocab, device_type, slice_logits)
    logit_slice = n * shape.vocab * (b + 8) + n * shape.hidden * b
    # a continuation pass's copies of the prefix cache, its own keys and values, and one
    # layer's concatenation of the two while it is made
    cached = KV_FACTOR * budget
    continuation_cache = (cached + budget) * kv_token + (cached + budget) * kv_token // max(
        shape.attention_layers, 1
    )
    small = budget * 8 * 8  # inputs, positions, masks, requests
    prefix_peak = weights + prefix_cache + hidden_states + layer_transient + logit_slice + small
    continuation_peak = prefix_peak + continuation_cache if shape.objective != "mlm" else 0
    logits_before = budget * shape.vocab * b + budget // 4 * shape.vocab * 4
    return PassPlan(
        budget=budget,
        slice_positions=n,
        weights=weights,
        prefix_cache=prefix_cache,
        hidden_states=hidden_states,
        layer_transient=layer_transient,
        logit_slice=logit_slice,
        continuation_cache=continuation_cache,
        prefix_peak=prefix_peak,
        continuation_peak=continuation_peak,
        logits_before=logits_before,
    )


def plan_budget(
    shape: Shape,
    memory_bytes: int,
    dtype: str = "bfloat16",
    device_type: str = "cuda",
    slice_logits: int | None = None,
) -> PassPlan:
    """The plan of the largest power-of-two budget in [MIN_BUDGET, MAX_BUDGET] whose peak
    fits :data:`~calib.scoring.batching.GPU_MEMORY_SHARE` of ``memory_bytes`` (the smallest
    budget when none fits)."""
    budget = MAX_BUDGET
    while budget > MIN_BUDGET:
        plan = plan_passes(shape, budget, dtype, device_type, slice_logits)
        if plan.peak <= GPU_MEMORY_SHARE * memory_bytes:
            return plan
        budget //= 2
    return plan_passes(shape, budget, dtype, device_type, slice_logits)


def gib(n: int) -> str:
    return f"{n / 2**30:8.2f}"


def plan_lines(name: str, shape: Shape, plan: PassPlan, memory_bytes: int) -> list[str]:
    """The dry run of one model, as printed by ``calib plan``."""
    return [
        f"{name}: {shape.model_type}, {shape.parameters / 1e9:.2f}B parameters, vocabulary "
        f"{shape.vocab:,}, hidden {shape.hidden}, {shape.layers} layers "
        f"({shape.attention_layers} with a key/value cache), {shape.kv_heads} key/value heads "
        f"x {shape.head_dim}",
        f"  budget {plan.budget:,} tokens per pass on {memory_bytes / 2**30:.0f} GiB "
        f"(at most {GPU_MEMORY_SHARE:.0%} planned); logits {plan.slice_positions:,} positions "
        f"at a time",
        "  GiB:    weights  prefix-cache  hidden  layer  logit-slice  cont-cache | prefix-peak  "
        "cont-peak | before: logits",
        f"       {gib(plan.weights)}  {gib(plan.prefix_cache)}  {gib(plan.hidden_states)}"
        f" {gib(plan.layer_transient)}  {gib(plan.logit_slice)}  {gib(plan.continuation_cache)}"
        f" | {gib(plan.prefix_peak)}  {gib(plan.continuation_peak)} |"
        f" {gib(plan.logits_before)}",
    ]


#: an H200's memory as a plan counts it: 141 GB of HBM, about 139 GiB as CUDA reports it
H200_BYTES = 139 * 2**30


def plan_config(name: str):
    """The configuration a plan of ``name`` starts from, and where it came from: for one of
    the paper's models, its hub configuration where this machine holds it, else the one
    :func:`calib.models.shapes.shape_config` builds from the registry's architecture (no hub
    needed); for any other name, :func:`calib.models.loading.load_config`'s. Returns
    ``(config, origin)``, or ``(None, why)`` when nothing provides one."""
    from transformers import AutoConfig

    from calib.models.loading import ModelLoadError, load_config
    from calib.models.registry import get_spec
    from calib.models.shapes import shape_config, shape_source

    built = shape_config(name)
    spec = get_spec(name)
    if built is not None and spec is not None and spec.hub_id:
        try:  # the hub's configuration if it was downloaded before: never asks the hub
            config = AutoConfig.from_pretrained(
                spec.hub_id, revision=spec.revision, local_files_only=True
            )
            return config, f"the hub configuration of {spec.hub_id} held here"
        except (OSError, ValueError):
            return built, f"built from calib/models/paper_configs.json ({shape_source(name)})"
    try:
        return load_config(name), "its configuration"
    except ModelLoadError as exc:
        return None, str(exc).splitlines()[0][:160]


def print_plans(names: list[str], memory_bytes: int, dtype: str = "bfloat16") -> int:
    """``calib plan``: the dry run of each model in ``names`` (registry names, folders or hub
    ids; ``all``: every registry model but the tiny ones) from its configuration alone
    (:func:`plan_config`: the paper's models need no hub); a model whose configuration cannot
    be had here is named with the reason. Returns the exit code (1 when some model had no
    configuration)."""
    from calib.models.registry import registry

    if names == ["all"]:
        names = [spec.name for spec in registry().values() if spec.kind != "tiny"]
    missing = 0
    for name in names:
        config, origin = plan_config(name)
        if config is None:
            print(f"{name}: no configuration here ({origin})")
            missing += 1
            continue
        shape = model_shape(config)
        plan = plan_budget(shape, memory_bytes, dtype)
        lines = plan_lines(name, shape, plan, memory_bytes)
        print("\n".join([lines[0], f"  configuration: {origin}", *lines[1:]]), flush=True)
    return 1 if missing else 0
