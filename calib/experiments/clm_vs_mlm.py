"""Causal vs masked models of similar accuracy (paper §5.3, Table 2).

Comparing the calibration of a causal (CLM) and a masked (MLM) model is only fair when they
know about as much, so models are *paired by accuracy* first (:func:`pair_models`), then the
Brier scores of Margin (Eq. 2) and Average (Eq. 3, min aggregation) are compared within each
pair on the same instances (:func:`pair_table`, :func:`pair_differences`).

**Pairing rule** (:data:`PAIRING_RULE`): accuracy is that of the Base prediction averaged over
all templates scored (the five paraphrases; Table 2's caption: "Accuracy (in %) is the average
over all templates"; :func:`template_accuracy`), per model and *scope*: by default the whole
probe (``within="probe"``, as the caption reads), or, as an option, BEAR's knowledge domains
(``within="domain"``: each CLM is paired with an MLM on the domain where the two are most alike,
as a notebook in the authors' repository does). Repeatedly, among the models not paired yet,
the (CLM, MLM, scope) with the smallest accuracy gap becomes a pair (ties: by scope, then
names); so each model is in at most one pair and there are ``min(#CLMs, #MLMs)`` pairs, fewer
when ``max_gap`` leaves out pairs whose gap exceeds it. Scopes with fewer than
``min_instances`` instances are not used.

The paper's six pairs (Table 2, :func:`paper_pairs`) are shown beside this build's values
for the pairs whose two models this build ran.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.confidence import (all_estimates, paired_estimates_difference, summary,
                              template_predictions)
from calib.data.bear import PARAPHRASES, load_bear
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence, every, printed
from calib.experiments.paper_tables import pair_brier_differences
from calib.scoring.schema import FACT

#: the estimators Table 2 compares, as named by :func:`calib.confidence.all_estimates`
ESTIMATORS: tuple[str, ...] = ("Margin", "Average/min")
#: where accuracy is compared when pairing: the whole probe (the paper's Table 2) or a domain
SCOPES: tuple[str, ...] = ("probe", "domain")
#: the scope name of the whole probe (this build's BEAR sample)
ALL = "the whole probe"

PAIRING_RULE = (
    "Accuracy is that of the Base prediction averaged over all templates (the five "
    "paraphrases), as in the caption of the paper's Table 2. Among the models not yet paired, "
    "the causal-masked pair with the smallest accuracy gap on one scope (the whole probe, or a "
    "BEAR domain) is taken, and this repeats until one side runs out; each model is in at most "
    "one pair, and a pair is compared on the instances of its scope.")


def relation_domains(relations: Sequence[str] | None = None, *, data_dir=None) -> pd.DataFrame:
    """BEAR's knowledge domains: one row per (``relation``, ``domain``); a relation can be in
    several domains (``bear/relation_info.json``)."""
    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    rows = [(r, d) for r, rel in bear.relations.items() for d in rel.domains]
    return pd.DataFrame(rows, columns=["relation", "domain"])


def scoped(estimates: pd.DataFrame, domains: pd.DataFrame, within: str = "probe"
           ) -> pd.DataFrame:
    """``estimates`` with a ``scope`` column: the single scope :data:`ALL`
    (``within="probe"``) or one copy of each row per domain of its relation
    (``within="domain"``)."""
    if within not in SCOPES:
        raise ValueError(f"unknown within {within!r}; expected one of {list(SCOPES)}")
    if within == "probe":
        return estimates.assign(scope=ALL)
    out = estimates.merge(domains.rename(columns={"domain": "scope"}), on="relation",
                          how="inner")
    if out.empty:
        raise ValueError("no relation of the estimates has a knowledge domain")
    return out


def template_accuracy(sent: pd.DataFrame, objectives: dict[str, str], domains: pd.DataFrame,
                      within: str = "probe", templates: Sequence[str] = PARAPHRASES
                      ) -> pd.DataFrame:
    """Accuracy of the Base prediction averaged over ``templates`` (default the five
    paraphrases), per model and scope: Table 2's "average over all templates". Every template
    covers the same instances, so this is the mean over templates of each template's accuracy.
    ``sent``: a sentence-score table (or its :func:`~calib.confidence.template_predictions`).
    Columns ``model``, ``objective``, ``scope``, ``n`` (instances), ``templates``, ``accuracy``.
    """
    per = sent if "p_top" in sent.columns else template_predictions(sent)
    per = per[per["template"].isin(list(templates))]
    if per.empty:
        raise ValueError(f"none of the templates {list(templates)} is in the table")
    sc = scoped(per[["model", "relation", "instance", "template", "correct"]], domains, within)
    by = ["model", "scope"]
    facts = sc.drop_duplicates([*by, "relation", "instance"]).groupby(by, sort=True).size()
    out = (sc.assign(correct=sc["correct"].astype(float))
           .groupby(by, sort=True)
           .agg(templates=("template", "nunique"), accuracy=("correct", "mean"))
           .assign(n=facts)[["n", "templates", "accuracy"]]
           .reset_index())
    unknown = sorted(set(out["model"]) - set(objectives))
    if unknown:
        raise ValueError(f"no objective given for model(s) {unknown}")
    out.insert(1, "objective", out["model"].map(objectives))
    return out


def pair_models(accuracy: pd.DataFrame, max_gap: float | None = None,
                min_instances: int = 1) -> pd.DataFrame:
    """Pairs of one CLM and one MLM by closest accuracy (see :data:`PAIRING_RULE`).

    ``accuracy``: :func:`template_accuracy`. Returns one row per pair, in the order they were
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
               within: str = "probe", n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Table 2's layout: for each pair, one row per model (CLM first) with ``pair``,
    ``objective``, ``scope``, ``n``, ``accuracy_templates`` (the pairing accuracy, averaged
    over all templates, from ``pairs``), ``accuracy`` (Base, plain template) and the Brier score
    of Margin (``brier_margin``) and Average/min (``brier_average``), the last three with a
    bootstrap interval (``_low``/``_high``) over the instances of the pair's scope."""
    sc = scoped(estimates, domains, within)
    rows = []
    for p in pairs.itertuples(index=False):
        for model, objective, acc in ((p.clm, "clm", p.clm_accuracy),
                                      (p.mlm, "mlm", p.mlm_accuracy)):
            part = sc[(sc["model"] == model) & (sc["scope"] == p.scope)].drop(columns="scope")
            rows.append({"pair": p.pair, "model": model, "objective": objective,
                         "scope": p.scope, "accuracy_templates": acc,
                         **_metrics_row(part, n_boot, seed)})
    return pd.DataFrame(rows)


#: the columns of the paper's Table 2 as ``calib/data/reported/kissling2026_table2.yaml``
#: holds them
PAPER_COLUMNS: tuple[str, ...] = ("pair", "model", "size", "accuracy", "brier_margin",
                                  "brier_average")


def paper_pairs(reported_table: pd.DataFrame, rows: pd.DataFrame,
                accuracy: pd.DataFrame) -> pd.DataFrame:
    """This build's values for the paper's pairs (Table 2), for the pairs whose *two* models
    this build ran, in the paper's order, to be shown beside the reported table (never mixed
    into it).

    ``reported_table``: :func:`calib.data.reported.reported` of ``kissling2026_table2``
    (columns :data:`PAPER_COLUMNS`; a model is matched on ``registry_name`` when that column is
    there, else on ``model``). ``rows``: :func:`model_table` (whole probe); ``accuracy``:
    :func:`template_accuracy` with ``within="probe"``. Returns ``pair``, ``model``,
    ``accuracy`` (averaged over all templates, as Table 2), ``brier_margin``,
    ``brier_average``; no row when no pair has both models here.
    """
    cols = ["pair", "model", "accuracy", "brier_margin", "brier_average"]
    if reported_table.empty:
        return pd.DataFrame(columns=cols)
    missing = [c for c in PAPER_COLUMNS if c not in reported_table.columns]
    if missing:
        raise ValueError(f"the reported Table 2 lacks column(s) {missing}; expected "
                         f"{list(PAPER_COLUMNS)}")
    key = "registry_name" if "registry_name" in reported_table.columns else "model"
    whole = accuracy[accuracy["scope"] == ALL].set_index("model")["accuracy"]
    mine = rows.set_index("model")
    name = reported_table[key]
    ran = name.map(lambda m: m in mine.index and m in whole.index)
    both = ran.groupby(reported_table["pair"]).transform("all")
    kept = name[both]
    return pd.DataFrame({"pair": reported_table.loc[both, "pair"].to_numpy(),
                         "model": kept.to_numpy(),
                         "accuracy": [whole[m] for m in kept],
                         "brier_margin": [mine.loc[m, "brier_margin"] for m in kept],
                         "brier_average": [mine.loc[m, "brier_average"] for m in kept]},
                        columns=cols)


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
                     within: str = "probe", n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Paired bootstrap of ``Brier(CLM) - Brier(MLM)`` per pair and estimator on the pair's
    instances (sentences: :func:`calib.report.findings.pair_sentences`)."""
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
                         "estimator": est, **diff})
    return pd.DataFrame(rows)


def brier_bars(rows: pd.DataFrame) -> pd.DataFrame:
    """:func:`model_table` or :func:`pair_table` rows in long form for a bar chart: ``model``,
    ``estimator``, ``brier``, ``low``, ``high`` (one row per model and estimator)."""
    parts = []
    for est, name in zip(ESTIMATORS, ("brier_margin", "brier_average")):
        parts.append(pd.DataFrame({"model": rows["model"], "estimator": est,
                                   "brier": rows[name], "low": rows[f"{name}_low"],
                                   "high": rows[f"{name}_high"]}))
    return pd.concat(parts, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# the claims this chapter tests (calib.experiments.claims): rules over evidence frames and the
# paper's evidence. The chapter does not record its result yet, so build_evidence is None ("not
# run in this build") until it is converted to a chapter unit (issue 17; the reductions chapter
# is the worked example).


def clm_lower_brier(evidence: Evidence):
    """``clm_better``: Brier(CLM) - Brier(MLM) below 0 for every pair and estimator (C_Margin,
    C_Average)."""
    # TODO(issue 17): rule to fix -- "using most of our estimates" is a claim about most
    # estimates, and "similar accuracy" needs a limit on the pairs' accuracy gap
    return every(evidence, "<", 0.0, what="Brier(CLM) - Brier(MLM) within a pair",
                 unit="pair-estimator")


def clm_lower_brier_paper() -> Evidence:
    d = pair_brier_differences()
    rows = [{"pair": f"{r.clm} vs {r.mlm}", "estimator": est, "value": -getattr(r, col)}
            for r in d.itertuples() for est, col in (("Margin", "margin"),
                                                     ("Average", "average"))]
    return Evidence(printed(pd.DataFrame(rows), "value", ["pair", "estimator"]),
                    "Table 2, printed values")


CLAIMS: tuple[Claim, ...] = (
    Claim(key="clm_better", paper="kissling2026", section="§5.3",
          quote="we find that CLMs are much better calibrated using most of our estimates",
          statement="Causal models are better calibrated (lower Brier score of C_Margin and "
                    "C_Average) than masked models of similar accuracy",
          quantifier="every", metrics=("brier",), about="pairs of a CLM and an MLM of similar "
                                                        "accuracy",
          chapter="clm_vs_mlm", rule=clm_lower_brier, paper_evidence=clm_lower_brier_paper,
          build_evidence=None,
          needs="causal and masked models in one build, e.g. opt-125m with roberta-base "
                "(`calib book --profile paper`, with the hub)"),
)
