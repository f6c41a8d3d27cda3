"""Fast causal-LM scoring: full-sentence log-likelihood, shared prefixes computed once, forward
passes filled to a token budget.

Paper §2.3: a statement's score is built from log p(w_t | w_<t) for every token after a start
token. The options of one query share every token before the answer; that prefix is run once
(once for all queries that share it), its key/value cache is copied to each option, and only
the rest of each option is run. :func:`calib.scoring.batching.plan_clm` packs the prefixes of
all queries handed over (any relations and templates), sorted by length, into passes of at most
``token_budget`` tokens (padding included), and then the continuations of each prefix pass into
passes of the same budget; this module executes that plan. Log-probabilities are taken in
float32 whatever the model's dtype (:func:`calib.scoring.logprobs.token_logprobs`).

Agreement with :func:`calib.scoring.reference.clm_reference` (one statement, one full forward)
is tested to 1e-4 per statement in float32, for tiny and huge budgets.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Sequence

import numpy as np
import torch

from calib.interrupt import check_interrupted, checked_between_layers
from calib.scoring.batching import model_token_budget, plan_clm, sliding_window
from calib.scoring.encoding import Encoded
from calib.scoring.logprobs import token_logprobs


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


@torch.inference_mode()
def clm_score(
    model,
    groups: Sequence[Sequence[Encoded]],
    device: torch.device | str = "cpu",
    token_budget: int | None = None,
    progress: Callable[[int], None] | None = None,
    pad: bool | None = None,
) -> list[list[np.ndarray]]:
    """Per-token log-probabilities for every statement of every group.

    ``groups[g][o]`` is the encoded statement of option ``o`` of query ``g`` (see
    :func:`calib.scoring.encoding.encode_clm`); the result has the same nesting, each entry an
    array of log p(token) for the statement's targets. ``progress(n)`` is called with the number
    of statements finished after each pass. A signal recorded by
    :func:`calib.interrupt.stop_on_signals` stops it before the next pass or within a layer
    of the current one (:class:`calib.interrupt.Interrupted`).

    ``token_budget``: tokens per forward pass (default
    :func:`calib.scoring.batching.model_token_budget`). ``pad``: whether a pass may mix
    lengths (default: on GPUs, not on CPUs); see :mod:`calib.scoring.batching`. Neither
    changes the scores beyond float rounding.
    """
    device = torch.device(device)
    budget = token_budget or model_token_budget(model, device)
    pad = device.type != "cpu" if pad is None else pad
    flat = [e.ids for g in groups for e in g]
    plan = plan_clm(
        [[e.ids for e in g] for g in groups],
        budget,
        pad,
        pad_prefixes=pad and not sliding_window(model),
    )
    cache_kw = _cache_kwarg(model)
    out: list[np.ndarray | None] = [None] * len(flat)
    with checked_between_layers(model):  # Ctrl-C stops a pass within one layer
        _run_plan(model, plan, flat, out, device, cache_kw, progress)
    scored: list[np.ndarray] = []
    for i, values in enumerate(out):
        if values is None:  # the plan covers every statement
            raise RuntimeError(f"statement {i} of {len(out)} was left unscored by the plan")
        scored.append(values)
    nested, pos = [], 0
    for g in groups:
        nested.append(scored[pos : pos + len(g)])
        pos += len(g)
    return nested


def _run_plan(model, plan, flat, out, device, cache_kw, progress) -> None:
    """Execute ``plan``'s passes, filling ``out[s]`` with statement ``s``'s log-probabilities
    (see :func:`clm_score`)."""
    cont_len = plan.continuation_len
    for pp in plan.passes:
        width = pp.width
        plen = plan.prefix_len[pp.prefixes]
        prefix = np.zeros((len(pp.prefixes), width), dtype=np.int64)  # right-padded with id 0
        for k, (src, p) in enumerate(zip(plan.prefix_source[pp.prefixes], plen)):
            prefix[k, :p] = flat[src][:p]
        local = {int(p): k for k, p in enumerate(pp.prefixes)}
        check_interrupted()  # Ctrl-C stops here, before the next pass (calib.interrupt)
        res = model(input_ids=torch.as_tensor(prefix, device=device), use_cache=True)
        logits = res.logits  # (K, W, V); causal: the right padding changes no real position
        shared = (
            token_logprobs(logits[:, :-1], torch.as_tensor(prefix[:, 1:], device=device))
            .cpu()
            .numpy()
        )
        # the first token after the prefix, for each statement
        rows_q = np.asarray([local[int(plan.prefix_of[s])] for s in pp.statements])
        last = torch.as_tensor(plen - 1, device=device)
        k_idx = torch.arange(len(plen), device=device)
        lse = torch.logsumexp(logits[k_idx, last].float(), dim=-1)  # (K,)
        rq = torch.as_tensor(rows_q, device=device)
        gold = torch.as_tensor(
            [int(flat[s][plan.prefix_len[plan.prefix_of[s]]]) for s in pp.statements], device=device
        )
        first = (logits[rq, last[rq], gold].float() - lse[rq]).cpu().numpy()
        del logits
        prefix_cache = _cache_of(res)
        first_of = dict(zip(pp.statements.tolist(), first))
        row_of = dict(zip(pp.statements.tolist(), rows_q.tolist()))

        def finish(
            s: int,
            rest: np.ndarray | None,
            row_of=row_of,
            shared=shared,
            plen=plen,
            first_of=first_of,
        ) -> None:
            q = row_of[s]
            parts = [shared[q, : plen[q] - 1], np.asarray([first_of[s]])]
            if rest is not None:
                parts.append(rest)
            out[s] = np.concatenate(parts).astype(np.float64)

        done = [s for s in pp.statements.tolist() if cont_len[s] == 0]
        for s in done:
            finish(s, None)
        if progress is not None and done:
            progress(len(done))
        for cp in pp.continuations:
            rows, w = cp.rows, cp.width
            q = np.asarray([row_of[int(s)] for s in rows])
            p_row = plen[q]
            seqs = np.zeros((len(rows), w + 1), dtype=np.int64)  # right-padded with id 0
            mask = np.zeros((len(rows), width + w), dtype=np.int64)
            for k, s in enumerate(rows):
                tail = flat[s][p_row[k] :]
                seqs[k, : len(tail)] = tail
                mask[k, : p_row[k]] = 1
                mask[k, width : width + len(tail) - 1] = 1
            padded = bool((p_row < width).any() or (cont_len[rows] < w).any())
            cache = _select_cache(prefix_cache, torch.as_tensor(q, device=device))
            positions = torch.as_tensor(p_row[:, None] + np.arange(w)[None], device=device)
            check_interrupted()
            res2 = model(
                input_ids=torch.as_tensor(seqs[:, :-1], device=device),
                use_cache=True,
                **{cache_kw: cache},
                **({"attention_mask": torch.as_tensor(mask, device=device)} if padded else {}),
                position_ids=positions,
            )
            got = token_logprobs(res2.logits, torch.as_tensor(seqs[:, 1:], device=device))
            del res2, cache
            for s, values in zip(rows.tolist(), got.cpu().numpy()):
                finish(s, values[: cont_len[s]])
            if progress is not None:
                progress(len(rows))
        del prefix_cache, res
