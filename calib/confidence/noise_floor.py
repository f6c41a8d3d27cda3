"""The noise floor of a binned calibration error (beyond the paper).

ACE (paper §4.3) averages ``|accuracy(bin) - confidence(bin)|`` over 20 bins of a few instances
each at the sample sizes of a CPU build: even a *perfectly calibrated* estimator, one whose
instances are correct with probability equal to their confidence, shows an ACE well above 0
there, because a bin's accuracy is a proportion of a few 0/1 outcomes. The paper's Table 1 is on
all 7,731 BEAR facts, where this floor is small; a run on 60 facts per model (the cpu profile)
is not.

**Definition.** For a vector of confidences ``c_1 .. c_N`` and a binned metric ``M`` (ACE, ECE,
MCE or RMS, :data:`calib.confidence.metrics.BINNED`), the *floor* is the expected value of ``M``
for a perfectly calibrated estimator with the same confidences,

    ``floor = E[ M(c, o*) ]``,  ``o*_n ~ Bernoulli(c_n)`` independently,

estimated from ``n_draws`` seeded draws of the outcomes ``o*`` (all drawn at once, binned once:
the bins depend on the confidences only). Reported with its Monte-Carlo standard error
``sd(draws) / sqrt(n_draws)`` and the central ``level`` range of the draws (``floor_low``,
``floor_high``): where the metric of a perfectly calibrated estimator with these confidences
falls in 95% of samples. A confidence below 0 (the paper's Entropy-Confidence, Eq. 7) is drawn
as never correct and a confidence is otherwise its own probability; the metric itself is
computed on the confidences as they are, as for the observed value.

**Reading it** (:func:`floor_record`):

* *within the floor* -- the observed value is at most ``floor_high``: a perfectly calibrated
  estimator with these confidences gives a value this large in more than 2.5% of samples, so the
  value is **not distinguishable from perfect calibration at this sample size**. This is a
  one-sided Monte-Carlo test of "the estimator is perfectly calibrated" at level 2.5% (the
  draws are its null distribution, as in the consistency resampling of Broecker & Smith,
  2007); ``floor_p`` is its p-value, ``(1 + #{draws >= value}) / (1 + n_draws)``. The
  criterion is the upper end of the band a chart draws, so a value inside or below the band
  is "within its floor".
* *debiased* -- ``value - floor``: the calibration error beyond what perfect calibration shows
  at this sample size. Its interval is the value's bootstrap interval (bias-centred,
  :mod:`calib.confidence.bootstrap`) shifted by the floor and widened on each side by
  ``z * floor_se`` (``z`` the normal quantile of ``level``), so the floor's Monte-Carlo error is
  inside it. The shift treats the floor as a constant: it depends on the confidences only, which
  the sample fixes; the outcomes' noise is already in the bootstrap interval. The debiased value
  can be below 0 (a value below its floor); it is not an unbiased estimate of the population
  ACE: a bin's expected ``|gap + noise|`` is less than ``|gap| + E|noise|``, so subtracting the
  whole floor over-corrects a miscalibrated estimator. Read it as "how far above the floor",
  and the test above as "is it above at all".
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy import stats

from calib.confidence.bootstrap import shared_store
from calib.confidence.metrics import (
    BINNED,
    N_BINS,
    UNIFORM_ERRORS,
    WEIGHTED,
    check_inputs,
    uniform_errors,
)

#: default number of simulated outcome vectors (Monte-Carlo error about 3% of the draws' spread)
N_DRAWS = 1000
#: cap on the size of one block of simulated outcomes (draws x instances)
_BLOCK_CELLS = 4_000_000


def _check(metric: str, n_draws: int, level: float) -> None:
    if metric not in BINNED:
        raise ValueError(
            f"the noise floor is defined for the binned metrics {list(BINNED)}, got {metric!r}"
        )
    if not isinstance(n_draws, (int, np.integer)) or n_draws < 2:
        raise ValueError(f"n_draws must be an integer >= 2, got {n_draws!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")


def outcome_blocks(conf_sorted: np.ndarray, n_draws: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of simulated outcomes, ``(rows, n)`` float arrays of 0/1, ``n_draws`` rows in all:
    ``o[r, i] = 1`` with probability ``clip(conf_sorted[i], 0, 1)``. The stream depends only on
    ``(conf_sorted, n_draws, seed)``, not on the block size."""
    p = np.clip(np.asarray(conf_sorted, dtype=float), 0.0, 1.0)
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // max(len(p), 1))
    done = 0
    while done < n_draws:
        b = min(block, n_draws - done)
        yield (rng.random((b, len(p))) < p[None, :]).astype(float)
        done += b


def floor_draws(
    confidence, metric: str = "ace", n_draws: int = N_DRAWS, seed: int = 0, n_bins: int = N_BINS
) -> np.ndarray:
    """``metric`` (``"ace"``, ``"ece"``, ``"mce"``, ``"rms"``) of each of ``n_draws`` perfectly
    calibrated outcome vectors drawn for ``confidence`` (see the module docstring).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    metric : str
        A binned metric, one of :data:`calib.confidence.metrics.BINNED` (default ``"ace"``).
    n_draws : int
        Simulated outcome vectors, at least 2 (default :data:`N_DRAWS`).
    seed : int
        The draws' seed (default 0).
    n_bins : int
        The metric's number of bins (default 20).

    Returns
    -------
    numpy.ndarray
        ``n_draws`` values of the metric.

    Raises
    ------
    ValueError
        For a metric that is not binned, ``n_draws`` below 2, a ``level`` outside (0, 1), or
        confidences :func:`calib.confidence.metrics.check_inputs` rejects.
    """
    _check(metric, n_draws, 0.5)
    conf, _ = check_inputs(confidence, np.zeros(len(np.asarray(confidence))))
    c = np.sort(conf, kind="stable")
    shared = shared_store()
    if shared is not None:  # every binned metric's draws of these outcomes, drawn once
        key = (c.tobytes(), int(n_draws), int(seed), int(n_bins))
        if key not in shared.floors:
            shared.floors[key] = floor_draws_all(c, BINNED, n_draws, seed, n_bins)
        return shared.floors[key][metric]
    ones = np.ones((1, len(c)), np.int64)
    fn = WEIGHTED[metric]
    return np.concatenate([fn(c, y, ones, n_bins) for y in outcome_blocks(c, n_draws, seed)])


def floor_draws_all(
    conf_sorted: np.ndarray,
    metrics=BINNED,
    n_draws: int = N_DRAWS,
    seed: int = 0,
    n_bins: int = N_BINS,
) -> dict[str, np.ndarray]:
    """:func:`floor_draws` of several binned ``metrics`` for the ascending, validated
    ``conf_sorted`` at once: one stream of outcomes (:func:`outcome_blocks`) for all of them,
    the equal-width binned errors binned once per block
    (:func:`calib.confidence.metrics.uniform_errors`); each metric's draws are those
    :func:`floor_draws` gives it (read-only).

    Parameters
    ----------
    conf_sorted : numpy.ndarray
        Ascending confidences, validated (:func:`calib.confidence.metrics.check_inputs`).
    metrics : sequence of str
        Binned metrics (default all of :data:`calib.confidence.metrics.BINNED`).
    n_draws : int
        Simulated outcome vectors, at least 2 (default :data:`N_DRAWS`).
    seed : int
        The draws' seed (default 0).
    n_bins : int
        The metrics' number of bins (default 20).

    Returns
    -------
    dict
        ``{metric: n_draws values}``.
    """
    for m in metrics:
        _check(m, n_draws, 0.5)
    ones = np.ones((1, len(conf_sorted)), np.int64)
    uniform = [m for m in metrics if m in UNIFORM_ERRORS]
    parts: dict[str, list[np.ndarray]] = {m: [] for m in metrics}
    for y in outcome_blocks(conf_sorted, n_draws, seed):
        values = uniform_errors(conf_sorted, y, ones, uniform, n_bins) if uniform else {}
        for m in metrics:
            parts[m].append(values[m] if m in values else WEIGHTED[m](conf_sorted, y, ones, n_bins))
    out = {}
    for m, blocks in parts.items():
        out[m] = np.concatenate(blocks)
        out[m].flags.writeable = False
    return out


def noise_floor(
    confidence,
    metric: str = "ace",
    n_draws: int = N_DRAWS,
    seed: int = 0,
    n_bins: int = N_BINS,
    level: float = 0.95,
) -> dict:
    """The noise floor of ``metric`` for these confidences: ``metric``, ``n_draws``,
    ``floor`` (mean over the draws), ``floor_se`` (its Monte-Carlo standard error),
    ``floor_low`` and ``floor_high`` (the central ``level`` range of the draws).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    metric : str
        A binned metric, one of :data:`calib.confidence.metrics.BINNED` (default ``"ace"``).
    n_draws : int
        Simulated outcome vectors, at least 2 (default :data:`N_DRAWS`).
    seed : int
        The draws' seed (default 0).
    n_bins : int
        The metric's number of bins (default 20).
    level : float
        The central range of the draws reported (default 0.95).

    Returns
    -------
    dict
        ``metric``, ``n_draws``, ``floor``, ``floor_se``, ``floor_low``, ``floor_high``.

    Raises
    ------
    ValueError
        For a metric that is not binned, ``n_draws`` below 2, a ``level`` outside (0, 1), or
        confidences :func:`calib.confidence.metrics.check_inputs` rejects.
    """
    _check(metric, n_draws, level)
    draws = floor_draws(confidence, metric, n_draws, seed, n_bins)
    return _summarise(draws, metric, level)


def _summarise(draws: np.ndarray, metric: str, level: float) -> dict:
    lo, hi = np.quantile(draws, [(1 - level) / 2, 1 - (1 - level) / 2])
    return {
        "metric": metric,
        "n_draws": len(draws),
        "floor": float(draws.mean()),
        "floor_se": float(draws.std(ddof=1) / np.sqrt(len(draws))),
        "floor_low": float(lo),
        "floor_high": float(hi),
    }


def floor_p_value(value: float, draws: np.ndarray) -> float:
    """Monte-Carlo p-value of "perfectly calibrated": ``(1 + #{draws >= value}) /
    (1 + n_draws)`` (NaN for a NaN value). A draw equal to ``value`` to rounding (``1e-12``
    relative) counts as ``>=``: on a small sample a draw often has the very bins and correct
    counts of the sample itself, and which of two equal numbers rounds lower must not decide."""
    draws = np.asarray(draws, dtype=float)
    if not np.isfinite(value):
        return float("nan")
    tol = 1e-12 * max(1.0, abs(value))
    return float((1 + np.sum(draws >= value - tol)) / (1 + len(draws)))


def within_floor(value: float, floor_high: float) -> bool:
    """The value is not distinguishable from perfect calibration at this sample size: at most
    the upper end of its floor's range (see the module docstring)."""
    return bool(value <= floor_high)


def debiased(
    value: float, low: float, high: float, floor: float, floor_se: float, level: float = 0.95
) -> tuple[float, float, float]:
    """``(value - floor, low', high')``: the interval ``[low, high]`` of ``value`` shifted by the
    floor and widened by ``z * floor_se`` on each side (NaN bounds stay NaN)."""
    z = float(stats.norm.ppf(1 - (1 - level) / 2))
    return value - floor, low - floor - z * floor_se, high - floor + z * floor_se


def floor_record(
    confidence,
    value: float,
    low: float = float("nan"),
    high: float = float("nan"),
    metric: str = "ace",
    n_draws: int = N_DRAWS,
    seed: int = 0,
    n_bins: int = N_BINS,
    level: float = 0.95,
    prefix: str | None = None,
) -> dict:
    """Everything the book shows beside a binned metric ``value`` (with its interval ``low``,
    ``high``) of an estimator with these ``confidence`` values, keys prefixed by ``prefix``
    (default ``metric``): ``<m>_floor``, ``<m>_floor_se``, ``<m>_floor_low``,
    ``<m>_floor_high``, ``<m>_floor_p`` (:func:`floor_p_value`), ``<m>_within_floor``
    (:func:`within_floor`), ``<m>_debiased``, ``<m>_debiased_low``, ``<m>_debiased_high``
    (:func:`debiased`).

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    value : float
        The observed value of ``metric``.
    low : float
        The low end of its interval (default NaN).
    high : float
        The high end of its interval (default NaN).
    metric : str
        A binned metric, one of :data:`calib.confidence.metrics.BINNED` (default ``"ace"``).
    n_draws : int
        Simulated outcome vectors, at least 2 (default :data:`N_DRAWS`).
    seed : int
        The draws' seed (default 0).
    n_bins : int
        The metric's number of bins (default 20).
    level : float
        The floor's range and the debiased interval's widening (default 0.95).
    prefix : str or None
        The keys' prefix (default ``metric``).

    Returns
    -------
    dict
        The nine keys above.

    Raises
    ------
    ValueError
        For a metric that is not binned, ``n_draws`` below 2, a ``level`` outside (0, 1), or
        confidences :func:`calib.confidence.metrics.check_inputs` rejects.
    """
    _check(metric, n_draws, level)
    draws = floor_draws(confidence, metric, n_draws, seed, n_bins)
    f = _summarise(draws, metric, level)
    d, d_lo, d_hi = debiased(value, low, high, f["floor"], f["floor_se"], level)
    m = metric if prefix is None else prefix
    return {
        f"{m}_floor": f["floor"],
        f"{m}_floor_se": f["floor_se"],
        f"{m}_floor_low": f["floor_low"],
        f"{m}_floor_high": f["floor_high"],
        f"{m}_floor_p": floor_p_value(value, draws),
        f"{m}_within_floor": within_floor(value, f["floor_high"]),
        f"{m}_debiased": d,
        f"{m}_debiased_low": d_lo,
        f"{m}_debiased_high": d_hi,
    }


def mean_floor_record(
    confidences,
    value: float,
    low: float = float("nan"),
    high: float = float("nan"),
    metric: str = "ace",
    n_draws: int = N_DRAWS,
    seed: int = 0,
    n_bins: int = N_BINS,
    level: float = 0.95,
    prefix: str | None = None,
) -> dict:
    """:func:`floor_record` for the *mean* of a binned metric over several estimators (e.g. the
    mean ACE over the models of one objective, Figure 7 of the paper): ``confidences`` is one
    confidence vector per estimator, ``value`` (``low``, ``high``) the mean and its interval.

    A simulated sample draws every estimator's outcomes from its own confidences, independently
    (estimator ``i`` seeded ``seed + i``), and takes the mean of their metrics; the floor is the
    mean over ``n_draws`` such samples (the mean of the estimators' floors), its range the
    central ``level`` range of the simulated means (narrower than each estimator's).

    Parameters
    ----------
    confidences : iterable of array-like
        One confidence vector per estimator.
    value : float
        The mean of ``metric`` over the estimators.
    low : float
        The low end of its interval (default NaN).
    high : float
        The high end of its interval (default NaN).
    metric : str
        A binned metric, one of :data:`calib.confidence.metrics.BINNED` (default ``"ace"``).
    n_draws : int
        Simulated outcome vectors, at least 2 (default :data:`N_DRAWS`).
    seed : int
        The draws' seed (default 0).
    n_bins : int
        The metric's number of bins (default 20).
    level : float
        The floor's range and the debiased interval's widening (default 0.95).
    prefix : str or None
        The keys' prefix (default ``metric``).

    Returns
    -------
    dict
        The keys of :func:`floor_record`.

    Raises
    ------
    ValueError
        For a metric that is not binned, ``n_draws`` below 2, a ``level`` outside (0, 1), or
        confidences :func:`calib.confidence.metrics.check_inputs` rejects; also for no
        confidence vector.
    """
    _check(metric, n_draws, level)
    confidences = list(confidences)
    if not confidences:
        raise ValueError("mean_floor_record needs at least one confidence vector")
    draws = np.mean(
        [floor_draws(c, metric, n_draws, seed + i, n_bins) for i, c in enumerate(confidences)],
        axis=0,
    )
    f = _summarise(draws, metric, level)
    d, d_lo, d_hi = debiased(value, low, high, f["floor"], f["floor_se"], level)
    m = metric if prefix is None else prefix
    return {
        f"{m}_floor": f["floor"],
        f"{m}_floor_se": f["floor_se"],
        f"{m}_floor_low": f["floor_low"],
        f"{m}_floor_high": f["floor_high"],
        f"{m}_floor_p": floor_p_value(value, draws),
        f"{m}_within_floor": within_floor(value, f["floor_high"]),
        f"{m}_debiased": d,
        f"{m}_debiased_low": d_lo,
        f"{m}_debiased_high": d_hi,
    }
