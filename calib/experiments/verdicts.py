"""The verdicts a chapter or the ledger gives a paper's claim, and the rule for a claim about
every model (or pair, or cell): one home for both."""

from __future__ import annotations

#: the verdicts, in the order a reader scans them
VERDICTS: tuple[str, ...] = ("holds", "does not hold", "undecided", "not testable")
HOLDS, FAILS, UNDECIDED, UNTESTABLE = VERDICTS


def universal_verdict(agree: int, against: int, n: int) -> str:
    """The verdict on a claim about every one of ``n`` units (models, pairs, ...), from the
    number whose 95% interval agrees with it and the number whose interval goes against it:
    ``holds`` when all agree, ``does not hold`` as soon as one goes against it, ``undecided``
    otherwise, ``not testable`` when there is no unit."""
    if n == 0:
        return UNTESTABLE
    if against:
        return FAILS
    return HOLDS if agree == n else UNDECIDED


def as_bool(verdict: str) -> bool | None:
    """``True`` for ``holds``, ``False`` for ``does not hold``, ``None`` otherwise."""
    return {HOLDS: True, FAILS: False}.get(verdict)
