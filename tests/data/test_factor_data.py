"""The FACTOR loader: the pinned files, skips and errors for bad items, sampling."""

from __future__ import annotations

import csv

import pytest

from calib.data.errors import DataFormatError
from calib.data.factor import COMPLETION_COLUMNS, load_factor
from calib.data.root import DataNotFoundError

HEADER = ["", "full_prefix", "doc_id", *COMPLETION_COLUMNS, "turncated_prefixes"]


def write_factor(root, subset, rows):
    """A FACTOR csv under ``root/factor``; ``rows`` are (prefix, c, c0, c1, c2)."""
    folder = root / "factor"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{subset}_factor.csv", "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(HEADER)
        for i, (prefix, *comps) in enumerate(rows):
            out.writerow([i, prefix, i % 2, *comps, prefix])
    return folder / f"{subset}_factor.csv"


@pytest.fixture(scope="module")
def factor():
    return load_factor()


def test_the_pinned_subsets_load_whole(factor):
    counts = factor.skip_counts().set_index("subset")
    assert counts.loc["news", "in_file"] == 1036 and counts.loc["expert", "in_file"] == 236
    assert counts["invalid"].sum() == 0 and len(factor.skipped) == 0
    assert len(factor) == 1272
    assert not factor.items.duplicated(["subset", "item"]).any()
    assert factor.items["completions"].map(len).eq(4).all()
    first = factor.items.groupby("subset")["line"].min()
    assert (first == 2).all()


def test_items_keep_the_true_completion_first_without_leading_spaces(tmp_path):
    write_factor(tmp_path, "news", [("A prefix. ", "  True one.", " False one.", "x.", "y.")])
    f = load_factor("news", tmp_path)
    assert f.items.loc[0, "completions"] == ("True one.", "False one.", "x.", "y.")
    assert f.items.loc[0, "prefix"] == "A prefix. "


def test_bad_items_are_skipped_with_file_line_and_field(tmp_path):
    rows = [
        ("Line one\nline two ", "a", "b", "c", "d"),  # two prefix columns: lines 2-4
        ("P ", "a", "", "c", "d"),  # line 5: empty contradiction_0
        ("P ", "same", "b", " same", "d"),  # line 6: duplicate (after stripping)
        ("   ", "a", "b", "c", "d"),  # line 7: empty prefix
        ("P ", "a", "b", "c", "d"),
    ]  # line 8: fine
    write_factor(tmp_path, "expert", rows)
    f = load_factor("expert", tmp_path)
    assert f.items["line"].tolist() == [2, 8]
    assert f.items["item"].tolist() == ["0", "4"]
    skipped = f.skipped.set_index("line")
    assert skipped.loc[5, "field"] == "contradiction_0" and "empty" in skipped.loc[5, "reason"]
    assert skipped.loc[6, "field"] == "contradiction_1" and "repeats" in skipped.loc[6, "reason"]
    assert skipped.loc[7, "field"] == "turncated_prefixes"
    assert (f.skipped["file"] == "factor/expert_factor.csv").all()
    counts = f.skip_counts().iloc[0]
    assert (counts["in_file"], counts["invalid"], counts["eligible"]) == (5, 3, 2)


def test_bad_items_can_be_an_error_naming_file_line_and_field(tmp_path):
    path = write_factor(tmp_path, "news", [("P ", "a", "b", "c", "d"), ("P ", "a", "b", "a", "d")])
    with pytest.raises(DataFormatError) as err:
        load_factor("news", tmp_path, on_invalid="error")
    assert err.value.line == 3 and err.value.field == "contradiction_1"
    assert str(path) in str(err.value)


def test_a_missing_column_is_an_error(tmp_path):
    folder = tmp_path / "factor"
    folder.mkdir()
    (folder / "news_factor.csv").write_text("full_prefix,completion\nP,a\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="missing column"):
        load_factor("news", tmp_path, prefix_column="full_prefix")


def test_wiki_is_download_only(tmp_path):
    with pytest.raises(DataNotFoundError, match="download-only"):
        load_factor(["news", "wiki"], tmp_path)  # before trying to fetch news
    write_factor(tmp_path, "wiki", [("P ", "a", "b", "c", "d")])
    assert len(load_factor("wiki", tmp_path)) == 1  # a local copy is used


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"subsets": ["lama"]}, "unknown FACTOR subset"),
        ({"subsets": []}, "no FACTOR subset"),
        ({"prefix_column": "context"}, "prefix_column"),
        ({"on_invalid": "drop"}, "on_invalid"),
    ],
)
def test_bad_arguments_are_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        load_factor(**kwargs)


def test_samples_are_seeded_nested_and_per_subset(factor):
    a, b = factor.sample(5, seed=1), factor.sample(5, seed=1)
    assert a.items[["subset", "item"]].equals(b.items[["subset", "item"]])
    assert a.items.groupby("subset").size().to_dict() == {"news": 5, "expert": 5}
    big = factor.sample(20, seed=1)
    small_keys = set(zip(a.items["subset"], a.items["item"]))
    assert small_keys <= set(zip(big.items["subset"], big.items["item"]))
    other = factor.sample(5, seed=2)
    assert set(zip(other.items["subset"], other.items["item"])) != small_keys
    assert factor.sample(None) is factor
    assert a.skip_counts().set_index("subset").loc["news", "eligible"] == 1036
    with pytest.raises(ValueError):
        factor.sample(0)


def test_items_with_long_completions_can_be_left_out(factor):
    short = factor.shorter_than(25)
    assert short.items["completions"].map(lambda cs: max(len(c.split()) for c in cs)).max() <= 25
    assert len(short) + (short.skipped["field"] == "completions").sum() == len(factor)
    assert short.skip_counts()["too_long"].sum() == len(factor) - len(short)
    with pytest.raises(ValueError, match="before sample"):
        factor.sample(3).shorter_than(25)
