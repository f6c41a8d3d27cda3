"""A Python file that is not on the import path (a benchmark script, a book extension, another
test folder's helper) loaded as a module, for the tests that exercise it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def module_from_file(path: Path, name: str) -> ModuleType:
    """The module of the file at ``path``, executed under ``name`` and registered in
    ``sys.modules`` (dataclasses and pickling look a class's module up there)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
