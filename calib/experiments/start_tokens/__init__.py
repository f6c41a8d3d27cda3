"""Start tokens: calib's one start token against lm-pub-quiz 0.3.3's, measured (methods page).

A causal model's statement is scored after one start token (paper §2.3;
:func:`calib.scoring.encoding.encode_clm`). lm-pub-quiz 0.3.3, with which the paper's scores
were computed, decides per instance whether its tokenizer added a BOS by looking at position 0
of the *padded* batch; a tokenizer that pads on the left (Gemma's) has a pad there for most
instances, and every statement then gets two BOS tokens
(:func:`calib.scoring.encoding.encode_clm_lm_pub_quiz`). It also starts with the tokenizer's
BOS where calib's registry names another start token. This chapter scores a sample both ways
and compares accuracy and ACE of Base-Confidence (Eq. 1) on one template; its steps are in
:mod:`calib.experiments.start_tokens.rules`:

* :func:`~calib.experiments.start_tokens.rules.encoding_summary` -- per causal model: padding
  side, how many statements get two BOS tokens, how many are tokenised differently from
  calib's rule; :func:`~calib.experiments.start_tokens.rules.models_to_measure` picks the
  models worth scoring again;
* :func:`~calib.experiments.start_tokens.rules.rule_scores` -- the score tables under both
  rules (the second is scored only where the tokens differ, else it *is* the first);
* :func:`~calib.experiments.start_tokens.rules.rule_table`,
  :func:`~calib.experiments.start_tokens.rules.rule_differences` -- accuracy, ACE (with its
  noise floor) and Brier per model and rule with bootstrap intervals, and the paired
  differences.

The chapter unit (``CONTRIBUTING.md``): :class:`Params`, :func:`run` (``Params`` ->
:class:`StartTokensResult`: tokenise and score, then :func:`analyse`), :func:`analyse`
(:class:`RuleScores` -> the result, no model, no score store);
:data:`~calib.experiments.start_tokens.claims.CLAIMS` is empty: the paper makes no claim about
start tokens (it does not say how its tokenizers padded), so this methods chapter tests none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from calib.experiments.params import ChapterParams, parameter
from calib.experiments.scores import objectives as model_objectives
from calib.experiments.start_tokens.claims import CLAIMS
from calib.experiments.start_tokens.rules import (
    METRICS,
    RULES,
    SUMMARY_COLUMNS,
    encoding_summary,
    models_to_measure,
    rule_differences,
    rule_estimates,
    rule_scores,
    rule_table,
)
from calib.scoring.statements import bear_queries

__all__ = [
    "CLAIMS",
    "METRICS",
    "RULES",
    "Params",
    "RuleScores",
    "StartTokensResult",
    "analyse",
    "rule_differences",
    "run",
]


@dataclass(frozen=True)
class Params(ChapterParams):
    """The start_tokens chapter's parameters (the notebook's parameters cell equals these)."""

    chapter: ClassVar[str] = "start_tokens"

    models: tuple[str, ...] = parameter(
        ("smollm2-135m-instruct", "gemma-3-270m"), "models (causal ones are used)"
    )
    relations: tuple[str, ...] | None = parameter(None, "BEAR relations (None: all 60)")
    per_relation: int | None = parameter(
        1, "instances per relation, seeded sample (None: all of BEAR)"
    )
    seed: int = parameter(0, "seed of the BEAR sample and of every bootstrap")
    n_bootstrap: int = parameter(1000, "bootstrap resamples behind the intervals")
    template: str = parameter("paraphrase-0", "the template scored both ways")
    only_doubled: bool = parameter(
        True, "rescore only models that get two BOS (not those with another BOS)"
    )


@dataclass(frozen=True)
class StartTokensResult:
    """Every frame and number the start_tokens page shows (:func:`run`)."""

    params: Params
    #: the causal models of ``params.models`` (those with a start token) and the masked ones
    causal: list
    masked: list
    #: BEAR instances scored (queries of ``params.template``)
    n_queries: int
    #: :func:`~calib.experiments.start_tokens.rules.encoding_summary` per causal model
    tokens: pd.DataFrame
    #: :func:`~calib.experiments.start_tokens.rules.models_to_measure`: the models scored both ways,
    #: and a sentence on those left out
    measured: list
    left_out: str
    #: :func:`~calib.experiments.start_tokens.rules.rule_table` (with the noise floor of ACE)
    table: pd.DataFrame
    #: :func:`~calib.experiments.start_tokens.rules.rule_differences`
    differences: pd.DataFrame


@dataclass(frozen=True)
class RuleScores:
    """What :func:`analyse` takes, as :func:`run` fills it: the scores under both start-token
    rules and how each causal model tokenises the sample."""

    #: the score tables (:mod:`calib.scoring.schema`) of the measured models under both rules,
    #: one after the other, with a ``rule`` column (``single``, ``lm-pub-quiz-0.3.3``;
    #: :func:`~calib.experiments.start_tokens.rules.rule_scores`)
    scores: pd.DataFrame
    #: :func:`~calib.experiments.start_tokens.rules.encoding_summary` per causal model
    #: (columns :data:`~calib.experiments.start_tokens.rules.SUMMARY_COLUMNS`)
    tokens: pd.DataFrame
    #: BEAR instances scored (queries of ``params.template``)
    n_queries: int


def analyse(
    scores: RuleScores, params: Params, objectives: Mapping[str, str] | None = None
) -> StartTokensResult:
    """The chapter on given scores: the models worth scoring both ways
    (:func:`~calib.experiments.start_tokens.rules.models_to_measure`) and Base-Confidence on
    ``params.template`` under each rule compared. No model, no score store: :func:`run`
    tokenises and scores first, then calls this.

    Parameters
    ----------
    scores : calib.experiments.start_tokens.RuleScores
        The scores under both rules and the tokenisation summaries.
    params : calib.experiments.start_tokens.Params
        The chapter's parameters.
    objectives : Mapping[str, str] or None
        Model -> ``clm`` / ``mlm``; by default from the registry
        (:func:`calib.experiments.scores.objectives`: a model it does not list is looked up in
        its configuration).

    Returns
    -------
    calib.experiments.start_tokens.StartTokensResult
        What the chapter's page shows, with ``params``.
    """
    p = params
    kinds = model_objectives(list(p.models)) if objectives is None else dict(objectives)
    causal = [m for m, o in kinds.items() if o == "clm"]
    measured, left_out = models_to_measure(scores.tokens, p.only_doubled)
    est = rule_estimates(scores.scores, p.template)
    return StartTokensResult(
        params=p,
        causal=causal,
        masked=[m for m in kinds if m not in causal],
        n_queries=scores.n_queries,
        tokens=scores.tokens,
        measured=measured,
        left_out=left_out,
        table=rule_table(est, p.n_bootstrap, p.seed),
        differences=rule_differences(est, p.n_bootstrap, p.seed),
    )


def run(params: Params) -> StartTokensResult:
    """The chapter with ``params``: tokenise the sample both ways for every causal model
    (:func:`~calib.experiments.start_tokens.rules.encoding_summary`), score both ways the
    models worth it (:func:`~calib.experiments.start_tokens.rules.models_to_measure`,
    :func:`~calib.experiments.start_tokens.rules.rule_scores`; calib's scores are the
    calibration chapter's, from the score cache), then :func:`analyse`.

    Parameters
    ----------
    params : calib.experiments.start_tokens.Params
        The chapter's parameters.

    Returns
    -------
    calib.experiments.start_tokens.StartTokensResult
        What the chapter's page shows, with ``params``.
    """
    from calib.data.bear import load_bear

    p = params
    kinds = model_objectives(list(p.models))
    causal = [m for m, o in kinds.items() if o == "clm"]
    bear = load_bear(relations=list(p.relations) if p.relations else None)
    queries = bear_queries(bear.sample(p.per_relation, p.seed), [p.template])
    tokens = pd.DataFrame(
        [encoding_summary(m, queries) for m in causal], columns=list(SUMMARY_COLUMNS)
    )
    measured, _ = models_to_measure(tokens, p.only_doubled)
    scores = RuleScores(rule_scores(measured, queries, tokens), tokens, len(queries))
    return analyse(scores, p, kinds)
