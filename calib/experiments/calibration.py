"""Calibration of the confidence estimates (Kissling et al. 2026, §5.1, Table 1, Figures 2, 9, 10).

From one BEAR score table (several models, at least the five paraphrase templates) to the frames
the calibration chapter shows:

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`estimates`                   every estimator (Base, Margin, Average, Consistency,
                                    Entropy) per model: an estimate table
:func:`calibration_table`           ACE, Brier and accuracy per model and estimator with
                                    bootstrap intervals (Table 1)
:func:`calibration_curves`          per-bin accuracy against confidence (Figure 2)
:func:`rejection_curves`            accuracy of the kept instances per threshold (Figure 10)
:func:`ace_accuracy_correlation`    correlation of ACE with accuracy across models, with a
                                    bootstrap interval (Figure 9)
:func:`estimator_comparisons`       paired bootstrap differences of ACE between estimators
:func:`claim_checks`                the paper's two claims (Margin better than Base; Average
                                    best) checked per model from those differences
==================================  ==========================================================

All functions are pure: score or estimate tables in, tidy frames out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import correlation_interval, paired_estimates_difference
from calib.confidence.estimators import all_estimates
from calib.confidence.metrics import (
    N_BINS,
    accuracy_rejection_curve,
    calibration_curve,
)
from calib.confidence.reductions import sentence_scores
from calib.confidence.summary import summary
from calib.confidence.schema import ESTIMATE_COLUMNS, INSTANCE, require_columns
from calib.data.bear import PARAPHRASES, PLAIN
from calib.experiments.claims import Claim
from calib.experiments.paper_tables import calib_estimator, table1_long, table1_wide
from calib.experiments.quantifiers import Evidence, every, every_verdict, printed
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, Verdict

#: the single-template estimators and the multi-template ones (named ``<name>/<aggregation>``)
SINGLE_ESTIMATORS: tuple[str, ...] = ("Base", "Margin")
MULTI_ESTIMATORS: tuple[str, ...] = ("Average", "Consistency", "Entropy")
#: the thresholds of the accuracy-rejection curves (Figure 10)
REJECTION_THRESHOLDS: tuple[float, ...] = tuple(round(0.1 * k, 1) for k in range(1, 10))
#: fewest models for which a correlation across models is computed (more than three)
MIN_MODELS_FOR_CORRELATION = 4
#: the two claims of §5.1 that :func:`claim_checks` tests per model, as the chapter's text words
#: them (the ledger's definitions of the claims are :data:`CLAIMS`)
CLAIM_WORDING: dict[str, str] = {
    "margin": "Margin-Confidence is better calibrated (has a lower ACE) than Base-Confidence",
    "average": "Average-Confidence is the best calibrated of the estimators (has the lowest "
               "ACE)",
}


def estimator_names(aggregations: Sequence[str] = ("min",)) -> list[str]:
    """The estimator names :func:`estimates` produces, in display order: ``Base``, ``Margin``,
    then ``Average/<agg>``, ``Consistency/<agg>``, ``Entropy/<agg>`` for each aggregation."""
    return [*SINGLE_ESTIMATORS,
            *[f"{name}/{agg}" for agg in aggregations for name in MULTI_ESTIMATORS]]


#: a confidence estimator of one's own: sentence-score table in, estimate table out (one row
#: per instance with ``prediction``, ``correct``, ``confidence``; see calib.confidence.schema)
Estimator = Callable[[pd.DataFrame], pd.DataFrame]


def estimates(scores: pd.DataFrame, reduction: str = "sum",
              aggregations: Sequence[str] = ("min",), template: str = PLAIN,
              paraphrases: Sequence[str] = PARAPHRASES,
              extra_estimators: Mapping[str, Estimator] | None = None) -> pd.DataFrame:
    """Every estimator of §3 on a score table: Base and Margin (Eqs. 1-2) on ``template``,
    Average, Consistency and Entropy (Eqs. 3-7) over ``paraphrases`` for each aggregation.

    Templates other than ``template`` and ``paraphrases`` are dropped first (a table scored with
    all 12 templates can be passed as it is). Returns the estimate table of
    :func:`calib.confidence.estimators.all_estimates`, the ``estimator`` column ordered as
    :func:`estimator_names`, then ``extra_estimators``: ``{name: function}``, each function
    called with the sentence-score table (those templates, ``reduction``) and returning an
    estimate table (:func:`extra_estimates`), shown after the paper's estimators.
    """
    require_columns(scores, ("template",), "score table")
    wanted = [template, *[p for p in paraphrases if p != template]]
    missing = [t for t in wanted if t not in set(scores["template"])]
    if missing:
        raise ValueError(f"the score table lacks template(s) {missing}; the calibration "
                         f"estimators need {wanted}")
    sent = sentence_scores(scores[scores["template"].isin(wanted)], reduction)
    est = all_estimates(sent, template=template, paraphrases=list(paraphrases),
                        aggregations=list(aggregations))
    extra = extra_estimates(sent, extra_estimators or {}, est)
    if len(extra):
        est = pd.concat([est, extra], ignore_index=True)
        if "rejected" in est.columns:  # an estimator of one's own answers every instance
            est["rejected"] = est["rejected"].astype("boolean").fillna(False).astype(bool)
    models = list(dict.fromkeys(scores["model"]))
    est["model"] = pd.Categorical(est["model"], categories=models, ordered=True)
    est["estimator"] = pd.Categorical(
        est["estimator"], categories=[*estimator_names(aggregations), *(extra_estimators or {})],
        ordered=True)
    est = est.sort_values(["model", "estimator", *INSTANCE[1:]], kind="stable",
                          ignore_index=True)
    return est.astype({"model": str, "estimator": str})


def extra_estimates(sent: pd.DataFrame, estimators: Mapping[str, Estimator],
                    like: pd.DataFrame | None = None) -> pd.DataFrame:
    """The estimate tables of one's own ``estimators`` (``{name: function}``) on a
    sentence-score table, with an ``estimator`` column: each function must return one row per
    instance with the columns of :data:`calib.confidence.schema.ESTIMATE_COLUMNS` and a
    confidence in [0, 1]; anything else is a ``ValueError`` naming the estimator. ``like``
    (another estimate table) must then cover the same instances."""
    parts = []
    for name, fn in estimators.items():
        out = fn(sent)
        require_columns(out, ESTIMATE_COLUMNS, f"estimator {name!r}'s result",
                        hint="return one row per instance: model, dataset, relation, "
                             "instance, prediction, correct, confidence")
        if out.duplicated(list(INSTANCE)).any():
            raise ValueError(f"estimator {name!r} returned several rows for one instance")
        conf = out["confidence"].to_numpy(dtype=float)
        if not (np.isfinite(conf).all() and (conf >= 0).all() and (conf <= 1).all()):
            raise ValueError(f"estimator {name!r} returned confidences outside [0, 1]")
        if like is not None:
            have = len(out.merge(like[list(INSTANCE)].drop_duplicates(), on=list(INSTANCE)))
            want = len(like[list(INSTANCE)].drop_duplicates())
            if have != want or len(out) != want:
                raise ValueError(f"estimator {name!r} returned {len(out)} instances; the "
                                 f"other estimators have {want}")
        parts.append(out[[*ESTIMATE_COLUMNS]].assign(
            estimator=name, correct=out["correct"].astype(bool), confidence=conf))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _ordered(frame: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s rows in the order in which models and estimators first appear in ``like``."""
    out = frame.copy()
    for col in ("model", "estimator"):
        rank = {v: i for i, v in enumerate(dict.fromkeys(like[col]))}
        out[f"_{col}"] = out[col].map(rank)
    return out.sort_values(["_model", "_estimator"], kind="stable") \
        .drop(columns=["_model", "_estimator"]).reset_index(drop=True)


def calibration_table(est: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0,
                      n_bins: int = N_BINS) -> pd.DataFrame:
    """Table 1 of this run: per model and estimator the ACE (``n_bins`` quantile bins), the
    Brier score and the accuracy (§4.3), each with a 95% bootstrap interval over
    instances (``n_bootstrap`` resamples; 0 skips them), the number of instances ``n`` and the
    voting rejection rate. Estimators of one model share their resamples (paired intervals)."""
    table = summary(est, by=["model", "estimator"], n_bins=n_bins, n_boot=n_bootstrap,
                    seed=seed, metrics=("ace", "brier", "accuracy"))
    return _ordered(table, est)


def calibration_curves(est: pd.DataFrame, estimators: Sequence[str] | None = None,
                       n_bins: int = N_BINS, strategy: str = "quantile",
                       by: Sequence[str] = ("model", "estimator")) -> pd.DataFrame:
    """Calibration-curve data (Figure 2): for each group of ``by`` (default model and
    estimator; ``estimators`` selects some, ``None`` all) one row per non-empty bin with
    ``bin``, ``lower``, ``upper``, ``count``, ``mean_confidence`` and ``accuracy``
    (:func:`calib.confidence.metrics.calibration_curve`)."""
    require_columns(est, (*by, "confidence", "correct"), "estimate table")
    if estimators is not None:
        unknown = [e for e in estimators if e not in set(est["estimator"])]
        if unknown:
            raise ValueError(f"estimator(s) {unknown} not in the estimate table; it has "
                             f"{sorted(est['estimator'].unique())}")
        est = est[est["estimator"].isin(list(estimators))]
    parts = []
    for keys, part in est.groupby(list(by), sort=False):
        keys = keys if isinstance(keys, tuple) else (keys,)
        curve = calibration_curve(part["confidence"], part["correct"].astype(bool), n_bins,
                                  strategy)
        parts.append(curve.assign(**dict(zip(by, keys))))
    out = pd.concat(parts, ignore_index=True)
    return out[[*by, *[c for c in out.columns if c not in by]]]


def rejection_curves(est: pd.DataFrame, thresholds: Sequence[float] = REJECTION_THRESHOLDS
                     ) -> pd.DataFrame:
    """Accuracy-rejection curves (Figure 10): per model and estimator, for each threshold the
    share of instances rejected (confidence below it) and the accuracy of the rest. Thresholds
    at which no instance is kept are left out (no accuracy to show)."""
    require_columns(est, ("model", "estimator", "confidence", "correct"), "estimate table")
    parts = []
    for (model, estimator), part in est.groupby(["model", "estimator"], sort=False):
        curve = accuracy_rejection_curve(part["confidence"], part["correct"].astype(bool),
                                         list(thresholds))
        parts.append(curve.assign(model=model, estimator=estimator))
    out = pd.concat(parts, ignore_index=True)
    out = out[out["kept"] > 0]
    return out[["model", "estimator", "threshold", "rejected", "kept", "accuracy"]] \
        .reset_index(drop=True)


def ace_accuracy_correlation(table: pd.DataFrame, estimators: Sequence[str] | None = None,
                             method: str = "pearson", n_bootstrap: int = 1000, seed: int = 0,
                             min_models: int = MIN_MODELS_FOR_CORRELATION,
                             accuracy: str = "accuracy", ace: str = "ace",
                             unit: str = "model") -> pd.DataFrame:
    """The correlation of ACE with accuracy across models (Figure 9), per estimator, with a
    95% BCa bootstrap interval from resampling the models
    (:func:`calib.confidence.bootstrap.correlation_interval`).

    ``table`` has one row per model and estimator (e.g. :func:`calibration_table`). With fewer
    than ``min_models`` models (default: more than three are needed) nothing is computed and
    ``note`` says why. Columns: ``estimator``, ``n`` (models), ``method``, ``r``, ``low``,
    ``high``, ``n_used`` (resamples with a defined correlation), ``note``."""
    require_columns(table, (unit, "estimator", accuracy, ace), "calibration table")
    names = list(dict.fromkeys(table["estimator"])) if estimators is None else list(estimators)
    rows = []
    for name in names:
        part = table[table["estimator"] == name]
        n = part[unit].nunique()
        if len(part) != n:
            raise ValueError(f"estimator {name!r} has several rows for one {unit}")
        row = {"estimator": name, "n": n, "method": method, "r": np.nan,
               "low": np.nan, "high": np.nan, "n_used": 0, "note": ""}
        if n < min_models:
            row["note"] = (f"not computed: only {n} model(s) ran, and a correlation across "
                           f"models needs at least {min_models}")
        elif part[accuracy].nunique() < 2 or part[ace].nunique() < 2:
            row["note"] = "not computed: accuracy or ACE is the same for every model"
        else:
            res = correlation_interval(part[accuracy].to_numpy(float), part[ace].to_numpy(float),
                                       method=method, n_boot=n_bootstrap, seed=seed)
            row.update(r=res["r"], low=res["low"], high=res["high"], n_used=res["n_used"])
            row["note"] = f"{method} correlation over {n} models; interval from {n_bootstrap} " \
                          f"resamples of the models"
        rows.append(row)
    return pd.DataFrame(rows, columns=["estimator", "n", "method", "r", "low", "high", "n_used",
                                       "note"])


def _one(est: pd.DataFrame, model: str, estimator: str) -> pd.DataFrame:
    part = est[(est["model"] == model) & (est["estimator"] == estimator)]
    if part.empty:
        raise ValueError(f"no estimates of {estimator!r} for model {model!r}")
    return part


def estimator_comparisons(est: pd.DataFrame, pairs: Sequence[tuple[str, str]],
                          metric: str = "ace", n_bootstrap: int = 1000, seed: int = 0,
                          n_bins: int = N_BINS) -> pd.DataFrame:
    """Paired bootstrap differences ``metric(a) - metric(b)`` on the same instances, for each
    model and each ``(a, b)`` pair of estimators
    (:func:`calib.confidence.bootstrap.paired_estimates_difference`). Columns ``model``,
    ``a``, ``b``, ``metric``, ``difference``, ``low``, ``high`` (95% interval), ``p_value``,
    ``n``, ``n_boot``."""
    if n_bootstrap < 1:
        raise ValueError("estimator_comparisons needs n_bootstrap >= 1 (a paired bootstrap)")
    rows = []
    for model in dict.fromkeys(est["model"]):
        for a, b in pairs:
            res = paired_estimates_difference(_one(est, model, a), _one(est, model, b), metric,
                                              n_boot=n_bootstrap, seed=seed, n_bins=n_bins)
            rows.append({"model": model, "a": a, "b": b, **res})
    return pd.DataFrame(rows, columns=["model", "a", "b", "metric", "difference", "low", "high",
                                       "p_value", "n", "n_boot"])


def claim_pairs(aggregation: str = "min") -> dict[str, list[tuple[str, str]]]:
    """The estimator pairs behind each claim of §5.1 that :func:`claim_checks` tests:
    ``margin``: Margin vs Base; ``average``: Average (with ``aggregation``) vs every other
    estimator of that aggregation."""
    avg = f"Average/{aggregation}"
    others = ["Base", "Margin", f"Consistency/{aggregation}", f"Entropy/{aggregation}"]
    return {"margin": [("Margin", "Base")], "average": [(avg, o) for o in others]}


def _verdict(diffs: pd.DataFrame) -> tuple[Verdict, str]:
    """All ``a`` lower (interval below 0) -> holds; any ``a`` higher (interval above 0) ->
    does not hold; otherwise undecided."""
    lower = diffs["high"] < 0
    higher = diffs["low"] > 0
    if higher.any():
        return FAILS, "higher than " + ", ".join(diffs.loc[higher, "b"])
    if lower.all():
        return HOLDS, "lower than " + ", ".join(diffs["b"])
    undecided = diffs.loc[~lower, "b"]
    return UNDECIDED, "not distinguishable from " + ", ".join(undecided)


def claim_checks(comparisons: pd.DataFrame, aggregation: str = "min") -> pd.DataFrame:
    """The two claims of §5.1 checked per model from :func:`estimator_comparisons` (ACE), as a
    :class:`~calib.experiments.verdicts.Verdict` per model:

    * ``margin`` -- Margin is better calibrated than Base: holds when Margin's ACE is lower
      with a 95% interval of the difference below 0, does not hold when it is higher with the
      interval above 0, undecided when the interval includes 0;
    * ``average`` -- Average is the best calibrated estimator: holds when its ACE is lower than
      that of each other estimator (all intervals below 0), does not hold when some estimator
      has a lower ACE (an interval above 0), undecided otherwise.

    Columns ``claim``, ``model``, ``verdict`` (the verdict's text) and ``detail``."""
    rows = []
    for claim, pairs in claim_pairs(aggregation).items():
        keys = set(pairs)
        part = comparisons[[(a, b) in keys for a, b in zip(comparisons["a"], comparisons["b"])]]
        if part.empty:
            raise ValueError(f"the comparisons lack the pairs of claim {claim!r}: {pairs}")
        for model, diffs in part.groupby("model", sort=False):
            verdict, detail = _verdict(diffs)
            rows.append({"claim": claim, "model": model, "verdict": verdict.value,
                         "detail": f"{diffs['a'].iloc[0]} ACE {detail}"})
    return pd.DataFrame(rows, columns=["claim", "model", "verdict", "detail"])


def claim_tally(checks: pd.DataFrame) -> pd.DataFrame:
    """Per claim of :func:`claim_checks`: how many models agree, disagree or cannot decide,
    and the overall ``verdict`` for a claim about every model
    (:func:`calib.experiments.quantifiers.every_verdict`: holds when every model agrees, does
    not hold as soon as one model disagrees, undecided otherwise). Columns ``claim``,
    ``n_models``, ``agree``, ``disagree``, ``undecided``, ``verdict``, ``evidence`` (the tally,
    :func:`calib.experiments.verdicts.unit_tally`)."""
    from calib.experiments.verdicts import unit_tally

    rows = []
    for claim, part in checks.groupby("claim", sort=False):
        v = part["verdict"].tolist()
        agree, disagree = v.count(HOLDS.value), v.count(FAILS.value)
        undecided = len(v) - agree - disagree
        rows.append({"claim": claim, "n_models": len(v), "agree": agree,
                     "disagree": disagree, "undecided": undecided,
                     "verdict": every_verdict(agree, disagree, len(v)).value,
                     "evidence": (f"paired bootstrap of ACE, 95% intervals: "
                                  f"{unit_tally(agree, disagree, len(v))}")})
    return pd.DataFrame(rows, columns=["claim", "n_models", "agree", "disagree", "undecided",
                                       "verdict", "evidence"])


def shared_models(reported: pd.DataFrame, models: Sequence[str],
                  column: str = "registry_name") -> list[str]:
    """The models of this run that also have rows in a reported table (matched on the
    registry name), in the order of ``models``."""
    require_columns(reported, (column,), "reported table")
    have = set(reported[column].dropna())
    return [m for m in models if m in have]




# ---------------------------------------------------------------------------------------------
# the claims of §5.1 and Appendix D (calib.experiments.claims): rules over evidence frames and
# the paper's evidence from its printed tables. The chapter does not record its result yet, so
# build_evidence is None ("not run in this build") until it is converted to a chapter unit
# (issue 17; the reductions chapter is the worked example).


def _table1_units(metric: str, a: str, b: str | None = None) -> pd.DataFrame:
    """Table 1 per model: ``metric(a) - metric(b)`` (printed values), or with ``b`` None
    ``metric(a)`` minus the lowest of the other estimators with a printed ``metric``."""
    wide = table1_wide(metric)
    other = wide[b] if b else wide.drop(columns=[a]).min(axis=1)
    frame = pd.DataFrame({"model": wide.index, "value": (wide[a] - other).to_numpy()})
    return printed(frame, "value", "model")


def margin_below_base(evidence):
    """``margin_bear``: ACE(Margin) - ACE(Base) below 0 for every model."""
    # TODO(issue 17): rule to fix -- the quote is absolute ("consistently well-calibrated ...
    # across all LMs") but this tests a relative claim (Margin < Base): keep both, as two claims
    return every(evidence, "<", 0.0, what="ACE(Margin) - ACE(Base) on BEAR", unit="model")


def margin_below_base_paper():
    return Evidence(_table1_units("ace", "Margin", "Base"), "Table 1, printed values")


def average_lowest(evidence):
    """``average_best``: ACE(Average) minus the lowest ACE of the other estimators below 0 for
    every model."""
    # TODO(issue 17): rule to fix -- the paper says "both Brier Score and ACE"; this tests ACE
    # only (on a build it also counted C_Consistency's ACE, which the paper does not report)
    return every(evidence, "<", 0.0, what="ACE(Average) - lowest ACE of the other estimators",
                 unit="model")


def average_lowest_paper():
    return Evidence(_table1_units("ace", "Average"),
                    "Table 1, printed values (ACE of Base, Margin, Entropy; none printed for "
                    "Consistency)")


def larger_lower_ace(evidence):
    """``larger_better``: per family with two sizes and per estimator, ACE(largest) -
    ACE(smallest) below 0."""
    # TODO(issue 17): rule to fix -- a claim about "most" families (use quantifiers.most: one
    # family against it is not "does not hold"), about ACE and Brier, and every size step
    return every(evidence, "<", 0.0, what="ACE(largest) - ACE(smallest) of a family",
                 unit="family-estimator pair")


def larger_lower_ace_paper():
    long = table1_long().dropna(subset=["ace", "size_m"])
    rows = []
    for (family, est), part in long.groupby(["family", "estimator"], sort=True):
        part = part.sort_values("size_m")
        if part["size_m"].nunique() >= 2:
            rows.append({"family": family, "estimator": est,
                         "value": part["ace"].iloc[-1] - part["ace"].iloc[0]})
    return Evidence(printed(pd.DataFrame(rows), "value", ["family", "estimator"]),
                    "Tables 1 and 3, printed values")


def ace_falls_with_accuracy(evidence):
    """``ace_accuracy``: the correlation of ACE with accuracy across models below 0 for every
    estimator (interval from resampling the models)."""
    return every(evidence, "<", 0.0, what="Pearson r of ACE with accuracy across models",
                 unit="estimator")


def ace_falls_with_accuracy_paper():
    corr = ace_accuracy_correlation(table1_long(),
                                    estimators=["Margin", calib_estimator("Average")],
                                    n_bootstrap=1000, seed=0)
    frame = corr.rename(columns={"estimator": "unit", "r": "difference"})
    return Evidence(frame[["unit", "difference", "low", "high", "n"]],
                    "Tables 1 and 3 (computed here over the paper's 25 models), 95% bootstrap "
                    "interval over models")


CLAIMS: tuple[Claim, ...] = (
        Claim(key="margin_bear", paper="kissling2026", section="§5.1",
              quote="emerged as a consistently well-calibrated method across all LMs",
              statement="C_Margin is better calibrated (lower ACE) than C_Base on BEAR, for "
                        "every model",
              quantifier="every", metrics=("ace",), about="every model", chapter="calibration",
              rule=margin_below_base, paper_evidence=margin_below_base_paper,
              build_evidence=None, needs="any model on BEAR"),
        Claim(key="average_best", paper="kissling2026", section="§5.1",
              quote="clearly outperforms the other approaches across all models in terms of "
                    "both Brier Score and ACE",
              statement="C_Average is the best-calibrated estimate (the lowest ACE) for every "
                        "model",
              quantifier="every", metrics=("ace",), about="every model", chapter="calibration",
              rule=average_lowest, paper_evidence=average_lowest_paper, build_evidence=None,
              needs="any model on BEAR"),
        Claim(key="larger_better", paper="kissling2026", section="§5.1",
              quote="For most model families, we see that by increasing model size, ACEs and "
                    "Brier Scores decrease.",
              statement="Within a model family, larger models are better calibrated (lower ACE)",
              quantifier="every", metrics=("ace",), about="families with two or more sizes",
              chapter="calibration", rule=larger_lower_ace,
              paper_evidence=larger_lower_ace_paper, build_evidence=None,
              needs="two or more sizes of one family, e.g. opt-125m, opt-350m, opt-1.3b "
                    "(`calib book --profile paper`, with the hub)"),
        Claim(key="ace_accuracy", paper="kissling2026", section="Appendix D",
              quote="We find an overall negative correlation between accuracy and ACE",
              statement="ACE is negatively correlated with accuracy across models",
              quantifier="every", metrics=("ace", "accuracy"),
              about="the models of a build, per estimator", chapter="calibration",
              rule=ace_falls_with_accuracy, paper_evidence=ace_falls_with_accuracy_paper,
              build_evidence=None,
              needs=f"at least {MIN_MODELS_FOR_CORRELATION} models (the paper profile, or "
                    f"`-p models`)"),
)
