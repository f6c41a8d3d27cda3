"""Prediction consistency by prompt (Jiang et al. 2020, §5.3, Figure 3): do prompts that are
written differently predict differently?

For two prompts ``t_i``, ``t_j`` of a relation the paper defines the *divergence* of their
predictions as the share of the relation's facts that exactly one of them gets right,

    ``Div(t_i, t_j) = sum_{<x,y> in R} delta(C(x, y, t_i) != C(x, y, t_j)) / |R|``,

and sets it against their edit distance, normalised into [0, 1] per relation, bucketed into
five bins of width 0.2 (Figure 3, a box per bin); it reports a Pearson correlation of 0.25
("a weak correlation").

Here the edit distance is the Levenshtein distance between the prompts' words (tokens split on
spaces, ``[X]`` and ``[Y]`` words like any other), divided by the largest distance between two
prompts of the same relation (the paper's "for each relation, we normalize the edit distance
... into [0, 1]"). :func:`divergence_pairs` gives one row per pair of prompts;
:func:`divergence_correlation` the Pearson correlation over all pairs of all relations, with a
95% BCa interval from the stratified bootstrap of the facts within relations (the prompts and
their distances fixed, their divergences recomputed on every resample; the same resampling as
the chapter's accuracies, :mod:`calib.prompts.accuracy`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.bootstrap import (
    interval,
    interval_p_value,
    jackknife_weights,
    stratified_resample_weights,
)

#: Figure 3's bins of the normalised edit distance
DISTANCE_BINS: tuple[float, ...] = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
_BLOCK_CELLS = 4_000_000


def word_edit_distance(a: str, b: str) -> int:
    """The Levenshtein distance between the words of ``a`` and ``b`` (insert, delete, replace
    one word each cost 1)."""
    x, y = a.split(), b.split()
    prev = list(range(len(y) + 1))
    for i, wx in enumerate(x, 1):
        cur = [i]
        for j, wy in enumerate(y, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (wx != wy)))
        prev = cur
    return prev[-1]


def prompt_pairs(prompts: pd.DataFrame) -> pd.DataFrame:
    """Every pair of prompts of each relation (``prompts``: ``relation, template, text``):
    ``relation, a, b, distance, normalised`` (the distance divided by the relation's largest;
    0 when every pair of the relation is at distance 0)."""
    rows = []
    for rel, grp in prompts.groupby("relation", sort=True):
        items = list(zip(grp["template"], grp["text"]))
        pairs = [
            (rel, ta, tb, word_edit_distance(xa, xb))
            for (ta, xa), (tb, xb) in itertools.combinations(items, 2)
        ]
        top = max((p[3] for p in pairs), default=0)
        rows += [(*p, p[3] / top if top else 0.0) for p in pairs]
    return pd.DataFrame(rows, columns=["relation", "a", "b", "distance", "normalised"])


def _wide_hits(per_prompt: pd.DataFrame) -> pd.DataFrame:
    need = ["relation", "instance", "template", "hit"]
    missing = [c for c in need if c not in per_prompt.columns]
    if missing:
        raise ValueError(f"per-prompt hits lack column(s) {missing}; expected {need}")
    return per_prompt.pivot_table(
        index=["relation", "instance"], columns="template", values="hit", aggfunc="first"
    )


def divergence_pairs(per_prompt: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """``pairs`` (:func:`prompt_pairs`) with the divergence of each pair's predictions on the
    facts of ``per_prompt`` (one model: ``relation, instance, template, hit``) and its
    distance ``bin`` (Figure 3's five bins, labelled by their lower end)."""
    wide = _wide_hits(per_prompt)
    div = []
    for rel, a, b in zip(pairs["relation"], pairs["a"], pairs["b"]):
        part = wide.loc[rel]
        div.append(float((part[a].astype(bool) != part[b].astype(bool)).mean()))
    out = pairs.assign(divergence=div)
    edges = np.asarray(DISTANCE_BINS)
    out["bin"] = edges[
        np.clip(np.searchsorted(edges, out["normalised"], side="right") - 1, 0, len(edges) - 2)
    ]
    return out


def _pearson_rows(d: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row of ``d`` with ``x`` (NaN where a row is constant)."""
    dc = d - d.mean(axis=1, keepdims=True)
    xc = x - x.mean()
    with np.errstate(invalid="ignore", divide="ignore"):
        return (dc @ xc) / np.sqrt((dc**2).sum(axis=1) * (xc**2).sum())


def divergence_correlation(
    per_prompt: pd.DataFrame,
    pairs: pd.DataFrame,
    n_boot: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> dict:
    """The Pearson correlation over ``pairs`` of the normalised edit distance with the
    divergence (one model's ``per_prompt`` hits), with its ``level`` BCa interval from the
    stratified bootstrap of the facts within relations: ``value``, ``low``, ``high``,
    ``p_value`` (of "r = 0"), ``n_pairs``, ``n`` (facts), ``n_relations``, ``n_boot``."""
    if pairs.empty:
        raise ValueError("no pair of prompts: each relation needs at least two prompts")
    wide = _wide_hits(per_prompt).sort_index()
    rel = wide.index.get_level_values("relation").to_numpy()
    for r, grp in pairs.groupby("relation"):
        part = wide.loc[r, list(dict.fromkeys([*grp["a"], *grp["b"]]))]
        if part.isna().any().any():
            raise ValueError(
                f"relation {r!r}: every prompt of a pair must be scored on all "
                f"of the relation's facts"
            )
    n = len(wide)
    col = {t: i for i, t in enumerate(wide.columns)}
    hits = wide.fillna(False).to_numpy(bool)
    # one column per pair: which facts exactly one of the two prompts gets right (0 outside
    # the pair's relation), and the indicator of the pair's relation
    rel_of = pd.Series(np.arange(n)).groupby(rel).apply(lambda s: s.to_numpy())
    xor = np.zeros((n, len(pairs)))
    mask = np.zeros((n, len(pairs)))
    for k, (r, a, b) in enumerate(zip(pairs["relation"], pairs["a"], pairs["b"])):
        rows = rel_of[r]
        xor[rows, k] = hits[rows, col[a]] != hits[rows, col[b]]
        mask[rows, k] = 1.0
    x = pairs["normalised"].to_numpy(float)
    step = max(1, _BLOCK_CELLS // max(1, len(pairs) * 2))

    def stat(w: np.ndarray) -> np.ndarray:
        out = []
        for s in range(0, len(w), step):
            wb = w[s : s + step].astype(float)
            with np.errstate(invalid="ignore", divide="ignore"):
                out.append(_pearson_rows((wb @ xor) / (wb @ mask), x))
        return np.concatenate(out)

    value = float(stat(np.ones((1, n), np.int64))[0])
    if n_boot:
        reps = np.concatenate([stat(w) for w in stratified_resample_weights(rel, n_boot, seed)])
        jack = np.concatenate([stat(w) for w in jackknife_weights(n)]) if n >= 3 else None
        lo, hi = interval(value, reps, level, "bca", jack)
        p = interval_p_value(value, reps, "bca", jack)
    else:
        lo = hi = p = float("nan")
    return {
        "value": value,
        "low": lo,
        "high": hi,
        "p_value": p,
        "n_pairs": len(pairs),
        "n": n,
        "n_relations": len(set(rel)),
        "n_boot": n_boot,
    }


def divergence_bins(pairs: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Figure 3's summary per bin of the normalised distance (``pairs`` from
    :func:`divergence_pairs`, with the ``by`` columns): the number of pairs and the mean and
    median divergence."""
    keys = [*by, "bin"]
    return (
        pairs.groupby(keys, sort=True)["divergence"]
        .agg(pairs="size", mean="mean", median="median")
        .reset_index()
    )
