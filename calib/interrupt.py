"""Ctrl-C (SIGINT) and SIGTERM that always stop a long command, cleanly, wherever they land.

Python's own Ctrl-C raises ``KeyboardInterrupt`` wherever the main thread happens to be; raised
inside a finaliser (a ``__del__``), that exception is printed and dropped ("Exception ignored
in ...") and the command runs on to the end. :func:`stop_on_signals` replaces it for the
duration of a block: its handler only *records* the signal, and the work checks the record at
safe points with :func:`check_interrupted` and stops there with :class:`Interrupted`: the
scorers before every forward pass and, within a pass, before every layer
(:func:`checked_between_layers`), :func:`calib.scoring.chunks.score_missing` before every claim
and after loading the model, the waits for other processes at every poll. So no signal is
lost, wherever it lands (a finaliser, a C extension, a progress bar's refresh), and nothing is
left half-written: a chunk being scored is discarded, never written in part.

- A signal recorded and not yet acted on when the block ends is raised then.
- A second signal raises :class:`Interrupted` at once, from the handler (Python's usual
  Ctrl-C, for a stop that cannot wait for the next safe point, e.g. a long model load); every
  write of the score store is atomic and a claim left behind is found stale by the next run,
  so the store stays whole. Raised inside a finaliser, it is dropped without Python's
  "Exception ignored in ..." (``_quiet_unraisable``), and the signal already recorded
  stops the work at the next safe point.
- Work in a child process is stopped by the waiting parent: :func:`run_stoppable` (a
  ``subprocess.run`` that terminates its child after a signal); a chapter's kernel,
  :mod:`calib.book.chapters`.
- The previous handlers are restored when the outermost block ends (library use: a notebook
  kernel gets its own interrupt handler back); a signal ignored when the block starts
  (``SIG_IGN``, as a shell leaves SIGINT for a background job) stays ignored, and outside the
  main thread (which alone receives signals) nothing is installed.

A command that stops this way exits with ``128 + signal number`` (:attr:`Interrupted.exit_code`:
130 for Ctrl-C, 143 for SIGTERM), the shell's convention.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field

#: the signals :func:`stop_on_signals` handles
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """The work stopped at a safe point after ``signum`` (SIGINT: Ctrl-C, or SIGTERM)."""

    def __init__(self, signum: int = signal.SIGINT, message: str | None = None):
        self.signum = int(signum)
        super().__init__(message or f"interrupted by {signal_name(signum)}")

    @property
    def exit_code(self) -> int:
        """The exit status a command stopped this way returns: 128 + the signal number."""
        return 128 + self.signum


def signal_name(signum: int) -> str:
    """``SIGINT (Ctrl-C)``, ``SIGTERM``, ..."""
    name = signal.Signals(signum).name
    return f"{name} (Ctrl-C)" if signum == signal.SIGINT else name


def exit_code(exc: BaseException) -> int:
    """The exit status after ``exc`` (an :class:`Interrupted`, else a plain Ctrl-C): 130 for
    SIGINT, 143 for SIGTERM."""
    return 128 + int(getattr(exc, "signum", signal.SIGINT))


@dataclass
class _State:
    depth: int = 0  # nested stop_on_signals blocks of the main thread
    signum: int | None = None  # the first signal recorded in the outermost block
    count: int = 0  # signals recorded in it
    previous: dict = field(default_factory=dict)  # the handlers replaced
    unraisable: object = None  # sys.unraisablehook before the outermost block


_STATE = _State()


def _handle(signum: int, frame) -> None:
    _STATE.count += 1
    if _STATE.signum is None:
        _STATE.signum = signum
    if _STATE.count > 1:
        raise Interrupted(_STATE.signum)


def _quiet_unraisable(unraisable) -> None:
    """``sys.unraisablehook`` within :func:`stop_on_signals`: an :class:`Interrupted` raised by
    a second signal inside a finaliser (a ``__del__``, which cannot pass it on) is dropped
    quietly, since the signal is recorded; anything else goes to the previous hook."""
    if isinstance(unraisable.exc_value, Interrupted) and _STATE.signum is not None:
        return
    previous = _STATE.unraisable if callable(_STATE.unraisable) else sys.__unraisablehook__
    previous(unraisable)


def interrupted() -> int | None:
    """The signal recorded in the current :func:`stop_on_signals` block, if any."""
    return _STATE.signum


def check_interrupted() -> None:
    """Raise :class:`Interrupted` if a signal was recorded (a safe point: call it where
    stopping leaves nothing half-done). Costs one attribute read."""
    if _STATE.signum is not None:
        raise Interrupted(_STATE.signum)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def stop_on_signals():
    """Record SIGINT and SIGTERM instead of raising where they land, for the block (see the
    module docstring); nestable. Raises :class:`Interrupted` at the end of the block if a
    signal was recorded that the block did not act on."""
    main = _in_main_thread()
    outer = main and _STATE.depth == 0
    if outer:
        _STATE.signum, _STATE.count = None, 0
        for sig in SIGNALS:
            current = signal.getsignal(sig)
            if current is signal.SIG_IGN or current is None:  # ignored, or set outside Python
                continue
            with contextlib.suppress(ValueError, OSError):
                _STATE.previous[sig] = signal.signal(sig, _handle)
        _STATE.unraisable, sys.unraisablehook = sys.unraisablehook, _quiet_unraisable
    if main:
        _STATE.depth += 1
    try:
        yield
    finally:
        if main:
            _STATE.depth -= 1
        if outer:
            for sig, previous in _STATE.previous.items():
                signal.signal(sig, previous)
            _STATE.previous.clear()
            if sys.unraisablehook is _quiet_unraisable:
                sys.unraisablehook = _STATE.unraisable  # type: ignore[assignment]  # saved hook
        pending = _STATE.signum if main else None
        if outer:
            _STATE.signum, _STATE.count = None, 0
    if pending is not None:  # reached only when the block itself raised nothing
        raise Interrupted(pending)


@contextlib.contextmanager
def checked_between_layers(model):
    """Check for a recorded signal (:func:`check_interrupted`) before every layer of the torch
    ``model`` -- each module held in a ``torch.nn.ModuleList``, i.e. a transformer's blocks --
    and before its output head, so that a forward pass stops within one layer: a pass of a
    135M-parameter model at the CPU token budget takes a second or more. An abandoned pass
    leaves nothing behind (its outputs and key/value cache are dropped). Hooks are removed on
    exit; while no signal is recorded each costs one attribute read."""
    import torch

    def hook(module, args):
        check_interrupted()

    handles = []
    for module in model.modules():
        if isinstance(module, torch.nn.ModuleList):
            handles += [layer.register_forward_pre_hook(hook) for layer in module]
    head = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if head is not None:
        handles.append(head.register_forward_pre_hook(hook))
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def run_stoppable(
    cmd, *, poll: float = 0.5, grace: float = 10.0, **kwargs
) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, **kwargs)`` (``capture_output``, ``text``, ``cwd`` ...) inside
    :func:`stop_on_signals`: after a signal the child gets SIGTERM (SIGKILL if it has not ended
    ``grace`` seconds later) and :class:`Interrupted` is raised."""
    if kwargs.pop("capture_output", False):
        kwargs.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with stop_on_signals():
        proc = subprocess.Popen(cmd, **kwargs)
        try:
            while True:
                try:
                    out, err = proc.communicate(timeout=poll)
                    break
                except subprocess.TimeoutExpired:  # retrying loses no output
                    if (signum := interrupted()) is not None:
                        proc.terminate()
                        try:
                            proc.communicate(timeout=grace)
                        except subprocess.TimeoutExpired:
                            proc.kill()
                            proc.communicate()
                        raise Interrupted(signum) from None
        except BaseException:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
