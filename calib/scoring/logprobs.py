"""The one definition of a token's log-probability from a model's logits."""

from __future__ import annotations

import torch

#: logits upcast to float32 at a time (a bfloat16 pass's logits are not copied whole)
FLOAT32_CHUNK = 1 << 26


def token_logprobs(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """``log_softmax(logits)[ids]`` along the last axis, in float32 whatever the model's dtype,
    without materialising the log-softmax (``logits[..., id] - logsumexp(logits)``); the
    float32 copy is made in slices of the leading axis of at most :data:`FLOAT32_CHUNK`
    floats."""
    picked = logits.gather(-1, ids[..., None])[..., 0].float()
    if logits.dim() < 2 or logits.numel() <= FLOAT32_CHUNK:
        return picked - torch.logsumexp(logits.float(), dim=-1)
    rows = max(1, FLOAT32_CHUNK // max(logits[0].numel(), 1))
    lse = torch.cat(
        [
            torch.logsumexp(logits[i : i + rows].float(), dim=-1)
            for i in range(0, logits.shape[0], rows)
        ]
    )
    return picked - lse
