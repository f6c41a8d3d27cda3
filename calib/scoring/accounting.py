"""Hardware-independent accounting of a causal scorer's forward passes.

What a plan of :func:`calib.scoring.batching.plan_clm` (the plan :func:`calib.scoring.clm.clm_score`
executes) forwards, against the minimum: every distinct prefix once and every continuation once
(paper §2.3 scores every token after the start token; the last token of a statement is never an
input). The ratio to the minimum, the padding share and the statements per forward pass predict
an accelerator's throughput before one is lent: a pass costs a launch, a token costs compute.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from calib.scoring.batching import ClmPlan, plan_clm, shared_prefixes


@dataclass(frozen=True)
class Accounting:
    """Token counts of one plan. ``tokens``: all tokens of all statements (start token
    included); ``minimum``: distinct prefixes once plus continuations once; ``forwarded``:
    what the passes forward, padding included; ``padding``: its padded positions."""

    budget: int
    pad: bool
    statements: int
    tokens: int
    minimum: int
    forwarded: int
    padding: int
    passes: int

    @property
    def ratio(self) -> float:
        """Forwarded tokens over the minimum (1.0: nothing computed twice, nothing padded)."""
        return self.forwarded / max(self.minimum, 1)

    @property
    def padding_share(self) -> float:
        return self.padding / max(self.forwarded, 1)

    @property
    def statements_per_pass(self) -> float:
        return self.statements / max(self.passes, 1)

    def as_dict(self) -> dict:
        return {
            **asdict(self),
            "ratio": self.ratio,
            "padding_share": self.padding_share,
            "statements_per_pass": self.statements_per_pass,
            "minimum_per_statement": self.minimum / max(self.statements, 1),
            "forwarded_per_statement": self.forwarded / max(self.statements, 1),
        }

    def __add__(self, other: Accounting) -> Accounting:
        """Two plans' counts together (scorer calls on consecutive chunks)."""
        return Accounting(
            self.budget,
            self.pad,
            *(
                getattr(self, f) + getattr(other, f)
                for f in ("statements", "tokens", "minimum", "forwarded", "padding", "passes")
            ),
        )


def account(plan: ClmPlan) -> Accounting:
    """The counts of ``plan``."""
    cont = plan.continuation_len
    minimum = int(plan.prefix_len.sum() + cont.sum())
    forwarded = sum(
        len(pp.prefixes) * pp.width + sum(len(cp.rows) * cp.width for cp in pp.continuations)
        for pp in plan.passes
    )
    passes = sum(1 + len(pp.continuations) for pp in plan.passes)
    return Accounting(
        plan.budget,
        plan.pad,
        len(plan.lengths),
        int(plan.lengths.sum()),
        minimum,
        int(forwarded),
        int(forwarded) - minimum,
        passes,
    )


def minimum_tokens(groups: Sequence[Sequence[np.ndarray]]) -> int:
    """Tokens to forward at least for ``groups`` scored at once: every distinct prefix once and
    every continuation once (the ``minimum`` of one plan over all of them)."""
    lengths, prefix_of, plen, _ = shared_prefixes(groups)
    return int(plen.sum() + (lengths - 1 - plen[prefix_of]).sum())


def clm_accounting(
    groups: Sequence[Sequence[np.ndarray]],
    budget: int,
    pad: bool,
    chunk_statements: int | None = None,
) -> Accounting:
    """The counts for scoring ``groups`` (token ids per option per query, start token first)
    within ``budget`` tokens per pass, one plan per chunk of about ``chunk_statements``
    statements (consecutive queries, as :func:`calib.scoring.run.score_queries` hands them to
    the scorer; ``None``: one plan)."""
    chunks: list[list[Sequence[np.ndarray]]] = []
    cur: list[Sequence[np.ndarray]] = []
    size = 0
    for g in groups:
        if chunk_statements is not None and cur and size >= chunk_statements:
            chunks.append(cur)
            cur, size = [], 0
        cur.append(g)
        size += len(g)
    if cur:
        chunks.append(cur)
    total = None
    for chunk in chunks:
        acc = account(plan_clm(chunk, budget, pad))
        total = acc if total is None else total + acc
    return total if total is not None else Accounting(budget, pad, 0, 0, 0, 0, 0, 0)
