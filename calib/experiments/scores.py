"""Facts about the score tables of several models: their objectives and how many facts each
was scored on (the tables come from :func:`calib.scoring.run.score_bear`)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.scoring.schema import FACT


def objectives(models: Sequence[str]) -> dict[str, str]:
    """``clm`` or ``mlm`` for each model (from the registry, else from its configuration; the
    model-loading code, torch and transformers, is imported only for a model the registry does
    not list)."""
    from calib.models.registry import get_spec

    out = {}
    for m in models:
        spec = get_spec(m)
        if spec is not None:
            out[m] = spec.objective
        else:
            from calib.models.loading import infer_objective, load_config

            out[m] = infer_objective(load_config(m)) or "clm"
    return out


def facts_per_model(scores: pd.DataFrame) -> int:
    """How many facts (distinct dataset, relation, instance) each model of a score table was
    scored on: the largest count over its models (they share one sample)."""
    if scores.empty:
        return 0
    return int(scores.groupby("model")[list(FACT)].apply(lambda f: len(f.drop_duplicates())).max())


def causal_models(models: Sequence[str]) -> list[str]:
    """The causal (``clm``) models of ``models``, in their order (:func:`objectives`)."""
    return [m for m, o in objectives(models).items() if o == "clm"]
