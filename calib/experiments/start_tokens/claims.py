"""The claims of the start-tokens chapter: none (the paper makes no claim about start tokens)."""

from __future__ import annotations

from calib.experiments.claims import Claim

#: the paper makes no claim about start tokens (this is a methods chapter)
CLAIMS: tuple[Claim, ...] = ()
