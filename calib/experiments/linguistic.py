"""The linguistic-confidence chapter (Kissling et al. 2026, §3.3, §6, Figures 5 and 6; Appendix
G, Figure 11; the Introduction's sentence on the scale-dependency of linguistic confidence).

Every BEAR instance is also scored with templates that *say* how sure the statement is:
``possibly``, ``certainly`` and ``numeric-0`` .. ``numeric-100`` ("I'm 25% confident ...").
A model that encoded what these words mean would be less confident under "possibly", more
under "certainly", and its confidence would rise with the stated number. The chapter compares
Base-Confidence (Eq. 1) under each injected template with the plain template (``paraphrase-0``)
on the same instances.

The unit (see ``CONTRIBUTING.md``): :class:`Params` (the only home of the chapter's defaults),
:func:`run` (``Params`` -> :class:`LinguisticResult`, every frame the page shows: the scores,
then :func:`result_from_scores`) and ``CLAIMS`` (the claims of §6, Appendix G and the
Introduction, each judged on the paper's printed numbers and on this build's recorded
result). The steps, each a pure function:

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`linguistic_estimates`        Base-Confidence per instance under plain and injected
                                    templates (:func:`calib.confidence.estimators.linguistic`)
:func:`template_calibration`        accuracy, ACE (with its noise floor and debiased ACE) and
                                    signed gap per model and template
:func:`injection_effects`           per model and injection: the change in ACE (Fig. 5), in
                                    accuracy (Fig. 11), in mean confidence and in the signed
                                    gap, each a paired bootstrap difference with a 95% interval
:func:`ace_changes`                 the ACE changes beside both templates' ACE and noise floor,
                                    the change of the floors and the debiased change
:func:`reliability`                 reliability diagrams under plain / possibly / certainly
                                    (Fig. 6)
:func:`stated_levels`               mean Base-Confidence, accuracy and ACE per stated level
:func:`numeric_differences`         mean confidence under numeric-100 minus numeric-0
:func:`grounding_checks`            does each model move its confidence the way the words say?
:func:`model_table`                 family, size and instruction tuning of each model
:func:`size_pairs`                  consecutive sizes of one family (instruction tuning alike)
:func:`sensitivity`                 per model: the mean accuracy drop under the injections
:func:`alignment`                   per model: how far its confidence follows the cues
:func:`pair_differences`            larger minus smaller model of each size pair
:func:`drop_comparisons`            every cell's accuracy change minus a reference cell's
==================================  ==========================================================

Every interval is a 95% bootstrap interval over facts; statistics of several models or
templates use the same resamples (one seed), so their differences are paired.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import (
    difference_interval,
    interval,
    interval_p_value,
    jackknife,
    paired_estimates_difference,
    replicates,
)
from calib.confidence.estimators import linguistic
from calib.confidence.metrics import N_BINS
from calib.confidence.noise_floor import N_DRAWS, debiased
from calib.confidence.reductions import sentence_scores
from calib.confidence.reliability import reliability_diagram
from calib.confidence.schema import INSTANCE, require_columns
from calib.confidence.summary import summary
from calib.data.bear import LINGUISTIC, NUMERIC, PLAIN
from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.quantifiers import OPEN, SUPPORTS, Evidence, unit_status
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED, Judgement, unit_tally
from calib.scoring.schema import FACT

#: the templates of Figure 6: plain, weakened, strengthened
CURVE_TEMPLATES: tuple[str, ...] = (PLAIN, "possibly", "certainly")
#: the verbal and the numeric injections (§3.3)
VERBAL: tuple[str, ...] = ("possibly", "certainly")
#: the direction a grounded model would move its confidence, per injected marker
EXPECTED_DIRECTION = {"possibly": "lower", "certainly": "higher"}
#: the numeric templates that weaken a statement (§6: "numerical weakeners such as 'I'm 0%
#: confident…'"): those stating less than 50%
NUMERIC_WEAKENERS: tuple[str, ...] = ("numeric-0", "numeric-25")
#: the models of Figure 6 (base and instruction-tuned gemma-3-4b and gemma-3-12b), by the names
#: :func:`canonical_name` gives them
FIGURE6_MODELS: tuple[str, ...] = ("gemma-3-4b", "gemma-3-4b-it", "gemma-3-12b", "gemma-3-12b-it")
#: the instruction-tuned models §6 says "certainly" lowers the ACE of
CERTAINLY_IT_MODELS: tuple[str, ...] = ("gemma-3-4b-it", "gemma-3-12b-it")
#: the cells Appendix G prints: the largest accuracy drop and the only gain
LARGEST_DROP_CELL: tuple[str, str] = ("gemma-7b", "numeric-25")
ONLY_GAIN_CELL: tuple[str, str] = ("roberta-base", "certainly")
#: how the quantities of :func:`injection_effects` are named in tables and sentences
QUANTITY_NAMES = {
    "ace": "ACE",
    "accuracy": "accuracy",
    "confidence": "mean Base-Confidence",
    "gap": "signed calibration gap",
}


@dataclass(frozen=True)
class Params(ChapterParams):
    """The linguistic chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "linguistic"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (registry names or hub ids)"
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        1, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the BEAR sample, of every bootstrap and noise floor")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")
    floor_draws: int = parameter(
        N_DRAWS, "simulated perfectly calibrated outcome vectors behind each ACE's noise floor"
    )
    reduction: str = parameter(
        "sum", "sentence-score reduction (Appendix C; the paper's choice is sum)"
    )
    curve_bins: int = parameter(
        20, "equal-count bins of the calibration curves (the paper, §4.3: 20, as ACE)"
    )
    max_sentences: int = parameter(
        6, "write per-model sentences only up to this many models (the tables hold all)"
    )


@dataclass(frozen=True)
class LinguisticResult:
    """Every frame and number the linguistic page shows (:func:`run`)."""

    params: Params
    #: facts per model and template, and the relations they come from
    n_facts: int
    n_relations: int
    #: the injected templates, in order
    injected: list[str]
    #: :func:`model_table`
    models: pd.DataFrame
    #: :func:`template_calibration`
    calibration: pd.DataFrame
    #: :func:`injection_effects`
    effects: pd.DataFrame
    #: :func:`ace_changes`
    ace_changes: pd.DataFrame
    #: :func:`reliability` (Figure 6): the curves with per-bin intervals, and the histograms
    curves: pd.DataFrame
    histograms: pd.DataFrame
    #: :func:`stated_levels`
    levels: pd.DataFrame
    #: :func:`numeric_differences`
    numeric: pd.DataFrame
    #: :func:`grounding_checks`
    grounding: pd.DataFrame
    #: :func:`size_pairs`
    pairs: pd.DataFrame
    #: :func:`sensitivity` and its :func:`pair_differences`
    sensitivity: pd.DataFrame
    sensitivity_pairs: pd.DataFrame
    #: :func:`alignment` and its :func:`pair_differences`
    alignment: pd.DataFrame
    alignment_pairs: pd.DataFrame
    #: :func:`drop_comparisons` against this build's largest accuracy drop and, where the
    #: build has gemma-7b, against Appendix G's cell (gemma-7b, numeric-25)
    drops: pd.DataFrame
    #: the injection effects of the authors' repository for Figure 6's earlier version
    #: (gemma-2b and gemma-7b legend values)
    authors_legend: pd.DataFrame


# ---------------------------------------------------------------------------------------------
# the steps


def linguistic_estimates(
    scores: pd.DataFrame,
    injected: Sequence[str] = LINGUISTIC,
    plain: str = PLAIN,
    reduction: str = "sum",
) -> pd.DataFrame:
    """Base-Confidence per instance under ``plain`` and each ``injected`` template, on the
    instances scored with all of them (§3.3; :func:`calib.confidence.estimators.linguistic`).

    Other templates of ``scores`` are dropped first. Long format: ``model, dataset, relation,
    instance, template, prediction, correct, confidence, stated`` (the numeric templates'
    stated confidence, NaN otherwise), rows in the order of the models in ``scores`` and of
    ``[plain, *injected]``."""
    require_columns(scores, ("template",), "score table")
    wanted = [plain, *injected]
    missing = [t for t in wanted if t not in set(scores["template"])]
    if missing:
        raise ValueError(
            f"the score table lacks template(s) {missing}; the linguistic comparison needs {wanted}"
        )
    sent = sentence_scores(scores[scores["template"].isin(wanted)], reduction)
    est = linguistic(sent, list(injected), plain)
    models = list(dict.fromkeys(scores["model"]))
    est["_m"] = est["model"].map({m: i for i, m in enumerate(models)})
    est["_t"] = est["template"].map({t: i for i, t in enumerate(wanted)})
    return (
        est.sort_values(["_m", "_t", *INSTANCE[1:]], kind="stable")
        .drop(columns=["_m", "_t"])
        .reset_index(drop=True)
    )


def _ordered(frame: pd.DataFrame, est: pd.DataFrame) -> pd.DataFrame:
    """``frame`` sorted by the order of the models and templates in ``est``."""
    models = {m: i for i, m in enumerate(dict.fromkeys(est["model"]))}
    templates = {t: i for i, t in enumerate(dict.fromkeys(est["template"]))}
    out = frame.assign(_m=frame["model"].map(models), _t=frame["template"].map(templates))
    return (
        out.sort_values(["_m", "_t"], kind="stable")
        .drop(columns=["_m", "_t"])
        .reset_index(drop=True)
    )


def template_calibration(
    est: pd.DataFrame,
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_draws: int = N_DRAWS,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Per model and template: ``n``, mean Base-Confidence, accuracy, ACE and the signed
    calibration gap (mean confidence minus accuracy, beyond the paper) with 95% bootstrap
    intervals, and ACE's noise floor (:func:`calib.confidence.summary.summary` with
    ``floor=("ace",)``: ``ace_floor``, ``ace_within_floor``, ``ace_debiased`` with its
    interval, ...). The ACE under each template is the one Figure 5 subtracts."""
    require_columns(
        est, (*INSTANCE, "template", "confidence", "correct", "stated"), "linguistic estimate table"
    )
    table = summary(
        est,
        by=["model", "template"],
        n_bins=n_bins,
        n_boot=n_bootstrap,
        seed=seed,
        metrics=("accuracy", "ace", "gap"),
        floor=("ace",),
        n_draws=n_draws,
    )
    extra = (
        est.groupby(["model", "template"], sort=False)
        .agg(stated=("stated", "first"), mean_confidence=("confidence", "mean"))
        .reset_index()
    )
    table = _ordered(table.merge(extra, on=["model", "template"]), est).drop(
        columns=["rejection_rate"], errors="ignore"
    )
    first = ["model", "template", "stated", "n", "mean_confidence"]
    return table[[*first, *[c for c in table.columns if c not in first]]]


def paired_confidence_difference(
    conf_a, conf_b, n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95
) -> dict:
    """Paired bootstrap of the difference of *mean confidence* ``mean(a) - mean(b)`` on the
    same instances (entry ``i`` of both is one instance), with the resamples of
    :func:`calib.confidence.bootstrap.resample_weights` (the same stream as every other
    paired difference for this ``seed`` and number of instances) and a BCa interval. Returns
    the keys of :func:`calib.confidence.bootstrap.paired_difference` with
    ``metric="confidence"``."""
    a, b = np.asarray(conf_a, dtype=float), np.asarray(conf_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise ValueError(
            f"paired confidences must be two 1-D arrays of one non-zero length, "
            f"got shapes {a.shape} and {b.shape}"
        )
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("confidences must be finite")
    d = a - b
    return difference_interval(
        lambda w: w @ d / w.sum(axis=1),
        len(d),
        "bca",
        n_bootstrap,
        seed,
        level,
        metric="confidence",
    )


def _template(est: pd.DataFrame, model: str, template: str) -> pd.DataFrame:
    part = est[(est["model"] == model) & (est["template"] == template)]
    return part.sort_values(list(INSTANCE), kind="stable").reset_index(drop=True)


def injection_effects(
    est: pd.DataFrame,
    n_bootstrap: int = 1000,
    seed: int = 0,
    plain: str = PLAIN,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Per model and injected template: the change against ``plain`` on the same instances in
    ACE (Figure 5), accuracy (Figure 11), mean Base-Confidence and the signed calibration gap
    (mean confidence minus accuracy), each as injected minus plain with a 95% paired bootstrap
    interval.

    Long format, one row per model, template and quantity: ``model``, ``template``,
    ``stated`` (numeric templates' stated confidence), ``quantity`` (``ace``, ``accuracy``,
    ``confidence``, ``gap``), ``plain`` and ``injected`` values, ``delta``, ``low``, ``high``,
    ``p_value``, ``n``."""
    require_columns(
        est, (*INSTANCE, "template", "confidence", "correct", "stated"), "linguistic estimate table"
    )
    if n_bootstrap < 1:
        raise ValueError("injection_effects needs n_bootstrap >= 1 (a paired bootstrap)")
    rows = []
    for model in dict.fromkeys(est["model"]):
        base = _template(est, model, plain)
        for template in [t for t in dict.fromkeys(est["template"]) if t != plain]:
            inj = _template(est, model, template)
            if not base[list(INSTANCE)].equals(inj[list(INSTANCE)]):
                raise ValueError(
                    f"model {model!r}: templates {plain!r} and {template!r} cover "
                    f"different instances"
                )
            stated = inj["stated"].iloc[0] if len(inj) else np.nan
            point = summary(
                pd.concat([base, inj]),
                by=["template"],
                n_bins=n_bins,
                n_boot=0,
                metrics=("ace", "accuracy", "gap"),
            ).set_index("template")
            for quantity in ("ace", "accuracy", "gap"):
                res = paired_estimates_difference(
                    inj, base, quantity, n_boot=n_bootstrap, seed=seed, n_bins=n_bins
                )
                rows.append(
                    {
                        "model": model,
                        "template": template,
                        "stated": stated,
                        "quantity": quantity,
                        "plain": point.at[plain, quantity],
                        "injected": point.at[template, quantity],
                        "delta": res["difference"],
                        "low": res["low"],
                        "high": res["high"],
                        "p_value": res["p_value"],
                        "n": res["n"],
                    }
                )
            res = paired_confidence_difference(
                inj["confidence"], base["confidence"], n_bootstrap, seed
            )
            rows.append(
                {
                    "model": model,
                    "template": template,
                    "stated": stated,
                    "quantity": "confidence",
                    "plain": float(base["confidence"].mean()),
                    "injected": float(inj["confidence"].mean()),
                    "delta": res["difference"],
                    "low": res["low"],
                    "high": res["high"],
                    "p_value": res["p_value"],
                    "n": res["n"],
                }
            )
    order = {q: i for i, q in enumerate(("ace", "accuracy", "confidence", "gap"))}
    out = pd.DataFrame(
        rows,
        columns=[
            "model",
            "template",
            "stated",
            "quantity",
            "plain",
            "injected",
            "delta",
            "low",
            "high",
            "p_value",
            "n",
        ],
    )
    return (
        out.assign(_q=out["quantity"].map(order))
        .sort_values(["_q"], kind="stable")
        .drop(columns="_q")
        .reset_index(drop=True)
    )


def ace_changes(
    effects: pd.DataFrame, calibration: pd.DataFrame, plain: str = PLAIN, level: float = 0.95
) -> pd.DataFrame:
    """Figure 5's ACE changes beside what the noise floors allow (beyond the paper): per model
    and injected template, ACE under the plain and the injected template each with its floor
    and whether it is within it (not distinguishable from perfect calibration at this sample
    size), the change ``delta`` with its paired interval, the change of the floors
    (``floor_change``: the change a perfectly calibrated estimator with these confidences would
    show), and the debiased change ``delta - floor_change`` with the interval of ``delta``
    shifted by it and widened by ``z`` times the floors' combined Monte-Carlo error
    (:func:`calib.confidence.noise_floor.debiased`). ``within_floors``: both ACEs are within
    their floors.

    ``effects``: :func:`injection_effects`; ``calibration``: :func:`template_calibration`."""
    require_columns(
        effects, ("model", "template", "quantity", "delta", "low", "high"), "injection effects"
    )
    require_columns(
        calibration,
        ("model", "template", "ace", "ace_floor", "ace_floor_se", "ace_within_floor"),
        "template calibration",
    )
    cal = calibration.set_index(["model", "template"])
    rows = []
    for r in effects[effects["quantity"] == "ace"].to_dict("records"):
        p, i = cal.loc[(r["model"], plain)], cal.loc[(r["model"], r["template"])]
        change = float(i["ace_floor"] - p["ace_floor"])
        se = float(np.hypot(i["ace_floor_se"], p["ace_floor_se"]))
        d, lo, hi = debiased(r["delta"], r["low"], r["high"], change, se, level)
        rows.append(
            {
                "model": r["model"],
                "template": r["template"],
                "stated": r["stated"],
                "ace_plain": float(p["ace"]),
                "ace_plain_floor": float(p["ace_floor"]),
                "ace_plain_within_floor": bool(p["ace_within_floor"]),
                "ace_injected": float(i["ace"]),
                "ace_injected_floor": float(i["ace_floor"]),
                "ace_injected_within_floor": bool(i["ace_within_floor"]),
                "delta": r["delta"],
                "low": r["low"],
                "high": r["high"],
                "floor_change": change,
                "delta_debiased": d,
                "delta_debiased_low": lo,
                "delta_debiased_high": hi,
                "within_floors": bool(p["ace_within_floor"] and i["ace_within_floor"]),
                "p_value": r.get("p_value", np.nan),
                "n": r.get("n", np.nan),
            }
        )
    return pd.DataFrame(rows)


def reliability(
    est: pd.DataFrame, templates: Sequence[str] = CURVE_TEMPLATES, n_bins: int = N_BINS
):
    """Figure 6: reliability diagrams of Base-Confidence per model under ``templates`` (plain,
    "possibly", "certainly"): the calibration curve on ``n_bins`` equal-count bins with each
    bin's Wilson interval, and the histogram of confidences
    (:func:`calib.confidence.reliability.reliability_diagram` by model and template)."""
    missing = [t for t in templates if t not in set(est["template"])]
    if missing:
        raise ValueError(f"template(s) {missing} not in the linguistic estimates")
    part = est[est["template"].isin(list(templates))]
    order = {t: i for i, t in enumerate(templates)}
    part = (
        part.assign(_t=part["template"].map(order))
        .sort_values(["_t"], kind="stable")
        .drop(columns="_t")
    )
    models = {m: i for i, m in enumerate(dict.fromkeys(est["model"]))}
    part = (
        part.assign(_m=part["model"].map(models))
        .sort_values(["_m"], kind="stable")
        .drop(columns="_m")
    )
    return reliability_diagram(part, by=("model", "template"), n_bins=n_bins)


def stated_levels(est: pd.DataFrame, calibration: pd.DataFrame) -> pd.DataFrame:
    """Does the stated numeric confidence track anything? Per model and numeric template
    (``numeric-0`` .. ``numeric-100``): the ``stated`` level, the mean Base-Confidence with its
    quartiles (``q25``, ``q75``) over instances, and the accuracy and ACE (with its noise floor)
    of :func:`template_calibration`."""
    part = est[est["template"].isin(NUMERIC)]
    if part.empty:
        raise ValueError(f"no numeric template {list(NUMERIC)} in the linguistic estimates")
    quartiles = (
        part.groupby(["model", "template"], sort=False)["confidence"]
        .agg(q25=lambda s: s.quantile(0.25), q75=lambda s: s.quantile(0.75))
        .reset_index()
    )
    table = calibration[calibration["template"].isin(NUMERIC)].merge(
        quartiles, on=["model", "template"]
    )
    cols = [
        "model",
        "template",
        "stated",
        "n",
        "mean_confidence",
        "q25",
        "q75",
        "accuracy",
        "accuracy_low",
        "accuracy_high",
        *[c for c in table.columns if c.startswith("ace")],
    ]
    return table[cols].reset_index(drop=True)


def numeric_differences(
    est: pd.DataFrame,
    low_level: str = "numeric-0",
    high_level: str = "numeric-100",
    n_bootstrap: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per model: the mean Base-Confidence under ``high_level`` minus under ``low_level`` on
    the same instances, with a 95% paired bootstrap interval
    (:func:`paired_confidence_difference`). Columns ``model``, ``a``, ``b``, ``difference``,
    ``low``, ``high``, ``p_value``, ``n``; models lacking a level are left out."""
    rows = []
    for model in dict.fromkeys(est["model"]):
        hi, lo = _template(est, model, high_level), _template(est, model, low_level)
        if hi.empty or lo.empty:
            continue
        res = paired_confidence_difference(hi["confidence"], lo["confidence"], n_bootstrap, seed)
        rows.append(
            {
                "model": model,
                "a": high_level,
                "b": low_level,
                **{k: res[k] for k in ("difference", "low", "high", "p_value", "n")},
            }
        )
    return pd.DataFrame(
        rows, columns=["model", "a", "b", "difference", "low", "high", "p_value", "n"]
    )


def _direction(low: float, high: float) -> str:
    return "lower" if high < 0 else "higher" if low > 0 else "undecided"


def grounding_checks(effects: pd.DataFrame, numeric: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per model: does its Base-Confidence move the way the injected words say?

    * ``possibly`` should lower and ``certainly`` raise the mean confidence against the plain
      template (from the ``confidence`` rows of :func:`injection_effects`);
    * ``numeric``: the highest stated level should give a higher mean confidence than the
      lowest (:func:`numeric_differences`, when given).

    Each is ``lower`` / ``higher`` by the 95% interval of its paired difference, or
    ``undecided`` when the interval includes 0 (``not scored`` when absent). ``grounded`` is
    the verdict (:class:`~calib.experiments.verdicts.Verdict` text) on "every marker moves as
    its words say" for the model: holds when every scored marker does with an interval
    excluding 0, does not hold when some marker moves the opposite way with an interval
    excluding 0, undecided otherwise (:func:`calib.experiments.quantifiers.every_verdict`)."""
    require_columns(effects, ("model", "template", "quantity", "low", "high"), "injection effects")
    conf = effects[effects["quantity"] == "confidence"]
    by_model = None if numeric is None or numeric.empty else numeric.set_index("model")
    rows = []
    for model in dict.fromkeys(effects["model"]):
        by_t = conf[conf["model"] == model].set_index("template")
        row: dict = {"model": model}
        moves = []
        for marker, expected in EXPECTED_DIRECTION.items():
            if marker in by_t.index:
                row[marker] = _direction(by_t.at[marker, "low"], by_t.at[marker, "high"])
                moves.append((row[marker], expected))
            else:
                row[marker] = "not scored"
        if by_model is not None and model in by_model.index:
            row["numeric"] = _direction(by_model.at[model, "low"], by_model.at[model, "high"])
            moves.append((row["numeric"], "higher"))
        else:
            row["numeric"] = "not scored"
        right = sum(d == e for d, e in moves)
        wrong = sum(d not in ("undecided", e) for d, e in moves)
        row["grounded"] = quantifiers.every_verdict(right, wrong, len(moves)).value
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", "possibly", "certainly", "numeric", "grounded"])


def grounding_tally(checks: pd.DataFrame) -> dict:
    """Counts over models of :func:`grounding_checks` (``grounded``: every marker moves as its
    words say; ``not_grounded``: some marker moves the opposite way; ``undecided``) and a
    phrase with them (:func:`calib.experiments.verdicts.unit_tally`)."""
    g = checks["grounded"].tolist()
    right, wrong = g.count(HOLDS.value), g.count(FAILS.value)
    evidence = (
        "That every marker moves mean Base-Confidence as its words say ('possibly' "
        "lowers it and 'certainly' raises it against the plain template, numeric-100 "
        "gives more than numeric-0; 95% paired bootstrap intervals) is "
        + unit_tally(right, wrong, len(g))
    )
    return {
        "n_models": len(g),
        "grounded": right,
        "not_grounded": wrong,
        "undecided": len(g) - right - wrong,
        "evidence": evidence,
    }


# ---------------------------------------------------------------------------------------------
# models: family, size, the paper's names


def canonical_name(model: str) -> str:
    """The name a claim of the paper uses for ``model``: its registry name (a hub id of the
    registry gives the registered name), the hub's ``google/`` prefix and gemma-3's ``-pt``
    ("pre-trained", the base variant) suffix dropped, lower case: ``google/gemma-3-4b-pt`` ->
    ``gemma-3-4b``, ``google/gemma-3-4b-it`` -> ``gemma-3-4b-it``."""
    from calib.models.registry import get_spec

    spec = get_spec(model)
    name = (spec.name if spec is not None else model).lower()
    name = name.rsplit("/", 1)[-1]
    return name.removesuffix("-pt")


def model_table(models: Sequence[str]) -> pd.DataFrame:
    """Per model (from the registry; an unregistered model has no family or size): ``model``,
    ``paper_name`` (:func:`canonical_name`), ``in_paper`` (one of the paper's Table 3 models),
    ``family``, ``size`` (as written), ``size_m`` (millions of parameters) and
    ``instruction_tuned``."""
    from calib.models.registry import get_spec, paper_models, size_in_millions

    paper = {spec.name for spec in paper_models()}
    rows = []
    for m in models:
        spec = get_spec(m)
        rows.append(
            {
                "model": m,
                "paper_name": canonical_name(m),
                "in_paper": canonical_name(m) in paper,
                "family": spec.family if spec else "",
                "size": spec.size if spec else "",
                "size_m": size_in_millions(spec.size) if spec else None,
                "instruction_tuned": bool(spec.instruction_tuned) if spec else False,
            }
        )
    out = pd.DataFrame(
        rows,
        columns=[
            "model",
            "paper_name",
            "in_paper",
            "family",
            "size",
            "size_m",
            "instruction_tuned",
        ],
    )
    out["size_m"] = out["size_m"].astype(float)
    return out


def size_pairs(models: pd.DataFrame) -> pd.DataFrame:
    """Consecutive sizes within one family and instruction tuning (Appendix G's and the
    Introduction's "larger models"): per group of :func:`model_table` rows with the same
    ``family`` and ``instruction_tuned`` and a known size, sorted by size, each model with the
    next larger one. Columns ``family`` (with " (IT)" for instruction-tuned variants),
    ``smaller``, ``larger``, ``smaller_size``, ``larger_size``."""
    require_columns(
        models, ("model", "family", "size", "size_m", "instruction_tuned"), "model table"
    )
    rows = []
    known = models[(models["family"] != "") & models["size_m"].notna()]
    for (family, it), part in known.groupby(["family", "instruction_tuned"], sort=False):
        part = part.sort_values("size_m", kind="stable").to_dict("records")
        for a, b in itertools.pairwise(part):
            if b["size_m"] > a["size_m"]:
                rows.append(
                    {
                        "family": f"{family} (IT)" if it else family,
                        "smaller": a["model"],
                        "larger": b["model"],
                        "smaller_size": a["size"],
                        "larger_size": b["size"],
                    }
                )
    return pd.DataFrame(
        rows, columns=["family", "smaller", "larger", "smaller_size", "larger_size"]
    )


# ---------------------------------------------------------------------------------------------
# statistics over several models and templates on one sample of facts: weighted means of
# per-fact columns, every one on the same bootstrap resamples (paired)


def aligned_outcomes(est: pd.DataFrame, column: str) -> pd.DataFrame:
    """``column`` (``correct`` or ``confidence``) of every (model, template) as one column
    each, one row per fact in one order (columns are ``(model, template)`` pairs); the models
    must share their facts (one BEAR sample), else ``ValueError``."""
    require_columns(est, ("model", "template", column, *FACT), "linguistic estimate table")
    wide = est.pivot_table(
        index=list(FACT), columns=["model", "template"], values=column, aggfunc="first", sort=True
    )
    if wide.isna().any().any():
        lacking = sorted({m for (m, _t), v in wide.isna().any().items() if v})
        raise ValueError(
            f"model(s) {lacking} were scored on other facts than the others; the "
            f"paired comparisons across models need one sample"
        )
    return wide.astype(float)


def mean_intervals(
    values: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0, level: float = 0.95
) -> pd.DataFrame:
    """The mean over facts (rows) of each column of ``values``, with a 95% BCa bootstrap
    interval over facts and its p-value against 0; every column on the same resamples, so
    differences of columns are paired. One row per column: ``unit`` (the column's name),
    ``difference`` (the mean), ``low``, ``high``, ``p_value``, ``n``, ``n_boot``."""
    x = values.to_numpy(float)
    n, k = x.shape
    if n == 0 or k == 0:
        return pd.DataFrame(columns=["unit", "difference", "low", "high", "p_value", "n", "n_boot"])

    def stat(w: np.ndarray) -> np.ndarray:
        return (w @ x) / w.sum(axis=1, keepdims=True)

    point = stat(np.ones((1, n), np.int64))[0]
    reps = replicates(stat, n, n_bootstrap, seed)
    jack = jackknife(stat, n) if n >= 3 else None
    rows = []
    for j, unit in enumerate(values.columns):
        jj = None if jack is None else jack[:, j]
        lo, hi = interval(point[j], reps[:, j], level, "bca", jj)
        rows.append(
            {
                "unit": unit,
                "difference": float(point[j]),
                "low": lo,
                "high": hi,
                "p_value": interval_p_value(point[j], reps[:, j], "bca", jj),
                "n": n,
                "n_boot": n_bootstrap,
            }
        )
    return pd.DataFrame(rows)


def _sensitivity_columns(
    correct: pd.DataFrame, model: str, plain: str = PLAIN
) -> dict[str, pd.Series]:
    """Per fact: accuracy under plain minus the mean accuracy over the injected templates of
    each group (all, numeric, verbal), for ``model``."""
    here = correct[model]
    groups = {
        "all": [t for t in LINGUISTIC if t in here.columns],
        "numeric": [t for t in NUMERIC if t in here.columns],
        "verbal": [t for t in VERBAL if t in here.columns],
    }
    return {g: here[plain] - here[ts].mean(axis=1) for g, ts in groups.items() if ts}


def sensitivity(
    est: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0, plain: str = PLAIN
) -> pd.DataFrame:
    """Appendix G's sensitivity to the injections, per model: the mean over the injected
    templates of the drop in accuracy (accuracy under plain minus under the injection), over
    all seven injections, the five numeric and the two verbal ones, with 95% paired BCa
    intervals. A larger drop is a larger sensitivity (the injections lower accuracy, Figure
    11). Columns ``model``, ``injections`` (``all``, ``numeric``, ``verbal``), ``difference``
    (the mean drop), ``low``, ``high``, ``p_value``, ``n``."""
    correct = aligned_outcomes(est, "correct")
    cols = {
        (m, g): s
        for m in dict.fromkeys(est["model"])
        for g, s in _sensitivity_columns(correct, m, plain).items()
    }
    out = mean_intervals(pd.DataFrame(cols), n_bootstrap, seed)
    out.insert(0, "model", [u[0] for u in out["unit"]])
    out.insert(1, "injections", [u[1] for u in out["unit"]])
    return out.drop(columns="unit")


def _alignment_columns(conf: pd.DataFrame, model: str, plain: str = PLAIN) -> dict[str, pd.Series]:
    """Per fact, for ``model``: how far each cue moves Base-Confidence the way its words say
    (``possibly``: plain minus possibly; ``certainly``: certainly minus plain; ``numeric``:
    numeric-100 minus numeric-0) and their mean (``alignment``)."""
    here = conf[model]
    parts = {
        "possibly": here[plain] - here["possibly"],
        "certainly": here["certainly"] - here[plain],
        "numeric": here["numeric-100"] - here["numeric-0"],
    }
    parts["alignment"] = sum(parts.values()) / len(parts)
    return parts


def alignment(
    est: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0, plain: str = PLAIN
) -> pd.DataFrame:
    """The Introduction's alignment of internal confidence with linguistic cues, per model:
    the change of mean Base-Confidence in the direction each cue states (``possibly``: plain
    minus possibly; ``certainly``: certainly minus plain; ``numeric``: numeric-100 minus
    numeric-0) and their mean (``alignment``; 0: "semantically blind", above 0: the confidence
    follows the words), with 95% paired BCa intervals. Columns ``model``, ``cue``,
    ``difference``, ``low``, ``high``, ``p_value``, ``n``."""
    conf = aligned_outcomes(est, "confidence")
    cols = {
        (m, c): s
        for m in dict.fromkeys(est["model"])
        for c, s in _alignment_columns(conf, m, plain).items()
    }
    out = mean_intervals(pd.DataFrame(cols), n_bootstrap, seed)
    out.insert(0, "model", [u[0] for u in out["unit"]])
    out.insert(1, "cue", [u[1] for u in out["unit"]])
    return out.drop(columns="unit")


def pair_differences(
    est: pd.DataFrame,
    pairs: pd.DataFrame,
    kind: str,
    n_bootstrap: int = 1000,
    seed: int = 0,
    plain: str = PLAIN,
) -> pd.DataFrame:
    """Per size pair (:func:`size_pairs`): the larger model's statistic minus the smaller's,
    with a 95% paired BCa interval over facts.

    ``kind="sensitivity"`` (Appendix G, :func:`sensitivity`): part ``all injections`` (the
    mean accuracy drop) and part ``numeric beyond verbal`` (the larger-minus-smaller
    difference of the numeric injections' drop minus that of the verbal ones: "particularly to
    numerical confidence expressions"). ``kind="alignment"`` (Introduction, :func:`alignment`):
    part ``alignment``. Columns ``family``, ``smaller``, ``larger``, ``part``, ``unit``,
    ``difference``, ``low``, ``high``, ``p_value``, ``n``."""
    cols_out = [
        "family",
        "smaller",
        "larger",
        "part",
        "unit",
        "difference",
        "low",
        "high",
        "p_value",
        "n",
    ]
    if pairs.empty:
        return pd.DataFrame(columns=cols_out)
    if kind not in ("sensitivity", "alignment"):
        raise ValueError(f"kind must be 'sensitivity' or 'alignment', got {kind!r}")
    wide = aligned_outcomes(est, "correct" if kind == "sensitivity" else "confidence")
    per = _sensitivity_columns if kind == "sensitivity" else _alignment_columns
    cols, meta = {}, []
    for p in pairs.to_dict("records"):
        small, large = per(wide, p["smaller"], plain), per(wide, p["larger"], plain)
        if kind == "sensitivity":
            parts = {
                "all injections": large["all"] - small["all"],
                "numeric beyond verbal": (large["numeric"] - small["numeric"])
                - (large["verbal"] - small["verbal"]),
            }
        else:
            parts = {"alignment": large["alignment"] - small["alignment"]}
        for part, series in parts.items():
            key = f"{p['family']}: {p['larger']} vs {p['smaller']} ({part})"
            cols[key] = series
            meta.append(
                {
                    "family": p["family"],
                    "smaller": p["smaller"],
                    "larger": p["larger"],
                    "part": part,
                }
            )
    out = mean_intervals(pd.DataFrame(cols), n_bootstrap, seed)
    out = pd.concat([pd.DataFrame(meta), out], axis=1)
    return out[cols_out]


def largest_drop_cell(effects: pd.DataFrame) -> tuple[str, str]:
    """The (model, template) whose accuracy falls most under an injection
    (:func:`injection_effects`' ``accuracy`` rows)."""
    acc = effects[effects["quantity"] == "accuracy"]
    if acc.empty:
        raise ValueError("the injection effects have no accuracy rows")
    row = acc.loc[acc["delta"].idxmin()]
    return str(row["model"]), str(row["template"])


def drop_comparisons(
    est: pd.DataFrame,
    references: Sequence[Sequence[str]],
    n_bootstrap: int = 1000,
    seed: int = 0,
    plain: str = PLAIN,
) -> pd.DataFrame:
    """Appendix G's "largest decrease observed overall": for each reference cell ``(model,
    template)`` and every other (model, injected template) cell, the other cell's accuracy
    change (injected minus plain) minus the reference's, with a 95% paired BCa interval over
    facts (above 0: the other cell falls less than the reference). Columns ``reference``
    ("model, template"), ``model``, ``template``, ``unit``, ``difference``, ``low``, ``high``,
    ``p_value``, ``n``."""
    cols_out = [
        "reference",
        "model",
        "template",
        "unit",
        "difference",
        "low",
        "high",
        "p_value",
        "n",
    ]
    correct = aligned_outcomes(est, "correct")
    models = list(dict.fromkeys(est["model"]))
    injected = [t for t in dict.fromkeys(est["template"]) if t != plain]
    change = {(m, t): correct[(m, t)] - correct[(m, plain)] for m in models for t in injected}
    cols, meta = {}, []
    for ref in references:
        ref = tuple(ref)
        if ref not in change:
            raise ValueError(
                f"reference cell {ref} is not among the scored (model, injected template) cells"
            )
        for (m, t), series in change.items():
            if (m, t) == ref:
                continue
            key = f"{m}, {t} vs {ref[0]}, {ref[1]}"
            cols[key] = series - change[ref]
            meta.append({"reference": f"{ref[0]}, {ref[1]}", "model": m, "template": t})
    if not cols:
        return pd.DataFrame(columns=cols_out)
    out = pd.concat(
        [pd.DataFrame(meta), mean_intervals(pd.DataFrame(cols), n_bootstrap, seed)], axis=1
    )
    return out[cols_out]


def authors_legend() -> pd.DataFrame:
    """The ACE values the authors' notebook wrote into the legend of an earlier version of
    Figure 6 (gemma-2b and gemma-7b, authors' repository, not printed in the paper), with the
    change of each injected template against the plain one."""
    legend = reported("kissling2026_fig_calibration_curves_epistemic_legend")
    plain = legend[legend["template"] == PLAIN].set_index("model")["ace"]
    out = legend[["model", "template", "legend_label", "ace"]].copy()
    out["change"] = (out["ace"] - out["model"].map(plain)).round(3)
    out.attrs = legend.attrs
    return out


def run(params: Params) -> LinguisticResult:
    """The linguistic chapter with ``params``: score the plain and the seven injected templates
    (:func:`calib.scoring.run.score_bear`; the score cache keeps each (relation, template,
    instance) once, so the other BEAR chapters on the same sample share the plain scores), then
    :func:`result_from_scores`.

    Parameters
    ----------
    params : calib.experiments.linguistic.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.linguistic.LinguisticResult
        What the chapter's page shows, with ``params``.
    """
    from calib.scoring.run import score_bear

    p = params
    scores = score_bear(
        list(p.models),
        [PLAIN, *LINGUISTIC],
        p.per_relation,
        p.seed,
        list(p.relations) if p.relations else None,
    )
    return result_from_scores(scores, p)


def result_from_scores(scores: pd.DataFrame, params: Params) -> LinguisticResult:
    """Every step of the module on a score table of the plain and the injected templates (the
    models of ``scores`` are those of ``params.models``)."""
    p = params
    est = linguistic_estimates(scores, reduction=p.reduction)
    calibration = template_calibration(est, p.n_bootstrap, p.seed, p.floor_draws)
    effects = injection_effects(est, n_bootstrap=p.n_bootstrap, seed=p.seed)
    numeric = numeric_differences(est, n_bootstrap=p.n_bootstrap, seed=p.seed)
    diagram = reliability(est, n_bins=p.curve_bins)
    models = model_table(list(dict.fromkeys(est["model"])))
    pairs = size_pairs(models)
    references = [largest_drop_cell(effects)]
    names = dict(zip(models["paper_name"], models["model"]))
    paper_model = names.get(LARGEST_DROP_CELL[0])
    if paper_model is not None and (paper_model, LARGEST_DROP_CELL[1]) not in references:
        references.append((paper_model, LARGEST_DROP_CELL[1]))
    return LinguisticResult(
        params=p,
        n_facts=int(effects["n"].iloc[0]),
        n_relations=int(scores["relation"].nunique()),
        injected=[t for t in dict.fromkeys(est["template"]) if t != PLAIN],
        models=models,
        calibration=calibration,
        effects=effects,
        ace_changes=ace_changes(effects, calibration),
        curves=diagram.curve,
        histograms=diagram.histogram,
        levels=stated_levels(est, calibration),
        numeric=numeric,
        grounding=grounding_checks(effects, numeric),
        pairs=pairs,
        sensitivity=sensitivity(est, p.n_bootstrap, p.seed),
        sensitivity_pairs=pair_differences(est, pairs, "sensitivity", p.n_bootstrap, p.seed),
        alignment=alignment(est, p.n_bootstrap, p.seed),
        alignment_pairs=pair_differences(est, pairs, "alignment", p.n_bootstrap, p.seed),
        drops=drop_comparisons(est, references, p.n_bootstrap, p.seed),
        authors_legend=authors_legend(),
    )


# ---------------------------------------------------------------------------------------------
# the claims of §6, Appendix G and the Introduction: evidence from the paper's printed numbers
# and from this build, and rules

BUILD_SOURCE = "this build, 95% paired bootstrap intervals over facts"
#: the paper prints no number for these figures
FIGURES_NOTE = (
    "Figures 5, 6 and 11 print no numbers (bars and curves only), and the text "
    "states none for this claim"
)


def _effect_rows(result: LinguisticResult, quantity: str) -> pd.DataFrame:
    """Evidence rows of one quantity of :func:`injection_effects`: ``unit`` "model, template",
    ``difference`` = ``delta``, with ``paper_name``."""
    eff = result.effects[result.effects["quantity"] == quantity]
    names = dict(zip(result.models["model"], result.models["paper_name"]))
    return pd.DataFrame(
        {
            "unit": eff["model"] + ", " + eff["template"],
            "model": eff["model"],
            "paper_name": eff["model"].map(names),
            "template": eff["template"],
            "difference": eff["delta"],
            "low": eff["low"],
            "high": eff["high"],
        }
    ).reset_index(drop=True)


def _counted(frame: pd.DataFrame, relation: str = "<") -> tuple[int, int, int]:
    """``(supports, undecided, n)`` of an evidence frame's units."""
    status = unit_status(frame, relation, 0.0)
    return int((status == SUPPORTS).sum()), int((status == OPEN).sum()), len(frame)


def _share(supports: int, undecided: int, n: int) -> str:
    return (
        f"{supports} of {n} ({supports / n:.0%}), {supports + undecided} of {n} counting "
        f"the undecided"
    )


# possibly_vs_numeric: "verbal weakeners such as possibly improve calibration more consistently
# than numerical weakeners"


def possibly_more_consistent(evidence: Evidence) -> Judgement:
    """``possibly_vs_numeric``: the share of models whose ACE "possibly" lowers (the 95%
    interval of ACE(possibly) - ACE(plain) below 0) against the share of (model, numeric
    weakener) cells (:data:`NUMERIC_WEAKENERS`) whose ACE is lowered. Holds when possibly's
    share of significant improvements exceeds the numeric weakeners' share even with every
    undecided numeric cell counted as an improvement; does not hold when possibly's share,
    counting every undecided model as an improvement, is at most the numeric weakeners' share
    of significant improvements; otherwise undecided. Evidence rows: ACE(injected) -
    ACE(plain) per model and ``template`` (a column)."""
    frame = evidence.frame
    pos = frame[frame["template"] == "possibly"] if len(frame) else frame
    num = frame[frame["template"].isin(NUMERIC_WEAKENERS)] if len(frame) else frame
    if pos.empty or num.empty:
        return Judgement.untestable(
            evidence.missing
            or "the evidence lacks the 'possibly' or the numeric weakener templates"
        )
    ps, pu, pn = _counted(pos)
    ns, nu, nn = _counted(num)
    text = (
        f"ACE(injected) - ACE(plain) < 0 ({evidence.source}): 'possibly' lowers ACE for "
        f"{_share(ps, pu, pn)} models; {' and '.join(NUMERIC_WEAKENERS)} for "
        f"{_share(ns, nu, nn)} model-template cells"
    )
    if ps / pn > (ns + nu) / nn:
        return Judgement(HOLDS, text)
    if (ps + pu) / pn <= ns / nn:
        return Judgement(FAILS, text)
    return Judgement(
        UNDECIDED,
        text,
        "the undecided models or cells could reverse the "
        "comparison of the shares: "
        + f"{pu} model(s) under 'possibly' and {nu} numeric cell(s) have a 95% "
        f"interval that includes 0",
    )


def possibly_more_consistent_build(result: LinguisticResult) -> Evidence:
    frame = _effect_rows(result, "ace")
    frame = frame[frame["template"].isin(["possibly", *NUMERIC_WEAKENERS])]
    within = result.ace_changes.set_index(["model", "template"])["within_floors"]
    n_within = int(
        sum(within.get((m, t), False) for m, t in zip(frame["model"], frame["template"]))
    )
    return Evidence(
        frame.reset_index(drop=True),
        f"{BUILD_SOURCE}; both ACEs within their noise floors for {n_within} of {len(frame)} cells",
    )


# certainly_it_gemma3: "for gemma-3-4b-it and gemma-3-12b-it, certainly reduces overconfidence
# and thereby lowers ACE"


def certainly_lowers_ace(evidence: Evidence) -> Judgement:
    """For each of gemma-3-4b-it and gemma-3-12b-it, "certainly" lowers ACE and the signed
    calibration gap (overconfidence): every (model, quantity) change below 0; both models
    required."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="change under 'certainly' (injected - plain)",
        unit="model-quantity cell",
        required=CERTAINLY_IT_MODELS,
        required_in="paper_name",
    )


def certainly_lowers_ace_build(result: LinguisticResult) -> Evidence:
    rows = []
    for quantity in ("ace", "gap"):
        part = _effect_rows(result, quantity)
        part = part[
            (part["template"] == "certainly") & part["paper_name"].isin(CERTAINLY_IT_MODELS)
        ]
        rows.append(part.assign(unit=part["model"] + ", " + QUANTITY_NAMES[quantity]))
    frame = pd.concat(rows, ignore_index=True)
    if frame.empty:
        return Evidence.empty(
            f"neither {' nor '.join(CERTAINLY_IT_MODELS)} is among this "
            f"build's models ({', '.join(result.params.models)})"
        )
    return Evidence(frame, BUILD_SOURCE)


# possibly_shifts_curve: "the injection of possibly shifts the calibration curve closer to the
# identity line, thereby reducing ACE"


def possibly_lowers_ace(evidence: Evidence) -> Judgement:
    """For each model of Figure 6 (base and instruction-tuned gemma-3-4b and gemma-3-12b),
    ACE(possibly) - ACE(plain) < 0; all four required."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        what="ACE(possibly) - ACE(plain)",
        unit="model",
        required=FIGURE6_MODELS,
        required_in="paper_name",
    )


def possibly_lowers_ace_build(result: LinguisticResult) -> Evidence:
    frame = _effect_rows(result, "ace")
    frame = frame[
        (frame["template"] == "possibly") & frame["paper_name"].isin(FIGURE6_MODELS)
    ].reset_index(drop=True)
    if frame.empty:
        return Evidence.empty(
            f"none of Figure 6's models ({', '.join(FIGURE6_MODELS)}) is "
            f"among this build's models ({', '.join(result.params.models)})"
        )
    return Evidence(frame.assign(unit=frame["model"]), BUILD_SOURCE)


# certainly_above_baseline: "the calibration curve under certainly can lie above the curve of
# the non-injected baseline"


def certainly_curve_above(evidence: Evidence) -> Judgement:
    """For the instruction-tuned models of Figure 6, the calibration curve under "certainly"
    lies above the plain one, measured over the whole curve: the signed gap (mean confidence
    minus accuracy) under certainly minus under plain is below 0 (accuracy higher for the
    confidence given). Holds when that interval is below 0 for both models; the claim says the
    curve *can* lie above (somewhere), so a mean gap that is not lower does not refute it: no
    "does not hold" from these numbers, only undecided."""
    judged = quantifiers.every(
        evidence,
        "<",
        0.0,
        what="gap(certainly) - gap(plain)",
        unit="model",
        required=CERTAINLY_IT_MODELS,
        required_in="paper_name",
    )
    if judged.verdict == FAILS:
        return Judgement(
            UNDECIDED,
            judged.evidence,
            "the curve under 'certainly' is not above the plain one on average; "
            "the claim is that it can lie above somewhere, which a mean over the "
            "curve cannot refute",
        )
    return judged


def certainly_curve_above_build(result: LinguisticResult) -> Evidence:
    frame = _effect_rows(result, "gap")
    frame = frame[
        (frame["template"] == "certainly") & frame["paper_name"].isin(CERTAINLY_IT_MODELS)
    ].reset_index(drop=True)
    if frame.empty:
        return Evidence.empty(
            f"neither {' nor '.join(CERTAINLY_IT_MODELS)} is among this "
            f"build's models ({', '.join(result.params.models)})"
        )
    return Evidence(frame.assign(unit=frame["model"]), BUILD_SOURCE)


# injections_accuracy: "the injections significantly reduce accuracy"


def injections_lower_accuracy(evidence: Evidence) -> Judgement:
    """Most (model, injected template) cells have a lower accuracy than the plain template
    (the 95% interval of accuracy(injected) - accuracy(plain) below 0), as
    :func:`calib.experiments.quantifiers.most` decides (the paper names one exception, so
    "every" would misstate it)."""
    return quantifiers.most(
        evidence, "<", 0.0, what="accuracy(injected) - accuracy(plain)", unit="model-template cell"
    )


def injections_lower_accuracy_build(result: LinguisticResult) -> Evidence:
    return Evidence(_effect_rows(result, "accuracy"), BUILD_SOURCE)


# larger_more_sensitive: "larger models are more sensitive to these injections, particularly to
# numerical confidence expressions"


def _two_parts(evidence: Evidence, what: str, unit: str) -> Judgement:
    """A "most" claim with parts (the evidence's ``part`` column): holds when every part
    holds, does not hold when some part does not, else undecided; each part judged by
    :func:`calib.experiments.quantifiers.most`."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or f"the evidence has no {unit}")
    judged = {
        part: quantifiers.most(
            Evidence(rows.reset_index(drop=True), evidence.source),
            ">",
            0.0,
            what=f"{what} ({part})",
            unit=unit,
        )
        for part, rows in frame.groupby("part", sort=False)
    }
    text = "; ".join(j.evidence for j in judged.values())
    verdicts = [j.verdict for j in judged.values()]
    if FAILS in verdicts:
        return Judgement(FAILS, text)
    if all(v == HOLDS for v in verdicts):
        return Judgement(HOLDS, text)
    return Judgement(
        UNDECIDED,
        text,
        "; ".join(f"{p}: {j.reason}" for p, j in judged.items() if j.verdict == UNDECIDED),
    )


def larger_more_sensitive(evidence: Evidence) -> Judgement:
    """For most pairs of consecutive sizes within a family, the larger model's mean accuracy
    drop under the injections exceeds the smaller's (part ``all injections``), and the excess
    is larger for the numeric injections than for the verbal ones (part ``numeric beyond
    verbal``); both parts must hold (``_two_parts``)."""
    return _two_parts(evidence, "accuracy drop(larger) - accuracy drop(smaller)", "size pair")


def pairs_note(models: pd.DataFrame) -> str:
    """Why :func:`size_pairs` found no pair among the rows of :func:`model_table`."""
    listed = ", ".join(
        f"{m} ({f or 'no family'}, {s or 'no size'})"
        for m, f, s in zip(models["model"], models["family"], models["size"])
    )
    return (
        f"no two models of this build are sizes of one family with the same instruction "
        f"tuning: {listed}"
    )


def larger_more_sensitive_build(result: LinguisticResult) -> Evidence:
    if result.sensitivity_pairs.empty:
        return Evidence.empty(pairs_note(result.models))
    return Evidence(result.sensitivity_pairs, BUILD_SOURCE)


# largest_drop: gemma-7b's -15 pp under "I'm 25% confident" is the largest decrease; roberta-base's
# +0.2 pp under "certainly" the only increase


def largest_drop_rule(evidence: Evidence) -> Judgement:
    """Appendix G's two cells: every other cell's accuracy change minus gemma-7b's under
    numeric-25 is above 0 (part ``largest``: no other cell falls as far), roberta-base's change
    under certainly is above 0 (part ``gain``) and every other cell's change is at most 0 (part
    ``no other gain``). Units carry their threshold relation in ``relation``; every unit must
    support the claim (:func:`calib.experiments.quantifiers.every` per relation), and both
    models are required."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or "no accuracy change was scored")
    judged = [
        quantifiers.every(
            Evidence(rows.reset_index(drop=True), evidence.source),
            relation,
            0.0,
            what=f"{part}",
            unit="cell",
        )
        for (part, relation), rows in frame.groupby(["part", "relation"], sort=False)
    ]
    text = "; ".join(j.evidence for j in judged)
    verdicts = [j.verdict for j in judged]
    if FAILS in verdicts:
        return Judgement(FAILS, text)
    present = set(frame["paper_name"]) if "paper_name" in frame.columns else set()
    lacking = [m for m in (LARGEST_DROP_CELL[0], ONLY_GAIN_CELL[0]) if m not in present]
    if lacking:
        return Judgement.untestable(
            evidence.missing or f"the evidence has no {', '.join(lacking)}", evidence=text
        )
    if all(v == HOLDS for v in verdicts):
        return Judgement(HOLDS, text)
    return Judgement(UNDECIDED, text, "; ".join(j.reason for j in judged if j.verdict == UNDECIDED))


def largest_drop_paper() -> Evidence:
    """The two cells Appendix G prints (``largest_accuracy_drop``, ``only_accuracy_gain`` of
    the paper's text numbers), as fractions: the gain cell minus the drop cell (``largest``),
    the gain (``gain``) and the drop as the one other printed cell (``no other gain``)."""
    nums = reported("kissling2026_text_numbers").set_index("key")["value"]
    drop, gain = nums["largest_accuracy_drop"] / 100, nums["only_accuracy_gain"] / 100
    d, g = ", ".join(LARGEST_DROP_CELL), ", ".join(ONLY_GAIN_CELL)
    frame = pd.DataFrame(
        [
            {
                "unit": f"{g} vs {d}",
                "part": "change(other cell) - change(gemma-7b, numeric-25)",
                "relation": ">",
                "value": gain - drop,
                "paper_name": ONLY_GAIN_CELL[0],
            },
            {
                "unit": g,
                "part": "change(roberta-base, certainly)",
                "relation": ">",
                "value": gain,
                "paper_name": ONLY_GAIN_CELL[0],
            },
            {
                "unit": d,
                "part": "change(other cell)",
                "relation": "<=",
                "value": drop,
                "paper_name": LARGEST_DROP_CELL[0],
            },
        ]
    )
    return Evidence(
        quantifiers.printed(frame, "value"),
        "Appendix G's text, printed values (accuracy as a fraction: -0.15 = -15 pp)",
    )


def largest_drop_build(result: LinguisticResult) -> Evidence:
    acc = _effect_rows(result, "accuracy")
    top_model, top_template = largest_drop_cell(result.effects)
    top = acc[(acc["model"] == top_model) & (acc["template"] == top_template)].iloc[0]
    here = f"{top_model} under {top_template}: {quantifiers.interval_text(top)}"
    if top["difference"] >= 0:
        here = f"none (no cell's accuracy falls; the smallest change: {here})"
    names = dict(zip(result.models["model"], result.models["paper_name"]))
    by_paper = {v: k for k, v in names.items()}
    drop_model, gain_model = (by_paper.get(LARGEST_DROP_CELL[0]), by_paper.get(ONLY_GAIN_CELL[0]))
    if drop_model is None or gain_model is None:
        lacking = [
            m
            for m, b in ((LARGEST_DROP_CELL[0], drop_model), (ONLY_GAIN_CELL[0], gain_model))
            if b is None
        ]
        ref = result.drops[result.drops["reference"] == f"{top_model}, {top_template}"]
        s, _u, n = _counted(ref, ">")
        return Evidence.empty(
            f"{' and '.join(lacking)} not among this build's models; this build's largest "
            f"accuracy decrease: {here} (accuracy as a fraction), significantly larger than "
            f"{s} of the other {n} cells' (95% paired intervals)",
            BUILD_SOURCE,
        )
    # the claim is about the paper's models: the cells of this build's other models are left out
    paper = set(result.models.loc[result.models["in_paper"], "model"])
    acc = acc[acc["model"].isin(paper)]
    ref = f"{drop_model}, {LARGEST_DROP_CELL[1]}"
    largest = result.drops[(result.drops["reference"] == ref) & result.drops["model"].isin(paper)]
    largest = largest.assign(
        part="change(other cell) - change(gemma-7b, numeric-25)",
        relation=">",
        paper_name=largest["model"].map(names),
    )
    is_gain = (acc["model"] == gain_model) & (acc["template"] == ONLY_GAIN_CELL[1])
    gain = acc[is_gain].assign(part="change(roberta-base, certainly)", relation=">")
    others = acc[~is_gain].assign(part="change(other cell)", relation="<=")
    cols = ["unit", "part", "relation", "paper_name", "difference", "low", "high"]
    frame = pd.concat([largest[cols], gain[cols], others[cols]], ignore_index=True)
    return Evidence(frame, f"{BUILD_SOURCE}; this build's largest decrease: {here}")


# scale_dependency: "while smaller models are "semantically blind" to expressions of doubt,
# larger models begin to align their internal confidence with linguistic cues"


def larger_align_more(evidence: Evidence) -> Judgement:
    """For most pairs of consecutive sizes within a family, the larger model's alignment of
    Base-Confidence with the cues (:func:`alignment`) exceeds the smaller's."""
    return quantifiers.most(
        evidence, ">", 0.0, what="alignment(larger) - alignment(smaller)", unit="size pair"
    )


def larger_align_more_build(result: LinguisticResult) -> Evidence:
    if result.alignment_pairs.empty:
        return Evidence.empty(pairs_note(result.models))
    return Evidence(result.alignment_pairs, BUILD_SOURCE)


PAPER_PROFILE = "`calib book --profile paper`"

CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="scale_dependency",
        paper="kissling2026",
        section="Introduction",
        quote="our results suggest a clear scale-dependency for linguistic confidence: while "
        'smaller models are "semantically blind" to expressions of doubt, larger '
        "models begin to align their internal confidence with linguistic cues",
        statement="Within a model family, the larger model's Base-Confidence follows the "
        "linguistic cues more than the smaller's: the alignment (the mean over "
        "'possibly', 'certainly' and numeric-100 vs numeric-0 of the change of mean "
        "confidence in the direction the cue states) is higher for the larger "
        "model of most pairs of consecutive sizes",
        quantifier="most",
        metrics=("confidence",),
        about="pairs of consecutive sizes of one family (instruction tuning alike)",
        chapter="linguistic",
        rule=larger_align_more,
        paper_evidence=None,
        build_evidence=larger_align_more_build,
        paper_note=FIGURES_NOTE,
        needs=f"two or more sizes of one family (e.g. gpt2 .. gpt2-xl, opt-125m .. opt-6.7b, "
        f"gemma-3-270m-it .. gemma-3-12b-it): {PAPER_PROFILE}",
    ),
    Claim(
        key="possibly_vs_numeric",
        paper="kissling2026",
        section="§6",
        quote="verbal weakeners such as possibly improve calibration more consistently than "
        "numerical weakeners such as “I’m 0% confident…”, which exhibit lower and more "
        "variable effects across models",
        statement="'possibly' lowers ACE in a larger share of models than the numeric "
        "weakeners ('I'm 0% / 25% confident') lower it in (model, template) cells, "
        "each improvement judged by its 95% paired interval",
        quantifier="comparison",
        metrics=("ace",),
        about="every model",
        chapter="linguistic",
        rule=possibly_more_consistent,
        paper_evidence=None,
        build_evidence=possibly_more_consistent_build,
        paper_note="Figure 5 prints no numbers: its ACE differences are shown only as bars",
        needs="any models on BEAR's injected templates",
    ),
    Claim(
        key="certainly_it_gemma3",
        paper="kissling2026",
        section="§6",
        quote="for gemma-3-4b-it and gemma-3-12b-it, certainly reduces overconfidence and "
        "thereby lowers ACE",
        statement="For gemma-3-4b-it and for gemma-3-12b-it, 'certainly' lowers the signed "
        "calibration gap (overconfidence) and the ACE of Base-Confidence against "
        "the plain template",
        quantifier="every",
        metrics=("ace", "gap"),
        about="gemma-3-4b-it, gemma-3-12b-it",
        chapter="linguistic",
        rule=certainly_lowers_ace,
        paper_evidence=None,
        build_evidence=certainly_lowers_ace_build,
        paper_note="Figure 5 prints no numbers; the text states the direction only",
        needs=f"gemma-3-4b-it and gemma-3-12b-it: {PAPER_PROFILE}",
    ),
    Claim(
        key="possibly_shifts_curve",
        paper="kissling2026",
        section="§6",
        quote="the injection of possibly shifts the calibration curve closer to the identity "
        "line, thereby reducing ACE",
        statement="For the base and instruction-tuned gemma-3-4b and gemma-3-12b, 'possibly' "
        "lowers the ACE of Base-Confidence against the plain template",
        quantifier="every",
        metrics=("ace",),
        about="gemma-3-4b, gemma-3-4b-it, gemma-3-12b, gemma-3-12b-it (Figure 6)",
        chapter="linguistic",
        rule=possibly_lowers_ace,
        paper_evidence=None,
        build_evidence=possibly_lowers_ace_build,
        paper_note="Figure 6 prints no numbers in the text (its ACE values are in the "
        "figure's legend only); the authors' repository holds legend values for "
        "gemma-2b and gemma-7b of an earlier version, other models",
        needs="gemma-3-4b-it and gemma-3-12b-it (`calib book --profile paper`) and the base "
        "models google/gemma-3-4b-pt and google/gemma-3-12b-pt, which the paper's "
        "Table 3 does not list: `calib run linguistic --profile paper -p models "
        '\'["gemma-3-4b-it", "gemma-3-12b-it", "google/gemma-3-4b-pt", '
        '"google/gemma-3-12b-pt"]\'`',
    ),
    Claim(
        key="certainly_above_baseline",
        paper="kissling2026",
        section="§6",
        quote="for the instruction-tuned models, where the calibration curve under certainly "
        "can lie above the curve of the non-injected baseline",
        statement="For gemma-3-4b-it and gemma-3-12b-it the calibration curve under "
        "'certainly' lies above the plain template's: judged over the whole curve, "
        "the signed gap (mean confidence minus accuracy) is lower under "
        "'certainly' (a mean that is not lower cannot refute 'can lie above')",
        quantifier="every",
        metrics=("gap",),
        about="gemma-3-4b-it, gemma-3-12b-it",
        chapter="linguistic",
        rule=certainly_curve_above,
        paper_evidence=None,
        build_evidence=certainly_curve_above_build,
        paper_note="Figure 6 prints no numbers (calibration curves only)",
        needs=f"gemma-3-4b-it and gemma-3-12b-it: {PAPER_PROFILE}",
    ),
    Claim(
        key="injections_accuracy",
        paper="kissling2026",
        section="Appendix G",
        quote="we find that the injections significantly reduce accuracy",
        statement="In most (model, injected template) cells accuracy is lower than under the "
        "plain template (95% paired interval below 0)",
        quantifier="most",
        metrics=("accuracy",),
        about="every model and injected template",
        chapter="linguistic",
        rule=injections_lower_accuracy,
        paper_evidence=None,
        build_evidence=injections_lower_accuracy_build,
        paper_note="Figure 11 prints no numbers; the text prints only the two extreme cells "
        "(-15 pp for gemma-7b under numeric-25, +0.2 pp for roberta-base under "
        "certainly), which are no sample of the cells",
        needs="any models on BEAR's injected templates",
    ),
    Claim(
        key="larger_more_sensitive",
        paper="kissling2026",
        section="Appendix G",
        quote="We also observe that larger models are more sensitive to these injections, "
        "particularly to numerical confidence expressions.",
        statement="For most pairs of consecutive sizes within a family, the larger model's "
        "mean accuracy drop under the injections is larger than the smaller's, and "
        "more so for the numeric injections than for the verbal ones",
        quantifier="most",
        metrics=("accuracy",),
        about="pairs of consecutive sizes of one family (instruction tuning alike)",
        chapter="linguistic",
        rule=larger_more_sensitive,
        paper_evidence=None,
        build_evidence=larger_more_sensitive_build,
        paper_note="Figure 11 prints no numbers; the text prints two cells of different "
        "model families, which compare no sizes",
        needs=f"two or more sizes of one family (e.g. gpt2 .. gpt2-xl, opt-125m .. opt-6.7b, "
        f"gemma-3-270m-it .. gemma-3-12b-it): {PAPER_PROFILE}",
    ),
    Claim(
        key="largest_drop",
        paper="kissling2026",
        section="Appendix G",
        quote="gemma-7b shows a drop of 15 percentage points in accuracy for the injection of "
        '"I’m 25% confident….", the largest decrease observed overall. The only LM '
        "where we observe a slight improvement compared to the unaltered template is "
        "roberta-base, where accuracy increased by 0.2 percentage points for the "
        'injection of "certainly"',
        statement="gemma-7b's accuracy change under numeric-25 (-15 pp) is the largest "
        "decrease of all (model, injected template) cells, and roberta-base's under "
        "'certainly' (+0.2 pp) is the only increase",
        quantifier="every",
        metrics=("accuracy",),
        about="every (model, injected template) cell; gemma-7b and roberta-base",
        chapter="linguistic",
        rule=largest_drop_rule,
        paper_evidence=largest_drop_paper,
        build_evidence=largest_drop_build,
        paper_note="the paper prints these two cells only (Appendix G's text; Figure 11 "
        "prints no numbers), so its side checks that the printed numbers agree "
        "with each other, not that no other cell falls further",
        needs=f"gemma-7b and roberta-base with the other models: {PAPER_PROFILE}",
    ),
)
