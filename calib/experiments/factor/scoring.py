"""FACTOR's items scored (Kissling et al. 2026, Appendix F): each item a query of four
continuations in a fixed random order, prefixes cut to each model's token budget as FACTOR's
evaluation cuts them, the seeded sample, the score tables through the score cache and their
cost, and Base and Margin per item.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence import base, margin, sentence_scores, template_predictions
from calib.data.factor import OFFLINE_SUBSETS, Factor, load_factor
from calib.experiments.scores import objectives
from calib.models.loading import context_length, load_tokenizer
from calib.scoring.run import score_queries
from calib.scoring.statements import Query, continuation_statement

#: the template name of a FACTOR query (one per item)
TEMPLATE = "continuation"
#: FACTOR's ``eval_factuality.py --max_tokens`` default: a statement keeps its last 1,024 tokens
FACTOR_MAX_TOKENS = 1024


def dataset_name(subset: str) -> str:
    """The score table's ``dataset`` of a subset: ``"factor-news"``."""
    return f"factor-{subset}"


def option_order(subset: str, item: str) -> np.ndarray:
    """The fixed order of the four completions of an item (a permutation of 0..3, where 0 is
    the true completion), seeded by the subset and the item only."""
    return np.random.default_rng([zlib.crc32(subset.encode()), int(item)]).permutation(4)


def _length(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def fit_prefix(
    prefix: str, completions: Sequence[str], tokenizer, budget: int | None, n_special: int = 1
) -> str:
    """The end of ``prefix`` that lets each ``prefix + completion`` fit ``budget`` tokens with
    ``n_special`` start/special tokens: the prefix's first tokens are dropped (FACTOR's
    ``truncation_side="left"``), cut at a token boundary of the prefix, as few as needed for the
    longest statement (``None``: no budget). ``ValueError`` when no prefix token can stay."""
    if budget is None:
        return prefix
    room = budget - n_special
    longest = max(_length(tokenizer, prefix + c) for c in completions)
    if longest <= room:
        return prefix
    starts = [
        a
        for a, _ in tokenizer(prefix, add_special_tokens=False, return_offsets_mapping=True)[
            "offset_mapping"
        ]
    ]
    drop = longest - room
    while drop < len(starts):
        kept = prefix[starts[drop] :]
        over = max(_length(tokenizer, kept + c) for c in completions) - room
        if over <= 0:
            return kept
        drop += over
    raise ValueError(
        f"no token of the prefix fits: the longest completion alone needs more than {room} tokens"
    )


def factor_queries(
    factor: Factor, tokenizer=None, budget: int | None = None, n_special: int = 1
) -> list[Query]:
    """One query per item: ``prefix + completion`` for each of the four completions (in
    :func:`option_order`), the prefix cut by :func:`fit_prefix` to ``budget`` tokens of
    ``tokenizer`` (no cut without a tokenizer or budget)."""
    out = []
    for subset, item, prefix, completions in zip(
        factor.items["subset"],
        factor.items["item"],
        factor.items["prefix"],
        factor.items["completions"],
    ):
        order = option_order(subset, item)
        answers = tuple(completions[i] for i in order)
        try:
            kept = (
                prefix
                if tokenizer is None
                else fit_prefix(prefix, answers, tokenizer, budget, n_special)
            )
        except ValueError as exc:
            raise ValueError(
                f"FACTOR {subset} item {item}: {exc} (budget {budget}); leave out "
                f"items with long completions (max_completion_words) or raise "
                f"max_tokens"
            ) from None
        out.append(
            Query(
                dataset_name(subset),
                subset,
                item,
                TEMPLATE,
                answers,
                tuple(continuation_statement(kept, a) for a in answers),
                int(np.flatnonzero(order == 0)[0]),
            )
        )
    return out


def factor_sample(
    subsets: Sequence[str] = OFFLINE_SUBSETS,
    per_subset: int | None = 30,
    seed: int = 0,
    max_completion_words: int | None = None,
    *,
    data_dir=None,
) -> Factor:
    """The seeded FACTOR sample a chapter scores: ``per_subset`` items of each subset, drawn
    after leaving out items with an empty/duplicate completion (counted in ``skipped``) and,
    when ``max_completion_words`` is set, items with a longer completion."""
    factor = load_factor(list(subsets), data_dir).shorter_than(max_completion_words)
    return factor.sample(per_subset, seed)


def model_queries(
    model: str, factor: Factor, max_tokens: int | None = FACTOR_MAX_TOKENS, *, cache_dir=None
) -> tuple[list[Query], int | None]:
    """The queries of ``factor`` for ``model``, prefixes fitted to its budget: the smaller of
    ``max_tokens`` and its context (:func:`calib.models.loading.context_length`), less one
    start token (causal) or its tokenizer's special tokens (masked). Returns the queries and
    the budget."""
    tokenizer = load_tokenizer(model, cache_dir)
    limits = [v for v in (max_tokens, context_length(model, cache_dir)) if v]
    budget = min(limits) if limits else None
    clm = objectives([model])[model] == "clm"
    n_special = 1 if clm else tokenizer.num_special_tokens_to_add()
    return factor_queries(factor, tokenizer, budget, n_special), budget


def scoring_cost(queries: Sequence[Query]) -> dict:
    """What scoring ``queries`` costs per model: items, statements and words."""
    words = [len(s.text.split()) for q in queries for s in q.statements]
    return {
        "items": len(queries),
        "statements": len(words),
        "mean_words": float(np.mean(words)) if words else 0.0,
        "max_words": int(max(words)) if words else 0,
    }


def factor_scores(
    models: Sequence[str],
    factor: Factor,
    max_tokens: int | None = FACTOR_MAX_TOKENS,
    *,
    cache_dir=None,
    device: str | None = "auto",
    progress: bool = True,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One score table (:mod:`calib.scoring.schema`) for every model on the items of
    ``factor`` (prefixes fitted to each model's budget, :func:`model_queries`), through the
    score cache, and the cost per model: ``model``, ``budget`` (tokens), ``items``,
    ``statements``, ``cut`` (items whose prefix was shortened), ``mean_words``,
    ``max_words``."""
    frames, costs = [], []
    whole = factor_queries(factor)
    for m in models:
        queries, budget = model_queries(m, factor, max_tokens, cache_dir=cache_dir)
        cut = sum(q.statements[0].text != w.statements[0].text for q, w in zip(queries, whole))
        costs.append({"model": m, "budget": budget, **scoring_cost(queries), "cut": cut})
        frames.append(
            score_queries(m, queries, cache_dir=cache_dir, device=device, progress=progress)
        )
    cost = pd.DataFrame(
        costs, columns=["model", "budget", "items", "statements", "cut", "mean_words", "max_words"]
    )
    return pd.concat(frames, ignore_index=True), cost


def factor_estimates(scores: pd.DataFrame, reduction: str = "sum") -> pd.DataFrame:
    """Base (Eq. 1) and Margin (Eq. 2) per model and item from a FACTOR score table, with an
    ``estimator`` column (Appendix F: ``sum`` reduction)."""
    per = template_predictions(sentence_scores(scores, reduction))
    return pd.concat(
        [
            base(per, TEMPLATE).assign(estimator="Base"),
            margin(per, TEMPLATE).assign(estimator="Margin"),
        ],
        ignore_index=True,
    )


def score_factor(
    models: Sequence[str],
    subsets: Sequence[str] = OFFLINE_SUBSETS,
    per_subset: int | None = 30,
    seed: int = 0,
    max_tokens: int | None = FACTOR_MAX_TOKENS,
    max_completion_words: int | None = None,
    *,
    data_dir=None,
    cache_dir=None,
    device: str | None = "auto",
    progress: bool = False,
) -> tuple[Factor, pd.DataFrame, pd.DataFrame]:
    """Sample FACTOR (:func:`factor_sample`) and score it with every model through the score
    cache (:func:`factor_scores`): ``(factor, scores, cost)`` (Base and Margin of the scores:
    :func:`factor_estimates`). The FACTOR chapter and the answer-set chapter (Figure 4) call
    this with the same arguments and so share the stored scores."""
    factor = factor_sample(subsets, per_subset, seed, max_completion_words, data_dir=data_dir)
    scores, cost = factor_scores(
        models, factor, max_tokens, cache_dir=cache_dir, device=device, progress=progress
    )
    return factor, scores, cost
