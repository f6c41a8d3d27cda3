"""Linguistic confidence: injected epistemic markers (Kissling et al. 2026, §6, Figures 5, 6, 11).

Every BEAR instance is also scored with templates that *say* how sure the statement is:
``possibly``, ``certainly`` and ``numeric-0`` .. ``numeric-100`` ("I'm 25% confident ...").
A model that encoded what these words mean would be less confident under "possibly", more
under "certainly", and its confidence would rise with the stated number. This module compares
Base-Confidence (Eq. 1) under each injected template with the plain template
(``paraphrase-0``) on the same instances:

==================================  ==========================================================
function                            result
==================================  ==========================================================
:func:`linguistic_estimates`        Base-Confidence per instance under plain and injected
                                    templates (:func:`calib.confidence.linguistic`)
:func:`injection_effects`           per model and injection: the change in ACE (Fig. 5), in
                                    accuracy (Fig. 11) and in mean confidence, each a paired
                                    bootstrap difference with a 95% interval
:func:`linguistic_curves`           calibration curves under plain / possibly / certainly
                                    (Fig. 6)
:func:`stated_levels`               mean Base-Confidence and accuracy per stated numeric level
:func:`grounding_checks`            does each model move its confidence the way the words say?
==================================  ==========================================================
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import difference_interval, paired_estimates_difference
from calib.confidence.estimators import linguistic
from calib.confidence.metrics import N_BINS
from calib.confidence.reductions import sentence_scores
from calib.confidence.summary import summary
from calib.confidence.schema import INSTANCE, require_columns
from calib.data.bear import LINGUISTIC, NUMERIC, PLAIN
from calib.experiments.calibration import calibration_curves
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import CONTRADICTS, SUPPORTS, Evidence, unit_status
from calib.experiments.verdicts import Judgement, unit_tally
from calib.experiments.verdicts import FAILS, HOLDS, UNDECIDED

__all__ = ["LINGUISTIC", "CURVE_TEMPLATES", "EXPECTED_DIRECTION", "linguistic_estimates",
           "paired_confidence_difference", "injection_effects", "linguistic_curves",
           "stated_levels", "numeric_differences", "grounding_checks", "grounding_tally"]

#: the templates of Figure 6: plain, weakened, strengthened
CURVE_TEMPLATES: tuple[str, ...] = (PLAIN, "possibly", "certainly")
#: the direction a grounded model would move its confidence, per injected marker
EXPECTED_DIRECTION = {"possibly": "lower", "certainly": "higher"}


def linguistic_estimates(scores: pd.DataFrame, injected: Sequence[str] = LINGUISTIC,
                         plain: str = PLAIN, reduction: str = "sum") -> pd.DataFrame:
    """Base-Confidence per instance under ``plain`` and each ``injected`` template, on the
    instances scored with all of them (§6; :func:`calib.confidence.estimators.linguistic`).

    Other templates of ``scores`` are dropped first. Long format: ``model, dataset, relation,
    instance, template, prediction, correct, confidence, stated`` (the numeric templates'
    stated confidence, NaN otherwise), rows in the order of the models in ``scores`` and of
    ``[plain, *injected]``."""
    require_columns(scores, ("template",), "score table")
    wanted = [plain, *injected]
    missing = [t for t in wanted if t not in set(scores["template"])]
    if missing:
        raise ValueError(f"the score table lacks template(s) {missing}; the linguistic "
                         f"comparison needs {wanted}")
    sent = sentence_scores(scores[scores["template"].isin(wanted)], reduction)
    est = linguistic(sent, list(injected), plain)
    models = list(dict.fromkeys(scores["model"]))
    est["_m"] = est["model"].map({m: i for i, m in enumerate(models)})
    est["_t"] = est["template"].map({t: i for i, t in enumerate(wanted)})
    return est.sort_values(["_m", "_t", *INSTANCE[1:]], kind="stable") \
        .drop(columns=["_m", "_t"]).reset_index(drop=True)


def paired_confidence_difference(conf_a, conf_b, n_bootstrap: int = 1000, seed: int = 0,
                                 level: float = 0.95) -> dict:
    """Paired bootstrap of the difference of *mean confidence* ``mean(a) - mean(b)`` on the
    same instances (entry ``i`` of both is one instance), with the resamples of
    :func:`calib.confidence.bootstrap.resample_weights` (the same stream as every other
    paired difference for this ``seed`` and number of instances) and a BCa interval. Returns
    the keys of :func:`calib.confidence.bootstrap.paired_difference` with
    ``metric="confidence"``."""
    a, b = np.asarray(conf_a, dtype=float), np.asarray(conf_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) == 0:
        raise ValueError(f"paired confidences must be two 1-D arrays of one non-zero length, "
                         f"got shapes {a.shape} and {b.shape}")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError("confidences must be finite")
    d = a - b
    return difference_interval(lambda w: w @ d / w.sum(axis=1), len(d), "bca", n_bootstrap,
                               seed, level, metric="confidence")


def _template(est: pd.DataFrame, model: str, template: str) -> pd.DataFrame:
    part = est[(est["model"] == model) & (est["template"] == template)]
    return part.sort_values(list(INSTANCE), kind="stable").reset_index(drop=True)


def injection_effects(est: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0,
                      plain: str = PLAIN, n_bins: int = N_BINS) -> pd.DataFrame:
    """Per model and injected template: the change against ``plain`` on the same instances in
    ACE (Figure 5), accuracy (Figure 11) and mean Base-Confidence, each as injected minus plain
    with a 95% paired bootstrap interval.

    Long format, one row per model, template and quantity: ``model``, ``template``,
    ``stated`` (numeric templates' stated confidence), ``quantity`` (``ace``, ``accuracy``,
    ``confidence``), ``plain`` and ``injected`` values, ``delta``, ``low``, ``high``,
    ``p_value``, ``n``."""
    require_columns(est, (*INSTANCE, "template", "confidence", "correct", "stated"),
                    "linguistic estimate table")
    if n_bootstrap < 1:
        raise ValueError("injection_effects needs n_bootstrap >= 1 (a paired bootstrap)")
    rows = []
    for model in dict.fromkeys(est["model"]):
        base = _template(est, model, plain)
        for template in [t for t in dict.fromkeys(est["template"]) if t != plain]:
            inj = _template(est, model, template)
            stated = inj["stated"].iloc[0] if len(inj) else np.nan
            for quantity in ("ace", "accuracy"):
                res = paired_estimates_difference(inj, base, quantity, n_boot=n_bootstrap,
                                                  seed=seed, n_bins=n_bins)
                point = summary(pd.concat([base, inj]), by=["template"], n_bins=n_bins,
                                n_boot=0, metrics=(quantity,)).set_index("template")[quantity]
                rows.append({"model": model, "template": template, "stated": stated,
                             "quantity": quantity, "plain": point[plain],
                             "injected": point[template], "delta": res["difference"],
                             "low": res["low"], "high": res["high"],
                             "p_value": res["p_value"], "n": res["n"]})
            if not base[list(INSTANCE)].equals(inj[list(INSTANCE)]):
                raise ValueError(f"model {model!r}: templates {plain!r} and {template!r} cover "
                                 f"different instances")
            res = paired_confidence_difference(inj["confidence"], base["confidence"],
                                               n_bootstrap, seed)
            rows.append({"model": model, "template": template, "stated": stated,
                         "quantity": "confidence", "plain": float(base["confidence"].mean()),
                         "injected": float(inj["confidence"].mean()),
                         "delta": res["difference"], "low": res["low"], "high": res["high"],
                         "p_value": res["p_value"], "n": res["n"]})
    return pd.DataFrame(rows, columns=["model", "template", "stated", "quantity", "plain",
                                       "injected", "delta", "low", "high", "p_value", "n"])


def linguistic_curves(est: pd.DataFrame, templates: Sequence[str] = CURVE_TEMPLATES,
                      n_bins: int = N_BINS) -> pd.DataFrame:
    """Calibration curves of Base-Confidence per model under ``templates`` (Figure 6: plain,
    "possibly", "certainly"); the columns of
    :func:`calib.experiments.calibration.calibration_curves` with ``template`` in place of
    ``estimator``."""
    missing = [t for t in templates if t not in set(est["template"])]
    if missing:
        raise ValueError(f"template(s) {missing} not in the linguistic estimates")
    part = est[est["template"].isin(list(templates))]
    out = calibration_curves(part.assign(estimator="Base"), n_bins=n_bins,
                             by=("model", "template"))
    order = {t: i for i, t in enumerate(templates)}
    return out.sort_values(["model", "template"], key=lambda s: s.map(order)
                           if s.name == "template" else s, kind="stable").reset_index(drop=True)


def stated_levels(est: pd.DataFrame, n_bootstrap: int = 1000, seed: int = 0,
                  n_bins: int = N_BINS) -> pd.DataFrame:
    """Does the stated numeric confidence track anything? Per model and numeric template
    (``numeric-0`` .. ``numeric-100``): the ``stated`` level, the mean Base-Confidence with its
    quartiles (``q25``, ``q75``) over instances, the accuracy and ACE with bootstrap intervals
    (:func:`calib.confidence.summary.summary`), and ``n``."""
    part = est[est["template"].isin(NUMERIC)]
    if part.empty:
        raise ValueError(f"no numeric template {list(NUMERIC)} in the linguistic estimates")
    table = summary(part, by=["model", "template"], n_bins=n_bins, n_boot=n_bootstrap,
                    seed=seed, metrics=("accuracy", "ace"))
    conf = part.groupby(["model", "template"])["confidence"].agg(
        mean_confidence="mean", q25=lambda s: s.quantile(0.25),
        q75=lambda s: s.quantile(0.75)).reset_index()
    out = table.merge(conf, on=["model", "template"])
    out["stated"] = out["template"].map({t: int(t.rpartition("-")[2]) / 100 for t in NUMERIC})
    order = {m: i for i, m in enumerate(dict.fromkeys(est["model"]))}
    out = out.sort_values(["model", "stated"], key=lambda s: s.map(order)
                          if s.name == "model" else s, kind="stable").reset_index(drop=True)
    return out[["model", "template", "stated", "n", "mean_confidence", "q25", "q75",
                "accuracy", "accuracy_low", "accuracy_high", "ace", "ace_low", "ace_high"]]


def _direction(low: float, high: float) -> str:
    return "lower" if high < 0 else "higher" if low > 0 else "undecided"


def grounding_checks(effects: pd.DataFrame, numeric: dict[str, dict] | None = None
                     ) -> pd.DataFrame:
    """Per model: does its Base-Confidence move the way the injected words say?

    * ``possibly`` should lower and ``certainly`` raise the mean confidence against the plain
      template (from the ``confidence`` rows of :func:`injection_effects`);
    * ``numeric``: the highest stated level should give a higher mean confidence than the
      lowest (from :func:`numeric_differences`, when given).

    Each is ``lower`` / ``higher`` by the 95% interval of its paired difference, or
    ``undecided`` when the interval includes 0 (``not scored`` when absent). ``grounded`` is
    True when every marker moves as expected with an interval excluding 0, False when some
    marker moves the opposite way with an interval excluding 0, None otherwise."""
    require_columns(effects, ("model", "template", "quantity", "low", "high"),
                    "injection effects")
    conf = effects[effects["quantity"] == "confidence"]
    numeric = numeric or {}
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
        if model in numeric:
            row["numeric"] = _direction(numeric[model]["low"], numeric[model]["high"])
            moves.append((row["numeric"], "higher"))
        else:
            row["numeric"] = "not scored"
        if any(d not in ("undecided", e) for d, e in moves):
            row["grounded"] = False
        elif moves and all(d == e for d, e in moves):
            row["grounded"] = True
        else:
            row["grounded"] = None
        rows.append(row)
    out = pd.DataFrame(rows, columns=["model", "possibly", "certainly", "numeric", "grounded"])
    out["grounded"] = out["grounded"].astype(object)
    return out


def numeric_differences(est: pd.DataFrame, low_level: str = "numeric-0",
                        high_level: str = "numeric-100", n_bootstrap: int = 1000,
                        seed: int = 0) -> dict[str, dict]:
    """Per model: the paired bootstrap difference of mean Base-Confidence between the
    ``high_level`` and ``low_level`` numeric templates on the same instances
    (:func:`paired_confidence_difference`)."""
    out = {}
    for model in dict.fromkeys(est["model"]):
        hi, lo = _template(est, model, high_level), _template(est, model, low_level)
        if hi.empty or lo.empty:
            continue
        out[model] = paired_confidence_difference(hi["confidence"], lo["confidence"],
                                                  n_bootstrap, seed)
    return out


def grounding_tally(checks: pd.DataFrame) -> dict:
    """Counts over models of :func:`grounding_checks` and the verdict on the paper's claim
    that the models do not encode the semantics of the expressions (a
    :class:`~calib.experiments.verdicts.Verdict`'s text): holds when every model moves some
    marker the wrong way (interval excluding 0), does not hold when some model moves every
    marker the right way, undecided otherwise; ``evidence`` a phrase with the counts."""
    g = checks["grounded"].tolist()
    wrong, right = sum(x is False for x in g), sum(x is True for x in g)
    undecided = len(g) - wrong - right
    verdict = FAILS if right else HOLDS if g and wrong == len(g) else UNDECIDED
    evidence = (f"mean Base-Confidence under 'possibly', 'certainly' and numeric-0 vs "
                f"numeric-100, paired bootstrap, 95% intervals: every marker moves as its "
                f"words say for {right}, some marker moves the opposite way for {wrong}, "
                f"undecided for {undecided} of {len(g)} model(s)")
    return {"n_models": len(g), "grounded": right, "not_grounded": wrong,
            "undecided": undecided, "verdict": verdict.value, "evidence": evidence}


# ---------------------------------------------------------------------------------------------
# the claims this chapter tests (calib.experiments.claims): rules over evidence frames and the
# paper's evidence. The chapter does not record its result yet, so build_evidence is None ("not
# run in this build") until it is converted to a chapter unit (issue 17; the reductions chapter
# is the worked example).

#: the numeric templates that weaken a statement (§6: "I'm 0% confident ...")
NUMERIC_WEAKENERS: tuple[str, ...] = ("numeric-0", "numeric-25")


def possibly_more_consistent(evidence: Evidence) -> Judgement:
    """``possibly_vs_numeric``: the share of models whose ACE 'possibly' lowers (interval below
    0) above the share of (model, numeric weakener) cells whose ACE they lower. Evidence rows:
    ACE(injected) - ACE(plain) per model and ``template`` (a column)."""
    frame = evidence.frame
    pos = frame[frame["template"] == "possibly"] if len(frame) else frame
    num = frame[frame["template"].isin(NUMERIC_WEAKENERS)] if len(frame) else frame
    if pos.empty or num.empty:
        return Judgement.untestable(evidence.missing or "the evidence lacks the 'possibly' or "
                                                        "the numeric templates")
    p = float((unit_status(pos, "<") == SUPPORTS).mean())
    q = float((unit_status(num, "<") == SUPPORTS).mean())
    verdict = HOLDS if p > q else FAILS if p < q else UNDECIDED
    text = (f"ACE(injected) - ACE(plain) ({evidence.source}): 'possibly' lowers ACE for "
            f"{p:.0%} of {len(pos)} model(s), {', '.join(NUMERIC_WEAKENERS)} for {q:.0%} of "
            f"{len(num)} model-template cells")
    return Judgement(verdict, text, "the shares are equal" if verdict == UNDECIDED else "")


def injections_lower_accuracy(evidence: Evidence) -> Judgement:
    """``injections_accuracy``: holds when at least half of the (model, injection) cells lower
    accuracy (interval below 0) and none raises it; does not hold when more cells raise it than
    lower it; undecided otherwise. Evidence rows: accuracy(injected) - accuracy(plain)."""
    frame = evidence.frame
    if frame.empty:
        return Judgement.untestable(evidence.missing or "no injected template was scored")
    status = unit_status(frame, "<")
    lower, higher = int((status == SUPPORTS).sum()), int((status == CONTRADICTS).sum())
    n = len(frame)
    verdict = HOLDS if lower * 2 >= n and not higher else FAILS if higher > lower \
        else UNDECIDED
    text = (f"accuracy(injected) - accuracy(plain) ({evidence.source}): "
            f"{unit_tally(lower, higher, n, 'model-template cell')}")
    return Judgement(verdict, text, "" if verdict != UNDECIDED else
                     "fewer than half of the cells lower accuracy, or some raise it")


CLAIMS: tuple[Claim, ...] = (
    Claim(key="possibly_vs_numeric", paper="kissling2026", section="§6",
          quote="verbal weakeners such as possibly improve calibration more consistently than "
                "numerical weakeners",
          statement="'possibly' improves calibration (lowers ACE) in more models than the "
                    "numeric weakeners ('I'm 0% / 25% confident')",
          quantifier="comparison", metrics=("ace",), about="every model",
          chapter="linguistic", rule=possibly_more_consistent, paper_evidence=None,
          build_evidence=None,
          paper_note="Figure 5 prints no numbers: its ACE differences are shown only in the "
                     "figure",
          needs="any model on BEAR's injected templates"),
    Claim(key="injections_accuracy", paper="kissling2026", section="Appendix G",
          quote="we find that the injections significantly reduce accuracy",
          statement="Injected confidence markers lower accuracy",
          quantifier="most", metrics=("accuracy",), about="every model and injected template",
          chapter="linguistic", rule=injections_lower_accuracy, paper_evidence=None,
          build_evidence=None,
          paper_note="Figure 11 prints no numbers; the text states only the largest drop "
                     "(16 pp, gemma-7b, numeric-25) and the only gain (+0.2 pp, roberta-base, "
                     "certainly)",
          needs="any model on BEAR's injected templates"),
)
