"""Synthetic score tables of the shape documented in :mod:`calib.scoring.schema`.

Two builders, shared by the confidence tests through fixtures:

* ``table_from_scores(groups)`` -- a score table whose sentence scores are given exactly (for
  hand-computed examples): every statement gets three tokens (subject, template, object) whose
  log-probabilities sum to the given score.
* ``random_score_table(...)`` -- a random table with several relations of different answer-space
  sizes, all 12 templates and one or more models; per-token log-probabilities and roles.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.data.bear import TEMPLATE_NAMES
from calib.scoring.schema import SCORE_COLUMNS


def table_from_scores(groups, model: str = "m", dataset: str = "bear") -> pd.DataFrame:
    """``groups``: iterable of ``(relation, instance, template, scores, answer_idx)``; one row per
    option with tokens ``[0.2*s, 0.3*s, 0.5*s]`` and roles ``[subject, template, object]``."""
    rows = []
    for relation, instance, template, scores, correct in groups:
        for option, s in enumerate(scores):
            rows.append(
                {
                    "model": model,
                    "dataset": dataset,
                    "relation": relation,
                    "instance": instance,
                    "template": template,
                    "option": option,
                    "answer": f"ans{option}",
                    "answer_idx": correct,
                    "token_logprobs": [0.2 * s, 0.3 * s, 0.5 * s],
                    "token_roles": ["subject", "template", "object"],
                }
            )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def random_score_table(
    n_instances: int = 12,
    sizes=(5, 8, 13),
    templates=TEMPLATE_NAMES,
    models=("m",),
    seed: int = 0,
    sharpness: float = 6.0,
) -> pd.DataFrame:
    """Relations ``R0, R1, ..`` with answer spaces of ``sizes``; ``n_instances`` per relation;
    1-3 subject tokens per instance, 1-3 object tokens per option, 2-4 template tokens per
    template, random log-probabilities. Each instance has a favourite option (the correct one
    60% of the time) that every template boosts by a random amount, so templates often but not
    always agree."""
    rng = np.random.default_rng(seed)
    rows = []
    for model in models:
        for r, size in enumerate(sizes):
            for i in range(n_instances):
                fact = np.random.default_rng([seed, r, i])  # the same fact for every model
                correct = int(fact.integers(size))
                n_s = int(fact.integers(1, 4))
                n_o = fact.integers(1, 4, size=size)  # answer tokens per option
                favourite = correct if rng.random() < 0.6 else int(rng.integers(size))
                strength = rng.random()  # how sure the model is of its favourite
                for t, template in enumerate(templates):
                    n_t = 2 + t % 3
                    for option in range(size):
                        n_tok = n_s + n_t + n_o[option]
                        lp = -rng.gamma(2.0, 0.5, size=n_tok)
                        if option == favourite:
                            boost = sharpness * strength * (0.5 + rng.random())
                            lp[-n_o[option] :] += boost / n_o[option]
                            lp = np.minimum(lp, -1e-3)
                        roles = ["subject"] * n_s + ["template"] * n_t + ["object"] * n_o[option]
                        rows.append(
                            {
                                "model": model,
                                "dataset": "bear",
                                "relation": f"R{r}",
                                "instance": f"Q{r}_{i}",
                                "template": template,
                                "option": option,
                                "answer": f"a{option}",
                                "answer_idx": correct,
                                "token_logprobs": lp.tolist(),
                                "token_roles": roles,
                            }
                        )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


@pytest.fixture
def make_table():
    """The exact-score builder :func:`table_from_scores`."""
    return table_from_scores


@pytest.fixture(scope="session")
def random_table():
    """A random 12-template score table: 3 relations (5, 8, 13 options) x 12 instances,
    two models."""
    return random_score_table(models=("m1", "m2"))
