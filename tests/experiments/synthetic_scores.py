"""The synthetic score tables of ``tests/confidence/conftest.py`` for the experiment tests.

Loaded from that file by path (a conftest is not importable by name from another folder), so
the builders are defined once.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[1] / "confidence" / "conftest.py"
_spec = importlib.util.spec_from_file_location("_calib_synthetic_score_tables", _PATH)
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)

random_score_table = _module.random_score_table
table_from_scores = _module.table_from_scores


def query_score_table(queries, models=("m",), seed: int = 0, sharpness: float = 4.0):
    """A random score table (the store's schema, :mod:`calib.scoring.schema`) of ``queries``
    (:class:`calib.scoring.statements.Query`) for each of ``models``: one row per statement,
    2-4 tokens (subject, template, object), random log-probabilities; each query's correct
    option is boosted by a random amount, so that models are right more often than chance."""
    import numpy as np
    import pandas as pd

    from calib.scoring.schema import SCORE_COLUMNS

    rng = np.random.default_rng(seed)
    rows = []
    for model in models:
        for q in queries:
            strength = sharpness * rng.random()
            for option, answer in enumerate(q.answers):
                n_obj = 1 + option % 2
                lp = -rng.gamma(2.0, 0.5, size=2 + n_obj)
                if option == q.answer_idx:
                    lp[-n_obj:] += strength / n_obj
                    lp = np.minimum(lp, -1e-3)
                rows.append(
                    {
                        "model": model,
                        "dataset": q.dataset,
                        "relation": q.relation,
                        "instance": q.instance,
                        "template": q.template,
                        "option": option,
                        "answer": answer,
                        "answer_idx": q.answer_idx,
                        "token_logprobs": lp.tolist(),
                        "token_roles": ["subject", "template"] + ["object"] * n_obj,
                    }
                )
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))
