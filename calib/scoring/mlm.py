"""Fast masked-LM scoring: within-word left-to-right pseudo-log-likelihood, batched.

Paper §2.3 follows Kauf & Ivanova (2023): a token is scored by masking it and every later token
of the same word, so that a multi-token word does not leak its own continuation. Each statement
yields one masked copy per scored token; copies of all statements are pooled, sorted by length
and packed into forward passes of at most ``token_budget`` tokens, padding included
(:func:`calib.scoring.batching.plan_mlm`; equal lengths only per pass on CPUs). The masked
copies of a pass are built with array arithmetic from the flat
:class:`~calib.scoring.tokens.TokenBatch`; the output layer is applied only to each copy's
masked position (gathered first), a slice of positions at a time (:mod:`calib.scoring.heads`), with
log-probabilities in float32 whatever the model's dtype; the values of all passes come back to
the host in one copy (:mod:`calib.scoring.transfers`).

Agreement with :func:`calib.scoring.reference.mlm_reference` (one masked copy per forward pass)
is tested to 1e-4 per statement in float32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from calib.interrupt import check_interrupted, checked_between_layers
from calib.scoring.backoff import halving_on_oom
from calib.scoring.batching import model_token_budget, plan_mlm
from calib.scoring.encoding import Encoded
from calib.scoring.heads import logprobs_at, output_split, slice_positions
from calib.scoring.logprobs import Scores
from calib.scoring.tokens import TokenBatch
from calib.scoring.transfers import RunAhead, to_device, to_host


@torch.inference_mode()
def mlm_score(
    model,
    groups: Sequence[Sequence[Encoded]] | TokenBatch,
    mask_id: int,
    pad_id: int = 0,
    device: torch.device | str = "cpu",
    token_budget: int | None = None,
    progress: Callable[[int], None] | None = None,
    pad: bool | None = None,
    slice_logits: int | None = None,
) -> Scores:
    """Within-word l2r PLL terms for every statement of every group (same nesting as
    :func:`calib.scoring.clm.clm_score`: ``result[g][o]`` holds one float32 value per target of
    the statement). ``progress(n)`` gets the number of statements done. ``token_budget``,
    ``pad`` and ``slice_logits`` as for :func:`calib.scoring.clm.clm_score`; stops after a
    signal as it does (before the next pass, or within a layer)."""
    device = torch.device(device)
    batch = TokenBatch.from_groups(groups)
    if batch.words is None and batch.n_statements:
        raise ValueError("masked scoring needs the word index of every position (encode_mlm)")
    budget = token_budget or model_token_budget(model, device)
    pad_lengths = device.type != "cpu" if pad is None else pad
    split = output_split(model)
    per_slice = slice_positions(split.vocab, device.type, slice_logits)
    # one masked copy per target: its statement and its position there
    n_targets = np.diff(batch.target_starts)
    stmt = np.repeat(np.arange(batch.n_statements), n_targets)
    target = batch.targets.astype(np.int64)
    lengths = batch.lengths
    ids, words, starts = batch.ids, batch.words, batch.starts[:-1]

    def attempt(budget: int, progress: Callable[[int], None]) -> np.ndarray:
        left = n_targets.copy()  # targets of each statement not yet scored
        request_of = np.full(len(target), -1, dtype=np.int64)
        parts: list[torch.Tensor] = []
        asked = 0
        pace = RunAhead(device)
        with checked_between_layers(model):  # Ctrl-C stops a pass within one layer
            for idx in plan_mlm(lengths[stmt], budget, pad_lengths):
                s, t = stmt[idx], target[idx]
                width = int(lengths[s].max())
                col = np.arange(width)
                real = col[None, :] < lengths[s][:, None]
                r, c = np.nonzero(real)
                at = starts[s][r] + c
                inp = np.full((len(idx), width), pad_id, dtype=np.int64)
                inp[r, c] = ids[at]
                word = np.full((len(idx), width), -2, dtype=np.int64)
                word[r, c] = words[at]  # type: ignore[index]
                own = word[np.arange(len(idx)), t]
                # the target, and every later token of its word (a token without a word: alone)
                masked = (col[None, :] == t[:, None]) | (
                    (col[None, :] >= t[:, None]) & (word == own[:, None]) & (own[:, None] >= 0)
                )
                inp[masked] = mask_id
                rows = np.arange(len(idx))
                gold = ids[starts[s] + t]
                request_of[idx] = asked + np.arange(len(idx))
                # a mask only for a padded pass: a model checks a mask for padding on the
                # device, which waits for every queued pass (a sync per pass on a GPU)
                extra = (
                    {}
                    if real.all()
                    else {"attention_mask": to_device(real.astype(np.int64), device)}
                )
                check_interrupted()  # Ctrl-C stops here, before the next pass (calib.interrupt)
                res = split.backbone(input_ids=to_device(inp, device), **extra)
                rows_dev = to_device(rows, device)
                at_target = split.hidden(res)[rows_dev, to_device(t, device)]  # (n, hidden)
                parts.append(
                    logprobs_at(
                        split,
                        at_target[:, None],
                        rows,
                        to_device(gold, device),
                        rows_dev,
                        per_slice,
                    )
                )
                asked += len(idx)
                del res
                pace.queued()
                np.subtract.at(left, s, 1)
                done = int(np.count_nonzero(left[np.unique(s)] == 0))
                if done:
                    progress(done)
        return to_host(parts)[request_of]

    values = halving_on_oom(model, budget, attempt, progress) if len(target) else None
    if values is None:
        values = np.zeros(0, np.float32)
    return Scores(values, batch.target_starts, batch.groups)
