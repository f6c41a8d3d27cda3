"""The calibration chapter (Kissling et al. 2026, §5.1, Table 1, Figures 2, 9, 10; the abstract,
§7, Appendices D and E), with what a calibration study adds beside it.

From one BEAR score table (several models, the five paraphrase templates) to every frame the
chapter shows. The unit (see ``CONTRIBUTING.md``): :class:`Params` (the only home of the
chapter's defaults), :func:`run` (``Params`` -> :class:`CalibrationResult`: score BEAR, then
:func:`analyse`), :func:`analyse` (a score table -> the result, no model, no disk) and
``CLAIMS`` (the claims of §5.1, the abstract, §7 and Appendices D-E, each judged on the paper's
printed tables and on this build's recorded result). The package, each step a pure function
over frames:

================================================  ==================================================
module                                            holds
================================================  ==================================================
:mod:`~calib.experiments.calibration.estimators`  every estimator of §3 (Base, Margin, Average,
                                                  Consistency, Entropy) per model
                                                  (:func:`~calib.experiments.calibration.estimators.estimates`),
                                                  estimators of one's own, and the recalibration
                                                  baselines beyond the paper (``Base
                                                  (temperature)``, ``Margin (Platt)``,
                                                  ``Average/<agg> (Platt)``, cross-fitted over
                                                  relations)
:mod:`~calib.experiments.calibration.tables`      Table 1 of this build (ACE with its noise floor
                                                  and the debiased ACE, Brier, accuracy, 95%
                                                  bootstrap intervals, in labelled blocks), ECE, MCE
                                                  and RMS (the downloads), the accuracy over the
                                                  five paraphrases (Tables 2-3) and paired
                                                  differences between estimators of one model
:mod:`~calib.experiments.calibration.curves`      reliability diagrams (Figure 2) and where each
                                                  curve starts, the accuracy-rejection curves
                                                  (Figure 10) and Appendix E's example, the
                                                  correlation of ACE with accuracy across models
                                                  (Figure 9)
:mod:`~calib.experiments.calibration.contrasts`   the differences between models the claims need
                                                  (sizes of a family, families, objectives), on this
                                                  build with paired bootstrap intervals over facts
                                                  and on the paper's Tables 1 and 3
:mod:`~calib.experiments.calibration.claims`      the claims' rules and their two sources of
                                                  evidence (``<claim>_rule``, ``<claim>_paper``,
                                                  ``<claim>_build``), by section, and ``CLAIMS``
================================================  ==================================================

Signed gaps, gaps per confidence range and AUROC / AURC come from :mod:`calib.confidence`
(:func:`~calib.confidence.gap.signed_gaps`, :func:`~calib.confidence.gap.gap_by_range`,
:func:`~calib.confidence.selective.selective_prediction`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import ClassVar

import pandas as pd

from calib.confidence.bootstrap import shared_resamples
from calib.confidence.gap import gap_by_range, signed_gaps
from calib.confidence.selective import selective_differences, selective_prediction
from calib.experiments.calibration.claims import CLAIMS
from calib.experiments.calibration.claims.evidence import floor_corrected
from calib.experiments.calibration.contrasts import (
    contrast_cells,
    model_contrasts,
    model_info,
    resampled_cells,
)
from calib.experiments.calibration.curves import (
    FIGURE10,
    _select,
    ace_accuracy_correlation,
    lowest_bins,
    rejection_curves,
    reliability,
    selective_example,
)
from calib.experiments.calibration.estimators import (
    EXTRA_BLOCK,
    PAPER_BLOCK,
    RECALIBRATED_BLOCK,
    TEMPERATURE,
    estimates,
    paper_estimators,
    paraphrase_sentences,
    recalibrated,
)
from calib.experiments.calibration.tables import (
    _ordered,
    below_zero,
    calibration_table,
    comparison_pairs,
    error_table,
    estimator_comparisons,
    template_accuracy,
    template_correct,
)
from calib.experiments.paper_tables import calib_estimator, table1_long, text_value
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.per_model import by_first_seen, concat_parts, map_models

__all__ = [
    "CLAIMS",
    "PAPER_BLOCK",
    "CalibrationResult",
    "Params",
    "analyse",
    "calibration_table",
    "estimates",
    "floor_corrected",
    "rejection_curves",
    "run",
    "template_accuracy",
]


@dataclass(frozen=True)
class Params(ChapterParams):
    """The calibration chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "calibration"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        3, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(
        0, "seed of the BEAR sample, every bootstrap, the noise floors and the recalibration folds"
    )
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    aggregations: tuple[str, ...] = parameter(
        ("min", "vote-2"),
        "aggregations of Average/Consistency/Entropy; the first is the one the claims use",
    )
    reduction: str = parameter(
        "sum", "sentence-score reduction (Appendix C; the paper's choice is sum)"
    )
    curve_bins: int = parameter(
        20, "equal-count bins of the calibration curves (the paper, §4.3: 20, as ACE)"
    )
    recalibration_folds: int = parameter(
        5, "relation folds of the cross-fitted recalibration baselines (beyond the paper)"
    )
    floor_draws: int = parameter(
        1000,
        "simulated perfectly calibrated outcome vectors behind each noise floor of ACE "
        "(beyond the paper)",
    )

    @property
    def aggregation(self) -> str:
        """The aggregation the claims use (the first; the paper's is ``min``)."""
        return self.aggregations[0]


@dataclass(frozen=True)
class CalibrationResult:
    """Every frame and number the calibration page shows (:func:`run`)."""

    params: Params
    #: facts per model, relations, scored statements per model
    n_facts: int
    n_relations: int
    n_statements: int
    #: :func:`~calib.experiments.calibration.contrasts.model_info`: model, objective, family, size_m
    models: pd.DataFrame
    #: the estimators in display order (the paper's, then the recalibrated ones)
    estimators: list[str]
    #: :func:`~calib.experiments.calibration.tables.calibration_table` (both blocks)
    table: pd.DataFrame
    #: :func:`~calib.experiments.calibration.tables.error_table` (ECE, MCE, RMS with their floors;
    #: the downloads only)
    errors: pd.DataFrame
    #: :func:`~calib.experiments.calibration.tables.template_accuracy`
    accuracy: pd.DataFrame
    #: relation folds the recalibration used (``recalibration_folds``, at most the relations;
    #: 0: not enough relations to cross-fit)
    folds: int
    #: temperature per model fitted on all its instances (reported), and every cross-fitted fit
    temperatures: pd.DataFrame
    recalibration_fits: pd.DataFrame
    #: :func:`~calib.experiments.calibration.tables.estimator_comparisons` (ACE and Brier)
    differences: pd.DataFrame
    #: :func:`calib.confidence.gap.signed_gaps` and :func:`~calib.confidence.gap.gap_by_range`
    gaps: pd.DataFrame
    gap_ranges: pd.DataFrame
    #: :func:`~calib.experiments.calibration.curves.lowest_bins`
    lowest: pd.DataFrame
    #: :func:`~calib.experiments.calibration.curves.reliability` (Figure 2)
    reliability_curve: pd.DataFrame
    reliability_histogram: pd.DataFrame
    #: :func:`~calib.experiments.calibration.curves.rejection_curves` (Figure 10) and
    #: :func:`~calib.experiments.calibration.curves.selective_example` (Appendix E)
    rejection: pd.DataFrame
    selective_example: pd.DataFrame
    #: AUROC / AURC per model and estimator, and their paired differences
    selective: pd.DataFrame
    selective_differences: pd.DataFrame
    #: Figure 9's points: the paper's estimators' ACE per model beside the model's accuracy over the
    #: paraphrases (``accuracy``, the paper's definition), and their correlation
    #: (:func:`~calib.experiments.calibration.curves.ace_accuracy_correlation`), of this build and
    #: of the paper's Tables 1 and 3
    ace_accuracy: pd.DataFrame
    correlation: pd.DataFrame
    paper_correlation: pd.DataFrame
    #: :func:`~calib.experiments.calibration.contrasts.model_contrasts`
    contrasts: pd.DataFrame
    #: confidences below 0 per estimator and model (the paper's Entropy, Eq. 7)
    below_zero: pd.DataFrame


def analyse(
    scores: pd.DataFrame,
    params: Params,
    info: pd.DataFrame | None = None,
    workers: int | None = None,
    ray: str | None = None,
) -> CalibrationResult:
    """Every step of the chapter on a score table with ``params``. No model, no disk:
    :func:`run` scores BEAR first, then calls this.

    The steps of one model (its estimates, recalibration, tables, intervals and curves) run
    on each model's rows in a pool of processes (:func:`calib.experiments.per_model.map_models`;
    every bootstrap of a model draws from ``params.seed`` alone, so the result is the one a
    single process gives); what compares models (the contrasts, Figure 9's correlation) runs
    here on their estimates.

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table (:mod:`calib.scoring.schema`) of the five paraphrases of BEAR for the
        models of ``info``, on one sample of facts.
    params : calib.experiments.calibration.Params
        The chapter's parameters.
    info : pandas.DataFrame or None
        Per model ``objective``, ``family`` and ``size_m``
        (:func:`~calib.experiments.calibration.contrasts.model_info`, in the order of
        ``params.models``); by default from the registry (a model it does not list is looked up
        in its configuration).
    workers : int or None
        Processes for the per-model steps (:func:`calib.experiments.per_model.worker_count`:
        by default one per CPU on a large table, else this process).
    ray : str or None
        A Ray cluster's address for the per-model steps (by default ``$CALIB_RAY``; None: no
        Ray).

    Returns
    -------
    calib.experiments.calibration.CalibrationResult
        What the chapter's page shows, with ``params``.
    """
    if info is None:
        info = model_info(params.models)
    p = params
    agg = p.aggregation
    parts = map_models(partial(model_frames, params=p), scores, workers=workers, ray=ray)
    f = assemble(parts)
    est, every_est, table, accuracy = f["est"], f["every_est"], f["table"], f["accuracy"]
    paper_est = est[est["estimator"].isin(paper_estimators(agg))]
    curve, histogram = reliability(
        est,
        ["Base", "Margin", *[calib_estimator("Average", a) for a in p.aggregations]],
        p.curve_bins,
    )
    points = table.loc[
        table["block"] == PAPER_BLOCK,
        [
            "model",
            "estimator",
            "n",
            "ace",
            "ace_low",
            "ace_high",
            "ace_floor",
            "ace_floor_low",
            "ace_floor_high",
            "ace_within_floor",
            "ace_debiased",
            "ace_debiased_low",
            "ace_debiased_high",
        ],
    ].merge(accuracy[["model", "accuracy", "accuracy_low", "accuracy_high"]], on="model")
    return CalibrationResult(
        params=p,
        n_facts=int(table["n"].iloc[0]),
        n_relations=int(scores["relation"].nunique()),
        n_statements=int(len(scores) // max(scores["model"].nunique(), 1)),
        models=info.reset_index(drop=True),
        estimators=list(dict.fromkeys(every_est["estimator"].unique())),
        table=table,
        errors=f["errors"],
        accuracy=accuracy,
        folds=f["folds"],
        temperatures=f["temperatures"],
        recalibration_fits=f["recalibration_fits"],
        differences=f["differences"],
        gaps=f["gaps"],
        gap_ranges=f["gap_ranges"],
        lowest=f["lowest"],
        reliability_curve=curve,
        reliability_histogram=histogram,
        rejection=rejection_curves(paper_est),
        selective_example=f["selective_example"],
        selective=f["selective"],
        selective_differences=f["selective_differences"],
        ace_accuracy=points,
        correlation=ace_accuracy_correlation(
            points, estimators=paper_estimators(agg), n_bootstrap=p.n_bootstrap, seed=p.seed
        ),
        paper_correlation=ace_accuracy_correlation(
            table1_long(),
            estimators=[calib_estimator(e) for e in FIGURE10],
            n_bootstrap=p.n_bootstrap,
            seed=p.seed,
        ),
        contrasts=model_contrasts(
            est, f["correct"], info, agg, p.n_bootstrap, p.seed, cells=f["contrast_cells"]
        ),
        below_zero=below_zero(est),
    )


def model_frames(scores: pd.DataFrame, params: Params) -> dict:
    """The steps of :func:`analyse` that look at one model at a time, on ``scores`` (one
    model's rows, or several models': each model's frames are the same either way, since every
    interval of a model draws its resamples from ``params.seed`` alone). Returns the frames by
    name (and ``folds``); :func:`assemble` puts the models' together. The model's intervals
    share their resamples and replicates (:func:`calib.confidence.bootstrap.shared_resamples`:
    the same numbers, computed once)."""
    with shared_resamples():
        return _model_frames(scores, params)


def _model_frames(scores: pd.DataFrame, params: Params) -> dict:
    p = params
    agg = p.aggregation
    avg = calib_estimator("Average", agg)
    sent = paraphrase_sentences(scores, p.reduction)  # once for the three steps below
    est = estimates(scores, reduction=p.reduction, aggregations=p.aggregations, sent=sent)
    recal = recalibrated(
        scores, est, p.reduction, p.recalibration_folds, p.seed, platt=("Margin", avg), sent=sent
    )
    every_est = (
        pd.concat([est, recal.estimates], ignore_index=True) if len(recal.estimates) else est
    )
    table = calibration_table(every_est, p.n_bootstrap, p.seed, n_draws=p.floor_draws)
    correct = template_correct(scores, p.reduction, sent=sent)
    del sent
    paper_est = est[est["estimator"].isin(paper_estimators(agg))]
    ranged = _select(est, ["Base", "Margin", avg])
    sel_pairs = [("Margin", "Base"), (avg, "Base"), (avg, "Margin")]
    sel_diff = selective_differences(paper_est, sel_pairs, n_boot=p.n_bootstrap, seed=p.seed)
    return {
        "est": est,
        "recalibrated": recal.estimates,
        "folds": recal.folds,
        "temperatures": recal.temperatures,
        "recalibration_fits": recal.fits,
        "table": table,
        "errors": error_table(every_est, p.n_bootstrap, p.seed, n_draws=p.floor_draws),
        "correct": correct,
        "accuracy": template_accuracy(correct, table, p.n_bootstrap, p.seed),
        "differences": estimator_comparisons(
            every_est,
            comparison_pairs(agg, bool(recal.folds)),
            n_bootstrap=p.n_bootstrap,
            seed=p.seed,
        ),
        "gaps": _ordered(
            signed_gaps(every_est, by=["model", "estimator"], n_boot=p.n_bootstrap, seed=p.seed),
            every_est,
        ),
        "gap_ranges": _ordered(
            gap_by_range(ranged, by=["model", "estimator"], n_boot=p.n_bootstrap, seed=p.seed),
            ranged,
        ),
        "selective": _ordered(
            selective_prediction(
                paper_est, by=["model", "estimator"], n_boot=p.n_bootstrap, seed=p.seed
            ),
            paper_est,
        ),
        "selective_differences": _ordered(sel_diff.assign(estimator=sel_diff["a"]), paper_est).drop(
            columns="estimator"
        ),
        "lowest": lowest_bins(est, n_bins=p.curve_bins, n_bootstrap=p.n_bootstrap, seed=p.seed),
        "selective_example": selective_example(
            est, avg, text_value("selective_gemma7b_threshold"), p.n_bootstrap, p.seed
        ),
        # what the cross-model contrasts combine, from this model's resamples (shared above)
        "contrast_cells": resampled_cells(est, correct, contrast_cells(agg), p.n_bootstrap, p.seed),
    }


def _by_model(frame: pd.DataFrame, first: str | None = None) -> pd.DataFrame:
    """``frame`` sorted by its models' names (after ``first``'s values in first-seen order),
    rows of one model in their order."""
    if not len(frame):
        return frame
    keys = ["model"]
    out = frame
    if first is not None:
        rank = {v: i for i, v in enumerate(frame[first].unique())}
        out = frame.assign(_first=frame[first].map(rank))
        keys = ["_first", "model"]
    out = out.sort_values(keys, kind="stable").reset_index(drop=True)
    return out.drop(columns="_first") if first is not None else out


def assemble(parts: list[dict]) -> dict:
    """The frames of :func:`model_frames` of each model, one model after the other, in the
    order one call on all models gives them (the calibration table: block by block)."""
    f = {k: concat_parts(parts, k) for k in parts[0] if k not in ("folds", "contrast_cells")}
    f["folds"] = parts[0]["folds"]
    f["contrast_cells"] = {k: v for part in parts for k, v in part["contrast_cells"].items()}
    if any(part["folds"] != f["folds"] for part in parts):
        raise ValueError("the models' recalibration folds differ: their relations differ")
    # what recalibration fits, it fits method by method over the models in sorted order
    for key in ("correct", "accuracy", "temperatures"):
        f[key] = _by_model(f[key])
    f["recalibration_fits"] = _by_model(f["recalibration_fits"], "method")
    f["differences"] = by_first_seen(f["differences"], "metric")  # metric by metric
    if len(f["recalibrated"]):
        method = ~f["recalibrated"]["estimator"].str.endswith(TEMPERATURE)
        f["recalibrated"] = _by_model(f["recalibrated"].assign(_method=method), "_method").drop(
            columns="_method"
        )
    f["every_est"] = (
        pd.concat([f["est"], f["recalibrated"]], ignore_index=True)
        if len(f["recalibrated"])
        else f["est"]
    )
    order = {b: i for i, b in enumerate((PAPER_BLOCK, RECALIBRATED_BLOCK, EXTRA_BLOCK))}
    f["table"] = (
        f["table"]
        .sort_values("block", key=lambda s: s.map(order), kind="stable")
        .reset_index(drop=True)
    )
    return f


def run(params: Params) -> CalibrationResult:
    """The calibration chapter with ``params``: score the five paraphrases of BEAR
    (:func:`calib.scoring.run.score_bear`; the score cache keeps each (relation, template,
    instance) once, so the other BEAR chapters on the same sample reuse these scores), then
    :func:`analyse`.

    Parameters
    ----------
    params : calib.experiments.calibration.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.calibration.CalibrationResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    scores = score_bear(
        list(p.models),
        "paraphrases",
        p.per_relation,
        p.seed,
        list(p.relations) if p.relations else None,
    )
    return analyse(scores, p)
