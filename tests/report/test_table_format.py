"""HTML tables: rounding, intervals, the "Reported in the paper" label
(calib.report.table_format)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from calib.report import table_format
from calib.report.table_format import (
    REPORTED_LABEL,
    format_interval,
    format_number,
    html_table,
    reported_table,
    with_intervals,
)


@pytest.mark.parametrize(
    "value, digits, text",
    [
        (0.12345, 3, "0.123"),
        (0.1235, 2, "0.12"),
        (2, 3, "2"),
        (np.int64(7), 3, "7"),
        (np.float32(0.5), 1, "0.5"),
        (float("nan"), 3, "–"),
        (None, 3, "–"),
        (pd.NA, 3, "–"),
        (-0.0001, 3, "0.000"),
        (0.125, None, "0.125"),
        (math.inf, 3, "∞"),
        ("text", 3, "text"),
        (True, 3, "True"),
    ],
)
def test_format_number(value, digits, text):
    assert format_number(value, digits) == text


def test_format_interval():
    assert format_interval(0.1234, 0.101, 0.1404) == "0.123 [0.101, 0.140]"
    assert format_interval(0.5, float("nan"), 0.6) == "0.500"
    assert format_interval(float("nan"), 0.1, 0.2) == "–"
    assert format_interval(12.345, 11.0, 13.0, digits=1) == "12.3 [11.0, 13.0]"
    with pytest.raises(ValueError, match=r"lower bound 0.3 exceeds its upper bound 0.2"):
        format_interval(0.25, 0.3, 0.2)


def test_with_intervals_merges_and_drops_the_bounds():
    frame = pd.DataFrame(
        {"model": ["a"], "ACE": [0.2], "ACE_lo": [0.1], "ACE_hi": [0.3], "Brier": [0.25]}
    )
    out = with_intervals(frame, {"ACE": ("ACE_lo", "ACE_hi")})
    assert list(out.columns) == ["model", "ACE", "Brier"]
    assert out.loc[0, "ACE"] == "0.200 [0.100, 0.300]"
    assert frame.shape == (1, 5)  # input untouched
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['ACE_high'\]"):
        with_intervals(frame, {"ACE": ("ACE_lo", "ACE_high")})


def _cells(html: str, tag: str) -> list[str]:
    return re.findall(rf"<{tag}(?:\s[^>]*)?>(.*?)</{tag}>", html)


def test_html_table_is_a_real_escaped_table_with_numbers_right_aligned():
    frame = pd.DataFrame(
        {"model": ["<b>x</b>", "y"], "ACE": [0.12345, np.nan], "n": [10, 20], "ok": [True, False]}
    )
    table = html_table(frame, caption="ACE & co", digits={"ACE": 2}, note="a note")
    html = table._repr_html_()
    assert html == table.to_html() == str(table)
    assert '<table class="calib-table">' in html and "<caption>ACE &amp; co</caption>" in html
    assert _cells(html, "th") == ["model", "ACE", "n", "ok"]
    assert _cells(html, "td") == [
        "&lt;b&gt;x&lt;/b&gt;",
        "0.12",
        "10",
        "True",
        "y",
        "–",
        "20",
        "False",
    ]
    assert html.count('class="num"') == 2 + 4  # two numeric headers, four numeric cells
    assert '<p class="calib-table-note">a note</p>' in html


def test_html_table_with_intervals_and_index():
    frame = pd.DataFrame(
        {"acc": [0.5], "lo": [0.4], "hi": [0.6]}, index=pd.Index(["m"], name="model")
    )
    html = html_table(frame, intervals={"acc": ("lo", "hi")}, index=True).html
    assert _cells(html, "th") == ["model", "acc"]
    # the estimate and, on a line below it, its interval: one narrow cell
    assert _cells(html, "td") == ["m", '0.500<br><span class="calib-ci">[0.400, 0.600]</span>']


def test_html_table_shows_the_chosen_columns_and_records_them_all(tmp_path, monkeypatch):
    monkeypatch.setenv("CALIB_EXPORT_DIR", str(tmp_path))
    frame = pd.DataFrame(
        {"model": ["m"], "ace": [0.2], "lo": [0.1], "hi": [0.3], "extra": [7], "more": ["x"]}
    )
    html = html_table(
        frame, intervals={"ace": ("lo", "hi")}, shown=["model", "ace"], name="wide"
    ).html
    assert _cells(html, "th") == ["model", "ace"]
    recorded = pd.read_csv(tmp_path / "tables" / "wide.csv")
    assert list(recorded.columns) == list(frame.columns)  # the download keeps every column
    with pytest.raises(ValueError, match=r"shown names column\(s\) \['lo'\]"):
        html_table(frame, intervals={"ace": ("lo", "hi")}, shown=["lo"], record=False)


def test_reported_table_is_labelled_with_its_source_and_keeps_values_as_given():
    frame = pd.DataFrame({"model": ["gemma-3-270m"], "ace": [0.1234567]})
    frame.attrs.update(
        {
            "table": "Table 1",
            "caption": "ACE per model",
            "paper": {"citation": "Kissling et al. (2026)"},
        }
    )
    html = reported_table(frame).html
    assert (
        f'<p class="calib-table-label">{REPORTED_LABEL} (Table 1, Kissling et al. (2026))' in html
    )
    assert '<table class="calib-table calib-reported">' in html
    assert "<caption>ACE per model</caption>" in html
    assert "0.1234567" in html  # as printed, not rounded
    assert REPORTED_LABEL in reported_table(frame, source="p. 5").html


def test_computed_tables_carry_no_reported_label():
    html = html_table(pd.DataFrame({"a": [1]})).html
    assert REPORTED_LABEL not in html and "calib-reported" not in html
    assert table_format.TABLE_CLASS in html


def test_a_quoted_formula_is_plain_text_in_a_table():
    """A table cell renders no math: the papers' inline LaTeX becomes the book's names."""
    from calib.report.table_format import html_table, plain_math

    assert plain_math(r"that $C_{\text{Base}}$ is markedly") == "that C_Base is markedly"
    assert plain_math(r"highest $H$ scores") == "highest H scores"
    assert plain_math(r"an ACE $\leq 0.1$") == "an ACE ≤ 0.1"
    assert plain_math("between $5 and $6") == "between $5 and $6"  # not a formula
    assert plain_math("the full $[0,1]$ interval") == "the full [0,1] interval"
    assert plain_math("$Mean$ and Mean (A)") == "Mean and Mean (A)"
    table = html_table(
        pd.DataFrame({"quote": [r"for $C_{\text{Margin}}$ and $C_{\text{Average}}$"]}),
        caption=r"claims on $C_{\text{Base}}$",
    ).to_html()
    assert "for C_Margin and C_Average" in table and "claims on C_Base" in table
    assert "$" not in table and "\\text" not in table
