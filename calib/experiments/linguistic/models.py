"""The models of the linguistic chapter: family, size, instruction tuning and the paper's names,
and the consecutive sizes of one family (Kissling et al. 2026, Appendix G and the Introduction).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pandas as pd

from calib.confidence.schema import require_columns


def canonical_name(model: str) -> str:
    """The name a claim of the paper uses for ``model``: its registry name (a hub id of the
    registry gives the registered name), the hub's ``google/`` prefix and gemma-3's ``-pt``
    ("pre-trained", the base variant) suffix dropped, lower case: ``google/gemma-3-4b-pt`` ->
    ``gemma-3-4b``, ``google/gemma-3-4b-it`` -> ``gemma-3-4b-it``."""
    from calib.models.registry import get_spec

    spec = get_spec(model)
    name = (spec.name if spec is not None else model).lower()
    name = name.rsplit("/", 1)[-1]
    return name.removesuffix("-pt")


def model_table(models: Sequence[str]) -> pd.DataFrame:
    """Per model (from the registry; an unregistered model has no family or size): ``model``,
    ``paper_name`` (:func:`canonical_name`), ``in_paper`` (one of the paper's Table 3 models),
    ``family``, ``size`` (as written), ``size_m`` (millions of parameters) and
    ``instruction_tuned``."""
    from calib.models.registry import get_spec, paper_models, size_in_millions

    paper = {spec.name for spec in paper_models()}
    rows = []
    for m in models:
        spec = get_spec(m)
        rows.append(
            {
                "model": m,
                "paper_name": canonical_name(m),
                "in_paper": canonical_name(m) in paper,
                "family": spec.family if spec else "",
                "size": spec.size if spec else "",
                "size_m": size_in_millions(spec.size) if spec else None,
                "instruction_tuned": bool(spec.instruction_tuned) if spec else False,
            }
        )
    out = pd.DataFrame(
        rows,
        columns=[
            "model",
            "paper_name",
            "in_paper",
            "family",
            "size",
            "size_m",
            "instruction_tuned",
        ],
    )
    out["size_m"] = out["size_m"].astype(float)
    return out


def size_pairs(models: pd.DataFrame) -> pd.DataFrame:
    """Consecutive sizes within one family and instruction tuning (Appendix G's and the
    Introduction's "larger models"): per group of :func:`model_table` rows with the same
    ``family`` and ``instruction_tuned`` and a known size, sorted by size, each model with the
    next larger one. Columns ``family`` (with " (IT)" for instruction-tuned variants),
    ``smaller``, ``larger``, ``smaller_size``, ``larger_size``."""
    require_columns(
        models, ("model", "family", "size", "size_m", "instruction_tuned"), "model table"
    )
    rows = []
    known = models[(models["family"] != "") & models["size_m"].notna()]
    for (family, it), part in known.groupby(["family", "instruction_tuned"], sort=False):
        part = part.sort_values("size_m", kind="stable").to_dict("records")
        for a, b in itertools.pairwise(part):
            if b["size_m"] > a["size_m"]:
                rows.append(
                    {
                        "family": f"{family} (IT)" if it else family,
                        "smaller": a["model"],
                        "larger": b["model"],
                        "smaller_size": a["size"],
                        "larger_size": b["size"],
                    }
                )
    return pd.DataFrame(
        rows, columns=["family", "smaller", "larger", "smaller_size", "larger_size"]
    )
