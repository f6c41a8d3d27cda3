"""``calib.interrupt``: a signal is recorded (never raised where it lands, so never lost in a
finaliser), acted on at a safe point or at the end of the block, a second one raises at once,
handlers are restored, ignored signals stay ignored, and other threads install nothing.

The signals are raised in this process. Each test first installs a *guard* handler that only
records what reaches it, so that a bug (our handler not installed) fails the test instead of
ending the test session (SIGINT's default raises KeyboardInterrupt, SIGTERM's kills); it
raises an ordinary exception too, so that no test waits for what the signal should have
stopped.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from calib.interrupt import (
    Interrupted,
    check_interrupted,
    exit_code,
    interrupted,
    run_stoppable,
    stop_on_signals,
)


class GuardReached(Exception):
    pass


@pytest.fixture
def guard():
    """Handlers for SIGINT and SIGTERM during the test (restored after it) that record the
    signal and raise :class:`GuardReached`: reached only if ours was not installed."""
    reached = []

    def record(signum, frame):
        reached.append(signum)
        raise GuardReached(signal.Signals(signum).name)

    previous = {s: signal.signal(s, record) for s in (signal.SIGINT, signal.SIGTERM)}
    yield reached
    for s, handler in previous.items():
        signal.signal(s, handler)


class RaisesInFinaliser:
    def __init__(self, signum):
        self.signum = signum

    def __del__(self):
        signal.raise_signal(self.signum)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_in_a_finaliser_is_recorded_and_acted_on_at_the_next_check(guard, signum):
    before = signal.getsignal(signum)
    with pytest.raises(Interrupted) as info, stop_on_signals():
        RaisesInFinaliser(signum)  # created and finalised at once
        assert interrupted() == signum
        check_interrupted()
        pytest.fail("check_interrupted() did not raise")
    assert info.value.signum == signum and info.value.exit_code == 128 + signum
    assert exit_code(info.value) == {signal.SIGINT: 130, signal.SIGTERM: 143}[signum]
    assert guard == []
    assert signal.getsignal(signum) is before
    assert interrupted() is None  # the next block starts afresh
    with stop_on_signals():
        check_interrupted()


def test_a_signal_not_acted_on_is_raised_at_the_end_of_the_block(guard):
    steps = []
    with pytest.raises(Interrupted), stop_on_signals():
        with stop_on_signals():  # nested: the outer block owns the handlers
            signal.raise_signal(signal.SIGINT)
            steps.append("inner body ran on")
        steps.append("never")
    assert steps == ["inner body ran on"] and guard == []


def test_a_second_signal_raises_at_once_and_keeps_the_first(guard):
    with pytest.raises(Interrupted) as outer, stop_on_signals():
        signal.raise_signal(signal.SIGTERM)
        with pytest.raises(Interrupted) as info:
            signal.raise_signal(signal.SIGINT)
    assert info.value.signum == outer.value.signum == signal.SIGTERM
    assert guard == []


def test_an_ignored_signal_stays_ignored(guard):
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # (restored by the guard fixture)
    with stop_on_signals():
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        signal.raise_signal(signal.SIGINT)
        check_interrupted()
    assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def test_other_threads_install_nothing(guard):
    seen = {}

    def body():
        handler = signal.getsignal(signal.SIGINT)
        with stop_on_signals():
            seen["during"] = signal.getsignal(signal.SIGINT) is handler
            check_interrupted()

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert seen == {"during": True}


def test_run_stoppable_ends_its_child_after_a_signal(guard, tmp_path):
    """The child sleeps far longer than this test may take; once it has started (its marker
    file exists: it runs inside ``run_stoppable``'s block) a thread raises the signal. The
    600 s only bound a hang."""
    marker = tmp_path / "up"
    child = [
        sys.executable,
        "-c",
        f"import pathlib, time; pathlib.Path({str(marker)!r}).touch(); time.sleep(600)",
    ]

    def signal_when_up():
        end = time.monotonic() + 600
        while not marker.exists() and time.monotonic() < end:
            time.sleep(0.05)
        signal.raise_signal(signal.SIGTERM)

    thread = threading.Thread(target=signal_when_up, daemon=True)
    started = time.monotonic()
    thread.start()
    with pytest.raises(Interrupted) as info:
        run_stoppable(child, capture_output=True, text=True, grace=600)
    thread.join()
    assert info.value.signum == signal.SIGTERM
    assert time.monotonic() - started < 600  # the child was ended, not waited for
    assert guard == []
    done = run_stoppable([sys.executable, "-c", "print('ok')"], capture_output=True, text=True)
    assert isinstance(done, subprocess.CompletedProcess)
    assert done.returncode == 0 and done.stdout.strip() == "ok"


def test_the_sigint_latency_benchmark_explains_itself():
    """``benchmarks/sigint_latency.py`` (its timings belong on a quiet machine, not here)."""
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, str(repo / "benchmarks" / "sigint_latency.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=600,
    )  # only against a hang
    assert done.returncode == 0, done.stderr
    assert "--competing-load" in done.stdout and "--chapter" in done.stdout
