"""Writing a model folder into the cache: whole or not at all, stamped with its files' sizes and
hashes (:mod:`calib.models.hashing`), with a clear error when the cache folder is read-only or
full; and checking it when it is used again."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from calib.models.hashing import stamp_problem, write_stamp
from calib.settings import cache_writes

log = logging.getLogger(__name__)


def save_model_folder(
    model,
    tokenizer,
    folder: Path,
    what: str,
    extra: dict[str, str] | None = None,
    slack: int = 1_000_000,
) -> Path:
    """``save_pretrained`` ``model`` and ``tokenizer`` (plus the text files ``extra``) into a
    temporary folder beside ``folder``, stamp it (:func:`calib.models.hashing.write_stamp`),
    then rename it into place, replacing an older one.

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
            write_stamp(tmp)
            if folder.exists():
                shutil.rmtree(folder)
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return folder


def intact(folder: Path, say: bool = True) -> bool:
    """Whether a model folder calib built in its cache is there and as it was written
    (:func:`calib.models.hashing.stamp_problem`); a damaged one is named in a warning (unless
    not ``say``), to be built again."""
    if not (folder / "config.json").exists():
        return False
    problem = stamp_problem(folder)
    if problem and say:
        log.warning(
            "the cached model folder %s is damaged (%s); it is built again", folder, problem
        )
    return problem is None
