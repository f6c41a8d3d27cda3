"""A stand-in causal LM that does no compute, for timing the host side of scoring.

Its outputs are :class:`Free` tensors: zero-stride zeros of the real shapes (hidden states
``(B, W, hidden)``, logits ``(B, W, vocab)``) on which every torch operation costs O(1): the
result's shape and dtype are worked out on the ``meta`` device and the result is again zeros of
that shape. So what the device would compute (the layers, the output layer, the logsumexp over
the vocabulary, gathers, float32 upcasts) costs nothing here, and a timing of a scorer with it
measures only what the host does per statement: tokenising, planning, building the inputs of
each pass, copying results back, assembling rows, writing the store. It serves both model
interfaces: ``model(...)`` returning logits (what the scorer of the main branch before issue 27
called) and ``model.base_model(...)`` returning hidden states plus ``model.lm_head`` (the
scorer since, :mod:`calib.scoring.heads`).

Used by ``benchmarks/host_path.py`` in two processes (this checkout's calib and the baseline's);
it imports nothing from calib.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.utils._pytree import tree_map

#: reads of a tensor's metadata, answered by the zero-stride tensor itself
_METADATA = {
    torch.Tensor.dim,
    torch.Tensor.size,
    torch.Tensor.numel,
    torch.Tensor.element_size,
    torch.Tensor.__len__,
    torch.Tensor.stride,
    torch.Tensor.is_contiguous,
    torch.Tensor.data_ptr,
    torch.Tensor.storage_offset,
}
_PROPERTIES = {"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad"}


def _np_dtype(dtype: torch.dtype):
    return torch.empty((), dtype=dtype).numpy().dtype if dtype != torch.bfloat16 else np.float32


class Free(torch.Tensor):
    """Zeros of a shape, stored in one element; every operation on it is O(1) (see the module
    docstring). ``.numpy()`` gives read-only zeros of the shape (a broadcast view)."""

    @staticmethod
    def __new__(cls, shape, dtype=torch.float32):
        return torch.Tensor._make_subclass(  # noqa: SLF001
            cls, torch.zeros((), dtype=dtype).expand(tuple(shape))
        )

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if func in _METADATA or (name == "__get__" and _property(func) in _PROPERTIES):
            with torch._C.DisableTorchFunctionSubclass():  # noqa: SLF001
                return func(*args, **kwargs)
        if func is torch.Tensor.numpy:
            t = args[0]
            return np.broadcast_to(np.zeros((), dtype=_np_dtype(t.dtype)), tuple(t.shape))
        if func in (torch.Tensor.item, torch.Tensor.tolist, torch.Tensor.__bool__):
            with torch._C.DisableTorchFunctionSubclass():  # noqa: SLF001
                return func(*args, **kwargs)
        if func in (torch.Tensor.__float__, torch.Tensor.__int__, torch.Tensor.__index__):
            return func(torch.zeros((), dtype=args[0].dtype))
        if func in (torch.Tensor.cpu, torch.Tensor.to, torch.Tensor.contiguous):
            if func is torch.Tensor.to:
                dtype = next((a for a in args[1:] if isinstance(a, torch.dtype)), None)
                dtype = kwargs.get("dtype", dtype) or args[0].dtype
                return Free(args[0].shape, dtype)
            return Free(args[0].shape, args[0].dtype)

        shape = _fast_shape(func, args, kwargs)
        if shape is not None:
            dtype = _result_dtype(func, args, kwargs)
            return Free(shape, dtype)

        def meta(a):
            if isinstance(a, torch.Tensor):
                return torch.empty(tuple(a.shape), dtype=a.dtype, device="meta")
            if isinstance(a, torch.device):
                return torch.device("meta")
            return a

        with torch._C.DisableTorchFunctionSubclass():  # noqa: SLF001
            out = func(*tree_map(meta, args), **tree_map(meta, kwargs))
        return tree_map(
            lambda o: Free(tuple(o.shape), o.dtype) if isinstance(o, torch.Tensor) else o, out
        )


_SAME_SHAPE = {torch.Tensor.float, torch.Tensor.clone, torch.Tensor.detach}
_ELEMENTWISE = {
    torch.Tensor.__sub__,
    torch.Tensor.__rsub__,
    torch.Tensor.__add__,
    torch.Tensor.__radd__,
    torch.Tensor.__mul__,
    torch.Tensor.__rmul__,
    torch.Tensor.__truediv__,
    torch.Tensor.sub,
    torch.Tensor.add,
    torch.sub,
    torch.add,
    torch.tanh,
    torch.Tensor.abs,
}


def _shape(a) -> tuple:
    return tuple(a.shape) if isinstance(a, torch.Tensor) else ()


def _index_shape(base: tuple, index) -> tuple | None:
    """The shape of ``base[index]`` for slices, ints, Ellipsis-free leading tensor indices."""
    if not isinstance(index, tuple):
        index = (index,)
    if any(i is Ellipsis or i is None for i in index):
        if index[0] is Ellipsis and len(index) == 2 and isinstance(index[1], int):
            return base[:-1]
        return None
    tensors = [i for i in index if isinstance(i, torch.Tensor)]
    if tensors:
        lead = len(tensors)
        if any(not isinstance(i, torch.Tensor) for i in index[:lead]) or any(
            t.dtype == torch.bool for t in tensors
        ):
            return None
        rest = index[lead:]
        if any(not (isinstance(i, slice) and i == slice(None)) for i in rest):
            return None
        return np.broadcast_shapes(*(tuple(t.shape) for t in tensors)) + base[lead:]
    out = []
    for dim, i in enumerate(index):
        if isinstance(i, int):
            continue
        if not isinstance(i, slice):
            return None
        out.append(len(range(*i.indices(base[dim]))))
    return tuple(out) + base[len(index) :]


def _fast_shape(func, args, kwargs) -> tuple | None:
    """The result shape of the few operations a scorer applies to model outputs, worked out
    directly (the ``meta`` device takes milliseconds an operation); ``None``: not one of them."""
    try:
        if func is torch.Tensor.__getitem__:
            return _index_shape(tuple(args[0].shape), args[1])
        if func in _SAME_SHAPE:
            return tuple(args[0].shape)
        if func in _ELEMENTWISE:
            return np.broadcast_shapes(*(_shape(a) for a in args))
        if func in (torch.logsumexp, torch.Tensor.logsumexp):
            dim = kwargs.get("dim", args[1] if len(args) > 1 else None)
            shape = list(args[0].shape)
            del shape[dim]
            return tuple(shape)
        if func in (torch.Tensor.gather, torch.gather):
            index = kwargs.get("index", args[2] if len(args) > 2 else None)
            return tuple(index.shape)
        if func in (torch.Tensor.reshape, torch.Tensor.view):
            new = list(
                args[1] if len(args) == 2 and isinstance(args[1], (tuple, list)) else args[1:]
            )
            total = int(np.prod(args[0].shape))
            if -1 in new:
                known = int(np.prod([d for d in new if d != -1]))
                new[new.index(-1)] = total // max(known, 1)
            return tuple(new)
        if func is torch.cat:
            parts = args[0]
            dim = kwargs.get("dim", args[1] if len(args) > 1 else 0)
            shape = list(parts[0].shape)
            shape[dim] = sum(p.shape[dim] for p in parts)
            return tuple(shape)
    except Exception:  # noqa: BLE001 - any doubt: the meta device decides
        return None
    return None


def _result_dtype(func, args, kwargs) -> torch.dtype:
    if func is torch.Tensor.float:
        return torch.float32
    if func is torch.cat:
        return args[0][0].dtype
    dtypes = [a.dtype for a in args if isinstance(a, torch.Tensor)]
    return torch.promote_types(*dtypes[:2]) if len(dtypes) > 1 else dtypes[0]


def _property(getter) -> str:
    owner = getattr(getter, "__self__", None)
    return getattr(owner, "__name__", "")


class StandInCache:
    """A key/value cache that holds nothing (its rows are selected in O(1))."""

    def batch_select_indices(self, indices) -> None:
        pass

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return 0


class _Layer(torch.nn.Module):
    """One block: passes its input through (a place for the scorer's per-layer hooks)."""

    def forward(self, hidden):
        return hidden


class StandInBackbone(torch.nn.Module):
    """Hidden states ``(B, W, hidden)`` of zeros and an empty cache, at no cost."""

    def __init__(self, config, dtype):
        super().__init__()
        self.config = config
        self.dtype_ = dtype
        self.layers = torch.nn.ModuleList([_Layer()])
        self.passes = 0

    def forward(self, input_ids=None, cache=None, use_cache=None, **kwargs):
        from transformers.modeling_outputs import BaseModelOutputWithPast

        self.passes += 1
        b, w = input_ids.shape
        hidden = self.layers[0](Free((b, w, self.config.hidden_size), self.dtype_))
        return BaseModelOutputWithPast(
            last_hidden_state=hidden, past_key_values=StandInCache() if use_cache else None
        )


class StandInHead(torch.nn.Module):
    """The output layer: ``(..., hidden)`` -> ``(..., vocab)`` zeros, at no cost."""

    def __init__(self, vocab: int, hidden: int, dtype):
        super().__init__()
        self.weight = Free((vocab, hidden), dtype)
        self.dtype_ = dtype

    def forward(self, hidden):
        return Free((*hidden.shape[:-1], self.weight.shape[0]), self.dtype_)


class StandInLM(torch.nn.Module):
    """A causal LM of a real configuration's shapes (vocabulary, hidden size) that computes
    nothing: ``model(...)`` gives logits, ``model.base_model(...)`` hidden states and
    ``model.lm_head`` the output layer, all :class:`Free`."""

    base_model_prefix = "model"

    def __init__(self, config, dtype=torch.bfloat16):
        super().__init__()
        self.config = config
        self.model = StandInBackbone(config, dtype)
        self.lm_head = StandInHead(config.vocab_size, config.hidden_size, dtype)

    @property
    def base_model(self):
        return self.model

    def get_output_embeddings(self):
        return self.lm_head

    def get_input_embeddings(self):
        return self.lm_head

    def forward(self, input_ids=None, cache=None, use_cache=None, **kwargs):
        from transformers.modeling_outputs import CausalLMOutputWithPast

        out = self.model(input_ids=input_ids, cache=cache, use_cache=use_cache, **kwargs)
        return CausalLMOutputWithPast(
            logits=self.lm_head(out.last_hidden_state), past_key_values=out.past_key_values
        )


def stand_in(vocab: int, hidden: int, dtype=torch.bfloat16) -> StandInLM:
    """A :class:`StandInLM` of ``vocab`` tokens and ``hidden`` units (no sliding window)."""
    from transformers import LlamaConfig

    config = LlamaConfig(
        vocab_size=vocab,
        hidden_size=hidden,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=1,
    )
    return StandInLM(config, dtype).eval()


def gpu_settings(chunks_module, new_code: bool = True) -> None:
    """Make ``calib.scoring.chunks`` score as on a GPU while the model lies on the CPU:
    padded passes and (this checkout's code) a GPU's slices of logits."""
    import functools

    kwargs: dict = {"pad": True}
    if new_code:
        from calib.scoring.heads import GPU_SLICE_LOGITS

        kwargs["slice_logits"] = GPU_SLICE_LOGITS
    chunks_module.clm_score = functools.partial(chunks_module.clm_score, **kwargs)


def stand_in_lm(tokenizer, start_id: int, vocab: int, hidden: int, key: str):
    """A :class:`calib.models.loading.LoadedModel` of the stand-in (on the CPU, bfloat16)."""
    from calib.models.loading import LoadedModel

    return LoadedModel(
        name=f"stand-in-{vocab}x{hidden}",
        objective="clm",
        model=stand_in(vocab, hidden),
        tokenizer=tokenizer,
        device=torch.device("cpu"),
        dtype=torch.bfloat16,
        key=key,
        start_token_id=start_id,
    )
