"""The number of answer options (Kissling et al. 2026, §5.2, Figures 3 and 4).

BEAR's 1:1 relations have 60 options per instance. Cutting the answer space to ``k`` options (the
correct one always kept, the others drawn at random:
:func:`calib.confidence.subsample.subsample_options`) from the *stored* scores, with no rescoring,
shows how Base confidence, accuracy and ACE move with the size of the answer space (Figure 3; each
point the mean over ``repeats`` seeded draws of the options, as the paper's "mean over three
repeated samplings"). At ``k = 5`` BEAR's 1:1 relations are set beside FACTOR's four options for the
same models (Figure 4; FACTOR is scored with :func:`calib.experiments.factor.scoring.score_factor`,
the FACTOR chapter's scoring, so the two chapters share the stored scores).

The unit: :class:`Params`, :func:`run` (``Params`` -> :class:`AnswerSetResult`: score, then
:func:`analyse`), :func:`analyse` (:class:`AnswerSetScores` -> the result, no model, no score
store) and ``CLAIMS`` (§5.2's claims). The package:

============================================  ======================================================
module                                        holds
============================================  ======================================================
:mod:`~calib.experiments.answer_set.curves`   Figure 3: the plain template's scores on the sample's
                                              1:1 relations, Base and Margin per model, ``k`` and
                                              draw of the options, the curve's points (per model,
                                              estimator and ``k`` the mean over the draws of
                                              confidence, accuracy and ACE with 95% intervals over
                                              instances, the draws' spread, ACE's floor), the same
                                              one row per plotted metric, and the authors' curves
:mod:`~calib.experiments.answer_set.groups`   each model's group of §5.2 (a CLM under 1B parameters,
                                              a CLM of 1B or more, an MLM) and its size
:mod:`~calib.experiments.answer_set.changes`  the changes the claims are about (ACE and the signed
                                              gap from one ``k`` to another, paired bootstrap
                                              intervals), a larger model's fall of ACE against the
                                              small CLMs', and the same changes in the authors'
                                              repository's data
:mod:`~calib.experiments.answer_set.figure4`  Figure 4: BEAR 1:1 with 5 options beside FACTOR per
                                              model, and FACTOR's ACE against the BEAR (5 options)
                                              line
:mod:`~calib.experiments.answer_set.claims`   the claims of §5.2: their rules, the paper's evidence
                                              (Figure 3 prints none) and this build's, and
                                              ``CLAIMS``
============================================  ======================================================

Intervals of a mean over draws, or of a difference between two ``k``, come from one bootstrap over
the instances applied to every draw and every ``k`` (the draws are of the *options*, the bootstrap
of the *instances*: :func:`calib.confidence.combined.combined_interval`). The spread of the draws
(their minimum and maximum) is shown too but is not an interval. The changes between two ``k`` are
on the same instances and judged on the raw ACE, as the paper measures it (the change of the
debiased ACE beside it, beyond the paper); Figure 4 sets samples of different sizes side by side
(BEAR's 1:1 facts, FACTOR's items), whose raw ACEs carry different noise floors, so
:func:`~calib.experiments.answer_set.figure4.relation_offsets` works on debiased ACEs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

import pandas as pd

from calib.confidence.reductions import sentence_scores
from calib.data.reported import reported
from calib.experiments.answer_set.changes import authors_changes, less_pronounced, option_changes
from calib.experiments.answer_set.claims import CLAIMS
from calib.experiments.answer_set.curves import (
    K_GRID,
    answer_set_scores,
    curve_long,
    curve_points,
    curve_table,
    option_estimates,
    reported_curve,
)
from calib.experiments.answer_set.figure4 import BEAR_OPTIONS, figure4_points, relation_offsets
from calib.experiments.answer_set.groups import model_groups, model_sizes
from calib.experiments.factor.scoring import FACTOR_MAX_TOKENS, factor_estimates, score_factor
from calib.experiments.factor.tables import factor_summary
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.per_model import by_sorted, concat_parts, map_models, worker_count
from calib.experiments.scores import objectives as model_objectives

__all__ = [
    "CLAIMS",
    "AnswerSetResult",
    "AnswerSetScores",
    "Params",
    "analyse",
    "curve_table",
    "run",
]


@dataclass(frozen=True)
class Params(ChapterParams):
    """The answer-set chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "answer_set"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(
        None, "BEAR relations to draw from (the 1:1 ones are used; None: all 60)"
    )
    per_relation: int | None = parameter(
        3, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the samples, the option draws and every bootstrap")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    ks: tuple[int, ...] = parameter(K_GRID, "answer-space sizes k")
    repeats: int = parameter(3, "seeded draws of the options per k")
    factor_subsets: tuple[str, ...] = parameter(("news", "expert"), "FACTOR subsets for Figure 4")
    factor_items: int | None = parameter(30, "FACTOR items per subset (as in the FACTOR chapter)")
    factor_max_tokens: int | None = parameter(
        FACTOR_MAX_TOKENS, "FACTOR statements keep their last N tokens (as FACTOR cuts)"
    )
    factor_completion_words: int | None = parameter(
        None, "leave out FACTOR items with longer completions"
    )


@dataclass(frozen=True)
class AnswerSetResult:
    """Every frame and number the answer-set page shows (:func:`run`)."""

    params: Params
    #: model -> ``clm`` / ``mlm``; model -> millions of parameters (None: unknown); model ->
    #: one of :data:`~calib.experiments.answer_set.groups.GROUPS` ("" when its size is unknown)
    objectives: dict[str, str]
    sizes: dict[str, float | None]
    groups: dict[str, str]
    #: the 1:1 relations of the sample and its instances per model
    relations: list[str]
    n_instances: int
    #: :func:`~calib.experiments.answer_set.curves.curve_points` (Figure 3's points, Base and
    #: Margin) and :func:`~calib.experiments.answer_set.curves.curve_long` (chart)
    points: pd.DataFrame
    curve: pd.DataFrame
    #: :func:`~calib.experiments.answer_set.changes.option_changes` and
    #: :func:`~calib.experiments.answer_set.changes.less_pronounced`
    changes: pd.DataFrame
    less_pronounced: pd.DataFrame
    #: FACTOR items per model and subset behind Figure 4
    n_factor_items: int
    #: :func:`~calib.experiments.answer_set.figure4.figure4_points` and
    #: :func:`~calib.experiments.answer_set.figure4.relation_offsets`
    figure4: pd.DataFrame
    offsets: pd.DataFrame
    #: the authors' repository's subsampling data
    #: (:func:`~calib.experiments.answer_set.curves.reported_curve`) and
    #: :func:`~calib.experiments.answer_set.changes.authors_changes`
    authors_curve: pd.DataFrame
    authors: pd.DataFrame

    @property
    def n_facts(self) -> int:
        """Facts per model: the 1:1 instances of the sample (what the intervals narrow with,
        for the facts that would decide an open verdict, :mod:`calib.experiments.decide`)."""
        return self.n_instances


@dataclass(frozen=True)
class AnswerSetScores:
    """What :func:`analyse` takes: the chapter's two score tables, as :func:`run` fills them."""

    #: the score table (:mod:`calib.scoring.schema`) of every model on BEAR's plain template
    #: for the sample's 1:1 relations
    #: (:func:`~calib.experiments.answer_set.curves.answer_set_scores`)
    bear: pd.DataFrame
    #: the score table of every model on the sampled FACTOR items
    #: (:func:`calib.experiments.factor.scoring.score_factor`, shared with the FACTOR chapter)
    factor: pd.DataFrame


def analyse(
    scores: AnswerSetScores,
    params: Params,
    objectives: Mapping[str, str] | None = None,
    sizes: Mapping[str, float | None] | None = None,
    workers: int | None = None,
    ray: str | None = None,
) -> AnswerSetResult:
    """The answer-set chapter on given scores: the answer spaces cut to each ``k``, Figure 3's
    curves, the changes the claims are about, and Figure 4 (BEAR with five options beside
    FACTOR). No model, no score store: :func:`run` scores first, then calls this.

    Parameters
    ----------
    scores : calib.experiments.answer_set.AnswerSetScores
        The BEAR and FACTOR score tables.
    params : calib.experiments.answer_set.Params
        The chapter's parameters.
    objectives : Mapping[str, str] or None
        Model -> ``clm`` / ``mlm``; by default from the registry
        (:func:`calib.experiments.scores.objectives`: a model it does not list is looked up in
        its configuration).
    sizes : Mapping[str, float or None] or None
        Model -> millions of parameters (None: unknown); by default from the registry
        (:func:`~calib.experiments.answer_set.groups.model_sizes`).
    workers : int or None
        Processes for the per-model steps (:func:`calib.experiments.per_model.worker_count`:
        by default one per CPU on a large table, else this process).
    ray : str or None
        A Ray cluster's address for the per-model steps (by default ``$CALIB_RAY``; None: no
        Ray).

    Returns
    -------
    calib.experiments.answer_set.AnswerSetResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    kinds = model_objectives(list(p.models)) if objectives is None else dict(objectives)
    sizes = model_sizes(p.models) if sizes is None else dict(sizes)
    groups = model_groups(kinds, sizes)
    sent = sentence_scores(scores.bear)
    est = option_estimates(sent, sorted(set(p.ks) | {BEAR_OPTIONS}), p.repeats, p.seed)
    factor_est = factor_estimates(scores.factor)
    n = worker_count(est["model"].nunique(), len(scores.bear) + len(scores.factor), workers)
    f = assemble(
        map_models(
            partial(model_frames, params=p, objectives=kinds, groups=groups),
            [est, factor_est],
            workers=n,
            ray=ray,
        )
    )
    points, fac_summary = f["points"], f["factor_summary"]
    clms = [m for m in p.models if kinds[m] == "clm"]
    shown = points[points["k"].isin(p.ks)].reset_index(drop=True)
    curve_est = est[est["k"].isin(p.ks)]
    return AnswerSetResult(
        params=p,
        objectives=kinds,
        sizes=sizes,
        groups=groups,
        relations=sorted(sent["relation"].unique()),
        n_instances=int(sent[["relation", "instance"]].drop_duplicates().shape[0]),
        points=shown,
        curve=curve_long(shown),
        changes=f["changes"],
        less_pronounced=less_pronounced(curve_est, p.ks, groups, p.n_bootstrap, p.seed),
        n_factor_items=int(factor_est.groupby(["model", "dataset"])["instance"].nunique().max()),
        figure4=figure4_points(points, fac_summary),
        offsets=relation_offsets(est, factor_est, clms, BEAR_OPTIONS, p.n_bootstrap, p.seed),
        authors_curve=reported_curve(reported("kissling2026_repo_answer_space_subsampling")),
        authors=authors_changes(),
    )


def model_frames(
    est: pd.DataFrame,
    factor_est: pd.DataFrame,
    params: Params,
    objectives: Mapping[str, str],
    groups: Mapping[str, str],
) -> dict[str, pd.DataFrame | None]:
    """The steps of :func:`analyse` that look at one model at a time, on its estimates on BEAR
    (every ``k`` and draw) and on FACTOR: Figure 3's points, the changes between two ``k``,
    Table 4's summary for Figure 4. Each model's frames are the same on its rows alone as on
    every model's (each interval draws its resamples from ``params.seed`` alone);
    :func:`assemble` puts the models' together."""
    p = params
    curve_est = est[est["k"].isin(p.ks)]
    return {
        "points": curve_points(est, objectives, p.n_bootstrap, p.seed) if len(est) else None,
        "changes": option_changes(curve_est, p.ks, groups, p.n_bootstrap, p.seed)
        if len(est)
        else None,
        "factor_summary": factor_summary(factor_est, p.n_bootstrap, p.seed, objectives)
        if len(factor_est)
        else None,
    }


def assemble(parts: list[dict]) -> dict[str, pd.DataFrame]:
    """The frames of :func:`model_frames` of each model, one model after the other, in the
    order one call on every model's estimates gives them (the BEAR estimates' models first
    seen first; Table 4's summary sorted by model)."""
    f = {k: concat_parts(parts, k) for k in parts[0]}
    if f["factor_summary"] is not None:
        f["factor_summary"] = by_sorted(f["factor_summary"])
    return f


def run(params: Params) -> AnswerSetResult:
    """The answer-set chapter with ``params``: score the plain template on the sample's 1:1
    relations (:func:`~calib.experiments.answer_set.curves.answer_set_scores`) and FACTOR
    (:func:`calib.experiments.factor.scoring.score_factor`), both through the score cache, then
    :func:`analyse`.

    Parameters
    ----------
    params : calib.experiments.answer_set.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.answer_set.AnswerSetResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    bear = answer_set_scores(p.models, p.relations, p.per_relation, p.seed, progress=False)
    _, factor_scores, _ = score_factor(
        p.models,
        p.factor_subsets,
        p.factor_items,
        p.seed,
        p.factor_max_tokens,
        p.factor_completion_words,
    )
    return analyse(AnswerSetScores(bear=bear, factor=factor_scores), p)
