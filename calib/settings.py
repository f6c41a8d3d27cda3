"""Where calib keeps what it computes: the cache root for converted models and scores.

``$CALIB_CACHE_DIR`` if set (the Makefile points it at ``.cache/`` in the checkout, which git
ignores), else ``$XDG_CACHE_HOME/calib`` (default ``~/.cache/calib``).
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "CALIB_CACHE_DIR"


def cache_root(cache_dir: str | os.PathLike | None = None) -> Path:
    """The cache root: ``cache_dir`` if given, else ``$CALIB_CACHE_DIR``, else the user cache."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "calib"
