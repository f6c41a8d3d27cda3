"""The Brier differences between the models of each pair (Kissling et al. 2026, §5.3, §1): per
pair and estimator, and their mean over the pairs, with paired bootstrap intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from calib.confidence import paired_estimates_difference
from calib.confidence.bootstrap import difference_interval, metric_statistic
from calib.confidence.combined import instance_ids
from calib.experiments.clm_vs_mlm.pairing import scoped
from calib.experiments.clm_vs_mlm.tables import ESTIMATORS
from calib.scoring.schema import FACT

DIFFERENCE_COLUMNS: tuple[str, ...] = (
    "pair",
    "clm",
    "mlm",
    "scope",
    "estimator",
    "metric",
    "difference",
    "low",
    "high",
    "method",
    "p_value",
    "n",
    "n_boot",
)


def pair_differences(
    estimates: pd.DataFrame,
    pairs: pd.DataFrame,
    domains: pd.DataFrame,
    within: str = "probe",
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Paired bootstrap of ``Brier(CLM) - Brier(MLM)`` per pair and estimator on the pair's
    instances (sentences: :func:`calib.report.findings.pair_sentences`)."""
    sc = scoped(estimates, domains, within)
    rows = []
    for p in pairs.itertuples(index=False):
        for est in ESTIMATORS:
            part = sc[(sc["scope"] == p.scope) & (sc["estimator"] == est)]
            a = part[part["model"] == p.clm].drop(columns="scope")
            b = part[part["model"] == p.mlm].drop(columns="scope")
            diff = paired_estimates_difference(a, b, "brier", n_boot=n_boot, seed=seed, keys=FACT)
            rows.append(
                {
                    "pair": p.pair,
                    "clm": p.clm,
                    "mlm": p.mlm,
                    "scope": p.scope,
                    "estimator": est,
                    **diff,
                }
            )
    return pd.DataFrame(rows, columns=list(DIFFERENCE_COLUMNS))


def _fact_labels(frame: pd.DataFrame) -> np.ndarray:
    return instance_ids(frame, FACT)


def mean_pair_differences(
    estimates: pd.DataFrame,
    pairs: pd.DataFrame,
    domains: pd.DataFrame,
    within: str = "probe",
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per estimator, the mean over the pairs of ``Brier(MLM) - Brier(CLM)`` (positive: the
    causal model is better calibrated), with a 95% paired bootstrap interval over the facts of
    the sample: each resample of the facts is applied to every pair (a pair uses the resampled
    facts of its scope; a resample that draws none of a domain's facts is NaN and left out
    of the interval), BCa as for Brier. Columns ``estimator``, ``n_pairs``, ``metric``,
    ``difference``, ``low``, ``high``, ``method``, ``p_value``, ``n`` (facts), ``n_boot``;
    empty without pairs."""
    cols = [
        "estimator",
        "n_pairs",
        "metric",
        "difference",
        "low",
        "high",
        "method",
        "p_value",
        "n",
        "n_boot",
    ]
    if pairs.empty:
        return pd.DataFrame(columns=cols)
    if n_boot < 1:
        raise ValueError("mean_pair_differences needs n_boot >= 1 (a paired bootstrap)")
    sc = scoped(estimates, domains, within)
    labels = np.unique(_fact_labels(estimates))
    position = {f: i for i, f in enumerate(labels)}
    rows = []
    for est in ESTIMATORS:
        stats = []
        for p in pairs.itertuples(index=False):
            part = sc[(sc["scope"] == p.scope) & (sc["estimator"] == est)]
            sides = []
            for model in (p.mlm, p.clm):
                side = part[part["model"] == model].sort_values(list(FACT), kind="stable")
                sides.append(side)
            these = [_fact_labels(s) for s in sides]
            if len(these[0]) != len(these[1]) or (these[0] != these[1]).any():
                raise ValueError(
                    f"pair {p.pair} ({p.clm}, {p.mlm}): the two models were "
                    f"scored on other facts of {p.scope!r}"
                )
            idx = np.array([position[f] for f in these[0]])
            (s_mlm, _), (s_clm, _) = (
                metric_statistic(
                    "brier", s["confidence"].to_numpy(float), s["correct"].to_numpy(bool)
                )
                for s in sides
            )
            stats.append((idx, s_mlm, s_clm))

        def mean(w: np.ndarray, stats=stats) -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):  # a scope left out: NaN
                return np.mean([a(w[:, i]) - b(w[:, i]) for i, a, b in stats], axis=0)

        res = difference_interval(mean, len(labels), "bca", n_boot, seed, metric="brier")
        rows.append({"estimator": est, "n_pairs": len(stats), **res})
    return pd.DataFrame(rows, columns=cols)


def brier_bars(rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`~calib.experiments.clm_vs_mlm.tables.model_table` or
    :func:`~calib.experiments.clm_vs_mlm.tables.pair_table` rows in long form for a bar chart:
    ``model``, ``estimator``, ``brier``, ``low``, ``high`` (one row per model and estimator)."""
    parts = []
    for est, name in zip(ESTIMATORS, ("brier_margin", "brier_average")):
        parts.append(
            pd.DataFrame(
                {
                    "model": rows["model"],
                    "estimator": est,
                    "brier": rows[name],
                    "low": rows[f"{name}_low"],
                    "high": rows[f"{name}_high"],
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
