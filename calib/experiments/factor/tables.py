"""Table 4 of this build (Kissling et al. 2026, Appendix F): accuracy, ACE (with its noise floor
and the debiased ACE) and Brier of Base and Margin per model and FACTOR subset with intervals,
Margin against Base, and the rows of the interval chart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence import paired_estimates_difference, summary

#: the estimators of Table 4
ESTIMATORS: tuple[str, ...] = ("Base", "Margin")
#: the metrics of Table 4
METRICS: tuple[str, ...] = ("accuracy", "ace", "brier")
#: interval columns of :func:`table4`, for :func:`calib.report.table_format.html_table`
TABLE4_INTERVALS = {
    c: (f"{c}_low", f"{c}_high")
    for c in (
        "accuracy",
        "ace_base",
        "ace_base_debiased",
        "ace_margin",
        "ace_margin_debiased",
        "brier_base",
        "brier_margin",
    )
}
#: interval columns of :func:`factor_summary` (and of every summary with ACE's floor)
SUMMARY_INTERVALS = {
    c: (f"{c}_low", f"{c}_high") for c in ("accuracy", "ace", "ace_debiased", "brier")
}


def subset_name(dataset: str) -> str:
    """``"news"`` for the dataset ``"factor-news"``."""
    return dataset.removeprefix("factor-")


def factor_summary(
    estimates: pd.DataFrame,
    n_boot: int = 1000,
    seed: int = 0,
    objectives: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """Accuracy, ACE and Brier per model, subset and estimator with 95% bootstrap intervals
    over items (:func:`calib.confidence.summary.summary`), ACE with its noise floor and
    debiased value (``ace_floor``, ``ace_debiased``, ... beyond the paper), a ``subset`` and,
    with ``objectives``, the model's ``objective``."""
    out = summary(
        estimates,
        by=["model", "dataset", "estimator"],
        n_boot=n_boot,
        seed=seed,
        metrics=METRICS,
        floor=("ace",),
    )
    out.insert(2, "subset", out["dataset"].map(subset_name))
    if objectives is not None:
        out.insert(1, "objective", out["model"].map(dict(objectives)))
    return out


#: the noise-floor columns that come with an ACE
#: (:func:`calib.confidence.noise_floor.floor_record`), as suffixes of the ACE's column
FLOOR_SUFFIXES: tuple[str, ...] = (
    "_floor",
    "_floor_low",
    "_floor_high",
    "_within_floor",
    "_debiased",
    "_debiased_low",
    "_debiased_high",
)


def table4(summ: pd.DataFrame) -> pd.DataFrame:
    """Table 4's layout from :func:`factor_summary`: one row per model and subset with ``n``,
    ``accuracy`` and ``ace_base``, ``ace_margin``, ``brier_base``, ``brier_margin`` (each with
    ``_low`` / ``_high``; see :data:`TABLE4_INTERVALS`), each ACE with its noise-floor columns
    (``ace_base_floor``, ``ace_base_debiased``, ..., :data:`FLOOR_SUFFIXES`)."""
    rows = []
    for (model, dataset), part in summ.groupby(["model", "dataset"], sort=False):
        by = part.set_index("estimator")
        row = {"model": model, "subset": subset_name(dataset), "n": int(by.loc["Base", "n"])}
        for suffix in ("", "_low", "_high"):
            row[f"accuracy{suffix}"] = by.loc["Base", f"accuracy{suffix}"]
        for metric in ("ace", "brier"):
            for est in ESTIMATORS:
                suffixes = ("", "_low", "_high", *(FLOOR_SUFFIXES if metric == "ace" else ()))
                for suffix in suffixes:
                    row[f"{metric}_{est.lower()}{suffix}"] = by.loc[est, f"{metric}{suffix}"]
        rows.append(row)
    return pd.DataFrame(rows)


def margin_vs_base(
    estimates: pd.DataFrame,
    metrics: Sequence[str] = ("ace", "brier"),
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Paired bootstrap over items of ``metric(Margin) - metric(Base)`` per model, subset and metric
    (:func:`calib.confidence.bootstrap.paired_estimates_difference`; the two estimators of a model
    on the same items and resamples). Columns ``model``, ``subset``, ``dataset``, ``metric``,
    ``difference``, ``low``, ``high``, ``method``, ``p_value``, ``n``, ``n_boot``."""
    rows = []
    for (model, dataset), part in estimates.groupby(["model", "dataset"], sort=False):
        b = part[part["estimator"] == "Base"]
        m = part[part["estimator"] == "Margin"]
        for metric in metrics:
            diff = paired_estimates_difference(m, b, metric, n_boot=n_boot, seed=seed)
            rows.append(
                {"model": model, "subset": subset_name(dataset), "dataset": dataset, **diff}
            )
    return pd.DataFrame(rows)


def interval_rows(summ: pd.DataFrame, metrics: Sequence[str] = METRICS) -> pd.DataFrame:
    """:func:`factor_summary` as one row per model, subset, estimator and metric for an
    interval chart: ``row`` ("news, Base"), ``metric`` (``ACE``, ``Brier``, ``accuracy``),
    ``value``, ``low``, ``high``, ``n`` and, for ACE, its noise floor's range (``floor_low``,
    ``floor_high``; NaN for the other metrics)."""
    names = {"ace": "ACE", "brier": "Brier", "accuracy": "accuracy"}
    parts = []
    for m in metrics:
        part = summ[["model", "subset", "estimator", "n"]].copy()
        part.insert(0, "row", summ["subset"] + ", " + summ["estimator"])
        part["metric"] = names.get(m, m)
        part["value"], part["low"], part["high"] = summ[m], summ[f"{m}_low"], summ[f"{m}_high"]
        has = f"{m}_floor_low" in summ.columns
        part["floor_low"] = summ[f"{m}_floor_low"] if has else np.nan
        part["floor_high"] = summ[f"{m}_floor_high"] if has else np.nan
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


#: Appendix F on FACTOR with Mean reduction: "random guessing confidence splits" (C_Base near a
#: quarter of its four options) and "the vast majority of confidences would be close to zero"
#: (C_Margin); calib's readings of "close to" and "the vast majority"
CLOSE_TO = 0.05
#: the share of items that is "the vast majority" (calib's reading)
VAST_MAJORITY = 0.9


def mean_reduction_flatness(
    estimates: pd.DataFrame, n_boot: int = 1000, seed: int = 0, options: int = 4
) -> pd.DataFrame:
    """Per model and subset, with the Mean reduction (Appendix F: "log-likelihoods do not span the
    full confidence interval and often differ only marginally"): how far the median C_Base lies
    from ``1 / options`` (a random split of the options), and the share of items whose C_Margin is
    below :data:`CLOSE_TO`, each with a 95% percentile interval from a bootstrap over items.
    ``estimates``: :func:`~calib.experiments.factor.scoring.factor_estimates` with ``reduction=
    "mean"``. Columns ``model``, ``subset``, ``n``, ``median_base``, ``distance``,
    ``distance_low``, ``distance_high``, ``margin_share``, ``margin_share_low``,
    ``margin_share_high``."""
    from calib.confidence.bootstrap import percentile_interval, replicates

    rows = []
    for (model, dataset), part in estimates.groupby(["model", "dataset"], sort=False):
        b = part[part["estimator"] == "Base"].sort_values("instance")["confidence"].to_numpy(float)
        m = part[part["estimator"] == "Margin"].sort_values("instance")["confidence"]
        small = (m.to_numpy(float) < CLOSE_TO).astype(float)
        order = np.argsort(b, kind="stable")
        xs = b[order]

        def distance(w, order=order, xs=xs):
            cum = np.cumsum(w[:, order].astype(float), axis=1)
            idx = (cum < 0.5 * cum[:, -1:] - 1e-12).sum(axis=1)
            return np.abs(xs[np.minimum(idx, len(xs) - 1)] - 1 / options)

        def share(w, small=small):
            return (w * small).sum(axis=1) / w.sum(axis=1)

        ones = np.ones((1, len(b)), np.int64)
        d_lo, d_hi = percentile_interval(replicates(distance, len(b), n_boot, seed), 0.95)
        s_lo, s_hi = percentile_interval(replicates(share, len(small), n_boot, seed), 0.95)
        rows.append(
            {
                "model": model,
                "subset": subset_name(dataset),
                "n": len(b),
                "median_base": float(np.median(b)),
                "distance": float(distance(ones)[0]),
                "distance_low": d_lo,
                "distance_high": d_hi,
                "margin_share": float(share(ones)[0]),
                "margin_share_low": s_lo,
                "margin_share_high": s_hi,
            }
        )
    cols = [
        "model",
        "subset",
        "n",
        "median_base",
        "distance",
        "distance_low",
        "distance_high",
        "margin_share",
        "margin_share_low",
        "margin_share_high",
    ]
    return pd.DataFrame(rows, columns=cols)
