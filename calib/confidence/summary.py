"""One table of ACE / Brier / accuracy (with bootstrap intervals) per estimator; on request also
the noise floor of ACE, the signed gap, AUROC / AURC, ECE / MCE / RMS (beyond the paper).

    >>> from calib.confidence import sentence_scores, all_estimates, summary
    >>> table = summary(all_estimates(sentence_scores(scores)))   # doctest: +SKIP

Also :func:`compare_reductions`, the procedure of Appendix C that picks the sentence-score
reduction by the harmonic mean of accuracy and ``1 - ACE``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from calib.confidence.bootstrap import METRICS, check_bootstrap_args, metric_intervals
from calib.confidence.estimators import base
from calib.confidence.metrics import BINNED, N_BINS, check_inputs
from calib.confidence.noise_floor import N_DRAWS, floor_record
from calib.confidence.reductions import REDUCTIONS, harmonic_mean, sentence_scores
from calib.confidence.schema import INSTANCE, require_columns
from calib.data.bear import PLAIN

#: the grouping columns :func:`summary` uses by default, where present
DEFAULT_BY: tuple[str, ...] = ("model", "dataset", "estimator", "template")


#: the direction labels of the signed gap (see :func:`gap_direction`)
DIRECTIONS: tuple[str, ...] = ("overconfident", "underconfident", "undecided")


def gap_direction(low: float, high: float) -> str:
    """``"overconfident"`` when the interval of the signed gap (mean confidence - accuracy) lies
    above 0, ``"underconfident"`` when below, ``"undecided"`` when it includes 0 or is NaN (the
    same word as ``calib.experiments.verdicts.UNDECIDED``).

    Parameters
    ----------
    low : float
        The low end of the signed gap's interval.
    high : float
        Its high end.

    Returns
    -------
    str
        One of :data:`calib.confidence.summary.DIRECTIONS`.
    """
    if low > 0:
        return DIRECTIONS[0]
    if high < 0:
        return DIRECTIONS[1]
    return DIRECTIONS[2]


def summary(
    estimates: pd.DataFrame,
    by: Sequence[str] | None = None,
    n_bins: int = N_BINS,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    metrics: Sequence[str] = METRICS,
    floor: Sequence[str] = (),
    n_draws: int = N_DRAWS,
) -> pd.DataFrame:
    """Calibration per group of an estimate table: ACE, Brier, accuracy (paper §4.3), each
    with a bootstrap interval over instances (BCa for Brier and accuracy, bias-centred
    percentile for ACE: :data:`calib.confidence.bootstrap.INTERVAL_METHODS`), and the
    rejection rate.

    ``by``: the grouping columns; default those of :data:`DEFAULT_BY` present in
    ``estimates`` (so one row per model and estimator, and per template where an estimator
    was run on several). Columns: ``by``, ``n``, then ``<metric>``, ``<metric>_low``,
    ``<metric>_high`` for each of ``metrics`` and ``rejection_rate``. ``n_boot=0`` skips the
    intervals (NaN). Within a group the instances are sorted by their keys before resampling,
    and every group uses the same ``seed``: groups over the same instances (e.g. two
    estimators of one model) get the same resamples, so their intervals are paired; within a
    group every metric uses the same resamples.

    Opt-in, beyond the paper: ``metrics`` may also name ``"ece"``, ``"mce"``, ``"rms"``
    (:mod:`calib.confidence.metrics`), ``"gap"`` (signed calibration gap; adds
    ``gap_direction``, :func:`gap_direction`), ``"auroc"`` and ``"aurc"``
    (:mod:`calib.confidence.selective`). ``floor``: binned metrics among ``metrics`` (e.g.
    ``("ace",)``) whose noise floor to add, from ``n_draws`` simulated outcome vectors seeded
    by ``seed``: the columns of :func:`calib.confidence.noise_floor.floor_record`
    (``ace_floor``, ``ace_floor_se``, ``ace_floor_low``, ``ace_floor_high``, ``ace_floor_p``,
    ``ace_within_floor``, ``ace_debiased``, ``ace_debiased_low``, ``ace_debiased_high``).

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (:func:`calib.confidence.estimators.all_estimates`).
    by : sequence of str or None
        The grouping columns (default: those of :data:`DEFAULT_BY` present).
    n_bins : int
        The binned metrics' number of bins (default 20).
    n_boot : int
        Bootstrap resamples (default 1000; 0 skips the intervals, NaN).
    seed : int
        The resamples' seed (default 0).
    level : float
        The intervals' level (default 0.95).
    metrics : sequence of str
        The metrics (default :data:`calib.confidence.bootstrap.METRICS`: ACE, Brier, accuracy).
    floor : sequence of str
        Binned metrics among ``metrics`` whose noise floor to add (default none).
    n_draws : int
        Simulated outcome vectors of each noise floor (default 1000).

    Returns
    -------
    pandas.DataFrame
        One row per group, sorted by ``by``.

    Raises
    ------
    TypeError
        When ``estimates`` is not a DataFrame.
    ValueError
        For a missing column, a bad ``n_boot``, ``level`` or metric name, a ``floor`` metric that
        is not binned or not in ``metrics``, a group with several rows for one instance, or
        confidences :func:`calib.confidence.metrics.check_inputs` rejects.
    """
    require_columns(estimates, (*INSTANCE, "confidence", "correct"), "estimate table")
    if by is None:
        by = [c for c in DEFAULT_BY if c in estimates.columns]
    by = list(by)
    require_columns(estimates, by, "estimate table")
    if n_boot:
        check_bootstrap_args(n_boot, level, metrics)
    else:
        check_bootstrap_args(1, level, metrics)
    floor = list(floor)
    bad = [m for m in floor if m not in BINNED or m not in metrics]
    if bad:
        raise ValueError(
            f"floor {bad}: a noise floor needs a binned metric {list(BINNED)} that "
            f"is also in metrics {list(metrics)}"
        )
    rows = []
    keys = [c for c in INSTANCE if c not in by]
    groups = estimates.groupby(by, sort=True, dropna=False) if by else [((), estimates)]
    for label, part in groups:
        label = label if isinstance(label, tuple) else (label,)
        part = part.sort_values(keys, kind="stable")
        if part.duplicated(keys).any():
            raise ValueError(
                f"group {dict(zip(by, label))} has several rows for one instance; "
                f"add the column that tells them apart (e.g. 'estimator' or "
                f"'template') to `by`"
            )
        conf, corr = check_inputs(part["confidence"], part["correct"].astype(bool))
        row = dict(zip(by, label))
        row["n"] = len(part)
        for m, values in metric_intervals(conf, corr, metrics, n_boot, seed, level, n_bins).items():
            row[m], row[f"{m}_low"], row[f"{m}_high"] = values
            if m == "gap":
                row["gap_direction"] = gap_direction(row["gap_low"], row["gap_high"])
        for m in floor:
            row.update(
                floor_record(
                    conf, row[m], row[f"{m}_low"], row[f"{m}_high"], m, n_draws, seed, n_bins, level
                )
            )
        row["rejection_rate"] = (
            float(part["rejected"].astype(bool).mean()) if "rejected" in part.columns else 0.0
        )
        rows.append(row)
    return pd.DataFrame(rows)


def compare_reductions(
    scores: pd.DataFrame,
    template: str = PLAIN,
    reductions: Sequence[str] = REDUCTIONS,
    n_bins: int = N_BINS,
    estimates: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Appendix C: accuracy, ACE of Base-Confidence on ``template`` and their harmonic mean
    ``H`` for each sentence-score reduction, per model and dataset. The paper picks the
    reduction with the highest ``H`` (it found ``sum``).

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table (:mod:`calib.scoring.schema`).
    template : str
        The template of Base-Confidence (default ``paraphrase-0``).
    reductions : sequence of str
        The reductions (default all, :data:`calib.confidence.reductions.REDUCTIONS`).
    n_bins : int
        ACE's number of bins (default 20).
    estimates : Mapping[str, pandas.DataFrame] or None
        Reduction -> Base-Confidence of ``scores`` on ``template`` under it, where the caller
        has them already (None: computed here).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``dataset``, ``reduction``, ``n``, ``accuracy``, ``ace``, ``H``: one row per
        model, dataset and reduction.
    """
    rows = []
    for reduction in reductions:
        if estimates is not None and reduction in estimates:
            est = estimates[reduction]
        else:
            est = base(sentence_scores(scores, reduction), template)
        table = summary(
            est, by=["model", "dataset"], n_bins=n_bins, n_boot=0, metrics=("accuracy", "ace")
        )
        table.insert(2, "reduction", reduction)
        rows.append(table[["model", "dataset", "reduction", "n", "accuracy", "ace"]])
    out = pd.concat(rows, ignore_index=True)
    out["H"] = harmonic_mean(out["accuracy"].to_numpy(), out["ace"].to_numpy())
    return out
