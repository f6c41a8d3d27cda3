"""Accuracy of prompts and ensembles on LAMA (Jiang et al. 2020, §5.1).

Works on *per-fact* frames: one row per ``relation, instance`` (and, where present, ``model,
dataset, template``) with ``answer_idx`` (the object's index in the answer space) and ``hit``
(whether the prediction is right). :func:`predictions` makes one from a sentence-score table or
an ensemble table; :func:`calib.prompts.ensemble.oracle` and :func:`majority_baseline` return
one directly.

* micro-averaged accuracy of a relation: the share of its facts predicted right;
* macro-averaged accuracy of a relation: the accuracy of each unique object (the facts with that
  object), averaged over the unique objects - so frequent objects do not dominate;
* :func:`mean_accuracy` averages both over relations, as the paper reports them;
* :func:`accuracy_replicates` computes both for several methods on the same facts, on the sample
  and on stratified bootstrap resamples (facts drawn within each relation), so that any
  statistic of them (a method's accuracy, a difference of two methods, the best of several
  methods minus another) gets a 95% interval (:meth:`AccuracyReplicates.interval`);
  :func:`accuracy_intervals` is the table of every method's two accuracies with intervals.

**Why the facts are resampled within relations.** The paper's number is a mean over LAMA's
relations, each weighing the same (§5.1: "Then we average across all relations"). The relations
are the benchmark's own, fixed units; what varies from sample to sample is which facts of each
relation are asked. A stratified bootstrap (each resample draws, with replacement, as many facts
of each relation as the relation has) keeps every relation and its weight and reproduces that
variation; resampling relations instead would ask how the mean varies over other sets of
relations, a question with a few relations cannot answer. Macro accuracy is recomputed on each
resample over the objects the resample holds (an object whose facts are all left out does not
count in it, as in a sample without that object). Intervals are BCa (bias-corrected and
accelerated, with a jackknife over facts: delete-one up to 200 facts, grouped beyond,
:mod:`calib.confidence.jackknife`), as for accuracy elsewhere in calib
(:data:`calib.confidence.bootstrap.INTERVAL_METHODS`); a build on a subset of LAMA's relations
estimates the mean over those relations.

Within a relation the answer space is closed, so an object is identified by its index
``answer_idx``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import (
    interval,
    interval_p_value,
    jackknife_weights,
    stratified_resample_weights,
)

GROUP: tuple[str, ...] = ("model", "dataset", "relation", "instance", "template")
#: the default grouping columns of :func:`mean_accuracy` (those a frame has)
LABELS: tuple[str, ...] = ("model", "dataset", "template")


def predictions(table: pd.DataFrame) -> pd.DataFrame:
    """The predicted option of every (model, dataset, relation, instance, template): the one
    with the highest ``score`` (ties: the first row). Returns those keys and ``pred, answer_idx,
    hit``."""
    missing = [c for c in (*GROUP, "option", "answer_idx", "score") if c not in table.columns]
    if missing:
        raise ValueError(
            f"table lacks column(s) {missing}; expected a sentence-score or ensemble table"
        )
    if table["score"].isna().any():
        raise ValueError("table has NaN scores; every option needs a score")
    table = table.reset_index(drop=True)  # idxmax returns labels: make them unique
    best = table.loc[table.groupby(list(GROUP), sort=True)["score"].idxmax()]
    out = best[list(GROUP)].reset_index(drop=True)
    out["pred"] = best["option"].to_numpy()
    out["answer_idx"] = best["answer_idx"].to_numpy()
    out["hit"] = out["pred"] == out["answer_idx"]
    return out


def _labels(per_fact: pd.DataFrame, by: Sequence[str] | None) -> list[str]:
    for col in ("relation", "answer_idx", "hit"):
        if col not in per_fact.columns:
            raise ValueError(
                f"per-fact frame lacks column {col!r}; expected relation, "
                "answer_idx, hit (see calib.prompts.accuracy.predictions)"
            )
    if by is None:
        return [c for c in LABELS if c in per_fact.columns]
    missing = [c for c in by if c not in per_fact.columns]
    if missing:
        raise ValueError(
            f"per-fact frame lacks the grouping column(s) {missing}; it has "
            f"{list(per_fact.columns)}"
        )
    return list(by)


def relation_accuracy(per_fact: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """Micro- and macro-averaged accuracy per relation (§5.1), per group of ``by`` (default:
    those of :data:`LABELS` the frame has).

    ``micro = mean(hit)``; ``macro = mean over unique objects y' of mean(hit | object = y')``.
    Returns the grouping columns, ``relation, n, n_objects, micro, macro``.
    """
    labels = _labels(per_fact, by)
    frame = per_fact.assign(hit=per_fact["hit"].astype(float))
    keys = [*labels, "relation"]
    micro = frame.groupby(keys, sort=True)["hit"].agg(["size", "mean"])
    per_obj = frame.groupby([*keys, "answer_idx"], sort=True)["hit"].mean()
    macro = per_obj.groupby(level=list(range(len(keys)))).agg(["size", "mean"])
    out = pd.DataFrame(
        {
            "n": micro["size"],
            "n_objects": macro["size"],
            "micro": micro["mean"],
            "macro": macro["mean"],
        }
    )
    return out.reset_index()


def mean_accuracy(per_fact: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """Micro and macro accuracy averaged over relations (each relation weighs the same), per
    group of the columns ``by`` (default: those of :data:`LABELS` the frame has, ``model,
    dataset, template``; ``()``: one row). Returns those, ``n_relations, n, micro, macro``."""
    labels = _labels(per_fact, by)
    rel = relation_accuracy(per_fact, labels)
    if not labels:
        return pd.DataFrame(
            {
                "n_relations": [len(rel)],
                "n": [rel["n"].sum()],
                "micro": [rel["micro"].mean()],
                "macro": [rel["macro"].mean()],
            }
        )
    return (
        rel.groupby(labels, sort=True)
        .agg(
            n_relations=("relation", "size"),
            n=("n", "sum"),
            micro=("micro", "mean"),
            macro=("macro", "mean"),
        )
        .reset_index()
    )


def majority_baseline(facts: pd.DataFrame, reference: pd.DataFrame | None = None) -> pd.DataFrame:
    """The majority-class baseline: every fact of a relation is predicted to have the relation's
    most frequent object (ties: the lowest index).

    ``facts``: ``relation, instance`` and ``answer_idx`` (e.g. a
    :class:`~calib.data.lama.Lama`'s ``instances``). The most frequent object is counted in
    ``reference`` (e.g. the training pairs) or, by default, in ``facts`` themselves. Returns a
    per-fact frame with ``template = "majority"``: ``relation, instance, template, pred,
    answer_idx, hit``.
    """

    def gold(frame: pd.DataFrame, what: str) -> pd.Series:
        if "answer_idx" not in frame.columns or "relation" not in frame.columns:
            raise ValueError(f"{what} needs columns relation and answer_idx")
        return frame["answer_idx"]

    ref = facts if reference is None else reference
    counts = (
        pd.DataFrame({"relation": ref["relation"], "obj": gold(ref, "reference")})
        .groupby(["relation", "obj"])
        .size()
        .reset_index(name="n")
        .sort_values(["relation", "n", "obj"], ascending=[True, False, True])
    )
    top = counts.drop_duplicates("relation").set_index("relation")["obj"]
    missing = sorted(set(facts["relation"].unique()) - set(top.index))
    if missing:
        raise ValueError(f"reference has no facts for relation(s) {missing}")
    answer_idx = gold(facts, "facts").to_numpy()
    pred = facts["relation"].map(top).to_numpy()
    return pd.DataFrame(
        {
            "relation": facts["relation"].to_numpy(),
            "instance": facts["instance"].to_numpy(),
            "template": "majority",
            "pred": pred,
            "answer_idx": answer_idx,
            "hit": pred == answer_idx,
        }
    )


# ---------------------------------------------------------------------------------------------
# intervals: micro and macro accuracy on stratified bootstrap resamples of the facts


#: the two averages of §5.1, in the order of :class:`AccuracyReplicates`' second axis
AVERAGES: tuple[str, ...] = ("micro", "macro")
#: cap on the cells of one block of weighted hits (resamples x facts x methods)
_BLOCK_CELLS = 4_000_000
FACT_KEYS: tuple[str, ...] = ("relation", "instance")


def _weighted_accuracy(
    w: np.ndarray,
    hits: np.ndarray,
    rel_starts: np.ndarray,
    group_starts: np.ndarray,
    rel_group_starts: np.ndarray,
) -> np.ndarray:
    """Micro and macro accuracy (averaged over relations) of each column of ``hits`` (facts x
    methods, facts sorted by relation and then object) under multiplicity weights ``w``
    (resamples x facts): ``(resamples, 2, methods)``. A relation (or object) with no weight is
    left out of the mean over relations (objects)."""
    out = np.empty((len(w), 2, hits.shape[1]))
    step = max(1, _BLOCK_CELLS // max(1, hits.size))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of an all-NaN slice
        for start in range(0, len(w), step):
            wb = w[start : start + step].astype(float)
            wh = wb[:, :, None] * hits[None, :, :]
            rel = (
                np.add.reduceat(wh, rel_starts, axis=1)
                / np.add.reduceat(wb, rel_starts, axis=1)[:, :, None]
            )
            out[start : start + step, 0] = np.nanmean(rel, axis=1)
            obj = (
                np.add.reduceat(wh, group_starts, axis=1)
                / np.add.reduceat(wb, group_starts, axis=1)[:, :, None]
            )
            seen = ~np.isnan(obj)
            total = np.add.reduceat(np.where(seen, obj, 0.0), rel_group_starts, axis=1)
            count = np.add.reduceat(seen, rel_group_starts, axis=1)
            out[start : start + step, 1] = np.nanmean(total / count, axis=1)
    return out


@dataclass(frozen=True)
class AccuracyReplicates:
    """Micro and macro accuracy (§5.1, averaged over relations) of several methods on the same
    facts: on the sample (``point``, ``(2, methods)``: micro, macro), on ``n_boot`` stratified
    bootstrap resamples of the facts (``reps``, ``(n_boot, 2, methods)``) and with each fact
    left out in turn (``jack``, ``(facts, 2, methods)``, for BCa's acceleration). Every method
    sees the same resamples, so any statistic of several methods is paired."""

    labels: tuple
    point: np.ndarray
    reps: np.ndarray
    jack: np.ndarray
    n: int
    n_relations: int
    n_boot: int

    def column(self, label) -> int:
        """The index of the method ``label`` (one of ``labels``)."""
        try:
            return self.labels.index(label)
        except ValueError:
            raise KeyError(
                f"no method {label!r}; the replicates have {list(self.labels)}"
            ) from None

    def has(self, label) -> bool:
        """Whether ``label`` is one of the methods."""
        return label in self.labels

    def interval(self, statistic: Callable[[np.ndarray], np.ndarray], level: float = 0.95) -> dict:
        """``statistic`` (``(rows, 2, methods)`` accuracies -> ``(rows,)`` values; e.g.
        ``lambda a: a[:, 0, i] - a[:, 0, j]``, micro accuracy of method ``i`` minus ``j``) on
        the sample with its ``level`` BCa interval and two-sided p-value of "the statistic is
        0": ``value``, ``low``, ``high``, ``p_value``, ``n`` (facts), ``n_relations``,
        ``n_boot``. Without resamples the bounds are NaN."""
        value = float(statistic(self.point[None])[0])
        if not self.n_boot:
            lo = hi = p = float("nan")
        else:
            reps = statistic(self.reps)
            jack = statistic(self.jack) if len(self.jack) >= 3 else np.full(self.n, np.nan)
            lo, hi = interval(value, reps, level, "bca", jack)
            p = interval_p_value(value, reps, "bca", jack)
        return {
            "value": value,
            "low": lo,
            "high": hi,
            "p_value": p,
            "n": self.n,
            "n_relations": self.n_relations,
            "n_boot": self.n_boot,
        }

    def accuracy(self, label, averaging: str = "micro", level: float = 0.95) -> dict:
        """:meth:`interval` of one method's ``averaging`` (micro or macro) accuracy."""
        i, a = self.column(label), AVERAGES.index(averaging)
        return self.interval(lambda v: v[:, a, i], level)

    def difference(self, a, b, averaging: str = "micro", level: float = 0.95) -> dict:
        """:meth:`interval` of ``accuracy(a) - accuracy(b)`` (paired)."""
        i, j, k = self.column(a), self.column(b), AVERAGES.index(averaging)
        return self.interval(lambda v: v[:, k, i] - v[:, k, j], level)


def accuracy_replicates(
    per_fact: pd.DataFrame, by: Sequence[str], n_boot: int = 1000, seed: int = 0
) -> AccuracyReplicates:
    """:class:`AccuracyReplicates` of every method (a distinct value of the columns ``by``,
    e.g. ``prompt_set, method``) of a per-fact frame of one model: ``relation, instance,
    answer_idx, hit`` and ``by``. Every method must cover the same facts (else ``ValueError``
    naming the first that does not). The resamples depend on the facts, ``n_boot`` and
    ``seed`` only (:func:`calib.confidence.bootstrap.stratified_resample_weights`)."""
    by = list(by)
    need = [*FACT_KEYS, "answer_idx", "hit", *by]
    missing = [c for c in need if c not in per_fact.columns]
    if missing:
        raise ValueError(f"per-fact frame lacks column(s) {missing}; expected {need}")
    if per_fact.empty:
        raise ValueError("per-fact frame is empty")
    frame = per_fact.assign(_label=list(zip(*(per_fact[c] for c in by))))
    if frame.duplicated([*FACT_KEYS, "_label"]).any():
        dup = frame[frame.duplicated([*FACT_KEYS, "_label"])].iloc[0]
        raise ValueError(
            f"method {dup['_label']} has two rows for fact {(dup['relation'], dup['instance'])}"
        )
    objects = frame.groupby(list(FACT_KEYS))["answer_idx"].nunique()
    if (objects > 1).any():
        bad = objects[objects > 1].index[0]
        raise ValueError(f"fact {bad} has different objects (answer_idx) in different rows")
    facts = frame.drop_duplicates(list(FACT_KEYS))[[*FACT_KEYS, "answer_idx"]]
    facts = facts.sort_values(["relation", "answer_idx", "instance"], kind="stable").reset_index(
        drop=True
    )
    labels = tuple(dict.fromkeys(frame["_label"].unique()))
    wide = frame.pivot_table(index=list(FACT_KEYS), columns="_label", values="hit", aggfunc="first")
    wide = wide.reindex(pd.MultiIndex.from_frame(facts[list(FACT_KEYS)]))
    for label in labels:
        if wide[label].isna().any():
            raise ValueError(
                f"method {label} does not cover every fact of the frame "
                f"({int(wide[label].isna().sum())} of {len(wide)} missing); the "
                f"methods compared must share their facts"
            )
    hits = wide[list(labels)].to_numpy(float)
    rel = facts["relation"].to_numpy()
    obj = facts["answer_idx"].to_numpy()
    rel_change = np.r_[True, rel[1:] != rel[:-1]]
    group_change = rel_change | np.r_[True, obj[1:] != obj[:-1]]
    rel_starts = np.flatnonzero(rel_change)
    group_starts = np.flatnonzero(group_change)
    rel_group_starts = np.flatnonzero(rel_change[group_starts])
    n = len(facts)

    def values(w):
        return _weighted_accuracy(w, hits, rel_starts, group_starts, rel_group_starts)

    point = values(np.ones((1, n), np.int64))[0]
    if n_boot:
        reps = np.concatenate([values(w) for w in stratified_resample_weights(rel, n_boot, seed)])
        jack = (
            np.concatenate([values(w) for w in jackknife_weights(n)])
            if n >= 3
            else np.full((n, 2, len(labels)), np.nan)
        )
    else:
        reps = np.empty((0, 2, len(labels)))
        jack = np.empty((0, 2, len(labels)))
    return AccuracyReplicates(labels, point, reps, jack, n, len(rel_starts), n_boot)


def accuracy_intervals(
    per_fact: pd.DataFrame,
    by: Sequence[str],
    n_boot: int = 1000,
    seed: int = 0,
    group: Sequence[str] = ("model",),
) -> pd.DataFrame:
    """Micro and macro accuracy (averaged over relations) per ``group`` (default ``model``)
    and method (``by``) with 95% BCa intervals from the stratified bootstrap of
    :func:`accuracy_replicates`: ``group``, ``by``, ``n_relations``, ``n``, ``micro``,
    ``micro_low``, ``micro_high``, ``macro``, ``macro_low``, ``macro_high``. The point values
    are :func:`mean_accuracy`'s."""
    group, by = list(group), list(by)
    rows = []
    parts = per_fact.groupby(group, sort=False) if group else [((), per_fact)]
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        reps = accuracy_replicates(part, by, n_boot, seed)
        for label in reps.labels:
            row = dict(zip(group, key)) | dict(zip(by, label))
            row.update(n_relations=reps.n_relations, n=reps.n)
            for avg in AVERAGES:
                got = reps.accuracy(label, avg)
                row.update(
                    {avg: got["value"], f"{avg}_low": got["low"], f"{avg}_high": got["high"]}
                )
            rows.append(row)
    return pd.DataFrame(rows)
