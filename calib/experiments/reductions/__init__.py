"""The reductions chapter (Kissling et al. 2026, Appendix C, Figures 7-8): the worked example of
a chapter unit (see ``CONTRIBUTING.md``).

A statement's token log-probabilities can be reduced to one sentence score in four ways
(:mod:`calib.confidence.reductions`): ``sum`` and ``mean`` over all tokens, ``sum-answer`` and
``mean-answer`` over the answer tokens only. The paper compares them by accuracy, ACE of
Base-Confidence on the plain template and their harmonic mean ``H`` (averaged per objective,
CLM / MLM; Figure 7) and shows how each shifts the distribution of Base-Confidence (Figure 8).

The unit: :class:`Params` (the chapter's parameters, the only home of their defaults),
:func:`run` (``Params`` -> :class:`ReductionsResult`, every frame the page shows: score the
plain template, then :func:`analyse`), :func:`analyse` (a score table -> the result, no model,
no disk) and ``CLAIMS`` (the paper's claims of Appendix C, each judged on the authors' numbers
and on this build's recorded result). The package:

===================================================  =========================================
module                                               holds
===================================================  =========================================
:mod:`~calib.experiments.reductions.tables`          Figure 7: accuracy, ACE and H per model
                                                     and reduction
                                                     (:func:`~calib.experiments.reductions.tables.reduction_table`,
                                                     with bootstrap intervals and ACE's noise
                                                     floor, beyond the paper), the
                                                     means per objective
                                                     (:func:`~calib.experiments.reductions.tables.objective_means`,
                                                     also of the authors' values), their
                                                     floors and the paired differences of one
                                                     reduction against another
                                                     (:func:`~calib.experiments.reductions.tables.objective_differences`)
:mod:`~calib.experiments.reductions.distributions`   Figure 8: Base-Confidence histograms per
                                                     model and reduction, and each
                                                     distribution's largest value and
                                                     skewness with an interval
:mod:`~calib.experiments.reductions.claims`          the claims of Appendix C: their rules,
                                                     the authors' evidence and this build's,
                                                     and ``CLAIMS``
===================================================  =========================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar

import pandas as pd

from calib.confidence.reductions import REDUCTIONS
from calib.data.bear import PLAIN
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.per_model import (
    concat_parts,
    in_first_seen_order,
    map_models,
    worker_count,
)
from calib.experiments.reductions.claims import CLAIMS
from calib.experiments.reductions.distributions import (
    confidence_histograms,
    confidence_shape,
    upper_percentile_differences,
)
from calib.experiments.reductions.tables import (
    FIGURE7_METRICS,
    MEANS,
    REDUCTION_LABELS,
    SUMS,
    authors_means,
    base_estimates,
    model_differences,
    objective_differences,
    objective_floors,
    objective_means,
    reduction_table,
)
from calib.experiments.scores import objectives as model_objectives

__all__ = [
    "CLAIMS",
    "FIGURE7_METRICS",
    "REDUCTIONS",
    "REDUCTION_LABELS",
    "Params",
    "ReductionsResult",
    "analyse",
    "objective_differences",
    "objective_floors",
    "objective_means",
    "run",
]


@dataclass(frozen=True)
class Params(ChapterParams):
    """The reductions chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "reductions"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        3, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the BEAR sample and of every bootstrap")
    n_bootstrap: int = parameter(
        1000, "bootstrap resamples behind every interval (accuracy, ACE, H, skewness)"
    )
    histogram_bins: int = parameter(20, "equal-width bins of the confidence histograms (Figure 8)")

    @property
    def all_of_bear(self) -> bool:
        """Whether the sample is the whole of BEAR (every relation, every instance)."""
        return self.relations is None and self.per_relation is None


@dataclass(frozen=True)
class ReductionsResult:
    """Every frame and number the reductions page shows (:func:`run`)."""

    params: Params
    #: model -> ``clm`` / ``mlm``
    objectives: dict[str, str]
    #: relations and facts per model of the sample
    n_relations: int
    n_facts: int
    #: :func:`~calib.experiments.reductions.tables.reduction_table`
    table: pd.DataFrame
    #: :func:`~calib.experiments.reductions.tables.objective_means` of ``table`` (Figure 7)
    means: pd.DataFrame
    #: :func:`~calib.experiments.reductions.tables.objective_differences` of H, Sum against each
    #: other reduction
    h_differences: pd.DataFrame
    #: :func:`~calib.experiments.reductions.tables.objective_differences` of ACE and accuracy, Mean
    #: and Mean (A) against the sums
    mean_vs_sum: pd.DataFrame
    #: :func:`~calib.experiments.reductions.distributions.confidence_histograms` (Figure 8)
    histograms: pd.DataFrame
    #: :func:`~calib.experiments.reductions.distributions.confidence_shape`
    shape: pd.DataFrame
    #: :func:`~calib.experiments.reductions.tables.authors_means`: Figure 7's means from the
    #: authors' repository (reported values)
    authors_means: pd.DataFrame
    #: :func:`~calib.experiments.reductions.tables.objective_floors`: the mean ACE of ``means`` with
    #: its interval and noise floor (beyond the paper; last, with an empty default, so results built
    #: by hand need not name it)
    mean_floors: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: :func:`~calib.experiments.reductions.tables.model_differences` of ACE, Mean and Mean (A)
    #: against Sum, per model (the claims of Appendix C about low- and high-accuracy models)
    model_differences: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: :func:`~calib.experiments.reductions.distributions.upper_percentile_differences`: the 99th
    #: percentile of C_Base under Mean and Mean (A) against Sum, per model
    percentile_differences: pd.DataFrame = field(default_factory=pd.DataFrame)


def analyse(
    scores: pd.DataFrame,
    params: Params,
    objectives: Mapping[str, str] | None = None,
    workers: int | None = None,
    ray: str | None = None,
) -> ReductionsResult:
    """The reductions chapter on a score table: every step of the package on the Base estimates
    of each reduction. No model, no disk: :func:`run` scores BEAR first, then calls this.

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table (:mod:`calib.scoring.schema`) of the plain template for the models of
        ``params.models``, on one sample of facts.
    params : calib.experiments.reductions.Params
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
    calib.experiments.reductions.ReductionsResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    objectives = model_objectives(list(p.models)) if objectives is None else dict(objectives)
    n = worker_count(scores["model"].nunique(), len(scores), workers)
    f = assemble(map_models(partial(model_frames, params=p, objectives=objectives), scores, n, ray))
    est, table = f["est"], f["table"]
    others = [r for r in REDUCTIONS if r != "sum"]
    mean_vs_sum = pd.concat(
        [
            objective_differences(
                est,
                objectives,
                [(m, s) for m in MEANS for s in SUMS],
                metric,
                p.n_bootstrap,
                p.seed,
            )
            for metric in ("ace", "accuracy")
        ],
        ignore_index=True,
    )
    return ReductionsResult(
        params=p,
        objectives=objectives,
        n_relations=int(scores["relation"].nunique()),
        n_facts=int(table["n"].iloc[0]),
        table=table,
        means=objective_means(table),
        mean_floors=objective_floors(est, objectives, p.n_bootstrap, p.seed),
        h_differences=objective_differences(
            est, objectives, [("sum", r) for r in others], "H", p.n_bootstrap, p.seed
        ),
        mean_vs_sum=mean_vs_sum,
        histograms=f["histograms"],
        shape=f["shape"],
        authors_means=authors_means(),
        model_differences=f["model_differences"],
        percentile_differences=f["percentile_differences"],
    )


def model_frames(
    scores: pd.DataFrame, params: Params, objectives: Mapping[str, str]
) -> dict[str, pd.DataFrame]:
    """The steps of :func:`analyse` that look at one model at a time, on its score table (or
    several models': each model's frames are the same either way, every interval drawing from
    ``params.seed`` alone): Base under each reduction, Appendix C's table, the histograms and
    shape of the confidences, the differences between reductions per model.
    :func:`assemble` puts the models' together."""
    p = params
    est = base_estimates(scores)
    pairs = [(m, "sum") for m in MEANS]
    return {
        "est": est,
        "table": reduction_table(
            scores, objectives, n_bootstrap=p.n_bootstrap, seed=p.seed, est=est
        ),
        "histograms": confidence_histograms(scores, objectives, bins=p.histogram_bins),
        "shape": confidence_shape(est, p.n_bootstrap, p.seed),
        "model_differences": model_differences(est, pairs, "ace", p.n_bootstrap, p.seed),
        "percentile_differences": upper_percentile_differences(
            est, pairs, n_bootstrap=p.n_bootstrap, seed=p.seed
        ),
    }


def assemble(parts: list[dict]) -> dict[str, pd.DataFrame]:
    """The frames of :func:`model_frames` of each model, one model after the other, in the
    order one call on every model's scores gives them: the estimates reduction by reduction,
    each sorted by model (as :func:`calib.confidence.estimators.base` gives them), the steps
    over the estimates in their order; the table and histograms in the scores' order."""
    f = {k: concat_parts(parts, k) for k in parts[0]}
    rank = {r: i for i, r in enumerate(REDUCTIONS)}
    est = f["est"].assign(_r=f["est"]["reduction"].map(rank))
    f["est"] = (
        est.sort_values(["_r", "model"], kind="stable").drop(columns="_r").reset_index(drop=True)
    )
    f["shape"] = in_first_seen_order(f["shape"], f["est"], ["model", "reduction"])
    for key in ("model_differences", "percentile_differences"):
        f[key] = in_first_seen_order(f[key], f["est"], ["model"])
    return f


def run(params: Params) -> ReductionsResult:
    """The reductions chapter with ``params``: score the plain template
    (:func:`calib.scoring.run.score_bear`, shared with the other BEAR chapters through the
    score cache), then :func:`analyse`.

    Parameters
    ----------
    params : calib.experiments.reductions.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.reductions.ReductionsResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    scores = score_bear(
        list(p.models), PLAIN, p.per_relation, p.seed, list(p.relations) if p.relations else None
    )
    return analyse(scores, p)
