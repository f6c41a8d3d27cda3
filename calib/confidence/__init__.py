"""Confidence: reductions, estimators (paper Eqs. 1-7), calibration metrics.

The stage after scoring, pure functions over pandas/numpy::

    score table --sentence_scores--> sentence scores --estimator--> estimates --metric--> numbers

=====================  =====================================================================
module                 holds
=====================  =====================================================================
``schema``             the sentence-score and estimate tables: keys, columns, checks
``reductions``         token scores -> sentence score (App. C), ``harmonic_mean`` H
``probabilities``      softmax over an instance's options, per-template predictions
``estimators``         Base, Margin (Eqs. 1-2), Average, Consistency, Entropy (Eqs. 3-7),
                       aggregation (min / max / vote-k), linguistic confidence
``metrics``            ACE, ECE, Brier, calibration curve, accuracy-rejection curve, accuracy;
                       beyond the paper: MCE, RMS, signed gap, AUROC, AURC
``subsample``          answer-set subsampling (§5.2)
``bootstrap``          seeded bootstrap intervals, paired differences, correlation intervals
``jackknife``          BCa's jackknife in linear time: closed-form leave-one-out, grouped
``summary``            one table of ACE / Brier / accuracy per estimator; reduction choice
``noise_floor``        the ACE of a perfectly calibrated estimator with the same confidences
``gap``                signed calibration gap (over/underconfident), per confidence range
``selective``          AUROC / AURC per estimator, paired differences, risk-coverage curve
``reliability``        reliability-diagram data: per-bin Wilson intervals, histogram
``recalibration``      temperature and Platt scaling, cross-fitted over relations
=====================  =====================================================================

The modules after ``summary`` are beyond the paper (the book labels them so).

From a score table to ACE and Brier per estimator::

    from calib.confidence import sentence_scores, all_estimates, summary
    sent = sentence_scores(scores)            # Appendix C "sum" reduction
    est = all_estimates(sent)                 # Base, Margin, Average/Consistency/Entropy (min)
    table = summary(est, n_boot=1000, seed=0)  # ACE, Brier, accuracy + 95% intervals
"""

from calib.confidence.bootstrap import (
    bootstrap_interval,
    bootstrap_metrics,
    correlation_interval,
    estimator_differences,
    paired_difference,
    paired_estimates_difference,
)
from calib.confidence.estimators import (
    AGGREGATIONS,
    all_estimates,
    average,
    base,
    consistency,
    entropy,
    entropy_normalised,
    linguistic,
    margin,
    rejection_rate,
)
from calib.confidence.gap import gap_by_range, signed_gaps
from calib.confidence.metrics import (
    accuracy,
    accuracy_per_relation,
    accuracy_rejection_curve,
    ace,
    aurc,
    auroc,
    brier,
    calibration_curve,
    ece,
    mce,
    rms_calibration_error,
    signed_gap,
)
from calib.confidence.noise_floor import floor_record, noise_floor
from calib.confidence.probabilities import (
    log_softmax,
    option_probabilities,
    template_predictions,
)
from calib.confidence.recalibration import (
    fit_platt,
    fit_temperature,
    platt_scaling,
    relation_folds,
    temperature_scaling,
)
from calib.confidence.reductions import REDUCTIONS, harmonic_mean, sentence_scores
from calib.confidence.reliability import (
    confidence_histogram,
    reliability_curve,
    reliability_diagram,
    wilson_interval,
)
from calib.confidence.schema import check_sentence_scores
from calib.confidence.selective import (
    risk_coverage_curve,
    selective_differences,
    selective_prediction,
)
from calib.confidence.subsample import subsample_options, subsample_repeats
from calib.confidence.summary import compare_reductions, gap_direction, summary

__all__ = [
    "AGGREGATIONS",
    "REDUCTIONS",
    "accuracy",
    "accuracy_per_relation",
    "accuracy_rejection_curve",
    "ace",
    "all_estimates",
    "aurc",
    "auroc",
    "average",
    "base",
    "bootstrap_interval",
    "bootstrap_metrics",
    "brier",
    "calibration_curve",
    "check_sentence_scores",
    "compare_reductions",
    "confidence_histogram",
    "consistency",
    "correlation_interval",
    "ece",
    "entropy",
    "entropy_normalised",
    "estimator_differences",
    "fit_platt",
    "fit_temperature",
    "floor_record",
    "gap_by_range",
    "gap_direction",
    "harmonic_mean",
    "linguistic",
    "log_softmax",
    "margin",
    # beyond the paper
    "mce",
    "noise_floor",
    "option_probabilities",
    "paired_difference",
    "paired_estimates_difference",
    "platt_scaling",
    "rejection_rate",
    "relation_folds",
    "reliability_curve",
    "reliability_diagram",
    "risk_coverage_curve",
    "rms_calibration_error",
    "selective_differences",
    "selective_prediction",
    "sentence_scores",
    "signed_gap",
    "signed_gaps",
    "subsample_options",
    "subsample_repeats",
    "summary",
    "temperature_scaling",
    "template_predictions",
    "wilson_interval",
]
