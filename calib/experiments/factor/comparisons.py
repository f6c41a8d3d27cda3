"""Appendix F's comparisons of FACTOR with BEAR (Kissling et al. 2026) as statistics with
intervals, the evidence of the claims: the mean ACE on FACTOR against BEAR, Margin's mean gain
on each, and Table 4's means.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.combined import (
    FACT_KEYS,
    Term,
    combined_interval,
    estimate_terms,
    instance_ids,
)
from calib.data.reported import reported
from calib.experiments.factor.bear import BEAR_OPTIONS
from calib.experiments.factor.tables import ESTIMATORS, subset_name
from calib.experiments.paper_tables import text_value


def _terms(
    estimates: pd.DataFrame, sample: str, metric: str, within=None, repeats: bool = False
) -> dict[tuple, Term]:
    """Terms per (model, estimator) or, with ``repeats``, per (model, estimator, repeat)."""
    by = ["model", "estimator", "repeat"] if repeats else ["model", "estimator"]
    return estimate_terms(estimates, sample, metric, by, within=within)


def _whole_ids(whole: pd.DataFrame) -> np.ndarray:
    first = whole[
        (whole["model"] == whole["model"].iloc[0])
        & (whole["estimator"] == whole["estimator"].iloc[0])
    ]
    return instance_ids(first.sort_values(list(FACT_KEYS), kind="stable"))


def higher_ace(
    whole: pd.DataFrame,
    factor_est: pd.DataFrame,
    models: Sequence[str],
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Appendix F's "the calibration errors are significantly higher than the ones we obtained
    on BEAR": per estimator and FACTOR subset, the mean over ``models`` (the causal ones) of
    ACE on FACTOR minus ACE on the BEAR sample, both **debiased** (ACE minus its noise floor:
    the FACTOR sample and the BEAR sample differ in size, so their raw ACEs carry different
    floors), with a 95% interval from a bootstrap of the BEAR facts and, independently, of the
    FACTOR items (:func:`calib.confidence.combined.combined_interval`); ``raw`` is the same mean
    of the raw ACEs. Columns ``estimator``, ``subset``, ``unit``, ``n_models``, ``difference``,
    ``low``, ``high``, ``p_value``, ``raw``, ``n_bear``, ``n_factor``."""
    models = [m for m in models if m in set(factor_est["model"].unique())]
    if not models:
        return pd.DataFrame(
            columns=[
                "estimator",
                "subset",
                "unit",
                "n_models",
                "difference",
                "low",
                "high",
                "p_value",
                "raw",
                "n_bear",
                "n_factor",
            ]
        )
    bear = _terms(whole[whole["model"].isin(models)], "bear", "ace")
    rows = []
    for dataset, part in factor_est[factor_est["model"].isin(models)].groupby(
        "dataset", sort=False
    ):
        fac = _terms(part, dataset, "ace")
        for est in ESTIMATORS:
            terms = [fac[(m, est)] for m in models] + [bear[(m, est)] for m in models]
            coefs = [1 / len(models)] * len(models) + [-1 / len(models)] * len(models)
            got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True)
            rows.append(
                {
                    "estimator": est,
                    "subset": subset_name(dataset),
                    "unit": f"{est}, {subset_name(dataset)}",
                    "n_models": len(models),
                    "difference": got["difference"],
                    "low": got["low"],
                    "high": got["high"],
                    "p_value": got["p_value"],
                    "raw": got["difference"] + got["floor_shift"],
                    "n_bear": len(terms[-1].confidence),
                    "n_factor": len(terms[0].confidence),
                }
            )
    return pd.DataFrame(rows)


def _gain(
    terms: Mapping[tuple, Term], models: Sequence[str], repeats: Sequence[int] | None
) -> tuple[list[Term], list[float]]:
    """The terms and coefficients of the mean over ``models`` (and the repeats) of
    ``ACE(Base) - ACE(Margin)``: Margin's gain."""
    out: list[Term] = []
    coefs: list[float] = []
    each: Sequence[int | None] = repeats or [None]
    for m in models:
        for r in each:
            key = (m, "Base") if r is None else (m, "Base", r)
            alt_key = (m, "Margin") if r is None else (m, "Margin", r)
            w = 1 / (len(models) * len(each))
            out += [terms[key], terms[alt_key]]
            coefs += [w, -w]
    return out, coefs


def gain_comparisons(
    whole: pd.DataFrame,
    cut: pd.DataFrame,
    factor_est: pd.DataFrame,
    models: Sequence[str],
    n_boot: int = 1000,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Margin's mean gain in ACE over Base (``ACE(Base) - ACE(Margin)``, the mean over the
    causal ``models``) on the BEAR sample, on its 1:1 relations cut to five options and on each
    FACTOR subset (Appendix F: 0.106, 0.07 and 0.03), every ACE debiased (the samples differ in
    size), with 95% intervals from a bootstrap of the BEAR facts (shared by the whole sample
    and its 1:1 part) and, independently, of the FACTOR items.

    Returns ``(means, comparisons)``: ``means`` one row per benchmark (``benchmark``,
    ``n_models``, ``n``, ``gain`` (raw), ``gain_debiased`` with ``_low`` / ``_high``);
    ``comparisons`` per FACTOR subset ``gain(BEAR) - gain(FACTOR)`` (``comparison``
    ``smaller``), ``gain(BEAR) - 2 gain(FACTOR)`` (``much smaller``: FACTOR's gain below half of
    BEAR's) and ``|gain(BEAR) - gain(FACTOR)| - |gain(BEAR, 5 options) - gain(FACTOR)|``
    (``closer``), with ``unit``, ``difference``, ``low``, ``high``, ``p_value``, ``raw``."""
    mcols = [
        "benchmark",
        "n_models",
        "n",
        "gain",
        "gain_debiased",
        "gain_debiased_low",
        "gain_debiased_high",
    ]
    ccols = [
        "subset",
        "comparison",
        "unit",
        "n_models",
        "difference",
        "low",
        "high",
        "p_value",
        "raw",
    ]
    models = [m for m in models if m in set(factor_est["model"].unique())]
    if not models:
        return pd.DataFrame(columns=mcols), pd.DataFrame(columns=ccols)
    whole = whole[whole["model"].isin(models)]
    ids = _whole_ids(whole)
    bear_terms, bear_coefs = _gain(_terms(whole, "bear", "ace"), models, None)
    samples = [("BEAR (sample, whole answer spaces)", bear_terms, bear_coefs)]
    cut_terms = cut_coefs = None
    if not cut.empty:
        cut = cut[cut["model"].isin(models)]
        reps = sorted(cut["repeat"].unique())
        cut_terms, cut_coefs = _gain(
            _terms(cut, "bear", "ace", within=ids, repeats=True), models, reps
        )
        samples.append((f"BEAR 1:1 ({int(cut['k'].iloc[0])} options)", cut_terms, cut_coefs))
    fac_terms = {}
    for dataset, part in factor_est[factor_est["model"].isin(models)].groupby(
        "dataset", sort=False
    ):
        fac_terms[dataset] = _gain(_terms(part, dataset, "ace"), models, None)
        samples.append((f"FACTOR {subset_name(dataset)}", *fac_terms[dataset]))
    sizes = {"bear": len(ids)}
    means = []
    for name, terms, coefs in samples:
        got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True, sizes=sizes)
        n = len(terms[0].confidence)
        means.append(
            {
                "benchmark": name,
                "n_models": len(models),
                "n": n,
                "gain": got["difference"] + got["floor_shift"],
                "gain_debiased": got["difference"],
                "gain_debiased_low": got["low"],
                "gain_debiased_high": got["high"],
            }
        )
    rows = []
    for dataset, (f_terms, f_coefs) in fac_terms.items():
        subset = subset_name(dataset)
        terms, coefs = bear_terms + f_terms, bear_coefs + [-c for c in f_coefs]
        got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True, sizes=sizes)
        rows.append(
            {
                "subset": subset,
                "comparison": "smaller",
                "unit": f"gain(BEAR) - gain(FACTOR {subset})",
                "n_models": len(models),
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "raw": got["difference"] + got["floor_shift"],
            }
        )
        # "much smaller magnitude": FACTOR's gain below half of BEAR's
        terms, coefs = bear_terms + f_terms, bear_coefs + [-2 * c for c in f_coefs]
        got = combined_interval(terms, coefs, n_boot=n_boot, seed=seed, debias=True, sizes=sizes)
        rows.append(
            {
                "subset": subset,
                "comparison": "much smaller",
                "unit": f"gain(BEAR) - 2 gain(FACTOR {subset})",
                "n_models": len(models),
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "raw": got["difference"] + got["floor_shift"],
            }
        )
        if cut_terms is None:
            continue
        nb, nc = len(bear_terms), len(cut_terms)
        b_c, c_c, f_c = (np.asarray(bear_coefs), np.asarray(cut_coefs), np.asarray(f_coefs))

        def closer(values, nb=nb, nc=nc, b_c=b_c, c_c=c_c, f_c=f_c):
            g_b = values[:, :nb] @ b_c
            g_5 = values[:, nb : nb + nc] @ c_c
            g_f = values[:, nb + nc :] @ f_c
            return np.abs(g_b - g_f) - np.abs(g_5 - g_f)

        got = combined_interval(
            bear_terms + cut_terms + f_terms,
            combine=closer,
            n_boot=n_boot,
            seed=seed,
            debias=True,
            sizes=sizes,
        )
        rows.append(
            {
                "subset": subset,
                "comparison": "closer",
                "unit": f"|gain(BEAR) - gain(FACTOR {subset})| - |gain(BEAR, "
                f"{BEAR_OPTIONS} options) - gain(FACTOR {subset})|",
                "n_models": len(models),
                "difference": got["difference"],
                "low": got["low"],
                "high": got["high"],
                "p_value": got["p_value"],
                "raw": got["difference"] + got["floor_shift"],
            }
        )
    return pd.DataFrame(means, columns=mcols), pd.DataFrame(rows, columns=ccols)


def table4_means() -> pd.DataFrame:
    """The paper's mean FACTOR ACE of C_Base and C_Margin over its causal models, three ways:
    as Appendix F's text states them (0.475, 0.446), over the first ten rows of Table 4 (the
    earlier version's models) and over all its 16 rows; and Margin's mean gain. Columns
    ``what``, ``models``, ``ace_base``, ``ace_margin``, ``gain`` (printed or computed from
    printed values)."""
    t4 = reported("kissling2026_table4")
    b, m = text_value("factor_mean_ace_base"), text_value("factor_mean_ace_margin")
    rows = [
        {
            "what": "Appendix F's text",
            "models": None,
            "ace_base": b,
            "ace_margin": m,
            "gain": text_value("factor_mean_improvement"),
        }
    ]
    for what, part in (("Table 4, first ten rows", t4.head(10)), ("Table 4, all rows", t4)):
        rows.append(
            {
                "what": what,
                "models": len(part),
                "ace_base": part["ace_base"].mean(),
                "ace_margin": part["ace_margin"].mean(),
                "gain": (part["ace_base"] - part["ace_margin"]).mean(),
            }
        )
    return pd.DataFrame(rows)
