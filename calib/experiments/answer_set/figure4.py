"""Figure 4 of the answer-set chapter (Kissling et al. 2026, §5.2): BEAR's 1:1 relations with five
options beside FACTOR's four, per model, and FACTOR's ACE against the BEAR line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.combined import combined_interval, estimate_terms
from calib.experiments.answer_set.changes import _model_terms
from calib.experiments.factor.bear import BEAR_OPTIONS as FACTOR_BEAR_OPTIONS
from calib.experiments.factor.tables import subset_name

#: BEAR's answer options in Figure 4 ("we sampled the number of answer options to five")
BEAR_OPTIONS = FACTOR_BEAR_OPTIONS


def figure4_points(
    points: pd.DataFrame, factor_summary: pd.DataFrame, k: int = BEAR_OPTIONS
) -> pd.DataFrame:
    """Figure 4's points: per model, ACE (C_Base) and accuracy on BEAR's 1:1 relations cut to ``k``
    options (the mean over the draws, :func:`~calib.experiments.answer_set.curves.curve_points`) and
    on each FACTOR subset (four options, :func:`calib.experiments.factor.tables.factor_summary`),
    each with its interval and ACE's noise floor. Columns ``model``, ``benchmark``, ``options``,
    ``n``, ``accuracy``, ``accuracy_low``, ``accuracy_high``, ``ace``, ``ace_low``, ``ace_high`` and
    the floor columns; only models present in both."""
    at_k = points[(points["k"] == k) & (points["estimator"] == "Base")]
    if at_k.empty:
        raise ValueError(f"the curve has no k={k}; it has {sorted(points['k'].unique())}")
    floor = [
        c for c in at_k.columns if c.startswith(("ace_floor", "ace_deb")) or c == "ace_within_floor"
    ]
    cols = ["accuracy", "accuracy_low", "accuracy_high", "ace", "ace_low", "ace_high", *floor]
    bear = at_k[["model", "n", *cols]].assign(benchmark=f"BEAR 1:1 ({k} options)", options=k)
    fac = factor_summary[factor_summary["estimator"] == "Base"]
    fac = (
        fac[["model", "subset", "n", *cols]]
        .assign(benchmark="FACTOR " + fac["subset"] + " (4 options)", options=4)
        .drop(columns="subset")
    )
    both = [m for m in dict.fromkeys(bear["model"].unique()) if m in set(fac["model"].unique())]
    out = pd.concat([bear, fac], ignore_index=True)
    out = out[out["model"].isin(both)]
    return out[["model", "benchmark", "options", "n", *cols]].reset_index(drop=True)


def _line_offset(
    acc5: np.ndarray, ace5: np.ndarray, acc_f: np.ndarray, ace_f: np.ndarray
) -> np.ndarray:
    """Per row: the mean over models of FACTOR's ACE minus the least-squares line of BEAR's
    (5 options) ACE on accuracy at FACTOR's accuracy. Arrays ``(rows, models)``."""
    x_mean, y_mean = acc5.mean(axis=1, keepdims=True), ace5.mean(axis=1, keepdims=True)
    sxx = ((acc5 - x_mean) ** 2).sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(
            sxx > 0,
            ((acc5 - x_mean) * (ace5 - y_mean)).sum(axis=1, keepdims=True)
            / np.where(sxx > 0, sxx, 1),
            np.nan,
        )
    line = y_mean + slope * (acc_f - x_mean)
    return (ace_f - line).mean(axis=1)


def relation_offsets(
    est: pd.DataFrame,
    factor_est: pd.DataFrame,
    models: Sequence[str],
    k: int = BEAR_OPTIONS,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """ "for identical accuracies, we find similar ACE values on BEAR and FACTOR" (§5.2): per
    FACTOR subset, the mean over ``models`` (the causal ones, at least two) of FACTOR's ACE
    minus the ACE the least-squares line through the models' BEAR points (1:1 relations, ``k``
    options; ACE on accuracy) gives at FACTOR's accuracy. Every ACE is debiased (the samples
    differ in size); the interval comes from a bootstrap of the BEAR instances and,
    independently, of the FACTOR items. Columns ``subset``, ``unit``, ``n_models``,
    ``difference``, ``low``, ``high``, ``p_value``, ``raw``."""
    cols = ["subset", "unit", "n_models", "difference", "low", "high", "p_value", "raw"]
    models = [
        m
        for m in models
        if m in set(factor_est["model"].unique()) and m in set(est["model"].unique())
    ]
    if len(models) < 2:
        return pd.DataFrame(columns=cols)
    base5 = est[(est["estimator"] == "Base") & (est["k"] == k)]
    bear = {metric: _model_terms(base5, metric) for metric in ("accuracy", "ace")}
    reps = sorted(base5["repeat"].unique())
    rows = []
    fac_base = factor_est[factor_est["estimator"] == "Base"]
    for dataset, part in fac_base[fac_base["model"].isin(models)].groupby("dataset", sort=False):
        fac = {
            metric: estimate_terms(part, dataset, metric, ["model"])
            for metric in ("accuracy", "ace")
        }
        terms = []
        for metric in ("accuracy", "ace"):
            for m in models:
                terms += [bear[metric][(m, "Base", k, r)] for r in reps]
        terms += [fac[metric][(m,)] for metric in ("accuracy", "ace") for m in models]
        n_m, n_r = len(models), len(reps)

        def offset(values, n_m=n_m, n_r=n_r):
            rows_ = values.shape[0]
            acc5 = values[:, : n_m * n_r].reshape(rows_, n_m, n_r).mean(axis=2)
            ace5 = values[:, n_m * n_r : 2 * n_m * n_r].reshape(rows_, n_m, n_r).mean(axis=2)
            rest = values[:, 2 * n_m * n_r :]
            return _line_offset(acc5, ace5, rest[:, :n_m], rest[:, n_m:])

        got = combined_interval(terms, combine=offset, n_boot=n_boot, seed=seed, debias=True)
        subset = subset_name(dataset)
        rows.append(
            {
                "subset": subset,
                "unit": f"FACTOR {subset}",
                "n_models": n_m,
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "raw": got["difference"] + got["floor_shift"],
            }
        )
    return pd.DataFrame(rows, columns=cols)


def reported_bear_points(frame: pd.DataFrame, k: int = 5, objective: str = "clm") -> pd.DataFrame:
    """The BEAR side of the paper's Figure 4 from the authors' subsampling data: ACE and
    accuracy at ``k`` options of the models with ``objective`` (the figure shows the causal
    models), with a ``benchmark`` column."""
    from calib.models.registry import get_spec

    kind = frame["registry_name"].map(lambda m: getattr(get_spec(m), "objective", None))
    out = frame[(frame["sample_size"] == k) & (kind == objective)]
    return out[["model", "accuracy", "ace"]].assign(benchmark=f"BEAR ({k} options)")
