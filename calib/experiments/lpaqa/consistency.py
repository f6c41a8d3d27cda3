"""Prediction consistency by prompt (Jiang et al. 2020, §5.3, Figure 3): the divergence of prompt
pairs' predictions against their edit distance.
"""

from __future__ import annotations

import pandas as pd

from calib.experiments.lpaqa.selection import rows_with
from calib.prompts.accuracy import predictions
from calib.prompts.consistency import (
    divergence_bins,
    divergence_correlation,
    divergence_pairs,
    prompt_pairs,
)


def divergence(
    test: pd.DataFrame,
    prompts: pd.DataFrame,
    members: pd.DataFrame,
    n_boot: int = 1000,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """§5.3 per model, over every pair of the prompts generated for it (the members of its
    prompt sets: manual, mined, paraphrased): the Pearson correlation of their normalised edit
    distance with the divergence of their predictions on the test facts, with its interval
    (:func:`calib.prompts.consistency.divergence_correlation`), and Figure 3's summary per
    distance bin. Returns ``(correlations, bins)``."""
    corr, bins = [], []
    texts = prompts.set_index(["relation", "template"])["text"]
    for model, mem in members.groupby("model", sort=False):
        own = mem[["relation", "template"]].drop_duplicates()
        own = own.assign(text=[texts[(r, t)] for r, t in zip(own["relation"], own["template"])])
        pairs = prompt_pairs(own)
        part = rows_with(test[test["model"] == model], own, ["relation", "template"])
        per = predictions(part)
        got = divergence_correlation(per, pairs, n_boot, seed)
        corr.append(
            {
                "model": model,
                "r": got["value"],
                "r_low": got["low"],
                "r_high": got["high"],
                "p_value": got["p_value"],
                "n_pairs": got["n_pairs"],
                "n": got["n"],
                "n_relations": got["n_relations"],
            }
        )
        bins.append(divergence_bins(divergence_pairs(per, pairs).assign(model=model)))
    return pd.DataFrame(corr), pd.concat(bins, ignore_index=True)
