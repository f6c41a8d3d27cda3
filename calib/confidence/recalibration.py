"""Recalibration baselines, cross-fitted over relations (beyond the paper).

The paper compares Base, Margin and Average with each other only. Calibration work usually also
asks whether an estimator beats a *trivially recalibrated* one: a monotone map with one or two
parameters, fitted on held-out data.

* **Temperature scaling** (Guo et al., 2017) of the option softmax (paper §3): the option
  probabilities of an instance become ``softmax(l / T)`` for its sentence scores ``l``
  (:mod:`calib.confidence.probabilities`), one temperature ``T > 0`` per model (and dataset),
  fitted by maximum likelihood of the correct option, ``max_T sum log softmax(l / T)[answer]``
  on one template. The prediction is unchanged; Base-Confidence is recomputed by the paper's
  estimator on the scaled scores (``Base (temperature)``). ``Margin (temperature)`` is there on
  request, but the fit targets the probability of the correct option, i.e. Base's top
  probability, not Margin's difference of two. The negative log-likelihood is convex in
  ``1 / T``; :func:`fit_temperature` gives ``T`` with its profile-likelihood interval (the ``T``
  whose likelihood-ratio statistic ``2 (NLL(T) - NLL(T_hat))`` is within the ``chi^2_1``
  quantile of ``level``; it assumes the instances independent and the scaled softmax the true
  model, so it is a model-based interval).
* **Platt scaling** (Platt, 1999) of any estimator's confidence: ``sigmoid(a * logit(c) + b)``
  (confidence clipped to ``[1e-12, 1 - 1e-12]`` first, so confidences of 0 or 1 and the
  paper's Entropy-Confidence below 0 have a logit), ``a``, ``b`` fitted by logistic regression
  of correctness with Platt's smoothed targets ``(N+ + 1) / (N+ + 2)`` and ``1 / (N- + 2)``
  (as scikit-learn's sigmoid calibration), which keep the fit finite when a fold is separable.
  Named ``<estimator> (Platt)``, e.g. ``Margin (Platt)``. Instances a voting aggregation
  rejected are left out of the fit and keep confidence 0.

**Cross-fitting.** A recalibrated confidence is judged on instances its fit never saw: the
relations of each model are split into ``k`` folds (:func:`relation_folds`, seeded, the same
split for every estimator and for both methods), each fold's instances are recalibrated by a
fit on the other folds' relations only, and every fit records the relations it was fitted on
and those it scored (``fit_relations``, ``scored_relations`` of ``Recalibration.fits``;
disjoint by construction). Folds by relation, not by instance, because instances of one
relation share a template and an answer space: a fit on some facts of a relation would know the
relation's confidence level. The recalibrated estimate tables have the columns of
:func:`calib.confidence.estimators.all_estimates` plus ``fold``, so
:func:`calib.confidence.summary.summary` and every metric apply unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from calib.confidence.estimators import SINGLE
from calib.confidence.probabilities import log_softmax
from calib.confidence.schema import INSTANCE, check_sentence_scores, group_codes, require_columns
from calib.data.bear import PLAIN
from calib.scoring.schema import GROUP

#: default number of relation folds
N_FOLDS = 5
#: confidences are clipped to [PLATT_EPS, 1 - PLATT_EPS] before the logit
PLATT_EPS = 1e-12
#: the search range of log(1 / T)
_LOG_BETA = (-12.0, 12.0)


@dataclass(frozen=True)
class Recalibration:
    """Cross-fitted recalibration: ``estimates`` (an estimate table, one estimator per
    recalibrated estimator, with a ``fold`` column) and ``fits`` (one row per model x dataset
    [x estimator] x fold with the relations it was fitted on and those it scored, and its
    parameters)."""

    estimates: pd.DataFrame
    fits: pd.DataFrame


def relation_folds(relations, k: int = N_FOLDS, seed: int = 0) -> dict[str, int]:
    """``{relation: fold}``: the distinct ``relations`` (sorted, then permuted by ``seed``)
    dealt into ``k`` folds of sizes differing by at most one. Depends only on the set of
    relations, ``k`` and ``seed``.

    Parameters
    ----------
    relations : iterable of str
        Relation ids (repeats are counted once).
    k : int
        The number of folds, at least 2 and at most the number of relations (default 5).
    seed : int
        The permutation's seed (default 0).

    Returns
    -------
    dict
        The fold (0 .. ``k - 1``) of each relation.

    Raises
    ------
    ValueError
        For a ``k`` below 2 or above the number of relations.
    """
    names = sorted(set(relations))
    if not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k must be an integer >= 2 (folds of relations), got {k!r}")
    if k > len(names):
        raise ValueError(
            f"k = {k} folds need at least {k} relations; the table has {len(names)}: {names[:10]}"
        )
    perm = np.random.default_rng(seed).permutation(len(names))
    fold = np.empty(len(names), dtype=np.int64)
    fold[perm] = np.arange(len(names)) % k
    return {name: int(f) for name, f in zip(names, fold)}


# ---------------------------------------------------------------------------------------------
# temperature scaling


@dataclass(frozen=True)
class _AnswerSpaces:
    """The instances of one sentence-score table (one template) as dense blocks: per answer-space
    size ``K``, the ``(m, K)`` scores, the correct options and the instances' positions."""

    relation: np.ndarray  # per instance
    blocks: list  # (positions, scores (m, K), answer (m,))

    @classmethod
    def of(cls, sent: pd.DataFrame) -> _AnswerSpaces:
        codes, n_groups = group_codes(sent, GROUP)
        option = sent["option"].to_numpy(dtype=np.int64)
        order = np.lexsort((option, codes))
        score = sent["score"].to_numpy(dtype=float)[order]
        sizes = np.bincount(codes, minlength=n_groups)
        starts = np.r_[0, np.cumsum(sizes)[:-1]]
        first = order[starts]
        answer = sent["answer_idx"].to_numpy(dtype=np.int64)[first]
        blocks = []
        for size in np.unique(sizes):
            at = np.flatnonzero(sizes == size)
            blocks.append((at, score[starts[at][:, None] + np.arange(size)[None, :]], answer[at]))
        return cls(sent["relation"].to_numpy()[first], blocks)

    def nll(self, beta: float, use: np.ndarray) -> float:
        """``-sum log softmax(beta * l)[answer]`` over the instances where ``use`` is True."""
        total = 0.0
        for at, scores, answer in self.blocks:
            keep = use[at]
            if keep.any():
                lp = log_softmax(beta * scores[keep], axis=-1)
                total -= float(lp[np.arange(int(keep.sum())), answer[keep]].sum())
        return total


def _fit_beta(spaces: _AnswerSpaces, use: np.ndarray, level: float) -> dict:
    """Maximum-likelihood ``T = 1 / beta`` on the instances ``use`` with its profile-likelihood
    ``level`` interval."""
    n = int(use.sum())
    if n == 0:
        raise ValueError("temperature scaling: no instance to fit on")

    def f(log_beta):
        return spaces.nll(float(np.exp(log_beta)), use)

    res = optimize.minimize_scalar(f, bounds=_LOG_BETA, method="bounded", options={"xatol": 1e-10})
    best, nll = float(res.x), float(res.fun)
    crit = float(stats.chi2.ppf(level, 1)) / 2  # NLL rise allowed inside the interval

    def rise(log_beta):
        return f(log_beta) - nll - crit

    ends = []
    for edge in _LOG_BETA:
        if rise(edge) <= 0:  # the likelihood is too flat to bound the interval on this side
            ends.append(edge)
        else:
            ends.append(optimize.brentq(rise, *sorted((best, edge)), xtol=1e-10))
    beta, beta_lo, beta_hi = np.exp(best), np.exp(ends[0]), np.exp(ends[1])
    return {
        "n_fit": n,
        "temperature": float(1 / beta),
        "temperature_low": float(1 / beta_hi),
        "temperature_high": float(1 / beta_lo),
        "nll": nll / n,
    }


def _one_template(sent: pd.DataFrame, template: str) -> pd.DataFrame:
    require_columns(sent, ("template",), "sentence-score table")
    part = sent[sent["template"] == template]
    if part.empty:
        raise ValueError(
            f"template {template!r} is not in the table; it has {sorted(sent['template'].unique())}"
        )
    check_sentence_scores(part)
    return part


def fit_temperature(sent: pd.DataFrame, template: str = PLAIN, level: float = 0.95) -> pd.DataFrame:
    """The temperature of each model (and dataset) fitted on all its instances of ``template``
    (for reporting; the recalibrated rows use :func:`temperature_scaling`'s cross-fitted ones).
    Columns ``model``, ``dataset``, ``n_fit``, ``temperature``, ``temperature_low``,
    ``temperature_high`` (profile likelihood, ``level``), ``nll`` (mean per instance).

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table (:func:`calib.confidence.reductions.sentence_scores`).
    template : str
        The template whose option softmax is scaled (default ``paraphrase-0``).
    level : float
        The level of the temperature's interval (default 0.95).

    Returns
    -------
    pandas.DataFrame
        One row per model and dataset, sorted.

    Raises
    ------
    ValueError
        When ``template`` is not in the table, or the table fails
        :func:`calib.confidence.schema.check_sentence_scores`.
    """
    part = _one_template(sent, template)
    rows = []
    for (model, dataset), group in part.groupby(["model", "dataset"], sort=True):
        spaces = _AnswerSpaces.of(group)
        fit = _fit_beta(spaces, np.ones(len(spaces.relation), dtype=bool), level)
        rows.append({"model": model, "dataset": dataset, **fit})
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "dataset",
            "n_fit",
            "temperature",
            "temperature_low",
            "temperature_high",
            "nll",
        ],
    )


def _estimate_frame(parts: list[pd.DataFrame]) -> pd.DataFrame:
    out = pd.concat(parts, ignore_index=True)
    if "n_agree" not in out.columns:
        out["n_agree"] = pd.NA
    if "rejected" not in out.columns:
        out["rejected"] = False
    if "template" not in out.columns:
        out["template"] = None
    out["n_agree"] = out["n_agree"].astype("Int64")
    cols = [
        "estimator",
        *INSTANCE,
        "template",
        "prediction",
        "correct",
        "confidence",
        "n_agree",
        "rejected",
        "fold",
    ]
    return out[cols]


def _fit_row(keys: dict, fold: int, relations: np.ndarray, fold_of: dict, n_scored: int) -> dict:
    fit_rel = tuple(sorted(r for r in set(relations) if fold_of[r] != fold))
    scored_rel = tuple(sorted(r for r in set(relations) if fold_of[r] == fold))
    return {
        **keys,
        "fold": fold,
        "n_scored": n_scored,
        "fit_relations": fit_rel,
        "scored_relations": scored_rel,
    }


def temperature_scaling(
    sent: pd.DataFrame,
    template: str = PLAIN,
    k: int = N_FOLDS,
    seed: int = 0,
    level: float = 0.95,
    estimators: Sequence[str] = ("Base",),
) -> Recalibration:
    """Cross-fitted temperature scaling of the option softmax on ``template``.

    For each model (and dataset) the relations are dealt into ``k`` folds
    (:func:`relation_folds`); fold ``f``'s instances get the temperature fitted on the other
    folds' instances, and ``estimators`` (names of
    :data:`calib.confidence.estimators.SINGLE`; default Base only) are computed on the scaled
    scores, named ``"<name> (temperature)"``. ``fits``: ``model``, ``dataset``, ``fold``,
    ``n_scored``, ``fit_relations``, ``scored_relations``, ``n_fit``, ``temperature``,
    ``temperature_low``, ``temperature_high``, ``nll`` (mean per fit instance).

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table (:func:`calib.confidence.reductions.sentence_scores`).
    template : str
        The template whose option softmax is scaled (default ``paraphrase-0``).
    k : int
        The number of relation folds (default 5).
    seed : int
        The folds' seed (default 0).
    level : float
        The level of each fold's temperature interval (default 0.95).
    estimators : sequence of str
        Single-template estimators to recompute (default ``("Base",)``).

    Returns
    -------
    calib.confidence.recalibration.Recalibration
        The recalibrated ``estimates`` (with ``fold``) and the ``fits``.

    Raises
    ------
    ValueError
        For an estimator that is not single-template, a ``k`` :func:`relation_folds` rejects, or
        as :func:`fit_temperature` for the template.
    """
    unknown = [e for e in estimators if e not in SINGLE]
    if unknown:
        raise ValueError(
            f"temperature scaling recomputes single-template estimators "
            f"{list(SINGLE)}; got {unknown}"
        )
    part = _one_template(sent, template)
    parts, fits = [], []
    for (model, dataset), group in part.groupby(["model", "dataset"], sort=True):
        spaces = _AnswerSpaces.of(group)
        fold_of = relation_folds(spaces.relation, k, seed)
        fold = np.array([fold_of[r] for r in spaces.relation])
        beta_of = {}
        for f in range(k):
            fit = _fit_beta(spaces, fold != f, level)
            beta_of[f] = 1.0 / fit["temperature"]
            fits.append(
                {
                    **_fit_row(
                        {"model": model, "dataset": dataset},
                        f,
                        spaces.relation,
                        fold_of,
                        int((fold == f).sum()),
                    ),
                    **fit,
                }
            )
        row_fold = group["relation"].map(fold_of).to_numpy()
        scaled = group.assign(
            score=group["score"].to_numpy(dtype=float) * np.vectorize(beta_of.get)(row_fold)
        )
        for name in estimators:
            est = SINGLE[name](scaled, template)
            parts.append(
                est.assign(
                    estimator=f"{name} (temperature)",
                    fold=est["relation"].map(fold_of).astype(np.int64),
                )
            )
    return Recalibration(_estimate_frame(parts), pd.DataFrame(fits))


# ---------------------------------------------------------------------------------------------
# Platt scaling


def _logit(confidence) -> np.ndarray:
    c = np.clip(np.asarray(confidence, dtype=float), PLATT_EPS, 1 - PLATT_EPS)
    return np.log(c) - np.log1p(-c)


def fit_platt(confidence, correct, max_iter: int = 100, tol: float = 1e-12) -> tuple[float, float]:
    """``(slope, intercept)`` of Platt scaling, ``P(correct) = sigmoid(slope * logit(c) +
    intercept)``, by Newton's method on the cross-entropy with Platt's smoothed targets
    (module docstring).

    Parameters
    ----------
    confidence : array-like
        Confidences (clipped to ``[PLATT_EPS, 1 - PLATT_EPS]`` before the logit).
    correct : array-like
        Whether each instance is correct, as long as ``confidence``.
    max_iter : int
        The most Newton steps (default 100).
    tol : float
        Stop once a step lowers the loss by at most ``tol * max(1, loss)`` (default 1e-12).

    Returns
    -------
    tuple of (float, float)
        ``(slope, intercept)``.

    Raises
    ------
    ValueError
        When the inputs are not 1-D of one length above 0.
    """
    x = _logit(confidence)
    y = np.asarray(correct, dtype=bool)
    if x.ndim != 1 or x.shape != y.shape or len(x) == 0:
        raise ValueError(
            f"fit_platt: confidence and correct must be 1-D of one length > 0, "
            f"got {x.shape} and {y.shape}"
        )
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    t = np.where(y, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    design = np.column_stack([x, np.ones_like(x)])

    def loss(theta):
        z = design @ theta
        # -(t log s(z) + (1-t) log(1 - s(z))) = log(1 + e^z) - t z
        return float(np.sum(np.logaddexp(0.0, z) - t * z))

    theta = np.array([1.0, 0.0])
    current = loss(theta)
    for _ in range(max_iter):
        p = special.expit(design @ theta)
        grad = design.T @ (p - t)
        hess = design.T @ (design * (p * (1 - p))[:, None])
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        scale = 1.0
        while scale > 1e-10:
            trial = theta - scale * step
            value = loss(trial)
            if value <= current:
                break
            scale /= 2
        else:
            break
        done = current - value <= tol * max(1.0, abs(current))
        theta, current = trial, value
        if done:
            break
    return float(theta[0]), float(theta[1])


def platt_transform(confidence, slope: float, intercept: float) -> np.ndarray:
    """``sigmoid(slope * logit(c) + intercept)`` (confidences clipped as in :func:`fit_platt`).

    Parameters
    ----------
    confidence : array-like
        Confidences.
    slope : float
        The fitted slope (:func:`fit_platt`).
    intercept : float
        The fitted intercept.

    Returns
    -------
    numpy.ndarray
        The recalibrated confidences.
    """
    return special.expit(slope * _logit(confidence) + intercept)


def platt_scaling(
    estimates: pd.DataFrame,
    estimators: Sequence[str] | None = None,
    k: int = N_FOLDS,
    seed: int = 0,
) -> Recalibration:
    """Cross-fitted Platt scaling of the confidences of ``estimators`` (names in the
    ``estimator`` column of a long estimate table such as
    :func:`calib.confidence.estimators.all_estimates`; ``None``: all), one fit per model,
    dataset, estimator (and template) and fold, named ``"<estimator> (Platt)"``. The folds are
    :func:`relation_folds` of each model's relations, the same as :func:`temperature_scaling`'s
    for the same ``k`` and ``seed``. ``fits``: the group columns, ``fold``, ``n_scored``,
    ``fit_relations``, ``scored_relations``, ``n_fit``, ``slope``, ``intercept``.

    Parameters
    ----------
    estimates : pandas.DataFrame
        A long estimate table (``estimator``, instance keys, ``prediction``, ``correct``,
        ``confidence``; ``rejected`` where an estimator can reject).
    estimators : sequence of str or None
        The estimators to recalibrate (default: all in the table).
    k : int
        The number of relation folds (default 5).
    seed : int
        The folds' seed (default 0).

    Returns
    -------
    calib.confidence.recalibration.Recalibration
        The recalibrated ``estimates`` (with ``fold``) and the ``fits``.

    Raises
    ------
    ValueError
        For a missing column, an estimator that is not in the table, or a ``k``
        :func:`relation_folds` rejects.
    """
    require_columns(
        estimates, ("estimator", *INSTANCE, "prediction", "correct", "confidence"), "estimate table"
    )
    names = (
        list(dict.fromkeys(estimates["estimator"].unique()))
        if estimators is None
        else list(estimators)
    )
    unknown = [e for e in names if e not in set(estimates["estimator"].unique())]
    if unknown:
        raise ValueError(
            f"estimator(s) {unknown} not in the estimate table; it has "
            f"{sorted(estimates['estimator'].unique())}"
        )
    est = estimates[estimates["estimator"].isin(names)]
    keys = [c for c in ("model", "dataset", "estimator", "template") if c in est.columns]
    folds = {
        md: relation_folds(g["relation"], k, seed)
        for md, g in estimates.groupby(["model", "dataset"], sort=True)
    }
    parts, fits = [], []
    for label, group in est.groupby(keys, sort=True, dropna=False):
        where = dict(zip(keys, label))
        fold_of = folds[(where["model"], where["dataset"])]
        fold = group["relation"].map(fold_of).to_numpy(dtype=np.int64)
        rejected = (
            group["rejected"].astype(bool).to_numpy()
            if "rejected" in group.columns
            else np.zeros(len(group), dtype=bool)
        )
        conf = group["confidence"].to_numpy(dtype=float)
        corr = group["correct"].astype(bool).to_numpy()
        new = np.zeros(len(group))
        relations = group["relation"].to_numpy()
        for f in range(k):
            train = (fold != f) & ~rejected
            score = (fold == f) & ~rejected
            slope, intercept = fit_platt(conf[train], corr[train])
            new[score] = platt_transform(conf[score], slope, intercept)
            fits.append(
                {
                    **_fit_row(where, f, relations, fold_of, int((fold == f).sum())),
                    "n_fit": int(train.sum()),
                    "slope": slope,
                    "intercept": intercept,
                }
            )
        parts.append(
            group.assign(estimator=f"{where['estimator']} (Platt)", confidence=new, fold=fold)
        )
    return Recalibration(_estimate_frame(parts), pd.DataFrame(fits))
