"""Moving data between the host and the device so that neither waits for the other.

On a GPU, work is queued and runs while the host goes on; the host waits only when it reads a
result. The scorers therefore read results once per chunk (:func:`to_host`: all of a chunk's
log-probabilities, concatenated on the device, in one copy), copy inputs without waiting for
the device (:func:`to_device`: a non-blocking copy from pinned memory, which does not wait for
the queued passes as a blocking one does), and let the host prepare the next pass while the
device runs the current one, but at most :data:`RUN_AHEAD` passes ahead (:class:`RunAhead`,
with CUDA events), so that the queue, and the time a Ctrl-C waits for it, stay short. On a
CPU every operation runs when it is called: the copies are views, and there is nothing to pace.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

import numpy as np
import torch

#: passes the host may queue on the device beyond the one running
RUN_AHEAD = 2


def to_device(array: np.ndarray, device: torch.device) -> torch.Tensor:
    """``array`` as a tensor on ``device``; to a GPU through pinned host memory and without
    waiting for the work queued there (``array`` itself may change afterwards: the pinned copy
    is kept until the transfer is done)."""
    tensor = torch.from_numpy(np.ascontiguousarray(array))
    if device.type == "cpu":
        return tensor
    return tensor.pin_memory().to(device, non_blocking=True)


def to_host(parts: Sequence[torch.Tensor]) -> np.ndarray:
    """The float32 values of ``parts`` (device tensors, one per pass), concatenated on the
    device and copied to the host at once: the one device-to-host copy, and the one wait, of a
    scorer call."""
    if not parts:
        return np.zeros(0, dtype=np.float32)
    values = parts[0] if len(parts) == 1 else torch.cat(list(parts))
    return values.float().cpu().numpy()


class RunAhead:
    """Keeps the host at most ``depth`` passes ahead of the device: after each pass is queued
    (:meth:`queued`), an event is recorded behind it; with more than ``depth`` events
    outstanding, the host waits for the oldest. ``event``: the event type (default
    ``torch.cuda.Event`` on a GPU; on a CPU, none: passes run when called)."""

    def __init__(
        self,
        device: torch.device,
        depth: int = RUN_AHEAD,
        event: Callable[[], object] | None = None,
    ):
        self.depth = depth
        self.event = (
            event if event is not None else (torch.cuda.Event if device.type == "cuda" else None)
        )
        self.pending: deque = deque()
        self.waits = 0

    def queued(self) -> None:
        """A pass has been queued: record its event; wait while too many are outstanding."""
        if self.event is None:
            return
        done = self.event()
        done.record()  # type: ignore[attr-defined]
        self.pending.append(done)
        while len(self.pending) > self.depth:
            self.pending.popleft().synchronize()
            self.waits += 1
