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
        "chap/tables/good.csv", "chap/tables/bad.csv", "chap/tables/download-only.csv"]
    found = downloads.floor_violations(tmp_path)
    assert found == ["chap/tables/bad.csv: an ace column without ['ace_floor']",
                     "chap/tables/download-only.csv: an ace column without ['ace_floor']"]


def test_a_build_without_downloads_has_nothing_to_check(tmp_path):
    assert downloads.ace_tables(tmp_path) == [] and downloads.floor_violations(tmp_path) == []
