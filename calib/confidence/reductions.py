"""From token scores to one sentence score per statement (paper Appendix C).

A statement's score is a reduction of its per-token log-probabilities (the score table's
``token_logprobs``, see :mod:`calib.scoring.schema`):

===============  ===========================================================  ================
name             sentence score                                               paper (App. C)
===============  ===========================================================  ================
``sum``          sum of all scored tokens' log-probabilities (the default)    Sum
``mean``         mean over all scored tokens                                  Mean
``sum-answer``   sum over the answer tokens (role ``"object"``) only          Sum (A)
``mean-answer``  mean over the answer tokens only                             Mean (A)
===============  ===========================================================  ================

The paper picks ``sum`` by the harmonic mean :func:`harmonic_mean` of accuracy and
``1 - ACE`` (see :func:`calib.confidence.summary.compare_reductions`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from calib.confidence.schema import check_finite, describe_row, integer_column, require_columns
from calib.scoring.schema import GROUP, ROLES, SCORE_COLUMNS

#: the reductions of Appendix C, the paper's choice first
REDUCTIONS: tuple[str, ...] = ("sum", "mean", "sum-answer", "mean-answer")
#: the token role that marks the answer (object) tokens
ANSWER_ROLE = "object"


def _list_array(series: pd.Series, column: str, name: str) -> pa.Array:
    """The list column ``series`` as one (non-chunked) Arrow list array."""
    try:
        if isinstance(series.dtype, pd.ArrowDtype):
            arr = pa.chunked_array(series.array._pa_array).combine_chunks()  # noqa: SLF001
        else:
            arr = pa.array(series.to_numpy(dtype=object), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
        raise ValueError(f"{name}: column {column!r} must hold one list per row ({exc})") from exc
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if not (pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type)):
        raise ValueError(f"{name}: column {column!r} must hold lists, got Arrow type {arr.type}")
    return arr


def _check_no_null_lists(arr: pa.Array, frame: pd.DataFrame, column: str, name: str) -> None:
    if arr.null_count:
        i = int(np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))[0])
        raise ValueError(
            f"{name}: column {column!r} is missing (null) at row {i} ({describe_row(frame, i)})"
        )


def token_arrays(
    scores: pd.DataFrame, name: str = "score table"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flatten the token lists of a score table.

    Returns ``(row, logprob, is_answer)``: for every token, the position of its row in
    ``scores``, its log-probability and whether its role is ``"object"``. Raises ``ValueError``
    naming the row when a list is missing, the two lists of a row differ in length, a role is
    unknown, or a log-probability is NaN or infinite.
    """
    require_columns(scores, ("token_logprobs", "token_roles"), name)
    lp_arr = _list_array(scores["token_logprobs"], "token_logprobs", name)
    role_arr = _list_array(scores["token_roles"], "token_roles", name)
    _check_no_null_lists(lp_arr, scores, "token_logprobs", name)
    _check_no_null_lists(role_arr, scores, "token_roles", name)
    n_lp = pc.list_value_length(lp_arr).to_numpy(zero_copy_only=False).astype(np.int64)
    n_role = pc.list_value_length(role_arr).to_numpy(zero_copy_only=False).astype(np.int64)
    differ = n_lp != n_role
    if differ.any():
        i = int(np.flatnonzero(differ)[0])
        raise ValueError(
            f"{name}: row {i} ({describe_row(scores, i, SCORE_COLUMNS[:6])}) has "
            f"{n_lp[i]} token_logprobs but {n_role[i]} token_roles; "
            f"expected one role per token"
        )
    empty = n_lp == 0
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise ValueError(
            f"{name}: row {i} ({describe_row(scores, i, SCORE_COLUMNS[:6])}) has no scored tokens"
        )
    flat_lp = pc.list_flatten(lp_arr)
    try:
        logprob = flat_lp.cast(pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise ValueError(f"{name}: token_logprobs must be lists of numbers ({exc})") from exc
    flat_roles = pc.list_flatten(role_arr)
    if flat_roles.null_count or not (
        pa.types.is_string(flat_roles.type) or pa.types.is_large_string(flat_roles.type)
    ):
        raise ValueError(f"{name}: token_roles must be lists of strings from {list(ROLES)}")
    row = np.repeat(np.arange(len(scores), dtype=np.int64), n_lp)
    known = pc.is_in(flat_roles, value_set=pa.array(ROLES)).to_numpy(zero_copy_only=False)
    if not known.all():
        t = int(np.flatnonzero(~known)[0])
        raise ValueError(
            f"{name}: row {row[t]} ({describe_row(scores, int(row[t]))}) has token "
            f"role {flat_roles[t].as_py()!r}; expected one of {list(ROLES)}"
        )
    check_finite(logprob, scores, "token_logprobs", name, rows=row)
    is_answer = pc.equal(flat_roles, ANSWER_ROLE).to_numpy(zero_copy_only=False)
    return row, logprob, is_answer


def sentence_scores(scores: pd.DataFrame, reduction: str = "sum") -> pd.DataFrame:
    """Reduce a score table to a sentence-score table (paper Appendix C).

    Parameters
    ----------
    scores : pandas.DataFrame
        A score table (:mod:`calib.scoring.schema`): one row per statement with its
        ``token_logprobs`` and ``token_roles``.
    reduction : str
        One of :data:`REDUCTIONS`: ``"sum"`` (the paper's choice) or ``"mean"`` of all scored
        token log-probabilities, or ``"sum-answer"`` / ``"mean-answer"`` over the answer tokens
        (role ``"object"``) only.

    Returns
    -------
    pandas.DataFrame
        The columns ``model, dataset, relation, instance, template, option, answer_idx, score``
        (see :mod:`calib.confidence.schema`), one row per input row, in the input order.

    Raises
    ------
    ValueError
        Naming the row, for missing or mismatched token lists, unknown roles, NaN/infinite
        log-probabilities, and (for the answer reductions) statements without answer tokens.
    """
    if reduction not in REDUCTIONS:
        raise ValueError(f"unknown reduction {reduction!r}; expected one of {list(REDUCTIONS)}")
    name = "score table"
    require_columns(scores, (*GROUP, "option", "answer_idx", "token_logprobs", "token_roles"), name)
    row, logprob, is_answer = token_arrays(scores, name)
    n = len(scores)
    if reduction.endswith("-answer"):
        weight = is_answer.astype(float)
        count = np.bincount(row, weights=weight, minlength=n)
        none = count == 0
        if none.any():
            i = int(np.flatnonzero(none)[0])
            raise ValueError(
                f"{name}: row {i} ({describe_row(scores, i)}) has no answer tokens "
                f"(role {ANSWER_ROLE!r}); reduction {reduction!r} needs them "
                f"({int(none.sum())} such row(s) in all)"
            )
        total = np.bincount(row, weights=logprob * weight, minlength=n)
    else:
        count = np.bincount(row, minlength=n).astype(float)
        total = np.bincount(row, weights=logprob, minlength=n)
    score = total / count if reduction.startswith("mean") else total
    out = scores.loc[:, [*GROUP, "option"]].copy()
    out["option"] = integer_column(scores, "option", name)
    out["answer_idx"] = integer_column(scores, "answer_idx", name)
    out["score"] = score
    check_finite(score, out, "score", name)
    return out.reset_index(drop=True)


def harmonic_mean(accuracy, ace):
    """The harmonic mean of accuracy and ``1 - ACE`` used to choose a reduction (Appendix C):

    ``H = 2 * ACC * (1 - ACE) / (ACC + (1 - ACE))``, 0 where both terms are 0.

    Parameters
    ----------
    accuracy : float or array-like
        Accuracy, in ``[0, 1]``.
    ace : float or array-like
        ACE, in ``[0, 1]``, of the same shape as ``accuracy``.

    Returns
    -------
    float or numpy.ndarray
        ``H``: a float for numbers, an array for arrays.

    Raises
    ------
    ValueError
        If an accuracy or ACE lies outside ``[0, 1]``.
    """
    acc = np.asarray(accuracy, dtype=float)
    cal = 1.0 - np.asarray(ace, dtype=float)
    if np.any((acc < 0) | (acc > 1)) or np.any((cal < 0) | (cal > 1)):
        raise ValueError("harmonic_mean: accuracy and ACE must lie in [0, 1]")
    denom = acc + cal
    with np.errstate(invalid="ignore", divide="ignore"):
        h = np.where(denom > 0, 2 * acc * cal / np.where(denom > 0, denom, 1), 0.0)
    return float(h) if h.ndim == 0 else h
