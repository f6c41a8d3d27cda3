"""Converting an embedded GGUF model into a Hugging Face folder, in a child process that Ctrl-C
stops at once.

The conversion (``transformers`` reads the GGUF, dequantises every tensor to float32, and the
model is saved with ``save_pretrained``: 30 to 90 s on 2 cores) has no point where a recorded
signal (:mod:`calib.interrupt`) could be acted on, and it is the first thing a new user's first
run does. So :func:`convert` runs it in a child process (``python -m calib.models.conversion``)
and waits for it with :func:`calib.interrupt.stop_on_signals`: at Ctrl-C or SIGTERM the child is
killed, its unfinished folder removed, and :class:`calib.interrupt.Interrupted` raised, within
a fraction of a second (``benchmarks/sigint_latency.py --conversion``). The child writes into a
temporary folder beside the target and renames it into place
(:func:`calib.models.folders.save_model_folder`), so the target is whole or absent; a temporary
folder left by a process killed outright (``SIGKILL``) is removed by the next conversion of the
same model, which holds the model's lock (:func:`calib.settings.cache_lock`).

The child dies at a Ctrl-C that reaches it too (a terminal's goes to the whole foreground process
group), and ends itself if its parent dies.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from calib.interrupt import Interrupted, interrupted, stop_on_signals
from calib.settings import CacheWriteError

#: how often the waiting parent looks for a recorded signal and for the child's end (seconds)
POLL_S = 0.05


def partial_folders(folder: Path) -> list[Path]:
    """The temporary folders a conversion into ``folder`` writes before its rename
    (:func:`calib.models.folders.save_model_folder`: ``<name>.tmp*`` beside it)."""
    return sorted(p for p in folder.parent.glob(f"{folder.name}.tmp*") if p.is_dir())


def remove_partial(folder: Path) -> None:
    """Remove what an unfinished conversion into ``folder`` left (its temporary folders); the
    caller holds the model's lock, so no other conversion is writing them."""
    for path in partial_folders(folder):
        shutil.rmtree(path, ignore_errors=True)


def _child_environment() -> dict[str, str]:
    """This environment, with the folder holding this ``calib`` first on ``PYTHONPATH`` (the
    child imports the same package)."""
    import calib

    parent = str(Path(calib.__file__).resolve().parents[1])
    paths = [parent, *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


def _raise_failure(result: Path, returncode: int, name: str) -> None:
    """The child's error again, in this process (a :class:`~calib.settings.CacheWriteError` as
    such, anything else a :class:`~calib.models.locate.ModelLoadError`)."""
    from calib.models.locate import ModelLoadError

    try:
        info = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        info = {}
    if info.get("kind") == "CacheWriteError":
        raise CacheWriteError(info["folder"], info["reason"], info.get("needed"), info["what"])
    if info.get("message"):
        raise ModelLoadError(f"converting {name!r} from GGUF failed: {info['message']}")
    how = f"signal {-returncode}" if returncode < 0 else f"exit {returncode}"
    raise ModelLoadError(
        f"converting {name!r} from GGUF stopped ({how}) without a word; nothing was written"
    )


def convert(name: str, folder: Path) -> None:
    """Convert the embedded model ``name`` (a registry name) into ``folder`` in a child process
    (see the module docstring). The caller holds the model's lock.

    Raises
    ------
    calib.interrupt.Interrupted
        At Ctrl-C or SIGTERM: the child killed, nothing of its folder left.
    calib.settings.CacheWriteError
        When the cache folder cannot take the converted model.
    calib.models.locate.ModelLoadError
        When the conversion failed otherwise.
    """
    remove_partial(folder)  # a conversion killed outright before this one
    with tempfile.TemporaryDirectory(prefix="calib-convert-") as tmp:
        result = Path(tmp) / "result.json"
        argv = [sys.executable, "-m", "calib.models.conversion", name, str(folder), str(result)]
        with stop_on_signals():
            proc = subprocess.Popen(argv, env=_child_environment(), stdin=subprocess.DEVNULL)
            try:
                while proc.poll() is None:
                    if interrupted() is not None:
                        break
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=POLL_S)
                if (signum := interrupted()) is not None or proc.returncode == -signal.SIGINT:
                    raise Interrupted(signum or signal.SIGINT)
            except BaseException:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                remove_partial(folder)
                raise
        if proc.returncode != 0:
            remove_partial(folder)
            _raise_failure(result, proc.returncode, name)


def _convert_here(name: str, folder: Path) -> None:
    """The conversion itself (the child's work): GGUF -> float32 model -> ``folder``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from calib.models.folders import save_model_folder
    from calib.models.hashing import file_sha256
    from calib.models.locate import ModelLoadError, embedded_missing, gguf_path
    from calib.models.registry import get_spec

    spec = get_spec(name)
    if spec is None or spec.kind != "embedded":
        raise ModelLoadError(f"{name!r} is not an embedded model of the registry")
    src = gguf_path(spec)
    if src is None:
        raise ModelLoadError(embedded_missing(spec))
    want = {"gguf": src.name, "sha256": file_sha256(src)}
    tokenizer = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    model = AutoModelForCausalLM.from_pretrained(
        src.parent, gguf_file=src.name, dtype=torch.float32
    )
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.hf_quantizer = None  # type: ignore[assignment]  # torch: Module attrs typed Tensor|Module
    model.is_quantized = False  # type: ignore[assignment]  # torch: Module attrs typed Tensor|Module
    save_model_folder(
        model,
        tokenizer,
        folder,
        f"the converted model {spec.name}",
        extra={"calib-source.json": json.dumps(want)},
        slack=50_000_000,
    )


def _end_with_parent() -> None:
    """End this process when its parent is gone (it was killed outright): nobody waits for
    this conversion any more, and its lock is released."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def main(argv: list[str]) -> int:
    """``python -m calib.models.conversion NAME FOLDER RESULT``: convert NAME into FOLDER; on
    failure write the error to the JSON file RESULT and exit 1."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a Ctrl-C ends the child at once
    _end_with_parent()
    name, folder, result = argv
    try:
        _convert_here(name, Path(folder))
    except CacheWriteError as exc:
        info = {
            "kind": "CacheWriteError",
            "folder": str(exc.folder),
            "reason": exc.reason,
            "needed": exc.needed,
            "what": exc.what,
        }
        Path(result).write_text(json.dumps(info), encoding="utf-8")
        return 1
    except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
        text = " ".join(f"{type(exc).__name__}: {exc}".split())[:600]
        Path(result).write_text(json.dumps({"kind": "error", "message": text}), encoding="utf-8")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
