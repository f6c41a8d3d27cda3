"""Writing a model folder into the cache: whole or not at all, with a clear error when the cache
folder is read-only or full."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from calib.settings import cache_writes


def save_model_folder(
    model,
    tokenizer,
    folder: Path,
    what: str,
    extra: dict[str, str] | None = None,
    slack: int = 1_000_000,
) -> Path:
    """``save_pretrained`` ``model`` and ``tokenizer`` (plus the text files ``extra``) into a
    temporary folder beside ``folder``, then rename it into place, replacing an older one.

    A read-only or full cache is a :class:`~calib.settings.CacheWriteError` naming the folder
    and the space needed (the weights' size plus ``slack`` bytes); the temporary folder is
    removed whatever happens."""
    needed = sum(p.numel() * p.element_size() for p in model.parameters()) + slack
    with cache_writes(folder.parent, what, needed):
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=folder.parent, prefix=folder.name + ".tmp"))
        try:
            model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
            for name, text in (extra or {}).items():
                (tmp / name).write_text(text)
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return folder
