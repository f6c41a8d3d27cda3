"""Seeded bootstrap intervals for the calibration metrics, so the book can say whether two
estimators (or two models) really differ.

* :func:`bootstrap_metrics` -- intervals for ACE, Brier, accuracy (and ECE) by resampling
  instances with replacement.
* :func:`paired_difference` -- the difference of a metric between two estimators on the *same*
  instances, each resample drawn once and applied to both (a paired bootstrap), with an interval
  and a two-sided bootstrap p-value.
* :func:`estimator_differences` -- :func:`paired_difference` for every pair of estimators of a
  long estimate table, per model, for several metrics.
* :func:`correlation_interval` -- a correlation coefficient across models (e.g. ACE vs
  accuracy) with an interval from resampling the models.
* :func:`interval` -- the one place where replicates become an interval (and
  :func:`interval_p_value` a p-value), with the method of :data:`INTERVAL_METHODS`.

**Which interval.** Smooth statistics (Brier score, accuracy, the signed gap, AUROC, AURC,
correlations, differences of means) get the *bias-corrected and accelerated* (BCa) interval
(Efron 1987; Efron & Tibshirani 1993, ch. 14): the percentile levels are moved by the
bias-correction ``z0`` (the normal quantile of the share of resamples below the estimate, ties
counted half) and the acceleration ``a`` (from the jackknife, :func:`jackknife`). The *binned*
metrics (ACE, ECE, MCE, RMS) get the *bias-centred percentile* interval: the percentile interval
of the resamples shifted by the bootstrap bias ``mean(resamples) - estimate``. ACE averages
``|accuracy - confidence|`` over bins of a few instances each; a resample, with its repeated
instances, adds a second layer of that binning noise and so has a larger ACE than the sample
(on a BEAR sample of a few hundred facts typically more than 97.5% of the resamples lie above the
estimate): the percentile interval and BCa then lie beside the estimate instead of around it.
Centring the resamples on the estimate keeps their spread, which is what an interval of ACE at
this sample size needs; its bounds are clipped to the metric's range ``[0, 1]``.
(``benchmarks/interval_coverage.py`` compares the three methods on simulated samples.)

Whatever the method, an interval that would not contain its estimate (BCa when nearly all
resamples fall on one side of the estimate, or any method on pathological replicates) has its
near bound moved to the estimate, and an interval whose resamples are all equal is that value
(or the estimate, when they differ from it). So every reported interval contains its estimate.

Resampling is expressed as multiplicity weights (how often each instance is drawn) and every
metric is evaluated by the same weighted function that computes its point value
(:data:`calib.confidence.metrics.WEIGHTED`), wrapped in a :class:`MetricStatistic` (sorted by
confidence once; each block of resampling weights is gathered into that order once and shared
by every metric of the same confidences, and the metrics that are means need no order at all).
BCa's acceleration comes from jackknife values linear in the number of instances
(:mod:`calib.confidence.jackknife`): the exact delete-one values in closed form for the means,
AUROC and AURC and their linear combinations (:class:`Statistic`), a grouped jackknife for any
other weighted statistic. For a given ``seed``, ``n_boot`` and number of instances the
resamples are always the same, so intervals of different estimators on the same instances are
paired too; the frame-level helpers sort instances by their keys first, so the row order of a
table never matters.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from calib.confidence.jackknife import LEAVE_ONE_OUT, MEANS, jackknife_weights
from calib.confidence.metrics import (
    N_BINS,
    UNIFORM_ERRORS,
    WEIGHTED,
    check_inputs,
    uniform_errors,
    weighted_confidence,
)
from calib.confidence.schema import INSTANCE, require_columns

#: the metrics with intervals by default
METRICS: tuple[str, ...] = ("ace", "brier", "accuracy")
#: the interval methods :func:`interval` knows
METHODS: tuple[str, ...] = ("bca", "centred", "percentile")
#: the interval method of each metric (and of differences of it)
INTERVAL_METHODS: dict[str, str] = {
    "ace": "centred",
    "ece": "centred",
    "mce": "centred",
    "rms": "centred",
    "brier": "bca",
    "accuracy": "bca",
    "gap": "bca",
    "auroc": "bca",
    "aurc": "bca",
}
#: the range of each metric's values: interval bounds are clipped to it (the signed gap has
#: none: with the paper's Entropy-Confidence, which can be below 0, it can be below -1)
METRIC_RANGE: dict[str, tuple[float, float]] = {
    m: (-np.inf, np.inf) if m == "gap" else (0.0, 1.0) for m in WEIGHTED
}
#: cap on the size of one block of resampling weights (resamples x instances)
_BLOCK_CELLS = 4_000_000

#: a statistic of weighted data: ``(rows, n)`` multiplicity weights -> ``rows`` values
WeightedStatistic = Callable[[np.ndarray], np.ndarray]


def check_bootstrap_args(n_boot: int, level: float, metrics: Sequence[str]) -> None:
    """Raise ``ValueError`` for a bad ``n_boot``, ``level`` or metric name."""
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    unknown = [m for m in metrics if m not in WEIGHTED]
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; expected some of {list(WEIGHTED)}")


def _counts(idx: np.ndarray, n: int) -> np.ndarray:
    """``(rows, n)`` multiplicities of the drawn instances ``idx`` ``(rows, n)``, one
    ``numpy.bincount`` per row (its counts stay in cache; the same numbers as one bincount of
    the flattened draws)."""
    out = np.empty((idx.shape[0], n), np.int64)
    for r in range(idx.shape[0]):
        out[r] = np.bincount(idx[r], minlength=n)
    return out


def resample_weights(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of bootstrap multiplicities, ``(rows, n)`` integer arrays, ``n_boot`` rows in all:
    row ``r`` counts how often each of the ``n`` instances is drawn in resample ``r``. The
    stream depends only on ``(n, n_boot, seed)``; inside :func:`shared_resamples` it is drawn
    once and its blocks (read-only) are handed out again."""
    shared = _SHARED.get()
    if shared is not None:
        return iter(shared.weights(n, n_boot, seed))
    return _draw_weights(n, n_boot, seed)


def _draw_weights(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(seed)
    block = max(1, min(256, _BLOCK_CELLS // max(n, 1)))
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        yield _counts(rng.integers(0, n, size=(b, n)), n)
        done += b


def stratified_resample_weights(strata, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of *stratified* bootstrap multiplicities, ``(rows, n)`` integer arrays,
    ``n_boot`` rows in all: within each stratum (the instances sharing a value of ``strata``,
    e.g. the facts of one relation) as many instances are drawn, with replacement, as the
    stratum has, so every resample keeps each stratum's size. The stream depends only on the
    strata and ``(n_boot, seed)``. Used where a statistic averages over fixed groups (LPAQA's
    accuracy averaged over relations, :mod:`calib.prompts.accuracy`)."""
    codes = pd.factorize(pd.Series(np.asarray(strata)), sort=True)[0]
    n = len(codes)
    positions = [np.flatnonzero(codes == c) for c in range(codes.max() + 1)] if n else []
    rng = np.random.default_rng(seed)
    block = max(1, min(256, _BLOCK_CELLS // max(n, 1)))
    done = 0
    while done < n_boot:
        b = min(block, n_boot - done)
        idx = np.empty((b, n), np.int64)
        for pos in positions:
            idx[:, pos] = pos[rng.integers(0, len(pos), size=(b, len(pos)))]
        yield _counts(idx, n)
        done += b


class Statistic:
    """A weighted statistic of ``n`` instances that may know its own jackknife.

    ``statistic(w)`` maps ``(rows, n)`` multiplicity weights (the instances in their original
    order) to ``rows`` values, as any :data:`WeightedStatistic`; :meth:`leave_one_out` gives
    its exact delete-one jackknife values where it has a closed form (else ``None``, and
    :func:`jackknife` falls back to the grouped jackknife). Statistics combine linearly
    (``a - b``, ``a + b``, ``2.0 * a``, ``-a``: :class:`Linear`) and keep exact jackknife
    values when every part has them, so a paired difference or a contrast of metrics is
    jackknifed in ``O(n log n)``.
    """

    def __call__(self, w: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def leave_one_out(self, n: int) -> np.ndarray | None:
        """The statistic with each of the ``n`` instances of the weights left out in turn
        (entry ``i``: instance ``i`` left out), or ``None`` without a closed form."""
        return None

    def __add__(self, other: object) -> Statistic:
        if not isinstance(other, Statistic):
            return NotImplemented
        return Linear(((1.0, self), (1.0, other)))

    def __sub__(self, other: object) -> Statistic:
        if not isinstance(other, Statistic):
            return NotImplemented
        return Linear(((1.0, self), (-1.0, other)))

    def __mul__(self, k: float) -> Statistic:
        return Linear(((float(k), self),))

    __rmul__ = __mul__

    def __neg__(self) -> Statistic:
        return Linear(((-1.0, self),))


class Linear(Statistic):
    """``sum(coef * statistic)`` over ``terms`` of ``(coef, statistic)`` pairs, all on the same
    instances; its jackknife values are the same combination of theirs (exact when all are)."""

    def __init__(self, terms: Sequence[tuple[float, Statistic]]):
        self.terms = tuple((float(k), s) for k, s in terms)

    def __call__(self, w: np.ndarray) -> np.ndarray:
        (k, first), *rest = self.terms
        out = k * first(w)
        for k, s in rest:
            out = out + k * s(w)
        return out

    def leave_one_out(self, n: int) -> np.ndarray | None:
        out = np.zeros(n)
        for k, s in self.terms:
            v = s.leave_one_out(n)
            if v is None:
                return None
            out = out + k * v
        return out


#: the weighted functions a :class:`MetricStatistic` can name: the metrics and the mean
#: confidence (a term of :mod:`calib.confidence.combined`)
STATISTIC_FUNCTIONS = {**WEIGHTED, "confidence": weighted_confidence}


class MetricStatistic(Statistic):
    """``metric`` (:data:`STATISTIC_FUNCTIONS`) of validated float arrays ``conf``, ``corr`` as a
    :class:`Statistic` over the weights of the instances in their original order.

    The instances are sorted by confidence once; a block of weights is gathered into that order
    on each call (or once by the caller, :meth:`evaluate`, and shared by the metrics of the same
    confidences); the metrics that are means (:data:`calib.confidence.jackknife.MEANS`) are
    computed in the original order, without a gather. ``index``: the positions of these
    instances among those of the weights when the statistic covers only part of a sample (e.g.
    the 1:1 relations of a BEAR sample); a resample that draws none of them gives NaN. The exact
    jackknife of :data:`calib.confidence.jackknife.LEAVE_ONE_OUT` where the metric has one.
    """

    def __init__(self, metric: str, conf, corr, n_bins: int = N_BINS, index=None):
        if metric not in STATISTIC_FUNCTIONS:
            raise ValueError(
                f"unknown metric {metric!r}; expected one of {list(STATISTIC_FUNCTIONS)}"
            )
        self.metric, self.n_bins = metric, n_bins
        self.conf = np.asarray(conf, dtype=float)
        self.corr = np.asarray(corr, dtype=float)
        self.index = None if index is None else np.asarray(index, dtype=np.int64)
        self.order = np.argsort(self.conf, kind="stable")
        self.c, self.y = self.conf[self.order], self.corr[self.order]
        self.sorted = metric not in MEANS
        self._fn = STATISTIC_FUNCTIONS[metric]
        cols = self.order if self.sorted else None
        if self.index is not None:
            cols = self.index[self.order] if self.sorted else self.index
        self._cols = cols
        self._key: tuple | None = None

    @property
    def key(self) -> tuple:
        """What the statistic's values depend on: ``(metric, n_bins, conf, corr, index)`` (the
        arrays as bytes), the key of its replicates in :func:`shared_resamples`."""
        if self._key is None:
            index = b"" if self.index is None else self.index.tobytes()
            self._key = (
                self.metric,
                int(self.n_bins),
                self.conf.tobytes(),
                self.corr.tobytes(),
                index,
            )
        return self._key

    def __call__(self, w: np.ndarray) -> np.ndarray:
        return self.evaluate(w)

    def evaluate(self, w: np.ndarray, w_sorted: np.ndarray | None = None) -> np.ndarray:
        """The statistic on weights ``w``; ``w_sorted``: ``w[:, self.order]`` where the caller
        has gathered it already (a whole-sample statistic only)."""
        cols = self._cols
        with np.errstate(invalid="ignore", divide="ignore"):
            if not self.sorted:
                wc = w if cols is None else w[:, cols]
                return self._fn(self.conf, self.corr, wc, self.n_bins)
            ws = w[:, cols] if w_sorted is None or self.index is not None else w_sorted
            return self._fn(self.c, self.y, ws, self.n_bins)

    def leave_one_out(self, n: int) -> np.ndarray | None:
        left_out = LEAVE_ONE_OUT.get(self.metric)
        if left_out is None:
            return None
        own = np.empty(len(self.c))
        own[self.order] = left_out(self.c, self.y)
        if self.index is None:
            if n != len(own):
                raise ValueError(f"a statistic of {len(own)} instances asked for {n}")
            return own
        ones = np.ones((1, len(own)), np.int64)
        out = np.full(n, float(self._fn(self.c, self.y, ones, self.n_bins)[0]))
        out[self.index] = own  # instances outside the part leave it unchanged
        return out


# -- shared resamples ---------------------------------------------------------------------------


class SharedResamples:
    """What :func:`shared_resamples` keeps: the blocks of resampling weights of the streams
    drawn last (at most ``max_cells`` weights in all, the least recently used dropped first),
    the replicates of every :class:`MetricStatistic` evaluated on a stream (``replicates``),
    and noise-floor draws (``floors``, :mod:`calib.confidence.noise_floor`).

    Parameters
    ----------
    max_cells : int
        The resampling weights kept at most (``int64`` cells).
    """

    def __init__(self, max_cells: int):
        self.max_cells = max_cells
        self._weights: OrderedDict[tuple[int, int, int], list[np.ndarray]] = OrderedDict()
        self.replicates: dict[tuple, np.ndarray] = {}
        self.floors: dict[tuple, dict[str, np.ndarray]] = {}

    def weights(self, n: int, n_boot: int, seed: int) -> list[np.ndarray]:
        """The blocks of the stream ``(n, n_boot, seed)``, drawn where not kept."""
        key = (int(n), int(n_boot), int(seed))
        blocks = self._weights.get(key)
        if blocks is not None:
            self._weights.move_to_end(key)
            return blocks
        blocks = list(_draw_weights(n, n_boot, seed))
        for b in blocks:
            b.flags.writeable = False
        if n * n_boot <= self.max_cells:
            self._weights[key] = blocks
            while sum(k[0] * k[1] for k in self._weights) > self.max_cells:
                self._weights.popitem(last=False)
        return blocks


_SHARED: contextvars.ContextVar[SharedResamples | None] = contextvars.ContextVar(
    "calib_shared_resamples", default=None
)
#: the resampling weights :func:`shared_resamples` keeps at most (int64 cells: 256 MiB)
SHARED_WEIGHT_CELLS = 32_000_000


def shared_store() -> SharedResamples | None:
    """What the innermost :func:`shared_resamples` block keeps.

    Returns
    -------
    calib.confidence.bootstrap.SharedResamples or None
        ``None`` outside such a block.
    """
    return _SHARED.get()


@contextlib.contextmanager
def shared_resamples(max_cells: int = SHARED_WEIGHT_CELLS) -> Iterator[None]:
    """Within this block, compute each metric's bootstrap replicates of the same instances once.

    Every interval of :mod:`calib.confidence` draws its resamples from ``(n, n_boot, seed)``
    alone, so the tables of one model (Table 1's intervals, the other calibration errors, the
    signed gaps, AUROC / AURC, the paired differences between estimators) evaluate the same
    metric of the same confidences on the same resamples many times over. Inside the block
    the resampling weights of a stream are drawn once (streams of at most ``max_cells``
    weights kept, the least recently used dropped first), the replicates of a metric of given
    confidences and correctness (:class:`MetricStatistic`) are computed once, and a paired
    difference (a :class:`Linear` of them) combines its parts' replicates with the arithmetic
    of ``Linear.__call__``; the noise floors of one confidence vector draw their outcomes
    once for every binned metric (:func:`calib.confidence.noise_floor.floor_draws_all`). Every
    number is the one computed outside the block, to the bit; only the work is shared. What
    is kept lives as long as the block (a chapter wraps one model's steps in it).

    Parameters
    ----------
    max_cells : int
        The resampling weights kept at most (``int64`` cells; default
        :data:`SHARED_WEIGHT_CELLS`).

    Yields
    ------
    None
    """
    token = _SHARED.set(SharedResamples(max_cells))
    try:
        yield
    finally:
        _SHARED.reset(token)


def _leaves(statistic) -> list[MetricStatistic] | None:
    """The :class:`MetricStatistic` terms of a statistic built from them by :class:`Linear`
    (``None`` for any other statistic)."""
    if isinstance(statistic, MetricStatistic):
        return [statistic]
    if isinstance(statistic, Linear):
        out: list[MetricStatistic] = []
        for _, term in statistic.terms:
            leaves = _leaves(term)
            if leaves is None:
                return None
            out += leaves
        return out
    return None


def _combined(statistic, reps: dict[int, np.ndarray]) -> np.ndarray:
    """``statistic``'s replicates from those of its leaves (``reps`` by ``id``), with the
    arithmetic of ``Linear.__call__``."""
    if isinstance(statistic, MetricStatistic):
        return reps[id(statistic)]
    (k, first), *rest = statistic.terms
    out = k * _combined(first, reps)
    for k, s in rest:
        out = out + k * _combined(s, reps)
    return out


def _sorted_weights(
    w: np.ndarray, s: MetricStatistic, gathered: dict[bytes, np.ndarray]
) -> np.ndarray | None:
    """``w[:, s.order]`` for a whole-sample statistic that sorts (gathered once per block and
    confidence vector, in ``gathered``), else ``None``."""
    if not s.sorted or s.index is not None:
        return None
    conf_key = s.key[2]
    if conf_key not in gathered:
        gathered[conf_key] = w[:, s.order]
    return gathered[conf_key]


def _shared_replicates(
    stats: Sequence[MetricStatistic], n: int, n_boot: int, seed: int, shared: SharedResamples
) -> list[np.ndarray]:
    """The replicates of each of ``stats`` on the stream ``(n, n_boot, seed)``: those computed
    before in ``shared``, the others in one pass over the stream's blocks (one gather per block
    and confidence vector; the equal-width binned errors of one vector binned once per block)."""
    stream = (int(n), int(n_boot), int(seed))
    keys = [(stream, s.key) for s in stats]
    todo = {}
    for s, key in zip(stats, keys):
        if key not in shared.replicates and key not in todo:
            todo[key] = s
    if todo:
        parts: dict[tuple, list[np.ndarray]] = {key: [] for key in todo}
        # the uniform-binned errors of one (conf, corr, bins), evaluated together
        groups: dict[tuple, list[tuple]] = {}
        for key, s in todo.items():
            if s.metric in UNIFORM_ERRORS and s.index is None:
                groups.setdefault((s.key[1], s.key[2:]), []).append(key)
        together = {k for keys_ in groups.values() if len(keys_) > 1 for k in keys_}
        for w in resample_weights(n, n_boot, seed):
            gathered: dict[bytes, np.ndarray] = {}
            for keys_ in groups.values():
                if len(keys_) < 2:
                    continue
                first = todo[keys_[0]]
                with np.errstate(invalid="ignore", divide="ignore"):
                    values = uniform_errors(
                        first.c,
                        first.y,
                        _sorted_weights(w, first, gathered),
                        [todo[k].metric for k in keys_],
                        first.n_bins,
                    )
                for k in keys_:
                    parts[k].append(values[todo[k].metric])
            for key, s in todo.items():
                if key not in together:
                    parts[key].append(s.evaluate(w, _sorted_weights(w, s, gathered)))
        for key, blocks in parts.items():
            reps = np.concatenate(blocks)
            reps.flags.writeable = False
            shared.replicates[key] = reps
    return [shared.replicates[key] for key in keys]


def replicates(statistic: WeightedStatistic, n: int, n_boot: int, seed: int) -> np.ndarray:
    """``statistic`` on each of the ``n_boot`` seeded resamples of ``n`` instances (inside
    :func:`shared_resamples`, a statistic built from :class:`MetricStatistic` terms reuses
    their replicates)."""
    shared = _SHARED.get()
    leaves = _leaves(statistic) if shared is not None else None
    if shared is not None and leaves is not None:
        reps = _shared_replicates(leaves, n, n_boot, seed, shared)
        return _combined(statistic, {id(s): r for s, r in zip(leaves, reps)})
    return np.concatenate([statistic(w) for w in resample_weights(n, n_boot, seed)])


def jackknife(statistic: WeightedStatistic, n: int) -> np.ndarray:
    """The jackknife values of ``statistic`` on ``n`` instances, for BCa's acceleration
    (:func:`acceleration`): the exact delete-one values where ``statistic`` is a
    :class:`Statistic` with a closed form (``n`` values, instance ``i`` left out in entry
    ``i``), else ``statistic`` with each group of
    :func:`calib.confidence.jackknife.jackknife_groups` left out
    (:func:`calib.confidence.jackknife.jackknife_weights`: the delete-one jackknife up to
    :data:`calib.confidence.jackknife.JACKKNIFE_GROUPS` instances, that many groups beyond).
    NaN for fewer than 3 instances, too few for an acceleration. Either way linear in ``n``;
    jackknife values of statistics of the same kind on the same ``n`` instances combine entry
    by entry (a contrast's from its cells')."""
    if n < 3:
        return np.full(n, np.nan)
    if isinstance(statistic, Statistic):
        exact = statistic.leave_one_out(n)
        if exact is not None:
            return exact
    return np.concatenate([statistic(w) for w in jackknife_weights(n)])


def percentile_interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """The central ``level`` percentile interval of the finite bootstrap ``values``."""
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return float("nan"), float("nan")
    lo, hi = np.quantile(finite, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def _share_below(values: np.ndarray, point: float) -> float:
    """Share of ``values`` below ``point``, ties (to rounding) counted half."""
    tol = 1e-12 * max(1.0, abs(point))
    below = np.mean(values < point - tol)
    tied = np.mean(np.abs(values - point) <= tol)
    return float(below + tied / 2)


def acceleration(jack: np.ndarray | None) -> float:
    """BCa's acceleration ``a = sum(d^3) / (6 sum(d^2)^1.5)``, ``d = mean(jack) - jack``, from
    jackknife values (Efron & Tibshirani 1993, Eq. 14.15: delete-one; or grouped,
    :func:`jackknife`); 0 when undefined."""
    if jack is None:
        return 0.0
    jack = np.asarray(jack, dtype=float)
    if len(jack) < 3 or not np.isfinite(jack).all():
        return 0.0
    d = jack.mean() - jack
    den = 6.0 * float((d * d).sum()) ** 1.5
    return float((d**3).sum() / den) if den > 0 else 0.0


def _bca_levels(z0: float, a: float, level: float) -> tuple[float, float] | None:
    """BCa's adjusted percentile levels, or ``None`` where the formula breaks down."""
    out = []
    for q in ((1 - level) / 2, 1 - (1 - level) / 2):
        z = z0 + stats.norm.ppf(q)
        den = 1 - a * z
        if not np.isfinite(z) or den <= 0:
            return None
        out.append(float(stats.norm.cdf(z0 + z / den)))
    return out[0], out[1]


def interval(
    point: float,
    reps: np.ndarray,
    level: float = 0.95,
    method: str = "bca",
    jack: np.ndarray | None = None,
    bounds: tuple[float, float] = (-np.inf, np.inf),
) -> tuple[float, float]:
    """A ``level`` interval for the estimate ``point`` from its bootstrap replicates ``reps``.

    ``method``: ``"bca"`` (bias-corrected and accelerated; ``jack`` are jackknife values,
    :func:`jackknife`, without them the acceleration is 0), ``"centred"`` (the percentile
    interval of ``reps - (mean(reps) - point)``, clipped to ``bounds``) or ``"percentile"``.
    Non-finite replicates are left out; none left gives NaN. The result always contains
    ``point``: a bound that would exclude it is moved to it (see the module docstring).
    """
    if method not in METHODS:
        raise ValueError(f"unknown interval method {method!r}; expected one of {list(METHODS)}")
    reps = np.asarray(reps, dtype=float)
    reps = reps[np.isfinite(reps)]
    if len(reps) == 0 or not np.isfinite(point):
        return float("nan"), float("nan")
    if np.ptp(reps) == 0:  # every resample gives the same value
        lo = hi = float(reps[0])
    elif method == "percentile":
        lo, hi = percentile_interval(reps, level)
    elif method == "centred":
        lo, hi = percentile_interval(reps - (reps.mean() - point), level)
        lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    else:
        share = np.clip(_share_below(reps, point), 0.5 / len(reps), 1 - 0.5 / len(reps))
        levels = _bca_levels(float(stats.norm.ppf(share)), acceleration(jack), level)
        if levels is None:  # the acceleration makes the formula break down: no BCa here
            lo, hi = percentile_interval(reps, level)
        else:
            lo, hi = (float(v) for v in np.quantile(reps, levels))
    return min(lo, point), max(hi, point)


def interval_p_value(
    point: float,
    reps: np.ndarray,
    method: str = "bca",
    jack: np.ndarray | None = None,
    null: float = 0.0,
) -> float:
    """Two-sided bootstrap p-value of "the statistic is ``null``", consistent with
    :func:`interval`: the smallest ``1 - level`` whose interval reaches ``null``.

    ``"percentile"``: twice the smaller share of ``reps`` on either side of ``null``;
    ``"centred"``: the same for the centred replicates; ``"bca"``: the BCa achieved significance
    level (Efron & Tibshirani 1993, §15.4), ``null`` mapped back through the BCa levels.
    """
    reps = np.asarray(reps, dtype=float)
    reps = reps[np.isfinite(reps)]
    if len(reps) == 0:
        return float("nan")
    if method == "centred":
        reps = reps - (reps.mean() - point)
    elif method == "bca" and np.ptp(reps) > 0:
        eps = 0.5 / len(reps)
        z0 = stats.norm.ppf(np.clip(_share_below(reps, point), eps, 1 - eps))
        at_null = stats.norm.ppf(np.clip(_share_below(reps, null), eps, 1 - eps))
        a = acceleration(jack)
        w = at_null - z0
        if 1 + a * w > 0:
            z = w / (1 + a * w) - z0
            tail = float(stats.norm.cdf(z))
            return float(min(1.0, 2 * min(tail, 1 - tail)))
    return float(min(1.0, 2 * min(np.mean(reps <= null), np.mean(reps >= null))))


def metric_statistic(
    metric: str, conf, corr, n_bins: int = N_BINS
) -> tuple[MetricStatistic, np.ndarray]:
    """``metric`` of validated arrays as a weighted statistic over the *original* order of the
    instances (a :class:`MetricStatistic`, so statistics of several estimators on the same
    instances share resamples: combine them, ``stat_a - stat_b``, and pass the result to
    :func:`difference_interval`), and the order that sorts them by confidence."""
    stat = MetricStatistic(metric, conf, corr, n_bins)
    return stat, stat.order


def metric_intervals(
    conf,
    corr,
    metrics: Sequence[str],
    n_boot: int,
    seed: int,
    level: float = 0.95,
    n_bins: int = N_BINS,
) -> dict[str, tuple[float, float, float]]:
    """``{metric: (value, low, high)}`` for validated float arrays ``conf``, ``corr``, each
    interval by the metric's method (:data:`INTERVAL_METHODS`); ``n_boot=0``: NaN bounds.
    Every metric is evaluated on the same resamples: each block of resampling weights is drawn
    once and used by all of them."""
    n = len(conf)
    ones = np.ones((1, n), np.int64)
    stats_ = {m: MetricStatistic(m, conf, corr, n_bins) for m in dict.fromkeys(metrics)}
    values = {m: float(stat(ones)[0]) for m, stat in stats_.items()}
    if not n_boot:
        return {m: (v, float("nan"), float("nan")) for m, v in values.items()}
    shared = _SHARED.get()
    if shared is not None:  # replicates computed before on these instances are reused
        done = _shared_replicates(list(stats_.values()), n, n_boot, seed, shared)
        reps = {m: [r] for m, r in zip(stats_, done)}
    else:
        order = np.argsort(conf, kind="stable")  # every statistic's: the same confidences
        gather = any(stat.sorted for stat in stats_.values())
        reps = {m: [] for m in stats_}
        for w in resample_weights(n, n_boot, seed):
            w_sorted = w[:, order] if gather else None  # one gather per block, for every metric
            for m, stat in stats_.items():
                reps[m].append(stat.evaluate(w, w_sorted))
    out = {}
    for m, stat in stats_.items():
        j = jackknife(stat, n) if INTERVAL_METHODS[m] == "bca" else None
        out[m] = (
            values[m],
            *interval(
                values[m], np.concatenate(reps[m]), level, INTERVAL_METHODS[m], j, METRIC_RANGE[m]
            ),
        )
    return out


def point_values(conf, corr, metrics, n_bins) -> dict[str, float]:
    """``{metric: value}`` on the sample itself (unit weights)."""
    return {
        m: v for m, (v, _, _) in metric_intervals(conf, corr, metrics, 0, 0, n_bins=n_bins).items()
    }


def bootstrap_metrics(
    confidence,
    correct,
    metrics: Sequence[str] = METRICS,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Point values and bootstrap intervals over instances.

    One row per metric (``"ace"``, ``"brier"``, ``"accuracy"``, ``"ece"``) with ``value``,
    ``low``, ``high`` (the ``level`` interval from ``n_boot`` resamples, by the metric's method
    in :data:`INTERVAL_METHODS`), ``method`` and ``n_boot``.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    metrics : sequence of str
        The metrics (default :data:`METRICS`: ACE, Brier, accuracy).
    n_boot : int
        Bootstrap resamples, at least 1 (default 1000).
    seed : int
        The resamples' seed (default 0).
    level : float
        The interval's level, in (0, 1) (default 0.95).
    n_bins : int
        The binned metrics' number of bins (default 20).

    Returns
    -------
    pandas.DataFrame
        ``metric``, ``value``, ``low``, ``high``, ``method``, ``n_boot``: one row per metric.

    Raises
    ------
    ValueError
        For a bad ``n_boot``, ``level`` or metric name (:func:`check_bootstrap_args`), or inputs
        :func:`calib.confidence.metrics.check_inputs` rejects.
    """
    check_bootstrap_args(n_boot, level, metrics)
    conf, corr = check_inputs(confidence, correct)
    res = metric_intervals(conf, corr, metrics, n_boot, seed, level, n_bins)
    rows = [
        {
            "metric": m,
            "value": v,
            "low": lo,
            "high": hi,
            "method": INTERVAL_METHODS[m],
            "n_boot": n_boot,
        }
        for m, (v, lo, hi) in res.items()
    ]
    return pd.DataFrame(rows)


def bootstrap_interval(
    confidence,
    correct,
    metric: str = "ace",
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
) -> tuple[float, float, float]:
    """``(value, low, high)`` of one metric; see :func:`bootstrap_metrics`.

    Parameters
    ----------
    confidence : array-like
        One confidence per instance, finite and at most 1 (below 0 is allowed: the paper's
        Entropy-Confidence, Eq. 7).
    correct : array-like
        Whether each instance is correct: booleans or 0/1, as long as ``confidence``.
    metric : str
        The metric (default ``"ace"``).
    n_boot : int
        Bootstrap resamples, at least 1 (default 1000).
    seed : int
        The resamples' seed (default 0).
    level : float
        The interval's level, in (0, 1) (default 0.95).
    n_bins : int
        The binned metrics' number of bins (default 20).

    Returns
    -------
    tuple of (float, float, float)
        ``(value, low, high)``.

    Raises
    ------
    ValueError
        For a bad ``n_boot``, ``level`` or metric name (:func:`check_bootstrap_args`), or inputs
        :func:`calib.confidence.metrics.check_inputs` rejects.
    """
    row = bootstrap_metrics(confidence, correct, (metric,), n_boot, seed, level, n_bins).iloc[0]
    return row["value"], row["low"], row["high"]


def paired_difference(
    conf_a,
    correct_a,
    conf_b,
    correct_b,
    metric: str = "ace",
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
) -> dict:
    """Paired bootstrap of ``metric(a) - metric(b)`` for two estimators on the same instances
    (entry ``i`` of both inputs is the same instance).

    Returns ``difference``, ``low``, ``high`` (the interval by the metric's method,
    :data:`INTERVAL_METHODS`, applied to the paired differences: bias-centred for ACE, BCa with
    a jackknife of the difference for Brier and accuracy), ``method`` and ``p_value`` (two-sided,
    :func:`interval_p_value`, consistent with the interval). The interval excluding 0 means the
    estimators differ at that level.

    Parameters
    ----------
    conf_a : array-like
        The first estimator's confidences.
    correct_a : array-like
        Its correctness, as long as ``conf_a``.
    conf_b : array-like
        The second estimator's confidences, on the same instances in the same order.
    correct_b : array-like
        Its correctness.
    metric : str
        The metric (default ``"ace"``).
    n_boot : int
        Bootstrap resamples, at least 1 (default 1000).
    seed : int
        The resamples' seed (default 0).
    level : float
        The interval's level, in (0, 1) (default 0.95).
    n_bins : int
        The binned metrics' number of bins (default 20).

    Returns
    -------
    dict
        ``metric``, ``difference``, ``low``, ``high``, ``method``, ``p_value``, ``n``,
        ``n_boot``.

    Raises
    ------
    ValueError
        For a bad ``n_boot``, ``level`` or metric name (:func:`check_bootstrap_args`), or inputs
        :func:`calib.confidence.metrics.check_inputs` rejects; also when the two cover different
        numbers of instances.
    """
    check_bootstrap_args(n_boot, level, (metric,))
    ca, ya = check_inputs(conf_a, correct_a)
    cb, yb = check_inputs(conf_b, correct_b)
    if len(ca) != len(cb):
        raise ValueError(f"paired inputs must cover the same instances: {len(ca)} vs {len(cb)}")
    diff = MetricStatistic(metric, ca, ya, n_bins) - MetricStatistic(metric, cb, yb, n_bins)
    return difference_interval(
        diff, len(ca), INTERVAL_METHODS[metric], n_boot, seed, level, metric=metric
    )


def difference_interval(
    statistic: WeightedStatistic,
    n: int,
    method: str,
    n_boot: int,
    seed: int,
    level: float = 0.95,
    metric: str = "",
) -> dict:
    """The paired-difference record (``metric``, ``difference``, ``low``, ``high``, ``method``,
    ``p_value``, ``n``, ``n_boot``) of a weighted ``statistic`` of ``n`` instances that is a
    difference (null value 0)."""
    point = float(statistic(np.ones((1, n), np.int64))[0])
    reps = replicates(statistic, n, n_boot, seed)
    jack = jackknife(statistic, n) if method == "bca" else None
    lo, hi = interval(point, reps, level, method, jack)
    return {
        "metric": metric,
        "difference": point,
        "low": lo,
        "high": hi,
        "method": method,
        "p_value": interval_p_value(point, reps, method, jack),
        "n": n,
        "n_boot": n_boot,
    }


def _aligned(est_a: pd.DataFrame, est_b: pd.DataFrame, keys: Sequence[str]):
    for name, est in (("first", est_a), ("second", est_b)):
        require_columns(est, (*keys, "confidence", "correct"), f"{name} estimate table")
        if est.duplicated(list(keys)).any():
            raise ValueError(
                f"{name} estimate table has several rows per instance {list(keys)}; "
                f"select one estimator/template first"
            )
    merged = est_a[[*keys, "confidence", "correct"]].merge(
        est_b[[*keys, "confidence", "correct"]],
        on=list(keys),
        how="outer",
        suffixes=("_a", "_b"),
        indicator=True,
    )
    unmatched = merged["_merge"] != "both"
    if unmatched.any():
        raise ValueError(
            f"the two estimate tables cover different instances: "
            f"{int((merged['_merge'] == 'left_only').sum())} only in the first, "
            f"{int((merged['_merge'] == 'right_only').sum())} only in the second"
        )
    return merged.sort_values(list(keys), kind="stable").reset_index(drop=True)


def paired_estimates_difference(
    est_a: pd.DataFrame,
    est_b: pd.DataFrame,
    metric: str = "ace",
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
    keys: Sequence[str] = INSTANCE,
) -> dict:
    """:func:`paired_difference` for two estimate tables, matched on the instance ``keys``
    (a ``ValueError`` if they cover different instances).

    Parameters
    ----------
    est_a : pandas.DataFrame
        The first estimate table, one row per instance.
    est_b : pandas.DataFrame
        The second, on the same instances.
    metric : str
        The metric (default ``"ace"``).
    n_boot : int
        Bootstrap resamples, at least 1 (default 1000).
    seed : int
        The resamples' seed (default 0).
    level : float
        The interval's level, in (0, 1) (default 0.95).
    n_bins : int
        The binned metrics' number of bins (default 20).
    keys : sequence of str
        The columns that name an instance (default
        :data:`calib.confidence.schema.INSTANCE`).

    Returns
    -------
    dict
        ``metric``, ``difference``, ``low``, ``high``, ``method``, ``p_value``, ``n``,
        ``n_boot``.

    Raises
    ------
    ValueError
        For a missing column, several rows for one instance, instances only in one table, or
        as :func:`paired_difference`.
    """
    m = _aligned(est_a, est_b, keys)
    return paired_difference(
        m["confidence_a"],
        m["correct_a"].astype(bool),
        m["confidence_b"],
        m["correct_b"].astype(bool),
        metric,
        n_boot,
        seed,
        level,
        n_bins,
    )


def estimator_differences(
    estimates: pd.DataFrame,
    pairs: Sequence[tuple[str, str]] | None = None,
    metrics: Sequence[str] = ("ace",),
    by: Sequence[str] = ("model",),
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
    keys: Sequence[str] = INSTANCE,
) -> pd.DataFrame:
    """Paired bootstrap differences ``metric(a) - metric(b)`` between estimators of a long
    estimate table (column ``estimator``), per group of ``by`` (default per model), for each
    of ``metrics`` (any of :data:`calib.confidence.metrics.WEIGHTED`, e.g. ``"auroc"``,
    ``"aurc"``).

    ``pairs``: ``(a, b)`` estimator names; ``None``: every pair of the table's estimators in
    the order they first appear (``a`` before ``b``); groups in sorted order. Each difference is
    :func:`paired_estimates_difference` (the two estimators on the same resamples of the
    group's instances, matched on ``keys``); with one ``seed`` every pair and metric of a
    group uses the same resamples. Columns ``by``, ``a``, ``b``, ``metric``, ``difference``,
    ``low``, ``high``, ``method``, ``p_value``, ``n``, ``n_boot``; a pair absent from a group
    is a ``ValueError``.

    Parameters
    ----------
    estimates : pandas.DataFrame
        A long estimate table (with ``estimator``).
    pairs : sequence of tuple of (str, str) or None
        The ``(a, b)`` estimator pairs (default: every pair).
    metrics : sequence of str
        The metrics (default ``("ace",)``).
    by : sequence of str
        The grouping columns (default ``("model",)``).
    n_boot : int
        Bootstrap resamples, at least 1 (default 1000).
    seed : int
        The resamples' seed (default 0).
    level : float
        The interval's level, in (0, 1) (default 0.95).
    n_bins : int
        The binned metrics' number of bins (default 20).
    keys : sequence of str
        The columns that name an instance (default
        :data:`calib.confidence.schema.INSTANCE`).

    Returns
    -------
    pandas.DataFrame
        One row per group, pair and metric.

    Raises
    ------
    ValueError
        For a bad ``n_boot``, ``level`` or metric name, a missing column, a pair absent from a
        group, or as :func:`paired_estimates_difference`.
    """
    check_bootstrap_args(n_boot, level, metrics)
    by = list(by)
    require_columns(estimates, (*by, "estimator", *keys, "confidence", "correct"), "estimate table")
    names = list(dict.fromkeys(estimates["estimator"].unique()))
    pairs = (
        [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
        if pairs is None
        else [(a, b) for a, b in pairs]
    )
    rows = []
    groups = estimates.groupby(by, sort=True, dropna=False) if by else [((), estimates)]
    for label, part in groups:
        label = label if isinstance(label, tuple) else (label,)
        where = dict(zip(by, label))
        for a, b in pairs:
            est = {name: part[part["estimator"] == name] for name in (a, b)}
            for name, frame in est.items():
                if frame.empty:
                    raise ValueError(
                        f"no estimates of {name!r} in group {where}; it has "
                        f"{sorted(part['estimator'].unique())}"
                    )
            for metric in metrics:
                res = paired_estimates_difference(
                    est[a], est[b], metric, n_boot, seed, level, n_bins, keys
                )
                rows.append({**where, "a": a, "b": b, **res})
    return pd.DataFrame(
        rows,
        columns=[
            *by,
            "a",
            "b",
            "metric",
            "difference",
            "low",
            "high",
            "method",
            "p_value",
            "n",
            "n_boot",
        ],
    )


def correlation_interval(
    x, y, method: str = "pearson", n_boot: int = 2000, seed: int = 0, level: float = 0.95
) -> dict:
    """A correlation coefficient across units (e.g. models: ACE vs accuracy) with a BCa
    bootstrap interval (:func:`interval`) from resampling the ``(x, y)`` pairs, the acceleration
    from leaving out one pair at a time.

    ``method``: ``"pearson"`` or ``"spearman"``. Resamples in which ``x`` or ``y`` is constant
    have no correlation and are left out; ``n_used`` says how many remained.

    Parameters
    ----------
    x : array-like
        One value per unit, finite.
    y : array-like
        One value per unit, finite, as long as ``x`` (at least 3).
    method : str
        ``"pearson"`` (default) or ``"spearman"``.
    n_boot : int
        Bootstrap resamples of the pairs (default 2000).
    seed : int
        The resamples' seed (default 0).
    level : float
        The interval's level (default 0.95).

    Returns
    -------
    dict
        ``method``, ``r``, ``low``, ``high``, ``n``, ``n_boot``, ``n_used``.

    Raises
    ------
    ValueError
        For an unknown ``method``, a bad ``n_boot`` or ``level``, inputs that are not 1-D of
        equal length, fewer than 3 pairs, or values that are not finite.
    """
    if method not in ("pearson", "spearman"):
        raise ValueError(f"unknown method {method!r}; expected 'pearson' or 'spearman'")
    check_bootstrap_args(n_boot, level, ())
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if xa.ndim != 1 or xa.shape != ya.shape:
        raise ValueError(f"x and y must be 1-D of equal length, got {xa.shape} and {ya.shape}")
    if len(xa) < 3:
        raise ValueError(f"a correlation interval needs at least 3 pairs, got {len(xa)}")
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise ValueError("x and y must be finite")

    def corr(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # row-wise correlation
        if method == "spearman":
            a, b = stats.rankdata(a, axis=-1), stats.rankdata(b, axis=-1)
        a = a - a.mean(axis=-1, keepdims=True)
        b = b - b.mean(axis=-1, keepdims=True)
        den = np.sqrt((a * a).sum(axis=-1) * (b * b).sum(axis=-1))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (a * b).sum(axis=-1) / np.where(den > 0, den, 1), np.nan)

    r = float(corr(xa[None, :], ya[None, :])[0])
    idx = np.random.default_rng(seed).integers(0, len(xa), size=(n_boot, len(xa)))
    reps = corr(xa[idx], ya[idx])
    keep = ~np.eye(len(xa), dtype=bool)
    left_out = np.arange(len(xa))[None, :].repeat(len(xa), 0)[keep].reshape(len(xa), -1)
    jack = corr(xa[left_out], ya[left_out])
    lo, hi = interval(r, reps, level, "bca", jack, (-1.0, 1.0))
    return {
        "method": method,
        "r": r,
        "low": lo,
        "high": hi,
        "n": len(xa),
        "n_boot": n_boot,
        "n_used": int(np.isfinite(reps).sum()),
    }
