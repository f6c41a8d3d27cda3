"""What the injected templates do (Kissling et al. 2026, §6, Figures 5, 6 and 11): Base-Confidence
under the plain and the injected templates, the calibration per template, the paired change of
ACE, accuracy, mean confidence and signed gap under each injection, reliability diagrams, the
stated levels and the numeric templates against each other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import difference_interval, paired_estimates_difference
from calib.confidence.estimators import linguistic
from calib.confidence.metrics import N_BINS
from calib.confidence.noise_floor import N_DRAWS, debiased
from calib.confidence.reductions import sentence_scores
from calib.confidence.reliability import reliability_diagram
from calib.confidence.schema import INSTANCE, require_columns
from calib.confidence.summary import summary
from calib.data.bear import LINGUISTIC, NUMERIC, PLAIN
from calib.data.reported import reported

#: the templates of Figure 6: plain, weakened, strengthened
CURVE_TEMPLATES: tuple[str, ...] = (PLAIN, "possibly", "certainly")


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
    missing = [t for t in wanted if t not in set(scores["template"].unique())]
    if missing:
        raise ValueError(
            f"the score table lacks template(s) {missing}; the linguistic comparison needs {wanted}"
        )
    sent = sentence_scores(scores[scores["template"].isin(wanted)], reduction)
    est = linguistic(sent, list(injected), plain)
    models = list(dict.fromkeys(scores["model"].unique()))
    est["_m"] = est["model"].map({m: i for i, m in enumerate(models)})
    est["_t"] = est["template"].map({t: i for i, t in enumerate(wanted)})
    return (
        est.sort_values(["_m", "_t", *INSTANCE[1:]], kind="stable")
        .drop(columns=["_m", "_t"])
        .reset_index(drop=True)
    )


def _ordered(frame: pd.DataFrame, est: pd.DataFrame) -> pd.DataFrame:
    """``frame`` sorted by the order of the models and templates in ``est``."""
    models = {m: i for i, m in enumerate(dict.fromkeys(est["model"].unique()))}
    templates = {t: i for i, t in enumerate(dict.fromkeys(est["template"].unique()))}
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
    for model in dict.fromkeys(est["model"].unique()):
        base = _template(est, model, plain)
        for template in [t for t in dict.fromkeys(est["template"].unique()) if t != plain]:
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
    missing = [t for t in templates if t not in set(est["template"].unique())]
    if missing:
        raise ValueError(f"template(s) {missing} not in the linguistic estimates")
    part = est[est["template"].isin(list(templates))]
    order = {t: i for i, t in enumerate(templates)}
    part = (
        part.assign(_t=part["template"].map(order))
        .sort_values(["_t"], kind="stable")
        .drop(columns="_t")
    )
    models = {m: i for i, m in enumerate(dict.fromkeys(est["model"].unique()))}
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
    for model in dict.fromkeys(est["model"].unique()):
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
