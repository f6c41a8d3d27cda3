"""The calibration chapter's tables (Kissling et al. 2026, §5.1): Table 1 of this build with
intervals and noise floors, the other calibration errors, the paper's accuracy (averaged over
the five paraphrases) and paired differences between estimators of one model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import difference_interval, estimator_differences, metric_statistic
from calib.confidence.metrics import N_BINS
from calib.confidence.noise_floor import N_DRAWS
from calib.confidence.probabilities import template_predictions
from calib.confidence.summary import summary
from calib.data.bear import PARAPHRASES
from calib.experiments.calibration.estimators import (
    EXTRA_BLOCK,
    PAPER_BLOCK,
    RECALIBRATED_BLOCK,
    TEMPERATURE,
    estimator_block,
    paper_estimators,
    paraphrase_sentences,
)
from calib.experiments.paper_tables import calib_estimator
from calib.scoring.schema import FACT

#: the key of the accuracy averaged over the five paraphrases in the cross-model contrasts
TEMPLATES = "five templates"


# ---------------------------------------------------------------------------------------------
# tables


def _ordered(
    frame: pd.DataFrame, like: pd.DataFrame, columns: Sequence[str] = ("model", "estimator")
) -> pd.DataFrame:
    """``frame``'s rows in the order in which the values of ``columns`` first appear in
    ``like``."""
    out = frame.copy()
    keys = []
    for col in columns:
        rank = {v: i for i, v in enumerate(like[col].unique())}  # first-seen order
        out[f"_{col}"] = out[col].map(rank)
        keys.append(f"_{col}")
    return out.sort_values(keys, kind="stable").drop(columns=keys).reset_index(drop=True)


def calibration_table(
    est: pd.DataFrame,
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """Table 1 of this run: per model and estimator the ACE (``n_bins`` quantile bins), the
    Brier score and the accuracy (§4.3), each with a 95% bootstrap interval over instances
    (``n_bootstrap`` resamples; 0 skips them), the number of instances ``n`` and the voting
    rejection rate. Estimators of one model share their resamples (paired intervals).

    Beyond the paper, every ACE has its noise floor (``ace_floor`` ... ``ace_debiased_high``,
    :func:`calib.confidence.noise_floor.floor_record`, from ``n_draws`` simulated perfectly
    calibrated outcome vectors), and each row its ``block``
    (:func:`~calib.experiments.calibration.estimators.estimator_block`): the blocks come one after
    the other, the paper's first."""
    table = summary(
        est,
        by=["model", "estimator"],
        n_bins=n_bins,
        n_boot=n_bootstrap,
        seed=seed,
        metrics=("ace", "brier", "accuracy"),
        floor=("ace",),
        n_draws=n_draws,
    )
    table = _ordered(table, est)
    table.insert(0, "block", [estimator_block(e) for e in table["estimator"]])
    order = {b: i for i, b in enumerate((PAPER_BLOCK, RECALIBRATED_BLOCK, EXTRA_BLOCK))}
    return table.sort_values("block", key=lambda s: s.map(order), kind="stable").reset_index(
        drop=True
    )


def error_table(
    est: pd.DataFrame,
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """ECE, MCE and RMS calibration error (equal-width bins, torchmetrics' ``norm="l1"``,
    ``"max"``, ``"l2"``; :mod:`calib.confidence.metrics`) per model and estimator with their
    bootstrap intervals and noise floors (beyond the paper; the chapter's downloads)."""
    metrics = ("ece", "mce", "rms")
    table = summary(
        est,
        by=["model", "estimator"],
        n_bins=n_bins,
        n_boot=n_bootstrap,
        seed=seed,
        metrics=metrics,
        floor=metrics,
        n_draws=n_draws,
    )
    return _ordered(table, est)


def template_correct(
    scores: pd.DataFrame,
    reduction: str = "sum",
    paraphrases: Sequence[str] = PARAPHRASES,
    sent: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Per model and fact, the share of the ``paraphrases`` whose Base prediction (the
    arg-max option, §3) is correct: ``model``, the fact keys, ``fraction``, ``n_templates``.
    A fact must have been scored under every paraphrase (else ``ValueError``). ``sent``: their
    sentence scores where computed already
    (:func:`~calib.experiments.calibration.estimators.paraphrase_sentences`)."""
    if sent is None:
        sent = paraphrase_sentences(scores, reduction, paraphrases[0], paraphrases)
    per = template_predictions(sent)
    grouped = per.groupby(["model", *FACT], sort=False)["correct"]
    out = grouped.agg(fraction="mean", n_templates="size").reset_index()
    short = out[out["n_templates"] != len(paraphrases)]
    if len(short):
        raise ValueError(
            f"{len(short)} fact(s) lack some of the paraphrases {list(paraphrases)}"
            f", e.g. {short.iloc[0][['model', *FACT]].to_dict()}"
        )
    return out


def template_accuracy(
    correct: pd.DataFrame, plain: pd.DataFrame | None = None, n_bootstrap: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """The paper's accuracy (Table 2's caption: "the average over all templates"; Table 3
    prints the same values): per model the accuracy of the Base prediction on each paraphrase,
    averaged over the paraphrases, with a 95% BCa bootstrap interval over facts (the
    templates of a fact resampled together). ``correct``: :func:`template_correct`.
    ``plain``: the calibration table, for the one-template accuracy Base and Margin use
    (``accuracy_plain``). Columns ``model``, ``n``, ``n_templates``, ``accuracy``,
    ``accuracy_low``, ``accuracy_high`` (and ``accuracy_plain``)."""
    frame = correct.assign(
        estimator=TEMPLATES, confidence=0.0, correct=correct["fraction"].to_numpy(float)
    )
    rows = []
    for model, part in frame.groupby("model", sort=False):
        y = part.sort_values(list(FACT))["correct"].to_numpy(float)
        stat = metric_statistic("accuracy", np.zeros(len(y)), y)[0]
        res = (
            difference_interval(stat, len(y), "bca", n_bootstrap, seed, metric="accuracy")
            if n_bootstrap
            else {"difference": float(y.mean()), "low": np.nan, "high": np.nan}
        )
        rows.append(
            {
                "model": model,
                "n": len(y),
                "n_templates": int(part["n_templates"].iloc[0]),
                "accuracy": res["difference"],
                "accuracy_low": res["low"],
                "accuracy_high": res["high"],
            }
        )
    out = pd.DataFrame(rows)
    if plain is not None:
        base = plain[plain["estimator"] == "Base"].set_index("model")["accuracy"]
        out["accuracy_plain"] = out["model"].map(base)
    return out


def estimator_comparisons(
    est: pd.DataFrame,
    pairs: Sequence[tuple[str, str]],
    metrics: Sequence[str] = ("ace", "brier"),
    n_bootstrap: int = 1000,
    seed: int = 0,
    n_bins: int = N_BINS,
) -> pd.DataFrame:
    """Paired bootstrap differences ``metric(a) - metric(b)`` on the same instances, for each
    model and each ``(a, b)`` pair of estimators
    (:func:`calib.confidence.bootstrap.estimator_differences`), models in the order of
    ``est``. Columns ``model``, ``a``, ``b``, ``metric``, ``difference``, ``low``, ``high``
    (95% interval), ``method``, ``p_value``, ``n``, ``n_boot``."""
    if n_bootstrap < 1:
        raise ValueError("estimator_comparisons needs n_bootstrap >= 1 (a paired bootstrap)")
    have = set(est["estimator"].unique())
    unknown = sorted({e for p in pairs for e in p if e not in have})
    if unknown:
        raise ValueError(f"estimator(s) {unknown} not in the estimate table; it has {sorted(have)}")
    out = estimator_differences(
        est, list(pairs), metrics, ("model",), n_bootstrap, seed, n_bins=n_bins
    )
    rank = {m: i for i, m in enumerate(dict.fromkeys(est["model"].unique()))}
    pair_rank = {p: i for i, p in enumerate(pairs)}
    metric_rank = {m: i for i, m in enumerate(metrics)}
    out = out.assign(
        _m=out["model"].map(rank),
        _p=[pair_rank[(a, b)] for a, b in zip(out["a"], out["b"])],
        _k=out["metric"].map(metric_rank),
    )
    return (
        out.sort_values(["_k", "_m", "_p"], kind="stable")
        .drop(columns=["_m", "_p", "_k"])
        .reset_index(drop=True)
    )


def comparison_pairs(aggregation: str = "min", recalibrated: bool = True) -> list[tuple[str, str]]:
    """The estimator pairs the chapter compares (and its claims use): Margin vs Base, Average
    vs each other estimator of the paper, and (beyond the paper) Average vs ``Base
    (temperature)``."""
    avg = calib_estimator("Average", aggregation)
    pairs = [("Margin", "Base"), *[(avg, o) for o in paper_estimators(aggregation) if o != avg]]
    return pairs + ([(avg, f"Base{TEMPERATURE}")] if recalibrated else [])


# ---------------------------------------------------------------------------------------------
# the chapter


def below_zero(est: pd.DataFrame) -> pd.DataFrame:
    """Per estimator and model with any confidence below 0 (the paper's Entropy, Eq. 7): how
    many (``below``) of ``n``, and the lowest."""
    counts = (
        est.assign(below=est["confidence"] < 0)
        .groupby(["estimator", "model"], sort=False)
        .agg(below=("below", "sum"), n=("below", "size"), lowest=("confidence", "min"))
        .reset_index()
    )
    return counts[counts["below"] > 0].reset_index(drop=True)
