"""Score tables for several models at once, through the cache."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.data.bear import load_bear, template_names
from calib.scoring.run import score_queries
from calib.scoring.statements import bear_queries


def bear_scores(models: Sequence[str], templates="paraphrase-0..4", per_relation: int | None = None,
                seed: int = 0, relations: Sequence[str] | None = None, *, data_dir=None,
                cache_dir=None, device: str | None = "auto", progress: bool = True,
                start_token: str = "single") -> pd.DataFrame:
    """One score table (:mod:`calib.scoring.schema`) for every model in ``models`` on the same
    seeded BEAR sample under the named ``templates``. Stored scores are reused; only what is
    missing is computed (with a progress bar). ``start_token``: see
    :func:`calib.scoring.run.score_queries`."""
    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    queries = bear_queries(bear.sample(per_relation, seed), template_names(templates))
    frames = [score_queries(m, queries, cache_dir=cache_dir, device=device, progress=progress,
                            start_token=start_token)
              for m in models]
    return pd.concat(frames, ignore_index=True)


def objectives(models: Sequence[str]) -> dict[str, str]:
    """``clm`` or ``mlm`` for each model (from the registry, else from its configuration)."""
    from calib.models.loading import infer_objective
    from calib.models.registry import get_spec

    out = {}
    for m in models:
        spec = get_spec(m)
        if spec is not None:
            out[m] = spec.objective
        else:
            from transformers import AutoConfig

            out[m] = infer_objective(AutoConfig.from_pretrained(m)) or "clm"
    return out


def facts_per_model(scores: pd.DataFrame) -> int:
    """How many facts (distinct dataset, relation, instance) each model of a score table was
    scored on: the largest count over its models (they share one sample)."""
    if scores.empty:
        return 0
    return int(scores.groupby("model")[["dataset", "relation", "instance"]]
               .apply(lambda f: len(f.drop_duplicates())).max())


def causal_models(models: Sequence[str]) -> list[str]:
    """The causal (``clm``) models of ``models``, in their order (:func:`objectives`)."""
    return [m for m, o in objectives(models).items() if o == "clm"]
