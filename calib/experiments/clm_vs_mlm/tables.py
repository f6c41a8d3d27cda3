"""Table 2 of this build (Kissling et al. 2026, §5.3): Margin and Average/min per instance, every
model's accuracies and Brier scores with intervals, the pairs in Table 2's layout, and this
build's values for the paper's pairs.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from calib.confidence import all_estimates, summary
from calib.experiments.clm_vs_mlm.pairing import ALL, scoped

#: the estimators Table 2 compares, as named by :func:`calib.confidence.estimators.all_estimates`
ESTIMATORS: tuple[str, ...] = ("Margin", "Average/min")


def clm_mlm_estimates(sent: pd.DataFrame) -> pd.DataFrame:
    """Base, Margin and Average/min (min aggregation over the five paraphrases) per model and
    instance: the estimators Table 2 needs (:func:`calib.confidence.estimators.all_estimates`)."""
    est = all_estimates(sent, aggregations=("min",))
    return est[est["estimator"].isin(("Base", *ESTIMATORS))].reset_index(drop=True)


def _metrics_row(part: pd.DataFrame, n_boot: int, seed: int) -> dict:
    """``n``, accuracy (Base) and the Brier scores of Margin and Average/min, each with its
    bootstrap interval, for the estimates of one model on one set of instances."""
    table = summary(
        part, by=["estimator"], n_boot=n_boot, seed=seed, metrics=("accuracy", "brier")
    ).set_index("estimator")
    row = {"n": int(table.loc["Base", "n"])}
    for suffix in ("", "_low", "_high"):
        row[f"accuracy{suffix}"] = table.loc["Base", f"accuracy{suffix}"]
    for est, name in zip(ESTIMATORS, ("brier_margin", "brier_average")):
        for suffix in ("", "_low", "_high"):
            row[f"{name}{suffix}"] = table.loc[est, f"brier{suffix}"]
    return row


_TEMPLATES = ("accuracy_templates", "accuracy_templates_low", "accuracy_templates_high")


def _templates_columns(accuracy: pd.DataFrame | None, model: str, scope: str) -> dict:
    if accuracy is None:
        return {}
    row = accuracy[(accuracy["model"] == model) & (accuracy["scope"] == scope)]
    if row.empty:
        return dict.fromkeys(_TEMPLATES, np.nan)
    r = row.iloc[0]
    return dict(zip(_TEMPLATES, (r["accuracy"], r["accuracy_low"], r["accuracy_high"])))


def pair_table(
    estimates: pd.DataFrame,
    pairs: pd.DataFrame,
    domains: pd.DataFrame,
    within: str = "probe",
    n_boot: int = 1000,
    seed: int = 0,
    accuracy: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Table 2's layout: for each pair, one row per model (CLM first) with ``pair``, ``model``,
    ``objective``, ``scope``, ``accuracy_templates`` (the pairing accuracy, averaged over all
    templates, from ``pairs``; with ``accuracy``, the
    :func:`~calib.experiments.clm_vs_mlm.pairing.template_accuracy` of the same scope, also its
    interval ``accuracy_templates_low``, ``_high``), ``n``, ``accuracy`` (Base, plain template) and
    the Brier score of Margin (``brier_margin``) and Average/min (``brier_average``), the last three
    with a bootstrap interval (``_low``/``_high``) over the instances of the pair's scope."""
    sc = scoped(estimates, domains, within)
    rows = []
    for p in pairs.itertuples(index=False):
        for model, objective, acc in (
            (p.clm, "clm", p.clm_accuracy),
            (p.mlm, "mlm", p.mlm_accuracy),
        ):
            part = sc[(sc["model"] == model) & (sc["scope"] == p.scope)].drop(columns="scope")
            rows.append(
                {
                    "pair": p.pair,
                    "model": model,
                    "objective": objective,
                    "scope": p.scope,
                    "accuracy_templates": acc,
                    **_templates_columns(accuracy, model, p.scope),
                    **_metrics_row(part, n_boot, seed),
                }
            )
    cols = [
        "pair",
        "model",
        "objective",
        "scope",
        "accuracy_templates",
        *(_TEMPLATES[1:] if accuracy is not None else ()),
        "n",
        "accuracy",
        "accuracy_low",
        "accuracy_high",
        "brier_margin",
        "brier_margin_low",
        "brier_margin_high",
        "brier_average",
        "brier_average_low",
        "brier_average_high",
    ]
    return pd.DataFrame(rows, columns=cols)


#: the columns of the paper's Table 2 as ``calib/data/reported/kissling2026_table2.yaml``
#: holds them
PAPER_COLUMNS: tuple[str, ...] = (
    "pair",
    "model",
    "size",
    "accuracy",
    "brier_margin",
    "brier_average",
)


def paper_pairs(
    reported_table: pd.DataFrame, rows: pd.DataFrame, accuracy: pd.DataFrame
) -> pd.DataFrame:
    """This build's values for the paper's pairs (Table 2), for the pairs whose *two* models
    this build ran, in the paper's order, to be shown beside the reported table (never mixed
    into it).

    ``reported_table``: :func:`calib.data.reported.reported` of ``kissling2026_table2`` (columns
    :data:`PAPER_COLUMNS`; a model is matched on ``registry_name`` when that column is there, else
    on ``model``). ``rows``: :func:`model_table` (whole probe); ``accuracy``:
    :func:`~calib.experiments.clm_vs_mlm.pairing.template_accuracy` with ``within="probe"``. Returns
    ``pair``, ``model``, ``accuracy`` (averaged over all templates, as Table 2), ``brier_margin``,
    ``brier_average``; no row when no pair has both models here.
    """
    cols = ["pair", "model", "accuracy", "brier_margin", "brier_average"]
    if reported_table.empty:
        return pd.DataFrame(columns=cols)
    missing = [c for c in PAPER_COLUMNS if c not in reported_table.columns]
    if missing:
        raise ValueError(
            f"the reported Table 2 lacks column(s) {missing}; expected {list(PAPER_COLUMNS)}"
        )
    key = "registry_name" if "registry_name" in reported_table.columns else "model"
    whole = accuracy[accuracy["scope"] == ALL].set_index("model")["accuracy"]
    mine = rows.set_index("model")
    name = reported_table[key]
    ran = name.map(lambda m: m in mine.index and m in whole.index)
    both = ran.groupby(reported_table["pair"]).transform("all")
    kept = name[both]
    return pd.DataFrame(
        {
            "pair": reported_table.loc[both, "pair"].to_numpy(),
            "model": kept.to_numpy(),
            "accuracy": [whole[m] for m in kept],
            "brier_margin": [mine.loc[m, "brier_margin"] for m in kept],
            "brier_average": [mine.loc[m, "brier_average"] for m in kept],
        },
        columns=cols,
    )


#: interval columns of :func:`pair_table` / :func:`model_table`, for ``html_table``
TABLE2_INTERVALS = {
    c: (f"{c}_low", f"{c}_high")
    for c in ("accuracy_templates", "accuracy", "brier_margin", "brier_average")
}


def model_table(
    estimates: pd.DataFrame,
    objectives: Mapping[str, str],
    n_boot: int = 1000,
    seed: int = 0,
    accuracy: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per model on the whole sample (no pairing): ``objective``, with ``accuracy``
    (:func:`~calib.experiments.clm_vs_mlm.pairing.template_accuracy` with ``within="probe"``) the
    accuracy over all templates (``accuracy_templates`` with its interval: what is set beside Table
    2 and Table 3), then ``n``, the Base accuracy on the plain template and the Brier scores of
    Margin and Average/min with intervals (the rows a build without masked models can show)."""
    rows = []
    for model, objective in objectives.items():
        part = estimates[estimates["model"] == model]
        if not part.empty:
            rows.append(
                {
                    "model": model,
                    "objective": objective,
                    **_templates_columns(accuracy, model, ALL),
                    **_metrics_row(part, n_boot, seed),
                }
            )
    return pd.DataFrame(rows)
