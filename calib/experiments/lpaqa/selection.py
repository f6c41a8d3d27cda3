"""Prompt selection and ensembles (Jiang et al. 2020, §4, §5.3): top-1, the rank-based top-K
ensembles, the optimised ensemble, the oracle, the manual prompt and the majority baseline, per
model and prompt set.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from calib.data.lama import MANUAL
from calib.prompts.accuracy import majority_baseline, predictions
from calib.prompts.ensemble import (
    fit_ensemble_weights,
    oracle,
    rank_prompts,
    reusing_cubes,
    top_k_ensemble,
    weighted_ensemble,
    weighted_predictions,
)
from calib.prompts.reuse import Reuse

#: the majority baseline counted on the relation's test facts (the paper's, §5.1; fitted on the
#: facts it is judged on), beside ``majority``, counted on the training pairs
MAJORITY_TEST = "majority (test facts)"
#: the prompt set of the rows that belong to no set (the manual prompt, the majority baseline)
NO_SET = "-"
#: the prompt sets whose optimised ensemble is also run with another model's weights (§5.3,
#: Tables 12-13); Mine+Para is left out: its prompts differ between models here
CROSS_MODEL_SETS: tuple[str, ...] = ("Mine", "Mine+Man", "Man+Para")
LINEAR = " (linear)"


# ---------------------------------------------------------------------------------------------
# 4. selection and ensembles


SET_KEYS = ["model", "relation", "template"]


#: the numbered keys of the tables of a :func:`numbering_once` block
_NUMBERED = Reuse()


def numbering_once(*tables: pd.DataFrame):
    """Inside (a context manager), the rows of each of ``tables`` are numbered by their keys
    once (``_distinct_keys``) for every prompt set's rows taken from it and every value
    looked up by key (:func:`rows_with`, :func:`key_values`): LPAQA takes each prompt set's
    rows from a model's training and test tables, which must not change inside."""
    return _NUMBERED.block(*tables)


def _distinct_keys(sent: pd.DataFrame, on: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    """Per row of ``sent`` the number of its ``on`` values in order of first appearance, and
    those distinct values (row ``g`` for number ``g``) as plain objects (made once per table
    inside :func:`numbering_once`)."""
    return _NUMBERED.once(sent, tuple(on), lambda: _number_keys(sent, on))


def _number_keys(sent: pd.DataFrame, on: list[str]) -> tuple[np.ndarray, pd.DataFrame]:
    dense = _dense_codes(sent, on)
    if dense is not None:
        return dense
    group = sent.groupby(on, sort=False, observed=True, dropna=False).ngroup().to_numpy()
    _, first = np.unique(group, return_index=True)
    heads = sent[on].iloc[first].reset_index(drop=True).astype(dict.fromkeys(on, object))
    return group, heads


#: the most key combinations ``_dense_codes`` counts in an array (models x relations x
#: templates of a compact table: thousands)
DENSE_KEYS = 1 << 24


def _dense_codes(sent: pd.DataFrame, on: list[str]) -> tuple[np.ndarray, pd.DataFrame] | None:
    """:func:`_distinct_keys` of a compact table (every ``on`` column categorical, no missing
    value) in linear time, from the categories' codes (the groups numbered in the order of
    their codes, not of first appearance); None for other tables."""
    cols = [sent[c] for c in on]
    if not all(isinstance(c.dtype, pd.CategoricalDtype) for c in cols):
        return None
    sizes = tuple(len(c.cat.categories) for c in cols)
    n_keys = int(np.prod(sizes, dtype=np.int64))
    if n_keys > DENSE_KEYS:
        return None
    codes = [c.cat.codes.to_numpy(dtype=np.int64) for c in cols]
    if any((c < 0).any() for c in codes):
        return None
    combined = np.ravel_multi_index(codes, sizes)
    present = np.flatnonzero(np.bincount(combined, minlength=n_keys))
    number = np.full(n_keys, -1, dtype=np.int64)
    number[present] = np.arange(len(present))
    parts = np.unravel_index(present, sizes)
    heads = pd.DataFrame(
        {
            c: np.asarray(col.cat.categories, dtype=object)[part]
            for c, col, part in zip(on, cols, parts)
        }
    )
    return number[combined], heads


def key_values(sent: pd.DataFrame, keys: pd.DataFrame, on: list[str], column: str) -> np.ndarray:
    """Per row of ``sent`` the ``column`` (numbers) of the row of ``keys`` with its ``on``
    values, NaN where there is none: a left merge's column (``keys`` unique on ``on``), without
    the merge's copy of ``sent``'s keys as strings (each distinct key looked up once)."""
    if sent.empty:
        return np.empty(0)
    group, heads = _distinct_keys(sent, on)
    found = heads.merge(
        keys[[*on, column]].astype(dict.fromkeys(on, object)),
        on=on,
        how="left",
        validate="many_to_one",
    )
    return found[column].to_numpy(dtype=float)[group]


def rows_with(sent: pd.DataFrame, keys: pd.DataFrame, on: list[str]) -> pd.DataFrame:
    """The rows of ``sent`` whose ``on`` values are a row of ``keys``, in their order, with
    their columns' types: an inner merge's rows (``keys`` without other columns), without the
    merge's copy of the keys as strings (each distinct key of ``sent`` is looked up once)."""
    if sent.empty:
        return sent.reset_index(drop=True)
    group, heads = _distinct_keys(sent, on)
    return sent[_found(heads, keys, on)[group]].reset_index(drop=True)


def _found(heads: pd.DataFrame, keys: pd.DataFrame, on: list[str]) -> np.ndarray:
    """Per row of ``heads`` whether its ``on`` values are a row of ``keys``."""
    found = heads.merge(
        keys[on].drop_duplicates().astype(dict.fromkeys(on, object)),
        on=on,
        how="left",
        indicator=True,
    )
    return (found["_merge"] == "both").to_numpy()


def _in_set(sent: pd.DataFrame, members: pd.DataFrame, prompt_set: str) -> pd.DataFrame:
    """The rows of ``sent`` whose (model, relation, template) is a member of ``prompt_set``, in
    their order, with their columns' types (:func:`rows_with`)."""
    return rows_with(sent, members.loc[members["prompt_set"] == prompt_set], SET_KEYS)


def _has_set(sent: pd.DataFrame, members: pd.DataFrame, prompt_set: str) -> bool:
    """Whether ``sent`` has a row of a member of ``prompt_set`` (its rows are not taken)."""
    if sent.empty:
        return False
    _, heads = _distinct_keys(sent, SET_KEYS)
    return bool(_found(heads, members.loc[members["prompt_set"] == prompt_set], SET_KEYS).any())


def best_mined(train: pd.DataFrame, members: pd.DataFrame) -> pd.DataFrame:
    """Per model and relation the top-ranked prompt of the Mine set by training accuracy
    (§4.1): the prompt Mine+Para paraphrases (§5.1). Columns ``model, relation, template``."""
    ranking = rank_prompts(_in_set(train, members, "Mine"))
    return ranking[ranking["rank"] == 0][["model", "relation", "template"]].reset_index(drop=True)


def fit_sets(
    train: pd.DataFrame,
    test: pd.DataFrame,
    members: pd.DataFrame,
    sets: Sequence[str],
    steps: int = 200,
    lr: float = 0.1,
) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """Per prompt set of ``sets`` with training and test scores (the others are left out, as
    :func:`select_and_ensemble` leaves them out): the prompts ranked by training accuracy
    (:func:`~calib.prompts.ensemble.rank_prompts`) and the optimised ensemble's weights
    (:func:`~calib.prompts.ensemble.fit_ensemble_weights`), what :func:`select_and_ensemble`
    takes as ``fitted``."""
    out = {}
    with numbering_once(train, test):
        for name in sets:
            tr = _in_set(train, members, name)
            if tr.empty or not _has_set(test, members, name):
                continue
            with reusing_cubes():
                out[name] = (rank_prompts(tr), fit_ensemble_weights(tr, steps=steps, lr=lr))
    return out


#: the key columns of an ensemble table (with its prompt set and method)
ENSEMBLE_KEYS: tuple[str, ...] = (
    "model",
    "dataset",
    "relation",
    "instance",
    "template",
    "prompt_set",
    "method",
)


def _keys_compact(table: pd.DataFrame, compact: bool) -> pd.DataFrame:
    if not compact:
        return table
    return table.astype(
        {
            c: "category"
            for c in ENSEMBLE_KEYS
            if c in table.columns and not isinstance(table[c].dtype, pd.CategoricalDtype)
        }
    )


def _compact_concat(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Frames with categorical keys, one after the other, the keys still categoricals (the
    sorted union of the frames' categories)."""
    out = []
    union = {
        c: pd.CategoricalDtype(sorted({v for f in frames for v in f[c].cat.categories}))
        for c in ENSEMBLE_KEYS
        if all(c in f.columns for f in frames)
    }
    for f in frames:
        out.append(f.astype(union))
    return pd.concat(out, ignore_index=True)


@dataclass(frozen=True)
class Selection:
    """What :func:`select_and_ensemble` returns.

    ``hits``: per fact ``model, prompt_set, method, relation, instance, answer_idx, hit``;
    ``ensembles``: the ensemble tables (:mod:`calib.prompts.ensemble`) of the manual prompt,
    top-1, the log-linear top-K and the optimised ensemble, with ``prompt_set`` and ``method``
    (``template`` = method); ``rankings``: :func:`~calib.prompts.ensemble.rank_prompts` per
    prompt set; ``weights``: the learned optimised-ensemble weights per prompt set."""

    hits: pd.DataFrame
    ensembles: pd.DataFrame
    rankings: pd.DataFrame
    weights: pd.DataFrame


HIT_COLUMNS: tuple[str, ...] = (
    "model",
    "prompt_set",
    "method",
    "relation",
    "instance",
    "answer_idx",
    "hit",
)


def select_and_ensemble(
    train: pd.DataFrame,
    test: pd.DataFrame,
    members: pd.DataFrame,
    facts: pd.DataFrame,
    reference: pd.DataFrame | None = None,
    test_reference: pd.DataFrame | None = None,
    sets: Sequence[str] | None = None,
    ks: Sequence[int] = (3, 5),
    steps: int = 200,
    lr: float = 0.1,
    cross_model_sets: Sequence[str] = CROSS_MODEL_SETS,
    fitted: Mapping[str, tuple[pd.DataFrame, pd.DataFrame]] | None = None,
    other_weights: pd.DataFrame | None = None,
    sources: Sequence[str] | None = None,
    compact_ensembles: bool = False,
) -> Selection:
    """LPAQA §4 on sentence-score tables of the training pairs (``train``) and test facts
    (``test``), for every model and prompt set of ``members`` (``sets``: default all of them):

    * ``manual`` -- the manual prompt alone; ``majority`` -- the relation's most frequent object
      in ``reference`` (default: ``facts``; the chapter passes the training pairs, so that the
      baseline is not fitted on the facts it is judged on) for every fact (``facts``: the test
      facts, a :class:`~calib.data.lama.Lama`'s ``instances``); with ``test_reference`` also
      :data:`MAJORITY_TEST`, the most frequent object among the relation's test facts (the
      paper's Majority, §5.1); all with prompt set :data:`NO_SET`;
    * ``top-1`` -- the prompt with the best training accuracy (§4.1,
      :func:`~calib.prompts.ensemble.rank_prompts`);
    * ``top-K`` for ``K`` in ``ks`` -- the average of the K best prompts' log-probabilities
      (§4.2), and ``top-K (linear)`` the average of their probabilities (§5.3's ablation);
    * ``optimized`` -- softmax weights per relation learned with Adam (``steps``, ``lr``) on the
      training pairs (§4.3, :func:`~calib.prompts.ensemble.fit_ensemble_weights`);
    * ``optimized (weights of M)`` for the sets ``cross_model_sets`` -- the same ensemble with
      the weights model ``M`` learned (§5.3, Tables 12-13);
    * ``oracle`` -- correct if any prompt of the set is (§5.1).

    ``fitted`` (:func:`fit_sets`: per prompt set the ranking and the learned weights of the
    models of ``train``) skips the ranking and the Adam fit: the sets it lacks are left out.
    ``other_weights`` (``model, relation, template, weight, prompt_set``) are learned weights of
    models that are not in ``test``, and ``sources`` the models whose weights each model
    borrows, in order (default: the models of ``test``): :func:`calib.experiments.lpaqa.analyse`
    evaluates one model at a time with the weights the others learned in a first pass.
    ``compact_ensembles``: the ensemble tables' keys as categoricals (sorted categories; a row
    per fact, option and method: their strings would be most of the memory).
    """
    hits, ensembles, rankings, weights = [], [], [], []
    models = list(dict.fromkeys(test["model"].unique()))
    manual = test[test["template"] == MANUAL].assign(template="manual")
    ensembles.append(
        _keys_compact(manual.assign(prompt_set=NO_SET, method="manual"), compact_ensembles)
    )
    hits.append(predictions(manual).assign(prompt_set=NO_SET, method="manual"))
    majority = majority_baseline(facts, reference)
    for m in models:
        hits.append(majority.assign(model=m, prompt_set=NO_SET, method="majority"))
    if test_reference is not None:
        on_test = majority_baseline(facts, test_reference)
        for m in models:
            hits.append(on_test.assign(model=m, prompt_set=NO_SET, method=MAJORITY_TEST))
    names = list(dict.fromkeys(members["prompt_set"].unique())) if sets is None else list(sets)
    tests: dict[str, pd.DataFrame] = {}
    with numbering_once(train, test):
        for name in names:
            with reusing_cubes():
                te = _in_set(test, members, name)
                if fitted is None:
                    tr = _in_set(train, members, name)
                    if tr.empty or te.empty:
                        continue
                    ranking, w = rank_prompts(tr), fit_ensemble_weights(tr, steps=steps, lr=lr)
                elif name in fitted and not te.empty:
                    ranking, w = fitted[name]
                else:
                    continue
                tests[name] = te
                rankings.append(ranking.assign(prompt_set=name))
                tables = [top_k_ensemble(te, ranking, 1, "top-1")]
                tables += [top_k_ensemble(te, ranking, k) for k in ks]
                weights.append(w.assign(prompt_set=name))
                tables.append(weighted_ensemble(te, w))
                linear = [
                    top_k_ensemble(te, ranking, k, f"top-{k}{LINEAR}", "linear")
                    for k in ks
                    if k > 1
                ]
                for table in tables:
                    ensembles.append(
                        _keys_compact(
                            table.assign(prompt_set=name, method=table["template"]),
                            compact_ensembles,
                        )
                    )
                for table in tables + linear:
                    hits.append(
                        predictions(table).assign(prompt_set=name, method=table["template"])
                    )
                hits.append(oracle(te).assign(prompt_set=name, method="oracle"))
    weights_frame = pd.concat(weights, ignore_index=True) if weights else pd.DataFrame()
    every = weights_frame
    if other_weights is not None and len(other_weights):
        every = pd.concat([weights_frame, other_weights], ignore_index=True)
    sources = models if sources is None else list(sources)
    for name in [s for s in cross_model_sets if s in tests]:
        w = every[every["prompt_set"] == name]
        for target in models:
            with reusing_cubes():
                te = tests[name][tests[name]["model"] == target]
                for source in sources:
                    if source == target:
                        continue
                    borrowed = w[w["model"] == source].assign(model=target)
                    method = f"optimized (weights of {source})"
                    hits.append(
                        weighted_predictions(te, borrowed, method).assign(
                            prompt_set=name, method=method
                        )
                    )
    out = pd.concat(hits, ignore_index=True)[list(HIT_COLUMNS)]
    return Selection(
        hits=out.reset_index(drop=True),
        ensembles=_compact_concat(ensembles)
        if compact_ensembles
        else pd.concat(ensembles, ignore_index=True),
        rankings=pd.concat(rankings, ignore_index=True),
        weights=weights_frame,
    )
