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

**The chapter unit** (:class:`Params`, :func:`run` -> :class:`FactorResult`, ``CLAIMS``):
Table 4 per model and subset (:func:`factor_summary`, :func:`table4`, with intervals and, beyond
the paper, ACE's noise floor and the debiased ACE), Margin against Base on ACE and Brier
(:func:`margin_vs_base`), and Appendix F's comparisons with BEAR: the same models on the seeded
BEAR sample of every BEAR chapter and on its 1:1 relations cut to five options
(:func:`bear_estimates`), the mean ACE on FACTOR against BEAR (:func:`higher_ace`) and Margin's
mean gain on each (:func:`gain_comparisons`). Those comparisons set samples of different sizes
side by side, whose raw ACEs carry different noise floors, so they are made on debiased ACEs
(the raw values beside them); comparisons within one sample (Margin against Base on the same
items) use the raw ACE, as the paper does. The answer-set chapter (Figure 4) scores FACTOR with
:func:`score_factor`, so both chapters share the stored scores.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from calib.confidence import (
    base,
    margin,
    paired_estimates_difference,
    sentence_scores,
    summary,
    template_predictions,
)
from calib.confidence.combined import (
    FACT_KEYS,
    Term,
    combined_interval,
    estimate_terms,
    instance_ids,
    repeat_summary,
)
from calib.confidence.subsample import subsampled_estimates
from calib.data.bear import PLAIN, one_to_one_relations
from calib.data.factor import OFFLINE_SUBSETS, Factor, load_factor
from calib.data.reported import reported
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import text_value
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.quantifiers import Evidence, every, printed
from calib.experiments.scores import objectives
from calib.experiments.verdicts import Judgement
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
TABLE4_INTERVALS = {
    c: (f"{c}_low", f"{c}_high")
    for c in (
        "accuracy",
        "ace_base",
        "ace_base_debiased",
        "ace_margin",
        "ace_margin_debiased",
        "brier_base",
        "brier_margin",
    )
}
#: interval columns of :func:`factor_summary` (and of every summary with ACE's floor)
SUMMARY_INTERVALS = {
    c: (f"{c}_low", f"{c}_high") for c in ("accuracy", "ace", "ace_debiased", "brier")
}


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
    """Sample FACTOR (:func:`factor_sample`), score it with every model through the score
    cache (:func:`factor_scores`) and estimate Base and Margin (:func:`factor_estimates`):
    ``(factor, estimates, cost)``. The FACTOR chapter and the answer-set chapter (Figure 4)
    call this with the same arguments and so share the stored scores."""
    factor = factor_sample(subsets, per_subset, seed, max_completion_words, data_dir=data_dir)
    scores, cost = factor_scores(
        models, factor, max_tokens, cache_dir=cache_dir, device=device, progress=progress
    )
    return factor, factor_estimates(scores), cost


def subset_name(dataset: str) -> str:
    """``"news"`` for the dataset ``"factor-news"``."""
    return dataset.removeprefix("factor-")


def factor_summary(
    estimates: pd.DataFrame,
    n_boot: int = 1000,
    seed: int = 0,
    objectives: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Accuracy, ACE and Brier per model, subset and estimator with 95% bootstrap intervals
    over items (:func:`calib.confidence.summary.summary`), ACE with its noise floor and
    debiased value (``ace_floor``, ``ace_debiased``, ... beyond the paper), a ``subset`` and,
    with ``objectives``, the model's ``objective``."""
    out = summary(
        estimates,
        by=["model", "dataset", "estimator"],
        n_boot=n_boot,
        seed=seed,
        metrics=METRICS,
        floor=("ace",),
    )
    out.insert(2, "subset", out["dataset"].map(subset_name))
    if objectives is not None:
        out.insert(1, "objective", out["model"].map(dict(objectives)))
    return out


#: the noise-floor columns that come with an ACE
#: (:func:`calib.confidence.noise_floor.floor_record`), as suffixes of the ACE's column
FLOOR_SUFFIXES: tuple[str, ...] = (
    "_floor",
    "_floor_low",
    "_floor_high",
    "_within_floor",
    "_debiased",
    "_debiased_low",
    "_debiased_high",
)


def table4(summ: pd.DataFrame) -> pd.DataFrame:
    """Table 4's layout from :func:`factor_summary`: one row per model and subset with ``n``,
    ``accuracy`` and ``ace_base``, ``ace_margin``, ``brier_base``, ``brier_margin`` (each with
    ``_low`` / ``_high``; see :data:`TABLE4_INTERVALS`), each ACE with its noise-floor columns
    (``ace_base_floor``, ``ace_base_debiased``, ..., :data:`FLOOR_SUFFIXES`)."""
    rows = []
    for (model, dataset), part in summ.groupby(["model", "dataset"], sort=False):
        by = part.set_index("estimator")
        row = {"model": model, "subset": subset_name(dataset), "n": int(by.loc["Base", "n"])}
        for suffix in ("", "_low", "_high"):
            row[f"accuracy{suffix}"] = by.loc["Base", f"accuracy{suffix}"]
        for metric in ("ace", "brier"):
            for est in ESTIMATORS:
                suffixes = ("", "_low", "_high", *(FLOOR_SUFFIXES if metric == "ace" else ()))
                for suffix in suffixes:
                    row[f"{metric}_{est.lower()}{suffix}"] = by.loc[est, f"{metric}{suffix}"]
        rows.append(row)
    return pd.DataFrame(rows)


def margin_vs_base(
    estimates: pd.DataFrame,
    metrics: Sequence[str] = ("ace", "brier"),
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Paired bootstrap over items of ``metric(Margin) - metric(Base)`` per model, subset and metric
    (:func:`calib.confidence.bootstrap.paired_estimates_difference`; the two estimators of a model
    on the same items and resamples). Columns ``model``, ``subset``, ``dataset``, ``metric``,
    ``difference``, ``low``, ``high``, ``method``, ``p_value``, ``n``, ``n_boot``."""
    rows = []
    for (model, dataset), part in estimates.groupby(["model", "dataset"], sort=False):
        b = part[part["estimator"] == "Base"]
        m = part[part["estimator"] == "Margin"]
        for metric in metrics:
            diff = paired_estimates_difference(m, b, metric, n_boot=n_boot, seed=seed)
            rows.append(
                {"model": model, "subset": subset_name(dataset), "dataset": dataset, **diff}
            )
    return pd.DataFrame(rows)


def interval_rows(summ: pd.DataFrame, metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """:func:`factor_summary` as one row per model, subset, estimator and metric for an
    interval chart: ``row`` ("news, Base"), ``metric`` (``ACE``, ``Brier``, ``accuracy``),
    ``value``, ``low``, ``high``, ``n`` and, for ACE, its noise floor's range (``floor_low``,
    ``floor_high``; NaN for the other metrics)."""
    names = {"ace": "ACE", "brier": "Brier", "accuracy": "accuracy"}
    parts = []
    for m in metrics:
        part = summ[["model", "subset", "estimator", "n"]].copy()
        part.insert(0, "row", summ["subset"] + ", " + summ["estimator"])
        part["metric"] = names.get(m, m)
        part["value"], part["low"], part["high"] = summ[m], summ[f"{m}_low"], summ[f"{m}_high"]
        has = f"{m}_floor_low" in summ.columns
        part["floor_low"] = summ[f"{m}_floor_low"] if has else np.nan
        part["floor_high"] = summ[f"{m}_floor_high"] if has else np.nan
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# BEAR beside FACTOR (Appendix F): the same models on the BEAR sample, whole and with BEAR's
# 1:1 relations cut to five options


#: the answer options BEAR's 1:1 relations are cut to beside FACTOR's four (§5.2, Figure 4;
#: Appendix F: "restrict BEAR to only five answer options per instance")
BEAR_OPTIONS = int(text_value("bear5_options"))


def bear_estimates(
    models: Sequence[str],
    relations: Sequence[str] | None = None,
    per_relation: int | None = None,
    seed: int = 0,
    k: int = BEAR_OPTIONS,
    repeats: int = 3,
    *,
    data_dir=None,
    cache_dir=None,
    device: str | None = "auto",
    progress: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Base and Margin on BEAR's plain template for the seeded BEAR sample of every BEAR
    chapter (:func:`calib.scoring.run.score_bear`, the same stored scores): on the whole answer
    spaces, and on the sample's 1:1 relations with every answer space cut to ``k`` options in
    ``repeats`` seeded draws (:func:`calib.confidence.subsample.subsampled_estimates`; empty
    when the sample has no 1:1 relation). Returns ``(whole, cut)`` estimate tables with
    ``estimator``, ``k`` and ``repeat`` columns."""
    from calib.scoring.run import score_bear

    scores = score_bear(
        list(models),
        PLAIN,
        per_relation,
        seed,
        list(relations) if relations else None,
        data_dir=data_dir,
        cache_dir=cache_dir,
        device=device,
        progress=progress,
    )
    sent = sentence_scores(scores)
    whole = subsampled_estimates(sent, None, template=PLAIN)
    ones = one_to_one_relations(relations, data_dir=data_dir)
    part = sent[sent["relation"].isin(ones)]
    if part.empty:
        return whole, whole.iloc[0:0]
    return whole, subsampled_estimates(part, k, repeats, seed, PLAIN)


def bear_summary(whole: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Accuracy, ACE (with its noise floor) and Brier of Base and Margin per model on the BEAR
    sample (:func:`bear_estimates`' ``whole``)."""
    return summary(
        whole, by=["model", "estimator"], n_boot=n_boot, seed=seed, metrics=METRICS, floor=("ace",)
    )


def bear_cut_summary(cut: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The same on BEAR's 1:1 relations cut to five options: each metric the mean over the
    draws of the options, with its interval, spread and (ACE) noise floor
    (:func:`calib.confidence.combined.repeat_summary`)."""
    if cut.empty:
        return pd.DataFrame(
            columns=[
                "model",
                "estimator",
                "k",
                "n",
                "repeats",
                "accuracy",
                "ace",
                "ace_floor",
                "ace_within_floor",
                "ace_debiased",
            ]
        )
    return repeat_summary(
        cut,
        by=["model", "estimator", "k"],
        metrics=("accuracy", "ace", "brier"),
        n_boot=n_boot,
        seed=seed,
    )


# ---------------------------------------------------------------------------------------------
# Appendix F's comparisons as statistics with intervals (evidence of the claims)


def _terms(
    estimates: pd.DataFrame, sample: str, metric: str, within=None, repeats: bool = False
) -> dict[tuple, Term]:
    """Terms per (model, estimator) or, with ``repeats``, per (model, estimator, repeat)."""
    by = ["model", "estimator", "repeat"] if repeats else ["model", "estimator"]
    return estimate_terms(estimates, sample, metric, by, within=within)


def _whole_ids(whole: pd.DataFrame) -> np.ndarray:
    first = whole[
        (whole["model"] == whole["model"].iloc[0])
        & (whole["estimator"] == whole["estimator"].iloc[0])
    ]
    return instance_ids(first.sort_values(list(FACT_KEYS), kind="stable"))


def higher_ace(
    whole: pd.DataFrame,
    factor_est: pd.DataFrame,
    models: Sequence[str],
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Appendix F's "the calibration errors are significantly higher than the ones we obtained
    on BEAR": per estimator and FACTOR subset, the mean over ``models`` (the causal ones) of
    ACE on FACTOR minus ACE on the BEAR sample, both **debiased** (ACE minus its noise floor:
    the FACTOR sample and the BEAR sample differ in size, so their raw ACEs carry different
    floors), with a 95% interval from a bootstrap of the BEAR facts and, independently, of the
    FACTOR items (:func:`calib.confidence.combined.combined_interval`); ``raw`` is the same mean
    of the raw ACEs. Columns ``estimator``, ``subset``, ``unit``, ``n_models``, ``difference``,
    ``low``, ``high``, ``p_value``, ``raw``, ``n_bear``, ``n_factor``."""
    models = [m for m in models if m in set(factor_est["model"])]
    if not models:
        return pd.DataFrame(
            columns=[
                "estimator",
                "subset",
                "unit",
                "n_models",
                "difference",
                "low",
                "high",
                "p_value",
                "raw",
                "n_bear",
                "n_factor",
            ]
        )
    bear = _terms(whole[whole["model"].isin(models)], "bear", "ace")
    rows = []
    for dataset, part in factor_est[factor_est["model"].isin(models)].groupby(
        "dataset", sort=False
    ):
        fac = _terms(part, dataset, "ace")
        for est in ESTIMATORS:
            terms = [fac[(m, est)] for m in models] + [bear[(m, est)] for m in models]
            coefs = [1 / len(models)] * len(models) + [-1 / len(models)] * len(models)
            got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True)
            rows.append(
                {
                    "estimator": est,
                    "subset": subset_name(dataset),
                    "unit": f"{est}, {subset_name(dataset)}",
                    "n_models": len(models),
                    "difference": got["difference"],
                    "low": got["low"],
                    "high": got["high"],
                    "p_value": got["p_value"],
                    "raw": got["difference"] + got["floor_shift"],
                    "n_bear": len(terms[-1].confidence),
                    "n_factor": len(terms[0].confidence),
                }
            )
    return pd.DataFrame(rows)


def _gain(
    terms: Mapping[tuple, Term], models: Sequence[str], repeats: Sequence[int] | None
) -> tuple[list[Term], list[float]]:
    """The terms and coefficients of the mean over ``models`` (and the repeats) of
    ``ACE(Base) - ACE(Margin)``: Margin's gain."""
    out: list[Term] = []
    coefs: list[float] = []
    each: Sequence[int | None] = repeats or [None]
    for m in models:
        for r in each:
            key = (m, "Base") if r is None else (m, "Base", r)
            alt_key = (m, "Margin") if r is None else (m, "Margin", r)
            w = 1 / (len(models) * len(each))
            out += [terms[key], terms[alt_key]]
            coefs += [w, -w]
    return out, coefs


def gain_comparisons(
    whole: pd.DataFrame,
    cut: pd.DataFrame,
    factor_est: pd.DataFrame,
    models: Sequence[str],
    n_boot: int = 1000,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Margin's mean gain in ACE over Base (``ACE(Base) - ACE(Margin)``, the mean over the
    causal ``models``) on the BEAR sample, on its 1:1 relations cut to five options and on each
    FACTOR subset (Appendix F: 0.106, 0.07 and 0.03), every ACE debiased (the samples differ in
    size), with 95% intervals from a bootstrap of the BEAR facts (shared by the whole sample
    and its 1:1 part) and, independently, of the FACTOR items.

    Returns ``(means, comparisons)``: ``means`` one row per benchmark (``benchmark``,
    ``n_models``, ``n``, ``gain`` (raw), ``gain_debiased`` with ``_low`` / ``_high``);
    ``comparisons`` per FACTOR subset ``gain(BEAR) - gain(FACTOR)`` (``comparison``
    ``smaller``) and ``|gain(BEAR) - gain(FACTOR)| - |gain(BEAR, 5 options) - gain(FACTOR)|``
    (``closer``), with ``unit``, ``difference``, ``low``, ``high``, ``p_value``, ``raw``."""
    mcols = [
        "benchmark",
        "n_models",
        "n",
        "gain",
        "gain_debiased",
        "gain_debiased_low",
        "gain_debiased_high",
    ]
    ccols = [
        "subset",
        "comparison",
        "unit",
        "n_models",
        "difference",
        "low",
        "high",
        "p_value",
        "raw",
    ]
    models = [m for m in models if m in set(factor_est["model"])]
    if not models:
        return pd.DataFrame(columns=mcols), pd.DataFrame(columns=ccols)
    whole = whole[whole["model"].isin(models)]
    ids = _whole_ids(whole)
    bear_terms, bear_coefs = _gain(_terms(whole, "bear", "ace"), models, None)
    samples = [("BEAR (sample, whole answer spaces)", bear_terms, bear_coefs)]
    cut_terms = cut_coefs = None
    if not cut.empty:
        cut = cut[cut["model"].isin(models)]
        reps = sorted(cut["repeat"].unique())
        cut_terms, cut_coefs = _gain(
            _terms(cut, "bear", "ace", within=ids, repeats=True), models, reps
        )
        samples.append((f"BEAR 1:1 ({int(cut['k'].iloc[0])} options)", cut_terms, cut_coefs))
    fac_terms = {}
    for dataset, part in factor_est[factor_est["model"].isin(models)].groupby(
        "dataset", sort=False
    ):
        fac_terms[dataset] = _gain(_terms(part, dataset, "ace"), models, None)
        samples.append((f"FACTOR {subset_name(dataset)}", *fac_terms[dataset]))
    sizes = {"bear": len(ids)}
    means = []
    for name, terms, coefs in samples:
        got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True, sizes=sizes)
        n = len(terms[0].confidence)
        means.append(
            {
                "benchmark": name,
                "n_models": len(models),
                "n": n,
                "gain": got["difference"] + got["floor_shift"],
                "gain_debiased": got["difference"],
                "gain_debiased_low": got["low"],
                "gain_debiased_high": got["high"],
            }
        )
    rows = []
    for dataset, (f_terms, f_coefs) in fac_terms.items():
        subset = subset_name(dataset)
        terms, coefs = bear_terms + f_terms, bear_coefs + [-c for c in f_coefs]
        got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True, sizes=sizes)
        rows.append(
            {
                "subset": subset,
                "comparison": "smaller",
                "unit": f"gain(BEAR) - gain(FACTOR {subset})",
                "n_models": len(models),
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "raw": got["difference"] + got["floor_shift"],
            }
        )
        if cut_terms is None:
            continue
        nb, nc = len(bear_terms), len(cut_terms)
        b_c, c_c, f_c = (np.asarray(bear_coefs), np.asarray(cut_coefs), np.asarray(f_coefs))

        def closer(values, nb=nb, nc=nc, b_c=b_c, c_c=c_c, f_c=f_c):
            g_b = values[:, :nb] @ b_c
            g_5 = values[:, nb : nb + nc] @ c_c
            g_f = values[:, nb + nc :] @ f_c
            return np.abs(g_b - g_f) - np.abs(g_5 - g_f)

        got = combined_interval(
            bear_terms + cut_terms + f_terms,
            combine=closer,
            n_boot=n_boot,
            seed=seed,
            debias=True,
            sizes=sizes,
        )
        rows.append(
            {
                "subset": subset,
                "comparison": "closer",
                "unit": f"|gain(BEAR) - gain(FACTOR {subset})| - |gain(BEAR, "
                f"{BEAR_OPTIONS} options) - gain(FACTOR {subset})|",
                "n_models": len(models),
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "raw": got["difference"] + got["floor_shift"],
            }
        )
    return pd.DataFrame(means, columns=mcols), pd.DataFrame(rows, columns=ccols)


def table4_means() -> pd.DataFrame:
    """The paper's mean FACTOR ACE of C_Base and C_Margin over its causal models, three ways:
    as Appendix F's text states them (0.475, 0.446), over the first ten rows of Table 4 (the
    earlier version's models) and over all its 16 rows; and Margin's mean gain. Columns
    ``what``, ``models``, ``ace_base``, ``ace_margin``, ``gain`` (printed or computed from
    printed values)."""
    t4 = reported("kissling2026_table4")
    b, m = text_value("factor_mean_ace_base"), text_value("factor_mean_ace_margin")
    rows = [
        {
            "what": "Appendix F's text",
            "models": None,
            "ace_base": b,
            "ace_margin": m,
            "gain": text_value("factor_mean_improvement"),
        }
    ]
    for what, part in (("Table 4, first ten rows", t4.head(10)), ("Table 4, all rows", t4)):
        rows.append(
            {
                "what": what,
                "models": len(part),
                "ace_base": part["ace_base"].mean(),
                "ace_margin": part["ace_margin"].mean(),
                "gain": (part["ace_base"] - part["ace_margin"]).mean(),
            }
        )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# the chapter unit


@dataclass(frozen=True)
class Params(ChapterParams):
    """The FACTOR chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "factor"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(
        None, "BEAR relations of the BEAR side (None: all 60)"
    )
    per_relation: int | None = parameter(
        1, "BEAR instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the samples, the option draws and every bootstrap")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    factor_subsets: tuple[str, ...] = parameter(
        ("news", "expert"), 'FACTOR subsets; "wiki" is download-only'
    )
    factor_items: int | None = parameter(30, "items drawn per subset (None: all)")
    factor_max_tokens: int | None = parameter(
        FACTOR_MAX_TOKENS, "statements keep their last N tokens at most (FACTOR's)"
    )
    factor_completion_words: int | None = parameter(
        None, "leave out items with a longer completion"
    )
    repeats: int = parameter(3, "seeded draws of the options of BEAR's 1:1 relations")


@dataclass(frozen=True)
class FactorResult:
    """Every frame and number the FACTOR page shows (:func:`run`)."""

    params: Params
    #: model -> ``clm`` / ``mlm``
    objectives: dict[str, str]
    #: the causal models (Table 4 has causal models only; the claims are about them)
    clms: list[str]
    #: items per subset: in the file, left out, eligible, sampled (``Factor.skip_counts``)
    items: pd.DataFrame
    #: the most items per model and subset
    n_items: int
    #: per model: token budget, items, statements, prefixes cut, lengths (:func:`factor_scores`)
    cost: pd.DataFrame
    #: :func:`factor_summary`: accuracy, ACE (with its floor), Brier per model, subset, estimator
    summary: pd.DataFrame
    #: :func:`table4`: the same in Table 4's layout
    table: pd.DataFrame
    #: :func:`interval_rows` of ``summary`` (the interval chart)
    intervals: pd.DataFrame
    #: :func:`margin_vs_base`: Margin minus Base, ACE and Brier
    margin_vs_base: pd.DataFrame
    #: BEAR facts behind the BEAR side, and the 1:1 ones among them
    n_bear: int
    n_bear_one_to_one: int
    #: :func:`bear_summary` and :func:`bear_cut_summary`
    bear: pd.DataFrame
    bear_cut: pd.DataFrame
    #: :func:`higher_ace`
    higher_ace: pd.DataFrame
    #: :func:`gain_comparisons`
    gains: pd.DataFrame
    gain_comparisons: pd.DataFrame
    #: :func:`table4_means`: the paper's means, as printed and from Table 4's rows
    paper_means: pd.DataFrame


def run(params: Params) -> FactorResult:
    """The FACTOR chapter with ``params``: score FACTOR (:func:`score_factor`) and the BEAR
    sample (:func:`bear_estimates`; both through the score cache), Table 4 with intervals and
    noise floors, Margin against Base, and Appendix F's comparisons of FACTOR with BEAR.

    Parameters
    ----------
    params : calib.experiments.factor.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.factor.FactorResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    kinds = objectives(list(p.models))
    clms = [m for m in p.models if kinds[m] == "clm"]
    factor, est, cost = score_factor(
        p.models,
        p.factor_subsets,
        p.factor_items,
        p.seed,
        p.factor_max_tokens,
        p.factor_completion_words,
    )
    summ = factor_summary(est, p.n_bootstrap, p.seed, kinds)
    whole, cut = bear_estimates(p.models, p.relations, p.per_relation, p.seed, repeats=p.repeats)
    gains, comparisons = gain_comparisons(whole, cut, est, clms, p.n_bootstrap, p.seed)
    per_subset = est.groupby(["model", "dataset"])["instance"].nunique()
    return FactorResult(
        params=p,
        objectives=kinds,
        clms=clms,
        items=factor.skip_counts(),
        n_items=int(per_subset.max()),
        cost=cost,
        summary=summ,
        table=table4(summ),
        intervals=interval_rows(summ),
        margin_vs_base=margin_vs_base(est, ("ace", "brier"), p.n_bootstrap, p.seed),
        n_bear=int(whole[["dataset", "relation", "instance"]].drop_duplicates().shape[0]),
        n_bear_one_to_one=int(cut[["dataset", "relation", "instance"]].drop_duplicates().shape[0])
        if len(cut)
        else 0,
        bear=bear_summary(whole, p.n_bootstrap, p.seed),
        bear_cut=bear_cut_summary(cut, p.n_bootstrap, p.seed),
        higher_ace=higher_ace(whole, est, clms, p.n_bootstrap, p.seed),
        gains=gains,
        gain_comparisons=comparisons,
        paper_means=table4_means(),
    )


# ---------------------------------------------------------------------------------------------
# the claims of §5.1 and Appendix F: rules, the paper's evidence, this build's evidence

#: Table 4's BEAR means of Appendix F, and why the paper's own numbers do not all agree
MEANS_NOTE = (
    "Appendix F's FACTOR means (0.475 and 0.446) are those of Table 4's first ten "
    "rows (the earlier version's models; the authors' repository prints 0.4755 and "
    "0.4457); over all 16 rows of Table 4 they are 0.372 and 0.433. Its BEAR means "
    "(0.213 and 0.107) are not the means of Table 1's 17 causal models (0.201 and "
    "0.104)"
)
BUILD_NOTE = (
    "this build's causal models; each ACE debiased (ACE minus its noise floor, beyond "
    "the paper: the BEAR and FACTOR samples differ in size); 95% intervals from a "
    "bootstrap of the BEAR facts and, independently, of the FACTOR items"
)


def _no_clm(result: FactorResult) -> str:
    return (
        f"this build has no causal model ({', '.join(result.params.models)}); Table 4 "
        f"and Appendix F are about causal models"
    )


# margin_factor: "C_Margin consistently outperforms C_Base across all models and both
# evaluation metrics"


def margin_below_base_factor(evidence: Evidence) -> Judgement:
    """``margin_factor``: ``metric(Margin) - metric(Base)`` on FACTOR below 0 for every causal
    model (and subset) and for both metrics, ACE and Brier; both metrics required."""
    return every(
        evidence,
        "<",
        0.0,
        what="metric(Margin) - metric(Base) on FACTOR",
        unit="model-metric",
        required=("ace", "brier"),
        required_in="metric",
    )


def margin_below_base_factor_paper() -> Evidence:
    t4 = reported("kissling2026_table4")
    frames = [
        t4.assign(
            metric=m,
            label={"ace": "ACE", "brier": "Brier"}[m],
            value=t4[f"{m}_margin"] - t4[f"{m}_base"],
        )
        for m in ("ace", "brier")
    ]
    frame = pd.concat(frames, ignore_index=True)
    return Evidence(
        printed(frame, "value", ["registry_name", "label"]),
        "Table 4, printed values (Wiki-FACTOR, 16 causal models)",
    )


def margin_below_base_factor_build(result: FactorResult) -> Evidence:
    diffs = result.margin_vs_base[result.margin_vs_base["model"].isin(result.clms)]
    if diffs.empty:
        return Evidence.empty(_no_clm(result))
    label = {"ace": "ACE", "brier": "Brier"}
    frame = diffs.assign(
        unit=diffs["model"] + ", " + diffs["subset"] + ", " + diffs["metric"].map(label)
    )
    return Evidence(
        frame[
            ["unit", "difference", "low", "high", "metric", "model", "subset", "p_value"]
        ].reset_index(drop=True),
        f"this build's causal models on FACTOR "
        f"{', '.join(result.params.factor_subsets)}, 95% paired bootstrap over "
        f"items ({result.params.n_bootstrap} resamples)",
    )


# factor_higher_ace: "the calibration errors are significantly higher than the ones we obtained
# on BEAR"


def higher_on_factor(evidence: Evidence) -> Judgement:
    """``factor_higher_ace``: the mean over the causal models of ACE on FACTOR minus ACE on
    BEAR above 0, for C_Base and for C_Margin (and every FACTOR subset of a build)."""
    return every(
        evidence,
        ">",
        0.0,
        what="mean ACE on FACTOR - mean ACE on BEAR",
        unit="comparison",
        required=ESTIMATORS,
        required_in="estimator",
    )


def higher_on_factor_paper() -> Evidence:
    frame = pd.DataFrame(
        {
            "estimator": list(ESTIMATORS),
            "unit": ["C_Base, mean over the CLMs", "C_Margin, mean over the CLMs"],
            "value": [
                text_value("factor_mean_ace_base") - text_value("bear_mean_ace_base"),
                text_value("factor_mean_ace_margin") - text_value("bear_mean_ace_margin"),
            ],
        }
    )
    return Evidence(
        printed(frame, "value"),
        "Appendix F's text, printed means (FACTOR 0.475 / 0.446, BEAR 0.213 / 0.107)",
    )


def higher_on_factor_build(result: FactorResult) -> Evidence:
    if result.higher_ace.empty:
        return Evidence.empty(_no_clm(result))
    return Evidence(result.higher_ace.reset_index(drop=True), BUILD_NOTE)


# factor_smaller_gain: "the average improvement of C_Margin is only 0.03" (BEAR: 0.106)


def smaller_gain(evidence: Evidence) -> Judgement:
    """``factor_smaller_gain``: Margin's mean ACE gain over Base (over the causal models) is
    smaller on FACTOR than on BEAR: ``gain(BEAR) - gain(FACTOR) > 0`` (every FACTOR subset of a
    build)."""
    return every(
        evidence,
        ">",
        0.0,
        what="mean gain(BEAR) - mean gain(FACTOR), gain = ACE(Base) - ACE(Margin)",
        unit="comparison",
    )


def smaller_gain_paper() -> Evidence:
    frame = pd.DataFrame(
        {
            "unit": ["mean over the CLMs"],
            "value": [text_value("bear_mean_improvement") - text_value("factor_mean_improvement")],
        }
    )
    return Evidence(
        printed(frame, "value"), "Appendix F's text, printed means (0.106 on BEAR, 0.03 on FACTOR)"
    )


def smaller_gain_build(result: FactorResult) -> Evidence:
    rows = result.gain_comparisons[result.gain_comparisons["comparison"] == "smaller"]
    if rows.empty:
        return Evidence.empty(_no_clm(result))
    return Evidence(rows.reset_index(drop=True), BUILD_NOTE)


# bear5_gain_closer: "we find again a more similar performance if we restrict BEAR to only five
# answer options per instance" (0.07)


def closer_with_five(evidence: Evidence) -> Judgement:
    """``bear5_gain_closer``: with BEAR's 1:1 relations cut to five options Margin's mean gain
    is closer to FACTOR's than on the whole BEAR: ``|gain(BEAR) - gain(FACTOR)| - |gain(BEAR,
    5 options) - gain(FACTOR)| > 0``."""
    return every(
        evidence,
        ">",
        0.0,
        what="|gain(BEAR) - gain(FACTOR)| - |gain(BEAR, 5 options) - gain(FACTOR)|",
        unit="comparison",
    )


def closer_with_five_paper() -> Evidence:
    b, f = text_value("bear_mean_improvement"), text_value("factor_mean_improvement")
    five = text_value("bear5_mean_improvement")
    frame = pd.DataFrame({"unit": ["mean over the CLMs"], "value": [abs(b - f) - abs(five - f)]})
    return Evidence(
        printed(frame, "value"),
        "Appendix F's text, printed means (0.106 on BEAR, "
        "0.07 on BEAR with five options, 0.03 on FACTOR)",
    )


def closer_with_five_build(result: FactorResult) -> Evidence:
    rows = result.gain_comparisons[result.gain_comparisons["comparison"] == "closer"]
    if rows.empty:
        if not result.clms:
            return Evidence.empty(_no_clm(result))
        return Evidence.empty(
            "this build's BEAR sample has no 1:1 relation (60 options) to cut to five options"
        )
    return Evidence(rows.reset_index(drop=True), BUILD_NOTE)


CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="margin_factor",
        paper="kissling2026",
        section="§5.1, Appendix F",
        quote="we see that $C_{\\text{Margin}}$ consistently outperforms $C_{\\text{Base}}$ "
        "across all models and both evaluation metrics",
        statement="On FACTOR, C_Margin has a lower ACE and a lower Brier score than C_Base, "
        "for every (causal) model",
        quantifier="every",
        metrics=("ace", "brier"),
        about="every causal model (Table 4 has 16)",
        chapter="factor",
        rule=margin_below_base_factor,
        paper_evidence=margin_below_base_factor_paper,
        build_evidence=margin_below_base_factor_build,
        paper_note="In Table 4 C_Margin is worse than C_Base in ACE and in Brier for all six "
        "gemma-3 and Qwen3.5 rows (the instruction-tuned models)",
        needs="a causal model scored on FACTOR",
    ),
    Claim(
        key="factor_higher_ace",
        paper="kissling2026",
        section="Appendix F",
        quote="The first thing that stands out is that the calibration errors are "
        "significantly higher than the ones we obtained on BEAR.",
        statement="The mean ACE over the causal models is higher on FACTOR than on BEAR, for "
        "C_Base and for C_Margin",
        quantifier="on average",
        metrics=("ace",),
        about="the causal models (their mean)",
        chapter="factor",
        rule=higher_on_factor,
        paper_evidence=higher_on_factor_paper,
        build_evidence=higher_on_factor_build,
        paper_note=MEANS_NOTE,
        needs="a causal model scored on FACTOR and BEAR",
    ),
    Claim(
        key="factor_smaller_gain",
        paper="kissling2026",
        section="Appendix F",
        quote="On BEAR we found an average improvement in ACE among the CLMs of 0.106, while "
        "on FACTOR, the average improvement of $C_{\\text{Margin}}$ is only 0.03.",
        statement="Margin's mean improvement in ACE over Base (over the causal models) is "
        "smaller on FACTOR than on BEAR",
        quantifier="on average",
        metrics=("ace",),
        about="the causal models (their mean)",
        chapter="factor",
        rule=smaller_gain,
        paper_evidence=smaller_gain_paper,
        build_evidence=smaller_gain_build,
        paper_note=MEANS_NOTE + "; over all 16 rows Margin's mean gain on FACTOR is -0.061 "
        "(Margin worse on average), smaller still",
        needs="a causal model scored on FACTOR and BEAR",
    ),
    Claim(
        key="bear5_gain_closer",
        paper="kissling2026",
        section="Appendix F",
        quote="However, we find again a more similar performance if we restrict BEAR to only "
        "five answer options per instance, as we did it before.",
        statement="With BEAR's 1:1 relations cut to five options, Margin's mean improvement "
        "in ACE over Base is closer to FACTOR's than on the whole of BEAR",
        quantifier="on average",
        metrics=("ace",),
        about="the causal models (their mean)",
        chapter="factor",
        rule=closer_with_five,
        paper_evidence=closer_with_five_paper,
        build_evidence=closer_with_five_build,
        paper_note="The text prints the means (0.106, 0.07, 0.03) and no table; with Table "
        "4's 16 rows the FACTOR gain is -0.061 and the verdict is the same",
        needs="a causal model scored on FACTOR and on a BEAR sample with 1:1 relations",
    ),
)
