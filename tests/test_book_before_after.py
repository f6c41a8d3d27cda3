"""``benchmarks/book_before_after.py`` on two hand-made build folders: equal tables read
``unchanged``, a changed interval bound and a changed point estimate are each named with their
column, kind and difference, and rows are matched by their text columns, not their order."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from module_from_file import module_from_file

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "book_before_after.py"

HEADER = "model,estimator,n,ace,ace_low,ace_high,p_value\n"
ROWS = [
    "m1,Base,60,0.3947,0.3169,0.4733,0.01\n",
    "m1,Margin,60,0.3000,0.2170,0.3890,0.02\n",
    "m2,Base,60,0.2500,0.1800,0.3300,0.5\n",
]


@pytest.fixture(scope="module")
def script():
    try:
        yield module_from_file(SCRIPT, "_book_before_after")
    finally:
        sys.modules.pop("_book_before_after", None)


def _build(root: Path, table: str, equal: str = "a,b,c\nx,1.5,p 1\n") -> Path:
    tables = root / "downloads" / "chap" / "tables"
    tables.mkdir(parents=True)
    (tables / "metrics.csv").write_text(table)
    (tables / "same.csv").write_text(equal)
    manifest = {
        "tables": [
            {"file": "tables/metrics.csv", "intervals": {"ace": ["ace_low", "ace_high"]}},
            {"file": "tables/same.csv", "intervals": {}},
        ]
    }
    (root / "downloads" / "chap" / "manifest.json").write_text(json.dumps(manifest))
    return root


def _section(text: str, name: str) -> str:
    return text.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]


def test_equal_builds_read_unchanged(script, tmp_path):
    before = _build(tmp_path / "before", HEADER + "".join(ROWS))
    # the same rows in another order, and a difference below the tolerance
    after = _build(
        tmp_path / "after", HEADER + "".join(reversed(ROWS)).replace("0.3947", "0.39470000000001")
    )
    out = tmp_path / "report.md"
    assert script.main([str(before), str(after), "--out", str(out)]) == 0
    text = out.read_text()
    assert "2 of 2 tables unchanged" in text
    assert "unchanged (3 rows" in _section(text, "chap/tables/metrics.csv")
    assert "unchanged (1 rows" in _section(text, "chap/tables/same.csv")
    assert "no numeric value other than an interval bound changed" in text


def test_changed_interval_and_point_estimate_are_named(script, tmp_path):
    before = _build(tmp_path / "before", HEADER + "".join(ROWS))
    changed = [
        ROWS[0].replace("0.3169", "0.3120"),  # an interval bound, -0.0049
        ROWS[1].replace("0.3000", "0.3100").replace("0.3890", "0.3891"),  # a value, +0.01
        ROWS[2],
    ]
    after = _build(tmp_path / "after", HEADER + "".join(changed))
    out = tmp_path / "report.md"
    assert script.main([str(before), str(after), "--out", str(out)]) == 0
    text = out.read_text()
    section = _section(text, "chap/tables/metrics.csv")
    rows = {line.split("|")[1].strip(): line for line in section.splitlines() if "| `" in line}
    assert set(rows) == {"`ace`", "`ace_low`", "`ace_high`"}
    assert "interval bound" in rows["`ace_low`"] and "0.0049" in rows["`ace_low`"]
    assert "model=m1, estimator=Base" in rows["`ace_low`"]
    assert "0.3169 -> 0.3120" in rows["`ace_low`"]
    assert "| value |" in rows["`ace`"] and "| 0.01 |" in rows["`ace`"]
    assert "0.0001" in rows["`ace_high`"]
    # the summary names the changed point estimate apart from the interval bounds
    summary = text.split("### Summary", 1)[1].split("\n### ", 1)[0]
    assert "**values that are not interval bounds changed**" in summary
    assert "`chap/tables/metrics.csv` `ace`: 1 cells" in summary
    assert "interval bounds changed: 2 cells in 2 columns of 1 tables" in summary
    assert "unchanged (1 rows" in _section(text, "chap/tables/same.csv")


def test_result_frames_are_compared_too(script, tmp_path):
    import pandas as pd

    frames = {}
    for side, p in (("before", 0.2617), ("after", 0.2627)):
        root = _build(tmp_path / side, HEADER + "".join(ROWS))
        result = root / "chapters" / "chap.result"
        result.mkdir(parents=True)
        frame = pd.DataFrame({"model": ["m1", "m2"], "floor_p": [p, 0.5], "gap_low": [0.1, 0.2]})
        frame.to_parquet(result / "table.parquet")
        (result / "values.json").write_text(json.dumps({"n_facts": 60, "names": ["a", "b"]}))
        frames[side] = root
    out = tmp_path / "report.md"
    assert script.main([str(frames["before"]), str(frames["after"]), "--out", str(out)]) == 0
    text = out.read_text()
    results = text.split("## Chapter results", 1)[1]
    assert "`chap.result/table.parquet` `floor_p`: 1 cells, largest |difference| 0.001" in results
    assert "unchanged (2 rows" in _section(results, "chap.result/values.json")
    assert "2 of 2 tables unchanged" in text.split("## Chapter results", 1)[0]


def test_text_cells_rows_and_tables_on_one_side(script, tmp_path):
    before = _build(tmp_path / "before", HEADER + "".join(ROWS))
    after = _build(
        tmp_path / "after",
        HEADER + ROWS[0] + ROWS[1] + "m3,Base,60,0.2,0.1,0.3,0.5\n",
        equal="a,b,c\nx,1.5,p 2\n",
    )
    (after / "downloads" / "chap" / "tables" / "new.csv").write_text("a\n1\n")
    out = tmp_path / "report.md"
    assert script.main([str(before), str(after), "--out", str(out)]) == 0
    text = out.read_text()
    assert "only in the after build" in _section(text, "chap/tables/new.csv")
    metrics = _section(text, "chap/tables/metrics.csv")
    assert "rows matched by `model`, `estimator`" in metrics
    assert "1 rows only before:\n  - m2, Base" in metrics
    assert "1 rows only after:\n  - m3, Base" in metrics
    same = _section(text, "chap/tables/same.csv")
    assert "| `c` | value | 1 | text (1 with other numbers) |" in same
    assert "p 1 -> p 2" in same and "- row 0 (a=x, c=p 1): 1 -> 2" in same


def test_not_a_build_is_a_clear_error(script, tmp_path, capsys):
    assert script.main([str(tmp_path / "nothing"), str(tmp_path), "--out", "x.md"]) == 2
    assert "no downloads/ folder" in capsys.readouterr().err
