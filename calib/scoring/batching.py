"""Forward passes formed by a token budget: the one batch planner of the fast scorers.

A causal LM's statement (paper §2.3: start token + statement, every later token scored) is cut
into the *prefix* its query's options share and its own *continuation*. :func:`plan_clm`
computes each distinct prefix once and each continuation once, and packs them into forward
passes by a **token budget**: a pass of ``n`` sequences of (padded) width ``w`` forwards
``n * w`` tokens, at most ``budget``. Prefixes of all queries handed over (any relations and
templates) are sorted by length and packed together; after each prefix pass, the continuations
of its statements are sorted by length and packed into continuation passes that reuse the
prefix pass's key/value cache. A continuation pass also holds at most ``KV_FACTOR * budget``
cached positions (its rows' copies of the prefix cache).

``pad=False`` (the default on CPUs, where compute is the bottleneck) packs only sequences of
equal length into a pass: nothing is spent on padding. ``pad=True`` (GPUs, where a pass has a
fixed launch cost) mixes lengths, sorted, as long as at most :data:`MAX_PADDING_SHARE` of a
pass is padding.

:func:`token_budget` picks the budget from the device: small on a CPU (what keeps its caches
warm), from free memory and the model's sizes on a GPU. :mod:`calib.scoring.accounting` counts
what a plan forwards against the minimum; the scorers execute the same plan.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from calib.scoring.statements import common_prefix_length

#: the CPU's token budget: passes this size keep the CPU speed of equal-length buckets
CPU_TOKEN_BUDGET = 2048
#: on a CPU, at most this many logits (floats) per pass (1 GiB in float32)
CPU_MAX_LOGITS = 1 << 28
#: a continuation pass holds at most ``KV_FACTOR * budget`` cached key/value positions
KV_FACTOR = 4
#: padded positions allowed in a pass that mixes lengths, as a share of its tokens
MAX_PADDING_SHARE = 0.02
#: share of a GPU's free memory the budget may plan for
GPU_MEMORY_SHARE = 0.7
MIN_BUDGET, MAX_BUDGET = 256, 1 << 20


@dataclass(frozen=True)
class ContinuationPass:
    """Rows (flat statement indices) whose continuations run together, ``width`` wide."""

    rows: np.ndarray
    width: int


@dataclass(frozen=True)
class PrefixPass:
    """Distinct prefixes run together (right-padded to ``width``), the statements they open,
    and the continuation passes that reuse their cache."""

    prefixes: np.ndarray
    width: int
    statements: np.ndarray
    continuations: tuple[ContinuationPass, ...]


@dataclass(frozen=True)
class ClmPlan:
    """A causal scorer's forward passes over flat statements (groups concatenated in order).

    ``lengths[s]``: tokens of statement ``s``; ``prefix_of[s]``: its distinct prefix;
    ``prefix_len[p]``: that prefix's length P (>= 1, < every length sharing it);
    ``prefix_source[p]``: a statement whose first P tokens are the prefix."""

    budget: int
    pad: bool
    lengths: np.ndarray
    prefix_of: np.ndarray
    prefix_len: np.ndarray
    prefix_source: np.ndarray
    passes: tuple[PrefixPass, ...]

    @property
    def continuation_len(self) -> np.ndarray:
        """Continuation tokens forwarded per statement: after the prefix, minus the last."""
        return self.lengths - 1 - self.prefix_len[self.prefix_of]


def pack(
    widths: np.ndarray, budget: int, pad: bool, cached: int = 0, attached: np.ndarray | None = None
) -> list[tuple[int, int]]:
    """Consecutive runs ``[start, end)`` of ascending ``widths``: ``n`` sequences of the run's
    largest width ``w`` with ``n * w <= budget`` and ``n * (cached + w) <= KV_FACTOR * budget``
    when ``cached`` key/value positions precede them. With ``pad=False`` a run holds one width;
    with ``pad=True`` the longest run whose padded positions are at most
    :data:`MAX_PADDING_SHARE` of its tokens plus the ``attached`` tokens of its sequences (a
    prefix's continuations, which its padding delays). A sequence wider than the budget runs
    alone."""
    n = len(widths)
    widths = np.asarray(widths, dtype=np.int64)
    runs, start = [], 0
    while start < n:
        stop = n if pad else int(np.searchsorted(widths, widths[start], side="right"))
        stop = min(stop, start + budget)
        cand = np.arange(start + 1, stop + 1)
        w = widths[cand - 1]
        count = cand - start
        ok = (count * w <= budget) & (count * (cached + w) <= KV_FACTOR * budget)
        if pad:
            real = np.cumsum(widths[start:stop])
            more = 0 if attached is None else np.cumsum(attached[start:stop])
            ok &= count * w - real <= MAX_PADDING_SHARE * (count * w + more)
        end = int(cand[ok][-1]) if ok.any() else start + 1
        runs.append((start, end))
        start = end
    return runs


def shared_prefixes(groups: Sequence[Sequence[np.ndarray]]):
    """``(lengths, prefix_of, prefix_len, prefix_source)`` of flat statements (see
    :class:`ClmPlan`): a query's prefix is its options' common prefix, but at least one token
    of each option left to predict; equal prefixes of different queries are one prefix."""
    lengths = np.asarray([len(ids) for g in groups for ids in g], dtype=np.int64)
    prefix_of = np.empty(len(lengths), dtype=np.int64)
    prefix_len: list[int] = []
    prefix_source: list[int] = []
    seen: dict[bytes, int] = {}
    s = 0
    for g in groups:
        if not len(g):
            continue
        p = min(common_prefix_length(g), min(len(ids) for ids in g) - 1)
        if p < 1:
            raise ValueError("every statement needs a start token and at least one more token")
        key = np.asarray(g[0][:p], dtype=np.int64).tobytes()
        if key not in seen:
            seen[key] = len(prefix_len)
            prefix_len.append(p)
            prefix_source.append(s)
        prefix_of[s : s + len(g)] = seen[key]
        s += len(g)
    return (
        lengths,
        prefix_of,
        np.asarray(prefix_len, dtype=np.int64),
        np.asarray(prefix_source, dtype=np.int64),
    )


def plan_clm(
    groups: Sequence[Sequence[np.ndarray]], budget: int, pad: bool, pad_prefixes: bool | None = None
) -> ClmPlan:
    """The passes that score ``groups[g][o]`` (token ids of option ``o`` of query ``g``, start
    token first) within ``budget`` tokens per pass. ``pad_prefixes=False`` keeps prefixes of
    one length per pass even when ``pad`` (a sliding-window model: a padded prefix would shift
    the window of its continuations); by default it follows ``pad``."""
    if budget < 1:
        raise ValueError(f"token budget must be positive, got {budget}")
    pad_prefixes = pad if pad_prefixes is None else pad_prefixes
    lengths, prefix_of, plen, source = shared_prefixes(groups)
    cont = lengths - 1 - plen[prefix_of]
    # statements of each prefix, in flat order
    by_prefix = np.argsort(prefix_of, kind="stable")
    bounds = np.searchsorted(prefix_of[by_prefix], np.arange(len(plen) + 1))
    order = np.argsort(plen, kind="stable")
    passes = []
    attached = np.bincount(prefix_of, weights=cont, minlength=len(plen))
    for a, b in pack(plen[order], budget, pad_prefixes, attached=attached[order]):
        prefixes = order[a:b]
        width = int(plen[prefixes].max())
        stmts = np.concatenate([by_prefix[bounds[p] : bounds[p + 1]] for p in prefixes])
        todo = stmts[cont[stmts] > 0]
        todo = todo[np.argsort(cont[todo], kind="stable")]
        conts = tuple(
            ContinuationPass(todo[c:d], int(cont[todo[d - 1]]))
            for c, d in pack(cont[todo], budget, pad, cached=width)
        )
        passes.append(PrefixPass(prefixes, width, stmts, conts))
    return ClmPlan(budget, pad, lengths, prefix_of, plen, source, tuple(passes))


def plan_mlm(widths: np.ndarray, budget: int, pad: bool) -> list[np.ndarray]:
    """Passes of a masked scorer over masked copies of ``widths`` tokens each: indices into
    ``widths``, sorted by width, within ``budget`` tokens per pass (see :func:`pack`)."""
    widths = np.asarray(widths, dtype=np.int64)
    order = np.argsort(widths, kind="stable")
    return [order[a:b] for a, b in pack(widths[order], budget, pad)]


def token_budget(
    device_type: str,
    vocab: int,
    *,
    free_bytes: int | None = None,
    dtype_bytes: int = 4,
    hidden: int = 0,
    kv_bytes_per_token: int = 0,
) -> int:
    """Tokens per forward pass for a model on a device.

    CPU: :data:`CPU_TOKEN_BUDGET`, less when ``vocab`` would put more than
    :data:`CPU_MAX_LOGITS` logits in a pass. GPU: :data:`GPU_MEMORY_SHARE` of ``free_bytes``
    divided by what one token of a pass takes (its logits twice, activations of ``hidden``
    units, ``KV_FACTOR`` cached positions of ``kv_bytes_per_token``), rounded down to a power
    of two within [MIN_BUDGET, MAX_BUDGET]."""
    if device_type == "cpu" or free_bytes is None:
        return max(MIN_BUDGET // 4, min(CPU_TOKEN_BUDGET, CPU_MAX_LOGITS // max(vocab, 1)))
    per_token = (
        2 * vocab * max(dtype_bytes, 2) + 64 * hidden * dtype_bytes + KV_FACTOR * kv_bytes_per_token
    )
    tokens = int(GPU_MEMORY_SHARE * free_bytes / max(per_token, 1))
    tokens = 1 << max(tokens, 1).bit_length() - 1
    return int(min(MAX_BUDGET, max(MIN_BUDGET, tokens)))


def model_token_budget(model, device) -> int:
    """:func:`token_budget` for a loaded model on ``device`` (free memory read from CUDA)."""
    import torch

    device = torch.device(device)
    vocab = int(model.get_output_embeddings().weight.shape[0])
    if device.type != "cuda":
        return token_budget(device.type, vocab)
    cfg = getattr(model.config, "text_config", None) or model.config
    hidden = int(getattr(cfg, "hidden_size", 0) or 0)
    layers = int(getattr(cfg, "num_hidden_layers", 0) or 0)
    heads = int(getattr(cfg, "num_attention_heads", 1) or 1)
    kv_heads = int(getattr(cfg, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(cfg, "head_dim", None) or hidden // heads)
    dtype_bytes = next(model.parameters()).element_size()
    free, _ = torch.cuda.mem_get_info(device)
    return token_budget(
        "cuda",
        vocab,
        free_bytes=free,
        dtype_bytes=dtype_bytes,
        hidden=hidden,
        kv_bytes_per_token=2 * layers * kv_heads * head_dim * dtype_bytes,
    )


def sliding_window(model) -> bool:
    """Whether a causal model attends within a sliding window (its prefixes are then packed
    by equal length; see :func:`plan_clm`)."""
    cfg = getattr(model.config, "text_config", None) or model.config
    return getattr(cfg, "sliding_window", None) is not None
