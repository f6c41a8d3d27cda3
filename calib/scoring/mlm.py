"""Fast masked-LM scoring: within-word left-to-right pseudo-log-likelihood, batched.

Paper §2.3 follows Kauf & Ivanova (2023): a token is scored by masking it and every later token
of the same word, so that a multi-token word does not leak its own continuation. Each statement
yields one masked copy per scored token; copies of all statements are pooled, sorted by length
and packed into forward passes of at most ``token_budget`` tokens, padding included
(:func:`calib.scoring.batching.plan_mlm`; equal lengths only per pass on CPUs). Log-probabilities
are taken in float32 whatever the model's dtype.

Agreement with :func:`calib.scoring.reference.mlm_reference` (one masked copy per forward pass)
is tested to 1e-4 per statement in float32.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import torch

from calib.interrupt import check_interrupted, checked_between_layers
from calib.scoring.batching import model_token_budget, plan_mlm
from calib.scoring.encoding import Encoded, mlm_masked_positions
from calib.scoring.logprobs import token_logprobs


@torch.inference_mode()
def mlm_score(
    model,
    groups: Sequence[Sequence[Encoded]],
    mask_id: int,
    pad_id: int = 0,
    device: torch.device | str = "cpu",
    token_budget: int | None = None,
    progress: Callable[[int], None] | None = None,
    pad: bool | None = None,
) -> list[list[np.ndarray]]:
    """Within-word l2r PLL terms for every statement of every group (same nesting as
    :func:`calib.scoring.clm.clm_score`). ``progress(n)`` gets the number of statements done.
    ``token_budget`` and ``pad`` as for :func:`calib.scoring.clm.clm_score`; stops after a
    signal as it does (before the next pass, or within a layer)."""
    device = torch.device(device)
    budget = token_budget or model_token_budget(model, device)
    pad_lengths = device.type != "cpu" if pad is None else pad
    # one masked copy per (group, option, target index)
    copies = [
        (g, o, k)
        for g, encs in enumerate(groups)
        for o, e in enumerate(encs)
        for k in range(len(e.targets))
    ]
    widths = np.asarray([len(groups[g][o].ids) for g, o, _ in copies], dtype=np.int64)
    out = [[np.zeros(len(e.targets)) for e in encs] for encs in groups]
    remaining = [[len(e.targets) for e in encs] for encs in groups]
    with checked_between_layers(model):  # Ctrl-C stops a pass within one layer
        for idx in plan_mlm(widths, budget, pad_lengths):
            batch = [copies[i] for i in idx]
            width = max(len(groups[g][o].ids) for g, o, _ in batch)
            ids = np.full((len(batch), width), pad_id, dtype=np.int64)
            attn = np.zeros((len(batch), width), dtype=np.int64)
            pos = np.zeros(len(batch), dtype=np.int64)
            gold = np.zeros(len(batch), dtype=np.int64)
            for r, (g, o, k) in enumerate(batch):
                enc = groups[g][o]
                t = int(enc.targets[k])
                ids[r, : len(enc.ids)] = enc.ids
                attn[r, : len(enc.ids)] = 1
                ids[r, mlm_masked_positions(enc, t)] = mask_id
                pos[r], gold[r] = t, enc.ids[t]
            check_interrupted()  # Ctrl-C stops here, before the next pass (calib.interrupt)
            logits = model(
                input_ids=torch.as_tensor(ids, device=device),
                attention_mask=torch.as_tensor(attn, device=device),
            ).logits
            rows = torch.arange(len(batch), device=device)
            at = logits[rows, torch.as_tensor(pos, device=device)]  # (B, V)
            values = token_logprobs(at, torch.as_tensor(gold, device=device)).cpu().numpy()
            done = 0
            for (g, o, k), v in zip(batch, values):
                out[g][o][k] = v
                remaining[g][o] -= 1
                done += remaining[g][o] == 0
            if progress is not None and done:
                progress(int(done))
    return out
