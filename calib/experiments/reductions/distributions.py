"""Figure 8 of the reductions chapter (Kissling et al. 2026, Appendix C): the distribution of
Base-Confidence under each reduction, as histograms, and its shape (largest value, skewness with
an interval).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import interval, jackknife, replicates
from calib.confidence.estimators import base
from calib.confidence.reductions import REDUCTIONS, sentence_scores
from calib.confidence.schema import require_columns
from calib.data.bear import PLAIN
from calib.experiments.reductions.tables import REDUCTION_LABELS, _aligned_arrays, _plain


def confidence_histograms(
    scores: pd.DataFrame,
    objectives: Mapping[str, str] | None = None,
    template: str = PLAIN,
    reductions: Sequence[str] = REDUCTIONS,
    bins: int = 20,
) -> pd.DataFrame:
    """Figure 8: the distribution of Base-Confidence (Eq. 1) on ``template`` under each
    reduction, per model, as a histogram on ``bins`` equal-width bins of ``[0, 1]``.

    One row per model, reduction and bin: ``model``, ``objective`` (when ``objectives`` is
    given), ``reduction``, ``label``, ``lower``, ``upper``, ``count`` and ``share`` (of the
    model's instances)."""
    if bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
    plain = _plain(scores, template)
    edges = np.linspace(0.0, 1.0, bins + 1)
    rows = []
    for r in reductions:
        est = base(sentence_scores(plain, r), template)
        for model, part in est.groupby("model", sort=False):
            counts, _ = np.histogram(part["confidence"].to_numpy(float), bins=edges)
            rows.append(
                pd.DataFrame(
                    {
                        "model": model,
                        "reduction": r,
                        "label": REDUCTION_LABELS.get(r, r),
                        "lower": edges[:-1],
                        "upper": edges[1:],
                        "count": counts.astype(np.int64),
                        "share": counts / max(len(part), 1),
                    }
                )
            )
    out = pd.concat(rows, ignore_index=True)
    if objectives is not None:
        out.insert(1, "objective", out["model"].map(dict(objectives)))
    order = {m: i for i, m in enumerate(dict.fromkeys(plain["model"].unique()))}
    return out.sort_values("model", key=lambda s: s.map(order), kind="stable").reset_index(
        drop=True
    )


def weighted_skewness(x: np.ndarray):
    """The sample skewness ``m3 / m2^1.5`` of ``x`` as a weighted statistic (rows of
    multiplicity weights -> values; NaN where the resample has no spread)."""
    x = np.asarray(x, float)

    def stat(w: np.ndarray) -> np.ndarray:
        w = w.astype(float)
        total = w.sum(axis=1, keepdims=True)
        mean = (w * x).sum(axis=1, keepdims=True) / total
        d = x - mean
        m2 = (w * d**2).sum(axis=1) / total[:, 0]
        m3 = (w * d**3).sum(axis=1) / total[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(m2 > 0, m3 / np.where(m2 > 0, m2, 1) ** 1.5, np.nan)

    return stat


def confidence_shape(est: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per model and reduction, the shape of the Base-Confidence distribution (Figure 8):
    ``n``, ``mean``, ``max`` (the largest confidence of the sample) and ``skewness`` (sample
    skewness, positive: right-skewed) with a 95% BCa bootstrap interval over facts
    (``skewness_low``, ``skewness_high``; NaN with ``n_bootstrap`` 0 or fewer than 3 facts)."""
    require_columns(est, ("model", "reduction", "confidence"), "estimate table")
    rows = []
    for (model, red), part in est.groupby(["model", "reduction"], sort=False):
        x = part["confidence"].to_numpy(float)
        stat = weighted_skewness(x)
        skew = float(stat(np.ones((1, len(x)), np.int64))[0])
        lo = hi = np.nan
        if n_bootstrap and len(x) >= 3:
            reps = replicates(stat, len(x), n_bootstrap, seed)
            lo, hi = interval(skew, reps, 0.95, "bca", jackknife(stat, len(x)))
        rows.append(
            {
                "model": model,
                "reduction": red,
                "label": REDUCTION_LABELS.get(red, red),
                "n": len(x),
                "mean": float(x.mean()),
                "max": float(x.max()),
                "skewness": skew,
                "skewness_low": lo,
                "skewness_high": hi,
            }
        )
    return pd.DataFrame(rows)


#: the upper percentile of C_Base that "the ability to express high confidences" is measured by
#: (Appendix C; a percentile, not the largest value, which no sample bounds)
UPPER_QUANTILE = 0.99


def weighted_quantile(x: np.ndarray, q: float):
    """The ``q``-quantile of ``x`` as a weighted statistic (rows of multiplicity weights ->
    values): the smallest value whose cumulative weight reaches ``q`` of the total (the
    inverted empirical distribution function)."""
    x = np.asarray(x, float)
    order = np.argsort(x, kind="stable")
    xs = x[order]

    def stat(w: np.ndarray) -> np.ndarray:
        cum = np.cumsum(w[:, order].astype(float), axis=1)
        target = q * cum[:, -1:]
        idx = (cum < target - 1e-12 * np.maximum(target, 1.0)).sum(axis=1)
        return xs[np.minimum(idx, len(xs) - 1)]

    return stat


def upper_percentile_differences(
    est: pd.DataFrame,
    pairs: Sequence[tuple[str, str]] = (("mean", "sum"), ("mean-answer", "sum")),
    q: float = UPPER_QUANTILE,
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per model and pair ``(a, b)`` of reductions, the ``q``-quantile of C_Base under ``a``
    minus under ``b`` (Appendix C: "the choice of reduction strategy itself limits the model's
    ability to express high confidences"), with a 95% percentile interval from a paired
    bootstrap over the facts (the same resample for both reductions). ``est``:
    :func:`~calib.experiments.reductions.tables.base_estimates`. Columns ``model``, ``a``,
    ``b``, ``q``, ``quantile_a``, ``quantile_b``, ``difference``, ``low``, ``high``, ``n``."""
    if not 0 < q < 1:
        raise ValueError(f"q must lie in (0, 1), got {q!r}")
    if n_bootstrap < 1:
        raise ValueError("upper_percentile_differences needs n_bootstrap >= 1")
    require_columns(est, ("model", "reduction", "confidence"), "estimate table")
    rows = []
    needed = list(dict.fromkeys(r for pair in pairs for r in pair))
    for model in dict.fromkeys(est["model"]):
        arrays = _aligned_arrays(est, [model], needed)
        n = len(next(iter(arrays.values()))[0])
        stats = {r: weighted_quantile(arrays[(model, r)][0], q) for r in needed}
        ones = np.ones((1, n), np.int64)
        for a, b in pairs:

            def diff(w, a=a, b=b, stats=stats):
                return stats[a](w) - stats[b](w)

            reps = replicates(diff, n, n_bootstrap, seed)
            qa, qb = float(stats[a](ones)[0]), float(stats[b](ones)[0])
            lo, hi = np.quantile(reps, [0.025, 0.975])
            rows.append(
                {
                    "model": model,
                    "a": a,
                    "b": b,
                    "q": q,
                    "quantile_a": qa,
                    "quantile_b": qb,
                    "difference": qa - qb,
                    "low": float(lo),
                    "high": float(hi),
                    "n": n,
                }
            )
    cols = ["model", "a", "b", "q", "quantile_a", "quantile_b", "difference", "low", "high", "n"]
    return pd.DataFrame(rows, columns=cols)
