"""Start tokens: calib's one start token against lm-pub-quiz 0.3.3's, measured (methods page).

A causal model's statement is scored after one start token (paper §2.3;
:func:`calib.scoring.encoding.encode_clm`). lm-pub-quiz 0.3.3, with which the paper's scores
were computed, decides per instance whether its tokenizer added a BOS by looking at position 0
of the *padded* batch; a tokenizer that pads on the left (Gemma's) has a pad there for most
instances, and every statement then gets two BOS tokens
(:func:`calib.scoring.encoding.encode_clm_lm_pub_quiz`). It also starts with the tokenizer's
BOS where calib's registry names another start token. This module scores a sample both ways
and compares accuracy and ACE of Base-Confidence (Eq. 1) on one template:

* :func:`encoding_summary` -- per causal model: padding side, how many statements get two BOS
  tokens, how many are tokenised differently from calib's rule; :func:`models_to_measure`
  picks the models worth scoring again;
* :func:`rule_scores` -- the score tables under both rules (the second is scored only where the
  tokens differ, else it *is* the first);
* :func:`rule_table`, :func:`rule_differences` -- accuracy, ACE (with its noise floor, issue
  18) and Brier per model and rule with bootstrap intervals, and the paired differences.

The chapter unit (``CONTRIBUTING.md``): :class:`Params`, :func:`run` (``Params`` ->
:class:`StartTokensResult`); :data:`CLAIMS` is empty: the paper makes no claim about start
tokens (it does not say how its tokenizers padded), so this methods chapter tests none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import pandas as pd

from calib.confidence import base, paired_estimates_difference, sentence_scores, summary
from calib.experiments.claims import Claim
from calib.experiments.params import ChapterParams, parameter
from calib.experiments.scores import objectives as model_objectives
from calib.models.loading import load_tokenizer, start_token_id
from calib.scoring.encoding import encode_clm, encode_clm_lm_pub_quiz, start_token_count
from calib.scoring.run import score_queries
from calib.scoring.statements import Query, bear_queries

#: the rules compared, as the tables name them
RULES: dict[str, str] = {
    "single": "one start token (calib)",
    "lm-pub-quiz-0.3.3": "lm-pub-quiz 0.3.3",
}
#: the metrics compared
METRICS: tuple[str, ...] = ("accuracy", "ace", "brier")
#: the columns of :func:`encoding_summary` rows
SUMMARY_COLUMNS: tuple[str, ...] = (
    "model",
    "padding_side",
    "statements",
    "two_bos",
    "differ",
    "start",
    "bos",
)


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
    #: :func:`encoding_summary` per causal model
    tokens: pd.DataFrame
    #: :func:`models_to_measure`: the models scored both ways, and a sentence on those left out
    measured: list
    left_out: str
    #: :func:`rule_table` (with the noise floor of ACE)
    table: pd.DataFrame
    #: :func:`rule_differences`
    differences: pd.DataFrame


def encoding_summary(model: str, queries: Sequence[Query], *, cache_dir=None) -> dict:
    """How lm-pub-quiz 0.3.3 would tokenise ``queries`` for causal ``model`` against calib:
    ``padding_side``, ``statements``, ``two_bos`` (statements with two BOS tokens in front),
    ``differ`` (statements whose token ids differ from calib's), ``start`` (calib's start
    token) and ``bos`` (the tokenizer's)."""
    tok = load_tokenizer(model, cache_dir)
    start = start_token_id(model, tok)
    n = two = differ = 0
    for q in queries:
        ours = encode_clm(tok, q.statements, start)
        theirs = encode_clm_lm_pub_quiz(tok, q.statements)
        for a, b in zip(ours, theirs):
            n += 1
            two += tok.bos_token_id is not None and start_token_count(b, tok.bos_token_id) > 1
            differ += a.ids.tolist() != b.ids.tolist()
    return {
        "model": model,
        "padding_side": tok.padding_side,
        "statements": n,
        "two_bos": int(two),
        "differ": int(differ),
        "start": tok.convert_ids_to_tokens(start),
        "bos": tok.bos_token,
    }


def models_to_measure(summaries: pd.DataFrame, only_doubled: bool = True) -> tuple[list[str], str]:
    """The models to score both ways, from :func:`encoding_summary` rows: those whose tokens
    lm-pub-quiz's rule leaves as they are (nothing to rescore), those it gives two BOS tokens,
    and, unless ``only_doubled``, those whose tokens differ otherwise (another start token:
    one more template to score). Returns the names and a sentence on the models left out."""
    if summaries.empty:
        return [], ""
    doubled = summaries["two_bos"] > 0
    same = summaries["differ"] == 0
    keep = same | doubled | (not only_doubled)
    left = summaries[~keep]
    note = (
        ""
        if left.empty
        else (
            "Left out to keep this page cheap (`only_doubled`): "
            + "; ".join(
                f"{r.model}, whose statements lm-pub-quiz would start with {r.bos} instead "
                f"of {r.start} ({r.differ} of {r.statements} statements tokenised "
                f"differently, none with two BOS tokens)"
                for r in left.itertuples()
            )
            + "."
        )
    )
    return summaries.loc[keep, "model"].tolist(), note


def rule_scores(
    models: Sequence[str],
    queries: Sequence[Query],
    summaries: pd.DataFrame,
    *,
    cache_dir=None,
    device: str | None = "auto",
    progress: bool = True,
) -> pd.DataFrame:
    """The score tables of ``models`` under both rules, with a ``rule`` column. Under
    lm-pub-quiz's rule a model is scored (and stored apart) only when ``summaries``
    (:func:`encoding_summary` rows) says some statement is tokenised differently; otherwise its
    scores are calib's, unchanged."""
    if not models:
        raise ValueError(
            "no causal model to score both ways (masked models have no start "
            "token; see models_to_measure for the ones left out)"
        )
    differ = summaries.set_index("model")["differ"]
    frames = []
    for m in models:
        single = score_queries(m, queries, cache_dir=cache_dir, device=device, progress=progress)
        frames.append(single.assign(rule="single"))
        other = (
            single
            if differ.get(m, 0) == 0
            else score_queries(
                m,
                queries,
                cache_dir=cache_dir,
                device=device,
                progress=progress,
                start_token="lm-pub-quiz-0.3.3",
            )
        )
        frames.append(other.assign(rule="lm-pub-quiz-0.3.3"))
    return pd.concat(frames, ignore_index=True)


def rule_estimates(scores: pd.DataFrame, template: str) -> pd.DataFrame:
    """Base-Confidence (Eq. 1) on ``template`` per model, rule and instance (sum reduction)."""
    parts = [
        base(sentence_scores(part.drop(columns="rule")), template).assign(rule=rule)
        for rule, part in scores.groupby("rule", sort=False)
    ]
    return pd.concat(parts, ignore_index=True)


def rule_table(estimates: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Accuracy, ACE and Brier per model and rule with bootstrap intervals (the rules of one
    model share their resamples), and beside ACE its noise floor (beyond the paper, issue 18):
    the columns of :func:`calib.confidence.noise_floor.floor_record` (``ace_floor``,
    ``ace_within_floor``, ``ace_debiased`` with ``_low``/``_high``, ...)."""
    out = summary(
        estimates, by=["model", "rule"], n_boot=n_boot, seed=seed, metrics=METRICS, floor=("ace",)
    )
    out["rule"] = pd.Categorical(out["rule"], categories=list(RULES), ordered=True)
    out = out.sort_values(["model", "rule"], kind="stable").reset_index(drop=True)
    out["rule"] = out["rule"].astype(str).map(RULES)
    return out


def rule_differences(estimates: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Paired bootstrap of ``metric(lm-pub-quiz) - metric(calib)`` per model for accuracy and
    ACE, on the same instances (sentences: :func:`calib.report.findings.rule_sentences`)."""
    rows = []
    for model, part in estimates.groupby("model", sort=False):
        ours = part[part["rule"] == "single"].drop(columns="rule")
        theirs = part[part["rule"] == "lm-pub-quiz-0.3.3"].drop(columns="rule")
        for metric in ("accuracy", "ace"):
            diff = paired_estimates_difference(theirs, ours, metric, n_boot=n_boot, seed=seed)
            rows.append({"model": model, **diff})
    return pd.DataFrame(rows)


def run(params: Params) -> StartTokensResult:
    """The chapter with ``params``: tokenise the sample both ways for every causal model
    (:func:`encoding_summary`), score both ways the models worth it
    (:func:`models_to_measure`, :func:`rule_scores`; calib's scores are the calibration
    chapter's, from the score cache) and compare Base-Confidence on ``params.template``.

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
    measured, left_out = models_to_measure(tokens, p.only_doubled)
    est = rule_estimates(rule_scores(measured, queries, tokens), p.template)
    return StartTokensResult(
        params=p,
        causal=causal,
        masked=[m for m in kinds if m not in causal],
        n_queries=len(queries),
        tokens=tokens,
        measured=measured,
        left_out=left_out,
        table=rule_table(est, p.n_bootstrap, p.seed),
        differences=rule_differences(est, p.n_bootstrap, p.seed),
    )


#: the paper makes no claim about start tokens (this is a methods chapter)
CLAIMS: tuple[Claim, ...] = ()
