"""The linguistic-confidence chapter (Kissling et al. 2026, §3.3, §6, Figures 5 and 6; Appendix
G, Figure 11; the Introduction's sentence on the scale-dependency of linguistic confidence).

Every BEAR instance is also scored with templates that *say* how sure the statement is:
``possibly``, ``certainly`` and ``numeric-0`` .. ``numeric-100`` ("I'm 25% confident ...").
A model that encoded what these words mean would be less confident under "possibly", more
under "certainly", and its confidence would rise with the stated number. The chapter compares
Base-Confidence (Eq. 1) under each injected template with the plain template (``paraphrase-0``)
on the same instances.

The unit (see ``CONTRIBUTING.md``): :class:`Params` (the only home of the chapter's defaults),
:func:`run` (``Params`` -> :class:`LinguisticResult`, every frame the page shows: the scores,
then :func:`analyse`), :func:`analyse` (a score table -> the result, no model, no disk) and
``CLAIMS`` (the claims of §6, Appendix G and the Introduction, each judged on the paper's
printed numbers and on this build's recorded result). The package, each step a pure function:

===============================================  ===================================================
module                                           holds
===============================================  ===================================================
:mod:`~calib.experiments.linguistic.injections`  Base-Confidence per instance under the plain and
                                                 the injected templates
                                                 (:func:`~calib.experiments.linguistic.injections.linguistic_estimates`),
                                                 accuracy, ACE (with its noise floor) and signed gap
                                                 per model and template, the change each injection
                                                 makes (ACE: Figure 5, accuracy: Figure 11, mean
                                                 confidence, signed gap; paired bootstrap
                                                 differences) and the ACE changes beside their
                                                 floors, reliability diagrams under plain / possibly
                                                 / certainly (Figure 6), the stated levels and
                                                 numeric-100 against numeric-0, Figure 6's legend of
                                                 the authors
:mod:`~calib.experiments.linguistic.grounding`   does each model move its confidence the way the
                                                 words say?
:mod:`~calib.experiments.linguistic.models`      family, size and instruction tuning of each model,
                                                 and the consecutive sizes of one family
:mod:`~calib.experiments.linguistic.scale`       per model: the mean accuracy drop under the
                                                 injections (sensitivity) and how far its confidence
                                                 follows the cues (alignment), the larger minus the
                                                 smaller model of each size pair, every cell's
                                                 accuracy change against a reference cell
:mod:`~calib.experiments.linguistic.claims`      the claims of §6, Appendix G and the Introduction:
                                                 their rules, their evidence from the paper's
                                                 printed numbers and from this build, and ``CLAIMS``
===============================================  ===================================================

Every interval is a 95% bootstrap interval over facts; statistics of several models or
templates use the same resamples (one seed), so their differences are paired.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import ClassVar

import pandas as pd

from calib.confidence.bootstrap import shared_resamples
from calib.confidence.noise_floor import N_DRAWS
from calib.data.bear import LINGUISTIC, PLAIN
from calib.experiments.linguistic.claims import CLAIMS, pairs_note
from calib.experiments.linguistic.grounding import grounding_checks, grounding_tally
from calib.experiments.linguistic.injections import (
    ace_changes,
    authors_legend,
    injection_effects,
    linguistic_estimates,
    numeric_differences,
    reliability,
    stated_levels,
    template_calibration,
)
from calib.experiments.linguistic.models import model_table, size_pairs
from calib.experiments.linguistic.scale import (
    LARGEST_DROP_CELL,
    alignment,
    drop_comparisons,
    largest_drop_cell,
    pair_differences,
    sensitivity,
)
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.per_model import by_first_seen, concat_parts, map_models

__all__ = [
    "CLAIMS",
    "LinguisticResult",
    "Params",
    "analyse",
    "grounding_tally",
    "pairs_note",
    "run",
]


@dataclass(frozen=True)
class Params(ChapterParams):
    """The linguistic chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "linguistic"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        1, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the BEAR sample, of every bootstrap and noise floor")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    floor_draws: int = parameter(
        N_DRAWS, "simulated perfectly calibrated outcome vectors behind each ACE's noise floor"
    )
    reduction: str = parameter(
        "sum", "sentence-score reduction (Appendix C; the paper's choice is sum)"
    )
    curve_bins: int = parameter(
        20, "equal-count bins of the calibration curves (the paper, §4.3: 20, as ACE)"
    )
    max_sentences: int = parameter(
        6, "write per-model sentences only up to this many models (the tables hold all)"
    )


@dataclass(frozen=True)
class LinguisticResult:
    """Every frame and number the linguistic page shows (:func:`run`)."""

    params: Params
    #: facts per model and template, and the relations they come from
    n_facts: int
    n_relations: int
    #: the injected templates, in order
    injected: list[str]
    #: :func:`~calib.experiments.linguistic.models.model_table`
    models: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.injections.template_calibration`
    calibration: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.injections.injection_effects`
    effects: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.injections.ace_changes`
    ace_changes: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.injections.reliability` (Figure 6): the curves with
    #: per-bin intervals, and the histograms
    curves: pd.DataFrame
    histograms: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.injections.stated_levels`
    levels: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.injections.numeric_differences`
    numeric: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.grounding.grounding_checks`
    grounding: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.models.size_pairs`
    pairs: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.scale.sensitivity` and its
    #: :func:`~calib.experiments.linguistic.scale.pair_differences`
    sensitivity: pd.DataFrame
    sensitivity_pairs: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.scale.alignment` and its
    #: :func:`~calib.experiments.linguistic.scale.pair_differences`
    alignment: pd.DataFrame
    alignment_pairs: pd.DataFrame
    #: :func:`~calib.experiments.linguistic.scale.drop_comparisons` against this build's largest
    #: accuracy drop and, where the build has gemma-7b, against Appendix G's cell (gemma-7b,
    #: numeric-25)
    drops: pd.DataFrame
    #: the injection effects of the authors' repository for Figure 6's earlier version
    #: (gemma-2b and gemma-7b legend values)
    authors_legend: pd.DataFrame


def run(params: Params) -> LinguisticResult:
    """The linguistic chapter with ``params``: score the plain and the seven injected templates
    (:func:`calib.scoring.run.score_bear`; the score cache keeps each (relation, template,
    instance) once, so the other BEAR chapters on the same sample share the plain scores), then
    :func:`analyse`.

    Parameters
    ----------
    params : calib.experiments.linguistic.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.linguistic.LinguisticResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    scores = score_bear(
        list(p.models),
        [PLAIN, *LINGUISTIC],
        p.per_relation,
        p.seed,
        list(p.relations) if p.relations else None,
    )
    return analyse(scores, p)


def analyse(
    scores: pd.DataFrame, params: Params, workers: int | None = None, ray: str | None = None
) -> LinguisticResult:
    """Every step of the chapter on a score table of the plain and the injected templates. No
    model, no disk: :func:`run` scores BEAR first, then calls this.

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table (:mod:`calib.scoring.schema`) of the plain template and the injected
        ones for the models of ``params.models``, on one sample of facts (each model's family
        and size come from the registry, by name).
    params : calib.experiments.linguistic.Params
        The chapter's parameters.
    workers : int or None
        Processes for the per-model steps (:func:`model_frames`, through
        :func:`calib.experiments.per_model.map_models`; default: its own choice); the result
        is a single process's.
    ray : str or None
        A Ray cluster's address to run those steps on instead (default: none).

    Returns
    -------
    calib.experiments.linguistic.LinguisticResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    parts = map_models(partial(model_frames, params=p), scores, workers=workers, ray=ray)
    f = {k: concat_parts(parts, k) for k in parts[0]}
    f["effects"] = by_first_seen(f["effects"], "quantity")  # quantity by quantity, as one call
    est, calibration, effects, numeric = f["est"], f["calibration"], f["effects"], f["numeric"]
    diagram = reliability(est, n_bins=p.curve_bins)
    models = model_table(list(dict.fromkeys(est["model"].unique())))
    pairs = size_pairs(models)
    references = [largest_drop_cell(effects)]
    names = dict(zip(models["paper_name"], models["model"]))
    paper_model = names.get(LARGEST_DROP_CELL[0])
    if paper_model is not None and (paper_model, LARGEST_DROP_CELL[1]) not in references:
        references.append((paper_model, LARGEST_DROP_CELL[1]))
    return LinguisticResult(
        params=p,
        n_facts=int(effects["n"].iloc[0]),
        n_relations=int(scores["relation"].nunique()),
        injected=[t for t in dict.fromkeys(est["template"].unique()) if t != PLAIN],
        models=models,
        calibration=calibration,
        effects=effects,
        ace_changes=ace_changes(effects, calibration),
        curves=diagram.curve,
        histograms=diagram.histogram,
        levels=stated_levels(est, calibration),
        numeric=numeric,
        grounding=grounding_checks(effects, numeric),
        pairs=pairs,
        sensitivity=f["sensitivity"],
        sensitivity_pairs=pair_differences(est, pairs, "sensitivity", p.n_bootstrap, p.seed),
        alignment=f["alignment"],
        alignment_pairs=pair_differences(est, pairs, "alignment", p.n_bootstrap, p.seed),
        drops=drop_comparisons(est, references, p.n_bootstrap, p.seed),
        authors_legend=authors_legend(),
    )


def model_frames(scores: pd.DataFrame, params: Params) -> dict[str, pd.DataFrame]:
    """The steps of :func:`analyse` that look at one model at a time, on ``scores`` (one model's
    rows or several models': each model's frames are the same, every interval of a model
    drawing from ``params.seed`` alone): the estimates, the calibration per template, the
    injection effects, the numeric differences, sensitivity and alignment. The model's intervals
    share their resamples and replicates (:func:`calib.confidence.bootstrap.shared_resamples`:
    the same numbers, computed once)."""
    with shared_resamples():
        return _model_frames(scores, params)


def _model_frames(scores: pd.DataFrame, params: Params) -> dict[str, pd.DataFrame]:
    p = params
    est = linguistic_estimates(scores, reduction=p.reduction)
    return {
        "est": est,
        "calibration": template_calibration(est, p.n_bootstrap, p.seed, p.floor_draws),
        "effects": injection_effects(est, n_bootstrap=p.n_bootstrap, seed=p.seed),
        "numeric": numeric_differences(est, n_bootstrap=p.n_bootstrap, seed=p.seed),
        "sensitivity": sensitivity(est, p.n_bootstrap, p.seed),
        "alignment": alignment(est, p.n_bootstrap, p.seed),
    }
