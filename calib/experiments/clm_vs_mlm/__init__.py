"""The causal-against-masked chapter (Kissling et al. 2026, §5.3, Table 2; §1's "reliability
gap"): a chapter unit (see ``CONTRIBUTING.md``).

Comparing the calibration of a causal (CLM) and a masked (MLM) model is only fair when they know
about as much, so models are *paired by accuracy* first
(:func:`~calib.experiments.clm_vs_mlm.pairing.pair_models`), then the Brier scores of Margin (Eq. 2)
and Average (Eq. 3, min aggregation) are compared within each pair on the same instances
(:func:`~calib.experiments.clm_vs_mlm.tables.pair_table`,
:func:`~calib.experiments.clm_vs_mlm.differences.pair_differences`).

**Pairing rule** (``PAIRING_RULE``): accuracy is that of the Base prediction averaged over all
templates scored (the five paraphrases; Table 2's caption: "Accuracy (in %) is the average over all
templates"; :func:`~calib.experiments.clm_vs_mlm.pairing.template_accuracy`), per model and *scope*:
by default the whole probe (``pair_within="probe"``, as the caption reads), or, as an option, BEAR's
knowledge domains (``pair_within="domain"``: each CLM is paired with an MLM on the domain where the
two are most alike, as a notebook in the authors' repository does). Repeatedly, among the models not
paired yet, the (CLM, MLM, scope) with the smallest accuracy gap becomes a pair (ties: by scope,
then names); so each model is in at most one pair. "Similar accuracies" (§5.3) is enforced: a pair
whose gap exceeds ``max_gap`` is not formed. The default, 0.015, comes from Table 2
(:func:`~calib.experiments.clm_vs_mlm.claims.table2_gaps`): its largest printed gap is 1.3 points
(gemma-3-270m-it 15.5%, ModernBERT-base 16.8%; the other five pairs are within 0.4), rounded up to
the half point since the printed accuracies have one decimal. Scopes with fewer than
``min_instances`` instances are not used.

The unit: :class:`Params`, :func:`run` (``Params`` -> :class:`ClmVsMlmResult`: score the five
paraphrases, then :func:`analyse`), :func:`analyse` (a score table -> the result, no model, no
score store) and ``CLAIMS`` (§5.3 and §1, each judged on Table 2 as printed and on this build's
result). The package:

================================================  ==================================================
module                                            holds
================================================  ==================================================
:mod:`~calib.experiments.clm_vs_mlm.pairing`      accuracy averaged over the five paraphrases per
                                                  model and scope, with a BCa interval over
                                                  instances
                                                  (:func:`~calib.experiments.clm_vs_mlm.pairing.template_accuracy`),
                                                  the pairs (closest accuracy first, within
                                                  ``max_gap``:
                                                  :func:`~calib.experiments.clm_vs_mlm.pairing.pair_models`)
                                                  and the pairs ``max_gap`` prevents, with their
                                                  gaps
:mod:`~calib.experiments.clm_vs_mlm.tables`       Margin and Average/min per instance, every model
                                                  on the whole sample (accuracies and Brier scores
                                                  with intervals), Table 2's layout for this build's
                                                  pairs, and this build's values for Table 2's pairs
                                                  it ran
:mod:`~calib.experiments.clm_vs_mlm.differences`  Brier(CLM) - Brier(MLM) per pair and estimator
                                                  (paired bootstrap over the pair's instances), the
                                                  mean over pairs of Brier(MLM) - Brier(CLM) per
                                                  estimator (paired bootstrap over the sample's
                                                  facts), and the chart's bars
:mod:`~calib.experiments.clm_vs_mlm.claims`       the claims of §5.3 and §1: their rules, Table 2's
                                                  evidence as printed and this build's, and
                                                  ``CLAIMS``
================================================  ==================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

import pandas as pd

from calib.confidence import sentence_scores
from calib.data.reported import reported
from calib.experiments.clm_vs_mlm.claims import CLAIMS, no_pair_reason, table2_gaps
from calib.experiments.clm_vs_mlm.differences import (
    brier_bars,
    mean_pair_differences,
    pair_differences,
)
from calib.experiments.clm_vs_mlm.pairing import (
    left_out_pairs,
    pair_models,
    relation_domains,
    template_accuracy,
)
from calib.experiments.clm_vs_mlm.tables import (
    TABLE2_INTERVALS,
    clm_mlm_estimates,
    model_table,
    pair_table,
    paper_pairs,
)
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.per_model import by_sorted, concat_parts, map_models, worker_count
from calib.experiments.scores import facts_per_model
from calib.experiments.scores import objectives as model_objectives

__all__ = [
    "CLAIMS",
    "TABLE2_INTERVALS",
    "ClmVsMlmResult",
    "Params",
    "analyse",
    "brier_bars",
    "no_pair_reason",
    "run",
    "table2_gaps",
]


@dataclass(frozen=True)
class Params(ChapterParams):
    """The clm_vs_mlm chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "clm_vs_mlm"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"),
        "models of either objective (registry names or hub ids)",
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        3, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the BEAR sample and of every bootstrap")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    pair_within: str = parameter(
        "probe", 'pair on accuracy over the whole probe ("probe", Table 2) or per "domain"'
    )
    min_instances: int = parameter(10, "a domain needs this many instances to host a pair")
    max_gap: float | None = parameter(
        0.015, "largest accuracy gap of a pair (Table 2's largest is 0.013; None: no limit)"
    )


@dataclass(frozen=True)
class ClmVsMlmResult:
    """Every frame and number the clm_vs_mlm page shows (:func:`run`)."""

    params: Params
    #: model -> ``clm`` / ``mlm``
    objectives: dict[str, str]
    #: relations and facts per model of the sample
    n_relations: int
    n_facts: int
    #: :func:`~calib.experiments.clm_vs_mlm.tables.model_table` (whole sample, with the accuracy
    #: over all templates)
    model_rows: pd.DataFrame
    #: :func:`~calib.experiments.clm_vs_mlm.pairing.template_accuracy` on the pairing scope
    accuracy: pd.DataFrame
    #: :func:`~calib.experiments.clm_vs_mlm.pairing.pair_models` (within ``max_gap``)
    pairs: pd.DataFrame
    #: :func:`~calib.experiments.clm_vs_mlm.pairing.left_out_pairs`: the pairs ``max_gap`` prevents
    left_out: pd.DataFrame
    #: :func:`~calib.experiments.clm_vs_mlm.tables.pair_table`
    pair_rows: pd.DataFrame
    #: :func:`~calib.experiments.clm_vs_mlm.differences.pair_differences`
    differences: pd.DataFrame
    #: :func:`~calib.experiments.clm_vs_mlm.differences.mean_pair_differences`
    mean_differences: pd.DataFrame
    #: :func:`~calib.experiments.clm_vs_mlm.tables.paper_pairs`: this build's values for Table 2's
    #: pairs whose two models it ran
    paper_pairs: pd.DataFrame


def analyse(
    scores: pd.DataFrame,
    params: Params,
    objectives: Mapping[str, str] | None = None,
    workers: int | None = None,
    ray: str | None = None,
) -> ClmVsMlmResult:
    """The chapter on a score table: estimate Base, Margin and Average/min, pair the models by
    their accuracy over all templates and compare each pair's Brier scores. No model, no score
    store: :func:`run` scores BEAR first, then calls this.

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table (:mod:`calib.scoring.schema`) of the five paraphrases of BEAR for the
        models of ``params.models``, on one sample of facts (of ``params.relations``, whose
        knowledge domains come from BEAR's data).
    params : calib.experiments.clm_vs_mlm.Params
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
    calib.experiments.clm_vs_mlm.ClmVsMlmResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    relations = list(p.relations) if p.relations else None
    objectives = model_objectives(list(p.models)) if objectives is None else dict(objectives)
    domains = relation_domains(relations)
    n = worker_count(scores["model"].nunique(), len(scores), workers)
    step = partial(model_frames, params=p, objectives=objectives, domains=domains)
    f = assemble(map_models(step, scores, n, ray))
    est, whole = f["est"], f["whole"]
    acc = whole if p.pair_within == "probe" else f["acc"]
    rows = model_table(est, objectives, p.n_bootstrap, p.seed, accuracy=whole)
    pairs = pair_models(acc, p.max_gap, p.min_instances)
    return ClmVsMlmResult(
        params=p,
        objectives=objectives,
        n_relations=int(scores["relation"].nunique()),
        n_facts=facts_per_model(scores),
        model_rows=rows,
        accuracy=acc,
        pairs=pairs,
        left_out=left_out_pairs(acc, pairs, p.min_instances),
        pair_rows=pair_table(
            est, pairs, domains, p.pair_within, p.n_bootstrap, p.seed, accuracy=acc
        ),
        differences=pair_differences(est, pairs, domains, p.pair_within, p.n_bootstrap, p.seed),
        mean_differences=mean_pair_differences(
            est, pairs, domains, p.pair_within, p.n_bootstrap, p.seed
        ),
        paper_pairs=paper_pairs(reported("kissling2026_table2"), rows, whole),
    )


def model_frames(
    scores: pd.DataFrame, params: Params, objectives: Mapping[str, str], domains: pd.DataFrame
) -> dict[str, pd.DataFrame | None]:
    """The steps of :func:`analyse` that look at one model at a time, on its score table (or
    several models': each model's frames are the same either way): its sentence scores, only
    here (the largest table of the chapter: every paraphrase and option), Base, Margin and
    Average/min, and its accuracy over the templates (``whole``, and ``acc`` within the pairing
    scope when that is not the whole probe). :func:`assemble` puts the models' together."""
    p = params
    sent = sentence_scores(scores)
    acc = None
    if p.pair_within != "probe":
        acc = template_accuracy(
            sent, objectives, domains, p.pair_within, n_boot=p.n_bootstrap, seed=p.seed
        )
    return {
        "est": clm_mlm_estimates(sent),
        "whole": template_accuracy(
            sent, objectives, domains, "probe", n_boot=p.n_bootstrap, seed=p.seed
        ),
        "acc": acc,
    }


def assemble(parts: list[dict]) -> dict[str, pd.DataFrame | None]:
    """The frames of :func:`model_frames` of each model, one model after the other, in the
    order one call on every model's scores gives them: the estimates estimator by estimator,
    each sorted by model (as :func:`calib.confidence.estimators.all_estimates` gives them), the
    accuracies sorted by model."""
    f = {k: concat_parts(parts, k) for k in parts[0]}
    est = f["est"]
    if est is not None and len(est):
        rank = {e: i for i, e in enumerate(dict.fromkeys(parts[0]["est"]["estimator"]))}
        est = est.assign(_e=est["estimator"].map(rank))
        f["est"] = (
            est.sort_values(["_e", "model"], kind="stable")
            .drop(columns="_e")
            .reset_index(drop=True)
        )
    for key in ("whole", "acc"):
        if f[key] is not None:
            f[key] = by_sorted(f[key])
    return f


def run(params: Params) -> ClmVsMlmResult:
    """The chapter with ``params``: score the five paraphrases
    (:func:`calib.scoring.run.score_bear`, shared with the calibration chapter through the
    score cache), then :func:`analyse` (estimate Base, Margin and Average/min, pair the models
    by their accuracy over all templates and compare each pair's Brier scores).

    Parameters
    ----------
    params : calib.experiments.clm_vs_mlm.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.clm_vs_mlm.ClmVsMlmResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    relations = list(p.relations) if p.relations else None
    scores = score_bear(list(p.models), "paraphrase-0..4", p.per_relation, p.seed, relations)
    return analyse(scores, p)
