"""A language model as a backbone and an output layer, so that log-probabilities are taken over
slices of positions and the logits of a whole forward pass never exist at once.

A ``transformers`` model for causal or masked language modelling is its base model (the
transformer, returning hidden states and the key/value cache) followed by an output layer
(``lm_head``; BERT's and RoBERTa's prediction heads with their transform; Gemma's optional
final soft-capping) applied position by position. For Gemma 3's 262,144-token vocabulary the
logits of one pass at a GPU's token budget would be tens of GiB; hidden states are a few
hundred MiB. :func:`output_split` finds the two parts of a model and checks once, on a short
input, that applying them one after the other gives the model's own logits (else the model is
used whole: its logits are the "hidden states" and the output layer is the identity, the
behaviour before this module). :func:`logprobs_at` then applies the output layer to slices of
at most ``slice_positions`` positions, with the log-softmax in float32 (one definition:
:func:`calib.scoring.logprobs.logprobs_at_rows`), and returns the log-probabilities asked for.
"""

from __future__ import annotations

import inspect
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from calib.scoring.logprobs import logprobs_at_rows

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OutputSplit:
    """``backbone(input_ids=..., ...)`` returns hidden states (``last_hidden_state``) and the
    cache; ``head(hidden)`` maps ``(..., hidden)`` to ``(..., vocab)`` logits. ``whole``: the
    model could not be split, ``backbone`` is the model and ``head`` the identity.
    ``cache_kw``: the name under which ``backbone`` takes a cache."""

    backbone: torch.nn.Module
    head: Callable[[torch.Tensor], torch.Tensor]
    vocab: int
    whole: bool
    cache_kw: str

    def hidden(self, output) -> torch.Tensor:
        """The hidden states (or, for a whole model, logits) of a ``backbone`` output."""
        return output.logits if self.whole else output.last_hidden_state


def _cache_kwarg(module) -> str:
    """The name under which a forward takes a cache (it changed in transformers 5)."""
    return "cache" if "cache" in inspect.signature(module.forward).parameters else "past_key_values"


def _text_config(model):
    return getattr(model.config, "text_config", None) or model.config


class _Head(torch.nn.Module):
    """The modules after the base model, applied in order, then the soft-capping if any."""

    def __init__(self, parts: list[torch.nn.Module], softcap: float | None):
        super().__init__()
        self.parts = parts  # a plain list: registered with the model already
        self.softcap = softcap

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        for part in self.parts:
            hidden = part(hidden)
        if self.softcap:
            hidden = torch.tanh(hidden / self.softcap) * self.softcap
        return hidden


def _candidate(model) -> tuple[torch.nn.Module, _Head] | None:
    base = getattr(model, "base_model", None)
    if base is None or base is model:
        return None
    parts = [m for name, m in model.named_children() if m is not base]
    if not parts:
        return None
    softcap = getattr(_text_config(model), "final_logit_softcapping", None)
    return base, _Head(parts, softcap)


_SPLITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _vocab(model) -> int:
    out = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if out is not None and getattr(out, "weight", None) is not None:
        return int(out.weight.shape[0])
    return int(_text_config(model).vocab_size)


@torch.inference_mode()
def output_split(model) -> OutputSplit:
    """``model`` as backbone and output layer (see the module docstring), checked once per model
    on an input of 8 tokens: the two parts one after the other must give the model's logits
    to within 1e-3 of their largest magnitude (else the model is used whole)."""
    known = _SPLITS.get(model)
    if known is not None:
        return known
    vocab = _vocab(model)
    found = _candidate(model)
    split = None
    if found is not None:
        base, head = found
        device = next(iter(model.parameters()), torch.empty(0)).device
        ids = (torch.arange(8, device=device) % vocab)[None]
        try:
            full = model(input_ids=ids).logits.float()
            mine = head(base(input_ids=ids).last_hidden_state).float()
            gap = float((full - mine).abs().max()) if full.shape == mine.shape else float("inf")
            ok = gap <= 1e-3 * (1.0 + float(full.abs().max()))
        except Exception as exc:  # noqa: BLE001 - any failure: use the model whole
            log.info("%s cannot be split into backbone and head (%s)", type(model).__name__, exc)
            ok = False
        if ok:
            split = OutputSplit(base, head, vocab, False, _cache_kwarg(base))
        else:
            log.warning(
                "%s: its base model and output layer do not reproduce its logits; scoring "
                "with its whole logits per pass (memory grows with the vocabulary)",
                type(model).__name__,
            )
    if split is None:
        split = OutputSplit(model, lambda h: h, vocab, True, _cache_kwarg(model))
    _SPLITS[model] = split
    return split


#: logits (floats) one slice of positions may hold on a GPU and on a CPU
GPU_SLICE_LOGITS, CPU_SLICE_LOGITS = 1 << 28, 1 << 24


def slice_positions(vocab: int, device_type: str, logits: int | None = None) -> int:
    """Positions whose logits are taken at once: ``logits`` (default :data:`GPU_SLICE_LOGITS`
    or :data:`CPU_SLICE_LOGITS`) over the vocabulary, at least one."""
    cap = logits or (CPU_SLICE_LOGITS if device_type == "cpu" else GPU_SLICE_LOGITS)
    return max(1, cap // max(vocab, 1))


def logprobs_at(
    split: OutputSplit,
    hidden: torch.Tensor,
    positions: np.ndarray,
    targets: torch.Tensor,
    positions_dev: torch.Tensor,
    per_slice: int,
) -> torch.Tensor:
    """log p(``targets[i]``) at flat position ``positions[i]`` of ``hidden`` (``(B, W, H)``
    viewed as ``(B * W, H)``; ``positions`` ascending, on the host, and the same on the device
    as ``positions_dev``), in float32, on the device: the output layer is applied to slices of
    at most ``per_slice`` consecutive positions (those holding a position asked for), so the
    logits of the whole pass never exist at once. No value is copied to the host."""
    flat = hidden.reshape(-1, hidden.shape[-1])
    out = []
    lo = 0
    n = len(positions)
    while lo < n:
        a = int(positions[lo])
        hi = int(np.searchsorted(positions, a + per_slice, side="left"))
        b = int(positions[hi - 1]) + 1
        logits = split.head(flat[a:b])
        out.append(logprobs_at_rows(logits, positions_dev[lo:hi] - a, targets[lo:hi]))
        del logits
        lo = hi
    return torch.cat(out) if len(out) != 1 else out[0]
