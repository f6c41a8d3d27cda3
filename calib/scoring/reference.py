"""The naive scorers that define correctness: one statement at a time, full forward passes.

They are slow on purpose and have no sharing, caching or batching; the fast scorers in
:mod:`calib.scoring.clm` and :mod:`calib.scoring.mlm` must agree with them (tests) and beat them
(``benchmarks/``).
"""

from __future__ import annotations

import numpy as np
import torch

from calib.scoring.encoding import Encoded, mlm_masked_positions


@torch.inference_mode()
def clm_reference(model, enc: Encoded, device="cpu") -> np.ndarray:
    """log p(w_t | w_<t) for every target token of one statement (paper §2.3): one forward
    pass over the whole statement, start token included."""
    ids = torch.as_tensor(enc.ids, device=device)[None]
    logprobs = torch.log_softmax(model(input_ids=ids).logits[0].float(), dim=-1)
    t = torch.as_tensor(enc.targets, device=device)
    return logprobs[t - 1, ids[0, t]].cpu().numpy().astype(np.float64)


@torch.inference_mode()
def mlm_reference(model, enc: Encoded, mask_id: int, device="cpu") -> np.ndarray:
    """Within-word left-to-right pseudo-log-likelihood terms of one statement (Kauf & Ivanova
    2023): for each target token, a forward pass with it and the later tokens of its word
    masked, one masked copy at a time."""
    out = []
    for t in enc.targets:
        ids = torch.as_tensor(enc.ids, device=device).clone()
        ids[torch.as_tensor(mlm_masked_positions(enc, int(t)), device=device)] = mask_id
        logits = model(input_ids=ids[None]).logits[0, int(t)].float()
        out.append(torch.log_softmax(logits, dim=-1)[int(enc.ids[t])].item())
    return np.asarray(out, dtype=np.float64)
