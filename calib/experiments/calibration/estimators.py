"""The calibration chapter's estimators (Kissling et al. 2026, §3): Base, Margin, Average,
Consistency and Entropy per model on a score table, estimators of one's own beside them, and,
beyond the paper, the recalibration baselines (temperature and Platt scaling, cross-fitted over
relations).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from calib.confidence.estimators import all_estimates
from calib.confidence.recalibration import fit_temperature, platt_scaling, temperature_scaling
from calib.confidence.reductions import sentence_scores
from calib.confidence.schema import ESTIMATE_COLUMNS, INSTANCE, require_columns
from calib.data.bear import PARAPHRASES, PLAIN
from calib.experiments.paper_tables import calib_estimator

#: the single-template estimators and the multi-template ones (named ``<name>/<aggregation>``)
SINGLE_ESTIMATORS: tuple[str, ...] = ("Base", "Margin")
MULTI_ESTIMATORS: tuple[str, ...] = ("Average", "Consistency", "Entropy")
#: the blocks of the calibration table: the paper's estimators, the recalibrated baselines
#: (beyond the paper), estimators of one's own (``extra_estimators``)
PAPER_BLOCK = "the paper's estimators"
RECALIBRATED_BLOCK = "beyond the paper: recalibrated, cross-fitted over relations"
EXTRA_BLOCK = "added estimators"
#: the recalibrated names' suffixes (:mod:`calib.confidence.recalibration`)
TEMPERATURE, PLATT = " (temperature)", " (Platt)"


# ---------------------------------------------------------------------------------------------
# estimators


def estimator_names(aggregations: Sequence[str] = ("min",)) -> list[str]:
    """The estimator names :func:`estimates` produces, in display order: ``Base``, ``Margin``,
    then ``Average/<agg>``, ``Consistency/<agg>``, ``Entropy/<agg>`` for each aggregation."""
    return [
        *SINGLE_ESTIMATORS,
        *[f"{name}/{agg}" for agg in aggregations for name in MULTI_ESTIMATORS],
    ]


def paper_estimators(aggregation: str = "min", with_ace: bool = False) -> list[str]:
    """The paper's five estimators with ``aggregation`` (calib's names); ``with_ace``: the four
    Table 1 prints an ACE for (no Consistency, "due to its discrete distribution")."""
    names = [calib_estimator(n, aggregation) for n in (*SINGLE_ESTIMATORS, *MULTI_ESTIMATORS)]
    return [n for n in names if not (with_ace and n.startswith("Consistency"))]


#: a confidence estimator of one's own: sentence-score table in, estimate table out (one row
#: per instance with ``prediction``, ``correct``, ``confidence``; see calib.confidence.schema)
Estimator = Callable[[pd.DataFrame], pd.DataFrame]


def paraphrase_sentences(
    scores: pd.DataFrame,
    reduction: str = "sum",
    template: str = PLAIN,
    paraphrases: Sequence[str] = PARAPHRASES,
) -> pd.DataFrame:
    """The sentence scores (:func:`calib.confidence.reductions.sentence_scores`) of the rows of
    ``template`` and ``paraphrases`` (a ``ValueError`` naming any the table lacks), in the
    table's order: what the estimators, the paraphrase accuracy and the recalibration read."""
    require_columns(scores, ("template",), "score table")
    wanted = [template, *[p for p in paraphrases if p != template]]
    missing = [t for t in wanted if t not in set(scores["template"].unique())]
    if missing:
        raise ValueError(
            f"the score table lacks template(s) {missing}; the calibration estimators need {wanted}"
        )
    return sentence_scores(scores[scores["template"].isin(wanted)], reduction)


def estimates(
    scores: pd.DataFrame,
    reduction: str = "sum",
    aggregations: Sequence[str] = ("min",),
    template: str = PLAIN,
    paraphrases: Sequence[str] = PARAPHRASES,
    extra_estimators: Mapping[str, Estimator] | None = None,
    sent: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Every estimator of §3 on a score table: Base and Margin (Eqs. 1-2) on ``template``,
    Average, Consistency and Entropy (Eqs. 3-7) over ``paraphrases`` for each aggregation.

    Templates other than ``template`` and ``paraphrases`` are dropped first (a table scored with
    all 12 templates can be passed as it is). Returns the estimate table of
    :func:`calib.confidence.estimators.all_estimates`, the ``estimator`` column ordered as
    :func:`estimator_names`, then ``extra_estimators``: ``{name: function}``, each function
    called with the sentence-score table (those templates, ``reduction``) and returning an
    estimate table (:func:`extra_estimates`), shown after the paper's estimators. ``sent``: the
    sentence scores of those templates where computed already (:func:`paraphrase_sentences`
    with the same arguments; one model's steps compute them once).
    """
    if sent is None:
        sent = paraphrase_sentences(scores, reduction, template, paraphrases)
    est = all_estimates(
        sent, template=template, paraphrases=list(paraphrases), aggregations=list(aggregations)
    )
    extra = extra_estimates(sent, extra_estimators or {}, est)
    if len(extra):
        est = pd.concat([est, extra], ignore_index=True)
        if "rejected" in est.columns:  # an estimator of one's own answers every instance
            est["rejected"] = est["rejected"].astype("boolean").fillna(False).astype(bool)
    models = list(dict.fromkeys(scores["model"].unique()))
    est["model"] = pd.Categorical(est["model"], categories=models, ordered=True)
    est["estimator"] = pd.Categorical(
        est["estimator"],
        categories=[*estimator_names(aggregations), *(extra_estimators or {})],
        ordered=True,
    )
    est = est.sort_values(["model", "estimator", *INSTANCE[1:]], kind="stable", ignore_index=True)
    return est.astype({"model": str, "estimator": str})


def extra_estimates(
    sent: pd.DataFrame, estimators: Mapping[str, Estimator], like: pd.DataFrame | None = None
) -> pd.DataFrame:
    """The estimate tables of one's own ``estimators`` (``{name: function}``) on a
    sentence-score table, with an ``estimator`` column: each function must return one row per
    instance with the columns of :data:`calib.confidence.schema.ESTIMATE_COLUMNS` and a
    confidence in [0, 1]; anything else is a ``ValueError`` naming the estimator. ``like``
    (another estimate table) must then cover the same instances."""
    parts = []
    for name, fn in estimators.items():
        out = fn(sent)
        require_columns(
            out,
            ESTIMATE_COLUMNS,
            f"estimator {name!r}'s result",
            hint="return one row per instance: model, dataset, relation, "
            "instance, prediction, correct, confidence",
        )
        if out.duplicated(list(INSTANCE)).any():
            raise ValueError(f"estimator {name!r} returned several rows for one instance")
        conf = out["confidence"].to_numpy(dtype=float)
        if not (np.isfinite(conf).all() and (conf >= 0).all() and (conf <= 1).all()):
            raise ValueError(f"estimator {name!r} returned confidences outside [0, 1]")
        if like is not None:
            have = len(out.merge(like[list(INSTANCE)].drop_duplicates(), on=list(INSTANCE)))
            want = len(like[list(INSTANCE)].drop_duplicates())
            if have != want or len(out) != want:
                raise ValueError(
                    f"estimator {name!r} returned {len(out)} instances; the "
                    f"other estimators have {want}"
                )
        parts.append(
            out[[*ESTIMATE_COLUMNS]].assign(
                estimator=name, correct=out["correct"].astype(bool), confidence=conf
            )
        )
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def estimator_block(name: str) -> str:
    """The calibration table's block of an estimator: :data:`PAPER_BLOCK` (Base, Margin,
    ``<Average|Consistency|Entropy>/<aggregation>``), ``RECALIBRATED_BLOCK`` (names ending in
    `` (temperature)`` or `` (Platt)``) or ``EXTRA_BLOCK``."""
    if name.endswith((TEMPERATURE, PLATT)):
        return RECALIBRATED_BLOCK
    multi = "/" in name and name.split("/", 1)[0] in MULTI_ESTIMATORS
    return PAPER_BLOCK if name in SINGLE_ESTIMATORS or multi else EXTRA_BLOCK


# ---------------------------------------------------------------------------------------------
# recalibration baselines (beyond the paper)


@dataclass(frozen=True)
class Recalibrated:
    """:func:`recalibrated`'s estimate table (no ``fold`` column), the temperature of each
    model fitted on all its instances, and every cross-fitted fit."""

    estimates: pd.DataFrame
    temperatures: pd.DataFrame
    fits: pd.DataFrame
    folds: int


def recalibrated(
    scores: pd.DataFrame,
    est: pd.DataFrame,
    reduction: str = "sum",
    folds: int = 5,
    seed: int = 0,
    platt: Sequence[str] = ("Margin",),
    template: str = PLAIN,
    sent: pd.DataFrame | None = None,
) -> Recalibrated:
    """The recalibration baselines of :mod:`calib.confidence.recalibration`, beyond the paper:
    temperature scaling of the option softmax on ``template`` (``Base (temperature)``) and
    Platt scaling of the confidences of ``platt`` (``Margin (Platt)``, ...), both cross-fitted
    over ``folds`` folds of each model's relations (at most one fold per relation; fewer than
    two relations: nothing is recalibrated, ``folds`` 0). ``est``: :func:`estimates`.

    ``fits`` has one row per method, model, estimator and fold with the relations it was
    fitted on and those it scored (as text), its size and parameters. ``sent``: sentence scores
    of ``scores`` with this ``reduction`` computed already (those of ``template`` are used)."""
    n_rel = int(scores["relation"].nunique())
    k = min(folds, n_rel)
    if k < 2:
        empty = pd.DataFrame(columns=list(est.columns))
        return Recalibrated(empty, pd.DataFrame(), pd.DataFrame(), 0)
    if sent is None:
        sent = sentence_scores(scores[scores["template"] == template], reduction)
    else:
        sent = sent[sent["template"] == template].reset_index(drop=True)
    temp = temperature_scaling(sent, template, k=k, seed=seed)
    plat = platt_scaling(est, estimators=list(platt), k=k, seed=seed)
    out = pd.concat([temp.estimates, plat.estimates], ignore_index=True).drop(columns="fold")
    out = out[[c for c in est.columns if c in out.columns]]

    def as_text(frame, method):
        frame = frame.copy()
        for col in ("fit_relations", "scored_relations"):
            frame[col] = [", ".join(map(str, v)) for v in frame[col]]
        if "estimator" not in frame.columns:
            frame.insert(2, "estimator", "Base")
        frame.insert(0, "method", method)
        return frame

    fits = pd.concat(
        [as_text(temp.fits, "temperature"), as_text(plat.fits, "Platt")], ignore_index=True
    )
    temperatures = fit_temperature(sent, template)
    return Recalibrated(out.reset_index(drop=True), temperatures, fits, k)
