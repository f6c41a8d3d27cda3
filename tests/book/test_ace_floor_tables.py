"""Issue 18: every result table a chapter shows with an ACE also shows its noise floor. The check
reads the tables the built chapters recorded for their downloads (``_build/downloads/*/
manifest.json``), so it covers every chapter of a build; the quick book runs it on every chapter
(``tests/book/test_quick_book.py``), here it is checked on hand-made downloads."""

from __future__ import annotations

import pandas as pd

from calib.book import downloads
from calib.report.table_format import html_table, record_table
from calib.settings import EXPORT_ENV


def test_a_table_with_an_ace_but_no_floor_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv(EXPORT_ENV, str(tmp_path / "export"))
    html_table(pd.DataFrame({"model": ["a"], "ace": [0.2], "ace_floor": [0.1]}), name="good")
    html_table(pd.DataFrame({"model": ["a"], "ace": [0.2], "brier": [0.3]}), name="bad")
    html_table(pd.DataFrame({"model": ["a"], "ace (this build)": [0.2]}), name="beside")
    record_table(pd.DataFrame({"model": ["a"], "ace": [0.3]}), name="download-only")
    html_table(pd.DataFrame({"model": ["a"], "brier": [0.3]}), name="no-ace")
    downloads.collect(tmp_path / "export", "chap", tmp_path)
    assert [where for where, _ in downloads.ace_tables(tmp_path)] == [
        "chap/tables/good.csv",
        "chap/tables/bad.csv",
        "chap/tables/download-only.csv",
    ]
    found = downloads.floor_violations(tmp_path)
    assert found == [
        "chap/tables/bad.csv: an ace column without ['ace_floor']",
        "chap/tables/download-only.csv: an ace column without ['ace_floor']",
    ]


def test_a_build_without_downloads_has_nothing_to_check(tmp_path):
    assert downloads.ace_tables(tmp_path) == [] and downloads.floor_violations(tmp_path) == []


def test_a_floor_above_its_range_is_not_an_interval_violation(tmp_path, monkeypatch):
    """The floor is the mean of a skewed null (confidences near 0): it can lie above the 97.5%
    quantile of the draws, as in the quick book's LPAQA tables; that is no error."""
    import numpy as np

    from calib.confidence.noise_floor import floor_record

    conf = np.full(100, 0.0002)  # a correct draw in 2% of samples, each moving ACE by 0.01
    rec = floor_record(conf, value=0.0002, metric="ace")
    assert rec["ace_floor"] > rec["ace_floor_high"]  # the case the check must not call wrong
    monkeypatch.setenv(EXPORT_ENV, str(tmp_path / "export"))
    html_table(
        pd.DataFrame([{"model": "a", "ace": 0.0002, **rec}]),
        name="skewed",
        intervals={"ace_floor": ("ace_floor_low", "ace_floor_high")},  # as the pages show it
    )
    downloads.collect(tmp_path / "export", "chap", tmp_path)
    assert downloads.interval_violations(tmp_path) == []
    assert downloads.floor_range_violations(tmp_path) == []


def test_a_disordered_floor_range_and_a_wrong_within_are_named(tmp_path, monkeypatch):
    monkeypatch.setenv(EXPORT_ENV, str(tmp_path / "export"))
    html_table(
        pd.DataFrame(
            {
                "model": ["a", "b", "c"],
                "ace": [0.2, 0.05, 0.3],
                "ace_floor": [0.1, 0.1, 0.1],
                "ace_floor_low": [0.05, 0.2, 0.05],
                "ace_floor_high": [0.25, 0.1, 0.25],
                "ace_within_floor": [True, True, True],
            }
        ),
        name="t",
    )
    downloads.collect(tmp_path / "export", "chap", tmp_path)
    found = downloads.floor_range_violations(tmp_path)
    assert len(found) == 2, found
    assert found[0].startswith("chap/tables/t.csv row 1: ace_floor_low 0.2 > ace_floor_high")
    assert found[1].startswith("chap/tables/t.csv row 2: ace_within_floor is True but ace 0.3")
