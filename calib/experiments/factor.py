"""FACTOR (paper Appendix F, Table 4): calibration beyond BEAR's short relational statements.

Every FACTOR item (:mod:`calib.data.factor`) becomes one *query*: dataset ``factor-<subset>``,
relation = the subset, instance = the item, template :data:`TEMPLATE`, and four statements
``prefix + completion`` (:func:`calib.scoring.statements.continuation_statement`; the prefix's
tokens have the role ``template``, the completion's ``object``). The four options are put in a
fixed random order per item (seeded by the subset and item only, so every sample and every
model sees the same order and stored scores stay valid); ``answer_idx`` is where the true
completion landed.

Scoring and reduction (Appendix F): the sentence score is the ``sum`` of the token
log-probabilities, the option softmax and the estimators are BEAR's: Base (Eq. 1) and Margin
(Eq. 2). Accuracy, ACE and Brier come with seeded bootstrap intervals over items.

* **Causal models.** The four statements share the prefix, so the scorer runs it once and
  reuses its key/value cache (:mod:`calib.scoring.clm`); the prefix's log-probability is the
  same for all four options and cancels in the softmax, which is therefore the softmax of
  ``log p(completion | prefix)``: the quantity FACTOR's own evaluation sums.
* **Masked models** (not in the paper's Table 4, which has only causal models). A masked model
  has no ``p(completion | prefix)``; the scorer's within-word pseudo-log-likelihood masks one
  token at a time over the *whole* statement, prefix included, and the prefix's terms differ
  between the options (every prefix token sees the completion). We keep the whole-statement
  PLL (the sum over all tokens, the masked analogue of the causal ``log p(prefix, completion)``)
  and do not score the completion alone. The cost is one forward pass per token of each of
  the four statements, quadratic in the statement length.

**Long prefixes** are cut the way FACTOR's evaluation script (``eval_factuality.py``) cuts
them: it tokenises each statement with ``truncation_side="left"`` and ``max_tokens`` (default
1,024), so a statement keeps its *last* tokens. Here the budget is the smaller of
``max_tokens`` (:data:`FACTOR_MAX_TOKENS` by default) and the model's context
(:func:`calib.models.loading.context_length`), less the start or special tokens, and the prefix
keeps its last tokens so that the longest of the four statements fits (:func:`fit_prefix`).
Two small differences from FACTOR's script: the cut is made once per item, so the four options
share one prefix (FACTOR cuts each statement alone, so with completions of different lengths
its options can see slightly different prefixes), and the causal start token counts against
the budget (FACTOR adds none). Nothing is cut from a completion; an item whose completion does
not fit is an error that names it.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from calib.confidence import (base, margin, paired_estimates_difference, sentence_scores, summary,
                              template_predictions)
from calib.data.factor import OFFLINE_SUBSETS, Factor, load_factor
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence, every, printed
from calib.data.reported import reported
from calib.experiments.scores import objectives
from calib.models.loading import context_length, load_tokenizer
from calib.scoring.run import score_queries
from calib.scoring.statements import Query, continuation_statement

#: the template name of a FACTOR query (one per item)
TEMPLATE = "continuation"
#: FACTOR's ``eval_factuality.py --max_tokens`` default: a statement keeps its last 1,024 tokens
FACTOR_MAX_TOKENS = 1024
#: the estimators of Table 4
ESTIMATORS: tuple[str, ...] = ("Base", "Margin")
#: the metrics of Table 4
METRICS: tuple[str, ...] = ("accuracy", "ace", "brier")
#: interval columns of :func:`table4`, for :func:`calib.report.table_format.html_table`
TABLE4_INTERVALS = {c: (f"{c}_low", f"{c}_high") for c in
                    ("accuracy", "ace_base", "ace_margin", "brier_base", "brier_margin")}


def dataset_name(subset: str) -> str:
    """The score table's ``dataset`` of a subset: ``"factor-news"``."""
    return f"factor-{subset}"


def option_order(subset: str, item: str) -> np.ndarray:
    """The fixed order of the four completions of an item (a permutation of 0..3, where 0 is
    the true completion), seeded by the subset and the item only."""
    return np.random.default_rng([zlib.crc32(subset.encode()), int(item)]).permutation(4)


def _length(tokenizer, text: str) -> int:
    return len(tokenizer(text, add_special_tokens=False)["input_ids"])


def fit_prefix(prefix: str, completions: Sequence[str], tokenizer, budget: int | None,
               n_special: int = 1) -> str:
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
    starts = [a for a, _ in tokenizer(prefix, add_special_tokens=False,
                                      return_offsets_mapping=True)["offset_mapping"]]
    drop = longest - room
    while drop < len(starts):
        kept = prefix[starts[drop]:]
        over = max(_length(tokenizer, kept + c) for c in completions) - room
        if over <= 0:
            return kept
        drop += over
    raise ValueError(f"no token of the prefix fits: the longest completion alone needs more "
                     f"than {room} tokens")


def factor_queries(factor: Factor, tokenizer=None, budget: int | None = None,
                   n_special: int = 1) -> list[Query]:
    """One query per item: ``prefix + completion`` for each of the four completions (in
    :func:`option_order`), the prefix cut by :func:`fit_prefix` to ``budget`` tokens of
    ``tokenizer`` (no cut without a tokenizer or budget)."""
    out = []
    for subset, item, prefix, completions in zip(factor.items["subset"], factor.items["item"],
                                                  factor.items["prefix"],
                                                  factor.items["completions"]):
        order = option_order(subset, item)
        answers = tuple(completions[i] for i in order)
        try:
            kept = prefix if tokenizer is None else fit_prefix(prefix, answers, tokenizer,
                                                               budget, n_special)
        except ValueError as exc:
            raise ValueError(f"FACTOR {subset} item {item}: {exc} (budget {budget}); leave out "
                             f"items with long completions (max_completion_words) or raise "
                             f"max_tokens") from None
        out.append(Query(dataset_name(subset), subset, item, TEMPLATE, answers,
                         tuple(continuation_statement(kept, a) for a in answers),
                         int(np.flatnonzero(order == 0)[0])))
    return out


def factor_sample(subsets: Sequence[str] = OFFLINE_SUBSETS, per_subset: int | None = 30,
                  seed: int = 0, max_completion_words: int | None = None, *,
                  data_dir=None) -> Factor:
    """The seeded FACTOR sample a chapter scores: ``per_subset`` items of each subset, drawn
    after leaving out items with an empty/duplicate completion (counted in ``skipped``) and,
    when ``max_completion_words`` is set, items with a longer completion."""
    factor = load_factor(list(subsets), data_dir).shorter_than(max_completion_words)
    return factor.sample(per_subset, seed)


def model_queries(model: str, factor: Factor, max_tokens: int | None = FACTOR_MAX_TOKENS, *,
                  cache_dir=None) -> tuple[list[Query], int | None]:
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
    return {"items": len(queries), "statements": len(words),
            "mean_words": float(np.mean(words)) if words else 0.0,
            "max_words": int(max(words)) if words else 0}


def factor_scores(models: Sequence[str], factor: Factor,
                  max_tokens: int | None = FACTOR_MAX_TOKENS, *, cache_dir=None,
                  device: str | None = "auto", progress: bool = True
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
        frames.append(score_queries(m, queries, cache_dir=cache_dir, device=device,
                                    progress=progress))
    cost = pd.DataFrame(costs, columns=["model", "budget", "items", "statements", "cut",
                                        "mean_words", "max_words"])
    return pd.concat(frames, ignore_index=True), cost


def factor_estimates(scores: pd.DataFrame, reduction: str = "sum") -> pd.DataFrame:
    """Base (Eq. 1) and Margin (Eq. 2) per model and item from a FACTOR score table, with an
    ``estimator`` column (Appendix F: ``sum`` reduction)."""
    per = template_predictions(sentence_scores(scores, reduction))
    return pd.concat([base(per, TEMPLATE).assign(estimator="Base"),
                      margin(per, TEMPLATE).assign(estimator="Margin")], ignore_index=True)


def factor_summary(estimates: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Accuracy, ACE and Brier with bootstrap intervals per model, dataset and estimator."""
    return summary(estimates, by=["model", "dataset", "estimator"], n_boot=n_boot, seed=seed,
                   metrics=METRICS)


def table4(summ: pd.DataFrame) -> pd.DataFrame:
    """Table 4's layout from :func:`factor_summary`: one row per model and subset with
    ``n``, ``accuracy`` and ``ace_base``, ``ace_margin``, ``brier_base``, ``brier_margin``
    (each with ``_low`` / ``_high``; see :data:`TABLE4_INTERVALS`)."""
    rows = []
    for (model, dataset), part in summ.groupby(["model", "dataset"], sort=False):
        by = part.set_index("estimator")
        row = {"model": model, "subset": dataset.removeprefix("factor-"),
               "n": int(by.loc["Base", "n"])}
        for suffix in ("", "_low", "_high"):
            row[f"accuracy{suffix}"] = by.loc["Base", f"accuracy{suffix}"]
        for metric in ("ace", "brier"):
            for est in ESTIMATORS:
                for suffix in ("", "_low", "_high"):
                    row[f"{metric}_{est.lower()}{suffix}"] = by.loc[est, f"{metric}{suffix}"]
        rows.append(row)
    return pd.DataFrame(rows)


def margin_vs_base(estimates: pd.DataFrame, metric: str = "ace", n_boot: int = 1000,
                   seed: int = 0) -> pd.DataFrame:
    """Paired bootstrap of ``metric(Margin) - metric(Base)`` per model and dataset, with a
    ``dataset`` (sentences: :func:`calib.report.findings.margin_sentences`)."""
    rows = []
    for (model, dataset), part in estimates.groupby(["model", "dataset"], sort=False):
        b = part[part["estimator"] == "Base"]
        m = part[part["estimator"] == "Margin"]
        diff = paired_estimates_difference(m, b, metric, n_boot=n_boot, seed=seed)
        rows.append({"model": model, "subset": dataset.removeprefix("factor-"), **diff,
                     "dataset": dataset})
    return pd.DataFrame(rows)


def mean_over_models(table: pd.DataFrame, models: Sequence[str] | None = None) -> pd.DataFrame:
    """The mean ACE of Base and Margin over ``models`` (default all) per subset, from
    :func:`table4`: the quantity the authors' repository prints for Wiki-FACTOR."""
    part = table if models is None else table[table["model"].isin(list(models))]
    out = part.groupby("subset", sort=False).agg(
        models=("model", "nunique"), ace_base=("ace_base", "mean"),
        ace_margin=("ace_margin", "mean")).reset_index()
    return out


@dataclass(frozen=True)
class FactorRun:
    """Everything a chapter shows about one FACTOR run (:func:`run_factor`)."""

    factor: Factor  # the sampled items and the skipped ones
    cost: pd.DataFrame = field(repr=False)  # per model: budget, items, prefixes cut, lengths
    scores: pd.DataFrame = field(repr=False)
    estimates: pd.DataFrame = field(repr=False)  # Base and Margin per model and item
    summary: pd.DataFrame = field(repr=False)  # :func:`factor_summary`
    table: pd.DataFrame = field(repr=False)  # :func:`table4`


def run_factor(models: Sequence[str], subsets: Sequence[str] = OFFLINE_SUBSETS,
               per_subset: int | None = 30, seed: int = 0,
               max_tokens: int | None = FACTOR_MAX_TOKENS,
               max_completion_words: int | None = None, n_boot: int = 1000, *, data_dir=None,
               cache_dir=None, device: str | None = "auto", progress: bool = True) -> FactorRun:
    """Sample FACTOR, score it with every model (through the cache), and compute Table 4
    (:func:`factor_sample`, :func:`factor_scores`, :func:`factor_estimates`,
    :func:`factor_summary`, :func:`table4`). The chapters on FACTOR and on the number of
    answer options call this with the same arguments and so share the stored scores."""
    factor = factor_sample(subsets, per_subset, seed, max_completion_words, data_dir=data_dir)
    scores, cost = factor_scores(models, factor, max_tokens, cache_dir=cache_dir, device=device,
                                 progress=progress)
    estimates = factor_estimates(scores)
    summ = factor_summary(estimates, n_boot=n_boot, seed=seed)
    return FactorRun(factor, cost, scores, estimates, summ, table4(summ))


# ---------------------------------------------------------------------------------------------
# the claims this chapter tests (calib.experiments.claims): rules over evidence frames and the
# paper's evidence. The chapter does not record its result yet, so build_evidence is None ("not
# run in this build") until it is converted to a chapter unit (issue 17; the reductions chapter
# is the worked example).


def margin_below_base_factor(evidence: Evidence):
    """``margin_factor``: ACE(Margin) - ACE(Base) on FACTOR below 0 for every causal model."""
    # TODO(issue 17): rule to fix -- the paper says "across all models and both evaluation
    # metrics": ACE and Brier
    return every(evidence, "<", 0.0, what="ACE(Margin) - ACE(Base) on FACTOR", unit="model")


def margin_below_base_factor_paper() -> Evidence:
    t4 = reported("kissling2026_table4")
    frame = t4.assign(value=t4["ace_margin"] - t4["ace_base"])
    return Evidence(printed(frame, "value", "registry_name"), "Table 4, printed values")


CLAIMS: tuple[Claim, ...] = (
    Claim(key="margin_factor", paper="kissling2026", section="§5.1, Appendix F",
          quote="across all models and both evaluation metrics, highlighting it as a more "
                "reliable confidence estimate",
          statement="C_Margin is better calibrated (lower ACE) than C_Base on FACTOR, for every "
                    "causal model",
          quantifier="every", metrics=("ace",), about="every causal model",
          chapter="factor", rule=margin_below_base_factor,
          paper_evidence=margin_below_base_factor_paper, build_evidence=None,
          needs="a causal model scored on FACTOR"),
)
