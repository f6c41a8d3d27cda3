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

from dataclasses import dataclass, field
from typing import ClassVar

import pandas as pd

from calib.data.bear import load_bear
from calib.experiments.lpaqa.accuracy import (
    METHOD_ORDER,
    accuracy_table,
    best_prompts,
    comparison_table,
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
from calib.experiments.lpaqa.scoring import TEST, TRAIN, cost_table, lama_queries, plan_table, score
from calib.experiments.lpaqa.selection import best_mined, select_and_ensemble
from calib.experiments.params import ChapterParams, parameter
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


@dataclass(frozen=True)
class LpaqaScores:
    """What :func:`analyse` takes: the sentence scores of the chapter and what they were scored
    on, as :func:`run` fills it.

    A user with scores of their own passes the first four (the rest describe how the scores
    were made and go to the page as they are; ``bear`` only for the BEAR transfer).
    """

    #: the LAMA sample (:class:`~calib.experiments.lpaqa.sample.Sample`: the test facts and
    #: training pairs, and all facts of its relations for the majority baseline)
    sample: Sample
    #: every prompt scored: :mod:`calib.prompts.sets`' prompt frame (``relation``,
    #: ``template``, ``text``, ``source``, ...), then LPAQA's reference prompts
    prompts: pd.DataFrame
    #: the members of every prompt set, per model (``model``, ``prompt_set``, ``relation``,
    #: ``template``; :func:`calib.prompts.sets.for_models`)
    members: pd.DataFrame
    #: sentence scores (:func:`calib.confidence.reductions.sentence_scores`, ``sum``) of every
    #: prompt on the training pairs (dataset ``"lama-train"``) and on the test facts
    #: (``"lama"``; the reference prompts on the test facts only)
    scores: pd.DataFrame
    #: sentence scores of the BEAR facts
    #: (:func:`~calib.experiments.lpaqa.beyond_paper.transfer_queries`, dataset ``"bear"``), the
    #: BEAR relations shared with the sample and their facts (None / empty: no transfer)
    bear: pd.DataFrame | None = None
    bear_relations: list = field(default_factory=list)
    n_bear_facts: int = 0
    #: evidence sentences of the mining corpus per relation, the Apertium pivots used and why
    #: the others were not, the statements planned and the scoring cost (shown as they are)
    corpus: pd.DataFrame = field(default_factory=pd.DataFrame)
    pivots: list = field(default_factory=list)
    missing_pivots: str = ""
    plan: pd.DataFrame = field(default_factory=pd.DataFrame)
    cost: pd.DataFrame = field(default_factory=pd.DataFrame)


def analyse(scores: LpaqaScores, params: Params) -> LpaqaResult:
    """The LPAQA chapter on given scores: selection and ensembles, the accuracies with
    intervals and the comparisons, the prediction divergence and, with ``beyond_paper``, the
    calibration of the ensembles and the BEAR transfer. No model, no disk: :func:`run` scores
    first, then calls this.

    Parameters
    ----------
    scores : calib.experiments.lpaqa.LpaqaScores
        The sentence scores and what they were scored on.
    params : calib.experiments.lpaqa.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.lpaqa.LpaqaResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    sample, prompts, members, sent = scores.sample, scores.prompts, scores.members, scores.scores
    lama = sample.sample
    train, test = sent[sent["dataset"] == TRAIN], sent[sent["dataset"] == TEST]
    selection = select_and_ensemble(
        train,
        test,
        members,
        lama.instances,
        reference=sample.full.instances,
        ks=p.ensemble_k,
        steps=p.adam_steps,
        lr=p.adam_lr,
    )
    reps = replicates(selection.hits, p.n_bootstrap, p.seed)
    corr, bins = divergence(test, prompts, members, p.n_bootstrap, p.seed)
    calib_table = transfer = None
    if p.beyond_paper:
        calib_table = calibration(
            test, selection, k=max(p.ensemble_k), n_boot=p.n_bootstrap, seed=p.seed
        )
        if scores.bear is not None:
            ranking = selection.rankings[selection.rankings["prompt_set"] == TRANSFER_SET]
            transfer = transfer_results(scores.bear, ranking, p.bear_top_k, p.n_bootstrap, p.seed)
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
        rankings=selection.rankings,
        weights=selection.weights,
        hits=selection.hits,
        accuracy=accuracy_table(reps),
        comparisons=comparison_table(reps, p.ensemble_k),
        reference=reference_accuracy(test, prompts, p.n_bootstrap, p.seed),
        divergence=corr,
        divergence_bins=bins,
        calibration=calib_table,
        bear_relations=list(scores.bear_relations),
        n_bear_facts=scores.n_bear_facts,
        transfer=transfer,
    )


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
