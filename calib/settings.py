"""Where calib keeps what it computes: the cache root for converted models and scores.

``$CALIB_CACHE_DIR`` if set (the Makefile points it at ``.cache/`` in the checkout, which git
ignores), else ``$XDG_CACHE_HOME/calib`` (default ``~/.cache/calib``).
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "CALIB_CACHE_DIR"


def resolve_dir(given: str | os.PathLike | None, env_var: str, *user_cache_parts: str) -> Path:
    """``given`` if not None, else ``$env_var`` if set, else ``$XDG_CACHE_HOME`` (default
    ``~/.cache``) joined with ``user_cache_parts``."""
    if given is not None:
        return Path(given).expanduser()
    env = os.environ.get(env_var)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).joinpath(*user_cache_parts)


def cache_root(cache_dir: str | os.PathLike | None = None) -> Path:
    """The cache root: ``cache_dir`` if given, else ``$CALIB_CACHE_DIR``, else the user cache."""
    return resolve_dir(cache_dir, CACHE_ENV, "calib")


#: set by ``calib run`` for a chapter's kernel: the folder where the chapter's result tables and
#: the score rows it used are recorded for the page's downloads (:mod:`calib.book.downloads`)
EXPORT_ENV = "CALIB_EXPORT_DIR"


def export_dir() -> Path | None:
    """The folder named by ``$CALIB_EXPORT_DIR`` (a chapter run by ``calib run``), else None."""
    value = os.environ.get(EXPORT_ENV)
    return Path(value) if value else None
