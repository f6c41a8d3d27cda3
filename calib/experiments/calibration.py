"""The calibration chapter (Kissling et al. 2026, §5.1, Table 1, Figures 2, 9, 10; the abstract,
§7, Appendices D and E), with what a calibration study adds beside it (issue 18).

From one BEAR score table (several models, the five paraphrase templates) to every frame the
chapter shows. The unit (see ``CONTRIBUTING.md``): :class:`Params` (the only home of the
chapter's defaults), :func:`run` (``Params`` -> :class:`CalibrationResult`) and ``CLAIMS``
(the claims of §5.1, the abstract, §7 and Appendices D-E, each judged on the paper's printed
tables and on this build's recorded result). The steps, each a pure function over frames:

===================================  =========================================================
function                             result
===================================  =========================================================
:func:`estimates`                    every estimator of §3 (Base, Margin, Average,
                                     Consistency, Entropy) per model: an estimate table
:func:`recalibrated`                 beyond the paper: ``Base (temperature)``, ``Margin
                                     (Platt)``, ``Average/<agg> (Platt)``, cross-fitted over
                                     relations, with the fitted temperatures and every fit
:func:`calibration_table`            Table 1 of this build: ACE (with its noise floor and the
                                     debiased ACE), Brier and accuracy per model and
                                     estimator, 95% bootstrap intervals, in labelled blocks
:func:`error_table`                  ECE, MCE and RMS calibration error with their floors
                                     (the downloads only)
:func:`template_accuracy`            accuracy averaged over the five paraphrases (the
                                     paper's accuracy, Tables 2-3), with its interval
:func:`estimator_comparisons`        paired bootstrap differences of ACE and Brier between
                                     estimators of one model
:func:`lowest_bins`                  the mean confidence of the lowest curve bin, Base
                                     against Margin (where each curve starts, Figure 2)
:func:`reliability`                  reliability diagrams (curve, Wilson intervals, histogram)
:func:`rejection_curves`             accuracy of the kept instances per threshold (Figure 10)
:func:`selective_example`            Appendix E's example at one threshold, with intervals
:func:`ace_accuracy_correlation`     correlation of ACE with accuracy across models (Fig. 9)
:func:`contrast_specs`               the differences between models the claims need (sizes
                                     of a family, families, objectives), for this build's
                                     models (:func:`model_info`) or the paper's
:func:`model_contrasts`              those differences on this build, with paired bootstrap
                                     intervals over facts; :func:`paper_contrasts` on the
                                     paper's printed Tables 1 and 3
:func:`from_scores`                  every step above on a score table (:func:`run` scores
                                     BEAR first)
===================================  =========================================================

The claims' rules and their two sources of evidence (``<claim>_rule``, ``<claim>_paper``,
``<claim>_build``) follow, then ``CLAIMS``.

Signed gaps, gaps per confidence range and AUROC / AURC come from :mod:`calib.confidence`
(:func:`~calib.confidence.gap.signed_gaps`, :func:`~calib.confidence.gap.gap_by_range`,
:func:`~calib.confidence.selective.selective_prediction`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import (
    INTERVAL_METHODS,
    WeightedStatistic,
    correlation_interval,
    difference_interval,
    estimator_differences,
    interval,
    interval_p_value,
    jackknife,
    metric_statistic,
    replicates,
)
from calib.confidence.estimators import all_estimates
from calib.confidence.gap import GAP_RANGES, gap_by_range, signed_gaps
from calib.confidence.metrics import (
    N_BINS,
    accuracy_rejection_curve,
    calibration_curve,
    weighted_bins,
)
from calib.confidence.noise_floor import N_DRAWS
from calib.confidence.probabilities import template_predictions
from calib.confidence.recalibration import fit_temperature, platt_scaling, temperature_scaling
from calib.confidence.reductions import sentence_scores
from calib.confidence.reliability import reliability_diagram
from calib.confidence.schema import ESTIMATE_COLUMNS, INSTANCE, require_columns
from calib.confidence.selective import selective_differences, selective_prediction
from calib.confidence.summary import summary
from calib.data.bear import PARAPHRASES, PLAIN
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import calib_estimator, paper_models, table1_long, text_value
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.quantifiers import Evidence, every_verdict, most_verdict, printed
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, UNTESTABLE, Judgement
from calib.scoring.schema import FACT

#: the single-template estimators and the multi-template ones (named ``<name>/<aggregation>``)
SINGLE_ESTIMATORS: tuple[str, ...] = ("Base", "Margin")
MULTI_ESTIMATORS: tuple[str, ...] = ("Average", "Consistency", "Entropy")
#: the thresholds of the accuracy-rejection curves (Figure 10)
REJECTION_THRESHOLDS: tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(1, 10))
#: fewest models for which a correlation across models is computed (more than three)
MIN_MODELS_FOR_CORRELATION = 4
#: the blocks of the calibration table: the paper's estimators, the recalibrated baselines
#: (beyond the paper), estimators of one's own (``extra_estimators``)
PAPER_BLOCK = "the paper's estimators"
RECALIBRATED_BLOCK = "beyond the paper: recalibrated, cross-fitted over relations"
EXTRA_BLOCK = "added estimators"
#: the recalibrated names' suffixes (:mod:`calib.confidence.recalibration`)
TEMPERATURE, PLATT = " (temperature)", " (Platt)"
#: the key of the accuracy averaged over the five paraphrases in the cross-model contrasts
TEMPLATES = "five templates"
#: "For ACE, we consider values < 0.1 well-calibrated" (Table 1's caption)
WELL_CALIBRATED = text_value("well_calibrated_ace")
#: "an ACE of under 0.05, indicating good calibration" (§5.1)
GOOD_CALIBRATION = text_value("margin_ace_gemma7b")
#: a difference of ACE counts as *small* ("comparable", §5.1) below the ACE the paper calls good
#: calibration: a gap smaller than the whole error of a well-aligned estimate
SMALL_ACE_DIFFERENCE = GOOD_CALIBRATION
#: "models larger than 1B parameters" (§5.1), in millions
LARGE_MODEL_M = 1000.0
#: the range of low confidence of the claim on Margin's underconfidence (the lowest quarter)
LOW_RANGE: tuple[float, float] = GAP_RANGES[0]
#: Figure 10's estimators (Appendix E shows C_Margin and C_Average)
FIGURE10: tuple[str, ...] = ("Margin", "Average")


@dataclass(frozen=True)
class Params(ChapterParams):
    """The calibration chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "calibration"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        1, "instances per relation, seeded sample (None: all of BEAR)"
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
    #: :func:`model_info`: model, objective, family, size_m
    models: pd.DataFrame
    #: the estimators in display order (the paper's, then the recalibrated ones)
    estimators: list[str]
    #: :func:`calibration_table` (both blocks)
    table: pd.DataFrame
    #: :func:`error_table` (ECE, MCE, RMS with their floors; the downloads only)
    errors: pd.DataFrame
    #: :func:`template_accuracy`
    accuracy: pd.DataFrame
    #: relation folds the recalibration used (``recalibration_folds``, at most the relations;
    #: 0: not enough relations to cross-fit)
    folds: int
    #: temperature per model fitted on all its instances (reported), and every cross-fitted fit
    temperatures: pd.DataFrame
    recalibration_fits: pd.DataFrame
    #: :func:`estimator_comparisons` (ACE and Brier)
    differences: pd.DataFrame
    #: :func:`calib.confidence.gap.signed_gaps` and :func:`~calib.confidence.gap.gap_by_range`
    gaps: pd.DataFrame
    gap_ranges: pd.DataFrame
    #: :func:`lowest_bins`
    lowest: pd.DataFrame
    #: :func:`reliability` (Figure 2)
    reliability_curve: pd.DataFrame
    reliability_histogram: pd.DataFrame
    #: :func:`rejection_curves` (Figure 10) and :func:`selective_example` (Appendix E)
    rejection: pd.DataFrame
    selective_example: pd.DataFrame
    #: AUROC / AURC per model and estimator, and their paired differences
    selective: pd.DataFrame
    selective_differences: pd.DataFrame
    #: Figure 9's points: the paper's estimators' ACE per model beside the model's accuracy
    #: over the paraphrases (``accuracy``, the paper's definition), and their correlation
    #: (:func:`ace_accuracy_correlation`), of this build and of the paper's Tables 1 and 3
    ace_accuracy: pd.DataFrame
    correlation: pd.DataFrame
    paper_correlation: pd.DataFrame
    #: :func:`model_contrasts`
    contrasts: pd.DataFrame
    #: confidences below 0 per estimator and model (the paper's Entropy, Eq. 7)
    below_zero: pd.DataFrame


# ---------------------------------------------------------------------------------------------
# estimators


def estimator_names(aggregations: Sequence[str] = ("min",)) -> list[str]:
    """The estimator names :func:`estimates` produces, in display order: ``Base``, ``Margin``,
    then ``Average/<agg>``, ``Consistency/<agg>``, ``Entropy/<agg>`` for each aggregation."""
    return [
        *SINGLE_ESTIMATORS,
        *[f"{name}/{agg}" for agg in aggregations for name in MULTI_ESTIMATORS],
    ]


def paper_estimators(aggregation: str = "min", with_ace: bool = False) -> list[str]:
    """The paper's five estimators with ``aggregation`` (calib's names); ``with_ace``: the four
    Table 1 prints an ACE for (no Consistency, "due to its discrete distribution")."""
    names = [calib_estimator(n, aggregation) for n in (*SINGLE_ESTIMATORS, *MULTI_ESTIMATORS)]
    return [n for n in names if not (with_ace and n.startswith("Consistency"))]


#: a confidence estimator of one's own: sentence-score table in, estimate table out (one row
#: per instance with ``prediction``, ``correct``, ``confidence``; see calib.confidence.schema)
Estimator = Callable[[pd.DataFrame], pd.DataFrame]


def _paraphrase_sentences(
    scores: pd.DataFrame, reduction: str, template: str, paraphrases: Sequence[str]
) -> pd.DataFrame:
    require_columns(scores, ("template",), "score table")
    wanted = [template, *[p for p in paraphrases if p != template]]
    missing = [t for t in wanted if t not in set(scores["template"])]
    if missing:
        raise ValueError(
            f"the score table lacks template(s) {missing}; the calibration estimators need {wanted}"
        )
    return sentence_scores(scores[scores["template"].isin(wanted)], reduction)


def estimates(
    scores: pd.DataFrame,
    reduction: str = "sum",
    aggregations: Sequence[str] = ("min",),
    template: str = PLAIN,
    paraphrases: Sequence[str] = PARAPHRASES,
    extra_estimators: Mapping[str, Estimator] | None = None,
) -> pd.DataFrame:
    """Every estimator of §3 on a score table: Base and Margin (Eqs. 1-2) on ``template``,
    Average, Consistency and Entropy (Eqs. 3-7) over ``paraphrases`` for each aggregation.

    Templates other than ``template`` and ``paraphrases`` are dropped first (a table scored with
    all 12 templates can be passed as it is). Returns the estimate table of
    :func:`calib.confidence.estimators.all_estimates`, the ``estimator`` column ordered as
    :func:`estimator_names`, then ``extra_estimators``: ``{name: function}``, each function
    called with the sentence-score table (those templates, ``reduction``) and returning an
    estimate table (:func:`extra_estimates`), shown after the paper's estimators.
    """
    sent = _paraphrase_sentences(scores, reduction, template, paraphrases)
    est = all_estimates(
        sent, template=template, paraphrases=list(paraphrases), aggregations=list(aggregations)
    )
    extra = extra_estimates(sent, extra_estimators or {}, est)
    if len(extra):
        est = pd.concat([est, extra], ignore_index=True)
        if "rejected" in est.columns:  # an estimator of one's own answers every instance
            est["rejected"] = est["rejected"].astype("boolean").fillna(False).astype(bool)
    models = list(dict.fromkeys(scores["model"]))
    est["model"] = pd.Categorical(est["model"], categories=models, ordered=True)
    est["estimator"] = pd.Categorical(
        est["estimator"],
        categories=[*estimator_names(aggregations), *(extra_estimators or {})],
        ordered=True,
    )
    est = est.sort_values(["model", "estimator", *INSTANCE[1:]], kind="stable", ignore_index=True)
    return est.astype({"model": str, "estimator": str})


def extra_estimates(
    sent: pd.DataFrame, estimators: Mapping[str, Estimator], like: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The estimate tables of one's own ``estimators`` (``{name: function}``) on a
    sentence-score table, with an ``estimator`` column: each function must return one row per
    instance with the columns of :data:`calib.confidence.schema.ESTIMATE_COLUMNS` and a
    confidence in [0, 1]; anything else is a ``ValueError`` naming the estimator. ``like``
    (another estimate table) must then cover the same instances."""
    parts = []
    for name, fn in estimators.items():
        out = fn(sent)
        require_columns(
            out,
            ESTIMATE_COLUMNS,
            f"estimator {name!r}'s result",
            hint="return one row per instance: model, dataset, relation, "
            "instance, prediction, correct, confidence",
        )
        if out.duplicated(list(INSTANCE)).any():
            raise ValueError(f"estimator {name!r} returned several rows for one instance")
        conf = out["confidence"].to_numpy(dtype=float)
        if not (np.isfinite(conf).all() and (conf >= 0).all() and (conf <= 1).all()):
            raise ValueError(f"estimator {name!r} returned confidences outside [0, 1]")
        if like is not None:
            have = len(out.merge(like[list(INSTANCE)].drop_duplicates(), on=list(INSTANCE)))
            want = len(like[list(INSTANCE)].drop_duplicates())
            if have != want or len(out) != want:
                raise ValueError(
                    f"estimator {name!r} returned {len(out)} instances; the "
                    f"other estimators have {want}"
                )
        parts.append(
            out[[*ESTIMATE_COLUMNS]].assign(
                estimator=name, correct=out["correct"].astype(bool), confidence=conf
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def estimator_block(name: str) -> str:
    """The calibration table's block of an estimator: :data:`PAPER_BLOCK` (Base, Margin,
    ``<Average|Consistency|Entropy>/<aggregation>``), ``RECALIBRATED_BLOCK`` (names ending in
    `` (temperature)`` or `` (Platt)``) or ``EXTRA_BLOCK``."""
    if name.endswith((TEMPERATURE, PLATT)):
        return RECALIBRATED_BLOCK
    multi = "/" in name and name.split("/", 1)[0] in MULTI_ESTIMATORS
    return PAPER_BLOCK if name in SINGLE_ESTIMATORS or multi else EXTRA_BLOCK


# ---------------------------------------------------------------------------------------------
# recalibration baselines (beyond the paper)


@dataclass(frozen=True)
class Recalibrated:
    """:func:`recalibrated`'s estimate table (no ``fold`` column), the temperature of each
    model fitted on all its instances, and every cross-fitted fit."""

    estimates: pd.DataFrame
    temperatures: pd.DataFrame
    fits: pd.DataFrame
    folds: int


def recalibrated(
    scores: pd.DataFrame,
    est: pd.DataFrame,
    reduction: str = "sum",
    folds: int = 5,
    seed: int = 0,
    platt: Sequence[str] = ("Margin",),
    template: str = PLAIN,
) -> Recalibrated:
    """The recalibration baselines of :mod:`calib.confidence.recalibration`, beyond the paper:
    temperature scaling of the option softmax on ``template`` (``Base (temperature)``) and
    Platt scaling of the confidences of ``platt`` (``Margin (Platt)``, ...), both cross-fitted
    over ``folds`` folds of each model's relations (at most one fold per relation; fewer than
    two relations: nothing is recalibrated, ``folds`` 0). ``est``: :func:`estimates`.

    ``fits`` has one row per method, model, estimator and fold with the relations it was
    fitted on and those it scored (as text), its size and parameters."""
    n_rel = int(scores["relation"].nunique())
    k = min(folds, n_rel)
    if k < 2:
        empty = pd.DataFrame(columns=list(est.columns))
        return Recalibrated(empty, pd.DataFrame(), pd.DataFrame(), 0)
    sent = sentence_scores(scores[scores["template"] == template], reduction)
    temp = temperature_scaling(sent, template, k=k, seed=seed)
    plat = platt_scaling(est, estimators=list(platt), k=k, seed=seed)
    out = pd.concat([temp.estimates, plat.estimates], ignore_index=True).drop(columns="fold")
    out = out[[c for c in est.columns if c in out.columns]]

    def as_text(frame, method):
        frame = frame.copy()
        for col in ("fit_relations", "scored_relations"):
            frame[col] = [", ".join(map(str, v)) for v in frame[col]]
        if "estimator" not in frame.columns:
            frame.insert(2, "estimator", "Base")
        frame.insert(0, "method", method)
        return frame

    fits = pd.concat(
        [as_text(temp.fits, "temperature"), as_text(plat.fits, "Platt")], ignore_index=True
    )
    temperatures = fit_temperature(sent, template)
    return Recalibrated(out.reset_index(drop=True), temperatures, fits, k)


# ---------------------------------------------------------------------------------------------
# tables


def _ordered(
    frame: pd.DataFrame, like: pd.DataFrame, columns: Sequence[str] = ("model", "estimator")
) -> pd.DataFrame:
    """``frame``'s rows in the order in which the values of ``columns`` first appear in
    ``like``."""
    out = frame.copy()
    keys = []
    for col in columns:
        rank = {v: i for i, v in enumerate(dict.fromkeys(like[col]))}
        out[f"_{col}"] = out[col].map(rank)
        keys.append(f"_{col}")
    return out.sort_values(keys, kind="stable").drop(columns=keys).reset_index(drop=True)


def calibration_table(
    est: pd.DataFrame,
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """Table 1 of this run: per model and estimator the ACE (``n_bins`` quantile bins), the
    Brier score and the accuracy (§4.3), each with a 95% bootstrap interval over instances
    (``n_bootstrap`` resamples; 0 skips them), the number of instances ``n`` and the voting
    rejection rate. Estimators of one model share their resamples (paired intervals).

    Beyond the paper, every ACE has its noise floor (``ace_floor`` ... ``ace_debiased_high``,
    :func:`calib.confidence.noise_floor.floor_record`, from ``n_draws`` simulated perfectly
    calibrated outcome vectors), and each row its ``block`` (:func:`estimator_block`): the
    blocks come one after the other, the paper's first."""
    table = summary(
        est,
        by=["model", "estimator"],
        n_bins=n_bins,
        n_boot=n_bootstrap,
        seed=seed,
        metrics=("ace", "brier", "accuracy"),
        floor=("ace",),
        n_draws=n_draws,
    )
    table = _ordered(table, est)
    table.insert(0, "block", [estimator_block(e) for e in table["estimator"]])
    order = {b: i for i, b in enumerate((PAPER_BLOCK, RECALIBRATED_BLOCK, EXTRA_BLOCK))}
    return table.sort_values("block", key=lambda s: s.map(order), kind="stable").reset_index(
        drop=True
    )


def error_table(
    est: pd.DataFrame,
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """ECE, MCE and RMS calibration error (equal-width bins, torchmetrics' ``norm="l1"``,
    ``"max"``, ``"l2"``; :mod:`calib.confidence.metrics`) per model and estimator with their
    bootstrap intervals and noise floors (beyond the paper; the chapter's downloads)."""
    metrics = ("ece", "mce", "rms")
    table = summary(
        est,
        by=["model", "estimator"],
        n_bins=n_bins,
        n_boot=n_bootstrap,
        seed=seed,
        metrics=metrics,
        floor=metrics,
        n_draws=n_draws,
    )
    return _ordered(table, est)


def template_correct(
    scores: pd.DataFrame, reduction: str = "sum", paraphrases: Sequence[str] = PARAPHRASES
) -> pd.DataFrame:
    """Per model and fact, the share of the ``paraphrases`` whose Base prediction (the
    arg-max option, §3) is correct: ``model``, the fact keys, ``fraction``, ``n_templates``.
    A fact must have been scored under every paraphrase (else ``ValueError``)."""
    sent = _paraphrase_sentences(scores, reduction, paraphrases[0], paraphrases)
    per = template_predictions(sent)
    grouped = per.groupby(["model", *FACT], sort=False)["correct"]
    out = grouped.agg(fraction="mean", n_templates="size").reset_index()
    short = out[out["n_templates"] != len(paraphrases)]
    if len(short):
        raise ValueError(
            f"{len(short)} fact(s) lack some of the paraphrases {list(paraphrases)}"
            f", e.g. {short.iloc[0][['model', *FACT]].to_dict()}"
        )
    return out


def template_accuracy(
    correct: pd.DataFrame, plain: pd.DataFrame | None = None, n_bootstrap: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """The paper's accuracy (Table 2's caption: "the average over all templates"; Table 3
    prints the same values): per model the accuracy of the Base prediction on each paraphrase,
    averaged over the paraphrases, with a 95% BCa bootstrap interval over facts (the
    templates of a fact resampled together). ``correct``: :func:`template_correct`.
    ``plain``: the calibration table, for the one-template accuracy Base and Margin use
    (``accuracy_plain``). Columns ``model``, ``n``, ``n_templates``, ``accuracy``,
    ``accuracy_low``, ``accuracy_high`` (and ``accuracy_plain``)."""
    frame = correct.assign(
        estimator=TEMPLATES, confidence=0.0, correct=correct["fraction"].to_numpy(float)
    )
    rows = []
    for model, part in frame.groupby("model", sort=False):
        y = part.sort_values(list(FACT))["correct"].to_numpy(float)
        stat = metric_statistic("accuracy", np.zeros(len(y)), y)[0]
        res = (
            difference_interval(stat, len(y), "bca", n_bootstrap, seed, metric="accuracy")
            if n_bootstrap
            else {"difference": float(y.mean()), "low": np.nan, "high": np.nan}
        )
        rows.append(
            {
                "model": model,
                "n": len(y),
                "n_templates": int(part["n_templates"].iloc[0]),
                "accuracy": res["difference"],
                "accuracy_low": res["low"],
                "accuracy_high": res["high"],
            }
        )
    out = pd.DataFrame(rows)
    if plain is not None:
        base = plain[plain["estimator"] == "Base"].set_index("model")["accuracy"]
        out["accuracy_plain"] = out["model"].map(base)
    return out


def estimator_comparisons(
    est: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    metrics: Sequence[str] = ("ace", "brier"),
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Paired bootstrap differences ``metric(a) - metric(b)`` on the same instances, for each
    model and each ``(a, b)`` pair of estimators
    (:func:`calib.confidence.bootstrap.estimator_differences`), models in the order of
    ``est``. Columns ``model``, ``a``, ``b``, ``metric``, ``difference``, ``low``, ``high``
    (95% interval), ``method``, ``p_value``, ``n``, ``n_boot``."""
    if n_bootstrap < 1:
        raise ValueError("estimator_comparisons needs n_bootstrap >= 1 (a paired bootstrap)")
    have = set(est["estimator"])
    unknown = sorted({e for p in pairs for e in p if e not in have})
    if unknown:
        raise ValueError(f"estimator(s) {unknown} not in the estimate table; it has {sorted(have)}")
    out = estimator_differences(
        est, list(pairs), metrics, ("model",), n_bootstrap, seed, n_bins=n_bins
    )
    rank = {m: i for i, m in enumerate(dict.fromkeys(est["model"]))}
    pair_rank = {p: i for i, p in enumerate(pairs)}
    metric_rank = {m: i for i, m in enumerate(metrics)}
    out = out.assign(
        _m=out["model"].map(rank),
        _p=[pair_rank[(a, b)] for a, b in zip(out["a"], out["b"])],
        _k=out["metric"].map(metric_rank),
    )
    return (
        out.sort_values(["_k", "_m", "_p"], kind="stable")
        .drop(columns=["_m", "_p", "_k"])
        .reset_index(drop=True)
    )


def comparison_pairs(aggregation: str = "min", recalibrated: bool = True) -> list[tuple[str, str]]:
    """The estimator pairs the chapter compares (and its claims use): Margin vs Base, Average
    vs each other estimator of the paper, and (beyond the paper) Average vs ``Base
    (temperature)``."""
    avg = calib_estimator("Average", aggregation)
    pairs = [("Margin", "Base"), *[(avg, o) for o in paper_estimators(aggregation) if o != avg]]
    return pairs + ([(avg, f"Base{TEMPERATURE}")] if recalibrated else [])


# ---------------------------------------------------------------------------------------------
# curves (Figures 2 and 10)


def calibration_curves(
    est: pd.DataFrame,
    estimators: Sequence[str] | None = None,
    n_bins: int = N_BINS,
    strategy: str = "quantile",
    by: Sequence[str] = ("model", "estimator"),
) -> pd.DataFrame:
    """Calibration-curve data (Figure 2): for each group of ``by`` (default model and
    estimator; ``estimators`` selects some, ``None`` all) one row per non-empty bin with
    ``bin``, ``lower``, ``upper``, ``count``, ``mean_confidence`` and ``accuracy``
    (:func:`calib.confidence.metrics.calibration_curve`)."""
    require_columns(est, (*by, "confidence", "correct"), "estimate table")
    est = _select(est, estimators)
    parts = []
    for keys, part in est.groupby(list(by), sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        curve = calibration_curve(
            part["confidence"], part["correct"].astype(bool), n_bins, strategy
        )
        parts.append(curve.assign(**dict(zip(by, keys))))
    out = pd.concat(parts, ignore_index=True)
    return out[[*by, *[c for c in out.columns if c not in by]]]


def _select(est: pd.DataFrame, estimators: Sequence[str] | None) -> pd.DataFrame:
    if estimators is None:
        return est
    unknown = [e for e in estimators if e not in set(est["estimator"])]
    if unknown:
        raise ValueError(
            f"estimator(s) {unknown} not in the estimate table; it has "
            f"{sorted(est['estimator'].unique())}"
        )
    return est[est["estimator"].isin(list(estimators))]


def reliability(
    est: pd.DataFrame, estimators: Sequence[str] | None = None, n_bins: int = N_BINS
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Reliability diagrams (Figure 2 as scikit-learn and netcal draw it): per model and
    estimator the calibration curve on ``n_bins`` quantile bins with each bin's 95% Wilson
    interval, and the histogram of confidences on ``n_bins`` equal-width bins
    (:func:`calib.confidence.reliability.reliability_diagram`): ``(curve, histogram)``."""
    diagram = reliability_diagram(
        _select(est, estimators), by=("model", "estimator"), n_bins=n_bins, histogram_bins=n_bins
    )
    return diagram.curve, diagram.histogram


def lowest_bins(
    est: pd.DataFrame,
    a: str = "Base",
    b: str = "Margin",
    n_bins: int = N_BINS,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Where each calibration curve starts (§5.1: "C_Base does not produce enough scores in the
    lower confidence ranges"): per model the mean confidence of the lowest of ``n_bins``
    quantile bins of ``a`` and of ``b`` (the curve's leftmost point), and their difference
    ``a - b`` with a 95% paired bootstrap interval over instances (bias-centred, as for the
    binned ACE). Columns ``model``, ``a``, ``b``, ``lowest_a``, ``lowest_b``, ``difference``,
    ``low``, ``high``, ``n``."""
    if n_bootstrap < 1:
        raise ValueError("lowest_bins needs n_bootstrap >= 1 (a paired bootstrap)")
    arrays, n = fact_arrays(_select(est, [a, b]))
    rows = []
    for model in dict.fromkeys(est["model"]):
        if (model, a) not in arrays:
            continue
        sa = _lowest_bin_statistic(arrays[(model, a)][0], n_bins)
        sb = _lowest_bin_statistic(arrays[(model, b)][0], n_bins)

        def a_minus_b(
            w: np.ndarray, sa: WeightedStatistic = sa, sb: WeightedStatistic = sb
        ) -> np.ndarray:
            return sa(w) - sb(w)

        res = difference_interval(
            a_minus_b,
            n,
            "centred",
            n_bootstrap,
            seed,
            metric="lowest bin confidence",
        )
        ones = np.ones((1, n), np.int64)
        rows.append(
            {
                "model": model,
                "a": a,
                "b": b,
                "lowest_a": float(sa(ones)[0]),
                "lowest_b": float(sb(ones)[0]),
                "difference": res["difference"],
                "low": res["low"],
                "high": res["high"],
                "n": n,
            }
        )
    return pd.DataFrame(
        rows, columns=["model", "a", "b", "lowest_a", "lowest_b", "difference", "low", "high", "n"]
    )


def _lowest_bin_statistic(conf: np.ndarray, n_bins: int) -> WeightedStatistic:
    """The mean confidence of the lowest non-empty quantile bin, as a weighted statistic."""
    order = np.argsort(conf, kind="stable")
    c = conf[order]
    zeros = np.zeros_like(c)

    def stat(w: np.ndarray) -> np.ndarray:
        count, sum_conf, _, _ = weighted_bins(c, zeros, w[:, order], n_bins, "quantile")
        first = np.argmax(count > 0, axis=1)
        rows = np.arange(count.shape[0])
        return sum_conf[rows, first] / np.maximum(count[rows, first], 1)

    return stat


def rejection_curves(
    est: pd.DataFrame, thresholds: Sequence[float] = REJECTION_THRESHOLDS
) -> pd.DataFrame:
    """Accuracy-rejection curves (Figure 10): per model and estimator, for each threshold the
    share of instances rejected (confidence below it) and the accuracy of the rest. Thresholds
    at which no instance is kept are left out (no accuracy to show)."""
    require_columns(est, ("model", "estimator", "confidence", "correct"), "estimate table")
    parts = []
    for (model, estimator), part in est.groupby(["model", "estimator"], sort=False):
        curve = accuracy_rejection_curve(
            part["confidence"], part["correct"].astype(bool), list(thresholds)
        )
        parts.append(curve.assign(model=model, estimator=estimator))
    out = pd.concat(parts, ignore_index=True)
    out = out[out["kept"] > 0]
    return out[["model", "estimator", "threshold", "rejected", "kept", "accuracy"]].reset_index(
        drop=True
    )


def selective_example(
    est: pd.DataFrame, estimator: str, threshold: float, n_bootstrap: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Appendix E's example at ``threshold`` for every model: the share of instances whose
    ``estimator`` confidence is below it (``rejected``) and the gain in accuracy of the others
    over the accuracy of all (``gain``), each with a 95% BCa bootstrap interval over
    instances. Columns ``model``, ``estimator``, ``threshold``, ``n``, ``accuracy``,
    ``kept_accuracy``, ``rejected``, ``rejected_low``, ``rejected_high``, ``gain``,
    ``gain_low``, ``gain_high``."""
    part = _select(est, [estimator])
    rows = []
    for model, group in part.groupby("model", sort=False):
        group = group.sort_values(list(INSTANCE[1:]))
        c = group["confidence"].to_numpy(float)
        y = group["correct"].astype(bool).to_numpy(float)
        below = (c < threshold).astype(float)
        n = len(c)

        def rejected(w, below=below):
            w = w.astype(float)
            return w @ below / w.sum(axis=1)

        def gain(w, y=y, below=below):
            w = w.astype(float)
            kept = w @ (1 - below)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(
                    kept > 0, (w @ (y * (1 - below))) / np.where(kept > 0, kept, 1), np.nan
                ) - w @ y / w.sum(axis=1)

        row = {
            "model": model,
            "estimator": estimator,
            "threshold": threshold,
            "n": n,
            "accuracy": float(y.mean()),
            "kept_accuracy": float(y[below == 0].mean()) if (below == 0).any() else np.nan,
        }
        for name, stat in (("rejected", rejected), ("gain", gain)):
            if n_bootstrap:
                res = difference_interval(stat, n, "bca", n_bootstrap, seed, metric=name)
                row.update(
                    {
                        name: res["difference"],
                        f"{name}_low": res["low"],
                        f"{name}_high": res["high"],
                    }
                )
            else:
                value = float(stat(np.ones((1, n), np.int64))[0])
                row.update({name: value, f"{name}_low": np.nan, f"{name}_high": np.nan})
        rows.append(row)
    return pd.DataFrame(rows)


def ace_accuracy_correlation(
    table: pd.DataFrame,
    estimators: Sequence[str] | None = None,
    method: str = "pearson",
    n_bootstrap: int = 1000,
    seed: int = 0,
    min_models: int = MIN_MODELS_FOR_CORRELATION,
    accuracy: str = "accuracy",
    ace: str = "ace",
    unit: str = "model",
) -> pd.DataFrame:
    """The correlation of ACE with accuracy across models (Figure 9), per estimator, with a
    95% BCa bootstrap interval from resampling the models
    (:func:`calib.confidence.bootstrap.correlation_interval`).

    ``table`` has one row per model and estimator (e.g. :func:`calibration_table` with the
    paper's accuracy, :func:`template_accuracy`). With fewer than ``min_models`` models
    (default: more than three are needed) nothing is computed and ``note`` says why. Columns:
    ``estimator``, ``n`` (models), ``method``, ``r``, ``low``, ``high``, ``n_used`` (resamples
    with a defined correlation), ``note``."""
    require_columns(table, (unit, "estimator", accuracy, ace), "calibration table")
    names = list(dict.fromkeys(table["estimator"])) if estimators is None else list(estimators)
    rows = []
    for name in names:
        part = table[table["estimator"] == name]
        n = part[unit].nunique()
        if len(part) != n:
            raise ValueError(f"estimator {name!r} has several rows for one {unit}")
        row = {
            "estimator": name,
            "n": n,
            "method": method,
            "r": np.nan,
            "low": np.nan,
            "high": np.nan,
            "n_used": 0,
            "note": "",
        }
        if n < min_models:
            row["note"] = (
                f"not computed: only {n} model(s) ran, and a correlation across "
                f"models needs at least {min_models}"
            )
        elif part[accuracy].nunique() < 2 or part[ace].nunique() < 2:
            row["note"] = "not computed: accuracy or ACE is the same for every model"
        else:
            res = correlation_interval(
                part[accuracy].to_numpy(float),
                part[ace].to_numpy(float),
                method=method,
                n_boot=n_bootstrap,
                seed=seed,
            )
            row.update(r=res["r"], low=res["low"], high=res["high"], n_used=res["n_used"])
            row["note"] = (
                f"{method} correlation over {n} models; interval from {n_bootstrap} "
                f"resamples of the models"
            )
        rows.append(row)
    return pd.DataFrame(
        rows, columns=["estimator", "n", "method", "r", "low", "high", "n_used", "note"]
    )


# ---------------------------------------------------------------------------------------------
# comparisons between models on the same facts (the claims' evidence on families and sizes)


def model_info(models: Sequence[str]) -> pd.DataFrame:
    """Per model (in order): ``objective`` (``clm`` / ``mlm``), ``family`` and ``size_m``
    (millions of parameters) from the registry; ``""`` / NaN where the registry does not know
    the model."""
    from calib.experiments.scores import objectives
    from calib.models.registry import get_spec, size_in_millions

    kinds = objectives(list(models))
    rows = []
    for m in models:
        spec = get_spec(m)
        size = size_in_millions(spec.size) if spec else None
        rows.append(
            {
                "model": m,
                "objective": kinds[m],
                "family": spec.family if spec else "",
                "size_m": float(size) if size is not None else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=["model", "objective", "family", "size_m"])


def fact_arrays(
    est: pd.DataFrame, keys: Sequence[str] = ("model", "estimator")
) -> tuple[dict[tuple, tuple[np.ndarray, np.ndarray]], int]:
    """``({(model, estimator): (confidence, correct)}, n)``: the float arrays of each group of
    ``keys`` in one shared order of the facts, so that one resample of the facts applies to
    every model and estimator (a paired bootstrap across models). The groups must cover the
    same facts (one BEAR sample), else ``ValueError``."""
    require_columns(est, (*keys, *FACT, "confidence", "correct"), "estimate table")
    facts, first = None, None
    out: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
    for key, part in est.groupby(list(keys), sort=False):
        part = part.sort_values(list(FACT), kind="stable")
        these = part[list(FACT)].astype(str).agg("|".join, axis=1).to_numpy()
        if facts is None:
            facts, first = these, key
        elif len(these) != len(facts) or (these != facts).any():
            raise ValueError(
                f"{key} covers other facts than {first}; a paired comparison "
                f"across models needs one sample of facts"
            )
        out[key] = (part["confidence"].to_numpy(float), part["correct"].to_numpy(float))
    return out, (0 if facts is None else len(facts))


@dataclass(frozen=True)
class Contrast:
    """A linear combination of one metric over (model, estimator) cells: ``sum(coefficient *
    metric(model, estimator))``, e.g. +1 for the larger model of a family and -1 for the
    smaller. ``estimator`` :data:`TEMPLATES` with ``metric`` ``accuracy`` is the paper's
    accuracy (averaged over the paraphrases)."""

    kind: str
    unit: str
    metric: str
    estimator: str
    a: str
    b: str
    coefficients: Mapping[tuple[str, str], float]


def _mean(
    models: Sequence[str], estimators: Sequence[str], sign: float = 1.0
) -> dict[tuple[str, str], float]:
    k = sign / (len(models) * len(estimators))
    return {(m, e): k for m in models for e in estimators}


def _metric_estimators(metric: str, aggregation: str) -> list[str]:
    if metric == "accuracy":
        return [TEMPLATES]
    return paper_estimators(aggregation, with_ace=metric == "ace")


#: the families §5.1 names (registry names)
BEST_FAMILIES: tuple[str, ...] = ("Llama 3", "Gemma")
GEMMA, GEMMA3 = "Gemma", "Gemma 3"
MODERNBERT, OLDER_MLMS = "ModernBERT", ("BERT", "RoBERTa")
XLMR_LARGE = "xlm-roberta-large"


def contrast_specs(info: pd.DataFrame, aggregation: str = "min") -> list[Contrast]:
    """The cross-model contrasts the claims need, for the models of ``info``
    (:func:`model_info`; the paper's models for its tables): the MLMs' mean signed gap minus
    the CLMs' (Base and Margin), each consecutive size step within a family (every estimator,
    ACE and Brier), the named best families against the others, gemma-3 against gemma,
    ModernBERT against BERT and RoBERTa, xlm-roberta-large against the other MLMs. Only the
    contrasts whose models are all in ``info``."""
    out: list[Contrast] = []
    avg = calib_estimator("Average", aggregation)
    mlm = list(info.loc[info["objective"] == "mlm", "model"])
    clm = list(info.loc[info["objective"] == "clm", "model"])
    if mlm and clm:
        for e in SINGLE_ESTIMATORS:
            out.append(
                Contrast(
                    "objectives",
                    f"MLMs - CLMs, {e}",
                    "gap",
                    e,
                    "MLMs",
                    "CLMs",
                    {**_mean(mlm, [e]), **_mean(clm, [e], -1.0)},
                )
            )
    known = info[info["family"].astype(bool)]
    for family, part in known.groupby("family", sort=False):
        part = part.dropna(subset=["size_m"]).sort_values("size_m", kind="stable")
        rows = part.to_dict("records")
        for small, large in itertools.pairwise(rows):
            if large["size_m"] <= small["size_m"]:
                continue
            for metric in ("ace", "brier"):
                for e in _metric_estimators(metric, aggregation):
                    out.append(
                        Contrast(
                            "size step",
                            f"{family}: {small['model']} -> {large['model']}, {e}, {metric}",
                            metric,
                            e,
                            large["model"],
                            small["model"],
                            {(large["model"], e): 1.0, (small["model"], e): -1.0},
                        )
                    )
    members = {f: list(p["model"]) for f, p in known.groupby("family", sort=False)}
    named = [f for f in BEST_FAMILIES if f in members]
    others = [f for f in members if f not in BEST_FAMILIES]
    for metric in ("ace", "brier"):
        ests = _metric_estimators(metric, aggregation)
        for n in named:
            for f in others:
                out.append(
                    Contrast(
                        "families",
                        f"{metric}: {n} - {f}",
                        metric,
                        "mean",
                        n,
                        f,
                        {**_mean(members[n], ests), **_mean(members[f], ests, -1)},
                    )
                )
    if GEMMA in members and GEMMA3 in members:
        for metric in ("accuracy", "ace", "brier"):
            ests = _metric_estimators(metric, aggregation)
            worse, better = (GEMMA, GEMMA3) if metric == "accuracy" else (GEMMA3, GEMMA)
            out.append(
                Contrast(
                    "gemma-3",
                    f"{metric}: {worse} - {better}",
                    metric,
                    "mean",
                    worse,
                    better,
                    {**_mean(members[worse], ests), **_mean(members[better], ests, -1)},
                )
            )
    older = [m for f in OLDER_MLMS for m in members.get(f, [])]
    if MODERNBERT in members and older:
        for e in ("Base", avg):
            out.append(
                Contrast(
                    "ModernBERT",
                    f"ace, {e}: ModernBERT - BERT/RoBERTa",
                    "ace",
                    e,
                    MODERNBERT,
                    "BERT/RoBERTa",
                    {**_mean(members[MODERNBERT], [e]), **_mean(older, [e], -1)},
                )
            )
    rest = [m for m in mlm if m != XLMR_LARGE]
    if XLMR_LARGE in set(info["model"]) and rest:
        for metric in ("accuracy", "ace", "brier"):
            ests = _metric_estimators(metric, aggregation)
            sign = -1.0 if metric == "accuracy" else 1.0  # worse: lower accuracy, higher error
            out.append(
                Contrast(
                    "xlm-roberta-large",
                    f"{metric}: {XLMR_LARGE} vs the other MLMs",
                    metric,
                    "mean",
                    XLMR_LARGE,
                    "other MLMs",
                    {**_mean([XLMR_LARGE], ests, sign), **_mean(rest, ests, -sign)},
                )
            )
    return out


CONTRAST_COLUMNS = (
    "kind",
    "unit",
    "metric",
    "estimator",
    "a",
    "b",
    "difference",
    "low",
    "high",
    "method",
    "p_value",
    "n",
    "n_boot",
)


def model_contrasts(
    est: pd.DataFrame,
    correct: pd.DataFrame,
    info: pd.DataFrame,
    aggregation: str = "min",
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    level: float = 0.95,
) -> pd.DataFrame:
    """Each contrast of :func:`contrast_specs` on this build, with a 95% paired bootstrap
    interval over facts: each resample of the facts is applied to every model, estimator and
    template at once (the models share one sample), by the metric's interval method
    (bias-centred for ACE, BCa otherwise). ``est``: the estimate table; ``correct``:
    :func:`template_correct` (the paper's accuracy). Columns ``CONTRAST_COLUMNS``;
    ``difference`` is the contrast (e.g. larger - smaller model, MLMs - CLMs).

    A contrast is linear in its cells, and every cell is resampled with the same seeded
    weights, so each cell's point value, replicates and jackknife values are computed once and
    combined (the same numbers as resampling each contrast's statistic as a whole)."""
    specs = contrast_specs(info, aggregation)
    if not specs:
        return pd.DataFrame(columns=list(CONTRAST_COLUMNS))
    if n_bootstrap < 1:
        raise ValueError("model_contrasts needs n_bootstrap >= 1 (a paired bootstrap)")
    accuracy = correct.assign(
        estimator=TEMPLATES, confidence=0.0, correct=correct["fraction"].to_numpy(float)
    )
    cells = pd.concat(
        [
            est[["model", "estimator", *FACT, "confidence", "correct"]],
            accuracy[["model", "estimator", *FACT, "confidence", "correct"]],
        ],
        ignore_index=True,
    )
    wanted = {k for s in specs for k in s.coefficients}
    cells = cells[[k in wanted for k in zip(cells["model"], cells["estimator"])]]
    arrays, n = fact_arrays(cells)
    cache: dict = {}

    def resampled(key, metric):
        """(point, replicates, jackknife or None) of one cell's metric, computed once."""
        if (key, metric) not in cache:
            conf, corr = arrays[key]
            stat = metric_statistic(metric, conf, corr, n_bins)[0]
            method = INTERVAL_METHODS.get(metric, "centred")
            cache[(key, metric)] = (
                float(stat(np.ones((1, n), np.int64))[0]),
                replicates(stat, n, n_bootstrap, seed),
                jackknife(stat, n) if method == "bca" else None,
            )
        return cache[(key, metric)]

    rows = []
    for s in specs:
        method = INTERVAL_METHODS.get(s.metric, "centred")
        parts = [(c, resampled(k, s.metric)) for k, c in s.coefficients.items()]
        point = sum(c * p[0] for c, p in parts)
        reps = sum(c * p[1] for c, p in parts)
        jack = sum(c * p[2] for c, p in parts) if method == "bca" else None
        low, high = interval(point, reps, level, method, jack)
        rows.append(
            {
                **_spec_fields(s),
                "difference": point,
                "low": low,
                "high": high,
                "method": method,
                "p_value": interval_p_value(point, reps, method, jack),
                "n": n,
                "n_boot": n_bootstrap,
            }
        )
    return pd.DataFrame(rows, columns=list(CONTRAST_COLUMNS))


def _spec_fields(s) -> dict:
    """The columns of :data:`CONTRAST_COLUMNS` that name a contrast spec (both the build's and
    the paper's contrast rows start with them)."""
    return {
        "kind": s.kind,
        "unit": s.unit,
        "metric": s.metric,
        "estimator": s.estimator,
        "a": s.a,
        "b": s.b,
    }


def paper_info() -> pd.DataFrame:
    """:func:`model_info` of the paper's Table 1 models, from Table 3 and the registry."""
    info = paper_models()
    t1 = set(table1_long()["registry_name"])
    info = info[info["registry_name"].isin(t1)]
    return pd.DataFrame(
        {
            "model": info["registry_name"],
            "objective": info["objective"],
            "family": info["family"],
            "size_m": info["size_m"],
        }
    ).reset_index(drop=True)


def paper_contrasts(aggregation: str = "min", kinds: Sequence[str] | None = None) -> pd.DataFrame:
    """The contrasts of :func:`contrast_specs` on the paper's printed values (Table 1's ACE and
    Brier, Table 3's accuracy over all templates): ``difference = low = high``, the same
    columns as :func:`model_contrasts` (no gap: the paper prints none)."""
    long = table1_long(aggregation).set_index(["registry_name", "estimator"])
    acc = paper_models().set_index("registry_name")["accuracy"]
    rows = []
    for s in contrast_specs(paper_info(), aggregation):
        if s.metric == "gap" or (kinds is not None and s.kind not in kinds):
            continue
        value = 0.0
        for (m, e), c in s.coefficients.items():
            value += c * (acc[m] if e == TEMPLATES else long.at[(m, e), s.metric])
        rows.append(
            {
                **_spec_fields(s),
                "difference": value,
                "low": value,
                "high": value,
                "method": "printed",
                "p_value": np.nan,
                "n": np.nan,
                "n_boot": 0,
            }
        )
    return pd.DataFrame(rows, columns=list(CONTRAST_COLUMNS))


# ---------------------------------------------------------------------------------------------
# the chapter


def below_zero(est: pd.DataFrame) -> pd.DataFrame:
    """Per estimator and model with any confidence below 0 (the paper's Entropy, Eq. 7): how
    many (``below``) of ``n``, and the lowest."""
    counts = (
        est.assign(below=est["confidence"] < 0)
        .groupby(["estimator", "model"], sort=False)
        .agg(below=("below", "sum"), n=("below", "size"), lowest=("confidence", "min"))
        .reset_index()
    )
    return counts[counts["below"] > 0].reset_index(drop=True)


def from_scores(scores: pd.DataFrame, params: Params, info: pd.DataFrame) -> CalibrationResult:
    """Every step of the chapter on a score table (the five paraphrases of every model of
    ``info``, :func:`model_info`) with ``params``; :func:`run` scores BEAR first."""
    p = params
    agg = p.aggregation
    avg = calib_estimator("Average", agg)
    est = estimates(scores, reduction=p.reduction, aggregations=p.aggregations)
    recal = recalibrated(
        scores, est, p.reduction, p.recalibration_folds, p.seed, platt=("Margin", avg)
    )
    every_est = (
        pd.concat([est, recal.estimates], ignore_index=True) if len(recal.estimates) else est
    )
    table = calibration_table(every_est, p.n_bootstrap, p.seed, n_draws=p.floor_draws)
    correct = template_correct(scores, p.reduction)
    accuracy = template_accuracy(correct, table, p.n_bootstrap, p.seed)
    paper_est = est[est["estimator"].isin(paper_estimators(agg))]
    differences = estimator_comparisons(
        every_est, comparison_pairs(agg, bool(recal.folds)), n_bootstrap=p.n_bootstrap, seed=p.seed
    )
    gaps = _ordered(
        signed_gaps(every_est, by=["model", "estimator"], n_boot=p.n_bootstrap, seed=p.seed),
        every_est,
    )
    ranged = _select(est, ["Base", "Margin", avg])
    gap_ranges = _ordered(
        gap_by_range(ranged, by=["model", "estimator"], n_boot=p.n_bootstrap, seed=p.seed), ranged
    )
    curve, histogram = reliability(
        est,
        ["Base", "Margin", *[calib_estimator("Average", a) for a in p.aggregations]],
        p.curve_bins,
    )
    selective = _ordered(
        selective_prediction(
            paper_est, by=["model", "estimator"], n_boot=p.n_bootstrap, seed=p.seed
        ),
        paper_est,
    )
    sel_pairs = [("Margin", "Base"), (avg, "Base"), (avg, "Margin")]
    sel_diff = selective_differences(paper_est, sel_pairs, n_boot=p.n_bootstrap, seed=p.seed)
    sel_diff = _ordered(sel_diff.assign(estimator=sel_diff["a"]), paper_est).drop(
        columns="estimator"
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
        estimators=list(dict.fromkeys(every_est["estimator"])),
        table=table,
        errors=error_table(every_est, p.n_bootstrap, p.seed, n_draws=p.floor_draws),
        accuracy=accuracy,
        folds=recal.folds,
        temperatures=recal.temperatures,
        recalibration_fits=recal.fits,
        differences=differences,
        gaps=gaps,
        gap_ranges=gap_ranges,
        lowest=lowest_bins(est, n_bins=p.curve_bins, n_bootstrap=p.n_bootstrap, seed=p.seed),
        reliability_curve=curve,
        reliability_histogram=histogram,
        rejection=rejection_curves(paper_est),
        selective_example=selective_example(
            est, avg, text_value("selective_gemma7b_threshold"), p.n_bootstrap, p.seed
        ),
        selective=selective,
        selective_differences=sel_diff,
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
        contrasts=model_contrasts(est, correct, info, agg, p.n_bootstrap, p.seed),
        below_zero=below_zero(est),
    )


def run(params: Params) -> CalibrationResult:
    """The calibration chapter with ``params``: score the five paraphrases of BEAR
    (:func:`calib.scoring.run.score_bear`; the score cache keeps each (relation, template,
    instance) once, so the other BEAR chapters on the same sample reuse these scores), then
    :func:`from_scores`.

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
    return from_scores(scores, p, model_info(p.models))


# ---------------------------------------------------------------------------------------------
# the claims: evidence from the paper's printed tables and from this build, and the rules

BUILD = "this build, 95% paired bootstrap intervals over facts"
TABLE1 = "Table 1, printed values"
#: how the build's side of a threshold claim on ACE reads its interval
THRESHOLD_NOTE = (
    "this build: a unit supports the threshold only if the upper end of its ACE's "
    "95% interval does, and contradicts it only if the lower end of its debiased "
    "ACE's interval (ACE minus its noise floor, beyond the paper) does: ACE at "
    "this sample size is biased upward, the debiased ACE downward"
)


def _combine(parts: Sequence[tuple[str, Judgement]]) -> Judgement:
    """One judgement of a claim with several parts: does not hold if a part does not, holds if
    every part holds, not testable if a part is not testable (and none fails), else
    undecided; the evidence and reasons name each part."""
    verdicts = [j.verdict for _, j in parts]
    if FAILS in verdicts:
        verdict = FAILS
    elif all(v == HOLDS for v in verdicts):
        verdict = HOLDS
    elif UNTESTABLE in verdicts:
        verdict = UNTESTABLE
    else:
        verdict = UNDECIDED
    evidence = " | ".join(f"{name}: {j.evidence}" for name, j in parts if j.evidence)
    reason = "; ".join(
        f"{name}: {j.reason}" for name, j in parts if j.reason and j.verdict != HOLDS
    )
    return Judgement(verdict, evidence, reason)


def _part(evidence: Evidence, name: str, missing: str) -> Evidence:
    frame = evidence.frames.get(name)
    if frame is None or frame.empty:
        return Evidence.empty(missing, evidence.source)
    return Evidence(frame, evidence.source)


def _paper_table(metric: str) -> pd.DataFrame:
    """Table 1 long with ``value`` = ``metric``, and Table 3's size and family per model."""
    long = table1_long()
    return long.dropna(subset=[metric]).assign(model=long["registry_name"], value=long[metric])


def _wide(frame: pd.DataFrame, value: str = "value") -> pd.DataFrame:
    return frame.pivot_table(index="model", columns="estimator", values=value, sort=False)


def _differences(
    diffs: pd.DataFrame,
    a: str,
    b: str | Sequence[str],
    metrics: Sequence[str] = ("ace", "brier"),
    sign: float = 1.0,
) -> pd.DataFrame:
    """Evidence rows of :func:`estimator_comparisons`' rows ``a`` vs ``b`` (one or several):
    unit "model, metric: a - b", or with ``sign`` -1 "model, metric: b - a" (the difference
    and its interval negated)."""
    bs = [b] if isinstance(b, str) else list(b)
    part = diffs[(diffs["a"] == a) & diffs["b"].isin(bs) & diffs["metric"].isin(list(metrics))]
    if sign > 0:
        units = [
            f"{m}, {k}: {a} - {o}" for m, k, o in zip(part["model"], part["metric"], part["b"])
        ]
        d, lo, hi = part["difference"], part["low"], part["high"]
    else:
        units = [
            f"{m}, {k}: {o} - {a}" for m, k, o in zip(part["model"], part["metric"], part["b"])
        ]
        d, lo, hi = -part["difference"], -part["high"], -part["low"]
    return pd.DataFrame(
        {
            "unit": units,
            "model": part["model"].to_numpy(),
            "metric": part["metric"].to_numpy(),
            "difference": d.to_numpy(),
            "low": lo.to_numpy(),
            "high": hi.to_numpy(),
        }
    )


def _threshold_rows(
    table: pd.DataFrame, estimators: Sequence[str], shift: float = 0.0, best: bool = False
) -> pd.DataFrame:
    """Evidence rows of the ACE of ``estimators`` per model, against a threshold: the ACE
    (``difference``), the lower end of the debiased ACE's interval (``low``) and the upper end
    of the ACE's (``high``) (:data:`THRESHOLD_NOTE`), minus ``shift``. With ``best``, one row
    per model: its best estimate (the lowest of each)."""
    part = table[(table["block"] == PAPER_BLOCK) & table["estimator"].isin(list(estimators))]
    frame = pd.DataFrame(
        {
            "model": part["model"],
            "estimator": part["estimator"],
            "difference": part["ace"] - shift,
            "low": part["ace_debiased_low"] - shift,
            "high": part["ace_high"] - shift,
            "floor": part["ace_floor"],
        }
    )
    if best:
        frame = (
            frame.groupby("model", sort=False)
            .agg(
                difference=("difference", "min"),
                low=("low", "min"),
                high=("high", "min"),
                floor=("floor", "min"),
            )
            .reset_index()
        )
        frame.insert(1, "estimator", "best estimate")
    frame.insert(0, "unit", frame["model"] + ", " + frame["estimator"])
    return frame.reset_index(drop=True)


# -- overconfidence (abstract, §7, §5.1) --------------------------------------------------------


def _gap_rows(gaps: pd.DataFrame, estimators: Sequence[str]) -> pd.DataFrame:
    part = gaps[gaps["estimator"].isin(list(estimators))]
    return pd.DataFrame(
        {
            "unit": part["model"] + ", " + part["estimator"],
            "model": part["model"],
            "estimator": part["estimator"],
            "difference": part["gap"],
            "low": part["gap_low"],
            "high": part["gap_high"],
            "n": part["n"],
        }
    ).reset_index(drop=True)


def _objective_rows(contrasts: pd.DataFrame, estimators: Sequence[str]) -> pd.DataFrame:
    part = contrasts[
        (contrasts["kind"] == "objectives") & contrasts["estimator"].isin(list(estimators))
    ]
    return part.assign(unit=part["unit"])[
        ["unit", "estimator", "difference", "low", "high"]
    ].reset_index(drop=True)


NEEDS_BOTH = (
    "causal and masked models in one build (the quick profile's tiny models, or "
    "`calib book --profile paper`)"
)


def _overconfidence(evidence: Evidence, quantifier, what: str) -> Judgement:
    models = quantifier(
        Evidence(evidence.frame, evidence.source, evidence.missing),
        ">",
        0.0,
        what=what,
        unit="model-estimator",
    )
    objectives = quantifiers.every(
        _part(evidence, "objectives", f"the comparison of MLMs with CLMs needs {NEEDS_BOTH}"),
        ">",
        0.0,
        what="mean signed gap of the MLMs - of the CLMs",
        unit="comparison",
    )
    return _combine([("the models", models), ("MLMs against CLMs", objectives)])


def overconfident_rule(evidence: Evidence) -> Judgement:
    """``overconfident``: C_Base's signed gap (mean confidence - accuracy) above 0 for most
    models, and the MLMs' mean gap above the CLMs'."""
    return _overconfidence(
        evidence, quantifiers.most, "mean C_Base - accuracy (signed calibration gap)"
    )


def intrinsic_overconfident_rule(evidence: Evidence) -> Judgement:
    """``intrinsic_overconfident``: the signed gap of C_Base and of C_Margin above 0 for every
    model ("consistently"), and the MLMs' mean gap above the CLMs' for both."""
    return _overconfidence(
        evidence, quantifiers.every, "mean confidence - accuracy of C_Base and C_Margin"
    )


def _gap_build(estimators: Sequence[str]):
    def build(result: CalibrationResult) -> Evidence:
        return Evidence(
            _gap_rows(result.gaps, estimators),
            "this build, signed gap with its 95% BCa interval over facts; MLMs - "
            "CLMs: 95% paired bootstrap over facts",
            frames={"objectives": _objective_rows(result.contrasts, estimators)},
        )

    return build


def base_overconfident_rule(evidence: Evidence) -> Judgement:
    """``base_overconfident``: C_Base's signed gap above 0 for every model."""
    return quantifiers.every(evidence, ">", 0.0, what="mean C_Base - accuracy", unit="model")


def base_overconfident_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _gap_rows(result.gaps, ["Base"]),
        "this build, signed gap with its 95% BCa interval over facts",
    )


# -- where the curves start and Margin's low range (§5.1) ---------------------------------------


def base_low_range_rule(evidence: Evidence) -> Judgement:
    """``base_low_range``: the lowest curve bin of C_Base lies at a higher confidence than
    C_Margin's (Margin extends the curve lower), for every model."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="mean confidence of the lowest curve bin, C_Base - C_Margin",
        unit="model",
    )


def base_low_range_build(result: CalibrationResult) -> Evidence:
    low = result.lowest
    return Evidence(
        low.assign(unit=low["model"])[
            ["unit", "difference", "low", "high", "lowest_a", "lowest_b", "n"]
        ],
        f"this build, {result.params.curve_bins} quantile bins, 95% paired "
        f"bootstrap over facts (bias-centred)",
    )


def margin_underconfident_low_rule(evidence: Evidence) -> Judgement:
    """``margin_underconfident_low``: among the instances whose C_Margin lies in the low range,
    mean confidence below accuracy (signed gap below 0) for most models."""
    lo, hi = LOW_RANGE
    return quantifiers.most(
        evidence,
        "<",
        0.0,
        what=f"signed gap of C_Margin on confidences in [{lo:g}, {hi:g})",
        unit="model",
    )


def margin_underconfident_low_build(result: CalibrationResult) -> Evidence:
    r = result.gap_ranges
    part = r[
        (r["estimator"] == "Margin")
        & np.isclose(r["range_low"], LOW_RANGE[0])
        & np.isclose(r["range_high"], LOW_RANGE[1])
    ].set_index("model")
    rows = []
    for model in result.models["model"]:
        if model in part.index:
            row = part.loc[model]
            rows.append(
                {
                    "unit": model,
                    "difference": row["gap"],
                    "low": row["gap_low"],
                    "high": row["gap_high"],
                    "n": int(row["n"]),
                }
            )
        else:  # no instance in the range: nothing to judge
            rows.append(
                {"unit": model, "difference": np.nan, "low": np.nan, "high": np.nan, "n": 0}
            )
    return Evidence(
        pd.DataFrame(rows, columns=["unit", "difference", "low", "high", "n"]),
        "this build, signed gap of the instances in the range, 95% BCa interval over them",
    )


# -- Margin against Base (§5.1) -------------------------------------------------------------------


def margin_bear_rule(evidence: Evidence) -> Judgement:
    """``margin_bear``: C_Margin is more reliable than C_Base: lower ACE and lower Brier score,
    for every model (each model-metric a unit)."""
    return quantifiers.every(
        evidence, "<", 0.0, what="metric(C_Margin) - metric(C_Base)", unit="model-metric"
    )


def margin_bear_paper() -> Evidence:
    rows = []
    for metric in ("ace", "brier"):
        wide = _wide(_paper_table(metric))
        rows.append(
            pd.DataFrame(
                {
                    "model": wide.index,
                    "metric": metric,
                    "value": (wide["Margin"] - wide["Base"]).to_numpy(),
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    return Evidence(printed(frame, "value", ["model", "metric"]), TABLE1)


def margin_bear_build(result: CalibrationResult) -> Evidence:
    return Evidence(_differences(result.differences, "Margin", "Base"), BUILD)


def margin_well_calibrated_rule(evidence: Evidence) -> Judgement:
    """``margin_well_calibrated``: C_Margin's ACE below 0.1 (Table 1's "well-calibrated") for
    every model."""
    return quantifiers.every(evidence, "<", WELL_CALIBRATED, what="ACE of C_Margin", unit="model")


def _printed_ace(estimator: str, models: Sequence[str] | None = None) -> pd.DataFrame:
    t = _paper_table("ace")
    t = t[t["estimator"] == estimator]
    if models is not None:
        t = t[t["model"].isin(list(models))]
    return printed(t, "value", "model")


def margin_well_calibrated_paper() -> Evidence:
    return Evidence(_printed_ace("Margin"), TABLE1)


def margin_well_calibrated_build(result: CalibrationResult) -> Evidence:
    return Evidence(_threshold_rows(result.table, ["Margin"]), THRESHOLD_NOTE)


#: the three models of "With C_Margin, gemma-7b, Llama-3.1-8B(IT) and Qwen3.5-9B(IT) achieve an
#: ACE of under 0.05"
UNDER_005: tuple[str, ...] = ("gemma-7b", "llama-3.1-8b-instruct", "qwen3.5-9b")


def margin_under_005_rule(evidence: Evidence) -> Judgement:
    """``margin_under_005``: C_Margin's ACE below 0.05 for gemma-7b, Llama-3.1-8B(IT) and
    Qwen3.5-9B(IT)."""
    return quantifiers.every(
        evidence,
        "<",
        GOOD_CALIBRATION,
        what="ACE of C_Margin",
        unit="model",
        required=UNDER_005,
        required_in="model",
    )


def margin_under_005_paper() -> Evidence:
    frame = _printed_ace("Margin", UNDER_005)
    return Evidence(frame.assign(model=frame["unit"]), TABLE1)


def margin_under_005_build(result: CalibrationResult) -> Evidence:
    rows = _threshold_rows(result.table, ["Margin"])
    rows = rows[rows["model"].isin(UNDER_005)].reset_index(drop=True)
    missing = [m for m in UNDER_005 if m not in set(rows["model"])]
    return Evidence(
        rows, THRESHOLD_NOTE, missing=f"this build has no {', '.join(missing)}" if missing else ""
    )


# -- Average (§5.1) -----------------------------------------------------------------------------


def average_best_rule(evidence: Evidence) -> Judgement:
    """``average_best``: C_Average's ACE below that of C_Base, C_Margin and C_Entropy, and its
    Brier score below all four others', for every model (no ACE of C_Consistency: the paper
    reports none)."""
    return quantifiers.every(
        evidence, "<", 0.0, what="metric(C_Average) - metric(other)", unit="model-metric-estimator"
    )


def _average_pairs(aggregation: str = "min") -> dict[str, list[str]]:
    """The estimators C_Average is compared with, per metric."""
    avg = calib_estimator("Average", aggregation)
    return {
        metric: [e for e in paper_estimators(aggregation, with_ace=metric == "ace") if e != avg]
        for metric in ("ace", "brier")
    }


def average_best_paper() -> Evidence:
    rows = []
    avg = calib_estimator("Average")
    for metric, others in _average_pairs().items():
        wide = _wide(_paper_table(metric))
        for o in others:
            rows.append(
                pd.DataFrame(
                    {
                        "model": wide.index,
                        "metric": metric,
                        "other": f"{avg} - {o}",
                        "value": (wide[avg] - wide[o]).to_numpy(),
                    }
                )
            )
    frame = pd.concat(rows, ignore_index=True)
    return Evidence(
        printed(frame, "value", ["model", "metric", "other"]),
        "Table 1, printed values (ACE of Base, Margin, Entropy; none printed for Consistency)",
    )


def average_best_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    avg = calib_estimator("Average", agg)
    frame = pd.concat(
        [
            _differences(result.differences, avg, others, [metric])
            for metric, others in _average_pairs(agg).items()
        ],
        ignore_index=True,
    )
    return Evidence(frame, BUILD)


def average_near_margin_large_rule(evidence: Evidence) -> Judgement:
    """``average_near_margin_large``: for most models above 1B parameters ``|ACE(C_Average) -
    ACE(C_Margin)|`` is below :data:`SMALL_ACE_DIFFERENCE`, and for Llama-3.1-8B(IT) C_Margin's ACE
    is below C_Average's."""
    small = quantifiers.most(
        _part(evidence, "large", "no model above 1B parameters in this build"),
        "<",
        SMALL_ACE_DIFFERENCE,
        what="|ACE(C_Average) - ACE(C_Margin)|",
        unit="model",
    )
    llama = quantifiers.every(
        _part(evidence, "llama", "this build has no llama-3.1-8b-instruct"),
        "<",
        0.0,
        what="ACE(C_Margin) - ACE(C_Average)",
        unit="model",
        required=("llama-3.1-8b-instruct",),
    )
    return _combine([("models above 1B", small), ("Llama-3.1-8B(IT)", llama)])


def _absolute(frame: pd.DataFrame) -> pd.DataFrame:
    """``|difference|`` with the interval of the absolute value."""
    d, lo, hi = (frame[c].to_numpy(float) for c in ("difference", "low", "high"))
    low = np.where(lo >= 0, lo, np.where(hi <= 0, -hi, 0.0))
    high = np.maximum(np.abs(lo), np.abs(hi))
    return frame.assign(difference=np.abs(d), low=low, high=high)


def average_near_margin_large_paper() -> Evidence:
    wide = _wide(_paper_table("ace"))
    avg = calib_estimator("Average")
    info = paper_info().set_index("model")
    big = [m for m in wide.index if info.at[m, "size_m"] > LARGE_MODEL_M]
    large = printed(
        pd.DataFrame(
            {"model": big, "value": (wide.loc[big, avg] - wide.loc[big, "Margin"]).abs().to_numpy()}
        ),
        "value",
        "model",
    )
    m = "llama-3.1-8b-instruct"
    llama = printed(
        pd.DataFrame({"model": [m], "value": [wide.at[m, "Margin"] - wide.at[m, avg]]}),
        "value",
        "model",
    )
    return Evidence(large, TABLE1, frames={"large": large, "llama": llama})


def average_near_margin_large_build(result: CalibrationResult) -> Evidence:
    avg = calib_estimator("Average", result.params.aggregation)
    d = _differences(result.differences, avg, "Margin", ["ace"])
    sizes = result.models.set_index("model")["size_m"]
    big = d[d["model"].map(sizes).fillna(0) > LARGE_MODEL_M]
    large = _absolute(big.assign(unit=big["model"]))
    llama = _differences(result.differences, avg, "Margin", ["ace"], sign=-1.0)
    llama = llama[llama["model"] == "llama-3.1-8b-instruct"]
    return Evidence(
        large,
        BUILD,
        frames={
            "large": large.reset_index(drop=True),
            "llama": llama.assign(unit=llama["model"]).reset_index(drop=True),
        },
    )


def consistency_entropy_rule(evidence: Evidence) -> Judgement:
    """``consistency_entropy_miscalibrated``: C_Entropy's ACE at or above 0.1 (not well
    calibrated; no ACE is printed for C_Consistency) and the Brier scores of C_Consistency and
    C_Entropy above C_Average's ("low discriminative power"), for every model."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="ACE(C_Entropy) - 0.1, Brier(C_Consistency or C_Entropy) - Brier(C_Average)",
        unit="check",
    )


def consistency_entropy_paper() -> Evidence:
    avg, con, ent = (calib_estimator(n) for n in MULTI_ESTIMATORS)
    ace = _wide(_paper_table("ace"))
    brier = _wide(_paper_table("brier"))
    rows = [
        pd.DataFrame(
            {
                "model": ace.index,
                "criterion": "ACE(Entropy) - 0.1",
                "value": (ace[ent] - WELL_CALIBRATED).to_numpy(),
            }
        )
    ]
    for e in (con, ent):
        rows.append(
            pd.DataFrame(
                {
                    "model": brier.index,
                    "criterion": f"Brier: {e} - {avg}",
                    "value": (brier[e] - brier[avg]).to_numpy(),
                }
            )
        )
    return Evidence(
        printed(pd.concat(rows, ignore_index=True), "value", ["model", "criterion"]), TABLE1
    )


def consistency_entropy_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    avg, con, ent = (calib_estimator(n, agg) for n in MULTI_ESTIMATORS)
    ace = _threshold_rows(result.table, [ent], shift=WELL_CALIBRATED)
    ace = ace.assign(unit=ace["model"] + ", ACE(Entropy) - 0.1")
    brier = _differences(result.differences, avg, [con, ent], ["brier"], sign=-1.0)
    return Evidence(
        pd.concat(
            [
                ace[["unit", "model", "difference", "low", "high"]],
                brier[["unit", "model", "difference", "low", "high"]],
            ],
            ignore_index=True,
        ),
        f"{BUILD}; for the ACE of Entropy: {THRESHOLD_NOTE}",
    )


# -- sizes and families (§5.1) --------------------------------------------------------------------


def larger_better_rule(evidence: Evidence) -> Judgement:
    """``larger_better``: for every estimator and both metrics, most families' ACE (Brier)
    falls at every step up in size (a family supports when every step's interval lies below
    0, contradicts when one lies above; one family against is not "does not hold")."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or "no family with two sizes", evidence.source)
    status = quantifiers.unit_status(frame, "<", 0.0)
    frame = frame.assign(status=status)
    cells, parts = [], []
    for (est, metric), cell in frame.groupby(["estimator", "metric"], sort=False):
        fams = []
        for _, fam in cell.groupby("family", sort=False):
            s = list(fam["status"])
            fams.append(
                every_verdict(
                    s.count(quantifiers.SUPPORTS), s.count(quantifiers.CONTRADICTS), len(s)
                )
            )
        sup, con = fams.count(HOLDS), fams.count(FAILS)
        v = most_verdict(sup, con, len(fams))
        cells.append(v)
        parts.append(
            f"{est} {metric}: {sup} of {len(fams)} famil"
            f"{'y' if len(fams) == 1 else 'ies'} in line, {con} against, "
            f"{len(fams) - sup - con} undecided -> {v.value}"
        )
    where = f" ({evidence.source})" if evidence.source else ""
    text = (
        "per estimator and metric, whether most families' metric falls at every size step"
        f"{where}: " + "; ".join(parts)
    )
    verdict = FAILS if FAILS in cells else HOLDS if all(v == HOLDS for v in cells) else UNDECIDED
    reason = (
        ""
        if verdict != UNDECIDED
        else (
            "for some estimator and metric the families' intervals decide neither way: "
            + ", ".join(p for p, v in zip(parts, cells) if v == UNDECIDED)
        )
    )
    return Judgement(verdict, text, reason)


def _steps(contrasts: pd.DataFrame) -> pd.DataFrame:
    part = contrasts[contrasts["kind"] == "size step"]
    return part.assign(family=part["unit"].str.split(":").str[0])[
        ["unit", "family", "estimator", "metric", "a", "b", "difference", "low", "high"]
    ].reset_index(drop=True)


def larger_better_paper() -> Evidence:
    return Evidence(
        _steps(paper_contrasts(kinds=["size step"])),
        "Tables 1 and 3, printed values, every consecutive size step",
    )


def larger_better_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _steps(result.contrasts),
        BUILD,
        missing="no family with two or more sizes among this build's models",
    )


def _kind_rows(contrasts: pd.DataFrame, kind: str) -> pd.DataFrame:
    part = contrasts[contrasts["kind"] == kind]
    return part[["unit", "metric", "estimator", "a", "b", "difference", "low", "high"]].reset_index(
        drop=True
    )


def best_families_rule(evidence: Evidence) -> Judgement:
    """``best_families``: the Llama and gemma families have a lower mean ACE and a lower mean
    Brier score (over their models and the paper's estimators) than every other family."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="family mean(Llama 3 or Gemma) - family mean(other)",
        unit="family comparison",
        required=BEST_FAMILIES,
        required_in="a",
    )


def best_families_paper() -> Evidence:
    return Evidence(
        _kind_rows(paper_contrasts(kinds=["families"]), "families"),
        "Table 1, printed values, means over each family's models and the paper's estimators",
    )


def best_families_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(result.contrasts, "families"),
        BUILD,
        missing="this build lacks the Llama 3 or Gemma family, or another family",
    )


def gemma3_worse_rule(evidence: Evidence) -> Judgement:
    """``gemma3_worse``: the gemma-3 family's mean accuracy (over the paraphrases, Table 3) is
    below the gemma family's, and its mean ACE and Brier score above."""
    return quantifiers.every(
        evidence, ">", 0.0, what="mean(worse) - mean(better) per metric", unit="metric"
    )


def gemma3_worse_paper() -> Evidence:
    return Evidence(
        _kind_rows(paper_contrasts(kinds=["gemma-3"]), "gemma-3"),
        "Table 1 (ACE, Brier) and Table 3 (accuracy over all templates), printed "
        "values, family means",
    )


def gemma3_worse_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(result.contrasts, "gemma-3"),
        BUILD,
        missing="this build lacks a gemma or a gemma-3 model",
    )


def over_1b_well_calibrated_rule(evidence: Evidence) -> Judgement:
    """``over_1b_well_calibrated``: every model above 1B parameters has a best estimate (the
    lowest ACE of C_Base, C_Margin, C_Average, C_Entropy) of at most 0.1."""
    return quantifiers.every(
        evidence, "<=", WELL_CALIBRATED, what="ACE of the model's best estimate", unit="model"
    )


def over_1b_well_calibrated_paper() -> Evidence:
    info = paper_info().set_index("model")
    t = _paper_table("ace")
    best = t.groupby("model", sort=False)["value"].min().reset_index()
    best = best[best["model"].map(info["size_m"]) > LARGE_MODEL_M]
    return Evidence(printed(best, "value", "model"), TABLE1)


def over_1b_well_calibrated_build(result: CalibrationResult) -> Evidence:
    agg = result.params.aggregation
    rows = _threshold_rows(result.table, paper_estimators(agg, with_ace=True), best=True)
    sizes = result.models.set_index("model")["size_m"]
    rows = rows[rows["model"].map(sizes).fillna(0) > LARGE_MODEL_M].reset_index(drop=True)
    return Evidence(rows, THRESHOLD_NOTE, missing="no model above 1B parameters in this build")


def modernbert_rule(evidence: Evidence) -> Judgement:
    """``modernbert``: ModernBERT's C_Base ACE is comparable to BERT's and RoBERTa's (the
    family means differ by less than :data:`SMALL_ACE_DIFFERENCE`) and its C_Average ACE is
    lower."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what=f"|Base difference| - {SMALL_ACE_DIFFERENCE:g}, Average "
        f"difference (ModernBERT - BERT/RoBERTa)",
        unit="check",
    )


def _modernbert_rows(contrasts: pd.DataFrame) -> pd.DataFrame:
    rows = _kind_rows(contrasts, "ModernBERT")
    base = rows[rows["estimator"] == "Base"]
    base = _absolute(base)
    base = base.assign(
        unit=f"Base ACE: |ModernBERT - BERT/RoBERTa| - {SMALL_ACE_DIFFERENCE:g}",
        difference=base["difference"] - SMALL_ACE_DIFFERENCE,
        low=base["low"] - SMALL_ACE_DIFFERENCE,
        high=base["high"] - SMALL_ACE_DIFFERENCE,
    )
    avg = rows[rows["estimator"] != "Base"]
    avg = avg.assign(unit="Average ACE: ModernBERT - BERT/RoBERTa")
    return pd.concat([base, avg], ignore_index=True)


def modernbert_paper() -> Evidence:
    return Evidence(
        _modernbert_rows(paper_contrasts(kinds=["ModernBERT"])),
        "Table 1, printed values, family means",
    )


def modernbert_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _modernbert_rows(result.contrasts),
        BUILD,
        missing="this build lacks a ModernBERT model, or a BERT or RoBERTa one",
    )


def xlmr_worst_rule(evidence: Evidence) -> Judgement:
    """``xlmr_worst``: xlm-roberta-large has a lower accuracy (over the paraphrases) and a
    higher mean ACE and Brier score (over the paper's estimators) than the mean of the other
    MLMs."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        what="how much worse xlm-roberta-large is than the other MLMs' mean",
        unit="metric",
    )


def xlmr_worst_paper() -> Evidence:
    return Evidence(
        _kind_rows(paper_contrasts(kinds=["xlm-roberta-large"]), "xlm-roberta-large"),
        "Table 1 (ACE, Brier) and Table 3 (accuracy over all templates), printed values",
    )


def xlmr_worst_build(result: CalibrationResult) -> Evidence:
    return Evidence(
        _kind_rows(result.contrasts, "xlm-roberta-large"),
        BUILD,
        missing="this build lacks xlm-roberta-large or another MLM",
    )


# -- Appendices D and E ---------------------------------------------------------------------------


def ace_accuracy_rule(evidence: Evidence) -> Judgement:
    """``ace_accuracy``: the correlation of ACE with accuracy (over the paraphrases) across
    models below 0 for C_Margin and C_Average (Figure 9's estimators)."""
    return quantifiers.every(
        evidence, "<", 0.0, what="Pearson r of ACE with accuracy across models", unit="estimator"
    )


def _correlation_rows(corr: pd.DataFrame, aggregation: str = "min") -> pd.DataFrame:
    names = [calib_estimator(e, aggregation) for e in FIGURE10]
    part = corr[corr["estimator"].isin(names) & (corr["n_used"] > 0)]
    return part.rename(columns={"estimator": "unit", "r": "difference"})[
        ["unit", "difference", "low", "high", "n"]
    ].reset_index(drop=True)


def ace_accuracy_paper() -> Evidence:
    corr = ace_accuracy_correlation(
        table1_long(), estimators=[calib_estimator(e) for e in FIGURE10], n_bootstrap=1000, seed=0
    )
    return Evidence(
        _correlation_rows(corr),
        "Tables 1 and 3 (computed here over the paper's 25 models), 95% bootstrap "
        "interval over models",
    )


def ace_accuracy_build(result: CalibrationResult) -> Evidence:
    rows = _correlation_rows(result.correlation, result.params.aggregation)
    return Evidence(
        rows,
        "this build, accuracy over the five paraphrases, 95% bootstrap interval over models",
        missing=(
            f"a correlation across models needs at least "
            f"{MIN_MODELS_FOR_CORRELATION} models; this build has "
            f"{len(result.models)}"
        ),
    )


def selective_rule(evidence: Evidence) -> Judgement:
    """``selective``: C_Margin and C_Average tell right from wrong answers (AUROC of confidence
    for correctness above 0.5) for every model."""
    return quantifiers.every(
        evidence, ">", 0.5, what="AUROC of confidence for correctness", unit="model-estimator"
    )


def selective_build(result: CalibrationResult) -> Evidence:
    names = [calib_estimator(e, result.params.aggregation) for e in FIGURE10]
    s = result.selective[result.selective["estimator"].isin(names)]
    return Evidence(
        pd.DataFrame(
            {
                "unit": s["model"] + ", " + s["estimator"],
                "difference": s["auroc"],
                "low": s["auroc_low"],
                "high": s["auroc_high"],
                "n": s["n"],
            }
        ).reset_index(drop=True),
        "this build, AUROC with its 95% BCa interval over facts (beyond the paper)",
    )


#: Appendix E's example model
SELECTIVE_MODEL = "gemma-7b"


def selective_gemma7b_rule(evidence: Evidence) -> Judgement:
    """``selective_gemma7b``: for gemma-7b, rejecting the instances whose C_Average is below
    0.1 rejects less than 30% and raises the accuracy of the rest by about 15 points (read as
    between 10 and 20)."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="each stated bound (below 0: met)",
        unit="bound",
        required=(SELECTIVE_MODEL,),
        required_in="model",
    )


def selective_gemma7b_build(result: CalibrationResult) -> Evidence:
    ex = result.selective_example
    ex = ex[ex["model"] == SELECTIVE_MODEL]
    if ex.empty:
        return Evidence.empty(f"this build has no {SELECTIVE_MODEL}")
    r = ex.iloc[0]
    rejected = text_value("selective_gemma7b_rejected") / 100
    gain = text_value("selective_gemma7b_gain") / 100
    rows = [
        (
            f"share rejected - {rejected:g}",
            r["rejected"] - rejected,
            r["rejected_low"] - rejected,
            r["rejected_high"] - rejected,
        ),
        (
            f"{gain - 0.05:g} - accuracy gain",
            gain - 0.05 - r["gain"],
            gain - 0.05 - r["gain_high"],
            gain - 0.05 - r["gain_low"],
        ),
        (
            f"accuracy gain - {gain + 0.05:g}",
            r["gain"] - gain - 0.05,
            r["gain_low"] - gain - 0.05,
            r["gain_high"] - gain - 0.05,
        ),
    ]
    return Evidence(
        pd.DataFrame(
            [
                {
                    "unit": f"{SELECTIVE_MODEL}: {u}",
                    "model": SELECTIVE_MODEL,
                    "difference": d,
                    "low": lo,
                    "high": hi,
                }
                for u, d, lo, hi in rows
            ]
        ),
        "this build, 95% BCa intervals over facts",
    )


# -- beyond the paper ------------------------------------------------------------------------------


def recalibrated_baseline_rule(evidence: Evidence) -> Judgement:
    """``recalibrated_baseline``: C_Average has a lower ACE and a lower Brier score than C_Base
    after temperature scaling (cross-fitted over relations), for every model."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="metric(C_Average) - metric(Base (temperature))",
        unit="model-metric",
    )


def recalibrated_baseline_build(result: CalibrationResult) -> Evidence:
    avg = calib_estimator("Average", result.params.aggregation)
    rows = _differences(result.differences, avg, f"Base{TEMPERATURE}")
    return Evidence(
        rows,
        f"{BUILD}; Base (temperature) cross-fitted over {result.folds} folds of relations",
        missing="fewer than two relations in this build: nothing to cross-fit",
    )


ANY_MODEL = "any model on BEAR"
PAPER_PROFILE = "`calib book --profile paper` (a GPU machine with the Hugging Face hub)"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="overconfident",
        paper="kissling2026",
        section="Abstract, §7",
        quote="most models, but especially those pre-trained with the masking objective, are "
        "overconfident",
        statement="Most models are overconfident (C_Base's mean confidence above its "
        "accuracy), and the masked models more so than the causal ones (the MLMs' "
        "mean signed gap above the CLMs')",
        quantifier="most",
        metrics=("gap",),
        about="every model; CLMs against MLMs",
        chapter="calibration",
        rule=overconfident_rule,
        paper_evidence=None,
        build_evidence=_gap_build(["Base"]),
        paper_note="the paper prints no signed measure: over- and underconfidence are read "
        "off Figure 2's curves, which print no numbers (Table 1's ACE and Brier "
        "are unsigned)",
        needs=NEEDS_BOTH,
    ),
    Claim(
        key="intrinsic_overconfident",
        paper="kissling2026",
        section="§7",
        quote="logit-based intrinsic confidences are consistently overconfident, a tendency "
        "more pronounced in MLMs",
        statement="C_Base and C_Margin are overconfident for every model (signed gap above "
        "0), and more so for the MLMs than for the CLMs",
        quantifier="every",
        metrics=("gap",),
        about="every model; CLMs against MLMs",
        chapter="calibration",
        rule=intrinsic_overconfident_rule,
        paper_evidence=None,
        build_evidence=_gap_build(["Base", "Margin"]),
        paper_note="the paper prints no signed measure (Figure 2 prints no numbers)",
        needs=NEEDS_BOTH,
    ),
    Claim(
        key="base_overconfident",
        paper="kissling2026",
        section="§5.1",
        quote="where we see that $C_{\\text{Base}}$ is markedly overconfident",
        statement="C_Base is overconfident (mean confidence above accuracy) for every model",
        quantifier="every",
        metrics=("gap",),
        about="every model (Figure 2 shows some)",
        chapter="calibration",
        rule=base_overconfident_rule,
        paper_evidence=None,
        build_evidence=base_overconfident_build,
        paper_note="Figure 2 prints no numbers",
        needs=ANY_MODEL,
    ),
    Claim(
        key="base_low_range",
        paper="kissling2026",
        section="§5.1",
        quote="For all models included in Figure 2, $C_{\\text{Base}}$ does not produce "
        "enough scores in the lower confidence ranges to derive a calibration curve "
        "that covers the full $[0,1]$ interval. $C_{\\text{Margin}}$, however, does "
        "extend the curve into these lower confidence regions",
        statement="C_Base's calibration curve starts at a higher confidence than C_Margin's "
        "(the mean confidence of its lowest of 20 quantile bins is higher), for "
        "every model",
        quantifier="every",
        metrics=("confidence",),
        about="every model (Figure 2 shows some)",
        chapter="calibration",
        rule=base_low_range_rule,
        paper_evidence=None,
        build_evidence=base_low_range_build,
        paper_note="Figure 2 prints no numbers",
        needs=ANY_MODEL,
    ),
    Claim(
        key="margin_underconfident_low",
        paper="kissling2026",
        section="§5.1",
        quote="$C_{\\text{Margin}}$ can introduce underconfidence in the lower range of the "
        "confidence scores, pushing the calibration curve above the identity line",
        statement="Among the instances with a C_Margin below 0.25, C_Margin is "
        'underconfident (mean confidence below accuracy) for most models ("can '
        'introduce": a tendency, not every model)',
        quantifier="most",
        metrics=("gap",),
        about="every model (Figure 2 shows some)",
        chapter="calibration",
        rule=margin_underconfident_low_rule,
        paper_evidence=None,
        build_evidence=margin_underconfident_low_build,
        paper_note="Figure 2 prints no numbers",
        needs=ANY_MODEL,
    ),
    Claim(
        key="margin_bear",
        paper="kissling2026",
        section="§5.1",
        quote="$\\bm{C_{\\text{Margin}}}$ scores are more reliable than $\\bm{C_{\\text{Base}}.}$",
        statement="C_Margin is more reliable than C_Base: a lower ACE and a lower Brier "
        'score, for every model ("more reliable" is what the paper says of both '
        "metrics together: Appendix F's \"outperforms C_Base across all models and "
        "both evaluation metrics, highlighting it as a more reliable confidence "
        'estimate")',
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=margin_bear_rule,
        paper_evidence=margin_bear_paper,
        build_evidence=margin_bear_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="margin_well_calibrated",
        paper="kissling2026",
        section="§5.1",
        quote="$C_{\\text{Margin}}$ emerged as a consistently well-calibrated method across "
        "all LMs",
        statement="C_Margin is well calibrated (ACE below 0.1, Table 1's caption) for every model",
        quantifier="every",
        metrics=("ace",),
        about="every model",
        chapter="calibration",
        rule=margin_well_calibrated_rule,
        paper_evidence=margin_well_calibrated_paper,
        build_evidence=margin_well_calibrated_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="margin_under_005",
        paper="kissling2026",
        section="§5.1",
        quote="With $C_{\\text{Margin}}$, gemma-7b, Llama-3.1-8B(IT) and Qwen3.5-9B(IT) "
        "achieve an ACE of under 0.05",
        statement="C_Margin's ACE is below 0.05 for gemma-7b, Llama-3.1-8B(IT) and Qwen3.5-9B(IT)",
        quantifier="every",
        metrics=("ace",),
        about=", ".join(UNDER_005),
        chapter="calibration",
        rule=margin_under_005_rule,
        paper_evidence=margin_under_005_paper,
        build_evidence=margin_under_005_build,
        needs=f"{', '.join(UNDER_005)} in the build ({PAPER_PROFILE})",
    ),
    Claim(
        key="average_best",
        paper="kissling2026",
        section="§5.1",
        quote="clearly outperforms the other approaches across all models in terms of "
        "both Brier Score and ACE",
        statement="C_Average has a lower ACE than C_Base, C_Margin and C_Entropy and a lower "
        "Brier score than all four other estimates, for every model (C_Consistency "
        "has no ACE in the paper)",
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=average_best_rule,
        paper_evidence=average_best_paper,
        build_evidence=average_best_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="average_near_margin_large",
        paper="kissling2026",
        section="§5.1",
        quote="for larger models (for example, gemma-7b and Qwen3.5-9B(IT)), the difference "
        "between $C_{\\text{Average}}$ and $C_{\\text{Margin}}$ is often small, with "
        "$C_{\\text{Margin}}$ providing better-aligned scores than "
        "$C_{\\text{Average}}$ for Llama-3.1-8B(IT)",
        statement=f"For most models above 1B parameters the ACEs of C_Average and C_Margin "
        f'differ by less than {SMALL_ACE_DIFFERENCE:g} ("small": less than the '
        f"ACE the paper calls good calibration), and for Llama-3.1-8B(IT) C_Margin's "
        f"ACE is below C_Average's",
        quantifier="most",
        metrics=("ace",),
        about="models above 1B parameters; Llama-3.1-8B(IT)",
        chapter="calibration",
        rule=average_near_margin_large_rule,
        paper_evidence=average_near_margin_large_paper,
        build_evidence=average_near_margin_large_build,
        paper_note=(
            '"small" is calib\'s reading: at 0.02 instead of 0.05 only 5 of the 11 '
            "models above 1B in Table 1 would count (gemma-7b, the Llama-3.2-3B and "
            "-3.1-8B, Qwen3.5-4B and -9B)"
        ),
        needs=f"models above 1B parameters and llama-3.1-8b-instruct ({PAPER_PROFILE})",
    ),
    Claim(
        key="consistency_entropy_miscalibrated",
        paper="kissling2026",
        section="§5.1",
        quote="$C_{\\text{Consistency}}$ and $C_{\\text{Entropy}}$ provide very "
        "mis-calibrated scores with low discriminative power",
        statement="C_Entropy is not well calibrated (ACE at least 0.1) and C_Consistency and "
        "C_Entropy have a higher Brier score (calibration and discriminative power, "
        "§4.3) than C_Average, for every model",
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=consistency_entropy_rule,
        paper_evidence=consistency_entropy_paper,
        build_evidence=consistency_entropy_build,
        needs=ANY_MODEL,
    ),
    Claim(
        key="larger_better",
        paper="kissling2026",
        section="§5.1",
        quote="For most model families, we see that by increasing model size, ACEs and "
        "Brier Scores decrease. This applies to all confidence estimation methods.",
        statement="For every estimator, ACE and Brier score fall at every step up in size in "
        "most model families (a family with one step against it contradicts it "
        "for that estimator and metric; one family against is not enough)",
        quantifier="most",
        metrics=("ace", "brier"),
        about="families with two or more sizes",
        chapter="calibration",
        rule=larger_better_rule,
        paper_evidence=larger_better_paper,
        build_evidence=larger_better_build,
        needs=f"two or more sizes of one family, e.g. opt-125m, opt-350m, opt-1.3b "
        f"({PAPER_PROFILE})",
    ),
    Claim(
        key="best_families",
        paper="kissling2026",
        section="§5.1",
        quote="The model families with the overall lowest ACE and Brier Scores are LlaMA and gemma",
        statement="The Llama 3 and Gemma families have a lower mean ACE and a lower mean "
        'Brier score ("overall": over their models and every estimator the paper '
        "reports) than every other family",
        quantifier="comparison",
        metrics=("ace", "brier"),
        about="model families",
        chapter="calibration",
        rule=best_families_rule,
        paper_evidence=best_families_paper,
        build_evidence=best_families_build,
        paper_note=(
            "per estimator, Llama 3 and Gemma are the two lowest families for Base, "
            "Margin and Average in ACE and for every estimator but Entropy in Brier; "
            "Llama's high Entropy ACE moves OPT and Qwen3.5 below it in the mean"
        ),
        needs=f"models of the Llama 3 and Gemma families and of another family ({PAPER_PROFILE})",
    ),
    Claim(
        key="gemma3_worse",
        paper="kissling2026",
        section="§5.1",
        quote="Newer gemma-3 models exhibit lower accuracy (see Appendix A) and worse "
        "calibration than the original gemma family.",
        statement="The gemma-3 family has a lower mean accuracy (over the paraphrases, as "
        "Table 3) and a higher mean ACE and Brier score than the gemma family",
        quantifier="comparison",
        metrics=("accuracy", "ace", "brier"),
        about="the gemma-3 and gemma families",
        chapter="calibration",
        rule=gemma3_worse_rule,
        paper_evidence=gemma3_worse_paper,
        build_evidence=gemma3_worse_build,
        needs=f"a gemma model (gemma-2b or gemma-7b) beside a gemma-3 one ({PAPER_PROFILE})",
    ),
    Claim(
        key="over_1b_well_calibrated",
        paper="kissling2026",
        section="§5.1",
        quote="all models larger than 1B parameters, achieve an $\\emph{ACE}\\leq 0.1$ with "
        "their best estimate",
        statement="Every model above 1B parameters has an ACE of at most 0.1 with its best "
        "estimate (the lowest of C_Base, C_Margin, C_Average, C_Entropy)",
        quantifier="every",
        metrics=("ace",),
        about="models above 1B parameters",
        chapter="calibration",
        rule=over_1b_well_calibrated_rule,
        paper_evidence=over_1b_well_calibrated_paper,
        build_evidence=over_1b_well_calibrated_build,
        paper_note="gpt2-xl (1.6B, Table 3) has no row in Table 1",
        needs=f"models above 1B parameters ({PAPER_PROFILE})",
    ),
    Claim(
        key="modernbert",
        paper="kissling2026",
        section="§5.1",
        quote="the ModernBERT’s $C_{\\text{Base}}$ confidences are comparable to BERT and "
        "RoBERTa, however with $C_{\\text{Average}}$ ModernBERT is better-calibrated",
        statement=f"ModernBERT's mean C_Base ACE differs from BERT's and RoBERTa's by less "
        f'than {SMALL_ACE_DIFFERENCE:g} ("comparable"), and its mean C_Average '
        f"ACE is lower",
        quantifier="comparison",
        metrics=("ace",),
        about="ModernBERT against BERT and RoBERTa",
        chapter="calibration",
        rule=modernbert_rule,
        paper_evidence=modernbert_paper,
        build_evidence=modernbert_build,
        needs=f"a ModernBERT model beside BERT or RoBERTa ({PAPER_PROFILE})",
    ),
    Claim(
        key="xlmr_worst",
        paper="kissling2026",
        section="§5.1",
        quote="xlm-roberta-large deviates from the other MLMs with worse accuracy and calibration",
        statement="xlm-roberta-large has a lower accuracy (over the paraphrases) and a "
        "higher mean ACE and Brier score (over the paper's estimators) than the "
        "other MLMs on average",
        quantifier="comparison",
        metrics=("accuracy", "ace", "brier"),
        about="xlm-roberta-large against the other MLMs",
        chapter="calibration",
        rule=xlmr_worst_rule,
        paper_evidence=xlmr_worst_paper,
        build_evidence=xlmr_worst_build,
        paper_note=(
            "against xlm-roberta-base alone it would not hold: its accuracy (11.2%) "
            "and its C_Base ACE (0.585) are worse than xlm-roberta-large's"
        ),
        needs=f"xlm-roberta-large beside other MLMs ({PAPER_PROFILE})",
    ),
    Claim(
        key="ace_accuracy",
        paper="kissling2026",
        section="Appendix D",
        quote="We find an overall negative correlation between accuracy and ACE",
        statement="ACE is negatively correlated with accuracy (over the paraphrases) across "
        "models, for C_Margin and C_Average (Figure 9's estimators)",
        quantifier="every",
        metrics=("ace", "accuracy"),
        about="the models of a build, per estimator",
        chapter="calibration",
        rule=ace_accuracy_rule,
        paper_evidence=ace_accuracy_paper,
        build_evidence=ace_accuracy_build,
        needs=f"at least {MIN_MODELS_FOR_CORRELATION} models (the quick profile, "
        f"`-p models`, or {PAPER_PROFILE})",
    ),
    Claim(
        key="selective",
        paper="kissling2026",
        section="Appendix E",
        quote="These curves show that the confidence estimates are effective for selective "
        "prediction.",
        statement="C_Margin and C_Average rank right answers above wrong ones (AUROC of "
        "confidence for correctness above 0.5), for every model",
        quantifier="every",
        metrics=("auroc",),
        about="every model, C_Margin and C_Average",
        chapter="calibration",
        rule=selective_rule,
        paper_evidence=None,
        build_evidence=selective_build,
        paper_note="Figure 10 prints no numbers (AUROC is beyond the paper)",
        needs=ANY_MODEL,
    ),
    Claim(
        key="selective_gemma7b",
        paper="kissling2026",
        section="Appendix E",
        quote="for gemma-7b, applying a confidence threshold of 0.1 to $C_{\\text{Average}}$ "
        "increases accuracy by about 15 percentage points while rejecting less than 30% "
        "of the dataset",
        statement="For gemma-7b, rejecting the instances with C_Average below 0.1 rejects "
        "less than 30% of them and raises the accuracy of the rest by about 15 "
        "points (read as 10 to 20)",
        quantifier="one model",
        metrics=("accuracy",),
        about="gemma-7b",
        chapter="calibration",
        rule=selective_gemma7b_rule,
        paper_evidence=None,
        build_evidence=selective_gemma7b_build,
        paper_note="Figure 10 prints no numbers; the text's example is the claim itself",
        needs=f"gemma-7b in the build ({PAPER_PROFILE})",
    ),
    Claim(
        key="recalibrated_baseline",
        paper="kissling2026",
        section="§5.1",
        quote="is the best-calibrated estimate",
        statement="Beyond the paper: C_Average has a lower ACE and a lower Brier score than "
        "C_Base recalibrated by temperature scaling (cross-fitted over relations), "
        "for every model",
        quantifier="every",
        metrics=("ace", "brier"),
        about="every model",
        chapter="calibration",
        rule=recalibrated_baseline_rule,
        paper_evidence=None,
        build_evidence=recalibrated_baseline_build,
        paper_note="the paper has no recalibration baseline: it compares its estimators "
        "with each other only (beyond the paper, issue 18)",
        needs="two or more BEAR relations (any model on BEAR)",
    ),
)
