"""Comparisons between models on the same facts (Kissling et al. 2026, §5.1): the differences
the claims on sizes, families and objectives need, with paired bootstrap intervals over facts
on this build and as sums of printed values on the paper's Tables 1 and 3.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import (
    INTERVAL_METHODS,
    interval,
    interval_p_value,
    jackknife,
    metric_statistic,
    replicates,
)
from calib.confidence.metrics import N_BINS
from calib.confidence.schema import require_columns
from calib.experiments.calibration.estimators import SINGLE_ESTIMATORS, paper_estimators
from calib.experiments.calibration.tables import TEMPLATES
from calib.experiments.paper_tables import calib_estimator, paper_models, table1_long
from calib.scoring.schema import FACT


def model_info(models: Sequence[str]) -> pd.DataFrame:
    """Per model (in order): ``objective`` (``clm`` / ``mlm``), ``family`` and ``size_m``
    (millions of parameters) from the registry; ``""`` / NaN where the registry does not know
    the model."""
    from calib.experiments.scores import objectives
    from calib.models.registry import get_spec, size_in_millions

    kinds = objectives(list(models))
    rows = []
    for m in models:
        spec = get_spec(m)
        size = size_in_millions(spec.size) if spec else None
        rows.append(
            {
                "model": m,
                "objective": kinds[m],
                "family": spec.family if spec else "",
                "size_m": float(size) if size is not None else np.nan,
            }
        )
    return pd.DataFrame(rows, columns=["model", "objective", "family", "size_m"])


def fact_arrays(
    est: pd.DataFrame, keys: Sequence[str] = ("model", "estimator")
) -> tuple[dict[tuple, tuple[np.ndarray, np.ndarray]], int]:
    """``({(model, estimator): (confidence, correct)}, n)``: the float arrays of each group of
    ``keys`` in one shared order of the facts, so that one resample of the facts applies to
    every model and estimator (a paired bootstrap across models). The groups must cover the
    same facts (one BEAR sample), else ``ValueError``."""
    require_columns(est, (*keys, *FACT, "confidence", "correct"), "estimate table")
    facts: list[np.ndarray] | None = None
    first = None
    out: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
    for key, part in est.groupby(list(keys), sort=False):
        part = part.sort_values(list(FACT), kind="stable")
        these = [part[c].astype(str).to_numpy() for c in FACT]  # column by column, no row loop
        if facts is None:
            facts, first = these, key
        elif len(these[0]) != len(facts[0]) or any(
            (a != b).any() for a, b in zip(these, facts, strict=True)
        ):
            raise ValueError(
                f"{key} covers other facts than {first}; a paired comparison "
                f"across models needs one sample of facts"
            )
        out[key] = (part["confidence"].to_numpy(float), part["correct"].to_numpy(float))
    return out, (0 if facts is None else len(facts[0]))


@dataclass(frozen=True)
class Contrast:
    """A linear combination of one metric over (model, estimator) cells: ``sum(coefficient *
    metric(model, estimator))``, e.g. +1 for the larger model of a family and -1 for the smaller.
    ``estimator`` :data:`~calib.experiments.calibration.tables.TEMPLATES` with ``metric``
    ``accuracy`` is the paper's accuracy (averaged over the paraphrases)."""

    kind: str
    unit: str
    metric: str
    estimator: str
    a: str
    b: str
    coefficients: Mapping[tuple[str, str], float]


def _mean(
    models: Sequence[str], estimators: Sequence[str], sign: float = 1.0
) -> dict[tuple[str, str], float]:
    k = sign / (len(models) * len(estimators))
    return {(m, e): k for m in models for e in estimators}


def _metric_estimators(metric: str, aggregation: str) -> list[str]:
    if metric == "accuracy":
        return [TEMPLATES]
    return paper_estimators(aggregation, with_ace=metric == "ace")


#: the families §5.1 names (registry names)
BEST_FAMILIES: tuple[str, ...] = ("Llama 3", "Gemma")
GEMMA, GEMMA3 = "Gemma", "Gemma 3"
MODERNBERT, OLDER_MLMS = "ModernBERT", ("BERT", "RoBERTa")
XLMR_LARGE = "xlm-roberta-large"


def contrast_specs(info: pd.DataFrame, aggregation: str = "min") -> list[Contrast]:
    """The cross-model contrasts the claims need, for the models of ``info``
    (:func:`model_info`; the paper's models for its tables): the MLMs' mean signed gap minus
    the CLMs' (Base and Margin), each consecutive size step within a family (every estimator,
    ACE and Brier), the named best families against the others, gemma-3 against gemma,
    ModernBERT against BERT and RoBERTa, xlm-roberta-large against the other MLMs. Only the
    contrasts whose models are all in ``info``."""
    out: list[Contrast] = []
    avg = calib_estimator("Average", aggregation)
    mlm = list(info.loc[info["objective"] == "mlm", "model"])
    clm = list(info.loc[info["objective"] == "clm", "model"])
    if mlm and clm:
        for e in SINGLE_ESTIMATORS:
            out.append(
                Contrast(
                    "objectives",
                    f"MLMs - CLMs, {e}",
                    "gap",
                    e,
                    "MLMs",
                    "CLMs",
                    {**_mean(mlm, [e]), **_mean(clm, [e], -1.0)},
                )
            )
    known = info[info["family"].astype(bool)]
    for family, part in known.groupby("family", sort=False):
        part = part.dropna(subset=["size_m"]).sort_values("size_m", kind="stable")
        rows = part.to_dict("records")
        for small, large in itertools.pairwise(rows):
            if large["size_m"] <= small["size_m"]:
                continue
            for metric in ("ace", "brier"):
                for e in _metric_estimators(metric, aggregation):
                    out.append(
                        Contrast(
                            "size step",
                            f"{family}: {small['model']} -> {large['model']}, {e}, {metric}",
                            metric,
                            e,
                            large["model"],
                            small["model"],
                            {(large["model"], e): 1.0, (small["model"], e): -1.0},
                        )
                    )
    members = {f: list(p["model"]) for f, p in known.groupby("family", sort=False)}
    named = [f for f in BEST_FAMILIES if f in members]
    others = [f for f in members if f not in BEST_FAMILIES]
    for metric in ("ace", "brier"):
        ests = _metric_estimators(metric, aggregation)
        for n in named:
            for f in others:
                out.append(
                    Contrast(
                        "families",
                        f"{metric}: {n} - {f}",
                        metric,
                        "mean",
                        n,
                        f,
                        {**_mean(members[n], ests), **_mean(members[f], ests, -1)},
                    )
                )
    if GEMMA in members and GEMMA3 in members:
        for metric in ("accuracy", "ace", "brier"):
            ests = _metric_estimators(metric, aggregation)
            worse, better = (GEMMA, GEMMA3) if metric == "accuracy" else (GEMMA3, GEMMA)
            out.append(
                Contrast(
                    "gemma-3",
                    f"{metric}: {worse} - {better}",
                    metric,
                    "mean",
                    worse,
                    better,
                    {**_mean(members[worse], ests), **_mean(members[better], ests, -1)},
                )
            )
    older = [m for f in OLDER_MLMS for m in members.get(f, [])]
    if MODERNBERT in members and older:
        for e in ("Base", avg):
            out.append(
                Contrast(
                    "ModernBERT",
                    f"ace, {e}: ModernBERT - BERT/RoBERTa",
                    "ace",
                    e,
                    MODERNBERT,
                    "BERT/RoBERTa",
                    {**_mean(members[MODERNBERT], [e]), **_mean(older, [e], -1)},
                )
            )
    rest = [m for m in mlm if m != XLMR_LARGE]
    if XLMR_LARGE in set(info["model"].unique()) and rest:
        for metric in ("accuracy", "ace", "brier"):
            ests = _metric_estimators(metric, aggregation)
            sign = -1.0 if metric == "accuracy" else 1.0  # worse: lower accuracy, higher error
            out.append(
                Contrast(
                    "xlm-roberta-large",
                    f"{metric}: {XLMR_LARGE} vs the other MLMs",
                    metric,
                    "mean",
                    XLMR_LARGE,
                    "other MLMs",
                    {**_mean([XLMR_LARGE], ests, sign), **_mean(rest, ests, -sign)},
                )
            )
    return out


CONTRAST_COLUMNS = (
    "kind",
    "unit",
    "metric",
    "estimator",
    "a",
    "b",
    "difference",
    "low",
    "high",
    "method",
    "p_value",
    "n",
    "n_boot",
)


def contrast_cells(aggregation: str = "min") -> list[tuple[str, str]]:
    """The ``(estimator, metric)`` cells of one model that any contrast of
    :func:`contrast_specs` can use: the signed gap of Base and Margin, the ACE of the paper's
    estimators with an ACE in Table 1, their Brier scores, the paper's accuracy
    (:data:`~calib.experiments.calibration.tables.TEMPLATES`)."""
    out = [(e, "gap") for e in SINGLE_ESTIMATORS]
    for metric in ("ace", "brier", "accuracy"):
        out += [(e, metric) for e in _metric_estimators(metric, aggregation)]
    return out


def _cell_table(est: pd.DataFrame, correct: pd.DataFrame) -> pd.DataFrame:
    """The estimates and the paper's accuracy per fact (``correct``, as an estimator named
    :data:`~calib.experiments.calibration.tables.TEMPLATES`) in one long table."""
    accuracy = correct.assign(
        estimator=TEMPLATES, confidence=0.0, correct=correct["fraction"].to_numpy(float)
    )
    columns = ["model", "estimator", *FACT, "confidence", "correct"]
    return pd.concat([est[columns], accuracy[columns]], ignore_index=True)


def resampled_cells(
    est: pd.DataFrame,
    correct: pd.DataFrame,
    cells: Sequence[tuple[str, str]],
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
) -> dict[tuple[str, str, str], tuple[float, np.ndarray, np.ndarray | None]]:
    """``{(model, estimator, metric): (point, replicates, jackknife or None)}`` of each model's
    ``cells`` (``(estimator, metric)``, :func:`contrast_cells`): what :func:`model_contrasts`
    combines, on the same seeded resamples of the facts. A model's cells depend on its own
    estimates only, so they can be computed beside its other steps (in its worker, where its
    tables have resampled the same metrics already:
    :func:`calib.confidence.bootstrap.shared_resamples`) and passed to
    :func:`model_contrasts`."""
    table = _cell_table(est, correct)
    wanted = {(m, e) for m in table["model"].unique() for e, _ in cells}
    table = table[[k in wanted for k in zip(table["model"], table["estimator"])]]
    arrays, n = fact_arrays(table)
    out = {}
    for (model, estimator), (conf, corr) in arrays.items():
        for e, metric in cells:
            if e == estimator:
                out[(model, estimator, metric)] = _resample_cell(
                    metric, conf, corr, n, n_bootstrap, seed, n_bins
                )
    return out


def _resample_cell(metric, conf, corr, n, n_bootstrap, seed, n_bins):
    """(point, replicates, jackknife or None) of one cell's metric."""
    stat = metric_statistic(metric, conf, corr, n_bins)[0]
    method = INTERVAL_METHODS.get(metric, "centred")
    return (
        float(stat(np.ones((1, n), np.int64))[0]),
        replicates(stat, n, n_bootstrap, seed),
        jackknife(stat, n) if method == "bca" else None,
    )


def model_contrasts(
    est: pd.DataFrame,
    correct: pd.DataFrame,
    info: pd.DataFrame,
    aggregation: str = "min",
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    level: float = 0.95,
    cells: Mapping[tuple[str, str, str], tuple] | None = None,
) -> pd.DataFrame:
    """Each contrast of :func:`contrast_specs` on this build, with a 95% paired bootstrap interval
    over facts: each resample of the facts is applied to every model, estimator and template at once
    (the models share one sample), by the metric's interval method (bias-centred for ACE, BCa
    otherwise). ``est``: the estimate table; ``correct``:
    :func:`~calib.experiments.calibration.tables.template_correct` (the paper's accuracy). Columns
    ``CONTRAST_COLUMNS``; ``difference`` is the contrast (e.g. larger - smaller model, MLMs - CLMs).

    A contrast is linear in its cells, and every cell is resampled with the same seeded
    weights, so each cell's point value, replicates and jackknife values are computed once and
    combined (the same numbers as resampling each contrast's statistic as a whole). ``cells``:
    those computed already (:func:`resampled_cells` with this ``n_bootstrap``, ``seed`` and
    ``n_bins``, e.g. in each model's worker); the others are computed here."""
    specs = contrast_specs(info, aggregation)
    if not specs:
        return pd.DataFrame(columns=list(CONTRAST_COLUMNS))
    if n_bootstrap < 1:
        raise ValueError("model_contrasts needs n_bootstrap >= 1 (a paired bootstrap)")
    table = _cell_table(est, correct)
    wanted = {k for s in specs for k in s.coefficients}
    table = table[[k in wanted for k in zip(table["model"], table["estimator"])]]
    arrays, n = fact_arrays(table)  # also: every model covers the same facts
    cache: dict = dict(cells or {})
    for k, (_, reps, _) in cache.items():
        if len(reps) != n_bootstrap:
            raise ValueError(
                f"the given contrast cell {k} has {len(reps)} resamples, not n_bootstrap "
                f"{n_bootstrap}: compute the cells with this call's n_bootstrap and seed"
            )

    def resampled(key, metric):
        """(point, replicates, jackknife or None) of one cell's metric, computed once."""
        cell = (*key, metric)
        if cell not in cache:
            conf, corr = arrays[key]
            cache[cell] = _resample_cell(metric, conf, corr, n, n_bootstrap, seed, n_bins)
        return cache[cell]

    rows = []
    for s in specs:
        method = INTERVAL_METHODS.get(s.metric, "centred")
        parts = [(c, resampled(k, s.metric)) for k, c in s.coefficients.items()]
        point = sum(c * p[0] for c, p in parts)
        reps = sum(c * p[1] for c, p in parts)
        jack = sum(c * p[2] for c, p in parts) if method == "bca" else None
        low, high = interval(point, reps, level, method, jack)
        rows.append(
            {
                **_spec_fields(s),
                "difference": point,
                "low": low,
                "high": high,
                "method": method,
                "p_value": interval_p_value(point, reps, method, jack),
                "n": n,
                "n_boot": n_bootstrap,
            }
        )
    return pd.DataFrame(rows, columns=list(CONTRAST_COLUMNS))


def _spec_fields(s) -> dict:
    """The columns of :data:`CONTRAST_COLUMNS` that name a contrast spec (both the build's and
    the paper's contrast rows start with them)."""
    return {
        "kind": s.kind,
        "unit": s.unit,
        "metric": s.metric,
        "estimator": s.estimator,
        "a": s.a,
        "b": s.b,
    }


def paper_info() -> pd.DataFrame:
    """:func:`model_info` of the paper's Table 1 models, from Table 3 and the registry."""
    info = paper_models()
    t1 = set(table1_long()["registry_name"])
    info = info[info["registry_name"].isin(t1)]
    return pd.DataFrame(
        {
            "model": info["registry_name"],
            "objective": info["objective"],
            "family": info["family"],
            "size_m": info["size_m"],
        }
    ).reset_index(drop=True)


def paper_contrasts(aggregation: str = "min", kinds: Sequence[str] | None = None) -> pd.DataFrame:
    """The contrasts of :func:`contrast_specs` on the paper's printed values (Table 1's ACE and
    Brier, Table 3's accuracy over all templates): ``difference = low = high``, the same
    columns as :func:`model_contrasts` (no gap: the paper prints none)."""
    long = table1_long(aggregation).set_index(["registry_name", "estimator"])
    acc = paper_models().set_index("registry_name")["accuracy"]
    rows = []
    for s in contrast_specs(paper_info(), aggregation):
        if s.metric == "gap" or (kinds is not None and s.kind not in kinds):
            continue
        value = 0.0
        for (m, e), c in s.coefficients.items():
            value += c * (acc[m] if e == TEMPLATES else long.at[(m, e), s.metric])
        rows.append(
            {
                **_spec_fields(s),
                "difference": value,
                "low": value,
                "high": value,
                "method": "printed",
                "p_value": np.nan,
                "n": np.nan,
                "n_boot": 0,
            }
        )
    return pd.DataFrame(rows, columns=list(CONTRAST_COLUMNS))
