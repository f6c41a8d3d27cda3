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
