"""Answer-set subsampling (paper §5.2): how confidence depends on the size of the answer space.

For each instance the correct option is kept together with ``k - 1`` other options drawn
uniformly without replacement; the softmax is then recomputed over the ``k`` kept options
(simply by running any estimator on the returned sentence-score table).

The subset is drawn once per (dataset, relation, instance) and shared by every model and
template, so multi-template estimators see one answer space per instance and models are
compared on the same subsets. Draws are seeded by ``(seed, repeat)`` and taken over the
instances in sorted key order, so they do not depend on the row order of the table.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd

from calib.confidence.schema import check_sentence_scores, group_codes
from calib.scoring.schema import FACT, GROUP

#: what to do with instances whose answer space is not larger than ``k``
TOO_SMALL: tuple[str, ...] = ("error", "keep", "drop")


def subsample_options(
    sent: pd.DataFrame, k: int, seed: int = 0, repeat: int = 0, too_small: str = "error"
) -> pd.DataFrame:
    """A sentence-score table restricted to ``k`` options per instance (paper §5.2).

    The kept options are renumbered ``0 .. k-1`` in their original order and ``answer_idx`` is
    remapped; the original index is kept in ``source_option``. Instances with fewer than ``k``
    options: ``too_small="error"`` (default) raises a ``ValueError`` naming their relations,
    ``"keep"`` keeps them whole, ``"drop"`` leaves them out. ``repeat`` selects an independent
    draw for the same ``seed``.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table (:func:`calib.confidence.reductions.sentence_scores`), one
        answer space per instance across models and templates.
    k : int
        Options kept per instance, at least 2 (the correct one among them).
    seed : int
        The draw's seed (default 0).
    repeat : int
        Which draw for ``seed`` (default 0).
    too_small : str
        One of :data:`TOO_SMALL` (default ``"error"``).

    Returns
    -------
    pandas.DataFrame
        The kept rows, with ``source_option`` and a fresh index.

    Raises
    ------
    ValueError
        For a ``k`` below 2, an unknown ``too_small``, a table
        :func:`calib.confidence.schema.check_sentence_scores` rejects, an instance with different
        correct options or answer-space sizes across models or templates, or (with
        ``too_small="error"``) instances with fewer than ``k`` options.
    """
    if not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(
            f"k must be an integer >= 2 (the correct option and at least one other), got {k!r}"
        )
    if too_small not in TOO_SMALL:
        raise ValueError(f"unknown too_small {too_small!r}; expected one of {list(TOO_SMALL)}")
    check_sentence_scores(sent)
    fact, n_fact = group_codes(sent, FACT)
    option = sent["option"].to_numpy(dtype=np.int64)
    answer_idx = sent["answer_idx"].to_numpy(dtype=np.int64)
    # one answer space and one correct option per fact, across models and templates
    n_opt = np.zeros(n_fact, np.int64)
    np.maximum.at(n_opt, fact, option + 1)
    lo = np.full(n_fact, np.iinfo(np.int64).max)
    hi = np.full(n_fact, np.iinfo(np.int64).min)
    np.minimum.at(lo, fact, answer_idx)
    np.maximum.at(hi, fact, answer_idx)
    if (lo != hi).any():
        f = int(np.flatnonzero(lo != hi)[0])
        i = int(np.flatnonzero(fact == f)[0])
        raise ValueError(
            f"instance ({', '.join(f'{c}={sent.iloc[i][c]!r}' for c in FACT)}) has "
            f"different correct options ({lo[f]} and {hi[f]}) across models or "
            f"templates; a subset can only be drawn for one answer space"
        )
    groups, n_groups = group_codes(sent, GROUP)
    group_fact = np.zeros(n_groups, np.int64)
    group_fact[groups] = fact
    per_fact = np.bincount(group_fact, minlength=n_fact)  # groups (model x template) per fact
    uneven = np.bincount(fact, minlength=n_fact) != n_opt * per_fact
    if uneven.any():
        f = int(np.flatnonzero(uneven)[0])
        i = int(np.flatnonzero(fact == f)[0])
        raise ValueError(
            f"instance ({', '.join(f'{c}={sent.iloc[i][c]!r}' for c in FACT)}) is "
            f"scored on answer spaces of different sizes by different models; a "
            f"subset can only be drawn for one answer space"
        )
    small = n_opt < k
    if small.any() and too_small == "error":
        rel = sent.loc[small[fact], "relation"].unique()
        raise ValueError(
            f"{int(small.sum())} instance(s) have fewer than k={k} options "
            f"(relations {sorted(rel)[:10]}); pass too_small='keep' or 'drop'"
        )
    # draw: uniform keys per (fact, option); the correct option always first
    offsets = np.r_[0, np.cumsum(n_opt)[:-1]]
    n_cells = int(n_opt.sum())
    cell_fact = np.repeat(np.arange(n_fact), n_opt)
    cell_opt = np.arange(n_cells) - offsets[cell_fact]
    u = np.random.default_rng([int(seed), int(repeat)]).random(n_cells)
    u[cell_opt == lo[cell_fact]] = -1.0
    order = np.lexsort((u, cell_fact))
    rank = np.empty(n_cells, np.int64)
    rank[order] = np.arange(n_cells) - offsets[cell_fact[order]]
    keep_cell = (rank < k) | (small[cell_fact] & (too_small == "keep"))
    keep_cell &= ~(small[cell_fact] & (too_small == "drop"))
    # new index = position among the kept options of the fact, in original order
    kept_before: np.ndarray = np.cumsum(keep_cell) - keep_cell
    new_index: np.ndarray = kept_before - kept_before[offsets][cell_fact]
    cell = offsets[fact] + option
    rows = keep_cell[cell]
    out = sent.loc[rows].copy()
    out["source_option"] = option[rows]
    out["option"] = new_index[cell[rows]]
    out["answer_idx"] = new_index[offsets[fact[rows]] + answer_idx[rows]]
    return out.reset_index(drop=True)


def subsample_repeats(
    sent: pd.DataFrame, k: int, repeats: int = 5, seed: int = 0, too_small: str = "error"
) -> Iterator[tuple[int, pd.DataFrame]]:
    """``(repeat, table)`` for ``repeat = 0 .. repeats-1``: independent, repeatable draws of
    :func:`subsample_options` (average a metric over them to smooth the draw's noise).

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table (:func:`calib.confidence.reductions.sentence_scores`), one
        answer space per instance across models and templates.
    k : int
        Options kept per instance.
    repeats : int
        The number of draws, at least 1 (default 5).
    seed : int
        The draws' seed (default 0).
    too_small : str
        As in :func:`subsample_options` (default ``"error"``).

    Returns
    -------
    Iterator
        ``(repeat, table)`` pairs, lazily.

    Raises
    ------
    ValueError
        When iterated: for ``repeats`` below 1, or as :func:`subsample_options`.
    """
    if not isinstance(repeats, (int, np.integer)) or repeats < 1:
        raise ValueError(f"repeats must be a positive integer, got {repeats!r}")
    for r in range(repeats):
        yield r, subsample_options(sent, k, seed=seed, repeat=r, too_small=too_small)


def subsampled_estimates(
    sent: pd.DataFrame,
    k: int | None,
    repeats: int = 3,
    seed: int = 0,
    template: str = "paraphrase-0",
    too_small: str = "keep",
) -> pd.DataFrame:
    """Base (Eq. 1) and Margin (Eq. 2) on ``template`` after cutting every answer space to
    ``k`` options in each of ``repeats`` seeded draws (:func:`subsample_repeats`; ``k=None``
    keeps the whole answer space, one draw): the estimate table with ``estimator`` (``Base``,
    ``Margin``), ``k`` (``None`` kept as the largest answer space) and ``repeat`` columns. The
    draws are shared by every model, so models and estimators are compared on the same
    options (§5.2, Figures 3 and 4; Appendix F's BEAR with five options)."""
    from calib.confidence.estimators import base, margin

    draws = [(0, sent)] if k is None else subsample_repeats(sent, k, repeats, seed, too_small)
    parts = []
    for r, sub in draws:
        size = int(sub.groupby(list(FACT))["option"].max().max()) + 1 if k is None else int(k)
        for name, fn in (("Base", base), ("Margin", margin)):
            parts.append(fn(sub, template).assign(estimator=name, k=size, repeat=r))
    return pd.concat(parts, ignore_index=True)
