"""The LPAQA chapter's one entry point: :func:`run_lpaqa` runs the whole pipeline with the
chapter's parameters and returns an :class:`LpaqaResult` holding every frame the chapter shows
(the chapter only displays them; the ledger reruns the paper's part for its verdicts).

The steps live in :mod:`calib.prompts` (prompts), :mod:`calib.experiments.lpaqa` (sample,
scores, selection and ensembles, accuracy) and :mod:`calib.experiments.lpaqa_beyond`
(calibration, BEAR transfer).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd

from calib.data.bear import Bear, load_bear
from calib.experiments.lpaqa import (COMPARED, MAIN_SET, TEST, TRAIN, Sample, Selection,
                                     cost_table, lama_queries, load_sample, paired_accuracy,
                                     plan_table, score, select_and_ensemble)
from calib.experiments.lpaqa_beyond import (calibration, shared_relations, transfer_queries,
                                            transfer_results, transfer_sample)
from calib.prompts.generation import generate_prompts, lpaqa_overlap, reference_prompts
from calib.prompts.mining import mining_corpus
from calib.prompts.translators import apertium


@dataclass(frozen=True)
class LpaqaResult:
    """What :func:`run_lpaqa` returns: every frame the LPAQA chapter shows.

    ``sample``: the LAMA sample; ``corpus``: the mining corpus; ``pivots``: the Apertium pivots
    used and ``missing_pivots`` the reason for the others; ``prompts``: every prompt scored
    (ours, then LPAQA's reference prompts); ``sentences``: their sentence scores on the
    training pairs (dataset :data:`TRAIN`) and test facts (:data:`TEST`); ``selection``: §4's
    selection and ensembles; ``lama_cost``, ``bear_cost``: the scoring cost of each part.
    Beyond the paper (``None`` when ``run_lpaqa(beyond_paper=False)``): ``calibration``
    (:func:`calibration`), ``paired`` (:func:`paired_accuracy` of each of :data:`COMPARED`
    against ``manual``, one frame), and, where BEAR has sampled LAMA relations
    (``bear_relations``), the BEAR facts ``bear``, the plan of statements ``plan`` and
    ``transfer`` (:func:`transfer_results`)."""

    sample: Sample
    corpus: pd.DataFrame
    pivots: list[str]
    missing_pivots: str
    prompts: pd.DataFrame
    sentences: pd.DataFrame
    selection: Selection
    lama_cost: pd.DataFrame
    bear_relations: list[str]
    bear: Bear | None
    plan: pd.DataFrame
    calibration: pd.DataFrame | None = None
    paired: pd.DataFrame | None = None
    transfer: pd.DataFrame | None = None
    bear_cost: pd.DataFrame | None = None

    @property
    def train(self) -> pd.DataFrame:
        """The sentence scores of the training pairs."""
        return self.sentences[self.sentences["dataset"] == TRAIN]

    @property
    def test(self) -> pd.DataFrame:
        """The sentence scores of the test facts."""
        return self.sentences[self.sentences["dataset"] == TEST]

    @property
    def ranking(self) -> pd.DataFrame:
        """The prompt ranking of the main prompt set (:data:`MAIN_SET`)."""
        rankings = self.selection.rankings
        return rankings[rankings["prompt_set"] == MAIN_SET]

    @property
    def overlap(self) -> pd.DataFrame:
        """How many of our prompts LPAQA also released
        (:func:`~calib.prompts.generation.lpaqa_overlap`)."""
        return lpaqa_overlap(self.prompts)

    @property
    def cost(self) -> pd.DataFrame:
        """:func:`cost_table` of both parts."""
        bear_cost = self.lama_cost.iloc[:0] if self.bear_cost is None else self.bear_cost
        return cost_table(self.lama_cost, bear_cost)


def run_lpaqa(models: Sequence[str], lama_relations: Sequence[str] | None = None,
              n_relations: int | None = None, answer_space: str = "test",
              train_per_relation: int | None = None, test_per_relation: int | None = None,
              top_t: int = 4, max_sentences: int | None = None, pivots: Sequence[str] = (),
              paraphrase_rounds: int = 1, ensemble_k: Sequence[int] = (3, 5),
              adam_steps: int = 200, adam_lr: float = 0.1, reference_per_set: int = 1,
              bear_per_relation: int | None = None, bear_top_k: int = 3, seed: int = 0,
              n_bootstrap: int = 1000, beyond_paper: bool = True,
              **_chapter_parameters) -> LpaqaResult:
    """The LPAQA chapter with its parameters: steps 1-4 (:func:`load_sample`,
    :func:`~calib.prompts.mining.mining_corpus`, :func:`~calib.prompts.generation.
    generate_prompts` with Apertium through :func:`~calib.prompts.translators.apertium`,
    :func:`~calib.prompts.generation.reference_prompts`, :func:`score`,
    :func:`select_and_ensemble`) and, with ``beyond_paper``, step 5 (:func:`calibration` over
    the ``max(ensemble_k)`` best prompts, :func:`paired_accuracy`) and step 6 (the BEAR
    relations that LAMA also has: :func:`transfer_sample`, :func:`transfer_queries`,
    :func:`transfer_results`). Parameters no step uses are ignored."""
    sample = load_sample(lama_relations, n_relations, train_per_relation, test_per_relation,
                         seed, answer_space)
    lama = sample.sample
    corpus = mining_corpus(list(lama.relations), max_sentences, seed)
    translator, usable, missing = apertium(pivots)
    prompts = generate_prompts(lama, corpus, top_t, translator, usable, paraphrase_rounds,
                               exclude=sample.full.instances)
    every = pd.concat([prompts, reference_prompts(prompts, reference_per_set)],
                      ignore_index=True)
    bear_rels = shared_relations(list(lama.relations), load_bear()) if beyond_paper else []
    bear = transfer_sample(bear_rels, bear_per_relation, seed) if bear_rels else None
    plan = plan_table(lama, every, bear, bear_top_k)
    sent, lama_cost = score(models, lama_queries(lama, every), "LAMA", progress=False)
    train, test = sent[sent["dataset"] == TRAIN], sent[sent["dataset"] == TEST]
    selection = select_and_ensemble(train, test, every, lama.instances,
                                    reference=sample.full.instances, ks=ensemble_k,
                                    steps=adam_steps, lr=adam_lr)
    result = LpaqaResult(sample, corpus, usable, missing, every, sent, selection, lama_cost,
                         bear_rels, bear, plan)
    if not beyond_paper:
        return result
    calib_table = calibration(test, selection, k=max(ensemble_k), n_boot=n_bootstrap,
                              seed=seed)
    paired = pd.concat([paired_accuracy(selection.hits, method, "manual", n_boot=n_bootstrap,
                                        seed=seed) for method in COMPARED], ignore_index=True)
    transfer = bear_cost = None
    if bear is not None:
        ranking = result.ranking
        queries = {m: transfer_queries(bear, every, ranking, m, bear_top_k) for m in models}
        bear_sent, bear_cost = score(models, queries, "BEAR", progress=False)
        transfer = transfer_results(bear_sent, ranking, bear_top_k, n_bootstrap, seed)
    return replace(result, calibration=calib_table, paired=paired, transfer=transfer,
                   bear_cost=bear_cost)
