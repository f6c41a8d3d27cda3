"""FACTOR (paper Appendix F, Table 4): calibration beyond BEAR's short relational statements.

Every FACTOR item (:mod:`calib.data.factor`) becomes one *query*: dataset ``factor-<subset>``,
relation = the subset, instance = the item, template
:data:`~calib.experiments.factor.scoring.TEMPLATE`, and four statements ``prefix + completion``
(:func:`calib.scoring.statements.continuation_statement`; the prefix's tokens have the role
``template``, the completion's ``object``). The four options are put in a fixed random order per
item (seeded by the subset and item only, so every sample and every model sees the same order
and stored scores stay valid); ``answer_idx`` is where the true completion landed.

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

**Long prefixes** are cut the way FACTOR's evaluation script (``eval_factuality.py``) cuts them: it
tokenises each statement with ``truncation_side="left"`` and ``max_tokens`` (default 1,024), so a
statement keeps its *last* tokens. Here the budget is the smaller of ``max_tokens``
(:data:`~calib.experiments.factor.scoring.FACTOR_MAX_TOKENS` by default) and the model's context
(:func:`calib.models.loading.context_length`), less the start or special tokens, and the prefix
keeps its last tokens so that the longest of the four statements fits
(:func:`~calib.experiments.factor.scoring.fit_prefix`). Two small differences from FACTOR's script:
the cut is made once per item, so the four options share one prefix (FACTOR cuts each statement
alone, so with completions of different lengths its options can see slightly different prefixes),
and the causal start token counts against the budget (FACTOR adds none). Nothing is cut from a
completion; an item whose completion does not fit is an error that names it.

**The chapter unit** (:class:`Params`, :func:`run` -> :class:`FactorResult`: score FACTOR and the
BEAR sample, then :func:`analyse`, which takes :class:`FactorScores` and needs no model and no score
store; ``CLAIMS``): Table 4 per model and subset (with intervals and, beyond the paper, ACE's noise
floor and the debiased ACE), Margin against Base on ACE and Brier, and Appendix F's comparisons with
BEAR: the same models on the seeded BEAR sample of every BEAR chapter and on its 1:1 relations cut
to five options, the mean ACE on FACTOR against BEAR and Margin's mean gain on each. Those
comparisons set samples of different sizes side by side, whose raw ACEs carry different noise
floors, so they are made on debiased ACEs (the raw values beside them); comparisons within one
sample (Margin against Base on the same items) use the raw ACE, as the paper does. The answer-set
chapter (Figure 4) scores FACTOR with :func:`~calib.experiments.factor.scoring.score_factor`, so
both chapters share the stored scores. The package:

============================================  ======================================================
module                                        holds
============================================  ======================================================
:mod:`~calib.experiments.factor.scoring`      FACTOR's items as queries (a fixed random option order
                                              per item, prefixes fitted to each model's budget:
                                              :func:`~calib.experiments.factor.scoring.fit_prefix`),
                                              the seeded sample, the scores through the score cache
                                              and their cost, Base and Margin per item
:mod:`~calib.experiments.factor.tables`       Table 4 per model and subset (accuracy, ACE with its
                                              noise floor and the debiased ACE, Brier, with
                                              intervals), Margin against Base on ACE and Brier, the
                                              interval chart's rows
:mod:`~calib.experiments.factor.bear`         the BEAR side of Appendix F: Base and Margin on the
                                              seeded BEAR sample of every BEAR chapter and on its
                                              1:1 relations cut to five options, and their summaries
:mod:`~calib.experiments.factor.comparisons`  Appendix F's comparisons with BEAR as statistics with
                                              intervals: the mean ACE on FACTOR against BEAR,
                                              Margin's mean gain on each, and Table 4's means as
                                              printed
:mod:`~calib.experiments.factor.claims`       the claims of §5.1 and Appendix F: their rules, the
                                              paper's evidence and this build's, and ``CLAIMS``
============================================  ======================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar

import pandas as pd

from calib.data.bear import PLAIN
from calib.experiments.factor.bear import (
    BEAR_OPTIONS,
    bear_cut_summary,
    bear_option_estimates,
    bear_summary,
)
from calib.experiments.factor.claims import CLAIMS
from calib.experiments.factor.comparisons import gain_comparisons, higher_ace, table4_means
from calib.experiments.factor.scoring import FACTOR_MAX_TOKENS, factor_estimates, score_factor
from calib.experiments.factor.tables import (
    SUMMARY_INTERVALS,
    factor_summary,
    interval_rows,
    margin_vs_base,
    mean_reduction_flatness,
    subset_name,
    table4,
)
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.per_model import (
    by_sorted,
    concat_parts,
    in_first_seen_order,
    map_models,
    worker_count,
)
from calib.experiments.scores import objectives as model_objectives

__all__ = [
    "BEAR_OPTIONS",
    "CLAIMS",
    "SUMMARY_INTERVALS",
    "FactorResult",
    "FactorScores",
    "Params",
    "analyse",
    "margin_vs_base",
    "run",
    "score_factor",
    "table4",
]

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
        3, "BEAR instances per relation, seeded sample (None: all of BEAR)"
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
    #: per model: token budget, items, statements, prefixes cut, lengths
    #: (:func:`~calib.experiments.factor.scoring.factor_scores`)
    cost: pd.DataFrame
    #: :func:`~calib.experiments.factor.tables.factor_summary`: accuracy, ACE (with its floor),
    #: Brier per model, subset, estimator
    summary: pd.DataFrame
    #: :func:`~calib.experiments.factor.tables.table4`: the same in Table 4's layout
    table: pd.DataFrame
    #: :func:`~calib.experiments.factor.tables.interval_rows` of ``summary`` (the interval chart)
    intervals: pd.DataFrame
    #: :func:`~calib.experiments.factor.tables.margin_vs_base`: Margin minus Base, ACE and Brier
    margin_vs_base: pd.DataFrame
    #: BEAR facts behind the BEAR side, and the 1:1 ones among them
    n_bear: int
    n_bear_one_to_one: int
    #: :func:`~calib.experiments.factor.bear.bear_summary` and
    #: :func:`~calib.experiments.factor.bear.bear_cut_summary`
    bear: pd.DataFrame
    bear_cut: pd.DataFrame
    #: :func:`~calib.experiments.factor.comparisons.higher_ace`
    higher_ace: pd.DataFrame
    #: :func:`~calib.experiments.factor.comparisons.gain_comparisons`
    gains: pd.DataFrame
    gain_comparisons: pd.DataFrame
    #: :func:`~calib.experiments.factor.comparisons.table4_means`: the paper's means, as printed and
    #: from Table 4's rows
    paper_means: pd.DataFrame
    #: :func:`~calib.experiments.factor.tables.mean_reduction_flatness`: C_Base and C_Margin with
    #: the Mean reduction, computed beside Sum from the same token scores (Appendix F's reason for
    #: summing; last, with an empty default, so results built by hand need not name it)
    mean_reduction: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def n_facts(self) -> int:
        """Items per model and subset (what the FACTOR intervals narrow with, for the facts that
        would decide an open verdict, :mod:`calib.experiments.decide`)."""
        return self.n_items


@dataclass(frozen=True)
class FactorScores:
    """What :func:`analyse` takes: the score tables of the chapter, as :func:`run` fills them
    (a user with scores of their own passes the first two)."""

    #: the score table (:mod:`calib.scoring.schema`) of every model on the sampled FACTOR items
    #: (datasets ``factor-<subset>``, template
    #: :data:`~calib.experiments.factor.scoring.TEMPLATE`;
    #: :func:`~calib.experiments.factor.scoring.score_factor`)
    factor: pd.DataFrame
    #: the score table of every model on BEAR's plain template for the seeded BEAR sample
    #: (:func:`calib.scoring.run.score_bear`)
    bear: pd.DataFrame
    #: FACTOR's items per subset: in the file, left out, eligible, sampled
    #: (``Factor.skip_counts``), and the scoring cost per model
    #: (:func:`~calib.experiments.factor.scoring.factor_scores`), shown as they are
    items: pd.DataFrame = field(default_factory=pd.DataFrame)
    cost: pd.DataFrame = field(default_factory=pd.DataFrame)


def analyse(
    scores: FactorScores,
    params: Params,
    objectives: Mapping[str, str] | None = None,
    workers: int | None = None,
    ray: str | None = None,
) -> FactorResult:
    """The FACTOR chapter on given scores: Base and Margin, Table 4 with intervals and noise
    floors, Margin against Base, and Appendix F's comparisons of FACTOR with BEAR. No model, no
    score store: :func:`run` scores first, then calls this.

    Parameters
    ----------
    scores : calib.experiments.factor.FactorScores
        The FACTOR and BEAR score tables (and how they were made).
    params : calib.experiments.factor.Params
        The chapter's parameters.
    objectives : Mapping[str, str] or None
        Model -> ``clm`` / ``mlm``; by default from the registry
        (:func:`calib.experiments.scores.objectives`: a model it does not list is looked up in
        its configuration).
    workers : int or None
        Processes for the per-model steps (:func:`calib.experiments.per_model.worker_count`:
        by default one per CPU on a large table, else this process).
    ray : str or None
        A Ray cluster's address for the per-model steps (by default ``$CALIB_RAY``; None: no
        Ray).

    Returns
    -------
    calib.experiments.factor.FactorResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    kinds = model_objectives(list(p.models)) if objectives is None else dict(objectives)
    clms = [m for m in p.models if kinds[m] == "clm"]
    est = factor_estimates(scores.factor)
    whole, cut = bear_option_estimates(scores.bear, p.relations, p.seed, repeats=p.repeats)
    mean_est = factor_estimates(scores.factor, "mean")
    n = worker_count(est["model"].nunique(), len(scores.factor) + len(scores.bear), workers)
    f = assemble(
        map_models(
            partial(model_frames, params=p), [est, whole, cut, mean_est], workers=n, ray=ray
        ),
        est,
        mean_est,
    )
    summ = f["summary"]
    summ.insert(1, "objective", summ["model"].map(kinds))
    gains, comparisons = gain_comparisons(whole, cut, est, clms, p.n_bootstrap, p.seed)
    per_subset = est.groupby(["model", "dataset"])["instance"].nunique()
    return FactorResult(
        params=p,
        objectives=kinds,
        clms=clms,
        items=scores.items,
        n_items=int(per_subset.max()),
        cost=scores.cost,
        summary=summ,
        table=table4(summ),
        intervals=interval_rows(summ),
        margin_vs_base=f["margin_vs_base"],
        n_bear=int(whole[["dataset", "relation", "instance"]].drop_duplicates().shape[0]),
        n_bear_one_to_one=int(cut[["dataset", "relation", "instance"]].drop_duplicates().shape[0])
        if len(cut)
        else 0,
        bear=f["bear"],
        bear_cut=f["bear_cut"] if len(cut) else bear_cut_summary(cut),
        higher_ace=higher_ace(whole, est, clms, p.n_bootstrap, p.seed),
        gains=gains,
        gain_comparisons=comparisons,
        paper_means=table4_means(),
        mean_reduction=f["mean_reduction"],
    )


def model_frames(
    est: pd.DataFrame, whole: pd.DataFrame, cut: pd.DataFrame, mean_est: pd.DataFrame, params
) -> dict[str, pd.DataFrame]:
    """The steps of :func:`analyse` that look at one model at a time, on its FACTOR estimates
    (Sum and Mean reductions) and its BEAR estimates (whole answer spaces, 1:1 relations cut):
    each model's frames are the same on its rows alone as on every model's (each interval draws
    its resamples from ``params.seed`` alone). :func:`assemble` puts the models' together."""
    p = params
    return {
        "summary": factor_summary(est, p.n_bootstrap, p.seed),
        "margin_vs_base": margin_vs_base(est, ("ace", "brier"), p.n_bootstrap, p.seed),
        "bear": bear_summary(whole, p.n_bootstrap, p.seed),
        "bear_cut": bear_cut_summary(cut, p.n_bootstrap, p.seed) if len(cut) else None,
        "mean_reduction": mean_reduction_flatness(mean_est, p.n_bootstrap, p.seed),
    }


def assemble(parts: list[dict], est: pd.DataFrame, mean_est: pd.DataFrame) -> dict:
    """The frames of :func:`model_frames` of each model, one model after the other, in the
    order one call on every model's estimates gives them (``est``, ``mean_est``: those)."""
    f = {k: concat_parts(parts, k) for k in parts[0]}
    for key in ("summary", "bear", "bear_cut"):  # grouped by model first, sorted
        if f[key] is not None:
            f[key] = by_sorted(f[key])
    f["margin_vs_base"] = in_first_seen_order(f["margin_vs_base"], est, ["model", "dataset"])
    subsets = mean_est[["model", "dataset"]].assign(subset=mean_est["dataset"].map(subset_name))
    f["mean_reduction"] = in_first_seen_order(f["mean_reduction"], subsets, ["model", "subset"])
    return f


def run(params: Params) -> FactorResult:
    """The FACTOR chapter with ``params``: score FACTOR
    (:func:`~calib.experiments.factor.scoring.score_factor`) and the BEAR sample
    (:func:`calib.scoring.run.score_bear`; both through the score cache), then :func:`analyse`.

    Parameters
    ----------
    params : calib.experiments.factor.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.factor.FactorResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    factor, factor_scores, cost = score_factor(
        p.models,
        p.factor_subsets,
        p.factor_items,
        p.seed,
        p.factor_max_tokens,
        p.factor_completion_words,
    )
    bear = score_bear(
        list(p.models),
        PLAIN,
        p.per_relation,
        p.seed,
        list(p.relations) if p.relations else None,
        progress=False,
    )
    scores = FactorScores(factor=factor_scores, bear=bear, items=factor.skip_counts(), cost=cost)
    return analyse(scores, p)
