"""Fast causal-LM scoring: full-sentence log-likelihood, shared prefixes computed once, forward
passes filled to a token budget, logits taken a slice of positions at a time.

Paper §2.3: a statement's score is built from log p(w_t | w_<t) for every token after a start
token. The options of one query share every token before the answer; that prefix is run once
(once for all queries that share it), its key/value cache is copied to each option, and only
the rest of each option is run. :func:`calib.scoring.batching.plan_clm` packs the prefixes of
all queries handed over (any relations and templates), sorted by length, into passes of at most
``token_budget`` tokens (padding included), and then the continuations of each prefix pass into
passes of the same budget; this module executes that plan.

What each pass leaves on the device is bounded whatever the vocabulary: the model runs as its
backbone, giving hidden states, and its output layer is applied to slices of positions
(:mod:`calib.scoring.heads`), log-probabilities taken in float32 whatever the model's dtype
(:func:`calib.scoring.logprobs.logprobs_at_rows`); a prefix pass keeps only its key/value cache
for its continuation passes. Nothing is read back per pass: every pass's log-probabilities stay
on the device until the call ends and come back in one copy (:mod:`calib.scoring.transfers`),
so on a GPU the host builds the next pass's inputs (all flat array arithmetic, no loop per
statement) while the device runs the current one.

Agreement with :func:`calib.scoring.reference.clm_reference` (one statement, one full forward)
is tested to 1e-4 per statement in float32, for tiny and huge budgets.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

import numpy as np
import torch

from calib.interrupt import check_interrupted, checked_between_layers
from calib.scoring.backoff import halving_on_oom
from calib.scoring.batching import ClmPlan, model_plan, model_token_budget
from calib.scoring.encoding import Encoded
from calib.scoring.heads import OutputSplit, logprobs_at, output_split, slice_positions
from calib.scoring.logprobs import Scores
from calib.scoring.tokens import TokenBatch, offsets_of, segment_index
from calib.scoring.transfers import RunAhead, to_device, to_host


def _cache_of(result):
    """The key/value cache a forward pass returned (``cache`` in newer transformers)."""
    cache = getattr(result, "cache", None)
    return cache if cache is not None else result.past_key_values


#: cache layers whose ``batch_select_indices`` assigns new tensors (never changes the old ones)
_SELECT_REASSIGNS = ("DynamicLayer", "DynamicSlidingWindowLayer")
#: a linear-attention (recurrent) cache layer's per-state dicts, updated in place by a pass
_LINEAR_DICTS = (
    "conv_states",
    "recurrent_states",
    "is_conv_states_initialized",
    "is_recurrent_states_initialized",
    "has_previous_state",
)


def _select_linear(layer, index: torch.Tensor):
    """A copy of a linear-attention cache layer (Qwen3.5's Gated DeltaNet: a convolution
    state and a recurrent state per row) with its rows picked by ``index``. Its states are
    written in place (``copy_``) by the next pass, so the copy gets its own dicts, its own
    token count and newly selected tensors; ``layer`` is left as it was."""
    new = copy.copy(layer)
    for name in _LINEAR_DICTS:
        setattr(new, name, dict(getattr(layer, name)))
    new.cumulative_length_linear = layer.cumulative_length_linear.clone()
    for i in range(new.number_of_states):
        for states, ready in (
            (new.conv_states, new.is_conv_states_initialized),
            (new.recurrent_states, new.is_recurrent_states_initialized),
        ):
            if ready[i]:
                states[i] = states[i].index_select(0, index.to(states[i].device))
    return new


def _select_layer(layer, index: torch.Tensor):
    """A copy of one cache layer with its batch rows picked by ``index``, or ``None`` where
    the layer is of a kind this does not know (the whole cache is then deep-copied)."""
    linear = hasattr(layer, "conv_states")
    reassigns = any(c.__name__ in _SELECT_REASSIGNS for c in type(layer).__mro__)
    if linear and not all(hasattr(layer, n) for n in _LINEAR_DICTS):
        return None
    if not linear and type(layer).__name__ not in _SELECT_REASSIGNS:
        return None
    new = _select_linear(layer, index) if linear else copy.copy(layer)
    if reassigns:  # a hybrid layer's key/value part too
        new.batch_select_indices(index)
    return new


def _select_cache(cache, index: torch.Tensor):
    """A copy of the prefix cache with its batch rows picked by ``index`` (one per option),
    leaving ``cache`` as it was. Layers of known kinds (key/value layers that select by
    assigning new tensors, linear-attention layers) are copied shallowly and selected (the
    prefix cache is not duplicated); a cache with any other layer is deep-copied first."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        picked = [_select_layer(x, index) for x in layers]
        if all(x is not None for x in picked):
            cache = copy.copy(cache)
            cache.layers = picked
            return cache
    if hasattr(cache, "batch_select_indices"):
        cache = copy.deepcopy(cache)
        cache.batch_select_indices(index)
        return cache
    return tuple(tuple(t.index_select(0, index) for t in layer) for layer in cache)


@torch.inference_mode()
def clm_score(
    model,
    groups: Sequence[Sequence[Encoded]] | TokenBatch,
    device: torch.device | str = "cpu",
    token_budget: int | None = None,
    progress: Callable[[int], None] | None = None,
    pad: bool | None = None,
    slice_logits: int | None = None,
) -> Scores:
    """Per-token log-probabilities for every statement of every group.

    ``groups[g][o]`` is the encoded statement of option ``o`` of query ``g`` (see
    :func:`calib.scoring.encoding.encode_clm`), or all of them as a
    :class:`~calib.scoring.tokens.TokenBatch`; the result (:class:`~calib.scoring.logprobs.Scores`)
    has the same nesting, ``result[g][o]`` the float32 array of log p(token) for every token of
    the statement after the first. ``progress(n)`` is called with the number of statements
    finished after each pass. A signal recorded by :func:`calib.interrupt.stop_on_signals`
    stops it before the next pass or within a layer of the current one
    (:class:`calib.interrupt.Interrupted`).

    ``token_budget``: tokens per forward pass (default
    :func:`calib.scoring.batching.model_token_budget`). ``pad``: whether a pass may mix
    lengths (default: on GPUs, not on CPUs); see :mod:`calib.scoring.batching`.
    ``slice_logits``: logits taken at once (default
    :func:`calib.scoring.heads.slice_positions`'s). None of them changes the scores beyond
    float rounding. A pass that runs out of device memory is run again at half the budget
    (:func:`calib.scoring.backoff.halving_on_oom`).
    """
    device = torch.device(device)
    batch = TokenBatch.from_groups(groups)
    budget = token_budget or model_token_budget(model, device)
    pad = device.type != "cpu" if pad is None else pad
    split = output_split(model)
    per_slice = slice_positions(split.vocab, device.type, slice_logits)

    def attempt(budget: int, progress: Callable[[int], None]) -> np.ndarray:
        plan = model_plan(model, batch, budget, pad)
        with checked_between_layers(model):  # Ctrl-C stops a pass within one layer
            return _run_plan(split, plan, batch, device, per_slice, progress)

    values = halving_on_oom(model, budget, attempt, progress)
    return Scores(values, offsets_of(batch.lengths - 1), batch.groups)


def _run_plan(
    split: OutputSplit,
    plan: ClmPlan,
    batch: TokenBatch,
    device: torch.device,
    per_slice: int,
    progress: Callable[[int], None] | None,
) -> np.ndarray:
    """Execute ``plan``'s passes; the log-probabilities of every statement's tokens after the
    first, flat (statement ``s`` from ``sum(lengths[:s] - 1)``)."""
    ids, starts = batch.ids, batch.starts[:-1]
    cont = plan.continuation_len
    slot0 = offsets_of(batch.lengths - 1)  # where each statement's values begin
    request_of = np.full(int(slot0[-1]), -1, dtype=np.int64)  # the request behind each value
    slot0 = slot0[:-1]
    row_of = np.zeros(len(plan.prefix_len), dtype=np.int64)  # a prefix's row in its pass
    parts: list[torch.Tensor] = []  # the log-probabilities of each pass, on the device
    asked = 0  # requests (position, token) so far
    pace = RunAhead(device)
    kw = split.cache_kw
    for pp in plan.passes:
        k_n, width = len(pp.prefixes), pp.width
        plen = plan.prefix_len[pp.prefixes]
        row_of[pp.prefixes] = np.arange(k_n)
        col = np.arange(width)
        real = col[None, :] < plen[:, None]
        rows, cols = np.nonzero(real)
        prefix = np.zeros((k_n, width), dtype=np.int64)  # right-padded with id 0
        prefix[rows, cols] = ids[starts[plan.prefix_source[pp.prefixes]][rows] + cols]
        # requests: every prefix token after the first, then each statement's first token
        # after its prefix, asked at the prefix's last position
        sk, st = np.nonzero(col[None, :] < (plen - 1)[:, None])
        stmts = pp.statements
        k_s = row_of[plan.prefix_of[stmts]]
        pos = np.concatenate([sk * width + st, k_s * width + plen[k_s] - 1])
        tgt = np.concatenate([prefix[sk, st + 1], ids[starts[stmts] + plen[k_s]]])
        order = np.argsort(pos, kind="stable")
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order)) + asked
        shared, first = rank[: len(sk)], rank[len(sk) :]
        n_shared = plen[k_s] - 1
        request_of[segment_index(slot0[stmts], n_shared)] = shared[
            segment_index(offsets_of(plen - 1)[:-1][k_s], n_shared)
        ]
        request_of[slot0[stmts] + n_shared] = first
        pos, tgt = pos[order], tgt[order]
        check_interrupted()  # Ctrl-C stops here, before the next pass (calib.interrupt)
        res = split.backbone(input_ids=to_device(prefix, device), use_cache=True)
        hidden = split.hidden(res)  # causal: the right padding changes no real position
        parts.append(
            logprobs_at(
                split, hidden, pos, to_device(tgt, device), to_device(pos, device), per_slice
            )
        )
        asked += len(pos)
        prefix_cache = _cache_of(res)
        del res, hidden  # only the key/value cache outlives the prefix pass
        pace.queued()
        done = int((cont[stmts] == 0).sum())
        if progress is not None and done:
            progress(done)
        for cp in pp.continuations:
            sel, w = cp.rows, cp.width
            k_r = row_of[plan.prefix_of[sel]]
            p_r = plen[k_r]
            c_r = cont[sel]
            tcol = np.arange(w)
            real_c = tcol[None, :] < c_r[:, None]
            r_i, t_i = np.nonzero(real_c)
            at = starts[sel][r_i] + p_r[r_i] + t_i  # the input token of each real position
            seqs = np.zeros((len(sel), w), dtype=np.int64)  # right-padded with id 0
            seqs[r_i, t_i] = ids[at]
            c_pos = r_i * w + t_i
            request_of[slot0[sel][r_i] + p_r[r_i] + t_i] = asked + np.arange(len(c_pos))
            padded = bool((p_r < width).any() or (c_r < w).any())
            extra = {}
            if padded:
                mask = np.zeros((len(sel), width + w), dtype=np.int64)
                mask[:, :width] = col[None, :] < p_r[:, None]
                mask[:, width:] = real_c
                extra["attention_mask"] = to_device(mask, device)
            cache = _select_cache(prefix_cache, to_device(k_r, device))
            check_interrupted()
            res2 = split.backbone(
                input_ids=to_device(seqs, device),
                use_cache=True,
                position_ids=to_device(p_r[:, None] + tcol[None, :], device),
                **{kw: cache},
                **extra,
            )
            parts.append(
                logprobs_at(
                    split,
                    split.hidden(res2),
                    c_pos,
                    to_device(ids[at + 1], device),
                    to_device(c_pos, device),
                    per_slice,
                )
            )
            asked += len(c_pos)
            del res2, cache
            pace.queued()
            if progress is not None:
                progress(len(sel))
        del prefix_cache
    if (request_of < 0).any():  # the plan covers every statement
        s = int(np.searchsorted(slot0, int(np.argmax(request_of < 0)), side="right") - 1)
        raise RuntimeError(f"statement {s} of {len(slot0)} was left unscored by the plan")
    return to_host(parts)[request_of]
