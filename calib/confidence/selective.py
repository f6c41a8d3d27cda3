"""Selective prediction in one number per estimator (beyond the paper; its Appendix E shows
accuracy-rejection curves at nine thresholds, which rank estimators without an interval).

* **AUROC** of confidence for correctness (:func:`calib.confidence.metrics.auroc`): the
  probability that a correct instance gets a higher confidence than a wrong one (ties count
  half, as ``sklearn.metrics.roc_auc_score``). 0.5 is a confidence that cannot tell right from
  wrong; it does not depend on the accuracy.
* **AURC**, the area under the risk-coverage curve (:func:`calib.confidence.metrics.aurc`;
  Geifman & El-Yaniv, 2017): answer the instances in descending confidence; after the ``k``
  most confident the *selective risk* is their share of errors; AURC is the mean of the risk over
  ``k = 1 .. N``. Lower is better; it mixes ranking and accuracy (an estimator with more correct
  answers has a lower AURC at any ranking), so it compares estimators as tools for answering
  selectively, and AUROC compares their rankings. Ties in confidence are averaged: the errors of
  equally confident instances are spread evenly over them (the expected risk over every order of
  the ties), so the value never depends on row order. Rejected instances (voting aggregations)
  have confidence 0 and count as errors, answered last.

Both are metrics of :data:`calib.confidence.metrics.WEIGHTED`, so every bootstrap helper takes
them: :func:`selective_prediction` gives their BCa intervals per model and estimator,
:func:`selective_differences` the paired differences between estimators on the same resamples
(the machinery of ACE, :func:`calib.confidence.bootstrap.estimator_differences`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import estimator_differences
from calib.confidence.metrics import N_BINS, check_inputs
from calib.confidence.summary import summary

#: the selective-prediction metrics
SELECTIVE_METRICS: tuple[str, ...] = ("auroc", "aurc")


def risk_coverage_curve(confidence, correct) -> pd.DataFrame:
    """The risk-coverage curve behind AURC: one row per ``k = 1 .. N`` instances answered in
    descending confidence, with ``coverage`` (``k / N``), ``threshold`` (the ``k``-th highest
    confidence) and ``risk`` (expected share of errors among the ``k``, ties averaged as in
    :func:`calib.confidence.metrics.aurc`; the mean of ``risk`` is AURC).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.

    Returns
    -------
    pandas.DataFrame
        ``k``, ``coverage``, ``threshold``, ``risk``: one row per instance.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`calib.confidence.metrics.check_inputs`).
    """
    conf, corr = check_inputs(confidence, correct)
    order = np.argsort(-conf, kind="stable")
    c, err = conf[order], 1.0 - corr[order]
    starts = np.r_[0, np.flatnonzero(np.diff(c)) + 1]
    sizes = np.diff(np.r_[starts, len(c)])
    group_rate = np.add.reduceat(err, starts) / sizes
    smooth = np.repeat(group_rate, sizes)  # each tie group's errors spread evenly over it
    k = np.arange(1, len(c) + 1)
    return pd.DataFrame(
        {"k": k, "coverage": k / len(c), "threshold": c, "risk": np.cumsum(smooth) / k}
    )


def selective_prediction(
    estimates: pd.DataFrame,
    by: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> pd.DataFrame:
    """AUROC and AURC with their BCa intervals per group of an estimate table (default per
    model, dataset, estimator, template where present; see
    :func:`calib.confidence.summary.summary`). Columns ``by``, ``n``, ``auroc``,
    ``auroc_low``, ``auroc_high``, ``aurc``, ``aurc_low``, ``aurc_high``, ``accuracy``,
    ``accuracy_low``, ``accuracy_high`` (AURC depends on it), ``rejection_rate``.

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (:func:`calib.confidence.estimators.all_estimates`).
    by : sequence of str or None
        The grouping columns (default as :func:`calib.confidence.summary.summary`).
    n_boot : int
        Bootstrap resamples (default 1000; 0 skips the intervals, NaN).
    seed : int
        The resamples' seed (default 0).
    level : float
        The intervals' level (default 0.95).

    Returns
    -------
    pandas.DataFrame
        One row per group.

    Raises
    ------
    ValueError
        As :func:`calib.confidence.summary.summary`.
    """
    return summary(
        estimates,
        by=by,
        n_boot=n_boot,
        seed=seed,
        level=level,
        metrics=(*SELECTIVE_METRICS, "accuracy"),
    )


def selective_differences(
    estimates: pd.DataFrame,
    pairs: Sequence[tuple[str, str]] | None = None,
    by: Sequence[str] = ("model",),
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Paired bootstrap differences of AUROC and AURC between estimators
    (:func:`calib.confidence.bootstrap.estimator_differences` with ``metrics=("auroc",
    "aurc")``): columns ``by``, ``a``, ``b``, ``metric``, ``difference`` (a - b), ``low``,
    ``high``, ``method``, ``p_value``, ``n``, ``n_boot``. A higher AUROC and a lower AURC are
    better.

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (:func:`calib.confidence.estimators.all_estimates`).
    pairs : sequence of tuple of (str, str) or None
        The ``(a, b)`` estimator pairs (default as
        :func:`calib.confidence.bootstrap.estimator_differences`).
    by : sequence of str
        The grouping columns (default ``("model",)``).
    n_boot : int
        Bootstrap resamples (default 1000).
    seed : int
        The resamples' seed (default 0).
    level : float
        The intervals' level (default 0.95).
    n_bins : int
        Passed on to :func:`calib.confidence.bootstrap.estimator_differences` (default 20).

    Returns
    -------
    pandas.DataFrame
        One row per group, pair and metric.
    """
    return estimator_differences(
        estimates, pairs, SELECTIVE_METRICS, by, n_boot, seed, level, n_bins
    )
