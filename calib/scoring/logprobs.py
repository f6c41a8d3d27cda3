"""The one definition of a token's log-probability from a model's logits."""

from __future__ import annotations

import torch


def token_logprobs(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """``log_softmax(logits)[ids]`` along the last axis, in float32, without materialising the
    log-softmax (``logits[..., id] - logsumexp(logits)``)."""
    picked = logits.gather(-1, ids[..., None])[..., 0].float()
    return picked - torch.logsumexp(logits.float(), dim=-1)
