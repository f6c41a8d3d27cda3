"""Statistics over several models and templates on one sample of facts (Kissling et al. 2026,
Appendix G and the Introduction): weighted means of per-fact columns on the same bootstrap
resamples (paired), the sensitivity and the alignment of each model, their differences between
the sizes of a family, and the accuracy drops against a reference cell.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import interval, interval_p_value, jackknife, replicates
from calib.confidence.schema import require_columns
from calib.data.bear import LINGUISTIC, NUMERIC, PLAIN
from calib.scoring.schema import FACT

#: the verbal and the numeric injections (§3.3)
VERBAL: tuple[str, ...] = ("possibly", "certainly")
#: the cells Appendix G prints: the largest accuracy drop and the only gain
LARGEST_DROP_CELL: tuple[str, str] = ("gemma-7b", "numeric-25")


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
        for m in dict.fromkeys(est["model"].unique())
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
        for m in dict.fromkeys(est["model"].unique())
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
    """Per size pair (:func:`~calib.experiments.linguistic.models.size_pairs`): the larger model's
    statistic minus the smaller's, with a 95% paired BCa interval over facts.

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
    (:func:`~calib.experiments.linguistic.injections.injection_effects`' ``accuracy`` rows)."""
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
    models = list(dict.fromkeys(est["model"].unique()))
    injected = [t for t in dict.fromkeys(est["template"].unique()) if t != plain]
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
