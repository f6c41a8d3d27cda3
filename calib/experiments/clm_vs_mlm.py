"""Causal vs masked models of similar accuracy (paper §5.3, Table 2).

Comparing the calibration of a causal (CLM) and a masked (MLM) model is only fair when they
know about as much, so models are *paired by accuracy* first (:func:`pair_models`), then the
Brier scores of Margin (Eq. 2) and Average (Eq. 3, min aggregation) are compared within each
pair on the same instances (:func:`pair_table`, :func:`pair_differences`).

**Pairing rule** (:data:`PAIRING_RULE`): accuracy is that of the Base prediction on the plain
template, per model and *scope*: BEAR's knowledge domains (``within="domain"``, the paper's
Table 2 pairs each CLM with an MLM on the domain where the two are most alike) or the whole
sample (``within="all"``). Repeatedly, among the models not paired yet, the (CLM, MLM, scope)
with the smallest accuracy gap becomes a pair (ties: by scope, then names); so each model is in
at most one pair and there are ``min(#CLMs, #MLMs)`` pairs, fewer when ``max_gap`` leaves out
pairs whose gap exceeds it. Scopes with fewer than ``min_instances`` instances are not used.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.confidence import all_estimates, paired_estimates_difference, summary
from calib.data.bear import load_bear
from calib.experiments.prose import compare_sentence

#: the estimators Table 2 compares, as named by :func:`calib.confidence.all_estimates`
ESTIMATORS: tuple[str, ...] = ("Margin", "Average/min")
#: where accuracy is compared when pairing
SCOPES: tuple[str, ...] = ("domain", "all")
#: the scope name of the whole sample
ALL = "all of the sample"
#: the keys of one fact, shared by the two models of a pair
FACT: tuple[str, ...] = ("dataset", "relation", "instance")

PAIRING_RULE = (
    "Accuracy is that of the Base prediction on the plain template. Among the models not yet "
    "paired, the causal-masked pair with the smallest accuracy gap on one scope (a BEAR domain, "
    "or the whole sample) is taken, and this repeats until one side runs out; each model is in "
    "at most one pair, and a pair is compared on the instances of its scope.")


def relation_domains(relations: Sequence[str] | None = None, *, data_dir=None) -> pd.DataFrame:
    """BEAR's knowledge domains: one row per (``relation``, ``domain``); a relation can be in
    several domains (``bear/relation_info.json``)."""
    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    rows = [(r, d) for r, rel in bear.relations.items() for d in rel.domains]
    return pd.DataFrame(rows, columns=["relation", "domain"])


def scoped(estimates: pd.DataFrame, domains: pd.DataFrame, within: str = "domain"
           ) -> pd.DataFrame:
    """``estimates`` with a ``scope`` column: one copy of each row per domain of its relation
    (``within="domain"``) or the single scope :data:`ALL` (``within="all"``)."""
    if within not in SCOPES:
        raise ValueError(f"unknown within {within!r}; expected one of {list(SCOPES)}")
    if within == "all":
        return estimates.assign(scope=ALL)
    out = estimates.merge(domains.rename(columns={"domain": "scope"}), on="relation",
                          how="inner")
    if out.empty:
        raise ValueError("no relation of the estimates has a knowledge domain")
    return out


def scope_accuracy(estimates: pd.DataFrame, objectives: dict[str, str], domains: pd.DataFrame,
                   within: str = "domain") -> pd.DataFrame:
    """Accuracy of the Base prediction per model and scope, with ``objective`` and ``n``."""
    base = estimates[estimates["estimator"] == "Base"]
    sc = scoped(base, domains, within)
    out = (sc.assign(correct=sc["correct"].astype(float))
           .groupby(["model", "scope"], sort=True)["correct"].agg(["size", "mean"])
           .rename(columns={"size": "n", "mean": "accuracy"}).reset_index())
    unknown = sorted(set(out["model"]) - set(objectives))
    if unknown:
        raise ValueError(f"no objective given for model(s) {unknown}")
    out.insert(1, "objective", out["model"].map(objectives))
    return out


def pair_models(accuracy: pd.DataFrame, max_gap: float | None = None,
                min_instances: int = 1) -> pd.DataFrame:
    """Pairs of one CLM and one MLM by closest accuracy (see :data:`PAIRING_RULE`).

    ``accuracy``: :func:`scope_accuracy`. Returns one row per pair, in the order they were
    taken: ``pair`` (1, 2, ...), ``clm``, ``mlm``, ``scope``, ``n``, ``clm_accuracy``,
    ``mlm_accuracy``, ``gap``. Empty when one objective has no model.
    """
    acc = accuracy[accuracy["n"] >= min_instances]
    clm = acc[acc["objective"] == "clm"]
    mlm = acc[acc["objective"] == "mlm"]
    cols = ["pair", "clm", "mlm", "scope", "n", "clm_accuracy", "mlm_accuracy", "gap"]
    if clm.empty or mlm.empty:
        return pd.DataFrame(columns=cols)
    cand = clm.merge(mlm, on="scope", suffixes=("_clm", "_mlm"))
    cand = cand.assign(gap=(cand["accuracy_clm"] - cand["accuracy_mlm"]).abs().round(12))
    cand = cand.sort_values(["gap", "scope", "model_clm", "model_mlm"], kind="stable")
    used: set[str] = set()
    rows = []
    for c in cand.itertuples(index=False):
        if c.model_clm in used or c.model_mlm in used:
            continue
        if max_gap is not None and c.gap > max_gap:
            break
        used |= {c.model_clm, c.model_mlm}
        rows.append((len(rows) + 1, c.model_clm, c.model_mlm, c.scope, int(c.n_clm),
                     c.accuracy_clm, c.accuracy_mlm, c.gap))
    return pd.DataFrame(rows, columns=cols)


def clm_mlm_estimates(sent: pd.DataFrame) -> pd.DataFrame:
    """Base, Margin and Average/min (min aggregation over the five paraphrases) per model and
    instance: the estimators Table 2 needs (:func:`calib.confidence.all_estimates`)."""
    est = all_estimates(sent, aggregations=("min",))
    return est[est["estimator"].isin(("Base", *ESTIMATORS))].reset_index(drop=True)


def _metrics_row(part: pd.DataFrame, n_boot: int, seed: int) -> dict:
    """``n``, accuracy (Base) and the Brier scores of Margin and Average/min, each with its
    bootstrap interval, for the estimates of one model on one set of instances."""
    table = summary(part, by=["estimator"], n_boot=n_boot, seed=seed,
                    metrics=("accuracy", "brier")).set_index("estimator")
    row = {"n": int(table.loc["Base", "n"])}
    for suffix in ("", "_low", "_high"):
        row[f"accuracy{suffix}"] = table.loc["Base", f"accuracy{suffix}"]
    for est, name in zip(ESTIMATORS, ("brier_margin", "brier_average")):
        for suffix in ("", "_low", "_high"):
            row[f"{name}{suffix}"] = table.loc[est, f"brier{suffix}"]
    return row


def pair_table(estimates: pd.DataFrame, pairs: pd.DataFrame, domains: pd.DataFrame,
               within: str = "domain", n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 2's layout: for each pair, one row per model (CLM first) with ``pair``,
    ``objective``, ``scope``, ``n``, ``accuracy`` and the Brier score of Margin
    (``brier_margin``) and Average/min (``brier_average``), each with a bootstrap interval
    (``_low``/``_high``) over the instances of the pair's scope."""
    sc = scoped(estimates, domains, within)
    rows = []
    for p in pairs.itertuples(index=False):
        for model, objective in ((p.clm, "clm"), (p.mlm, "mlm")):
            part = sc[(sc["model"] == model) & (sc["scope"] == p.scope)].drop(columns="scope")
            rows.append({"pair": p.pair, "model": model, "objective": objective,
                         "scope": p.scope, **_metrics_row(part, n_boot, seed)})
    return pd.DataFrame(rows)


#: interval columns of :func:`pair_table` / :func:`model_table`, for ``html_table``
TABLE2_INTERVALS = {c: (f"{c}_low", f"{c}_high")
                    for c in ("accuracy", "brier_margin", "brier_average")}


def model_table(estimates: pd.DataFrame, objectives: dict[str, str], n_boot: int = 1000,
                seed: int = 0) -> pd.DataFrame:
    """Per model on the whole sample (no pairing): ``objective``, ``n``, accuracy and the
    Brier scores of Margin and Average/min with intervals (the rows a build without masked
    models can show)."""
    rows = []
    for model, objective in objectives.items():
        part = estimates[estimates["model"] == model]
        if not part.empty:
            rows.append({"model": model, "objective": objective,
                         **_metrics_row(part, n_boot, seed)})
    return pd.DataFrame(rows)


def pair_differences(estimates: pd.DataFrame, pairs: pd.DataFrame, domains: pd.DataFrame,
                     within: str = "domain", n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Paired bootstrap of ``Brier(CLM) - Brier(MLM)`` per pair and estimator on the pair's
    instances, with a generated sentence (:func:`calib.experiments.prose.compare_sentence`)."""
    sc = scoped(estimates, domains, within)
    rows = []
    for p in pairs.itertuples(index=False):
        for est in ESTIMATORS:
            part = sc[(sc["scope"] == p.scope) & (sc["estimator"] == est)]
            a = part[part["model"] == p.clm].drop(columns="scope")
            b = part[part["model"] == p.mlm].drop(columns="scope")
            diff = paired_estimates_difference(a, b, "brier", n_boot=n_boot, seed=seed,
                                               keys=FACT)
            rows.append({"pair": p.pair, "clm": p.clm, "mlm": p.mlm, "scope": p.scope,
                         "estimator": est, **diff,
                         "sentence": compare_sentence(
                             f"{p.clm} (causal)", f"{p.mlm} (masked)", diff,
                             subject=f"{est} on {p.scope}")})
    return pd.DataFrame(rows)


def objective_sentence(differences: pd.DataFrame) -> str:
    """How many pairs show the causal model with a lower / higher Brier score than its masked
    partner (95% paired interval excluding 0), per estimator: generated from the numbers."""
    if differences.empty:
        return "No causal-masked pair was formed, so this run compares no objectives."
    parts = []
    for est, part in differences.groupby("estimator", sort=False):
        n = len(part)
        lower = int((part["high"] < 0).sum())
        higher = int((part["low"] > 0).sum())
        parts.append(f"for {est}, the causal model has the lower Brier score in {lower} of {n} "
                     f"pair(s), the higher in {higher}, and the two cannot be told apart in "
                     f"{n - lower - higher}")
    return "In this run, " + "; ".join(parts) + " (95% paired bootstrap intervals)."


def pairing_note(within: str, min_instances: int, max_gap: float | None) -> str:
    """:data:`PAIRING_RULE` with the scope and gap settings of this run, in words."""
    if within not in SCOPES:
        raise ValueError(f"unknown within {within!r}; expected one of {list(SCOPES)}")
    scope = (f"a BEAR domain with at least {min_instances} instances" if within == "domain"
             else "the whole sample")
    gap = "" if max_gap is None else f"; pairs with an accuracy gap above {max_gap} are left out"
    return f"{PAIRING_RULE} In this run the scope is {scope}{gap}."


def brier_bars(rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`model_table` or :func:`pair_table` rows in long form for a bar chart: ``model``,
    ``estimator``, ``brier``, ``low``, ``high`` (one row per model and estimator)."""
    parts = []
    for est, name in zip(ESTIMATORS, ("brier_margin", "brier_average")):
        parts.append(pd.DataFrame({"model": rows["model"], "estimator": est,
                                   "brier": rows[name], "low": rows[f"{name}_low"],
                                   "high": rows[f"{name}_high"]}))
    return pd.concat(parts, ignore_index=True)
