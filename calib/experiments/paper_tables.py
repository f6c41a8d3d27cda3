"""What the papers' own tables show, computed from their transcribed values.

The values are the files of ``calib/data/reported/`` (Kissling et al. 2026, Tables 1-4 and
the numbers of its text; LPAQA's Tables 2-3), read with :func:`calib.data.reported.reported`.
Nothing here is run on a model: these are the paper's numbers, joined and compared.

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`table1_long`                 Table 1 as one row per model and estimator (calib's
                                    estimator names), with Table 3's objective, size and
                                    accuracy: the paper's points for charts and joins
:func:`table1_wide`                 Table 1 with one column per estimator (ACE or Brier)
:func:`best_estimates`              per model, the estimator with the lowest ACE or Brier
:func:`size_trends`                 per family and estimator, how ACE changes with size
:func:`pair_brier_differences`      Table 2's Brier differences within each pair
:func:`answer_space_ace`            the authors' ACE per model and answer-space size
:func:`text_value`                  a number the text states (``kissling2026_text_numbers``)
:func:`consistency_checks`          where the paper's tables do not bear out its text
==================================  ==========================================================

The claims' own evidence from these tables is built in each chapter module, beside the claim
(``paper_evidence`` of :class:`calib.experiments.claims.Claim`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from calib.data.reported import reported
from calib.models.registry import get_spec, size_in_millions

#: the paper's confidence-based aggregation (§3.2) is calib's ``min`` aggregation
PAPER_AGGREGATION = "min"
#: Table 1's columns per estimator (ACE, Brier); no ACE is printed for Consistency
TABLE1_COLUMNS: dict[str, tuple[str | None, str]] = {
    "Base": ("ace_base", "brier_base"),
    "Margin": ("ace_margin", "brier_margin"),
    "Average": ("ace_average", "brier_average"),
    "Consistency": (None, "brier_consistency"),
    "Entropy": ("ace_entropy", "brier_entropy"),
}
#: the estimators a claim of "the best estimate" ranges over (those with an ACE)
ACE_ESTIMATORS: tuple[str, ...] = ("Base", "Margin", "Average", "Entropy")


def calib_estimator(name: str, aggregation: str = PAPER_AGGREGATION) -> str:
    """The calib name of a paper estimator: ``Base``, ``Margin``, ``Average/<aggregation>``..."""
    return name if name in ("Base", "Margin") else f"{name}/{aggregation}"


def paper_models() -> pd.DataFrame:
    """Table 3 with calib's view of each model: ``registry_name``, ``model`` (printed),
    ``objective`` (``clm``/``mlm``), ``family`` (registry), ``size_m`` (millions of
    parameters, from the registry, where Table 3's "800B" typo is corrected) and ``accuracy``
    (a fraction: Table 3's percent / 100)."""
    t3 = reported("kissling2026_table3")
    specs = [get_spec(n) for n in t3["registry_name"]]
    return pd.DataFrame(
        {
            "registry_name": t3["registry_name"],
            "model": t3["model"],
            "objective": t3["objective"].str.lower(),
            "family": [s.family if s else "" for s in specs],
            "size_m": [size_in_millions(s.size) if s else np.nan for s in specs],
            "instruction_tuned": t3["instruction_tuned"] == "yes",
            "accuracy": t3["accuracy"] / 100,
        }
    )


def table1_long(aggregation: str = PAPER_AGGREGATION) -> pd.DataFrame:
    """Table 1 as one row per model and estimator: ``model`` (printed), ``registry_name``,
    ``objective``, ``family``, ``size_m``, ``accuracy`` (Table 3's BEAR accuracy, a fraction:
    Table 1 prints none), ``estimator`` (calib's name, :func:`calib_estimator`), ``ace`` (NaN
    for Consistency) and ``brier``."""
    t1 = reported("kissling2026_table1")
    info = paper_models().drop(columns="model")
    rows = []
    for name, (ace, brier) in TABLE1_COLUMNS.items():
        rows.append(
            pd.DataFrame(
                {
                    "model": t1["model"],
                    "registry_name": t1["registry_name"],
                    "estimator": calib_estimator(name, aggregation),
                    "ace": t1[ace] if ace else np.nan,
                    "brier": t1[brier],
                }
            )
        )
    out = pd.concat(rows, ignore_index=True).merge(info, on="registry_name", how="left")
    return out[
        [
            "model",
            "registry_name",
            "objective",
            "family",
            "size_m",
            "accuracy",
            "estimator",
            "ace",
            "brier",
        ]
    ]


def text_value(key: str) -> float:
    """A number the paper's text states (``kissling2026_text_numbers``), by its key."""
    nums = reported("kissling2026_text_numbers").set_index("key")
    if key not in nums.index:
        raise KeyError(
            f"no text number {key!r} in kissling2026_text_numbers; known: {', '.join(nums.index)}"
        )
    return float(nums.at[key, "value"])


def _names(frame: pd.DataFrame, column: str = "registry_name") -> str:
    return ", ".join(frame[column]) if len(frame) else "none"


# ---------------------------------------------------------------------------------------------
# the paper's tables reshaped for the claims' evidence and the checks below


def table1_wide(metric: str) -> pd.DataFrame:
    """Table 1 wide: one row per model (registry name), one column per paper estimator with a
    printed ``metric`` (``ace``: no Consistency; ``brier``)."""
    t1 = reported("kissling2026_table1").set_index("registry_name")
    return pd.DataFrame(
        {
            name: t1[cols[0 if metric == "ace" else 1]]
            for name, cols in TABLE1_COLUMNS.items()
            if cols[0 if metric == "ace" else 1]
        }
    )


def _mean_clm(estimator: str) -> float:
    long = table1_long()
    part = long[(long["objective"] == "clm") & (long["estimator"] == estimator)]
    return float(part["ace"].mean())


def _factor_margin() -> pd.DataFrame:
    t4 = reported("kissling2026_table4")
    return t4.assign(
        ace_better=t4["ace_margin"] < t4["ace_base"],
        brier_better=t4["brier_margin"] < t4["brier_base"],
    )


def best_estimates(metric: str = "ace") -> pd.DataFrame:
    """Per model of Table 1, the estimator with the lowest ``metric`` and its value, and the
    value of C_Average: ``registry_name``, ``best``, ``best_value``, ``average``."""
    wide = table1_wide(metric)
    return pd.DataFrame(
        {
            "registry_name": wide.index,
            "best": wide.idxmin(axis=1).to_numpy(),
            "best_value": wide.min(axis=1).to_numpy(),
            "average": wide["Average"].to_numpy(),
        }
    ).reset_index(drop=True)


def size_trends(metric: str = "ace") -> pd.DataFrame:
    """Per model family with at least two sizes in Table 1 and per estimator: the Spearman
    correlation of ``metric`` with size and whether the metric falls at every step up in size
    (``monotone``). Columns ``family``, ``estimator``, ``models``, ``rho``, ``monotone``."""
    long = table1_long().dropna(subset=[metric])
    rows = []
    for (family, est), part in long.groupby(["family", "estimator"], sort=True):
        part = part.sort_values("size_m")
        if part["size_m"].nunique() < 2:
            continue
        values = part[metric].to_numpy()
        rho = float(pd.Series(values).corr(pd.Series(part["size_m"].to_numpy()), method="spearman"))
        rows.append(
            {
                "family": family,
                "estimator": est,
                "models": len(part),
                "rho": rho,
                "monotone": bool(np.all(np.diff(values) < 0)),
            }
        )
    return pd.DataFrame(rows, columns=["family", "estimator", "models", "rho", "monotone"])


def answer_space_ace(small_only: bool) -> pd.DataFrame:
    """The authors' repository's ACE of C_Base per model (rows, registry names) and
    answer-space size (columns), the mean of three draws (the earlier version's models); with
    ``small_only`` the causal models under 1B parameters only (§5.2)."""
    rep = reported("kissling2026_repo_answer_space_subsampling")
    info = paper_models().set_index("registry_name")
    rep = rep.assign(
        objective=rep["registry_name"].map(info["objective"]),
        size_m=rep["registry_name"].map(info["size_m"]),
    )
    if small_only:
        rep = rep[(rep["objective"] == "clm") & (rep["size_m"] < text_value("small_clm_size"))]
    wide = rep.pivot_table(index="registry_name", columns="sample_size", values="ace")
    return wide


def pair_brier_differences() -> pd.DataFrame:
    """Table 2 per pair: ``pair``, ``clm``, ``mlm`` (registry names) and the Brier difference
    MLM - CLM of C_Margin and C_Average (positive: the CLM is better calibrated)."""
    t2 = reported("kissling2026_table2")
    clm, mlm = (
        t2[t2["objective"] == "CLM"].reset_index(),
        t2[t2["objective"] == "MLM"].reset_index(),
    )
    return pd.DataFrame(
        {
            "pair": clm["pair"],
            "clm": clm["registry_name"],
            "mlm": mlm["registry_name"],
            "margin": mlm["brier_margin"] - clm["brier_margin"],
            "average": mlm["brier_average"] - clm["brier_average"],
        }
    )


# ---------------------------------------------------------------------------------------------
# where the paper's tables do not bear out its text


def _check(check: str, where: str, says: str, shows: str, consistent: bool) -> dict:
    return {
        "check": check,
        "where": where,
        "the text says": says,
        "the tables show": shows,
        "consistent": consistent,
    }


def _table2_vs_table1() -> dict:
    t1 = reported("kissling2026_table1").set_index("registry_name")
    t2 = reported("kissling2026_table2").set_index("registry_name")
    both = [m for m in t2.index if m in t1.index]
    diffs = []
    for m in both:
        for col in ("brier_margin", "brier_average"):
            if t1.at[m, col] != t2.at[m, col]:
                diffs.append(
                    f"{m} {col.removeprefix('brier_')} {t2.at[m, col]:.3f} "
                    f"(Table 1: {t1.at[m, col]:.3f})"
                )
    return _check(
        "Table 2 repeats Table 1's Brier scores",
        "Tables 1 and 2",
        f"the same Brier scores for the {len(both)} models in both tables",
        "; ".join(diffs) or "all equal",
        not diffs,
    )


def _model_counts() -> dict:
    t3 = reported("kissling2026_table3")
    n_clm = int((t3["objective"] == "CLM").sum())
    says = (
        f"abstract: {text_value('abstract_clms'):.0f} causal + "
        f"{text_value('abstract_mlms'):.0f} masked; §4.2: {text_value('s42_models'):.0f} "
        f"models ({text_value('s42_clms'):.0f} CLMs, {text_value('s42_mlms'):.0f} MLMs); "
        f"§1: {text_value('intro_models'):.0f} models"
    )
    ok = len(t3) == text_value("s42_models") == text_value("intro_models")
    return _check(
        "number of models",
        "abstract, §1, §4.2, Table 3",
        says,
        f"Table 3 lists {len(t3)}: {n_clm} CLMs, {len(t3) - n_clm} MLMs",
        ok,
    )


def _pairs() -> dict:
    t2 = reported("kissling2026_table2")
    n = int(t2["pair"].nunique())
    return _check(
        "number of CLM/MLM pairs",
        "§5.3, Table 2",
        f'"all five model pairs" ({text_value("pairs_count"):.0f})',
        f"Table 2 prints {n} pairs",
        n == text_value("pairs_count"),
    )


def _qwen_size() -> dict:
    t2 = reported("kissling2026_table2").set_index("registry_name")
    t3 = reported("kissling2026_table3").set_index("registry_name")
    printed, other = t3.at["qwen3.5-0.8b", "parameters"], t2.at["qwen3.5-0.8b", "size"]
    return _check(
        "size of Qwen3.5-0.8B",
        "Tables 2 and 3",
        f"Table 2: {other}",
        f"Table 3: {printed}",
        printed == other,
    )


def _factor_claim() -> dict:
    t4 = _factor_margin()
    worse = t4[~(t4["ace_better"] & t4["brier_better"])]
    return _check(
        "C_Margin better than C_Base on FACTOR for every model",
        "§5.1, Appendix F",
        'C_Margin "consistently outperforms C_Base across all models and both evaluation metrics"',
        f"C_Margin is worse in ACE or Brier for {len(worse)} of {len(t4)} models: "
        f"{_names(worse, 'model')}",
        worse.empty,
    )


def _factor_means() -> dict:
    t4 = reported("kissling2026_table4")
    b, m = text_value("factor_mean_ace_base"), text_value("factor_mean_ace_margin")
    first = t4.head(10)
    shows = (
        f"means over Table 4's {len(t4)} models: {t4['ace_base'].mean():.3f} / "
        f"{t4['ace_margin'].mean():.3f} (improvement "
        f"{(t4['ace_base'] - t4['ace_margin']).mean():+.3f}); over its first ten rows "
        f"(the earlier version's models): {first['ace_base'].mean():.4f} / "
        f"{first['ace_margin'].mean():.4f}"
    )
    ok = abs(t4["ace_base"].mean() - b) <= 5e-4 and abs(t4["ace_margin"].mean() - m) <= 5e-4
    return _check(
        "mean FACTOR ACE over the CLMs",
        "Appendix F",
        f"{b:.3f} (C_Base) and {m:.3f} (C_Margin), improvement "
        f"{text_value('factor_mean_improvement'):.2f}",
        shows,
        ok,
    )


def _bear_means() -> dict:
    b, m = text_value("bear_mean_ace_base"), text_value("bear_mean_ace_margin")
    tb, tm = _mean_clm("Base"), _mean_clm("Margin")
    n = int(
        (
            paper_models()["registry_name"].isin(reported("kissling2026_table1")["registry_name"])
            & (paper_models()["objective"] == "clm")
        ).sum()
    )
    ok = abs(tb - b) <= 5e-4 and abs(tm - m) <= 5e-4
    return _check(
        "mean BEAR ACE over the CLMs",
        "Appendix F",
        f"{b:.3f} (C_Base) and {m:.3f} (C_Margin), improvement "
        f"{text_value('bear_mean_improvement'):.3f}",
        f"means over Table 1's {n} CLMs: {tb:.3f} / {tm:.3f} (improvement {tb - tm:.3f})",
        ok,
    )


def _average_claim() -> dict:
    bits, ok = [], True
    for metric, title in (("ace", "ACE"), ("brier", "Brier")):
        best = best_estimates(metric)
        other = best[best["best"] != "Average"]
        ok &= other.empty
        if len(other):
            bits.append(
                f"{title}: another estimate is lower for {len(other)} of {len(best)} "
                f"("
                + ", ".join(
                    f"{r.registry_name} {r.best} {r.best_value:.3f} vs {r.average:.3f}"
                    for r in other.itertuples()
                )
                + ")"
            )
    return _check(
        "C_Average best for every model",
        "§5.1, Table 1",
        'C_Average "clearly outperforms the other approaches across all models in '
        'terms of both Brier Score and ACE"',
        "; ".join(bits) or "it is",
        ok,
    )


def _brier_bound() -> dict:
    t2 = reported("kissling2026_table2")
    bound = text_value("clm_brier_bound")
    clm, mlm = t2[t2["objective"] == "CLM"], t2[t2["objective"] == "MLM"]
    bits = []
    for col, est in (("brier_margin", "C_Margin"), ("brier_average", "C_Average")):
        over = clm[clm[col] > bound]
        under = mlm[mlm[col] <= bound]
        if len(over):
            bits.append(
                f"CLMs above {bound} with {est}: "
                + ", ".join(f"{r.model} {getattr(r, col):.3f}" for r in over.itertuples())
            )
        if len(under):
            bits.append(
                f"MLMs at or below {bound} with {est}: "
                + ", ".join(f"{r.model} {getattr(r, col):.3f}" for r in under.itertuples())
            )
    return _check(
        "Brier 0.2 separates CLMs from MLMs",
        "§5.3, Table 2",
        f'"all CLMs achieve a Brier Score of {bound} or lower, while none of the MLMs do"',
        "; ".join(bits) or "it does",
        not bits,
    )


def _pair_differences() -> dict:
    d = pair_brier_differences()
    lo, hi = text_value("pair_difference_low"), text_value("pair_difference_high")
    shows = (
        f"MLM - CLM Brier: C_Margin {d['margin'].min():.3f} to {d['margin'].max():.3f}, "
        f"C_Average {d['average'].min():.3f} to {d['average'].max():.3f}"
    )
    # "approximately 0.1 to 0.2": the difference rounds to a value in [0.1, 0.2] at one decimal
    inside = d[["margin", "average"]].round(1).apply(lambda c: c.between(lo, hi)).mean()
    return _check(
        "size of the CLM/MLM differences",
        "§5.3, Table 2",
        f'"often reaching differences of approximately {lo} to {hi}"',
        shows + f"; rounded to one decimal, {inside['margin']:.0%} (C_Margin) and "
        f"{inside['average']:.0%} (C_Average) of the pairs lie in {lo}-{hi}",
        bool((inside >= 0.5).all()),
    )


def _over_1b() -> dict:
    info = paper_models()
    best = best_estimates("ace").merge(info, on="registry_name")
    big = best[best["size_m"] > 1000]
    over = big[big["best_value"] > text_value("best_estimate_ace_above_1b")]
    missing = info[(info["size_m"] > 1000) & ~info["registry_name"].isin(best["registry_name"])]
    shows = (
        f"{len(big) - len(over)} of the {len(big)} models above 1B in Table 1 have a best "
        f"ACE <= 0.1 (max {big['best_value'].max():.3f})"
        + (f"; not in Table 1: {_names(missing)}" if len(missing) else "")
    )
    return _check(
        "best ACE <= 0.1 above 1B parameters",
        "§5.1, Tables 1 and 3",
        '"all models larger than 1B parameters, achieve an ACE <= 0.1 with their best estimate"',
        shows,
        over.empty,
    )


def _all_estimators_size() -> dict:
    trends = size_trends("ace")
    rising = trends[trends["rho"] > 0]
    return _check(
        "larger is better for every estimator",
        "§5.1, Tables 1 and 3",
        'ACE and Brier decrease with size "for most model families"; "This applies '
        'to all confidence estimation methods."',
        (
            "ACE rises with size (Spearman rho > 0) for "
            + ", ".join(f"{r.family} {r.estimator} (rho {r.rho:+.2f})" for r in rising.itertuples())
        )
        if len(rising)
        else "it falls for every family and estimator",
        rising.empty,
    )


def _margin_brier_bear() -> dict:
    brier = table1_wide("brier")
    worse = brier[brier["Margin"] >= brier["Base"]].reset_index()
    return _check(
        "C_Margin more reliable than C_Base on BEAR",
        "§5.1, Table 1",
        'C_Margin "emerged as a consistently well-calibrated method across all LMs"',
        (
            f"C_Margin's Brier score is not lower for {_names(worse)} ("
            + ", ".join(f"{r.Margin:.3f} vs {r.Base:.3f}" for r in worse.itertuples())
            + "); its ACE is lower for every model"
        )
        if len(worse)
        else "lower ACE and Brier for every model",
        worse.empty,
    )


def _section52_points() -> dict:
    sub = reported("kissling2026_repo_answer_space_subsampling")
    g = sub[(sub["registry_name"] == "gpt2-large") & (sub["sample_size"] == 5)].iloc[0]
    t4 = reported("kissling2026_table4").set_index("registry_name")
    ok = (
        round(100 * g["accuracy"], 2) == text_value("bear5_gpt2_large_accuracy")
        and round(g["ace"], 2) == text_value("bear5_gpt2_large_ace")
        and t4.at["opt-6.7b", "accuracy"] == text_value("factor_opt67b_accuracy")
        and t4.at["opt-6.7b", "ace_base"] == text_value("factor_opt67b_ace")
    )
    return _check(
        "§5.2's two example points",
        "§5.2",
        "gpt2-large 48.97% / ACE 0.33 on BEAR (5 options); opt-6.7b 49.33% / 0.323 on FACTOR",
        f"repository data: gpt2-large {100 * g['accuracy']:.2f}% / {g['ace']:.3f}; "
        f"Table 4: opt-6.7b {t4.at['opt-6.7b', 'accuracy']:.2f}% / "
        f"{t4.at['opt-6.7b', 'ace_base']:.3f}",
        ok,
    )


def _lpaqa_macro_text() -> dict:
    trex = reported("jiang2020_lpaqa_trex")
    base = reported("jiang2020_lpaqa_trex_baselines")
    opti = trex[(trex["averaging"] == "macro") & (trex["prompts"] == "Mine")].set_index("model")[
        "opti"
    ]
    man = base[(base["averaging"] == "macro") & (base["baseline"] == "Man")].set_index("model")[
        "accuracy"
    ]
    return _check(
        "LPAQA's macro gains",
        "LPAQA §5.2, Table 3",
        '"from 22.8% to 25.7% on BERT-base, and from 25.7% to 30.1% on BERT-base"',
        f"Table 3 (Opti., Mine; manual): BERT-base {man['BERT-base']:.1f} -> "
        f"{opti['BERT-base']:.1f}, BERT-large {man['BERT-large']:.1f} -> "
        f"{opti['BERT-large']:.1f}: the second gain is BERT-large's",
        bool(opti["BERT-base"] == 30.1),
    )


#: the checks of :func:`consistency_checks`, in the order they are shown
CHECKS: tuple[Callable[[], dict], ...] = (
    _model_counts,
    _qwen_size,
    _table2_vs_table1,
    _pairs,
    _margin_brier_bear,
    _average_claim,
    _all_estimators_size,
    _over_1b,
    _brier_bound,
    _pair_differences,
    _factor_claim,
    _factor_means,
    _bear_means,
    _section52_points,
    _lpaqa_macro_text,
)


def consistency_checks() -> pd.DataFrame:
    """Where the papers' text and their transcribed tables agree or not, computed from the
    tables: one row per check with ``check``, ``where``, ``the text says``, ``the tables
    show`` and ``consistent`` (bool)."""
    return pd.DataFrame([c() for c in CHECKS])
