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
fixed launch cost) mixes lengths, sorted, where a pass saved is worth the padding
(:data:`PASS_COST_TOKENS`, tuned by the token accounting; at most :data:`MAX_PADDING_SHARE` of
a pass padded).

:func:`model_token_budget` picks the budget from the device: small on a CPU (what keeps its
caches warm), on a GPU from its memory and the model's shapes (:mod:`calib.scoring.memory`:
the vocabulary no longer counts, since logits are taken a slice of positions at a time).
:mod:`calib.scoring.accounting` counts what a plan forwards against the minimum; the scorers
execute the same plan.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from calib.scoring.tokens import TokenBatch, offsets_of, segment_index

#: the CPU's token budget: passes this size keep the CPU speed of equal-length buckets
CPU_TOKEN_BUDGET = 2048
#: on a CPU, at most this many logits (floats) per pass (1 GiB in float32)
CPU_MAX_LOGITS = 1 << 28
#: a continuation pass holds at most ``KV_FACTOR * budget`` cached key/value positions
KV_FACTOR = 4
#: padded positions allowed in a pass that mixes lengths, as a share of its tokens (a bound:
#: within it, runs are chosen by cost, :data:`PASS_COST_TOKENS`)
MAX_PADDING_SHARE = 0.25
#: what a pass costs beyond its tokens (Python dispatch, kernel launches: ~15-30 ms on a GPU),
#: in tokens' worth of compute, when passes mix lengths. Tuned on the token accounting of BEAR
#: under one template at the H200's budget (2**18 tokens) in the GPU's chunks of 100,000
#: statements: SmolLM2's tokenizer 29 passes (90 at the former 2% padding rule in one chunk),
#: 1.18x the minimum tokens (1.02x before); Gemma 3's 26 (252 before, equal-length prefixes),
#: 1.18x (1.00x); in one chunk 17 and 16 passes
PASS_COST_TOKENS = 12_288
#: continuation passes a prefix pass brings, about (a prefix pass costs them too)
CONTINUATION_PASSES = 3
#: rows of one pass at most: CUDA's grid limit (65,535 blocks in y and z) that some attention
#: kernels put the batch on
MAX_ROWS = 65_535
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


def _rows_per_pass(width: int, budget: int, cached: int) -> int:
    """Sequences of ``width`` one pass may hold (see :func:`pack`), at least one."""
    rows = min(budget // width, KV_FACTOR * budget // (cached + width), MAX_ROWS)
    return max(1, rows)


def pack(
    widths: np.ndarray,
    budget: int,
    pad: bool,
    cached: int = 0,
    attached: np.ndarray | None = None,
    pass_cost: int | None = None,
) -> list[tuple[int, int]]:
    """Consecutive runs ``[start, end)`` of ascending ``widths``: ``n`` sequences of the run's
    largest width ``w`` with ``n * w <= budget``, ``n * (cached + w) <= KV_FACTOR * budget``
    when ``cached`` key/value positions precede them, and ``n <= MAX_ROWS``. With ``pad=False``
    a run holds one width. With ``pad=True`` runs mix widths where that is cheaper: the
    widths are cut into groups of least cost (forwarded tokens, padding included, plus
    ``pass_cost``, default :data:`PASS_COST_TOKENS`, per pass; a group's padded positions at most
    :data:`MAX_PADDING_SHARE` of its tokens plus the ``attached`` tokens of its sequences, a
    prefix's continuations, which its padding delays), each group cut into full passes. A
    sequence wider than the budget runs alone."""
    widths = np.asarray(widths, dtype=np.int64)
    n = len(widths)
    if n == 0:
        return []
    if not pad:
        runs = []
        for start, end in _groups(widths):
            cap = _rows_per_pass(int(widths[start]), budget, cached)
            runs += [(a, min(a + cap, end)) for a in range(start, end, cap)]
        return runs
    cost = PASS_COST_TOKENS if pass_cost is None else pass_cost
    return _cheapest_runs(widths, budget, cached, attached, cost)


def _groups(widths: np.ndarray) -> list[tuple[int, int]]:
    """Runs ``[start, end)`` of equal values in ascending ``widths``."""
    edges = np.flatnonzero(np.diff(widths)) + 1
    bounds = [0, *edges.tolist(), len(widths)]
    return list(itertools.pairwise(bounds))


def _cheapest_runs(widths, budget, cached, attached, pass_cost) -> list[tuple[int, int]]:
    """:func:`pack`'s runs with ``pad=True``: a dynamic programme over the groups of equal
    width (few: BEAR's sequences are at most 47 tokens wide)."""
    groups = _groups(widths)
    real = np.concatenate([[0], np.cumsum(widths)])
    more = np.concatenate([[0], np.cumsum(attached)]) if attached is not None else real * 0
    m = len(groups)
    best = np.full(m + 1, np.inf)
    best[0] = 0.0
    cut = np.zeros(m + 1, dtype=np.int64)
    for j in range(1, m + 1):
        end = groups[j - 1][1]
        w = int(widths[end - 1])
        cap = _rows_per_pass(w, budget, cached)
        for i in range(j - 1, -1, -1):
            start = groups[i][0]
            count = end - start
            tokens = count * w
            padding = tokens - (real[end] - real[start])
            if i < j - 1 and padding > MAX_PADDING_SHARE * (tokens + more[end] - more[start]):
                break  # wider groups only pad more
            cost = best[i] + tokens + pass_cost * -(-count // cap)
            if cost < best[j]:
                best[j], cut[j] = cost, i
    runs: list[tuple[int, int]] = []
    j = m
    while j > 0:
        i = int(cut[j])
        start, end = groups[i][0], groups[j - 1][1]
        cap = _rows_per_pass(int(widths[end - 1]), budget, cached)
        runs[:0] = [(a, min(a + cap, end)) for a in range(start, end, cap)]
        j = i
    return runs


def _flat(groups) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ids, starts, group_starts)`` of nested token ids or a
    :class:`~calib.scoring.tokens.TokenBatch`."""
    if isinstance(groups, TokenBatch):
        return groups.ids, groups.starts, groups.groups
    flat = [np.asarray(ids) for g in groups for ids in g]
    ids = np.concatenate(flat).astype(np.int64) if flat else np.zeros(0, np.int64)
    starts = offsets_of(np.asarray([len(x) for x in flat], dtype=np.int64))
    return ids, starts, offsets_of(np.asarray([len(g) for g in groups], dtype=np.int64))


def shared_prefixes(groups):
    """``(lengths, prefix_of, prefix_len, prefix_source)`` of flat statements (see
    :class:`ClmPlan`): a query's prefix is its options' common prefix, but at least one token
    of each option left to predict; equal prefixes of different queries are one prefix.
    ``groups``: token ids per option per query, or a :class:`~calib.scoring.tokens.TokenBatch`
    (worked out on flat arrays, without a loop per statement)."""
    ids, starts, gstarts = _flat(groups)
    lengths = np.diff(starts)
    sizes = np.diff(gstarts)
    first = np.repeat(gstarts[:-1], sizes)  # each statement's query's first statement
    # how far each statement agrees with its query's first statement
    m = np.minimum(lengths, lengths[first])
    own = segment_index(starts[:-1], m)
    theirs = segment_index(starts[first], m)
    pos = np.arange(len(own)) - np.repeat(offsets_of(m)[:-1], m)
    stop = np.where(ids[own] != ids[theirs], pos, np.repeat(m, m))
    agree = m.copy()
    has = m > 0
    agree[has] = np.minimum.reduceat(stop, offsets_of(m)[:-1][has]) if len(stop) else 0
    nonempty = np.nonzero(sizes > 0)[0]
    heads = gstarts[:-1][nonempty]
    common = np.minimum.reduceat(agree, heads) if len(heads) else np.zeros(0, np.int64)
    shortest = np.minimum.reduceat(lengths, heads) if len(heads) else np.zeros(0, np.int64)
    p_group = np.minimum(common, shortest - 1)
    if len(p_group) and p_group.min() < 1:
        raise ValueError("every statement needs a start token and at least one more token")
    prefix_of = np.empty(len(lengths), dtype=np.int64)
    prefix_len: list[int] = []
    prefix_source: list[int] = []
    seen: dict[bytes, int] = {}
    for g, head, p in zip(nonempty.tolist(), heads.tolist(), p_group.tolist()):
        a = int(starts[head])
        key = ids[a : a + p].astype(np.int64).tobytes()
        k = seen.get(key)
        if k is None:
            k = seen[key] = len(prefix_len)
            prefix_len.append(p)
            prefix_source.append(head)
        prefix_of[gstarts[g] : gstarts[g + 1]] = k
    return (
        lengths,
        prefix_of,
        np.asarray(prefix_len, dtype=np.int64),
        np.asarray(prefix_source, dtype=np.int64),
    )


def plan_clm(
    groups: Sequence[Sequence[np.ndarray]] | TokenBatch,
    budget: int,
    pad: bool,
    pad_prefixes: bool | None = None,
) -> ClmPlan:
    """The passes that score ``groups[g][o]`` (token ids of option ``o`` of query ``g``, start
    token first; or a :class:`~calib.scoring.tokens.TokenBatch`) within ``budget`` tokens per
    pass. ``pad_prefixes=False`` keeps prefixes of
    one length per pass even when ``pad`` (a model with recurrent layers, or a sliding window
    that a padded prefix would shift: :func:`prefixes_paddable`); by default it follows
    ``pad``."""
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
    prefix_cost = PASS_COST_TOKENS * (1 + CONTINUATION_PASSES)
    for a, b in pack(
        plen[order], budget, pad_prefixes, attached=attached[order], pass_cost=prefix_cost
    ):
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


def token_budget(device_type: str, vocab: int) -> int:
    """Tokens per forward pass on a CPU: :data:`CPU_TOKEN_BUDGET`, less when ``vocab`` would
    put more than :data:`CPU_MAX_LOGITS` logits in a pass (what keeps a CPU's caches warm). A
    GPU's budget is planned from its memory and the model's shapes
    (:func:`model_token_budget`, :func:`calib.scoring.memory.plan_budget`)."""
    return max(MIN_BUDGET // 4, min(CPU_TOKEN_BUDGET, CPU_MAX_LOGITS // max(vocab, 1)))


def model_token_budget(model, device) -> int:
    """The token budget for a loaded model on ``device``: on a CPU :func:`token_budget`; on
    a GPU the largest power of two whose passes' planned peak fits the memory there (the free
    memory read from CUDA, plus what PyTorch holds cached but unused, plus the model's weights,
    which the plan counts;
    :func:`calib.scoring.memory.plan_budget`)."""
    import torch

    device = torch.device(device)
    if device.type != "cuda":
        out = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
        vocab = int(out.weight.shape[0]) if out is not None else int(model.config.vocab_size)
        return token_budget(device.type, vocab)
    from calib.scoring.memory import model_shape, plan_budget

    params = list(model.parameters())
    weights = sum(p.numel() * p.element_size() for p in params)
    dtype = str(params[0].dtype).replace("torch.", "")
    free, _ = torch.cuda.mem_get_info(device)
    # what PyTorch keeps cached for reuse is free to its passes (else the budget would shrink
    # after the first chunk, whose memory stays reserved)
    free += torch.cuda.memory_reserved(device) - torch.cuda.memory_allocated(device)
    shape = model_shape(model.config, parameters=sum(p.numel() for p in params))
    return plan_budget(shape, free + weights, dtype).budget


def _text_config(model):
    return getattr(model.config, "text_config", None) or model.config


#: layer types that attend over the cached keys and values (any other layer type, such as
#: Qwen3.5's ``linear_attention``, carries a recurrent state)
ATTENTION_LAYERS = ("full_attention", "sliding_attention", "chunked_attention")


def sliding_window(model) -> int | None:
    """The sliding window of a causal model that attends within one, else ``None``."""
    window = getattr(_text_config(model), "sliding_window", None)
    return int(window) if window is not None else None


def recurrent_layers(model) -> bool:
    """Whether a causal model has layers that carry a recurrent state (any layer type but
    :data:`ATTENTION_LAYERS`, e.g. Qwen3.5's Gated DeltaNet): a pad token it reads is folded
    into that state."""
    types = getattr(_text_config(model), "layer_types", None) or ()
    return any(t not in ATTENTION_LAYERS for t in types)


def prefixes_paddable(model, longest: int | None = None) -> bool:
    """Whether a prefix pass may right-pad its prefixes (see :func:`plan_clm`): never for a
    model with recurrent layers (the padding would enter the state its continuations start
    from); for a sliding-window model only when every statement, its prefix's padding
    included, stays within the window (``2 * longest <= window``, ``longest`` the longest
    statement; unknown: not paddable), since a padded prefix shifts its continuations'
    window."""
    if recurrent_layers(model):
        return False
    window = sliding_window(model)
    return window is None or (longest is not None and 2 * longest <= window)


def model_plan(model, batch: TokenBatch, budget: int, pad: bool) -> ClmPlan:
    """:func:`plan_clm` of ``batch`` for a loaded causal ``model``: prefixes padded only where
    :func:`prefixes_paddable` allows it."""
    longest = int(batch.lengths.max(initial=0))
    return plan_clm(batch, budget, pad, pad_prefixes=pad and prefixes_paddable(model, longest))
