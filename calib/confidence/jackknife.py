"""The jackknife behind BCa's acceleration, linear in the number of instances.

BCa's acceleration ``a`` (Efron & Tibshirani 1993, §14.3, Eq. 14.15;
:func:`calib.confidence.bootstrap.acceleration`) is the skewness of the statistic's jackknife
values. The delete-one jackknife evaluates the statistic once per instance left out; as a
weighted statistic on ``n`` rows of ``n`` weights that costs ``O(n^2)`` (at all of BEAR,
``n = 7,731`` facts, it was most of the calibration chapter's analysis). Two linear forms
replace it:

* **Exact leave-one-out values in closed form** (:data:`LEAVE_ONE_OUT`), for the metrics that
  have one: a mean (accuracy, Brier score, signed gap, mean confidence; :func:`mean_left_out`)
  in ``O(n)``, AUROC (:func:`auroc_left_out`) and AURC (:func:`aurc_left_out`) from cumulative
  sums over the tie groups of the sorted confidences in ``O(n log n)``. Each equals its
  ``weighted_*`` function of :mod:`calib.confidence.metrics` on all-ones weights with the one
  instance's weight set to 0, to rounding (``tests/confidence/test_jackknife.py`` checks it
  against that definition), so these intervals are the delete-one BCa intervals.
* **A grouped (delete-d) jackknife** (:func:`jackknife_groups`, :func:`jackknife_weights`) for
  any other weighted statistic (a chapter's own function of the weights, the binned metrics):
  the instances are split into :data:`JACKKNIFE_GROUPS` groups at random (a fixed seed, so the
  groups depend on ``n`` only), of sizes differing by at most one, and each group is left out in
  turn: ``O(JACKKNIFE_GROUPS * n)``. Up to :data:`JACKKNIFE_GROUPS` instances every group is one
  instance, the delete-one jackknife itself. This is the grouped jackknife of
  Efron & Narasimhan's ``bcajack`` (2020, *The automatic construction of bootstrap confidence
  intervals*, JCGS 29; its ``m`` groups, "typically 20 or 40"), the delete-d jackknife of
  Efron & Tibshirani (1993, §11.7) with disjoint groups. Why it estimates the same ``a``: for a
  smooth statistic the effect of leaving out a group ``g`` is, to first order, the sum of its
  instances' empirical influence values ``U_i`` (§11.5), so ``a`` from the groups is
  ``sum_g S_g^3 / (6 (sum_g S_g^2)^1.5)`` with ``S_g = sum_{i in g} U_i``; over random
  partitions into groups of ``d`` (``sum U = 0``) ``E sum_g S_g^3 = sum U^3 (n-d)(n-2d) /
  ((n-1)(n-2))`` and ``E sum_g S_g^2 = sum U^2 (n-d)/(n-1)``, the delete-one numerator and
  denominator up to factors that tend to 1 (a relative bias of about ``-1.5 / groups``, -0.75%
  with 200 groups). Its Monte-Carlo error, for near-normal group sums, is a standard deviation of
  about ``sqrt(15) / (6 groups)`` in ``a`` (0.003 with 200 groups), which moves a 95% BCa bound
  by about ``1.96^2 * 0.003``, 1% of a standard error: far below the bootstrap's own
  Monte-Carlo error at 1,000 resamples.

The binned metrics (ACE, ECE, MCE, RMS) get the bias-centred percentile interval, which uses no
jackknife (:data:`calib.confidence.bootstrap.INTERVAL_METHODS`); where one is asked for anyway
they get the grouped jackknife. The paper's ACE is untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
from scipy import special

#: groups of the grouped jackknife (up to this many instances: the delete-one jackknife)
JACKKNIFE_GROUPS = 200
#: seed of the random partition into groups (fixed: the groups depend on ``n`` only, so every
#: statistic of ``n`` instances is left out group by group alike and their jackknife values
#: combine, e.g. into a contrast)
GROUP_SEED = 20_240_601
#: cap on the size of one block of jackknife weights (rows x instances)
_BLOCK_CELLS = 4_000_000


def jackknife_groups(n: int) -> np.ndarray:
    """The group of each of ``n`` instances: ``0 .. min(n, JACKKNIFE_GROUPS) - 1``.

    Up to :data:`JACKKNIFE_GROUPS` instances instance ``i`` is group ``i`` (delete-one); beyond,
    a random partition (seed :data:`GROUP_SEED`, depending on ``n`` only) into
    :data:`JACKKNIFE_GROUPS` groups whose sizes differ by at most one.

    Parameters
    ----------
    n : int
        The number of instances, at least 0.

    Returns
    -------
    numpy.ndarray
        ``n`` integer group labels.
    """
    if n <= JACKKNIFE_GROUPS:
        return np.arange(n)
    perm = np.random.default_rng([GROUP_SEED, n]).permutation(n)
    groups = np.empty(n, np.int64)
    groups[perm] = np.arange(n) % JACKKNIFE_GROUPS
    return groups


def jackknife_weights(n: int) -> Iterator[np.ndarray]:
    """Blocks of jackknife weights, ``(rows, n)`` integer arrays: row ``g`` is all ones except
    zeros at the instances of group ``g`` of :func:`jackknife_groups` (one row per group, in
    blocks of at most ``_BLOCK_CELLS`` cells). Up to :data:`JACKKNIFE_GROUPS` instances row
    ``i`` is the delete-one row with its 0 at instance ``i``.

    Parameters
    ----------
    n : int
        The number of instances.

    Yields
    ------
    numpy.ndarray
        The next block of rows.
    """
    groups = jackknife_groups(n)
    n_groups = min(n, JACKKNIFE_GROUPS)
    block = max(1, min(n_groups, _BLOCK_CELLS // max(n, 1)))
    for start in range(0, n_groups, block):
        stop = min(start + block, n_groups)
        w = np.ones((stop - start, n), np.int64)
        mine = (groups >= start) & (groups < stop)
        w[groups[mine] - start, np.flatnonzero(mine)] = 0
        yield w


def mean_left_out(values: np.ndarray) -> np.ndarray:
    """The mean of ``values`` with each entry left out in turn, ``(sum - v_i) / (n - 1)``
    (NaN for one value): the jackknife of every metric that is a mean over instances."""
    v = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (v.sum() - v) / (len(v) - 1) if len(v) > 1 else np.full(len(v), np.nan)


def _ties(conf_sorted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, group)``: where each run of equal confidences starts in the ascending
    ``conf_sorted`` (as :func:`calib.confidence.metrics.weighted_auroc` groups them) and the run
    of each instance."""
    starts = np.r_[0, np.flatnonzero(np.diff(conf_sorted)) + 1]
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(conf_sorted)]))
    return starts, group


def auroc_left_out(conf_sorted: np.ndarray, corr_sorted: np.ndarray) -> np.ndarray:
    """AUROC (:func:`calib.confidence.metrics.weighted_auroc`) with each instance of the
    ascending ``conf_sorted`` left out in turn, in that order; NaN where what is left lacks a
    correct or a wrong instance.

    Leaving out a correct instance removes its pairs with the wrong instances below it (and half
    of those tied with it) from the numerator and one correct instance from ``P N``; a wrong
    one, its pairs with the correct instances above it (and half the tied)."""
    y = np.asarray(corr_sorted, dtype=float)
    if len(y) == 0:
        return np.zeros(0)
    starts, group = _ties(conf_sorted)
    pos = np.add.reduceat(y, starts)
    neg = np.add.reduceat(1.0 - y, starts)
    below_neg = np.cumsum(neg) - neg  # wrong instances with a lower confidence
    above_pos = pos.sum() - np.cumsum(pos)  # correct instances with a higher confidence
    num = float((pos * (below_neg + 0.5 * neg)).sum())
    n_pos, n_neg = float(pos.sum()), float(neg.sum())
    correct = y == 1.0
    lost = np.where(correct, (below_neg + 0.5 * neg)[group], (above_pos + 0.5 * pos)[group])
    den = np.where(correct, (n_pos - 1) * n_neg, n_pos * (n_neg - 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (num - lost) / np.where(den > 0, den, 1.0), np.nan)


def aurc_left_out(conf_sorted: np.ndarray, corr_sorted: np.ndarray) -> np.ndarray:
    """AURC (:func:`calib.confidence.metrics.weighted_aurc`) with each instance of the
    ascending ``conf_sorted`` left out in turn, in that order (NaN for one instance).

    With the tie groups in descending confidence, group ``g`` of ``m_g`` instances and ``e_g``
    errors, preceded by ``K_g`` instances with ``C_g`` errors, contributes ``f_g = e_g +
    (C_g - K_g e_g/m_g) (H(K_g+m_g) - H(K_g))`` (``H`` the harmonic numbers) and AURC is
    ``sum f / N``. Leaving out an instance of group ``t`` with error ``e`` (0 or 1) keeps the
    groups before ``t``, turns ``t`` into ``(m_t - 1, e_t - e)`` and moves every later group one
    instance and ``e`` errors forward: ``f'_g = A_g - e B_g`` with ``A_g = e_g + (C_g - K_g r_g +
    r_g) B_g``, ``r_g = e_g/m_g``, ``B_g = H(K_g+m_g-1) - H(K_g-1)``. Prefix sums of ``f`` and
    suffix sums of ``A`` and ``B`` give every value at once."""
    y = np.asarray(corr_sorted, dtype=float)
    n = len(y)
    if n < 2:
        return np.full(n, np.nan)
    starts, group = _ties(conf_sorted)
    m = np.diff(np.r_[starts, n]).astype(float)[::-1]  # tie groups, highest confidence first
    e = np.add.reduceat(1.0 - y, starts)[::-1]
    k = np.cumsum(m) - m
    c = np.cumsum(e) - e
    r = e / m

    def harmonic(upper, lower):  # H(upper) - H(lower)
        return special.digamma(upper + 1.0) - special.digamma(lower + 1.0)

    f = e + (c - k * r) * harmonic(k + m, k)
    before = np.cumsum(f) - f
    later = k > 0  # every group after the first; only these ever move forward
    safe_k = np.where(later, k, 1.0)
    b = np.where(later, harmonic(safe_k + m - 1.0, safe_k - 1.0), 0.0)
    a = np.where(later, e + (c - safe_k * r + r) * b, 0.0)
    a_after = a.sum() - np.cumsum(a)  # sums over the groups after each group
    b_after = b.sum() - np.cumsum(b)
    t = len(m) - 1 - group  # each instance's group, in descending order
    err = 1.0 - y
    m_left, e_left = m[t] - 1.0, e[t] - err
    with np.errstate(invalid="ignore", divide="ignore"):
        own = np.where(
            m_left > 0,
            e_left
            + (c[t] - k[t] * e_left / np.where(m_left > 0, m_left, 1.0))
            * harmonic(k[t] + m_left, k[t]),
            0.0,
        )
    return (before[t] + own + a_after[t] - err * b_after[t]) / (n - 1)


def _mean_of(values: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    def left_out(conf_sorted: np.ndarray, corr_sorted: np.ndarray) -> np.ndarray:
        return mean_left_out(values(np.asarray(conf_sorted), np.asarray(corr_sorted)))

    return left_out


#: ``{metric: function(conf_sorted, corr_sorted) -> values}``: the exact leave-one-out values of
#: each metric with a closed form, in the order of the ascending confidences (the metrics of
#: :data:`calib.confidence.metrics.WEIGHTED` and ``"confidence"``, the mean confidence)
LEAVE_ONE_OUT: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "brier": _mean_of(lambda c, y: (c - y) ** 2),
    "accuracy": _mean_of(lambda c, y: y),
    "gap": _mean_of(lambda c, y: c - y),
    "confidence": _mean_of(lambda c, y: c),
    "auroc": auroc_left_out,
    "aurc": aurc_left_out,
}
#: the metrics that are means over instances: they need no sorting by confidence
MEANS: tuple[str, ...] = ("brier", "accuracy", "gap", "confidence")
