"""The LPAQA chapter (Jiang et al. 2020, §3-§6) on LAMA T-REx: prompts mined and paraphrased,
selected and ensembled, their micro and macro accuracy with intervals, the paper's claims, and
two steps beyond the paper (how well calibrated the ensembles are; LAMA's prompts on BEAR).

The unit (``CONTRIBUTING.md``): :class:`Params` (the only home of the chapter's defaults),
:func:`run` (``Params`` -> :class:`LpaqaResult`, every frame the page shows: the sample, the
prompts and their scores, then :func:`analyse`), :func:`analyse` (:class:`LpaqaScores` -> the
result, no model, no disk) and ``CLAIMS`` (the claims of LPAQA's abstract, §5 and §6, each
judged on the paper's printed tables and on this build's recorded result). The steps, each in a
module of the package or in :mod:`calib.prompts` (2. prompts, §3: the manual prompt, prompts
mined from the Wikipedia evidence of training facts, :func:`calib.prompts.mining.mine_prompts`,
middle-word and dependency-based, and back-translations, :mod:`calib.prompts.paraphrase`,
Apertium; the prompt sets of Tables 2, 3 and 7, :mod:`calib.prompts.sets`: Mine, Mine+Man,
Mine+Para (paraphrases of each model's best mined prompt), Man+Para, and Mid, Dep, Mid+Dep;
LPAQA's released prompts are scored too, as a reference):

============================================  ======================================================
module                                        holds
============================================  ======================================================
:mod:`~calib.experiments.lpaqa.sample`        1. a seeded sample of LAMA T-REx relations, training
                                              pairs and test facts (closed answer space per
                                              relation, :mod:`calib.data.lama`), and the relation
                                              table
:mod:`~calib.experiments.lpaqa.scoring`       3. the queries of every prompt on the training pairs
                                              and the test facts, scored
                                              (:func:`calib.scoring.run.score_queries`, cached;
                                              ``sum`` reduction), the plan and the cost
:mod:`~calib.experiments.lpaqa.selection`     4. per model and prompt set: top-1 by training
                                              accuracy (§4.1), the rank-based top-K ensembles
                                              (log-linear, §4.2, and linear, §5.3's ablation), the
                                              optimised ensemble (§4.3), the oracle; the manual
                                              prompt and the majority baseline; the optimised
                                              ensemble with the weights another model learned
                                              (§5.3's cross-model consistency)
:mod:`~calib.experiments.lpaqa.accuracy`      5. micro- and macro-averaged accuracy exactly as §5.1
                                              defines them (:mod:`calib.prompts.accuracy`: per
                                              relation, then the mean over relations) with 95% BCa
                                              intervals from a stratified bootstrap of the facts
                                              within relations, and every paired comparison the
                                              claims need
:mod:`~calib.experiments.lpaqa.consistency`   6. §5.3's prediction divergence of prompt pairs
                                              against their edit distance
                                              (:mod:`calib.prompts.consistency`)
:mod:`~calib.experiments.lpaqa.beyond_paper`  7. beyond the paper (``Params.beyond_paper``): ACE
                                              (with its noise floor and the debiased ACE,
                                              :mod:`calib.confidence.noise_floor`) and Brier of
                                              single prompts, the ensembles' probabilities and the
                                              paraphrase-consistency estimators of Kissling et al.
                                              over the best prompts; BEAR facts under BEAR's own
                                              templates and under the LAMA prompts ranked on LAMA's
                                              training pairs (the relations both have)
:mod:`~calib.experiments.lpaqa.claims`        the claims of LPAQA's abstract, §5 and §6: their
                                              rules, their evidence from the paper's printed tables
                                              and from this build, and ``CLAIMS``
============================================  ======================================================

Datasets in the score tables: ``"lama-train"`` (training pairs), ``"lama"`` (test facts),
``"bear"`` (BEAR facts, shared with the BEAR chapters' score cache).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import ClassVar, TypeAlias

import numpy as np
import pandas as pd

from calib.data.bear import load_bear
from calib.experiments.lpaqa.accuracy import (
    METHOD_ORDER,
    accuracy_table,
    best_prompts,
    comparison_table,
    majority_note,
    reference_accuracy,
    replicates,
    set_table,
    wide_accuracy,
)
from calib.experiments.lpaqa.beyond_paper import (
    CALIBRATION_COLUMNS,
    TRANSFER_SET,
    calibration,
    floor_sentence,
    shared_relations,
    transfer_queries,
    transfer_ranking,
    transfer_results,
    transfer_sample,
)
from calib.experiments.lpaqa.claims import CLAIMS
from calib.experiments.lpaqa.consistency import divergence
from calib.experiments.lpaqa.sample import Sample, load_sample, relation_table, without_unmined
from calib.experiments.lpaqa.scoring import (
    TEST,
    TRAIN,
    compact,
    cost_table,
    lama_queries,
    plan_table,
    score,
)
from calib.experiments.lpaqa.selection import (
    CROSS_MODEL_SETS,
    NO_SET,
    best_mined,
    fit_sets,
    numbering_once,
    select_and_ensemble,
)
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.per_model import (
    MIN_ROWS_FOR_POOL,
    concat_parts,
    map_models_parts,
    model_part,
    model_rows,
)
from calib.prompts.generation import lpaqa_overlap, reference_prompts
from calib.prompts.mining import mine_prompts, mining_corpus
from calib.prompts.sets import (
    ABLATION_SETS,
    PAPER_SETS,
    for_models,
    mine_paraphrase_sets,
    model_free_sets,
    set_sizes,
)
from calib.prompts.translators import apertium

__all__ = [
    "ABLATION_SETS",
    "CALIBRATION_COLUMNS",
    "CLAIMS",
    "METHOD_ORDER",
    "PAPER_SETS",
    "LpaqaResult",
    "LpaqaScores",
    "Params",
    "analyse",
    "best_prompts",
    "floor_sentence",
    "majority_note",
    "run",
    "set_table",
    "wide_accuracy",
]

# ---------------------------------------------------------------------------------------------
# parameters


@dataclass(frozen=True)
class Params(ChapterParams):
    """The LPAQA chapter's parameters (the notebook's parameters cell equals these).

    The defaults are what the ``cpu`` profile runs (it sets no LPAQA value of its own) and
    what the book ran before this chapter became a unit: four relations of different kinds and
    answer-set sizes (P30 continent, 5 options; P1303 instrument, N-M, 6; P140 religion, the
    paper's Table 4 example, 10; P449 original network, 19), 10 training pairs and 15 test
    facts each, ``top_t`` 4 prompts per generation method (the fewest for which Mine's Top3
    and Top5 differ), and Apertium round trips through all four pivots, chained twice: on
    these relations (in this order) one round trip gives the manual prompts 2, 2, 1 and 4
    distinct paraphrases, two give 3, 3, 1 and 4, so Man+Para and Mine+Para hold more than
    their seed prompt (``pivots=()`` would leave both sets a single prompt and the claims on
    paraphrasing untested). Planned cost per model: 10,700 LAMA statements, at most 4,000 more for
    Mine+Para and 3,000 for the BEAR transfer (the page's plan table), about 5 minutes for
    smollm2-135m-instruct and 3 for gemma-3-270m at the throughputs of
    ``benchmarks/results`` (55 and 89 statements/s on two idle cores), inside the chapter's
    share of a cold `make book`.
    """

    chapter: ClassVar[str] = "lpaqa"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "scorers (CLMs or MLMs)"
    )
    lama_relations: tuple[str, ...] | None = parameter(
        ("P30", "P1303", "P140", "P449"), "LAMA T-REx relations (None: draw n_relations)"
    )
    n_relations: int | None = parameter(
        None, "with lama_relations None: relations drawn with seed (None: all 41)"
    )
    answer_space: str = parameter(
        "test", "closed answer set: 'test' (objects of the test facts) or 'test+train'"
    )
    train_per_relation: int | None = parameter(
        10, "training pairs per relation (ranking, weights; None: all)"
    )
    test_per_relation: int | None = parameter(15, "test facts per relation (None: all)")
    top_t: int = parameter(
        4, "prompts kept per generation method, mined and paraphrased (the paper: 40)"
    )
    max_sentences: int | None = parameter(
        None, "mining corpus: evidence sentences per relation (None: all)"
    )
    pivots: tuple[str, ...] = parameter(
        ("es", "ca", "gl", "eo"), "Apertium pivot languages for back-translation"
    )
    paraphrase_rounds: int = parameter(
        2, "chained round trips (Apertium gives one translation per pair)"
    )
    ensemble_k: tuple[int, ...] = parameter((3, 5), "sizes of the rank-based top-K ensembles")
    adam_steps: int = parameter(200, "Adam steps of the optimised ensemble")
    adam_lr: float = parameter(0.1, "Adam learning rate of the optimised ensemble")
    reference_per_set: int = parameter(
        1, "LPAQA's released prompts per set and relation (test facts only)"
    )
    beyond_paper: bool = parameter(
        True, "also the calibration of the ensembles and the BEAR transfer"
    )
    bear_per_relation: int | None = parameter(
        6, "BEAR facts per relation shared with LAMA (beyond the paper)"
    )
    bear_top_k: int = parameter(3, "best LAMA prompts applied to BEAR")
    seed: int = parameter(0, "seed of every sample and of every bootstrap")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind every interval")


# ---------------------------------------------------------------------------------------------
# the whole chapter


@dataclass(frozen=True)
class LpaqaResult:
    """Every frame and number the LPAQA page shows (:func:`run`)."""

    params: Params
    #: :func:`~calib.experiments.lpaqa.sample.relation_table` of the sample; the relations left out,
    #: with the reason
    relations: pd.DataFrame
    dropped: list
    #: evidence sentences of the mining corpus per relation
    corpus: pd.DataFrame
    #: the Apertium pivots used, and why the others were not
    pivots: list
    missing_pivots: str
    #: every prompt scored (:mod:`calib.prompts.sets`' prompt frame, then LPAQA's reference
    #: prompts) and the members of every prompt set, per model
    prompts: pd.DataFrame
    members: pd.DataFrame
    #: :func:`calib.prompts.sets.set_sizes`, :func:`calib.prompts.generation.lpaqa_overlap`
    set_sizes: pd.DataFrame
    overlap: pd.DataFrame
    #: :func:`~calib.experiments.lpaqa.scoring.plan_table` (statements planned) and
    #: :func:`~calib.experiments.lpaqa.scoring.cost_table` (statements scored, time)
    plan: pd.DataFrame
    cost: pd.DataFrame
    #: :class:`~calib.experiments.lpaqa.selection.Selection`'s rankings, weights and per-fact hits
    rankings: pd.DataFrame
    weights: pd.DataFrame
    hits: pd.DataFrame
    #: :func:`~calib.experiments.lpaqa.accuracy.accuracy_table`,
    #: :func:`~calib.experiments.lpaqa.accuracy.comparison_table`,
    #: :func:`~calib.experiments.lpaqa.accuracy.reference_accuracy`
    accuracy: pd.DataFrame
    comparisons: pd.DataFrame
    reference: pd.DataFrame
    #: :func:`~calib.experiments.lpaqa.consistency.divergence`: per model the correlation with its
    #: interval; Figure 3's bins
    divergence: pd.DataFrame
    divergence_bins: pd.DataFrame
    #: beyond the paper (None without ``beyond_paper``):
    #: :func:`~calib.experiments.lpaqa.beyond_paper.calibration`; the BEAR relations shared with the
    #: sample and :func:`~calib.experiments.lpaqa.beyond_paper.transfer_results` (None without them)
    calibration: pd.DataFrame | None
    bear_relations: list
    n_bear_facts: int
    transfer: pd.DataFrame | None

    @property
    def n_test_facts(self) -> int:
        """Test facts per model."""
        return int(self.relations["test"].sum())


#: one model's sentence scores: a table, or a picklable function without arguments that gives
#: it (e.g. reads it from the score store in the worker)
ModelScores: TypeAlias = pd.DataFrame | Callable[[], pd.DataFrame]


@dataclass(frozen=True)
class LpaqaScores:
    """What :func:`analyse` takes: the sentence scores of the chapter and what they were scored
    on, as :func:`run` fills it.

    A user with scores of their own passes the first four (the rest describe how the scores
    were made and go to the page as they are; ``bear`` only for the BEAR transfer).
    """

    #: the LAMA sample (:class:`~calib.experiments.lpaqa.sample.Sample`: the test facts and
    #: training pairs, and all facts and training pairs of its relations for the majority
    #: baselines)
    sample: Sample
    #: every prompt scored: :mod:`calib.prompts.sets`' prompt frame (``relation``,
    #: ``template``, ``text``, ``source``, ...), then LPAQA's reference prompts
    prompts: pd.DataFrame
    #: the members of every prompt set, per model (``model``, ``prompt_set``, ``relation``,
    #: ``template``; :func:`calib.prompts.sets.for_models`)
    members: pd.DataFrame
    #: sentence scores (:func:`calib.confidence.reductions.sentence_scores`, ``sum``) of every
    #: prompt on the training pairs (dataset ``"lama-train"``) and on the test facts
    #: (``"lama"``; the reference prompts on the test facts only): one table of every model
    #: (:func:`analyse` splits it by model), or per model its table or a picklable function
    #: without arguments that gives it (:data:`ModelScores`; read in the worker, so that no
    #: process holds more than one model's scores)
    scores: pd.DataFrame | Mapping[str, ModelScores]
    #: sentence scores of the BEAR facts
    #: (:func:`~calib.experiments.lpaqa.beyond_paper.transfer_queries`, dataset ``"bear"``; a
    #: table or per model, as ``scores``), the BEAR relations shared with the sample and their
    #: facts (None / empty: no transfer)
    bear: pd.DataFrame | Mapping[str, ModelScores] | None = None
    bear_relations: list = field(default_factory=list)
    n_bear_facts: int = 0
    #: evidence sentences of the mining corpus per relation, the Apertium pivots used and why
    #: the others were not, the statements planned and the scoring cost (shown as they are)
    corpus: pd.DataFrame = field(default_factory=pd.DataFrame)
    pivots: list = field(default_factory=list)
    missing_pivots: str = ""
    plan: pd.DataFrame = field(default_factory=pd.DataFrame)
    cost: pd.DataFrame = field(default_factory=pd.DataFrame)


def analyse(
    scores: LpaqaScores, params: Params, workers: int | None = None, ray: str | None = None
) -> LpaqaResult:
    """The LPAQA chapter on given scores: selection and ensembles, the accuracies with
    intervals and the comparisons, the prediction divergence and, with ``beyond_paper``, the
    calibration of the ensembles and the BEAR transfer. No model, no disk: :func:`run` scores
    first, then calls this.

    Every step looks at one model's sentence scores at a time, in two passes over the models
    (:func:`calib.experiments.per_model.map_models_parts`: this process, a local pool or Ray):
    :func:`learn_model` ranks each prompt set's prompts and learns the optimised ensemble's
    weights on the model's training pairs; :func:`evaluate_model` then computes the model's
    per-fact hits (with §5.3's ensembles under the weights the other models learned), its
    accuracies, comparisons, divergence, calibration and BEAR transfer. No table of several
    models' scores is made; :func:`assemble` puts the small per-model outputs together in the
    order one pass over all models gives them (every bootstrap of a model draws from
    ``params.seed`` alone, so the numbers are those of all models in one process).

    Parameters
    ----------
    scores : calib.experiments.lpaqa.LpaqaScores
        The sentence scores and what they were scored on.
    params : calib.experiments.lpaqa.Params
        The chapter's parameters.
    workers : int or None
        Processes for the per-model steps (:func:`calib.experiments.per_model.worker_count`).
    ray : str or None
        A Ray cluster's address for the per-model steps (by default ``$CALIB_RAY``).

    Returns
    -------
    calib.experiments.lpaqa.LpaqaResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    sample, prompts, members = scores.sample, scores.prompts, scores.members
    tables = model_tables(scores.scores)
    bears = model_tables(scores.bear) if scores.bear is not None else {}
    models = list(tables)
    rows = sum(
        len(t) if isinstance(t, pd.DataFrame) else MIN_ROWS_FOR_POOL for t in tables.values()
    )
    names = list(dict.fromkeys(members["prompt_set"].unique()))
    own = {m: members[members["model"] == m].reset_index(drop=True) for m in models}
    learned = map_models_parts(
        partial(learn_model, sets=names, steps=p.adam_steps, lr=p.adam_lr),
        ((_ready(tables[m]), own[m]) for m in models),
        len(models),
        rows,
        workers,
        ray,
    )
    rankings = _in_set_order(concat_parts(learned, "rankings"), names)
    weights = _in_set_order(concat_parts(learned, "weights"), names)
    caps = (
        {
            name: int(part.groupby(["model", "relation"]).size().min())
            for name, part in rankings.groupby("prompt_set", sort=False)
        }
        if len(rankings)
        else {}
    )
    cross = [s for s in CROSS_MODEL_SETS if s in caps]
    borrow = weights[weights["prompt_set"].isin(cross)] if len(weights) else weights
    evaluated = map_models_parts(
        partial(
            evaluate_model,
            sample=sample,
            prompts=prompts,
            params=p,
            sources=models,
            caps=caps,
        ),
        (
            (
                _ready(tables[m]),
                _ready(bears.get(m)),
                own[m],
                learned[i],
                borrow[borrow["model"] != m] if len(borrow) else borrow,
            )
            for i, m in enumerate(models)
        ),
        len(models),
        rows,
        workers,
        ray,
    )
    f = assemble(evaluated, models, names, members)
    return LpaqaResult(
        params=p,
        relations=relation_table(sample),
        dropped=list(sample.dropped),
        corpus=scores.corpus,
        pivots=list(scores.pivots),
        missing_pivots=scores.missing_pivots,
        prompts=prompts,
        members=members,
        set_sizes=set_sizes(members),
        overlap=lpaqa_overlap(prompts),
        plan=scores.plan,
        cost=scores.cost,
        rankings=rankings,
        weights=weights,
        hits=f["hits"],
        accuracy=f["accuracy"],
        comparisons=f["comparisons"],
        reference=f["reference"],
        divergence=f["divergence"],
        divergence_bins=f["divergence_bins"],
        calibration=f["calibration"] if p.beyond_paper else None,
        bear_relations=list(scores.bear_relations),
        n_bear_facts=scores.n_bear_facts,
        transfer=f["transfer"] if p.beyond_paper and scores.bear is not None else None,
    )


# ---------------------------------------------------------------------------------------------
# one model at a time


def model_tables(scores: pd.DataFrame | Mapping[str, ModelScores]) -> dict[str, ModelScores]:
    """Each model's sentence scores of ``scores``: a table of several models split by its
    ``model`` column (in the order the models first appear; slices of the table where a
    model's rows are one run), or a mapping model -> table or loader as it is."""
    if isinstance(scores, pd.DataFrame):
        rows = model_rows(scores)
        return {m: model_part(scores, rows[m]) for m in rows}
    return dict(scores)


def _load(table: ModelScores) -> pd.DataFrame:
    """One model's sentence scores, read where they are a loader, :func:`compact`."""
    return compact(table() if callable(table) else table)


def _ready(table: ModelScores | None) -> ModelScores | None:
    """One model's part as it goes to a worker: a table :func:`compact` (less to send), a
    loader as it is (read there)."""
    return compact(table) if isinstance(table, pd.DataFrame) else table


def _splits(table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    models = table["model"].unique()
    if len(models) > 1:
        raise ValueError(f"one model's sentence scores hold several models: {list(models)}")
    return table[table["dataset"] == TRAIN], table[table["dataset"] == TEST]


def learn_model(part: tuple, sets: Sequence[str], steps: int, lr: float) -> dict:
    """The first pass of :func:`analyse` on one model (``part``: its sentence scores or their
    loader, its members): per prompt set the prompts ranked by training accuracy and the
    optimised ensemble's weights (:func:`~calib.experiments.lpaqa.selection.fit_sets`), as
    ``rankings`` and ``weights`` frames with ``prompt_set``."""
    table, members = part
    train, test = _splits(_load(table))
    fitted = fit_sets(train, test, members, sets, steps, lr)
    return {
        "rankings": _frames([r.assign(prompt_set=n) for n, (r, _) in fitted.items()]),
        "weights": _frames([w.assign(prompt_set=n) for n, (_, w) in fitted.items()]),
    }


def _frames(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _fitted(learned: dict) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    r, w = learned["rankings"], learned["weights"]
    if not len(r):
        return {}
    return {
        n: (
            r[r["prompt_set"] == n].drop(columns="prompt_set").reset_index(drop=True),
            w[w["prompt_set"] == n].drop(columns="prompt_set").reset_index(drop=True),
        )
        for n in dict.fromkeys(r["prompt_set"])
    }


def evaluate_model(
    part: tuple,
    sample: Sample,
    prompts: pd.DataFrame,
    params: Params,
    sources: Sequence[str],
    caps: Mapping[str, int],
) -> dict:
    """The second pass of :func:`analyse` on one model: ``part`` is its sentence scores (or
    their loader), its BEAR sentence scores (or None), its members, what :func:`learn_model`
    gave it and the cross-model sets' weights the other models learned. Returns its per-fact
    ``hits`` and its frames of the result (accuracy, comparisons, reference, divergence and
    its bins, calibration, transfer)."""
    p = params
    table, bear, members, learned, borrowed = part
    train, test = _splits(_load(table))
    # the test table's rows numbered by prompt once: every set's rows, the ranked prompts
    with numbering_once(test):
        selection = select_and_ensemble(
            train,
            test,
            members,
            sample.sample.instances,
            reference=sample.full.train,
            test_reference=sample.full.instances,
            ks=p.ensemble_k,
            steps=p.adam_steps,
            lr=p.adam_lr,
            fitted=_fitted(learned),
            other_weights=borrowed,
            sources=sources,
            compact_ensembles=True,
        )
        del train
        reps = replicates(selection.hits, p.n_bootstrap, p.seed)
        corr, bins = divergence(test, prompts, members, p.n_bootstrap, p.seed)
        out = {
            "hits": selection.hits,
            "accuracy": accuracy_table(reps),
            "comparisons": comparison_table(reps, p.ensemble_k),
            "reference": reference_accuracy(test, prompts, p.n_bootstrap, p.seed),
            "divergence": corr,
            "divergence_bins": bins,
            "calibration": None,
            "transfer": None,
        }
        if p.beyond_paper:
            out["calibration"] = calibration(
                test, selection, k=max(p.ensemble_k), n_boot=p.n_bootstrap, seed=p.seed, caps=caps
            )
            if bear is not None:
                bear = _load(bear)
                ranking = selection.rankings[selection.rankings["prompt_set"] == TRANSFER_SET]
                out["transfer"] = transfer_results(
                    bear, ranking, p.bear_top_k, p.n_bootstrap, p.seed, cap=caps.get(TRANSFER_SET)
                )
    return out


def _in_set_order(frame: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """Rankings or weights of every model, set by set (in the order of ``names``), the models
    sorted within a set: the order one call on all models gives."""
    if not len(frame):
        return frame
    rank = {n: i for i, n in enumerate(names)}
    models = {m: i for i, m in enumerate(sorted(frame["model"].unique()))}
    order = np.lexsort((frame["model"].map(models), frame["prompt_set"].map(rank)))
    return frame.iloc[order].reset_index(drop=True)


def _concat_nonempty(parts: list[dict], key: str) -> pd.DataFrame:
    frames = [x[key] for x in parts if x[key] is not None and len(x[key])]
    if not frames:
        return parts[0][key]
    return pd.concat(frames, ignore_index=True)


def _hit_order(hits: pd.DataFrame, models: Sequence[str], names: Sequence[str]) -> np.ndarray:
    """Row positions that put the models' hits (one model after another, ``models``' order) in
    the order of :func:`~calib.experiments.lpaqa.selection.select_and_ensemble` on all models:
    block by block (the manual prompt, the two majority baselines, each set's methods, each
    cross-model set), the models sorted within a block (first-seen for the majority baselines
    and the cross-model ensembles)."""
    sets = {n: i for i, n in enumerate(names)}
    crossed = {n: i for i, n in enumerate(CROSS_MODEL_SETS)}
    codes, pairs = pd.MultiIndex.from_frame(hits[["prompt_set", "method"]]).factorize()
    blocks: list[int] = []
    first_seen: list[bool] = []
    within: dict[str, int] = {}
    for s, m in pairs:  # (prompt set, method) in first-seen order: the sets' methods in order
        if s == NO_SET:
            blocks.append({"manual": 0, "majority": 1}.get(m, 2))
            first_seen.append(m.startswith("majority"))
        elif m.startswith("optimized (weights of "):
            blocks.append(10**9 + crossed.get(s, len(crossed)))
            first_seen.append(True)
        else:
            within[s] = within.get(s, -1) + 1
            blocks.append(3 + sets.get(s, len(sets)) * 10**5 + within[s])
            first_seen.append(False)
    block = np.asarray(blocks, dtype=np.int64)[codes]
    seen = hits["model"].map({m: i for i, m in enumerate(models)}).to_numpy()
    alpha = hits["model"].map({m: i for i, m in enumerate(sorted(models))}).to_numpy()
    key = np.where(np.asarray(first_seen, dtype=bool)[codes], seen, alpha)
    return np.lexsort((key, block))


def assemble(
    parts: list[dict], models: Sequence[str], names: Sequence[str], members: pd.DataFrame
) -> dict:
    """The frames of :func:`evaluate_model` of each model (in ``models``' order) put together
    in the order :func:`analyse` on all models in one table gave them."""
    hits = pd.concat([x["hits"] for x in parts], ignore_index=True)
    hits = hits.iloc[_hit_order(hits, models, names)].reset_index(drop=True)
    # the models as the hits first show them (the replicates' order)
    order = {m: i for i, m in enumerate(hits["model"].unique())}
    by_hits = sorted(range(len(parts)), key=lambda i: order.get(models[i], len(order)))
    in_hits = [parts[i] for i in by_hits]
    alpha = [parts[i] for i in sorted(range(len(parts)), key=lambda i: models[i])]
    listed = {m: i for i, m in enumerate(members["model"].unique())}
    in_members = [
        parts[i]
        for i in sorted(range(len(parts)), key=lambda i: listed.get(models[i], len(listed)))
    ]
    out = {
        "hits": hits,
        "accuracy": pd.concat([x["accuracy"] for x in in_hits], ignore_index=True),
        "comparisons": pd.concat([x["comparisons"] for x in in_hits], ignore_index=True),
        "reference": _concat_nonempty(alpha, "reference"),
        "divergence": pd.concat([x["divergence"] for x in in_members], ignore_index=True),
        "divergence_bins": pd.concat([x["divergence_bins"] for x in in_members], ignore_index=True),
    }
    for key in ("calibration", "transfer"):
        frames = [x[key] for x in parts if x[key] is not None]
        out[key] = (
            pd.concat(frames, ignore_index=True)
            .sort_values("model", kind="stable")
            .reset_index(drop=True)
            if frames
            else None
        )
    return out


def run(params: Params) -> LpaqaResult:
    """The LPAQA chapter with ``params``: the sample, the prompts and their sets, the scores
    (the training pairs and test facts under every prompt, the Mine+Para paraphrases of each
    model's best mined prompt and, with ``beyond_paper``, the BEAR facts under the prompts
    ranked best on the training pairs), then :func:`analyse`.

    Parameters
    ----------
    params : calib.experiments.lpaqa.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.lpaqa.LpaqaResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    named = p.lama_relations is not None
    sample = load_sample(
        p.lama_relations,
        p.n_relations,
        p.train_per_relation,
        p.test_per_relation,
        p.seed,
        p.answer_space,
    )
    corpus = mining_corpus(list(sample.sample.relations), p.max_sentences, p.seed)
    mined = mine_prompts(corpus, top=None, exclude=sample.full.instances)
    sample = without_unmined(sample, mined, named)
    lama = sample.sample
    translator, usable, missing = apertium(p.pivots)
    pool, free = model_free_sets(lama, mined, p.top_t, translator, usable, p.paraphrase_rounds)
    stage1 = pool.frame()
    references = reference_prompts(stage1, p.reference_per_set)
    bear_rels = shared_relations(list(lama.relations), load_bear()) if p.beyond_paper else []
    bear = transfer_sample(bear_rels, p.bear_per_relation, p.seed) if bear_rels else None
    plan = plan_table(
        lama, pd.concat([stage1, references], ignore_index=True), p.top_t, bear, p.bear_top_k
    )
    sent, lama_cost = score(
        p.models,
        lama_queries(lama, pd.concat([stage1, references], ignore_index=True)),
        "LAMA",
        progress=False,
    )
    members = for_models(free, p.models)
    best = best_mined(sent[sent["dataset"] == TRAIN], members)
    para_members = mine_paraphrase_sets(
        pool, best, p.top_t, translator, usable, p.paraphrase_rounds
    )
    prompts = pd.concat([pool.frame(), references], ignore_index=True)
    new = prompts[prompts["source"] == "mined-paraphrase"]
    queries = {}
    for m in p.models:
        own = para_members.loc[para_members["model"] == m, ["relation", "template"]]
        todo = new.merge(own.drop_duplicates(), on=["relation", "template"])
        queries[m] = (
            lama_queries(lama.select(sorted(set(todo["relation"].unique()))), todo)
            if len(todo)
            else []
        )
    sent2, para_cost = score(p.models, queries, "LAMA Mine+Para", progress=False)
    sent = pd.concat([sent, sent2], ignore_index=True) if len(sent2) else sent
    members = pd.concat([members, para_members], ignore_index=True)
    costs = [lama_cost, para_cost]
    bear_sent = None
    if p.beyond_paper and bear is not None:
        train, test = sent[sent["dataset"] == TRAIN], sent[sent["dataset"] == TEST]
        ranking = transfer_ranking(train, test, members)
        queries = {m: transfer_queries(bear, prompts, ranking, m, p.bear_top_k) for m in p.models}
        bear_sent, bear_cost = score(p.models, queries, "BEAR", progress=False)
        costs.append(bear_cost)
    scores = LpaqaScores(
        sample=sample,
        prompts=prompts,
        members=members,
        scores=sent,
        bear=bear_sent,
        bear_relations=list(bear_rels),
        n_bear_facts=len(bear.instances) if bear_sent is not None and bear is not None else 0,
        corpus=corpus.groupby("relation").size().rename("sentences").reset_index(),
        pivots=list(usable),
        missing_pivots=missing,
        plan=plan,
        cost=cost_table(*costs),
    )
    return analyse(scores, p)
