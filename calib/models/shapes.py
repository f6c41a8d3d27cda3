"""The architecture of the paper's models without the hub: configurations built from
``paper_configs.json``.

A plan of a model's device memory (:mod:`calib.scoring.memory`, ``calib plan``) needs its
configuration only: the shapes of its tensors. Where the hub cannot be reached, the
configuration of each of the paper's 29 models (Kissling et al. 2026, Table 3) is built here
from the fields of its hub ``config.json`` that fix those shapes, kept in
``calib/models/paper_configs.json`` with where each was read (``source``). The weights are
never needed: parameters are counted on PyTorch's ``meta`` device from the configuration.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

PAPER_CONFIGS = Path(__file__).with_name("paper_configs.json")


@lru_cache(maxsize=1)
def _table() -> dict[str, dict]:
    return {k: v for k, v in json.loads(PAPER_CONFIGS.read_text()).items() if not k.startswith("_")}


def shape_names() -> list[str]:
    """The registry names with an architecture in ``paper_configs.json``."""
    return list(_table())


def shape_source(name: str) -> str | None:
    """Where the architecture of ``name`` was read (its ``source``), or ``None``."""
    entry = _table().get(name)
    return None if entry is None else entry["source"]


def shape_config(name: str):
    """The ``transformers`` configuration of registry model ``name`` built from its
    architecture in ``paper_configs.json`` (``None`` when it has none)."""
    from transformers import AutoConfig

    entry = _table().get(name)
    if entry is None:
        return None
    fields = {k: v for k, v in entry.items() if k not in ("model_type", "source")}
    return AutoConfig.for_model(entry["model_type"], **fields)
