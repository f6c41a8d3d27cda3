"""Data that is missing or changed (issue 39, case 4), on a copy of BEAR: a relation file that
is gone is named as missing (not skipped, not "unknown"); a file whose sha256 no longer matches
``calib/data/SHA256SUMS`` is warned about once, with its path, and listed in the provenance."""

from __future__ import annotations

import logging
import shutil
import urllib.error

import pytest

import calib.data.root as data_root_module
from calib.data.bear import load_bear
from calib.data.root import DataNotFoundError, data_root, data_version


@pytest.fixture
def bear_copy(tmp_path, monkeypatch):
    """A data root holding a copy of BEAR as pinned; the network is off (a missing file
    cannot be downloaded)."""

    def offline(src, relpath, dest):
        raise urllib.error.URLError("no network in the tests")

    monkeypatch.setattr(data_root_module, "_download", offline)
    root = tmp_path / "data"
    shutil.copytree(data_root() / "bear", root / "bear")
    return root


def test_a_deleted_relation_file_is_named_as_missing(bear_copy):
    (bear_copy / "bear" / "P36.jsonl").unlink()
    with pytest.raises(DataNotFoundError) as info:
        load_bear(bear_copy)
    assert str(info.value).startswith(
        f"data file 'bear/P36.jsonl' is missing under the data root '{bear_copy}' and downloading "
    )


def test_calib_score_names_the_missing_file_of_a_relation(bear_copy, capsys, tmp_path, no_model):
    from calib.cli import main

    (bear_copy / "bear" / "P36.jsonl").unlink()
    where = ["--data-dir", str(bear_copy), "--cache-dir", str(tmp_path / "cache")]
    code = main(
        ["score", "--model", "tiny-gpt2", "--relations", "P36", "--per-relation", "1", *where]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2 and "\n" not in err, err
    assert err.startswith("calib score: data file 'bear/P36.jsonl' is missing under"), err


def test_a_changed_file_is_warned_about_once_and_in_the_provenance(bear_copy, caplog):
    from calib.book.provenance import provenance_lines

    path = bear_copy / "bear" / "P30.jsonl"
    path.write_text(path.read_text() + "\n")  # a blank line more: same instances, new bytes
    with caplog.at_level(logging.WARNING, logger="calib.data.root"):
        load_bear(bear_copy, relations=["P30", "P36"])
        load_bear(bear_copy, relations=["P30"])
    warned = [r.getMessage() for r in caplog.records if r.name == "calib.data.root"]
    assert len(warned) == 1, warned
    assert warned[0].startswith(f"data file {path} differs from the file pinned for bear/P30")
    data = data_version(bear_copy)
    assert data["mismatched"] == ["bear/P30.jsonl"]
    assert f"1 of {data['files']} files differ from it (e.g. `bear/P30.jsonl`)" in "\n".join(
        provenance_lines({"data": data})
    )
