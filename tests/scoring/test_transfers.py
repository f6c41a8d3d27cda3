"""The scorers read results back from the device once per call (one chunk), never per pass, and
let the host run at most ``RUN_AHEAD`` passes ahead of the device.

On a CPU a read-back costs nothing, so it is counted: every tensor operation that would copy to
the host or wait for the device on a GPU (``.cpu()``, ``.item()``, ``.tolist()``, ``.numpy()``,
truth values, ``nonzero`` ...) is recorded while the scorer runs, outside the model's own
forward pass. The overlap of host and device needs a GPU; its pacing logic runs here with a
fake CUDA event that records when each pass was queued and when the host waited.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
import torch
from helpers import encode, queries
from torch.overrides import TorchFunctionMode

import calib.scoring.transfers as transfers
from calib.scoring.clm import clm_score
from calib.scoring.heads import output_split
from calib.scoring.mlm import mlm_score

#: operations that copy to the host or wait for the device on a GPU
_READS = {
    torch.Tensor.cpu,
    torch.Tensor.item,
    torch.Tensor.tolist,
    torch.Tensor.numpy,
    torch.Tensor.__bool__,
    torch.Tensor.__int__,
    torch.Tensor.__float__,
    torch.Tensor.__index__,
    torch.Tensor.nonzero,
    torch.nonzero,
    torch.Tensor.unique,
    torch.unique,
    torch.Tensor.any,
    torch.Tensor.all,
}


class CountReads(TorchFunctionMode):
    """Records the read-backs made outside the model's forward (see the module docstring);
    ``.numpy()`` of the result of a ``.cpu()`` is part of that copy."""

    def __init__(self, model):
        super().__init__()
        self.reads: list[str] = []
        self.depth = 0
        self.copied: set[int] = set()
        self.handles = []
        for module in (model.base_model, model):
            self.handles.append(module.register_forward_pre_hook(self._enter))
            self.handles.append(module.register_forward_hook(self._leave))

    def _enter(self, *args):
        self.depth += 1

    def _leave(self, *args):
        self.depth -= 1

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if self.depth == 0 and func in _READS:
            if func is torch.Tensor.numpy and id(args[0]) in self.copied:
                pass
            else:
                self.reads.append(getattr(func, "__name__", str(func)))
            if func is torch.Tensor.cpu:
                self.copied.add(id(out))
        return out

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()
        return super().__exit__(*exc)


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-llama", "tiny-bert"])
@pytest.mark.parametrize("budget", [64, 4096])
def test_one_read_back_per_scorer_call(name, budget, tiny_models, small_bear):
    lm = tiny_models[name]
    # every op runs through CountReads' Python hook: at the small budget (hundreds of passes)
    # a quarter of the sample's queries already gives many passes
    qs = queries(small_bear)
    groups = encode(lm, qs[::4] if budget < 1024 else qs)
    output_split(lm.model)  # its one check of the model's logits reads them: done before
    passes = []
    hook = lm.model.base_model.register_forward_hook(lambda *a: passes.append(1))
    try:
        with CountReads(lm.model) as mode:
            if lm.objective == "clm":
                out = clm_score(lm.model, groups, token_budget=budget)
            else:
                tok = lm.tokenizer
                out = mlm_score(
                    lm.model, groups, tok.mask_token_id, tok.pad_token_id, token_budget=budget
                )
    finally:
        hook.remove()
    assert len(passes) > 3  # many passes ...
    assert mode.reads == ["cpu"]  # ... one copy back
    assert len(out) == len(groups) and np.isfinite(out.values).all()


def test_one_read_back_per_chunk_through_score_queries(tiny_models, small_bear, tmp_path):
    from calib.scoring.run import score_queries

    lm = tiny_models["tiny-llama"]
    qs = queries(small_bear)
    output_split(lm.model)
    with CountReads(lm.model) as mode:
        table = score_queries(lm, qs, cache_dir=tmp_path, chunk_statements=300, progress=False)
    chunks = len(list((tmp_path / "scores").rglob("chunk-*.parquet")))
    assert chunks > 1
    assert mode.reads == ["cpu"] * chunks
    assert len(table) == sum(len(q.statements) for q in qs)


class FakeEvent:
    """A CUDA event's interface: ``record`` marks the queue, ``synchronize`` waits for it."""

    log: ClassVar[list] = []

    def __init__(self):
        self.n = len([x for x in self.log if x[0] == "record"])

    def record(self):
        self.log.append(("record", self.n))

    def synchronize(self):
        self.log.append(("wait", self.n))


def test_the_host_runs_at_most_run_ahead_passes_ahead(tiny_models, small_bear, monkeypatch):
    """With (fake) CUDA events, the GPU path's pacing: an event behind every pass; before the
    host queues a pass more than ``RUN_AHEAD`` beyond the oldest unfinished one, it waits for
    that one; and it never waits otherwise."""
    made = []

    class Paced(transfers.RunAhead):
        def __init__(self, device, depth=transfers.RUN_AHEAD, event=None):
            super().__init__(device, depth, FakeEvent)
            made.append(self)

    FakeEvent.log = []
    monkeypatch.setattr("calib.scoring.clm.RunAhead", Paced)
    lm = tiny_models["tiny-llama"]
    groups = encode(lm, queries(small_bear))
    passes = []
    hook = lm.model.base_model.register_forward_hook(lambda *a: passes.append(len(FakeEvent.log)))
    try:
        clm_score(lm.model, groups, token_budget=64)
    finally:
        hook.remove()
    (pace,) = made
    records = [n for kind, n in FakeEvent.log if kind == "record"]
    waits = [n for kind, n in FakeEvent.log if kind == "wait"]
    assert records == list(range(len(passes)))
    assert waits == list(range(len(passes) - transfers.RUN_AHEAD))  # the oldest, in order
    assert pace.waits == len(waits) and len(pace.pending) == transfers.RUN_AHEAD
    # each wait comes right after the record that put RUN_AHEAD + 1 passes in the queue
    for i, (kind, n) in enumerate(FakeEvent.log):
        if kind == "wait":
            assert FakeEvent.log[i - 1] == ("record", n + transfers.RUN_AHEAD)


def test_to_device_and_to_host_on_a_cpu():
    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = transfers.to_device(a, torch.device("cpu"))
    assert t.dtype == torch.int64 and t.tolist() == a.tolist()
    parts = [torch.tensor([1.0, 2.0]), torch.tensor([3.0], dtype=torch.bfloat16)]
    np.testing.assert_array_equal(transfers.to_host([p.float() for p in parts]), [1, 2, 3])
    assert transfers.to_host([]).shape == (0,)
    assert transfers.RunAhead(torch.device("cpu")).event is None
