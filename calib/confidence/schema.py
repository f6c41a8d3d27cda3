"""The two frames of the confidence stage, their keys, and the checks that guard them.

*Sentence-score table* (made by :func:`calib.confidence.reductions.sentence_scores`): the keys
of the score table (:mod:`calib.scoring.schema`) with the token lists reduced to one float:

==============  =====  ===================================================================
column          dtype  meaning
==============  =====  ===================================================================
``model`` ...   str    ``model, dataset, relation, instance, template`` as in the score table
``option``      int    index of the answer option, ``0 .. n-1`` within its answer space
``answer_idx``  int    index of the correct option (the same on every row of a group)
``score``       float  sentence log-likelihood of the statement with this option
==============  =====  ===================================================================

*Estimate table* (made by :mod:`calib.confidence.estimators`): one row per instance, or per
(instance, template) for the single-template estimators:

===============  =====  ==================================================================
column           dtype  meaning
===============  =====  ==================================================================
``model`` ...    str    ``model, dataset, relation, instance`` (:data:`INSTANCE`)
``template``     str    single-template estimators only: the template used
``prediction``   int    predicted option index; ``-1`` when a voting aggregation rejected
``correct``      bool   the prediction is the correct option (``False`` when rejected)
``confidence``   float  the estimator's confidence in ``[0, 1]`` (``0`` when rejected)
``n_agree``      int    multi-template estimators only: templates predicting the winner
``rejected``     bool   multi-template estimators only: the voting found no answer
===============  =====  ==================================================================

``answer_idx`` is always the correct option's *index* (as in the data files and the score
table); ``correct`` is always the *bool* "the prediction is right".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.scoring.schema import GROUP

#: the keys of one instance (one fact), across templates
INSTANCE: tuple[str, ...] = tuple(k for k in GROUP if k != "template")
#: the columns of a sentence-score table
SENTENCE_COLUMNS: tuple[str, ...] = (*GROUP, "option", "answer_idx", "score")
#: the columns every estimate table has
ESTIMATE_COLUMNS: tuple[str, ...] = (*INSTANCE, "prediction", "correct", "confidence")


def describe_row(frame: pd.DataFrame, position: int, keys: Sequence[str] = GROUP) -> str:
    """``model=.., relation=.., ...`` for the row at ``position`` (for error messages)."""
    row = frame.iloc[position]
    return ", ".join(f"{k}={row[k]!r}" for k in keys if k in frame.columns)


def group_codes(frame: pd.DataFrame, keys: Sequence[str]) -> tuple[np.ndarray, int]:
    """Dense integer codes ``0 .. g-1`` for the groups of ``keys``, numbered in sorted key
    order (so they do not depend on the order of the rows), and the number of groups ``g``."""
    if len(frame) == 0:
        return np.zeros(0, dtype=np.int64), 0
    combined = np.zeros(len(frame), dtype=np.int64)
    for key in keys:
        codes, uniques = pd.factorize(frame[key], sort=True)
        if (codes < 0).any():
            bad = int(np.flatnonzero(codes < 0)[0])
            raise ValueError(
                f"column {key!r} is missing a value at row {bad} ({describe_row(frame, bad)})"
            )
        combined = combined * max(len(uniques), 1) + codes
    uniq, inverse = np.unique(combined, return_inverse=True)
    return inverse.astype(np.int64), len(uniq)


def require_columns(frame: pd.DataFrame, columns: Sequence[str], name: str, hint: str = "") -> None:
    """Raise ``ValueError`` naming the missing columns of ``frame``."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} lacks column(s) {missing}; expected {list(columns)}"
            + (f". {hint}" if hint else "")
        )


def check_finite(
    values: np.ndarray,
    frame: pd.DataFrame,
    column: str,
    name: str,
    keys: Sequence[str] = GROUP,
    rows: np.ndarray | None = None,
) -> None:
    """Raise ``ValueError`` naming the first row whose ``column`` is NaN or infinite. For a
    column of lists, ``values`` are the lists' items one after another and ``rows`` the row of
    each."""
    bad = ~np.isfinite(values)
    if bad.any():
        t = int(np.flatnonzero(bad)[0])
        i = t if rows is None else int(rows[t])
        raise ValueError(
            f"{name}: column {column!r} is {float(values[t])!r} (expected a "
            f"finite number) at row {i} ({describe_row(frame, i, keys)}); "
            f"{int(bad.sum())} such {'row' if rows is None else 'value'}(s) in all"
        )


def integer_column(frame: pd.DataFrame, column: str, name: str) -> np.ndarray:
    """``frame[column]`` as int64, or a ``ValueError`` naming the first non-integer row."""
    values = frame[column].to_numpy()
    if values.dtype.kind in "iu":
        return values.astype(np.int64, copy=False)
    as_float = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(as_float) | (as_float != np.round(as_float))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name}: column {column!r} must hold integers; row {i} has "
            f"{values[i]!r} ({describe_row(frame, i)})"
        )
    return as_float.astype(np.int64)


def check_sentence_scores(frame: pd.DataFrame, name: str = "sentence-score table") -> pd.DataFrame:
    """Validate a sentence-score table and return it unchanged.

    Checks: the columns; ``score`` finite; ``option`` and ``answer_idx`` integers; within each
    (model, dataset, relation, instance, template) group the options are exactly ``0 .. n-1``
    with ``n >= 2``, and ``answer_idx`` is one value in ``0 .. n-1``; every template of an instance
    has the same number of options (one answer space per instance).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to check.
    name : str
        The table's name in messages (default ``"sentence-score table"``).

    Returns
    -------
    pandas.DataFrame
        ``frame``, unchanged.

    Raises
    ------
    TypeError
        When ``frame`` is not a DataFrame.
    ValueError
        Naming the first check that fails and its row.
    """
    require_columns(
        frame,
        SENTENCE_COLUMNS,
        name,
        hint="Reduce a score table first: calib.confidence.sentence_scores(scores)",
    )
    check_finite(frame["score"].to_numpy(dtype=float), frame, "score", name)
    option = integer_column(frame, "option", name)
    answer_idx = integer_column(frame, "answer_idx", name)
    codes, n_groups = group_codes(frame, GROUP)
    n_opt = np.bincount(codes, minlength=n_groups)
    # options must be 0 .. n-1, each once: min 0, max n-1 and no duplicates
    order = np.lexsort((option, codes))
    sorted_codes, sorted_opt = codes[order], option[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_codes)) + 1]
    position = np.arange(len(order)) - np.repeat(starts, n_opt)
    bad = sorted_opt != position
    if bad.any():
        i = int(order[np.flatnonzero(bad)[0]])
        g = codes[i]
        got = np.sort(option[codes == g])
        raise ValueError(
            f"{name}: the options of group ({describe_row(frame, i)}) must be "
            f"0..{n_opt[g] - 1}, each once; got {got.tolist()[:20]}"
            + (" ..." if len(got) > 20 else "")
        )
    small = n_opt < 2
    if small.any():
        i = int(order[starts[np.flatnonzero(small)[0]]])
        raise ValueError(
            f"{name}: group ({describe_row(frame, i)}) has only "
            f"{n_opt[codes[i]]} option; an answer space needs at least 2"
        )
    sorted_correct = answer_idx[order]
    cmin = np.minimum.reduceat(sorted_correct, starts)
    cmax = np.maximum.reduceat(sorted_correct, starts)
    differ = cmin != cmax
    if differ.any():
        i = int(np.flatnonzero(differ[codes])[0])
        raise ValueError(
            f"{name}: column 'answer_idx' differs between the options of group "
            f"({describe_row(frame, i)}): values {cmin[codes[i]]} and "
            f"{cmax[codes[i]]}; it must be the one correct option's index"
        )
    out = (cmin < 0) | (cmin >= n_opt)
    if out.any():
        i = int(np.flatnonzero(out[codes])[0])
        raise ValueError(
            f"{name}: answer_idx {cmin[codes[i]]} is out of range for group "
            f"({describe_row(frame, i)}) with {n_opt[codes[i]]} options "
            f"(expected 0..{n_opt[codes[i]] - 1})"
        )
    # one answer space per instance: same number of options on every template
    inst, n_inst = group_codes(frame, INSTANCE)
    g_inst = inst[order[starts]]  # the instance of each group
    lo = np.full(n_inst, np.iinfo(np.int64).max)
    hi = np.full(n_inst, np.iinfo(np.int64).min)
    np.minimum.at(lo, g_inst, n_opt)  # one entry per group: cheap
    np.maximum.at(hi, g_inst, n_opt)
    uneven = lo != hi
    if uneven.any():
        k = int(np.flatnonzero(uneven)[0])
        rows = frame[inst == k]
        sizes = rows.groupby("template")["option"].size().to_dict()
        raise ValueError(
            f"{name}: the templates of instance ({describe_row(rows, 0, INSTANCE)}) "
            f"have answer spaces of different sizes {sizes}; every template of "
            f"an instance must be scored on the same options"
        )
    return frame
