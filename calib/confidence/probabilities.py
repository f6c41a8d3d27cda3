"""Option probabilities: the softmax over the answer options of one instance (paper §3).

For an instance ``x`` scored with one template, the options ``y_1 .. y_n`` of its answer space
have sentence scores ``s_i`` (log-likelihoods, see :mod:`calib.confidence.reductions`); their
probabilities are

    ``p(y_i | x) = exp(s_i) / sum_j exp(s_j)``

and the prediction is the arg-max. This module is the one place that computes them; every
estimator (Eqs. 1-7) starts from :func:`template_predictions`.

Ties: when several options share the highest score, the prediction is the one with the lowest
option index (numpy's ``argmax`` convention); its probability is unaffected.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from calib.confidence.schema import check_sentence_scores, group_codes
from calib.scoring.schema import GROUP


def _sorted_groups(sent: pd.DataFrame):
    """Rows ordered by (group, option): ``order``, group ``codes`` (sorted), group ``starts``,
    group sizes, and the group count."""
    codes, n_groups = group_codes(sent, GROUP)
    option = sent["option"].to_numpy(dtype=np.int64)
    order = np.lexsort((option, codes))
    sizes = np.bincount(codes, minlength=n_groups)
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    return order, codes[order], starts, sizes, n_groups


def _softmax_sorted(score: np.ndarray, codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Softmax of ``score`` within runs of equal ``codes`` (rows sorted by group)."""
    top = np.maximum.reduceat(score, starts)
    e = np.exp(score - top[codes])
    return e / np.add.reduceat(e, starts)[codes]


def log_softmax(scores, axis: int = -1) -> np.ndarray:
    """The same softmax for a dense array whose ``axis`` runs over one answer space (e.g. a
    cube ``(instances, templates, options)`` of sentence scores): ``log p(y_i | x)``.

    Parameters
    ----------
    scores : array-like
        Finite sentence scores.
    axis : int
        The axis of the options.

    Returns
    -------
    numpy.ndarray
        The log-probabilities, of the shape of ``scores``.

    Raises
    ------
    ValueError
        If a score is not finite.
    """
    x = np.asarray(scores, dtype=float)
    if not np.isfinite(x).all():
        raise ValueError("log_softmax: scores must be finite")
    top = np.max(x, axis=axis, keepdims=True)
    return x - top - np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True))


def option_probabilities(sent: pd.DataFrame) -> pd.DataFrame:
    """Add a column ``probability``: the softmax of ``score`` over the options of each
    (model, dataset, relation, instance, template) group (paper §3, the distribution Eqs. 1-7
    are defined on).

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table (:mod:`calib.confidence.schema`), validated first
        (:func:`~calib.confidence.schema.check_sentence_scores`).

    Returns
    -------
    pandas.DataFrame
        ``sent`` with the column ``probability``; rows keep their input order.
    """
    check_sentence_scores(sent)
    order, codes, starts, _, _ = _sorted_groups(sent)
    prob = np.empty(len(sent))
    prob[order] = _softmax_sorted(sent["score"].to_numpy(dtype=float)[order], codes, starts)
    return sent.assign(probability=prob)


def template_predictions(sent: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, dataset, relation, instance, template) with the quantities every
    estimator is built from.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table (:mod:`calib.confidence.schema`), validated first.

    Returns
    -------
    pandas.DataFrame
        The group keys and ``n_options``; ``answer_idx`` (the correct option's index);
        ``prediction`` (arg-max option, ties to the lowest index); ``correct`` (bool); ``p_top``
        (the highest option probability, Base-Confidence, Eq. 1); ``p_second`` (the second
        highest). Rows are sorted by the group keys.
    """
    check_sentence_scores(sent)
    order, codes, starts, sizes, _n_groups = _sorted_groups(sent)
    score = sent["score"].to_numpy(dtype=float)[order]
    prob = _softmax_sorted(score, codes, starts)
    # arg-max with ties to the lowest option: rows are sorted by option within a group
    top = np.maximum.reduceat(score, starts)
    position = np.arange(len(score)) - starts[codes]
    is_top = score == top[codes]
    big = np.iinfo(np.int64).max
    prediction = np.minimum.reduceat(np.where(is_top, position, big), starts)
    p_top = prob[starts + prediction]
    # second highest probability: the top of the others
    others = prob.copy()
    others[starts + prediction] = -np.inf
    p_second = np.maximum.reduceat(others, starts)
    first = order[starts]
    out = sent.iloc[first][list(GROUP)].reset_index(drop=True)
    answer_idx = sent["answer_idx"].to_numpy(dtype=np.int64)[first]
    out["n_options"] = sizes
    out["answer_idx"] = answer_idx
    out["prediction"] = prediction.astype(np.int64)
    out["correct"] = prediction == answer_idx
    out["p_top"] = p_top
    out["p_second"] = p_second
    return out
