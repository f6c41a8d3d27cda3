"""Prompt selection and ensembles (Jiang et al. 2020, §4) over sentence-score tables.

Input: a *sentence-score table* (:mod:`calib.scoring.schema`): one row per ``model, dataset,
relation, instance, template, option`` with ``answer_idx`` and one float ``score`` (the
statement's log-probability, reduced from its tokens). Here a *template* is a prompt's name.
Within a relation every instance is scored with the same prompts against the same closed answer
space, so a relation is a dense array ``scores[instance, prompt, option]``.

Each prompt's scores are first turned into log-probabilities over the answer space,
``log P(y | x, t) = log_softmax_y(score)``; an ensemble combines these per option and its
probability is the softmax over options of the combination (LPAQA Eq. for ``s(y|x,r)`` and
``P(y|x,r)``). Because a per-prompt constant does not change a softmax over options, the
ensembles are the same whether raw scores or log-probabilities are averaged.

Outputs:

* :func:`prompt_accuracy`, :func:`rank_prompts` - accuracy of every prompt on the training
  pairs; the rank-0 prompt is the **top-1** selection (§4.1).
* :func:`top_k_ensemble` - **rank-based** ensemble of the ``K`` best prompts (§4.2), log-linear
  or (§5.3's ablation) linear.
* :func:`fit_ensemble_weights`, :func:`weighted_ensemble` - the **optimised** ensemble (§4.3);
  :func:`weighted_predictions` - its per-fact predictions alone.
* :func:`oracle` - a fact counts as correct if any prompt gets it right (§5, upper bound).

Ensembles come back as an *ensemble table*: the sentence-score table's keys with ``template``
set to the ensemble's name (``top-3``, ``optimized``), ``score`` = the ensemble's ``s(y|x,r)``
and ``prob`` = its softmax over the options. A softmax over ``score`` gives ``prob`` again, so
the table can be fed to the confidence estimators and calibration metrics like any other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from calib.confidence.probabilities import log_softmax
from calib.prompts.reuse import Reuse

KEYS: tuple[str, ...] = ("model", "dataset", "relation")
COLUMNS: tuple[str, ...] = (*KEYS, "instance", "template", "option", "answer_idx", "score")


@dataclass(frozen=True)
class _Cube:
    instances: np.ndarray  # (n,)
    templates: tuple[str, ...]  # (t,)
    logp: np.ndarray  # (n, t, o): log-softmax over options of each prompt's scores
    answer_idx: np.ndarray  # (n,)

    def columns(self, names) -> np.ndarray:
        index = {t: i for i, t in enumerate(self.templates)}
        missing = [n for n in names if n not in index]
        if missing:
            raise ValueError(f"prompt(s) {missing} not scored; scored: {list(self.templates)}")
        return np.array([index[n] for n in names], dtype=int)


#: the dense arrays of the tables seen inside :func:`reusing_cubes`
_CUBES = Reuse()


def reusing_cubes():
    """Inside (a context manager), the dense arrays of a sentence-score table (``_cubes``) are
    made once for every ensemble, ranking and oracle computed on that same table object (which
    must not change inside): LPAQA computes ten or more of them on each prompt set's table, and
    one ensemble per other model with that model's weights (§5.3), each of which split the
    table anew. The tables are held until the block ends."""
    return _CUBES.block()


def _cubes(scores: pd.DataFrame, name: str = "sentence-score table") -> dict[tuple, _Cube]:
    """Split a sentence-score table into one dense array per (model, dataset, relation)
    (made once per table inside :func:`reusing_cubes`)."""
    return _CUBES.once(scores, "cubes", lambda: _split_cubes(scores, name))


def _split_cubes(scores: pd.DataFrame, name: str) -> dict[tuple, _Cube]:
    missing = [c for c in COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"{name} lacks column(s) {missing}; expected at least {list(COLUMNS)}")
    if scores.empty:
        raise ValueError(f"{name} is empty")
    out = {}
    for key, g in scores.groupby(list(KEYS), sort=True):
        where = f"{name}, {dict(zip(KEYS, key))}"
        inst_code, instances = pd.factorize(g["instance"], sort=True)
        tmpl_code, templates = pd.factorize(g["template"])
        opt = g["option"].to_numpy()
        if opt.min() < 0:
            raise ValueError(f"{where}: negative option index {opt.min()}")
        n, t, o = len(instances), len(templates), int(opt.max()) + 1
        values = np.full((n, t, o), np.nan)
        values[inst_code, tmpl_code, opt] = g["score"].to_numpy(dtype=float)
        if np.isnan(values).any():
            i, j, k = np.argwhere(np.isnan(values))[0]
            raise ValueError(
                f"{where}: no score for instance {instances[i]!r}, template "
                f"{templates[j]!r}, option {k} (expected one score per instance, "
                f"template and option: {n} x {t} x {o}; a NaN score counts as none)"
            )
        if len(g) != n * t * o:
            dup = g[g.duplicated(["instance", "template", "option"])].iloc[0]
            raise ValueError(
                f"{where}: instance {dup['instance']!r}, template "
                f"{dup['template']!r}, option {dup['option']} is scored twice"
            )
        per_inst = g.groupby(inst_code)["answer_idx"].agg(["min", "max"])
        if (per_inst["min"] != per_inst["max"]).any():
            bad = instances[per_inst.index[per_inst["min"] != per_inst["max"]][0]]
            raise ValueError(f"{where}: instance {bad!r} has differing `answer_idx` values")
        answer_idx = per_inst["min"].to_numpy(dtype=int)
        if answer_idx.min() < 0 or answer_idx.max() >= o:
            raise ValueError(f"{where}: `answer_idx` outside the {o} options")
        out[key] = _Cube(np.asarray(instances), tuple(templates), log_softmax(values), answer_idx)
    return out


def _table(key: tuple, cube: _Cube, name: str, score: np.ndarray) -> pd.DataFrame:
    n, o = score.shape
    return pd.DataFrame(
        {
            **dict(zip(KEYS, key)),
            "instance": np.repeat(cube.instances, o),
            "template": name,
            "option": np.tile(np.arange(o), n),
            "answer_idx": np.repeat(cube.answer_idx, o),
            "score": score.ravel(),
            "prob": np.exp(log_softmax(score)).ravel(),
        }
    )


def _concat(parts: list[pd.DataFrame], columns) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def prompt_accuracy(scores: pd.DataFrame) -> pd.DataFrame:
    """Accuracy of every prompt (LPAQA §4.1: measured on the training pairs).

    Returns ``model, dataset, relation, template, n, accuracy, gold_logprob``: the share of
    instances whose highest-scoring option is the correct one (ties: the lowest option index),
    and the mean log-probability of the correct option (used to break accuracy ties).
    """
    rows = []
    for key, cube in _cubes(scores).items():
        hits = cube.logp.argmax(axis=2) == cube.answer_idx[:, None]
        gold = np.take_along_axis(cube.logp, cube.answer_idx[:, None, None], axis=2)[..., 0]
        for j, t in enumerate(cube.templates):
            rows.append(
                (*key, t, len(cube.instances), float(hits[:, j].mean()), float(gold[:, j].mean()))
            )
    return pd.DataFrame(rows, columns=[*KEYS, "template", "n", "accuracy", "gold_logprob"])


def rank_prompts(train_scores: pd.DataFrame) -> pd.DataFrame:
    """Prompts ranked per (model, relation) by training accuracy (§4.1), best first.

    :func:`prompt_accuracy` plus ``rank`` (0 = the top-1 prompt). Ties in accuracy go to the
    higher mean log-probability of the correct answer, then to the template name.
    """
    acc = prompt_accuracy(train_scores)
    acc = acc.sort_values(
        ["model", "dataset", "relation", "accuracy", "gold_logprob", "template"],
        ascending=[True, True, True, False, False, True],
    )
    acc["rank"] = acc.groupby(["model", "dataset", "relation"]).cumcount()
    return acc.reset_index(drop=True)


def _members(ranking: pd.DataFrame, model: str, relation: str, k: int) -> list[str]:
    mine = ranking[(ranking["model"] == model) & (ranking["relation"] == relation)]
    if mine.empty:
        raise ValueError(f"the ranking has no prompts for model {model!r}, relation {relation!r}")
    if mine["dataset"].nunique() > 1:
        raise ValueError(
            f"the ranking for {model!r}/{relation!r} mixes datasets "
            f"{sorted(mine['dataset'].unique())}; pass one ranking"
        )
    return list(mine.sort_values("rank")["template"][:k])


#: how a rank-based ensemble combines its prompts (:func:`top_k_ensemble`)
COMBINATIONS: tuple[str, ...] = ("log-linear", "linear")


def top_k_ensemble(
    scores: pd.DataFrame,
    ranking: pd.DataFrame,
    k: int,
    name: str | None = None,
    combination: str = "log-linear",
) -> pd.DataFrame:
    """Rank-based ensemble of the ``k`` best prompts (§4.2; ``k = 1`` is top-1 selection).

    ``s(y|x,r) = 1/K sum_{i<K} log P(y | x, t_i)`` over the ``k`` highest-ranked prompts of
    ``ranking`` (:func:`rank_prompts` on the training pairs; matched on ``model, relation``,
    all of them if fewer than ``k``), and ``prob = softmax_y s``. ``combination="linear"`` is
    §5.3's alternative (Eq. 4), ``P(y|x,r) = 1/K sum_i P(y | x, t_i)``: then ``score = log P``.
    Returns an ensemble table (module docstring) named ``name`` (default ``top-<k>``).
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if combination not in COMBINATIONS:
        raise ValueError(f"combination must be one of {COMBINATIONS}, got {combination!r}")
    name = name or f"top-{k}"
    parts = []
    for key, cube in _cubes(scores).items():
        cols = cube.columns(_members(ranking, key[0], key[2], k))
        logp = cube.logp[:, cols, :]
        score = np.log(np.exp(logp).mean(axis=1)) if combination == "linear" else logp.mean(axis=1)
        parts.append(_table(key, cube, name, score))
    return _concat(parts, [*COLUMNS, "prob"])


#: Adam's default hyper-parameters (Kingma and Ba 2015; LPAQA §5.1 "Adam with default
#: parameters"): the moment decays ``beta1``, ``beta2`` and ``eps``
ADAM_BETAS: tuple[float, float] = (0.9, 0.999)
ADAM_EPS = 1e-8


def fit_ensemble_weights(
    train_scores: pd.DataFrame,
    steps: int = 200,
    lr: float = 0.1,
    templates: list[str] | None = None,
) -> pd.DataFrame:
    """Learn the optimised ensemble's prompt weights per relation (§4.3, Eq. 3) with Adam.

    Per (model, relation): ``P(t | r) = softmax(theta_r)``, ``s(y|x,r) = sum_t P(t|r) log P(y |
    x, t)``, and ``theta_r`` (started at 0: equal weights) maximises ``sum log softmax_y
    s(y|x,r)[gold]`` over the training pairs: ``steps`` full-batch Adam steps at rate ``lr``
    (Adam's default betas and eps). Deterministic. ``templates``: only these prompts (default:
    all scored).

    Returns ``model, dataset, relation, template, weight`` (weights sum to 1 per relation).

    The gradient is the closed form of the mean cross-entropy's (``_adam_weights``), in
    numpy: the same steps as ``torch.optim.Adam`` on the autograd gradient (equal to ~1e-12,
    a test), without torch's per-step overhead on these tiny problems (prompts x options:
    at the paper's size, 41,000 steps per model, 5x faster) or its import in every worker.
    """
    rows = []
    for key, cube in _cubes(train_scores, "training sentence-score table").items():
        cols = cube.columns(templates) if templates is not None else np.arange(len(cube.templates))
        weights = _adam_weights(cube.logp[:, cols, :], cube.answer_idx, steps, lr)
        rows += [(*key, cube.templates[c], float(w)) for c, w in zip(cols, weights)]
    return pd.DataFrame(rows, columns=[*KEYS, "template", "weight"])


def _softmax(theta: np.ndarray) -> np.ndarray:
    e = np.exp(theta - theta.max())
    return e / e.sum()


def _adam_weights(logp: np.ndarray, gold: np.ndarray, steps: int, lr: float) -> np.ndarray:
    """``softmax(theta)`` after ``steps`` Adam steps (torch's update order) on the mean
    cross-entropy ``L = -1/n sum_x log softmax_y(s)[gold]`` with ``s = sum_t w_t logp[:, t, :]``
    and ``w = softmax(theta)``. Its gradient: ``dL/ds = (softmax_y(s) - onehot(gold)) / n``,
    ``dL/dw_t = sum_{x,y} dL/ds * logp[:, t, :]``, ``dL/dtheta = w * (dL/dw - w . dL/dw)``."""
    n, t, o = logp.shape
    by_option = np.ascontiguousarray(logp.transpose(0, 2, 1)).reshape(n * o, t)
    gold_flat = np.arange(n) * o + np.asarray(gold, dtype=np.int64)
    beta1, beta2 = ADAM_BETAS
    theta = np.zeros(t)
    m = np.zeros(t)
    v = np.zeros(t)
    for step in range(1, steps + 1):
        w = _softmax(theta)
        s = (by_option @ w).reshape(n, o)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p = p.ravel()
        p[gold_flat] -= 1.0
        g_w = (p @ by_option) / n
        grad = w * (g_w - w @ g_w)
        m += (grad - m) * (1 - beta1)
        v = v * beta2 + (1 - beta2) * grad * grad
        denom = np.sqrt(v) / np.sqrt(1 - beta2**step) + ADAM_EPS
        theta -= (lr / (1 - beta1**step)) * m / denom
    return _softmax(theta)


def weighted_ensemble(
    scores: pd.DataFrame, weights: pd.DataFrame, name: str = "optimized"
) -> pd.DataFrame:
    """Ensemble with per-relation prompt weights (§4.3, Eq. 3): ``s(y|x,r) = sum_t w_t log
    P(y|x,t)``.

    ``weights``: ``model, relation, template, weight`` (e.g. :func:`fit_ensemble_weights` on
    the training pairs; matched on ``model, relation``). Returns an ensemble table.
    """
    parts = [
        _table(key, cube, name, _weighted_scores(key, cube, weights))
        for key, cube in _cubes(scores).items()
    ]
    return _concat(parts, [*COLUMNS, "prob"])


def weighted_predictions(
    scores: pd.DataFrame, weights: pd.DataFrame, name: str = "optimized"
) -> pd.DataFrame:
    """``predictions(weighted_ensemble(scores, weights, name))``
    (:func:`calib.prompts.accuracy.predictions`: one row per fact, ``model, dataset, relation,
    instance, template, pred, answer_idx, hit``, sorted by those keys; ties to the lowest
    option), from the dense arrays without the ensemble table's row per option: §5.3's
    ensembles under every other model's weights need only their hits (28 per model and prompt
    set at the paper's size)."""
    parts = []
    for key, cube in _cubes(scores).items():
        pred = _weighted_scores(key, cube, weights).argmax(axis=1)
        parts.append(
            pd.DataFrame(
                {
                    **dict(zip(KEYS, key)),
                    "instance": cube.instances,
                    "template": name,
                    "pred": pred,
                    "answer_idx": cube.answer_idx,
                    "hit": pred == cube.answer_idx,
                }
            )
        )
    return _concat(parts, [*KEYS, "instance", "template", "pred", "answer_idx", "hit"])


def _weighted_scores(key: tuple, cube: _Cube, weights: pd.DataFrame) -> np.ndarray:
    """Eq. 3's ``s(y|x,r)`` of one (model, dataset, relation) cube: ``(instances, options)``."""
    mine = weights[(weights["model"] == key[0]) & (weights["relation"] == key[2])]
    if mine.empty:
        raise ValueError(f"no weights for model {key[0]!r}, relation {key[2]!r}")
    if mine["template"].duplicated().any():
        raise ValueError(
            f"weights for {key[0]!r}/{key[2]!r} repeat a template "
            "(mixed datasets?); pass one set of weights"
        )
    cols = cube.columns(list(mine["template"]))
    w = mine["weight"].to_numpy(dtype=float)
    return np.einsum("t,nto->no", w, cube.logp[:, cols, :])


def oracle(scores: pd.DataFrame, templates: list[str] | None = None) -> pd.DataFrame:
    """The oracle upper bound (§5): a fact is correct if any prompt ranks its object first.

    Returns one row per fact: ``model, dataset, relation, instance, template`` (= ``"oracle"``),
    ``answer_idx, hit`` - the per-fact shape of :func:`calib.prompts.accuracy.predictions`.
    """
    parts = []
    for key, cube in _cubes(scores).items():
        cols = cube.columns(templates) if templates is not None else slice(None)
        hits = (cube.logp[:, cols, :].argmax(axis=2) == cube.answer_idx[:, None]).any(axis=1)
        parts.append(
            pd.DataFrame(
                {
                    **dict(zip(KEYS, key)),
                    "instance": cube.instances,
                    "template": "oracle",
                    "answer_idx": cube.answer_idx,
                    "hit": hits,
                }
            )
        )
    return _concat(parts, [*KEYS, "instance", "template", "answer_idx", "hit"])
