"""The one definition of a token's log-probability from a model's logits, and the flat form
in which the scorers return them (:class:`~calib.scoring.logprobs.Scores`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
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


def logprobs_at_rows(logits: torch.Tensor, rows: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """``log_softmax(logits)[rows, ids]`` for ``(n, V)`` logits, in float32 whatever their
    dtype: the log-probability of token ``ids[i]`` at row ``rows[i]`` (a row may be asked for
    several tokens); as :func:`token_logprobs`, without materialising the log-softmax."""
    lse = torch.logsumexp(logits.float(), dim=-1)
    return logits[rows, ids].float() - lse[rows]


@dataclass(frozen=True)
class Scores:
    """The per-token log-probabilities a scorer returns, flat: statement ``s``'s are
    ``values[starts[s]:starts[s + 1]]`` (float32), query ``g``'s statements are
    ``groups[g]:groups[g + 1]``. ``scores[g][o]`` is the array of option ``o`` of query ``g``
    (a view), as the scorers' nested results were."""

    values: np.ndarray
    starts: np.ndarray
    groups: np.ndarray

    def __len__(self) -> int:
        return len(self.groups) - 1

    def statement(self, s: int) -> np.ndarray:
        return self.values[self.starts[s] : self.starts[s + 1]]

    def __getitem__(self, g):
        if isinstance(g, slice):
            return [self[i] for i in range(*g.indices(len(self)))]
        if not -len(self) <= g < len(self):
            raise IndexError(g)
        g %= len(self)
        return [self.statement(s) for s in range(self.groups[g], self.groups[g + 1])]
