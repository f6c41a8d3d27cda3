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
