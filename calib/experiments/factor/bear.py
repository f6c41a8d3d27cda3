"""BEAR beside FACTOR (Kissling et al. 2026, Appendix F): the same models on the BEAR sample,
whole and with BEAR's 1:1 relations cut to five options.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.confidence import sentence_scores, summary
from calib.confidence.combined import repeat_summary
from calib.confidence.subsample import subsampled_estimates
from calib.data.bear import PLAIN, one_to_one_relations
from calib.experiments.factor.tables import METRICS
from calib.experiments.paper_tables import text_value

#: the answer options BEAR's 1:1 relations are cut to beside FACTOR's four (§5.2, Figure 4;
#: Appendix F: "restrict BEAR to only five answer options per instance")
BEAR_OPTIONS = int(text_value("bear5_options"))


def bear_estimates(
    models: Sequence[str],
    relations: Sequence[str] | None = None,
    per_relation: int | None = None,
    seed: int = 0,
    k: int = BEAR_OPTIONS,
    repeats: int = 3,
    *,
    data_dir=None,
    cache_dir=None,
    device: str | None = "auto",
    progress: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Base and Margin on BEAR's plain template for the seeded BEAR sample of every BEAR
    chapter (:func:`calib.scoring.run.score_bear`, the same stored scores): on the whole answer
    spaces, and on the sample's 1:1 relations with every answer space cut to ``k`` options in
    ``repeats`` seeded draws (:func:`calib.confidence.subsample.subsampled_estimates`; empty
    when the sample has no 1:1 relation). Returns ``(whole, cut)`` estimate tables with
    ``estimator``, ``k`` and ``repeat`` columns."""
    from calib.scoring.run import score_bear

    scores = score_bear(
        list(models),
        PLAIN,
        per_relation,
        seed,
        list(relations) if relations else None,
        data_dir=data_dir,
        cache_dir=cache_dir,
        device=device,
        progress=progress,
    )
    return bear_option_estimates(scores, relations, seed, k, repeats, data_dir=data_dir)


def bear_option_estimates(
    scores: pd.DataFrame,
    relations: Sequence[str] | None = None,
    seed: int = 0,
    k: int = BEAR_OPTIONS,
    repeats: int = 3,
    *,
    data_dir=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`bear_estimates` of a BEAR score table of the plain template: Base and Margin on
    the whole answer spaces, and on the 1:1 relations (of ``relations``, default all of BEAR's,
    :func:`calib.data.bear.one_to_one_relations`) with every answer space cut to ``k`` options
    in ``repeats`` seeded draws. Returns ``(whole, cut)``."""
    sent = sentence_scores(scores)
    whole = subsampled_estimates(sent, None, template=PLAIN)
    ones = one_to_one_relations(relations, data_dir=data_dir)
    part = sent[sent["relation"].isin(ones)]
    if part.empty:
        return whole, whole.iloc[0:0]
    return whole, subsampled_estimates(part, k, repeats, seed, PLAIN)


def bear_summary(whole: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Accuracy, ACE (with its noise floor) and Brier of Base and Margin per model on the BEAR
    sample (:func:`bear_estimates`' ``whole``)."""
    return summary(
        whole, by=["model", "estimator"], n_boot=n_boot, seed=seed, metrics=METRICS, floor=("ace",)
    )


def bear_cut_summary(cut: pd.DataFrame, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """The same on BEAR's 1:1 relations cut to five options: each metric the mean over the
    draws of the options, with its interval, spread and (ACE) noise floor
    (:func:`calib.confidence.combined.repeat_summary`)."""
    if cut.empty:
        return pd.DataFrame(
            columns=[
                "model",
                "estimator",
                "k",
                "n",
                "repeats",
                "accuracy",
                "ace",
                "ace_floor",
                "ace_within_floor",
                "ace_debiased",
            ]
        )
    return repeat_summary(
        cut,
        by=["model", "estimator", "k"],
        metrics=("accuracy", "ace", "brier"),
        n_boot=n_boot,
        seed=seed,
    )
