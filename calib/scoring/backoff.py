"""Out-of-memory back-off: a scorer call whose pass runs out of device memory is run again at
half the token budget, until it fits.

The token budget is planned from the device's memory (:func:`calib.scoring.memory.plan_budget`),
which a plan can misjudge (another process on the GPU, an attention kernel's workspace). One
out-of-memory error then no longer ends the run: :func:`halving_on_oom` frees what the failed
attempt held, halves the budget and runs the call again (the scores do not depend on the
budget beyond float rounding), and remembers the smaller budget for the model, so that the
chunks after it start there (:func:`capped`). Progress already reported is not reported twice.
"""

from __future__ import annotations

import gc
import logging
import weakref
from collections.abc import Callable

import numpy as np
import torch

log = logging.getLogger(__name__)

#: model -> the budget it was held to after an out-of-memory error
_CAPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def capped(model, budget: int) -> int:
    """``budget``, at most what an earlier out-of-memory error of ``model`` left it."""
    return min(budget, _CAPS.get(model, budget))


class _Progress:
    """Forwards to ``progress`` only statements beyond those an earlier attempt reported."""

    def __init__(self, progress: Callable[[int], None] | None):
        self.progress = progress
        self.reported = self.seen = 0

    def restart(self) -> None:
        self.seen = 0

    def __call__(self, n: int) -> None:
        self.seen += n
        if self.progress is not None and self.seen > self.reported:
            self.progress(self.seen - self.reported)
            self.reported = self.seen


def _free_device_memory() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.empty_cache()


def halving_on_oom(
    model,
    budget: int,
    run: Callable[[int, Callable[[int], None]], np.ndarray],
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """``run(budget, progress)``, run again at half the budget after each out-of-memory error
    (``torch.OutOfMemoryError``) until it succeeds; below one token the error is raised.
    The last budget is kept for ``model`` (:func:`capped`)."""
    budget = capped(model, budget)
    counted = _Progress(progress)
    while True:
        failed = None
        try:
            return run(budget, counted)
        except torch.OutOfMemoryError as exc:
            if budget <= 1:
                raise
            failed = str(exc).splitlines()[0] if str(exc) else "out of memory"
        # out of the except block: the failed attempt's frames (and tensors) are released
        _free_device_memory()
        budget //= 2
        _CAPS[model] = budget
        counted.restart()
        log.warning("a pass ran out of memory (%s); scoring again at %d tokens", failed, budget)
