"""The causal-against-masked chapter (Kissling et al. 2026, §5.3, Table 2; §1's "reliability
gap"): a chapter unit (see ``CONTRIBUTING.md``).

Comparing the calibration of a causal (CLM) and a masked (MLM) model is only fair when they
know about as much, so models are *paired by accuracy* first (:func:`pair_models`), then the
Brier scores of Margin (Eq. 2) and Average (Eq. 3, min aggregation) are compared within each
pair on the same instances (:func:`pair_table`, :func:`pair_differences`).

**Pairing rule** (``PAIRING_RULE``): accuracy is that of the Base prediction averaged over
all templates scored (the five paraphrases; Table 2's caption: "Accuracy (in %) is the average
over all templates"; :func:`template_accuracy`), per model and *scope*: by default the whole
probe (``pair_within="probe"``, as the caption reads), or, as an option, BEAR's knowledge
domains (``pair_within="domain"``: each CLM is paired with an MLM on the domain where the two
are most alike, as a notebook in the authors' repository does). Repeatedly, among the models not
paired yet, the (CLM, MLM, scope) with the smallest accuracy gap becomes a pair (ties: by scope,
then names); so each model is in at most one pair. "Similar accuracies" (§5.3) is enforced: a
pair whose gap exceeds ``max_gap`` is not formed. The default, 0.015, comes from Table 2
(:func:`table2_gaps`): its largest printed gap is 1.3 points (gemma-3-270m-it 15.5%,
ModernBERT-base 16.8%; the other five pairs are within 0.4), rounded up to the half point since
the printed accuracies have one decimal. Scopes with fewer than ``min_instances``
instances are not used.

The unit: :class:`Params`, :func:`run` (``Params`` -> :class:`ClmVsMlmResult`) and
``CLAIMS`` (§5.3 and §1, each judged on Table 2 as printed and on this build's result).

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`template_accuracy`           accuracy averaged over the five paraphrases per model and
                                    scope, with a BCa interval over instances
:func:`pair_models`                 the pairs (closest accuracy first, within ``max_gap``)
:func:`left_out_pairs`              the pairs ``max_gap`` prevents, with their gaps
:func:`model_table`                 every model on the whole sample: accuracies and Brier
                                    scores of Margin and Average/min with intervals
:func:`pair_table`                  Table 2's layout for this build's pairs
:func:`pair_differences`            Brier(CLM) - Brier(MLM) per pair and estimator, paired
                                    bootstrap over the pair's instances
:func:`mean_pair_differences`       the mean over pairs of Brier(MLM) - Brier(CLM) per
                                    estimator, paired bootstrap over the sample's facts
:func:`paper_pairs`                 this build's values for Table 2's pairs it ran
==================================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from calib.confidence import (
    all_estimates,
    paired_estimates_difference,
    sentence_scores,
    summary,
    template_predictions,
)
from calib.confidence.bootstrap import (
    difference_interval,
    interval,
    jackknife,
    metric_statistic,
    replicates,
)
from calib.confidence.metrics import weighted_accuracy
from calib.data.bear import PARAPHRASES, load_bear
from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import pair_brier_differences, text_value
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.quantifiers import (
    CONTRADICTS,
    MAX_NAMED,
    OPEN,
    SUPPORTS,
    Evidence,
    named,
    printed,
)
from calib.experiments.scores import facts_per_model
from calib.experiments.scores import objectives as model_objectives
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, Judgement, Verdict, unit_tally
from calib.scoring.schema import FACT

#: the estimators Table 2 compares, as named by :func:`calib.confidence.estimators.all_estimates`
ESTIMATORS: tuple[str, ...] = ("Margin", "Average/min")
#: Table 2's names of them (its column heads C_Margin, C_Average)
PAPER_ESTIMATORS: dict[str, str] = {"Margin": "Margin", "Average/min": "Average"}
#: where accuracy is compared when pairing: the whole probe (the paper's Table 2) or a domain
SCOPES: tuple[str, ...] = ("probe", "domain")
#: the scope name of the whole probe (this build's BEAR sample)
ALL = "the whole probe"
PAIRING_RULE = (
    "Accuracy is that of the Base prediction averaged over all templates (the five "
    "paraphrases), as in the caption of the paper's Table 2. Among the models not yet paired, "
    "the causal-masked pair with the smallest accuracy gap on one scope (the whole probe, or a "
    "BEAR domain) is taken, and this repeats until one side runs out or the smallest gap left "
    "exceeds the largest gap allowed; each model is in at most one pair, and a pair is "
    "compared on the instances of its scope."
)


@dataclass(frozen=True)
class Params(ChapterParams):
    """The clm_vs_mlm chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "clm_vs_mlm"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"),
        "models of either objective (registry names or hub ids)",
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        1, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the BEAR sample and of every bootstrap")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    pair_within: str = parameter(
        "probe", 'pair on accuracy over the whole probe ("probe", Table 2) or per "domain"'
    )
    min_instances: int = parameter(10, "a domain needs this many instances to host a pair")
    max_gap: float | None = parameter(
        0.015, "largest accuracy gap of a pair (Table 2's largest is 0.013; None: no limit)"
    )


@dataclass(frozen=True)
class ClmVsMlmResult:
    """Every frame and number the clm_vs_mlm page shows (:func:`run`)."""

    params: Params
    #: model -> ``clm`` / ``mlm``
    objectives: dict[str, str]
    #: relations and facts per model of the sample
    n_relations: int
    n_facts: int
    #: :func:`model_table` (whole sample, with the accuracy over all templates)
    model_rows: pd.DataFrame
    #: :func:`template_accuracy` on the pairing scope
    accuracy: pd.DataFrame
    #: :func:`pair_models` (within ``max_gap``)
    pairs: pd.DataFrame
    #: :func:`left_out_pairs`: the pairs ``max_gap`` prevents
    left_out: pd.DataFrame
    #: :func:`pair_table`
    pair_rows: pd.DataFrame
    #: :func:`pair_differences`
    differences: pd.DataFrame
    #: :func:`mean_pair_differences`
    mean_differences: pd.DataFrame
    #: :func:`paper_pairs`: this build's values for Table 2's pairs whose two models it ran
    paper_pairs: pd.DataFrame


# ---------------------------------------------------------------------------------------------
# the steps


def relation_domains(relations: Sequence[str] | None = None, *, data_dir=None) -> pd.DataFrame:
    """BEAR's knowledge domains: one row per (``relation``, ``domain``); a relation can be in
    several domains (``bear/relation_info.json``)."""
    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    rows = [(r, d) for r, rel in bear.relations.items() for d in rel.domains]
    return pd.DataFrame(rows, columns=["relation", "domain"])


def scoped(estimates: pd.DataFrame, domains: pd.DataFrame, within: str = "probe") -> pd.DataFrame:
    """``estimates`` with a ``scope`` column: the single scope :data:`ALL`
    (``within="probe"``) or one copy of each row per domain of its relation
    (``within="domain"``)."""
    if within not in SCOPES:
        raise ValueError(f"unknown within {within!r}; expected one of {list(SCOPES)}")
    if within == "probe":
        return estimates.assign(scope=ALL)
    out = estimates.merge(domains.rename(columns={"domain": "scope"}), on="relation", how="inner")
    if out.empty:
        raise ValueError("no relation of the estimates has a knowledge domain")
    return out


def _mean_interval(x: np.ndarray, n_boot: int, seed: int) -> tuple[float, float]:
    """A 95% BCa bootstrap interval of the mean of ``x`` over its entries (NaN with
    ``n_boot`` 0)."""
    if not n_boot or len(x) == 0:
        return float("nan"), float("nan")

    def stat(w: np.ndarray) -> np.ndarray:
        return weighted_accuracy(x, x, w)

    point = float(x.mean())
    return interval(
        point,
        replicates(stat, len(x), n_boot, seed),
        0.95,
        "bca",
        jackknife(stat, len(x)),
        (0.0, 1.0),
    )


def template_accuracy(
    sent: pd.DataFrame,
    objectives: Mapping[str, str],
    domains: pd.DataFrame,
    within: str = "probe",
    templates: Sequence[str] = PARAPHRASES,
    n_boot: int = 0,
    seed: int = 0,
) -> pd.DataFrame:
    """Accuracy of the Base prediction averaged over ``templates`` (default the five paraphrases),
    per model and scope: Table 2's "average over all templates". Every template covers the same
    instances, so this is the mean over templates of each template's accuracy (and the mean over
    instances of each instance's share of correct templates, over which the 95% BCa interval
    ``accuracy_low``, ``accuracy_high`` is bootstrapped; NaN with ``n_boot`` 0). ``sent``: a
    sentence-score table (or its :func:`~calib.confidence.probabilities.template_predictions`).
    Columns ``model``, ``objective``, ``scope``, ``n`` (instances), ``templates``, ``accuracy``,
    ``accuracy_low``, ``accuracy_high``.
    """
    per = sent if "p_top" in sent.columns else template_predictions(sent)
    per = per[per["template"].isin(list(templates))]
    if per.empty:
        raise ValueError(f"none of the templates {list(templates)} is in the table")
    sc = scoped(per[["model", "relation", "instance", "template", "correct"]], domains, within)
    by = ["model", "scope"]
    facts = (
        sc.assign(correct=sc["correct"].astype(float))
        .groupby([*by, "relation", "instance"], sort=True)["correct"]
        .mean()
    )
    out = (
        sc.groupby(by, sort=True)
        .agg(templates=("template", "nunique"))
        .assign(n=facts.groupby(level=by).size(), accuracy=facts.groupby(level=by).mean())[
            ["n", "templates", "accuracy"]
        ]
        .reset_index()
    )
    unknown = sorted(set(out["model"]) - set(objectives))
    if unknown:
        raise ValueError(f"no objective given for model(s) {unknown}")
    out.insert(1, "objective", out["model"].map(dict(objectives)))
    bounds = [
        _mean_interval(facts.loc[(m, s)].to_numpy(float), n_boot, seed)
        for m, s in zip(out["model"], out["scope"])
    ]
    out["accuracy_low"] = [b[0] for b in bounds]
    out["accuracy_high"] = [b[1] for b in bounds]
    return out


PAIR_COLUMNS: tuple[str, ...] = (
    "pair",
    "clm",
    "mlm",
    "scope",
    "n",
    "clm_accuracy",
    "mlm_accuracy",
    "gap",
)


def pair_models(
    accuracy: pd.DataFrame, max_gap: float | None = None, min_instances: int = 1
) -> pd.DataFrame:
    """Pairs of one CLM and one MLM by closest accuracy (see ``PAIRING_RULE``), each
    within ``max_gap`` (``None``: no limit).

    ``accuracy``: :func:`template_accuracy`. Returns one row per pair, in the order they were
    taken: ``pair`` (1, 2, ...), ``clm``, ``mlm``, ``scope``, ``n``, ``clm_accuracy``,
    ``mlm_accuracy``, ``gap``. Empty when one objective has no model or no pair is within
    ``max_gap``.
    """
    acc = accuracy[accuracy["n"] >= min_instances]
    clm = acc[acc["objective"] == "clm"]
    mlm = acc[acc["objective"] == "mlm"]
    cols = list(PAIR_COLUMNS)
    if clm.empty or mlm.empty:
        return pd.DataFrame(columns=cols)
    cand = clm.merge(mlm, on="scope", suffixes=("_clm", "_mlm"))
    cand = cand.assign(gap=(cand["accuracy_clm"] - cand["accuracy_mlm"]).abs().round(12))
    cand = cand.sort_values(["gap", "scope", "model_clm", "model_mlm"], kind="stable")
    used: set[str] = set()
    rows: list[tuple] = []
    for c in cand.itertuples(index=False):
        if c.model_clm in used or c.model_mlm in used:
            continue
        if max_gap is not None and c.gap > max_gap:
            break
        used |= {c.model_clm, c.model_mlm}
        rows.append(
            (
                len(rows) + 1,
                c.model_clm,
                c.model_mlm,
                c.scope,
                int(c.n_clm),
                c.accuracy_clm,
                c.accuracy_mlm,
                c.gap,
            )
        )
    return pd.DataFrame(rows, columns=cols)


def left_out_pairs(
    accuracy: pd.DataFrame, pairs: pd.DataFrame, min_instances: int = 1
) -> pd.DataFrame:
    """The pairs the rule would form without a gap limit among the models ``pairs`` leaves
    unpaired (:func:`pair_models` with no ``max_gap`` on them): what ``max_gap`` prevents,
    with their gaps (columns of :func:`pair_models`)."""
    paired = set(pairs["clm"]) | set(pairs["mlm"])
    rest = accuracy[~accuracy["model"].isin(paired)]
    return pair_models(rest, None, min_instances)


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
    """Table 2's layout: for each pair, one row per model (CLM first) with ``pair``,
    ``model``, ``objective``, ``scope``, ``accuracy_templates`` (the pairing accuracy,
    averaged over all templates, from ``pairs``; with ``accuracy``, the
    :func:`template_accuracy` of the same scope, also its interval ``accuracy_templates_low``,
    ``_high``), ``n``, ``accuracy`` (Base, plain template) and the Brier score of Margin
    (``brier_margin``) and Average/min (``brier_average``), the last three with a bootstrap
    interval (``_low``/``_high``) over the instances of the pair's scope."""
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
    (:func:`template_accuracy` with ``within="probe"``) the accuracy over all templates
    (``accuracy_templates`` with its interval: what is set beside Table 2 and Table 3), then
    ``n``, the Base accuracy on the plain template and the Brier scores of Margin and
    Average/min with intervals (the rows a build without masked models can show)."""
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
    return frame[list(FACT)].astype(str).agg("|".join, axis=1).to_numpy()


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
    """:func:`model_table` or :func:`pair_table` rows in long form for a bar chart: ``model``,
    ``estimator``, ``brier``, ``low``, ``high`` (one row per model and estimator)."""
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


def run(params: Params) -> ClmVsMlmResult:
    """The chapter with ``params``: score the five paraphrases
    (:func:`calib.scoring.run.score_bear`, shared with the calibration chapter through the
    score cache), estimate Base, Margin and Average/min, pair the models by their accuracy over
    all templates and compare each pair's Brier scores.

    Parameters
    ----------
    params : calib.experiments.clm_vs_mlm.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.clm_vs_mlm.ClmVsMlmResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    relations = list(p.relations) if p.relations else None
    scores = score_bear(list(p.models), "paraphrase-0..4", p.per_relation, p.seed, relations)
    objectives = model_objectives(list(p.models))
    sent = sentence_scores(scores)
    est = clm_mlm_estimates(sent)
    domains = relation_domains(relations)
    whole = template_accuracy(sent, objectives, domains, "probe", n_boot=p.n_bootstrap, seed=p.seed)
    acc = (
        whole
        if p.pair_within == "probe"
        else template_accuracy(
            sent, objectives, domains, p.pair_within, n_boot=p.n_bootstrap, seed=p.seed
        )
    )
    rows = model_table(est, objectives, p.n_bootstrap, p.seed, accuracy=whole)
    pairs = pair_models(acc, p.max_gap, p.min_instances)
    return ClmVsMlmResult(
        params=p,
        objectives=objectives,
        n_relations=int(scores["relation"].nunique()),
        n_facts=facts_per_model(scores),
        model_rows=rows,
        accuracy=acc,
        pairs=pairs,
        left_out=left_out_pairs(acc, pairs, p.min_instances),
        pair_rows=pair_table(
            est, pairs, domains, p.pair_within, p.n_bootstrap, p.seed, accuracy=acc
        ),
        differences=pair_differences(est, pairs, domains, p.pair_within, p.n_bootstrap, p.seed),
        mean_differences=mean_pair_differences(
            est, pairs, domains, p.pair_within, p.n_bootstrap, p.seed
        ),
        paper_pairs=paper_pairs(reported("kissling2026_table2"), rows, whole),
    )


# ---------------------------------------------------------------------------------------------
# the claims of §5.3 and §1: evidence from Table 2 as printed and from this build, and rules

#: where the paper's evidence comes from
TABLE2_SOURCE = "Table 2, printed values (12 rows, 6 pairs)"
#: §5.3 says "five model pairs"; Table 2 prints six
FIVE_PAIRS_NOTE = (
    '§5.3 speaks of "all five model pairs", but Table 2 prints six; the '
    "paper's side judges the six printed pairs"
)
BUILD_SOURCE = "this build, 95% paired bootstrap intervals over the instances of each pair's scope"
#: what would test the claims where a build has no pair
NEEDS = (
    "a masked LM and a causal LM of similar accuracy, e.g. opt-125m with roberta-base: "
    "`calib book --profile paper`"
)


def no_pair_reason(result: ClmVsMlmResult) -> str:
    """Why ``result`` has no causal-masked pair: no masked (or causal) model, or none within
    ``max_gap`` (naming the closest pair left out)."""
    kinds = set(result.objectives.values())
    if "mlm" not in kinds:
        return (
            f"this build has no masked model (its models: "
            f"{', '.join(result.objectives)}), so no pair of similar accuracy is formed"
        )
    if "clm" not in kinds:
        return "this build has no causal model, so no pair is formed"
    gap = result.params.max_gap
    if len(result.left_out):
        c = result.left_out.iloc[0]
        return (
            f"no causal-masked pair within the largest accuracy gap {gap:g} (the closest: "
            f"{c['clm']} and {c['mlm']}, gap {c['gap']:.3f})"
        )
    return "no causal-masked pair was formed (no scope with enough instances)"


def _pair_label(clm: str, mlm: str) -> str:
    return f"{clm} vs {mlm}"


def table2_gaps() -> pd.DataFrame:
    """Table 2's pairs with their printed accuracies as fractions: ``pair``, ``clm``, ``mlm``
    (registry names), ``clm_accuracy``, ``mlm_accuracy``, ``gap`` (absolute difference; where
    the default ``max_gap`` comes from)."""
    t2 = reported("kissling2026_table2")
    clm = t2[t2["objective"] == "CLM"].set_index("pair")
    mlm = t2[t2["objective"] == "MLM"].set_index("pair")
    out = pd.DataFrame(
        {
            "clm": clm["registry_name"],
            "mlm": mlm["registry_name"],
            "clm_accuracy": (clm["accuracy"] / 100).round(6),
            "mlm_accuracy": (mlm["accuracy"] / 100).round(6),
        }
    )
    out["gap"] = (out["clm_accuracy"] - out["mlm_accuracy"]).abs().round(12)
    return out.reset_index()


def _paper_differences() -> pd.DataFrame:
    """Table 2 per pair and estimator: ``pair`` ("opt-125m vs roberta-base"), ``estimator``
    (Margin, Average), ``mlm_minus_clm`` (Brier) and the pair's accuracy ``gap`` (fraction)."""
    d = pair_brier_differences()
    gaps = table2_gaps().set_index("pair")["gap"]
    rows = [
        {
            "pair": _pair_label(r.clm, r.mlm),
            "estimator": est,
            "mlm_minus_clm": getattr(r, col),
            "gap": float(gaps[r.pair]),
        }
        for r in d.itertuples()
        for est, col in (("Margin", "margin"), ("Average", "average"))
    ]
    return pd.DataFrame(rows)


def _build_differences(result: ClmVsMlmResult) -> pd.DataFrame:
    """This build's pair-estimator rows: ``pair``, ``estimator``, ``clm_minus_mlm`` with
    ``low``/``high``, and the pair's accuracy ``gap``."""
    d = result.differences
    gaps = result.pairs.set_index("pair")["gap"]
    return pd.DataFrame(
        {
            "pair": [_pair_label(c, m) for c, m in zip(d["clm"], d["mlm"])],
            "estimator": d["estimator"].map(PAPER_ESTIMATORS),
            "difference": d["difference"].astype(float),
            "low": d["low"].astype(float),
            "high": d["high"].astype(float),
            "gap": d["pair"].map(gaps).astype(float).to_numpy(),
        }
    )


def _units(frame: pd.DataFrame) -> pd.DataFrame:
    """``unit`` = "pair, estimator"."""
    out = frame.copy()
    out.insert(0, "unit", out["pair"] + ", " + out["estimator"])
    return out


def _untestable_if_empty(evidence: Evidence, unit: str) -> Judgement | None:
    if len(evidence.frame):
        return None
    return Judgement.untestable(
        evidence.missing or f"the evidence has no {unit}", evidence=evidence.source
    )


def _status_counts(status: pd.Series) -> tuple[int, int, int]:
    return (int((status == SUPPORTS).sum()), int((status == CONTRADICTS).sum()), len(status))


_STATUS_OF = {HOLDS: SUPPORTS, FAILS: CONTRADICTS, UNDECIDED: OPEN}


def nested_verdict(frame: pd.DataFrame, status: pd.Series, group: str) -> tuple[Verdict, pd.Series]:
    """A claim about *every* group of units, each group judged as a claim about *most* of its
    units (:func:`calib.experiments.quantifiers.most_verdict`: more than half support it;
    contradicted when even every undecided unit counted as support would be at most half).
    Returns the verdict over the groups (:func:`~calib.experiments.quantifiers.every_verdict`)
    and each group's status."""
    groups = {}
    for g, part in status.groupby(frame[group], sort=False):
        groups[g] = _STATUS_OF[quantifiers.most_verdict(*_status_counts(part))]
    per = pd.Series(groups, name="status")
    return quantifiers.every_verdict(*_status_counts(per)), per


def _nested_judgement(
    evidence: Evidence,
    status: pd.Series,
    *,
    claim: str,
    group: str,
    group_unit: str,
    members: str,
    inner_unit: str,
) -> Judgement:
    frame = evidence.frame
    verdict, per = nested_verdict(frame, status, group)
    s, c, n = _status_counts(status)
    gs, gc, gn = _status_counts(per)
    where = f" ({evidence.source})" if evidence.source else ""
    text = (
        f"{claim}{where}: each {group_unit} judged on most of its {members}: "
        f"{unit_tally(gs, gc, gn, group_unit)}; over the {inner_unit}s: "
        f"{unit_tally(s, c, n, inner_unit)}"
    )
    if n <= 2 * MAX_NAMED:
        text += f" ({named(frame, 2 * MAX_NAMED)})"
    elif c:
        text += f"; against it: {named(frame[status == CONTRADICTS])}"
    if "gap" in frame.columns and len(frame):
        text += f"; largest accuracy gap of a pair {frame['gap'].max():.3f}"
    reason = ""
    if verdict == UNDECIDED:
        open_ = list(per[per == OPEN].index)
        reason = (
            f"{len(open_)} {group_unit}(s) undecided (their 95% intervals decide most "
            f"of their {members} neither way): {', '.join(map(str, open_))}"
        )
    return Judgement(verdict, text, reason)


# clm_better: "CLMs are much better calibrated using most of our estimates (see Table 2)"


def clm_lower_brier(evidence: Evidence) -> Judgement:
    """``clm_better``: in every pair of similar accuracy the CLM has the lower Brier score
    (``Brier(CLM) - Brier(MLM) < 0``) with most of the estimates Table 2 compares (C_Margin,
    C_Average). "Most" applies to the estimates within a pair, as the sentence reads ("CLMs are
    much better calibrated using most of our estimates"); with two estimates, more than half
    is both. The pairs are the sentence's subject ("CLMs", "across all five model pairs"): a
    claim about every pair. Needs a ``pair`` column."""
    empty = _untestable_if_empty(evidence, "pair")
    if empty:
        return empty
    status = quantifiers.unit_status(evidence.frame, "<", 0.0)
    return _nested_judgement(
        evidence,
        status,
        claim="Brier(CLM) - Brier(MLM) < 0",
        group="pair",
        group_unit="pair",
        members="estimates",
        inner_unit="pair-estimator",
    )


def clm_lower_brier_paper() -> Evidence:
    d = _paper_differences().assign(value=lambda f: -f["mlm_minus_clm"])
    frame = printed(d, "value", ["pair", "estimator"])
    return Evidence(frame.drop(columns=["mlm_minus_clm", "value"]), TABLE2_SOURCE)


def clm_lower_brier_build(result: ClmVsMlmResult) -> Evidence:
    if result.differences.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    return Evidence(_units(_build_differences(result)), BUILD_SOURCE)


# pair_differences_large: "often reaching differences of approximately 0.1 to 0.2"


def large_band() -> tuple[float, float]:
    """The differences "approximately 0.1 to 0.2" (``pair_difference_low``, ``_high`` of the
    paper's text numbers) read at the precision the sentence states, one decimal: those that
    round to a value from 0.1 to 0.2, ``[0.05, 0.25)`` (the reading of
    :func:`calib.experiments.paper_tables.consistency_checks`)."""
    return (text_value("pair_difference_low") - 0.05, text_value("pair_difference_high") + 0.05)


def band_status(frame: pd.DataFrame, lower: float, upper: float) -> pd.Series:
    """Per unit: :data:`~calib.experiments.quantifiers.SUPPORTS` when its whole interval lies in
    ``[lower, upper)``, :data:`~calib.experiments.quantifiers.CONTRADICTS` when it all lies outside
    it (below ``lower`` or from ``upper`` on), undecided otherwise (also with a missing
    interval)."""
    low, high = frame["low"].to_numpy(float), frame["high"].to_numpy(float)
    supports = (low >= lower) & (high < upper)
    contradicts = (high < lower) | (low >= upper)
    return pd.Series(
        np.where(supports, SUPPORTS, np.where(contradicts, CONTRADICTS, OPEN)),
        index=frame.index,
        name="status",
    )


def differences_large(evidence: Evidence) -> Judgement:
    """``pair_differences_large``: for C_Margin and for C_Average, the Brier difference MLM - CLM is
    "often" about 0.1 to 0.2: for each estimator, more than half of the pairs
    (:func:`~calib.experiments.quantifiers.most_verdict`; "often" read as "in most pairs") have a
    difference in :func:`large_band`; the claim needs it for both estimators. Needs an ``estimator``
    column."""
    empty = _untestable_if_empty(evidence, "pair-estimator")
    if empty:
        return empty
    lower, upper = large_band()
    status = band_status(evidence.frame, lower, upper)
    return _nested_judgement(
        evidence,
        status,
        claim=f"{lower:g} <= Brier(MLM) - Brier(CLM) < {upper:g} (rounds to 0.1-0.2)",
        group="estimator",
        group_unit="estimator",
        members="pairs",
        inner_unit="pair-estimator",
    )


def differences_large_paper() -> Evidence:
    frame = printed(_paper_differences(), "mlm_minus_clm", ["pair", "estimator"])
    return Evidence(frame.drop(columns=["mlm_minus_clm"]), TABLE2_SOURCE)


def differences_large_build(result: ClmVsMlmResult) -> Evidence:
    if result.differences.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    d = _build_differences(result)
    d = d.assign(difference=-d["difference"], low=-d["high"], high=-d["low"])
    return Evidence(_units(d), BUILD_SOURCE + " (MLM - CLM)")


# clm_brier_02: "all CLMs achieve a Brier Score of 0.2 or lower, while none of the MLMs do"


def brier_bound_status(frame: pd.DataFrame, bound: float) -> pd.Series:
    """Per model-estimator unit (column ``objective``): a CLM supports the claim when its whole
    interval is at most ``bound`` and contradicts it when all of it is above; an MLM the other
    way round ("none of the MLMs do")."""
    clm = quantifiers.unit_status(frame, "<=", bound)
    mlm = quantifiers.unit_status(frame, ">", bound)
    return clm.where(frame["objective"].to_numpy() == "clm", mlm)


def brier_bound(evidence: Evidence) -> Judgement:
    """``clm_brier_02``: with C_Margin and C_Average every CLM of a pair has a Brier score of
    at most 0.2 (``clm_brier_bound`` of the paper's text numbers) and every MLM one above it:
    holds iff every model-estimator unit supports it, does not hold as soon as one contradicts
    it; CLMs and MLMs both required."""
    frame = evidence.frame
    bound = text_value("clm_brier_bound")
    empty = _untestable_if_empty(evidence, "model-estimator")
    if empty:
        return empty
    status = brier_bound_status(frame, bound)
    s, c, n = _status_counts(status)
    where = f" ({evidence.source})" if evidence.source else ""
    text = (
        f"Brier <= {bound:g} for every CLM and > {bound:g} for every MLM{where}: "
        f"{unit_tally(s, c, n, 'model-estimator')}"
    )
    text += f"; against it: {named(frame[status == CONTRADICTS])}" if c else f" ({named(frame)})"
    if c:
        return Judgement(FAILS, text)
    lacking = [o.upper() for o in ("clm", "mlm") if o not in set(frame["objective"])]
    if lacking:
        return Judgement.untestable(
            evidence.missing or f"the evidence has no {' or '.join(lacking)}", text
        )
    verdict = quantifiers.every_verdict(s, c, n)
    reason = (
        ""
        if verdict != UNDECIDED
        else (
            f"the 95% interval includes {bound:g} for {n - s - c} model-estimator(s): "
            + named(frame[status == OPEN])
        )
    )
    return Judgement(verdict, text, reason)


def brier_bound_paper() -> Evidence:
    t2 = reported("kissling2026_table2")
    long = pd.concat(
        [
            pd.DataFrame(
                {
                    "model": t2["registry_name"],
                    "objective": t2["objective"].str.lower(),
                    "estimator": est,
                    "brier": t2[col],
                }
            )
            for est, col in (("Margin", "brier_margin"), ("Average", "brier_average"))
        ],
        ignore_index=True,
    )
    frame = printed(
        long.assign(label=long["model"] + " (" + long["objective"].str.upper() + ")"),
        "brier",
        ["label", "estimator"],
    )
    return Evidence(frame.drop(columns=["label", "brier"]), TABLE2_SOURCE)


def brier_bound_build(result: ClmVsMlmResult) -> Evidence:
    rows = result.pair_rows
    if rows.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    parts = []
    for est, col in zip(ESTIMATORS, ("brier_margin", "brier_average")):
        parts.append(
            pd.DataFrame(
                {
                    "unit": rows["model"]
                    + " ("
                    + rows["objective"].str.upper()
                    + "), "
                    + PAPER_ESTIMATORS[est],
                    "model": rows["model"],
                    "objective": rows["objective"],
                    "estimator": est,
                    "difference": rows[col].astype(float),
                    "low": rows[f"{col}_low"].astype(float),
                    "high": rows[f"{col}_high"].astype(float),
                }
            )
        )
    return Evidence(
        pd.concat(parts, ignore_index=True),
        "this build's pairs, 95% BCa bootstrap intervals over each pair's instances",
    )


# reliability_gap (§1): "MLMs—despite competitive factual accuracy—remain fundamentally less
# aware of their own knowledge than CLMs"


def reliability_gap(evidence: Evidence) -> Judgement:
    """``reliability_gap``: at matched ("competitive") accuracy, MLMs are on average worse
    calibrated than CLMs: for each estimator of Table 2, the mean over the pairs of
    ``Brier(MLM) - Brier(CLM)`` is above 0 (one unit per estimator, each the mean over
    pairs)."""
    return quantifiers.every(
        evidence, ">", 0.0, what="mean over the pairs of Brier(MLM) - Brier(CLM)", unit="estimator"
    )


def reliability_gap_paper() -> Evidence:
    d = _paper_differences()
    rows = []
    for est, part in d.groupby("estimator", sort=False):
        m = quantifiers.mean_of_printed(
            part.rename(columns={"mlm_minus_clm": "difference"}),
            f"{est} (mean over {len(part)} pairs)",
        )
        rows.append(m)
    return Evidence(pd.concat(rows, ignore_index=True), TABLE2_SOURCE + ", means over pairs")


def reliability_gap_build(result: ClmVsMlmResult) -> Evidence:
    m = result.mean_differences
    if m.empty:
        return Evidence.empty(no_pair_reason(result), BUILD_SOURCE)
    units = [
        f"{PAPER_ESTIMATORS[e]} (mean over {n} pair{'s' if n != 1 else ''})"
        for e, n in zip(m["estimator"], m["n_pairs"])
    ]
    frame = pd.DataFrame(
        {
            "unit": units,
            "difference": m["difference"].astype(float),
            "low": m["low"].astype(float),
            "high": m["high"].astype(float),
        }
    )
    return Evidence(
        frame,
        f"this build, 95% paired bootstrap over the sample's facts "
        f"({result.params.n_bootstrap} resamples, BCa)",
    )


CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="reliability_gap",
        paper="kissling2026",
        section="§1",
        quote="MLMs—despite competitive factual accuracy—remain fundamentally less aware of "
        "their own knowledge than CLMs",
        statement="At similar accuracy, masked models are worse calibrated than causal ones: "
        "for C_Margin and for C_Average, the mean over the accuracy-matched pairs "
        "of Brier(MLM) - Brier(CLM) is above 0",
        quantifier="on average",
        metrics=("brier",),
        about="pairs of a CLM and an MLM of similar accuracy (Table 2)",
        chapter="clm_vs_mlm",
        rule=reliability_gap,
        paper_evidence=reliability_gap_paper,
        build_evidence=reliability_gap_build,
        needs=NEEDS,
    ),
    Claim(
        key="clm_better",
        paper="kissling2026",
        section="§5.3",
        quote="we find that CLMs are much better calibrated using most of our estimates",
        statement="In every pair of a CLM and an MLM of similar accuracy, the CLM has the "
        "lower Brier score with most of the estimates of Table 2 (C_Margin, "
        "C_Average: with two, both)",
        quantifier="most",
        metrics=("brier",),
        about="pairs of a CLM and an MLM of similar accuracy (within max_gap)",
        chapter="clm_vs_mlm",
        rule=clm_lower_brier,
        paper_evidence=clm_lower_brier_paper,
        build_evidence=clm_lower_brier_build,
        paper_note=FIVE_PAIRS_NOTE,
        needs=NEEDS,
    ),
    Claim(
        key="pair_differences_large",
        paper="kissling2026",
        section="§5.3",
        quote="Across all five model pairs, we observe substantial calibration differences, "
        "often reaching differences of approximately 0.1 to 0.2 for $C_{\\text{Margin}}$ "
        "and $C_{\\text{Average}}$.",
        statement="For C_Margin and for C_Average, the Brier difference MLM - CLM rounds to "
        '0.1-0.2 (lies in [0.05, 0.25)) in most pairs ("often")',
        quantifier="most",
        metrics=("brier",),
        about="pairs of a CLM and an MLM of similar accuracy, per estimator",
        chapter="clm_vs_mlm",
        rule=differences_large,
        paper_evidence=differences_large_paper,
        build_evidence=differences_large_build,
        paper_note=FIVE_PAIRS_NOTE,
        needs=NEEDS,
    ),
    Claim(
        key="clm_brier_02",
        paper="kissling2026",
        section="§5.3",
        quote="For $C_{\\text{Margin}}$ and $C_{\\text{Average}}$, all CLMs achieve a Brier "
        "Score of 0.2 or lower, while none of the MLMs do.",
        statement="With C_Margin and with C_Average every CLM of a pair has a Brier score of "
        "at most 0.2 and no MLM does",
        quantifier="every",
        metrics=("brier",),
        about="the models of the pairs (Table 2)",
        chapter="clm_vs_mlm",
        rule=brier_bound,
        paper_evidence=brier_bound_paper,
        build_evidence=brier_bound_build,
        paper_note="the paper's own Table 2 is against the sentence for the units named above",
        needs=NEEDS,
    ),
)
