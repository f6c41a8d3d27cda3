"""Ctrl-C at the edges of a command (issue 39, case 6): in the first seconds, before calib's
own handlers are installed, and a second Ctrl-C that lands in a finaliser. Each runs in a
subprocess whose output is read whole: one line, exit 130, no traceback and no "Exception
ignored"."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

from fault_helpers import REPO


def _python(script: str, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_ctrl_c_before_the_handlers_are_installed_is_one_line(tmp_path):
    """SIGINT while ``calib score`` checks its model, before any handler of calib's: Python's
    own ``KeyboardInterrupt`` there printed a 53-line traceback."""
    script = """
        import signal, sys, time
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
        import calib.models.locate as locate

        def slow(name):
            print("checking the model", flush=True)
            time.sleep(600)

        locate.model_problem = slow
        sys.argv[1:] = ["score", "--model", "tiny-gpt2", "--relations", "P30",
                        "--per-relation", "1", "--cache-dir", sys.argv[1]]
        from calib.cli import entry
        entry()
    """
    proc = _python(script.replace("sys.argv[1]", repr(str(tmp_path))))
    assert proc.stdout.readline().strip() == "checking the model"
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.strip() == "calib score: interrupted.", err


def test_a_second_ctrl_c_in_a_finaliser_is_quiet_and_stops_at_the_next_check():
    """The second signal raises from the handler; inside a ``__del__`` (as in ``regex``'s
    ``Group.__del__`` while transformers loads) Python printed "Exception ignored in ..."."""
    script = """
        import signal, sys
        signal.signal(signal.SIGINT, signal.default_int_handler)
        from calib.interrupt import Interrupted, check_interrupted, stop_on_signals

        class RaisesInFinaliser:
            def __del__(self):
                signal.raise_signal(signal.SIGINT)

        try:
            with stop_on_signals():
                signal.raise_signal(signal.SIGINT)  # the first: recorded
                RaisesInFinaliser()  # the second, made and finalised here
                print("ran on to the next check", flush=True)
                check_interrupted()
                print("not stopped")
        except Interrupted as exc:
            print("stopped by", exc.signum)
        print("hook restored:", sys.unraisablehook is sys.__unraisablehook__)
    """
    proc = _python(script)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert err == ""
    assert out.splitlines() == [
        "ran on to the next check",
        f"stopped by {int(signal.SIGINT)}",
        "hook restored: True",
    ]
