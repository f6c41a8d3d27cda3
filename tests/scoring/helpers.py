"""Shared pieces of the scoring tests: encoded query groups of the small BEAR sample."""

from __future__ import annotations

import numpy as np

from calib.scoring.encoding import encode_clm, encode_mlm
from calib.scoring.statements import Query, bear_queries, continuation_statement

TEMPLATES = ["paraphrase-0", "paraphrase-4", "certainly"]


def continuation_query() -> Query:
    """A FACTOR-like query: a long shared prefix and four completions."""
    prefix = "The committee met on Tuesday to discuss the budget for the coming year. "
    completions = [
        "It approved the plan.",
        "It rejected the plan.",
        "It postponed the decision until May.",
        "Nobody came.",
    ]
    return Query(
        "factor-test",
        "news",
        "0",
        "factor",
        tuple(completions),
        tuple(continuation_statement(prefix, c) for c in completions),
        0,
    )


def queries(small_bear):
    return [*bear_queries(small_bear, TEMPLATES), continuation_query()]


def encode(lm, qs):
    if lm.objective == "clm":
        return [encode_clm(lm.tokenizer, q.statements, lm.start_token_id) for q in qs]
    return [encode_mlm(lm.tokenizer, q.statements) for q in qs]


def sentence_totals(nested) -> np.ndarray:
    return np.asarray([s.sum() for group in nested for s in group])
