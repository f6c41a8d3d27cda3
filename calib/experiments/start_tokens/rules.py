"""The two start-token rules compared (calib's one start token, lm-pub-quiz 0.3.3's): how each
tokenises a sample, the models worth scoring twice, the score tables under both rules, and
accuracy, ACE and Brier per model and rule with their paired differences.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.confidence import base, paired_estimates_difference, sentence_scores, summary
from calib.models.loading import load_tokenizer, start_token_id
from calib.scoring.encoding import encode_clm, encode_clm_lm_pub_quiz, start_token_count
from calib.scoring.run import score_queries
from calib.scoring.statements import Query

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
    model share their resamples), and beside ACE its noise floor (beyond the paper):
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
