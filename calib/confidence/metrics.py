"""Calibration metrics (paper §4.3, Appendices D-E), scikit-learn style: arrays in, numbers out.

``confidence`` is an array of confidences, ``correct`` an array of booleans (or 0/1) of the
same length: one entry per instance of an estimate table. Confidences lie in ``[0, 1]`` for
every estimator but one: the paper's Entropy-Confidence (Eq. 7,
:func:`calib.confidence.estimators.entropy`) is ``1 -`` an entropy in nats and falls below 0
when the templates split into three or more answers. ACE, the Brier score and the curves are
defined for any real confidence and are computed for those as they are (ECE's first
equal-width bin also takes the confidences below 0); a confidence above 1 is an error.

* :func:`ace` -- Adaptive Calibration Error (Nixon et al., 2019), the paper's main metric:
  the instances are sorted into ``n_bins`` (20) *equal-count* bins whose edges are the
  ``0, 1/n_bins, ..., 1`` quantiles of the confidences (linear interpolation, as
  ``numpy.percentile``); an instance on an edge falls into the lower bin. Bins left empty
  because quantile edges coincide (many equal confidences) are dropped, and ACE is the
  *unweighted* mean over the remaining bins of ``|accuracy(bin) - mean confidence(bin)|``.
  This is the binning of ``sklearn.calibration.calibration_curve(strategy="quantile")``, which
  the authors' code uses.
* :func:`ece` -- Expected Calibration Error with ``n_bins`` *equal-width* bins on ``[0, 1]``
  (right-closed, the first also holding 0), the gaps weighted by the share of instances per bin.
* :func:`mce`, :func:`rms_calibration_error` -- the maximum and the root-mean-square calibration
  error over the equal-width bins of ECE, as torchmetrics defines them (``norm="max"``,
  ``norm="l2"``): ``max_b |accuracy_b - confidence_b|`` over the non-empty bins and
  ``sqrt(sum_b (n_b / N) (accuracy_b - confidence_b)^2)`` (beyond the paper).
* :func:`signed_gap` -- mean confidence minus accuracy: above 0 overconfident, below 0
  underconfident (beyond the paper; :mod:`calib.confidence.gap`).
* :func:`auroc`, :func:`aurc` -- selective prediction (beyond the paper; Appendix E shows only
  accuracy-rejection curves): the area under the ROC curve of confidence for correctness, and
  the area under the risk-coverage curve (:mod:`calib.confidence.selective`).
* :func:`brier` -- Brier score ``mean((confidence - correct)^2)``.
* :func:`calibration_curve` -- the per-bin data behind ACE / ECE (for reliability diagrams).
* :func:`accuracy_rejection_curve` -- reject instances below a confidence threshold.
* :func:`accuracy`, :func:`accuracy_per_relation` -- micro accuracy over instances.

Every metric is computed once, in a ``weighted_*`` function (the binned ones on the bins of
:func:`weighted_bins`), on *multiplicity weights* per instance: all ones for the plain metric,
resampling counts for the bootstrap (:mod:`calib.confidence.bootstrap`), so the two can never
disagree. The binned metrics (:data:`BINNED`) also take one correctness vector per row of a
``(rows, n)`` array with weights of one row: the simulated outcomes of the noise floor
(:mod:`calib.confidence.noise_floor`), binned once. Each pass over a ``(rows, n)`` block is
linear: a binned error needs per bin only the count and ``sum(correct - confidence)``, summed by
one ``numpy.add.reduceat`` per block; AURC's harmonic numbers of integer counts come from one
table of ``digamma`` values.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import special

from calib.confidence.schema import INSTANCE, require_columns

#: binning strategies: equal-count (ACE) and equal-width (ECE)
STRATEGIES: tuple[str, ...] = ("quantile", "uniform")
#: default number of bins (the paper's ACE uses 20)
N_BINS = 20


def check_inputs(confidence, correct) -> tuple[np.ndarray, np.ndarray]:
    """``(confidence, correct)`` as float arrays, or a ``ValueError`` saying what is wrong."""
    conf = np.asarray(confidence, dtype=float)
    corr_raw = np.asarray(correct)
    if conf.ndim != 1 or corr_raw.ndim != 1:
        raise ValueError(
            f"confidence and correct must be 1-D, got shapes {conf.shape} and {corr_raw.shape}"
        )
    if len(conf) != len(corr_raw):
        raise ValueError(f"confidence has {len(conf)} values but correct has {len(corr_raw)}")
    if len(conf) == 0:
        raise ValueError("no instances: confidence and correct are empty")
    bad = ~np.isfinite(conf)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"confidence[{i}] is {float(conf[i])!r}; expected finite values in [0, 1]")
    out = conf > 1
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise ValueError(
            f"confidence[{i}] is {float(conf[i])!r}; expected values in [0, 1] "
            f"(or below 0: the paper's Entropy-Confidence, Eq. 7), never above 1"
        )
    try:
        corr = corr_raw.astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"correct must hold booleans or 0/1 ({exc})") from None
    not01 = ~np.isin(corr, (0.0, 1.0))
    if not01.any():
        i = int(np.flatnonzero(not01)[0])
        raise ValueError(
            f"correct[{i}] is {np.asarray(corr_raw[i]).tolist()!r}; expected a boolean or 0/1"
        )
    return conf, corr


def _check_bins(n_bins: int, strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r}; expected one of {list(STRATEGIES)}")
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}")


def _lerp(a, b, t):
    """Linear interpolation exactly as ``numpy.quantile`` does it (``b - d*(1-t)`` for
    ``t >= 0.5``), so that quantile edges agree bit for bit."""
    d = b - a
    return np.where(t >= 0.5, b - d * (1 - t), a + d * t)


def _quantile_edges(conf_sorted: np.ndarray, cumw: np.ndarray, n_bins: int) -> np.ndarray:
    """Per row of weights, the ``0, 1/n_bins, .., 1`` quantiles of the weighted sample
    (each value repeated by its weight), with ``numpy.percentile``'s linear method."""
    n_rows, n = cumw.shape
    total = cumw[:, -1].astype(float)  # N per row
    q = np.linspace(0.0, 1.0, n_bins + 1) * 100 / 100  # as calibration_curve -> percentile
    virtual = (total[:, None] - 1) * q[None, :]
    prev = np.floor(virtual)
    gamma = virtual - prev
    above = virtual >= total[:, None] - 1
    prev = np.where(above, total[:, None] - 1, prev).astype(np.int64)
    nxt = np.where(above, prev, prev + 1)
    gamma = np.where(above, 0.0, gamma)

    def value_at(pos):  # value at position `pos` of each row's expanded sorted sample
        out = np.empty(pos.shape, dtype=np.int64)
        for r in range(n_rows):
            out[r] = np.searchsorted(cumw[r], pos[r], side="right")
        return conf_sorted[np.minimum(out, n - 1)]

    return _lerp(value_at(prev), value_at(nxt), gamma)


def _bounds(conf_sorted: np.ndarray, weights: np.ndarray, n_bins: int, strategy: str):
    """``(bounds, edges, cumw)``: bin ``k`` of a row holds the sorted instances
    ``bounds[k] .. bounds[k+1] - 1``. ``bounds`` and ``edges`` have one row per row of
    ``weights``, or a single row when every row shares them (equal-width bins, one row of
    weights); ``cumw`` is the row-wise cumulative weight (quantile bins) or ``None``."""
    n = weights.shape[1]
    cumw = None
    if strategy == "quantile":
        cumw = np.cumsum(weights, axis=1)
        edges = _quantile_edges(conf_sorted, cumw, n_bins)
    else:
        edges = np.linspace(0.0, 1.0, n_bins + 1)[None, :]
    # cut[r, k] = number of (sorted) instances with confidence <= inner edge k
    inner = edges[:, 1:-1]
    cut = np.searchsorted(conf_sorted, inner.ravel(), side="right").reshape(len(edges), -1)
    rows = len(edges)
    bounds = np.concatenate(
        [np.zeros((rows, 1), np.int64), cut, np.full((rows, 1), n, np.int64)], axis=1
    )
    return bounds, edges, cumw


def _bin_sums(values: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """Sums of ``values`` ``(rows, n)`` over each bin of ``bounds`` (one row per row of
    ``values``, or one row for all): one pass over the values, every row's non-empty bins
    summed by a single ``numpy.add.reduceat`` over the flattened rows (empty bins: 0)."""
    values = np.ascontiguousarray(values)
    rows, n = values.shape
    b = np.broadcast_to(bounds, (rows, bounds.shape[1]))
    full = b[:, 1:] > b[:, :-1]
    out = np.zeros(full.shape, values.dtype)
    # each row's first non-empty bin starts at its instance 0, so the last one ends at its end
    starts = (b[:, :-1] + (np.arange(rows, dtype=np.int64) * n)[:, None])[full]
    if len(starts):
        out[full] = np.add.reduceat(values.ravel(), starts)
    return out


def _counts(weights: np.ndarray, bounds: np.ndarray, cumw: np.ndarray | None) -> np.ndarray:
    """The weight in each bin, read off the cumulative weights where they are at hand."""
    if cumw is None or bounds.shape[0] != cumw.shape[0]:
        return _bin_sums(weights, bounds)
    at = np.take_along_axis(cumw, np.maximum(bounds - 1, 0), axis=1)
    return np.diff(np.where(bounds > 0, at, 0), axis=1)


def _check_rows(y: np.ndarray, w: np.ndarray) -> None:
    if y.shape[0] > 1 and w.shape[0] not in (1, y.shape[0]):
        raise ValueError(
            f"{y.shape[0]} correctness rows need weights of one row or as many, got {w.shape[0]}"
        )


def weighted_bins(
    conf_sorted: np.ndarray,
    corr_sorted: np.ndarray,
    weights: np.ndarray,
    n_bins: int = N_BINS,
    strategy: str = "quantile",
):
    """Binned sums for every row of ``weights`` (the one binning behind ACE, ECE and curves).

    ``conf_sorted`` ascending confidences with their ``corr_sorted`` correctness; ``weights``
    an integer array ``(rows, n)`` of multiplicities. Returns ``(count, sum_conf,
    sum_correct, edges)``, the first three ``(rows, n_bins)``, ``edges`` ``(rows, n_bins+1)``.
    An instance equal to an inner edge goes to the lower bin (``searchsorted(..., "left")``).

    ``corr_sorted`` may also be ``(draws, n)``, one correctness vector per row, with
    ``weights`` of one row: the bins (which depend on the confidences and weights only) are
    then computed once, and ``sum_correct`` has one row per draw (``count``, ``sum_conf`` and
    ``edges`` keep the one row of ``weights``).
    """
    _check_bins(n_bins, strategy)
    w = np.asarray(weights)
    y = np.asarray(corr_sorted)
    y = y[None, :] if y.ndim == 1 else y
    _check_rows(y, w)
    bounds, edges, cumw = _bounds(conf_sorted, w, n_bins, strategy)
    count = _counts(w, bounds, cumw)
    sum_conf = _bin_sums(w * conf_sorted[None, :], bounds)
    sum_corr = _bin_sums(w * y, bounds)
    return count, sum_conf, sum_corr, np.broadcast_to(edges, (w.shape[0], n_bins + 1))


def _bin_gaps(conf_sorted, corr_sorted, weights, n_bins: int, strategy: str):
    """``(count, gap)`` per row and bin of :func:`weighted_bins`, ``gap = sum_correct -
    sum_conf`` summed at once (what the four calibration errors need: one cumulative sum per
    row of weights instead of three, or one matrix product where the bins are shared)."""
    _check_bins(n_bins, strategy)
    w = np.asarray(weights)
    y = np.asarray(corr_sorted)
    y = y[None, :] if y.ndim == 1 else y
    _check_rows(y, w)
    bounds, _, cumw = _bounds(conf_sorted, w, n_bins, strategy)
    return _counts(w, bounds, cumw), _bin_sums(w * (y - conf_sorted[None, :]), bounds)


def weighted_ace(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """ACE for every row of multiplicity ``weights`` (see :func:`ace`): the unweighted mean
    over the non-empty bins of ``|sum_correct - sum_conf| / count``."""
    count, gap = _bin_gaps(conf_sorted, corr_sorted, weights, n_bins, "quantile")
    full = count > 0
    per_bin = np.where(full, np.abs(gap) / np.where(full, count, 1), 0.0)
    return per_bin.sum(axis=1) / full.sum(axis=1)


def _ece(count: np.ndarray, gap: np.ndarray) -> np.ndarray:
    return np.abs(gap).sum(axis=1) / count.sum(axis=1)


def _mce(count: np.ndarray, gap: np.ndarray) -> np.ndarray:
    full = count > 0
    return np.where(full, np.abs(gap) / np.where(full, count, 1), 0.0).max(axis=1)


def _rms(count: np.ndarray, gap: np.ndarray) -> np.ndarray:
    full = count > 0
    # sum_b (n_b / N) (acc_b - conf_b)^2 = sum_b (sy_b - sc_b)^2 / n_b / N
    sq = np.where(full, gap**2 / np.where(full, count, 1), 0.0).sum(axis=1) / count.sum(axis=1)
    return np.sqrt(sq)


#: the calibration errors of the equal-width bins, each from the bins' ``(count, gap)``
UNIFORM_ERRORS = {"ece": _ece, "mce": _mce, "rms": _rms}


def weighted_ece(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """ECE for every row of multiplicity ``weights`` (see :func:`ece`)."""
    return _ece(*_bin_gaps(conf_sorted, corr_sorted, weights, n_bins, "uniform"))


def weighted_mce(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """Maximum calibration error for every row of ``weights`` (see :func:`mce`)."""
    return _mce(*_bin_gaps(conf_sorted, corr_sorted, weights, n_bins, "uniform"))


def weighted_rms(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """Root-mean-square calibration error for every row of ``weights`` (see
    :func:`rms_calibration_error`)."""
    return _rms(*_bin_gaps(conf_sorted, corr_sorted, weights, n_bins, "uniform"))


def uniform_errors(
    conf_sorted, corr_sorted, weights, metrics: Sequence[str], n_bins: int = N_BINS
) -> dict[str, np.ndarray]:
    """``{metric: values}`` of several equal-width binned errors (:data:`UNIFORM_ERRORS`: ECE,
    MCE, RMS) of the same inputs, binned once: each the values of its ``weighted_*``
    function."""
    count, gap = _bin_gaps(conf_sorted, corr_sorted, weights, n_bins, "uniform")
    return {m: UNIFORM_ERRORS[m](count, gap) for m in metrics}


def weighted_brier(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """Brier score for every row of multiplicity ``weights`` (see :func:`brier`)."""
    w = np.asarray(weights, dtype=float)
    return w @ (conf_sorted - corr_sorted) ** 2 / w.sum(axis=1)


def weighted_accuracy(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """Accuracy for every row of multiplicity ``weights`` (see :func:`accuracy`)."""
    w = np.asarray(weights, dtype=float)
    return w @ corr_sorted / w.sum(axis=1)


def weighted_gap(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """Signed calibration gap for every row of ``weights`` (see :func:`signed_gap`)."""
    w = np.asarray(weights, dtype=float)
    return w @ (conf_sorted - corr_sorted) / w.sum(axis=1)


def weighted_confidence(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """The mean confidence for every row of multiplicity ``weights`` (a term of
    :mod:`calib.confidence.combined`: Figure 3's "average C_Base confidence")."""
    w = np.asarray(weights, dtype=float)
    return w @ conf_sorted / w.sum(axis=1)


def _tie_starts(conf_sorted: np.ndarray) -> np.ndarray:
    """Where each run of equal confidences starts in the ascending ``conf_sorted``."""
    return np.r_[0, np.flatnonzero(np.diff(conf_sorted)) + 1]


def weighted_auroc(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """AUROC of confidence for correctness for every row of ``weights`` (see :func:`auroc`):
    the share of (correct, wrong) pairs in which the correct instance has the higher confidence,
    ties counted half; NaN for a row without both kinds."""
    w = np.asarray(weights, dtype=float)
    starts = _tie_starts(conf_sorted)
    pos = np.add.reduceat(w * corr_sorted[None, :], starts, axis=1)  # correct, per tie group
    neg = np.add.reduceat(w * (1.0 - corr_sorted)[None, :], starts, axis=1)
    below = np.cumsum(neg, axis=1) - neg  # wrong instances with a lower confidence
    num = (pos * (below + 0.5 * neg)).sum(axis=1)
    den = pos.sum(axis=1) * neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def weighted_aurc(conf_sorted, corr_sorted, weights, n_bins: int = N_BINS) -> np.ndarray:
    """AURC for every row of ``weights`` (see :func:`aurc`).

    With the instances in descending confidence and ``k = 1 .. N`` (``N`` the total weight),
    ``AURC = (1/N) sum_k errors(top k) / k``, the errors of a tie group spread evenly over its
    members. For a tie group of total weight ``M`` with ``E`` errors, preceded by ``K`` instances
    with ``C`` errors, its ``k`` contribute ``sum_{j=1..M} (C + j E/M) / (K + j)
    = E + (C - K E/M) (H(K+M) - H(K))``, ``H`` the harmonic numbers (``digamma(x+1) + gamma``).
    """
    integral = np.asarray(weights).dtype.kind in "iub"
    w = np.asarray(weights, dtype=float)
    starts = _tie_starts(conf_sorted)
    err = w * (1.0 - corr_sorted)[None, :]
    if len(starts) < w.shape[1]:  # tie groups (ascending confidence)
        m, e = np.add.reduceat(w, starts, axis=1), np.add.reduceat(err, starts, axis=1)
    else:  # no ties: every instance its own group
        m, e = w, err
    total_m, total_e = m.sum(axis=1), e.sum(axis=1)
    # before a group (higher confidences) = the total minus the cumulative sum up to it
    k = total_m[:, None] - np.cumsum(m, axis=1)  # instances before the group
    c = total_e[:, None] - np.cumsum(e, axis=1)  # errors before the group
    rate = np.divide(e, m, out=np.zeros_like(e), where=m > 0)
    if integral and m.size:  # integer counts: H(j) from a table of digamma(j + 1), the same
        table = special.digamma(np.arange(int(total_m.max()) + 1) + 1.0)  # values, looked up
        harmonic = table[(k + m).astype(np.int64)]
        harmonic -= table[k.astype(np.int64)]
    else:
        harmonic = special.digamma(k + m + 1.0) - special.digamma(k + 1.0)
    rate *= k
    np.subtract(c, rate, out=rate)
    rate *= harmonic
    rate += e
    return rate.sum(axis=1) / total_m


#: the metrics that :mod:`calib.confidence.bootstrap` can resample, by name
WEIGHTED = {
    "ace": weighted_ace,
    "ece": weighted_ece,
    "brier": weighted_brier,
    "accuracy": weighted_accuracy,
    "mce": weighted_mce,
    "rms": weighted_rms,
    "gap": weighted_gap,
    "auroc": weighted_auroc,
    "aurc": weighted_aurc,
}
#: the binned calibration errors: they take ``(draws, n)`` correctness (noise floor)
BINNED: tuple[str, ...] = ("ace", "ece", "mce", "rms")


def sorted_inputs(confidence, correct) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated inputs sorted by confidence: ``(order, conf_sorted, corr_sorted)``."""
    conf, corr = check_inputs(confidence, correct)
    order = np.argsort(conf, kind="stable")
    return order, conf[order], corr[order]


def _point(metric: str, confidence, correct, n_bins: int) -> float:
    _, c, y = sorted_inputs(confidence, correct)
    return float(WEIGHTED[metric](c, y, np.ones((1, len(c)), np.int64), n_bins)[0])


def ace(confidence, correct, n_bins: int = N_BINS) -> float:
    """Adaptive Calibration Error (paper §4.3; Nixon et al., 2019): equal-count bins
    (``n_bins`` = 20), empty bins dropped, unweighted mean of ``|accuracy - confidence|``
    over the bins. Agrees with ``calibration_curve(strategy="quantile")``.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    n_bins : int
        The number of bins (default 20).

    Returns
    -------
    float
        The metric.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("ace", confidence, correct, n_bins)


def ece(confidence, correct, n_bins: int = N_BINS) -> float:
    """Expected Calibration Error: ``n_bins`` equal-width bins on ``[0, 1]``,
    ``sum_b (n_b / N) * |accuracy_b - confidence_b|``.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    n_bins : int
        The number of bins (default 20).

    Returns
    -------
    float
        The metric.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("ece", confidence, correct, n_bins)


def mce(confidence, correct, n_bins: int = N_BINS) -> float:
    """Maximum calibration error (beyond the paper), torchmetrics' ``norm="max"``: the largest
    ``|accuracy_b - confidence_b|`` over the non-empty equal-width bins of :func:`ece`.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    n_bins : int
        The number of bins (default 20).

    Returns
    -------
    float
        The metric.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("mce", confidence, correct, n_bins)


def rms_calibration_error(confidence, correct, n_bins: int = N_BINS) -> float:
    """Root-mean-square calibration error (beyond the paper), torchmetrics' ``norm="l2"``:
    ``sqrt(sum_b (n_b / N) (accuracy_b - confidence_b)^2)`` over the bins of :func:`ece`.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    n_bins : int
        The number of bins (default 20).

    Returns
    -------
    float
        The metric.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("rms", confidence, correct, n_bins)


def signed_gap(confidence, correct) -> float:
    """Signed calibration gap (beyond the paper): mean confidence minus accuracy. Above 0 the
    estimator is overconfident on average, below 0 underconfident (the paper's §5.1 reads this
    off the calibration curves).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.

    Returns
    -------
    float
        The metric.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("gap", confidence, correct, N_BINS)


def auroc(confidence, correct) -> float:
    """AUROC of confidence for correctness (beyond the paper): the probability that a correct
    instance has a higher confidence than a wrong one, ties counted half; equal to
    ``sklearn.metrics.roc_auc_score(correct, confidence)``. NaN when all instances are correct
    or all wrong.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.

    Returns
    -------
    float
        The metric (NaN when all instances are correct or all wrong).

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("auroc", confidence, correct, N_BINS)


def aurc(confidence, correct) -> float:
    """Area under the risk-coverage curve (beyond the paper; Geifman et al.): instances sorted
    by descending confidence, the selective risk ``errors(top k) / k`` averaged over
    ``k = 1 .. N``. Ties: the errors of equally confident instances are spread evenly over them
    (the mean over every order of the ties). Lower is better; see
    :func:`calib.confidence.selective.risk_coverage_curve`.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.

    Returns
    -------
    float
        The metric.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("aurc", confidence, correct, N_BINS)


def brier(confidence, correct) -> float:
    """Brier score (paper §4.3): ``mean((confidence - correct)^2)``, correctness as target.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.

    Returns
    -------
    float
        The metric.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`).
    """
    return _point("brier", confidence, correct, N_BINS)


def accuracy(correct) -> float:
    """Micro accuracy: the share of correct instances (rejected instances count as wrong).

    Parameters
    ----------
    correct : array-like
        Whether each instance is correct: booleans or 0/1.

    Returns
    -------
    float
        The share of correct instances.
    """
    corr = np.asarray(correct)
    return _point("accuracy", np.zeros(len(corr)), corr, N_BINS)


def calibration_curve(
    confidence, correct, n_bins: int = N_BINS, strategy: str = "quantile"
) -> pd.DataFrame:
    """Calibration-curve data (reliability diagram, paper Fig. 2).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    n_bins : int
        The number of bins (default 20).
    strategy : str
        ``"quantile"``: the equal-count bins of :func:`ace`; ``"uniform"``: the equal-width bins
        of :func:`ece`.

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin with ``bin`` (0-based), ``lower`` / ``upper`` edges,
        ``count``, ``mean_confidence`` and ``accuracy``.
    """
    _check_bins(n_bins, strategy)
    _, c, y = sorted_inputs(confidence, correct)
    count, sc, sy, edges = weighted_bins(c, y, np.ones((1, len(c)), np.int64), n_bins, strategy)
    count, sc, sy, edges = count[0], sc[0], sy[0], edges[0]
    full = count > 0
    return pd.DataFrame(
        {
            "bin": np.flatnonzero(full),
            "lower": edges[:-1][full],
            "upper": edges[1:][full],
            "count": count[full].astype(np.int64),
            "mean_confidence": sc[full] / count[full],
            "accuracy": sy[full] / count[full],
        }
    )


def accuracy_rejection_curve(
    confidence, correct, thresholds: Sequence[float] | None = None
) -> pd.DataFrame:
    """Accuracy-rejection curve (paper §4.3): for each threshold ``t`` (default 0.0, 0.1, ..,
    1.0) the instances with confidence ``< t`` are rejected. Columns ``threshold``,
    ``rejected`` (share rejected), ``kept`` (number kept) and ``accuracy`` of the kept
    instances (NaN when none is kept; the authors' plotting code draws 1.0 at threshold 1.0
    instead, we do not invent a value).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    thresholds : sequence of float or None
        The thresholds (default 0.0, 0.1, .., 1.0).

    Returns
    -------
    pandas.DataFrame
        One row per threshold, in the order given.

    Raises
    ------
    ValueError
        Saying what is wrong with the inputs (shapes, lengths, empty, non-finite or out of range
        values) (:func:`check_inputs`); also for thresholds that are not a 1-D list of finite
        numbers.
    """
    conf, corr = check_inputs(confidence, correct)
    t = (
        np.round(np.linspace(0.0, 1.0, 11), 10)
        if thresholds is None
        else np.asarray(thresholds, dtype=float)
    )
    if t.ndim != 1 or not np.isfinite(t).all():
        raise ValueError(f"thresholds must be a 1-D list of finite numbers, got {thresholds!r}")
    order = np.argsort(conf, kind="stable")
    c, y = conf[order], corr[order]
    first_kept = np.searchsorted(c, t, side="left")  # instances [first_kept:] have conf >= t
    kept = len(c) - first_kept
    tail_correct = np.concatenate([np.cumsum(y[::-1])[::-1], [0.0]])[first_kept]
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = np.where(kept > 0, tail_correct / np.maximum(kept, 1), np.nan)
    return pd.DataFrame(
        {
            "threshold": t,
            "rejected": first_kept / len(c),
            "kept": kept.astype(np.int64),
            "accuracy": acc,
        }
    )


def accuracy_per_relation(
    estimates: pd.DataFrame, by: Sequence[str] = ("model", "dataset", "estimator")
) -> pd.DataFrame:
    """Accuracy per relation of an estimate table: columns ``by`` (those present),
    ``relation``, ``n`` (instances) and ``accuracy``. The micro accuracy over all relations is
    :func:`accuracy` of the whole ``correct`` column (the instance-weighted mean of these).

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (with its instance keys and ``correct``).
    by : sequence of str
        The grouping columns besides ``relation`` (default ``model``, ``dataset``,
        ``estimator``); those absent from the table are left out.

    Returns
    -------
    pandas.DataFrame
        One row per group and relation, sorted.

    Raises
    ------
    TypeError
        When ``estimates`` is not a DataFrame.
    ValueError
        When it lacks a key column or ``correct``.
    """
    require_columns(estimates, (*INSTANCE, "correct"), "estimate table")
    keys = [c for c in by if c in estimates.columns and c != "relation"] + ["relation"]
    out = (
        estimates.assign(correct=estimates["correct"].astype(float))
        .groupby(keys, sort=True, dropna=False)["correct"]
        .agg(["size", "mean"])
        .rename(columns={"size": "n", "mean": "accuracy"})
        .reset_index()
    )
    return out
