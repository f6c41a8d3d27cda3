"""Accuracy of prompts and ensembles on LAMA (Jiang et al. 2020, §5.1).

Works on *per-fact* frames: one row per ``relation, instance`` (and, where present, ``model,
dataset, template``) with ``answer_idx`` (the object's index in the answer space) and ``hit``
(whether the prediction is right). :func:`predictions` makes one from a sentence-score table or
an ensemble table; :func:`calib.prompts.ensemble.oracle` and :func:`majority_baseline` return
one directly.

* micro-averaged accuracy of a relation: the share of its facts predicted right;
* macro-averaged accuracy of a relation: the accuracy of each unique object (the facts with that
  object), averaged over the unique objects - so frequent objects do not dominate;
* :func:`mean_accuracy` averages both over relations, as the paper reports them.

Within a relation the answer space is closed, so an object is identified by its index
``answer_idx``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

GROUP: tuple[str, ...] = ("model", "dataset", "relation", "instance", "template")
#: the default grouping columns of :func:`mean_accuracy` (those a frame has)
LABELS: tuple[str, ...] = ("model", "dataset", "template")


def predictions(table: pd.DataFrame) -> pd.DataFrame:
    """The predicted option of every (model, dataset, relation, instance, template): the one
    with the highest ``score`` (ties: the first row). Returns those keys and ``pred, answer_idx,
    hit``."""
    missing = [c for c in (*GROUP, "option", "answer_idx", "score") if c not in table.columns]
    if missing:
        raise ValueError(f"table lacks column(s) {missing}; expected a sentence-score or "
                         "ensemble table")
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
            raise ValueError(f"per-fact frame lacks column {col!r}; expected relation, "
                             "answer_idx, hit (see calib.prompts.accuracy.predictions)")
    if by is None:
        return [c for c in LABELS if c in per_fact.columns]
    missing = [c for c in by if c not in per_fact.columns]
    if missing:
        raise ValueError(f"per-fact frame lacks the grouping column(s) {missing}; it has "
                         f"{list(per_fact.columns)}")
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
    out = pd.DataFrame({"n": micro["size"], "n_objects": macro["size"],
                        "micro": micro["mean"], "macro": macro["mean"]})
    return out.reset_index()


def mean_accuracy(per_fact: pd.DataFrame, by: Sequence[str] | None = None) -> pd.DataFrame:
    """Micro and macro accuracy averaged over relations (each relation weighs the same), per
    group of the columns ``by`` (default: those of :data:`LABELS` the frame has, ``model,
    dataset, template``; ``()``: one row). Returns those, ``n_relations, n, micro, macro``."""
    labels = _labels(per_fact, by)
    rel = relation_accuracy(per_fact, labels)
    if not labels:
        return pd.DataFrame({"n_relations": [len(rel)], "n": [rel["n"].sum()],
                             "micro": [rel["micro"].mean()], "macro": [rel["macro"].mean()]})
    return rel.groupby(labels, sort=True).agg(
        n_relations=("relation", "size"), n=("n", "sum"), micro=("micro", "mean"),
        macro=("macro", "mean")).reset_index()


def majority_baseline(facts: pd.DataFrame, reference: pd.DataFrame | None = None
                      ) -> pd.DataFrame:
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
    counts = (pd.DataFrame({"relation": ref["relation"], "obj": gold(ref, "reference")})
              .groupby(["relation", "obj"]).size().reset_index(name="n")
              .sort_values(["relation", "n", "obj"], ascending=[True, False, True]))
    top = counts.drop_duplicates("relation").set_index("relation")["obj"]
    missing = sorted(set(facts["relation"]) - set(top.index))
    if missing:
        raise ValueError(f"reference has no facts for relation(s) {missing}")
    answer_idx = gold(facts, "facts").to_numpy()
    pred = facts["relation"].map(top).to_numpy()
    return pd.DataFrame({"relation": facts["relation"].to_numpy(),
                         "instance": facts["instance"].to_numpy(), "template": "majority",
                         "pred": pred, "answer_idx": answer_idx, "hit": pred == answer_idx})
