"""Fast causal-LM scoring: full-sentence log-likelihood with shared-prefix key/value reuse.

Paper §2.3: a statement's score is built from log p(w_t | w_<t) for every token after a start
token. The options of one instance share every token before the answer; that prefix is run once,
its key/value cache is copied to each option, and only the rest of each option is run. Units of
work with the same prefix length are batched together without padding, continuations are
bucketed by length (no padding), and batches are sized so that the logits of one
forward pass stay under ``max_logits`` floats.

Agreement with :func:`calib.scoring.reference.clm_reference` (one statement, one full forward)
is tested to 1e-4 per statement in float32.
"""

from __future__ import annotations

import copy
import inspect
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from calib.scoring.encoding import Encoded
from calib.scoring.logprobs import token_logprobs
from calib.scoring.statements import common_prefix_length

DEFAULT_MAX_LOGITS = 1 << 28  # 256M floats, 1 GiB in float32


@dataclass
class _Unit:
    group: int
    options: list[int]
    prefix: int  # shared prefix length P (>= 1: the start token)
    cont: int  # longest continuation input among the options (tokens after P, minus the last)


def _units(groups: Sequence[Sequence[Encoded]], vocab: int, max_logits: int) -> list[_Unit]:
    units = []
    for g, encs in enumerate(groups):
        lengths = [len(e.ids) for e in encs]
        p = min(common_prefix_length([e.ids for e in encs]), min(lengths) - 1)
        order = sorted(range(len(encs)), key=lambda i: lengths[i])
        cur: list[int] = []
        for i in order:
            cont = lengths[i] - 1 - p
            if cur and (len(cur) + 1) * max(cont, 1) * vocab > max_logits:
                units.append(_Unit(g, cur, p, max(lengths[j] - 1 - p for j in cur)))
                cur = []
            cur.append(i)
        units.append(_Unit(g, cur, p, max(lengths[j] - 1 - p for j in cur)))
    return units


def _batches(units: list[_Unit], vocab: int, max_logits: int) -> list[list[_Unit]]:
    """Consecutive units (sorted by prefix length, then continuation length) with equal prefix
    length, while prefix and continuation logits fit ``max_logits``."""
    units = sorted(units, key=lambda u: (u.prefix, u.cont))
    batches, cur, rows, cont = [], [], 0, 0
    for u in units:
        new_rows, new_cont = rows + len(u.options), max(cont, u.cont)
        fits = (len(cur) + 1) * u.prefix * vocab <= max_logits \
            and new_rows * max(new_cont, 1) * vocab <= max_logits
        if cur and (u.prefix != cur[0].prefix or not fits):
            batches.append(cur)
            cur, new_rows, new_cont = [], len(u.options), u.cont
        cur.append(u)
        rows, cont = new_rows, new_cont
    if cur:
        batches.append(cur)
    return batches


def _cache_of(result):
    """The key/value cache a forward pass returned (``cache`` in newer transformers)."""
    cache = getattr(result, "cache", None)
    return cache if cache is not None else result.past_key_values


def _cache_kwarg(model) -> str:
    """The name under which this model's forward takes a cache (it changed in transformers 5)."""
    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _select_cache(cache, index: torch.Tensor):
    """A copy of the prefix cache with its batch rows picked by ``index`` (one per option)."""
    if hasattr(cache, "batch_select_indices"):
        cache = copy.deepcopy(cache)
        cache.batch_select_indices(index)
        return cache
    return tuple(tuple(t.index_select(0, index) for t in layer) for layer in cache)


def _continuation_buckets(lengths: np.ndarray, pad: bool) -> list[np.ndarray]:
    """Rows (indices into ``lengths``) run together: one bucket per length, or all in one."""
    todo = np.nonzero(lengths > 0)[0]
    if pad:
        return [todo] if todo.size else []
    return [todo[lengths[todo] == n] for n in np.unique(lengths[todo])]


@torch.inference_mode()
def clm_score(model, groups: Sequence[Sequence[Encoded]], device: torch.device | str = "cpu",
              max_logits: int = DEFAULT_MAX_LOGITS,
              progress: Callable[[int], None] | None = None,
              pad: bool | None = None) -> list[list[np.ndarray]]:
    """Per-token log-probabilities for every statement of every group.

    ``groups[g][o]`` is the encoded statement of option ``o`` of query ``g`` (see
    :func:`calib.scoring.encoding.encode_clm`); the result has the same nesting, each entry an
    array of log p(token) for the statement's targets. ``progress(n)`` is called with the number
    of statements finished after each batch.

    Within a batch the prefix runs once. With ``pad=False`` (the default on CPUs, where compute
    is the bottleneck) the options' continuations run in buckets of equal length, each on its
    own copy of the prefix cache, so nothing is spent on padding; with ``pad=True`` (the default
    on GPUs, where each forward pass has a fixed launch cost) they run in one right-padded pass.
    Both give the same scores.
    """
    device = torch.device(device)
    vocab = int(model.get_output_embeddings().weight.shape[0])
    cache_kw = _cache_kwarg(model)
    out: list[list[np.ndarray | None]] = [[None] * len(g) for g in groups]
    for batch in _batches(_units(groups, vocab, max_logits), vocab, max_logits):
        p = batch[0].prefix
        prefix = torch.as_tensor(np.stack([groups[u.group][u.options[0]].ids[:p] for u in batch]),
                                 device=device)
        res = model(input_ids=prefix, use_cache=True)
        logits = res.logits  # (Q, P, V)
        shared = token_logprobs(logits[:, :-1], prefix[:, 1:]).cpu().numpy()  # (Q, P-1)
        rows = [(q, u.group, o) for q, u in enumerate(batch) for o in u.options]
        first_ids = torch.as_tensor([int(groups[g][o].ids[p]) for _, g, o in rows], device=device)
        row_q = torch.as_tensor([q for q, _, _ in rows], device=device)
        first = token_logprobs(logits[row_q, -1], first_ids).cpu().numpy()
        del logits
        prefix_cache = _cache_of(res)
        rest: dict[int, np.ndarray] = {}
        lengths = np.asarray([len(groups[g][o].ids) - 1 - p for _, g, o in rows])
        for idx in _continuation_buckets(lengths, pad if pad is not None else device.type != "cpu"):
            width = int(lengths[idx].max())
            seqs = np.zeros((len(idx), width + 1), dtype=np.int64)  # right-padded with id 0
            mask = np.zeros((len(idx), p + width), dtype=np.int64)
            mask[:, :p] = 1
            for k, r in enumerate(idx):
                tail = groups[rows[r][1]][rows[r][2]].ids[p:]
                seqs[k, :len(tail)] = tail
                mask[k, p:p + len(tail) - 1] = 1
            cache = _select_cache(prefix_cache, row_q[torch.as_tensor(idx, device=device)])
            padded = bool((lengths[idx] < width).any())
            res2 = model(input_ids=torch.as_tensor(seqs[:, :-1], device=device), use_cache=True,
                         **{cache_kw: cache},
                         **({"attention_mask": torch.as_tensor(mask, device=device)}
                            if padded else {}),
                         position_ids=torch.arange(p, p + width, device=device)[None]
                         .expand(len(idx), -1))
            got = token_logprobs(res2.logits, torch.as_tensor(seqs[:, 1:], device=device))
            for r, values in zip(idx, got.cpu().numpy()):
                rest[int(r)] = values[:lengths[r]]
        for r, (q, g, o) in enumerate(rows):
            parts = [shared[q], first[r:r + 1]]
            if r in rest:
                parts.append(rest[r])
            out[g][o] = np.concatenate(parts).astype(np.float64)
        if progress is not None:
            progress(len(rows))
    return out  # type: ignore[return-value]
