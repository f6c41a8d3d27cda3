"""Figure 3 of the answer-set chapter (Kissling et al. 2026, §5.2): the scores of the sample's 1:1
relations, Base and Margin with the answer space cut to ``k`` options in seeded draws, the
curve's points with intervals over instances, and the authors' curves.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.combined import repeat_summary
from calib.confidence.subsample import subsampled_estimates
from calib.data.bear import ONE_TO_ONE_OPTIONS, PLAIN, one_to_one_relations
from calib.scoring.run import score_bear

#: the paper's grid of answer-space sizes
K_GRID: tuple[int, ...] = tuple(range(5, 61, 5))
#: the metrics of the authors' subsampling data, as named in :func:`reported_curve`
CURVE_METRICS: tuple[str, ...] = ("confidence", "accuracy", "ace", "ace_margin")
#: Figure 3's metrics (of C_Base) as the chart titles them
FIGURE3_TITLES: dict[str, str] = {
    "confidence": "mean confidence",
    "accuracy": "accuracy",
    "ace": "ACE",
}


# ---------------------------------------------------------------------------------------------
# the steps


def answer_set_scores(
    models: Sequence[str],
    relations: Iterable[str] | None = None,
    per_relation: int | None = None,
    seed: int = 0,
    *,
    template: str = PLAIN,
    data_dir=None,
    cache_dir=None,
    device: str | None = "auto",
    progress: bool = True,
) -> pd.DataFrame:
    """The score table of ``models`` on the 1:1 relations among ``relations`` under the plain
    ``template``: the same seeded BEAR sample as every BEAR chapter, so the scores come from
    the cache when another chapter scored them. ``ValueError`` when no 1:1 relation is left."""
    chosen = one_to_one_relations(list(relations) if relations else None, data_dir=data_dir)
    if not chosen:
        raise ValueError(
            f"none of the relations {list(relations or [])} is a 1:1 relation with "
            f"{ONE_TO_ONE_OPTIONS} options; Figure 3 needs at least one"
        )
    return score_bear(
        list(models),
        [template],
        per_relation,
        seed,
        chosen,
        data_dir=data_dir,
        cache_dir=cache_dir,
        device=device,
        progress=progress,
    )


def option_estimates(
    sent: pd.DataFrame,
    ks: Sequence[int] = K_GRID,
    repeats: int = 3,
    seed: int = 0,
    template: str = PLAIN,
) -> pd.DataFrame:
    """Base and Margin for each ``k`` in ``ks`` and each of ``repeats`` seeded draws of the
    options (the correct one kept, §5.2; the draws shared by every model,
    :func:`calib.confidence.subsample.subsampled_estimates`): one estimate table with
    ``estimator``, ``k`` and ``repeat``. A ``k`` at least as large as an answer space keeps it
    whole (every draw is then the same)."""
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 2:
        raise ValueError(f"ks must be answer-space sizes >= 2, got {ks}")
    return pd.concat(
        [subsampled_estimates(sent, k, repeats, seed, template) for k in ks], ignore_index=True
    )


def curve_points(
    est: pd.DataFrame,
    objectives: Mapping[str, str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Figure 3's points: per model, estimator and ``k``, the mean over the draws of the
    options of the mean ``confidence``, the ``accuracy`` and the ``ace``, each with a 95%
    interval from a bootstrap over instances applied to every draw (``_low``, ``_high``) and
    the draws' spread (``_min``, ``_max``), and ACE's noise floor with the debiased ACE
    (:func:`calib.confidence.combined.repeat_summary`, beyond the paper)."""
    out = repeat_summary(
        est,
        by=["model", "estimator", "k"],
        metrics=("confidence", "accuracy", "ace"),
        n_boot=n_boot,
        seed=seed,
    )
    if objectives is not None:
        out.insert(1, "objective", out["model"].map(dict(objectives)))
    order = {m: i for i, m in enumerate(dict.fromkeys(est["model"].unique()))}
    return out.sort_values(
        ["model", "estimator", "k"],
        key=lambda s: s.map(order) if s.name == "model" else s,
        kind="stable",
    ).reset_index(drop=True)


def curve_long(points: pd.DataFrame, estimator: str = "Base") -> pd.DataFrame:
    """Figure 3's chart data: one row per model, ``k`` and metric of ``estimator``
    (:data:`FIGURE3_TITLES`): ``value``, ``low``, ``high`` (95% interval), ``n``, and for ACE
    its floor's range ``floor_low``, ``floor_high`` (NaN for the other metrics)."""
    part = points[points["estimator"] == estimator]
    rows = []
    for metric, title in FIGURE3_TITLES.items():
        frame = part[["model", "k", "n"]].copy()
        frame["metric"] = title
        frame["value"], frame["low"], frame["high"] = (
            part[metric],
            part[f"{metric}_low"],
            part[f"{metric}_high"],
        )
        has = f"{metric}_floor_low" in part.columns
        frame["floor_low"] = part[f"{metric}_floor_low"] if has else np.nan
        frame["floor_high"] = part[f"{metric}_floor_high"] if has else np.nan
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def reported_curve(frame: pd.DataFrame) -> pd.DataFrame:
    """The authors' subsampling data (``kissling2026_repo_answer_space_subsampling``) in long
    format: ``model``, ``k``, ``repeat`` (0), ``n`` (missing), ``metric``
    (:data:`CURVE_METRICS`), ``value``."""
    renamed = frame.rename(columns={"sample_size": "k", "avg_conf": "confidence"})
    renamed = renamed.assign(repeat=0, n=pd.NA, k=renamed["k"].astype(int))
    return renamed.melt(
        id_vars=["model", "k", "repeat", "n"],
        value_vars=list(CURVE_METRICS),
        var_name="metric",
        value_name="value",
    )


def curve_spread(curve: pd.DataFrame) -> pd.DataFrame:
    """Per model, metric and ``k`` of a long curve (:func:`reported_curve`): the mean over
    repeats and their spread (``lower`` = minimum, ``upper`` = maximum)."""
    grouped = curve.groupby(["model", "metric", "k"], sort=True)["value"]
    return grouped.agg(mean="mean", lower="min", upper="max", repeats="count").reset_index()


def curve_table(curve: pd.DataFrame, ks: Sequence[int] = (5, 30, 60)) -> pd.DataFrame:
    """A compact table of a long curve (:func:`reported_curve`): per model and metric, the
    mean over repeats at a few ``ks`` (those present) as columns ``k=5``, ``k=30``, ...; the
    change from the smallest to the largest shown ``k`` in ``change``."""
    spread = curve_spread(curve)
    shown = [k for k in ks if k in set(spread["k"].unique())]
    if not shown:
        raise ValueError(
            f"none of ks={list(ks)} is in the curve (k = {sorted(spread['k'].unique())})"
        )
    wide = spread[spread["k"].isin(shown)].pivot_table(
        index=["model", "metric"], columns="k", values="mean", sort=True
    )
    wide.columns = [f"k={k}" for k in wide.columns]
    wide["change"] = wide[f"k={shown[-1]}"] - wide[f"k={shown[0]}"]
    out = wide.reset_index()
    out["metric"] = pd.Categorical(out["metric"], categories=list(CURVE_METRICS), ordered=True)
    return (
        out.sort_values(["model", "metric"])
        .reset_index(drop=True)
        .assign(metric=lambda f: f["metric"].astype(str))
    )
