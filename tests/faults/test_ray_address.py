"""``--ray`` at an address where no cluster is (issue 39, case 1): one line naming the address
and what to check, exit 2, within seconds and before any model is built; Ctrl-C and SIGTERM
stop it while it connects. No cluster is needed: the addresses are loopback ports with nothing
there, a listener that never answers, and one that answers as a gRPC server does."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading

import pytest
from fault_helpers import REPO, calib_command

from calib.cli import main
from calib.scoring.cluster import CONNECT_ENV, cluster_problem

SCORE = ["score", "--model", "tiny-gpt2", "--templates", "paraphrase-0", "--per-relation", "1"]
SCORE += ["--relations", "P36"]


@pytest.fixture
def closed_port():
    """A loopback port bound but not listening: connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


@pytest.fixture
def silent_listener():
    """A loopback listener that accepts connections and never says a word."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock


def _refused(address: str, cache, capsys) -> str:
    """The one line ``calib score --ray ADDRESS`` says, with exit 2."""
    code = main([*SCORE, "--cache-dir", str(cache), "--ray", address])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err, err
    return err


def test_no_cluster_at_the_address_is_one_line(closed_port, tmp_path, capsys, no_model):
    address = f"127.0.0.1:{closed_port}"
    assert _refused(address, tmp_path, capsys).startswith(
        f"calib score: no Ray cluster answers at {address} (Connection refused); check that a "
        f"cluster runs there (`ray status` on its head node), that {address} is its head "
    )


def test_a_listener_that_is_no_cluster_is_given_up_on(
    silent_listener, tmp_path, capsys, monkeypatch, no_model
):
    monkeypatch.setenv(CONNECT_ENV, "0.5")
    address = f"127.0.0.1:{silent_listener.getsockname()[1]}"
    assert _refused(address, tmp_path, capsys).startswith(
        f"calib score: no Ray cluster answers at {address}: something listens there but did "
        f"not answer as a Ray cluster does within 0.5 s; check that"
    )


def test_a_server_that_greets_as_grpc_passes_the_check(silent_listener):
    """The check's other side: a server that answers the HTTP/2 greeting with its SETTINGS
    frame, as Ray's GCS does (checked by hand against ``ray.init()``'s own GCS), passes."""

    def greet():
        conn, _ = silent_listener.accept()
        with conn:
            conn.sendall(bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))  # an empty SETTINGS frame
            conn.recv(64)

    thread = threading.Thread(target=greet, daemon=True)
    thread.start()
    port = silent_listener.getsockname()[1]
    assert cluster_problem(f"127.0.0.1:{port}", timeout=60) is None
    thread.join(timeout=60)
    assert cluster_problem("127.0.0.1", timeout=1).startswith("--ray '127.0.0.1': expected HOST:")


def test_ctrl_c_while_connecting_stops_calib_score(silent_listener, tmp_path):
    """``calib score --ray`` in a subprocess, its connection waiting for an answer: SIGINT,
    sent once it has connected, stops it with exit 130 and the usual lines."""
    port = silent_listener.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=str(REPO), **{CONNECT_ENV: "600"})
    args = [*SCORE, "--cache-dir", str(tmp_path), "--ray", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(calib_command(args), env=env, stderr=subprocess.PIPE, text=True)
    try:
        silent_listener.settimeout(300)
        conn, _ = silent_listener.accept()  # the child is connecting now
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)  # stops promptly
        conn.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "calib score: interrupted.\nNo scores of this run were stored yet." in err


def test_sigterm_while_connecting_exits_143(silent_listener, tmp_path, capsys, monkeypatch):
    """In this process: SIGTERM once the check has connected (the handler of
    ``calib score`` records it, the check's next poll stops)."""
    monkeypatch.setenv(CONNECT_ENV, "600")
    port = silent_listener.getsockname()[1]

    def terminate_when_connected():
        conn, _ = silent_listener.accept()
        os.kill(os.getpid(), signal.SIGTERM)
        conn.close()

    silent_listener.settimeout(300)
    thread = threading.Thread(target=terminate_when_connected, daemon=True)
    guarded = []
    previous = signal.signal(signal.SIGTERM, lambda s, f: guarded.append(s))
    try:
        thread.start()
        code = main([*SCORE, "--cache-dir", str(tmp_path), "--ray", f"127.0.0.1:{port}"])
    finally:
        signal.signal(signal.SIGTERM, previous)
        thread.join(timeout=60)
    err = capsys.readouterr().err
    assert code == 143 and guarded == [], err
    assert "calib score: interrupted (SIGTERM, exit 143)." in err
