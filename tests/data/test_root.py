"""The data root: precedence, offline errors, pinned downloads with sha256 checks."""

import hashlib
import io
import urllib.error

import pytest

from calib.data import root as droot


def test_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("CALIB_DATA_DIR", str(tmp_path / "env"))
    assert droot.data_root(tmp_path / "arg") == tmp_path / "arg"
    assert droot.data_root() == tmp_path / "env"
    monkeypatch.delenv("CALIB_DATA_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert droot.data_root() == tmp_path / "xdg" / "calib" / "data"


def test_every_pinned_file_has_a_source():
    names = list(droot.checksums())
    assert len(names) > 300
    assert all(
        droot.source_for(n) is not None
        for n in names
        if not n.endswith(("LICENSE", "LICENSE.md", "LICENSE-pararel", "README.md"))
    )
    src = droot.source_for("lpaqa/TREx_train/P19.jsonl")
    assert src.member("lpaqa/TREx_train/P19.jsonl") == "TREx_train/P19.jsonl"
    assert (
        droot.source_for("lama/sentences/dev/P19.jsonl")
        .url("lama/sentences/dev/P19.jsonl")
        .endswith("/data/lama/original_rob/P19/dev.jsonl")
    )


def test_missing_file_offline_names_file_and_variable(monkeypatch, tmp_path):
    def offline(*a, **k):
        raise urllib.error.URLError("no network")

    monkeypatch.setattr(droot.urllib.request, "urlopen", offline)
    with pytest.raises(droot.DataNotFoundError) as err:
        droot.data_file("bear/P19.jsonl", tmp_path)
    msg = str(err.value)
    assert "bear/P19.jsonl" in msg and "CALIB_DATA_DIR" in msg and str(tmp_path) in msg


class _Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_download_verifies_checksum(monkeypatch, tmp_path):
    real = (droot.data_root() / "bear" / "P30.jsonl").read_bytes()
    urls = []
    monkeypatch.setattr(
        droot.urllib.request, "urlopen", lambda url, timeout: urls.append(url) or _Response(real)
    )
    path = droot.data_file("bear/P30.jsonl", tmp_path)
    assert path.read_bytes() == real
    assert urls == [
        "https://raw.githubusercontent.com/lm-pub-quiz/BEAR/"
        "3818fdc029d335b603631255c135d2a87b0bd24d/BEAR/P30.jsonl"
    ]
    # a tampered download is refused and leaves nothing behind
    monkeypatch.setattr(
        droot.urllib.request, "urlopen", lambda url, timeout: _Response(real + b"x")
    )
    with pytest.raises(droot.DataIntegrityError, match="sha256"):
        droot.data_file("bear/P19.jsonl", tmp_path)
    assert not (tmp_path / "bear" / "P19.jsonl").exists()
    assert hashlib.sha256(real).hexdigest() == droot.checksums()["bear/P30.jsonl"]
