"""Intervals of a statistic that combines several metrics, over one or more samples of
instances: the change of ACE from 5 to 60 answer options averaged over three draws of the
options (§5.2), the mean over models of a FACTOR ACE minus a BEAR ACE (Appendix F), ...

A :class:`Term` is one metric of one set of confidences on one *sample* of instances (or on a
part of it, ``index``). Every term on a sample is evaluated on the same bootstrap resamples of
that sample's instances (a paired bootstrap: the three draws of the options of one BEAR sample,
two estimators, two numbers of options, several models scored on the same facts); different
samples (BEAR facts and FACTOR items) are resampled independently, each with its own seeded
stream. ``combine`` maps the terms' values (a ``(rows, terms)`` array) to the statistic
(``rows``): by default a linear combination with ``coefs``.

:func:`combined_interval` gives the statistic, its 95% interval (bias-centred percentile when a
binned metric such as ACE is among the terms, BCa otherwise: the rule of
:data:`calib.confidence.bootstrap.INTERVAL_METHODS`) and a two-sided p-value of "the statistic
is 0" (:func:`calib.confidence.bootstrap.interval_p_value`). With ``debias`` every binned term
is first replaced by its debiased value, the metric minus its noise floor
(:mod:`calib.confidence.noise_floor`; beyond the paper): the floor depends on the confidences and
on the sample size, so a raw difference of ACEs of two samples of different sizes mixes the
difference of calibration with the difference of their floors. The floors' Monte-Carlo error
widens the interval (``z`` times the standard error of the combined floor, propagated through
``combine`` by its numerical gradient). :func:`combined_floor` is the noise floor of a linear
combination itself (for a mean over draws of the options).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from calib.confidence.bootstrap import (
    INTERVAL_METHODS,
    MetricStatistic,
    check_bootstrap_args,
    interval,
    interval_p_value,
    jackknife_weights,
    resample_weights,
)
from calib.confidence.metrics import BINNED, N_BINS, WEIGHTED, check_inputs
from calib.confidence.noise_floor import N_DRAWS, floor_draws

#: the metrics a term can name: those of :data:`calib.confidence.metrics.WEIGHTED` and
#: ``confidence``, the mean confidence (Figure 3's "average C_Base confidence")
TERM_METRICS: tuple[str, ...] = (*WEIGHTED, "confidence")


@dataclass(frozen=True)
class Term:
    """One metric of one set of confidences on one sample of instances.

    ``confidence``, ``correct``: one entry per instance, in the sample's order of instances
    (the same order for every term of the sample); ``index``: the positions of these instances
    in the sample when the term covers only a part of it (e.g. BEAR's 1:1 relations within a
    BEAR sample), ``None`` for the whole sample."""

    sample: str
    metric: str
    confidence: np.ndarray
    correct: np.ndarray
    index: np.ndarray | None = None

    def __post_init__(self):
        if self.metric not in TERM_METRICS:
            raise ValueError(
                f"unknown metric {self.metric!r}; expected one of {list(TERM_METRICS)}"
            )
        conf, corr = check_inputs(self.confidence, self.correct)
        object.__setattr__(self, "confidence", conf)
        object.__setattr__(self, "correct", corr)
        if self.index is not None:
            idx = np.asarray(self.index, dtype=np.int64)
            if len(idx) != len(conf):
                raise ValueError(
                    f"a term's index has {len(idx)} positions for {len(conf)} instances"
                )
            object.__setattr__(self, "index", idx)

    @property
    def binned(self) -> bool:
        return self.metric in BINNED

    def statistic(self, n_bins: int = N_BINS) -> MetricStatistic:
        """The term as a weighted statistic of its sample's weights ``(rows, n_sample)``, with
        its exact jackknife where the metric has one
        (:class:`calib.confidence.bootstrap.MetricStatistic`; a resample that draws none of a
        partial term's instances gives NaN, left out by
        :func:`calib.confidence.bootstrap.interval`)."""
        return MetricStatistic(self.metric, self.confidence, self.correct, n_bins, self.index)


def sample_sizes(terms: Sequence[Term], sizes: dict[str, int] | None = None) -> dict[str, int]:
    """The number of instances of each sample (in order of first appearance): from ``sizes``,
    else from a term that covers the whole sample; terms of one sample must agree."""
    out: dict[str, int] = {}
    for t in terms:
        if t.index is None:
            n = len(t.confidence)
            if out.setdefault(t.sample, n) != n:
                raise ValueError(
                    f"the terms of sample {t.sample!r} cover {out[t.sample]} and "
                    f"{n} instances; every whole-sample term covers all of them"
                )
    for name, n in (sizes or {}).items():
        if out.setdefault(name, n) != n:
            raise ValueError(f"sample {name!r}: sizes says {n} instances, its terms {out[name]}")
    for t in terms:
        if t.sample not in out:
            raise ValueError(
                f"sample {t.sample!r} has only partial terms; give its size in `sizes`"
            )
        if (
            t.index is not None
            and len(t.index)
            and (t.index.min() < 0 or t.index.max() >= out[t.sample])
        ):
            raise ValueError(
                f"a term's index lies outside sample {t.sample!r} ({out[t.sample]} instances)"
            )
    order = list(dict.fromkeys(t.sample for t in terms))
    return {s: out[s] for s in order}


def _sample_seed(seed: int, j: int) -> int:
    """The seed of the ``j``-th sample: ``seed`` itself for the first (so a single sample gets
    the resamples of :func:`calib.confidence.summary.summary`), a derived one for the others."""
    if j == 0:
        return int(seed)
    return int(np.random.SeedSequence([int(seed), j]).generate_state(1)[0])


#: the bytes of terms' replicates (and floors) :func:`term_replicates` (:func:`term_floors`)
#: keep, the least recently used given up first: a chapter asks for the same term in several
#: statistics (Margin's gain on BEAR in the mean gain and in each comparison with FACTOR, a
#: small CLM's fall of ACE against every larger model, a curve's point and a change between two
#: points), each ``n_boot`` (``n_draws``) floats: 8 KB at 1000
MEMO_BYTES = 128 * 2**20
_MEMO: OrderedDict[bytes, np.ndarray] = OrderedDict()
_MEMO_SIZE = [0]


def _term_key(term: Term, *what) -> bytes:
    """A digest of ``term``'s data (metric, confidences, correctness, index) and ``what`` (the
    seed, the number of resamples, ...): equal keys, equal replicates."""
    h = hashlib.blake2b(digest_size=20)
    h.update(repr((term.metric, len(term.confidence), what)).encode())
    h.update(term.confidence.tobytes())
    h.update(term.correct.tobytes())
    h.update(b"whole" if term.index is None else term.index.tobytes())
    return h.digest()


def _recall(key: bytes) -> np.ndarray | None:
    got = _MEMO.get(key)
    if got is not None:
        _MEMO.move_to_end(key)
    return got


def _keep(key: bytes, values: np.ndarray) -> None:
    values.flags.writeable = False  # given out again: nobody may change it
    if key in _MEMO:
        _MEMO_SIZE[0] -= _MEMO.pop(key).nbytes
    _MEMO[key] = values
    _MEMO_SIZE[0] += values.nbytes
    while _MEMO_SIZE[0] > MEMO_BYTES and _MEMO:
        _MEMO_SIZE[0] -= _MEMO.popitem(last=False)[1].nbytes


def term_replicates(
    terms: Sequence[Term],
    n_boot: int,
    seed: int,
    n_bins: int = N_BINS,
    sizes: dict[str, int] | None = None,
) -> np.ndarray:
    """``(n_boot, terms)``: each term on each bootstrap resample (the terms of a sample on the
    same resamples, the samples independent). A term's column depends only on its data, its
    sample's size and seed, ``n_boot`` and ``n_bins``: the columns are kept (up to
    :data:`MEMO_BYTES`) and given again (the same numbers, not computed twice)."""
    n = sample_sizes(terms, sizes)
    out = np.empty((n_boot, len(terms)))
    statistic = [t.statistic(n_bins) for t in terms]
    for j, (name, size) in enumerate(n.items()):
        sample_seed = _sample_seed(seed, j)
        todo = []
        keys = {}
        for i, t in enumerate(terms):
            if t.sample != name:
                continue
            keys[i] = _term_key(t, "replicates", n_boot, sample_seed, size, n_bins)
            kept = _recall(keys[i])
            if kept is None:
                todo.append(i)
            else:
                out[:, i] = kept
        if not todo:
            continue
        row = 0
        for w in resample_weights(size, n_boot, sample_seed):
            for i in todo:
                out[row : row + len(w), i] = statistic[i](w)
            row += len(w)
        for i in todo:
            _keep(keys[i], out[:, i].copy())
    return out


def term_values(
    terms: Sequence[Term], n_bins: int = N_BINS, sizes: dict[str, int] | None = None
) -> np.ndarray:
    """``(1, terms)``: each term on its sample itself."""
    n = sample_sizes(terms, sizes)
    return np.array([[t.statistic(n_bins)(np.ones((1, n[t.sample]), np.int64))[0] for t in terms]])


def _linear(coefs: Sequence[float]) -> Callable[[np.ndarray], np.ndarray]:
    c = np.asarray(coefs, dtype=float)
    return lambda values: values @ c


def term_floors(
    terms: Sequence[Term], n_draws: int = N_DRAWS, seed: int = 0, n_bins: int = N_BINS
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
    """Per term: its noise floor (0 for a metric that is not binned), the floor's Monte-Carlo
    standard error, and the draws (``None`` for a term without a floor)."""
    floors, ses = np.zeros(len(terms)), np.zeros(len(terms))
    draws: list[np.ndarray | None] = []
    for i, t in enumerate(terms):
        if not t.binned:
            draws.append(None)
            continue
        key = _term_key(t, "floor", n_draws, seed, n_bins)
        d = _recall(key)
        if d is None:  # the floor depends on the confidences only: correct is in the key too
            d = floor_draws(t.confidence, t.metric, n_draws, seed, n_bins)
            _keep(key, d)
        floors[i], ses[i] = d.mean(), d.std(ddof=1) / np.sqrt(len(d))
        draws.append(d)
    return floors, ses, draws


def _gradient(combine, point: np.ndarray) -> np.ndarray:
    """The numerical gradient of ``combine`` at ``point`` (``(1, terms)``), central
    differences."""
    h = 1e-6
    out = np.zeros(point.shape[1])
    for i in range(point.shape[1]):
        up, down = point.copy(), point.copy()
        up[0, i] += h
        down[0, i] -= h
        out[i] = (float(combine(up)[0]) - float(combine(down)[0])) / (2 * h)
    return out


def combined_interval(
    terms: Sequence[Term],
    coefs: Sequence[float] | None = None,
    combine: Callable[[np.ndarray], np.ndarray] | None = None,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
    debias: bool = False,
    n_draws: int = N_DRAWS,
    method: str | None = None,
    sizes: dict[str, int] | None = None,
) -> dict:
    """The statistic ``combine(term values)`` (or ``sum(coefs * term values)``) with its
    ``level`` bootstrap interval (see the module docstring).

    Returns ``difference`` (the statistic; named so for :mod:`calib.experiments.quantifiers`'
    evidence frames), ``low``, ``high``, ``method``, ``p_value`` (two-sided, of 0), ``n`` (the
    instances of every sample, summed), ``n_boot``, ``debiased`` (whether binned terms were
    debiased) and ``floor_shift`` (the statistic's raw value minus its value on debiased terms;
    0 without ``debias``)."""
    terms = list(terms)
    if not terms:
        raise ValueError("combined_interval needs at least one term")
    if coefs is not None and combine is not None:
        raise ValueError("give either coefs (a linear combination) or combine")
    if coefs is not None:
        if len(coefs) != len(terms):
            raise ValueError(f"{len(coefs)} coefficients for {len(terms)} terms")
        combine = _linear(coefs)
    elif combine is None:
        raise ValueError("give either coefs (a linear combination) or combine")
    check_bootstrap_args(n_boot, level, ())
    n = sample_sizes(terms, sizes)
    if method is None:
        method = (
            "centred"
            if any(t.binned for t in terms)
            else INTERVAL_METHODS.get(terms[0].metric, "bca")
        )
    values = term_values(terms, n_bins, n)
    reps = term_replicates(terms, n_boot, seed, n_bins, n)
    raw = float(combine(values)[0])
    widen = 0.0
    if debias:
        floors, ses, _ = term_floors(terms, n_draws, seed, n_bins)
        values, reps = values - floors[None, :], reps - floors[None, :]
        grad = _gradient(combine, values)
        widen = float(stats.norm.ppf(1 - (1 - level) / 2)) * float(
            np.sqrt(((grad * ses) ** 2).sum())
        )
    point = float(combine(values)[0])
    stat_reps = np.asarray(combine(reps), dtype=float)
    jack = None
    if method == "bca" and len(n) == 1:
        (size,) = n.values()
        stat = [t.statistic(n_bins) for t in terms]
        exact = [s.leave_one_out(size) for s in stat] if size >= 3 else []
        columns = [v for v in exact if v is not None]
        if exact and len(columns) == len(exact):  # every term left out one at a time
            jack = np.asarray(combine(np.column_stack(columns)), dtype=np.float64)
        elif size >= 3:  # the grouped jackknife (calib.confidence.jackknife)
            jack = np.concatenate(
                [
                    np.asarray(combine(np.column_stack([s(w) for s in stat])))
                    for w in jackknife_weights(size)
                ]
            )
    lo, hi = interval(point, stat_reps, level, method, jack)
    return {
        "difference": point,
        "low": lo - widen,
        "high": hi + widen,
        "method": method,
        "p_value": interval_p_value(point, stat_reps, method, jack),
        "n": int(sum(n.values())),
        "n_boot": n_boot,
        "debiased": bool(debias),
        "floor_shift": raw - point,
    }


def combined_floor(
    terms: Sequence[Term],
    coefs: Sequence[float],
    *,
    n_draws: int = N_DRAWS,
    seed: int = 0,
    n_bins: int = N_BINS,
    level: float = 0.95,
) -> dict:
    """The noise floor of the linear combination ``sum(coefs * metric)`` of binned terms (e.g.
    the mean ACE over three draws of the options): each term's perfectly calibrated draws
    (:func:`calib.confidence.noise_floor.floor_draws`, ``seed``) combined draw by draw.
    ``floor``, ``floor_se``, ``floor_low``, ``floor_high`` (the central ``level`` range of the
    combined draws) and ``draws``."""
    terms = list(terms)
    if len(coefs) != len(terms) or not terms:
        raise ValueError(f"{len(coefs)} coefficients for {len(terms)} terms")
    if not all(t.binned for t in terms):
        raise ValueError(
            f"a noise floor needs binned metrics {list(BINNED)}; got "
            f"{sorted({t.metric for t in terms})}"
        )
    _, _, draws = term_floors(terms, n_draws, seed, n_bins)
    binned = [d for d in draws if d is not None]  # every term: all are binned
    combined = np.column_stack(binned) @ np.asarray(coefs, dtype=float)
    lo, hi = np.quantile(combined, [(1 - level) / 2, 1 - (1 - level) / 2])
    return {
        "floor": float(combined.mean()),
        "floor_se": float(combined.std(ddof=1) / np.sqrt(len(combined))),
        "floor_low": float(lo),
        "floor_high": float(hi),
        "draws": combined,
    }


#: the keys of an instance across models (a fact of BEAR, an item of FACTOR)
FACT_KEYS: tuple[str, ...] = ("dataset", "relation", "instance")


def instance_ids(frame, keys: Sequence[str] = FACT_KEYS) -> np.ndarray:
    """``"dataset|relation|instance"`` per row of ``frame``: the columns as strings joined
    by ``|``, column by column (no Python per row)."""
    keys = list(keys)
    if not len(frame):
        return np.array([], dtype=object)
    out = frame[keys[0]].astype(str).to_numpy(dtype=object)
    for k in keys[1:]:
        out = out + "|" + frame[k].astype(str).to_numpy(dtype=object)
    return out


def estimate_terms(
    estimates,
    sample: str,
    metric: str,
    by: Sequence[str],
    keys: Sequence[str] = FACT_KEYS,
    within: np.ndarray | None = None,
) -> dict[tuple, Term]:
    """One :class:`Term` of ``metric`` per group of ``by`` (e.g. model and estimator) of an
    estimate table, its instances sorted by ``keys``. Without ``within`` every group must cover
    the same instances (they form the sample); with ``within`` (the sorted instance ids of the
    whole sample, :func:`instance_ids`) a group may cover a part of it, and its term's
    ``index`` gives the positions. Anything else is a ``ValueError`` naming the group."""
    out: dict[tuple, Term] = {}
    reference = None if within is None else np.asarray(within)
    position = None if reference is None else pd.Index(reference)
    # once for the whole table, not per group: each row's rank in the stable order of ``keys``
    # (a group's rows in that order are its rows sorted by ``keys``, stably), its instance id,
    # its confidence and correctness
    rank = _key_ranks(estimates, keys)
    all_ids = instance_ids(estimates, keys)
    confidence = estimates["confidence"].to_numpy(float)
    correct = estimates["correct"].to_numpy(bool)
    groups = estimates.groupby(list(by), sort=False).indices
    for label, rows in sorted(groups.items(), key=lambda kv: kv[1][0]):  # first seen first
        label = label if isinstance(label, tuple) else (label,)
        rows = rows[np.argsort(rank[rows], kind="stable")]
        ids = all_ids[rows]
        if len(set(ids)) != len(ids):
            raise ValueError(
                f"group {dict(zip(by, label))} has several rows per instance; add "
                f"the column that tells them apart to `by`"
            )
        index = None
        if position is None:
            if reference is None:
                reference = ids
            elif len(ids) != len(reference) or (ids != reference).any():
                raise ValueError(
                    f"group {dict(zip(by, label))} covers other instances than "
                    f"the first group of sample {sample!r}; the terms of one "
                    f"sample share its instances"
                )
        else:
            index = position.get_indexer(ids).astype(np.int64)
            if (index < 0).any():
                raise ValueError(
                    f"group {dict(zip(by, label))}: instance {ids[np.argmax(index < 0)]!r} is "
                    f"not in sample {sample!r}"
                )
            if (
                reference is not None  # always: position is made from it
                and len(index) == len(reference)
                and (index == np.arange(len(index))).all()
            ):
                index = None
        out[label] = Term(sample, metric, confidence[rows], correct[rows], index)
    return out


def _key_ranks(frame: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Each row's position in ``frame.sort_values(keys, kind="stable")``."""
    order = frame.reset_index(drop=True).sort_values(list(keys), kind="stable").index.to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank


def _floor_columns(
    value: float, low: float, high: float, floor: dict, level: float, prefix: str
) -> dict:
    """The columns :func:`calib.confidence.noise_floor.floor_record` gives, for a floor of
    :func:`combined_floor`."""
    from calib.confidence.noise_floor import debiased, floor_p_value, within_floor

    d, d_lo, d_hi = debiased(value, low, high, floor["floor"], floor["floor_se"], level)
    return {
        f"{prefix}_floor": floor["floor"],
        f"{prefix}_floor_se": floor["floor_se"],
        f"{prefix}_floor_low": floor["floor_low"],
        f"{prefix}_floor_high": floor["floor_high"],
        f"{prefix}_floor_p": floor_p_value(value, floor["draws"]),
        f"{prefix}_within_floor": within_floor(value, floor["floor_high"]),
        f"{prefix}_debiased": d,
        f"{prefix}_debiased_low": d_lo,
        f"{prefix}_debiased_high": d_hi,
    }


def repeat_summary(
    estimates,
    by: Sequence[str] = ("model", "estimator", "k"),
    metrics: Sequence[str] = ("confidence", "accuracy", "ace"),
    repeat: str = "repeat",
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    n_bins: int = N_BINS,
    floor: Sequence[str] = ("ace",),
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """:func:`calib.confidence.summary.summary` for metrics averaged over seeded repeats on
    the same instances (e.g. three draws of the answer options, §5.2: "Each point represents
    the mean over three repeated samplings"): per group of ``by``, ``n`` (instances),
    ``repeats``, and per metric its mean over the repeats ``<m>``, the 95% interval of that mean
    from a bootstrap over instances applied to every repeat (``<m>_low``, ``<m>_high``;
    :func:`combined_interval`; NaN with ``n_boot`` 0) and the spread of the repeats
    (``<m>_min``, ``<m>_max``: which options were drawn, not the instances' sampling error).
    For each of ``floor`` (binned metrics) the noise-floor columns of
    :func:`calib.confidence.noise_floor.floor_record`, the floor being that of the mean over
    the repeats (:func:`combined_floor`)."""
    import pandas as pd

    bad = [m for m in floor if m not in BINNED or m not in metrics]
    if bad:
        raise ValueError(
            f"floor {bad}: a noise floor needs a binned metric {list(BINNED)} "
            f"that is also in metrics {list(metrics)}"
        )
    rows = []
    for label, part in estimates.groupby(list(by), sort=True, dropna=False):
        label = label if isinstance(label, tuple) else (label,)
        row = dict(zip(by, label))
        reps = sorted(part[repeat].unique())
        row["repeats"] = len(reps)
        for m in metrics:
            terms = list(estimate_terms(part, "sample", m, [repeat]).values())
            row["n"] = len(terms[0].confidence)
            coefs = [1 / len(terms)] * len(terms)
            each = term_values(terms, n_bins)[0]
            row[m] = float(each.mean())
            if n_boot:
                got = combined_interval(
                    terms, coefs, n_boot=n_boot, seed=seed, level=level, n_bins=n_bins
                )
                row[f"{m}_low"], row[f"{m}_high"] = got["low"], got["high"]
            else:
                row[f"{m}_low"] = row[f"{m}_high"] = float("nan")
            row[f"{m}_min"], row[f"{m}_max"] = float(each.min()), float(each.max())
            if m in floor:
                f = combined_floor(
                    terms, coefs, n_draws=n_draws, seed=seed, n_bins=n_bins, level=level
                )
                row.update(_floor_columns(row[m], row[f"{m}_low"], row[f"{m}_high"], f, level, m))
        rows.append(row)
    out = pd.DataFrame(rows)
    lead = [*by, "n", "repeats"]
    return out[lead + [c for c in out.columns if c not in lead]]
