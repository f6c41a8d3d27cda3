"""Fixtures of the scoring tests: the embedded models' tokenizers.

The session's cache is empty (``tests/conftest.py``), and converting an embedded model takes a
minute or more, so the tokenizers are read from the converted folders of the cache this session
was started with (``$CALIB_CACHE_DIR`` before the tests replaced it, else the checkout's
``.cache``), where ``make book`` left them; else from the GGUF (slow). Tests that use them are
marked ``slow`` or sample BEAR.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_REPO = Path(__file__).resolve().parents[2]
#: the cache the developer's runs use, read before the session fixture replaces the variable
USER_CACHE = Path(os.environ.get("CALIB_CACHE_DIR") or _REPO / ".cache")
EMBEDDED = ("smollm2-135m-instruct", "gemma-3-270m")


def embedded_tokenizer(name: str):
    """The embedded model ``name``'s tokenizer (see the module docstring); skips the test
    where its GGUF package is not installed."""
    from transformers import AutoTokenizer

    from calib.models.loading import CONVERTED_VERSION, _usable
    from calib.models.locate import gguf_path
    from calib.models.registry import get_spec

    folder = USER_CACHE / "models" / f"{name}-{CONVERTED_VERSION}"
    if (folder / "calib-source.json").is_file() and (folder / "tokenizer.json").is_file():
        return _usable(AutoTokenizer.from_pretrained(folder), name)
    spec = get_spec(name)
    path = gguf_path(spec) if spec is not None else None
    if path is None:
        pytest.skip(f"the embedded model {name} is not installed")
    return _usable(AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name), name)


@pytest.fixture(scope="session")
def embedded_tokenizers():
    """name -> tokenizer of both embedded models (loaded once)."""
    return {name: embedded_tokenizer(name) for name in EMBEDDED}
