"""Reduction strategies (Kissling et al. 2026, Appendix C, Figures 7-8).

A statement's token log-probabilities can be reduced to one sentence score in four ways
(:mod:`calib.confidence.reductions`): ``sum`` and ``mean`` over all tokens, ``sum-answer`` and
``mean-answer`` over the answer tokens only. The paper compares them by accuracy, ACE of
Base-Confidence on the plain template and their harmonic mean ``H`` (averaged per objective,
CLM / MLM; Figure 7) and shows how each shifts the distribution of Base-Confidence (Figure 8).

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`reduction_table`             accuracy, ACE and H per model and reduction
                                    (:func:`calib.confidence.summary.compare_reductions`),
                                    with the model's objective and bootstrap intervals
:func:`objective_means`             the means per objective and reduction (Figure 7); works
                                    on this run's table and on the authors' values
:func:`best_reductions`             the reduction with the highest mean H per objective
:func:`confidence_histograms`       Base-Confidence histograms per model and reduction (Fig. 8)
==================================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.estimators import base
from calib.confidence.metrics import N_BINS
from calib.confidence.reductions import REDUCTIONS, harmonic_mean, sentence_scores
from calib.confidence.summary import compare_reductions, summary
from calib.confidence.schema import require_columns
from calib.data.bear import PLAIN

#: the paper's names of the reductions (its figure's labels)
REDUCTION_LABELS: dict[str, str] = {"sum": "Sum", "mean": "Mean", "sum-answer": "Sum (A)",
                                    "mean-answer": "Mean (A)"}
#: the metrics of Figure 7, in order (display names: :data:`calib.report.findings.METRIC_LABELS`)
FIGURE7_METRICS: tuple[str, ...] = ("accuracy", "ace", "H")


def _plain(scores: pd.DataFrame, template: str) -> pd.DataFrame:
    require_columns(scores, ("template",), "score table")
    part = scores[scores["template"] == template]
    if part.empty:
        raise ValueError(f"the score table has no rows of template {template!r}; it has "
                         f"{sorted(scores['template'].unique())}")
    return part


def reduction_table(scores: pd.DataFrame, objectives: Mapping[str, str],
                    template: str = PLAIN, reductions: Sequence[str] = REDUCTIONS,
                    n_bootstrap: int = 1000, seed: int = 0, n_bins: int = N_BINS
                    ) -> pd.DataFrame:
    """Appendix C for every model: accuracy, ACE of Base-Confidence on ``template`` and
    ``H = 2 ACC (1 - ACE) / (ACC + 1 - ACE)`` per reduction
    (:func:`calib.confidence.summary.compare_reductions`), plus the model's ``objective``
    (``objectives``: model -> ``clm`` / ``mlm``, e.g.
    :func:`calib.experiments.scores.objectives`), the paper's ``label`` of the reduction, and
    95% bootstrap intervals of accuracy and ACE (``accuracy_low`` ...; NaN when
    ``n_bootstrap`` is 0)."""
    plain = _plain(scores, template)
    unknown = sorted(set(plain["model"]) - set(objectives))
    if unknown:
        raise ValueError(f"no objective given for model(s) {unknown}")
    table = compare_reductions(plain, template, reductions, n_bins)
    if n_bootstrap:
        est = pd.concat([base(sentence_scores(plain, r), template).assign(reduction=r)
                         for r in reductions], ignore_index=True)
        ints = summary(est, by=["model", "dataset", "reduction"], n_bins=n_bins,
                       n_boot=n_bootstrap, seed=seed, metrics=("accuracy", "ace"))
        ints = ints[["model", "dataset", "reduction", "accuracy_low", "accuracy_high",
                     "ace_low", "ace_high"]]
        table = table.merge(ints, on=["model", "dataset", "reduction"], how="left")
    else:
        for c in ("accuracy_low", "accuracy_high", "ace_low", "ace_high"):
            table[c] = np.nan
    table.insert(1, "objective", table["model"].map(dict(objectives)))
    table.insert(3, "label", table["reduction"].map(REDUCTION_LABELS))
    order = {m: i for i, m in enumerate(dict.fromkeys(plain["model"]))}
    red = {r: i for i, r in enumerate(reductions)}
    table = table.assign(_m=table["model"].map(order), _r=table["reduction"].map(red))
    table = table.sort_values(["_m", "_r"], kind="stable").drop(columns=["_m", "_r"])
    return table[["model", "objective", "dataset", "reduction", "label", "n", "accuracy",
                  "accuracy_low", "accuracy_high", "ace", "ace_low", "ace_high", "H"]] \
        .reset_index(drop=True)


def objective_means(table: pd.DataFrame, objective: str = "objective",
                    reduction: str = "reduction", accuracy: str = "accuracy", ace: str = "ace"
                    ) -> pd.DataFrame:
    """Figure 7: per objective and reduction the mean over models of accuracy, ACE and H (H is
    computed per model first, then averaged, as the authors' notebook does). Works on
    :func:`reduction_table` and on the authors' per-model values (pass their column names).
    Long format: ``objective``, ``reduction``, ``metric`` (``accuracy``, ``ace``, ``H``),
    ``value``, ``n_models``."""
    require_columns(table, (objective, reduction, accuracy, ace), "reduction table")
    per_model = table[[objective, reduction]].copy()
    per_model["accuracy"] = table[accuracy].to_numpy(float)
    per_model["ace"] = table[ace].to_numpy(float)
    per_model["H"] = harmonic_mean(per_model["accuracy"].to_numpy(), per_model["ace"].to_numpy())
    grouped = per_model.groupby([objective, reduction], sort=False)
    means = grouped[["accuracy", "ace", "H"]].mean()
    means["n_models"] = grouped.size()
    out = means.reset_index().melt(id_vars=[objective, reduction, "n_models"],
                                   value_vars=list(FIGURE7_METRICS), var_name="metric",
                                   value_name="value")
    out = out.rename(columns={objective: "objective", reduction: "reduction"})
    return out[["objective", "reduction", "metric", "value", "n_models"]]


def best_reductions(means: pd.DataFrame, reference: str = "sum") -> pd.DataFrame:
    """Per objective, from :func:`objective_means`: the reduction with the highest mean H,
    that H, and the mean H of the ``reference`` reduction (the paper's choice, ``sum``)."""
    h = means[means["metric"] == "H"]
    rows = []
    for obj, part in h.groupby("objective", sort=False):
        top = part.loc[part["value"].idxmax()]
        ref = part.loc[part["reduction"] == reference, "value"]
        rows.append({"objective": obj, "best": top["reduction"], "H_best": top["value"],
                     f"H_{reference}": float(ref.iloc[0]) if len(ref) else np.nan,
                     "n_models": int(top["n_models"])})
    return pd.DataFrame(rows)


def confidence_histograms(scores: pd.DataFrame, objectives: Mapping[str, str] | None = None,
                          template: str = PLAIN, reductions: Sequence[str] = REDUCTIONS,
                          bins: int = 20) -> pd.DataFrame:
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
            rows.append(pd.DataFrame({"model": model, "reduction": r,
                                      "label": REDUCTION_LABELS.get(r, r),
                                      "lower": edges[:-1], "upper": edges[1:],
                                      "count": counts.astype(np.int64),
                                      "share": counts / max(len(part), 1)}))
    out = pd.concat(rows, ignore_index=True)
    if objectives is not None:
        out.insert(1, "objective", out["model"].map(dict(objectives)))
    order = {m: i for i, m in enumerate(dict.fromkeys(plain["model"]))}
    return out.sort_values("model", key=lambda s: s.map(order), kind="stable") \
        .reset_index(drop=True)
