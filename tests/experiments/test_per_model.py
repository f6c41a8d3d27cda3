"""calib.experiments.per_model: each model's rows to a function, in order, on one process or a
pool."""

from __future__ import annotations

import pandas as pd
import pytest

from calib.experiments import per_model


def _summary(part: pd.DataFrame) -> tuple:
    return part["model"].iloc[0], len(part), float(part["x"].sum()), part.index.tolist()


def table() -> pd.DataFrame:
    return pd.DataFrame({"model": list("babcab"), "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]})


def test_each_model_in_first_seen_order_with_its_rows_in_order():
    got = per_model.map_models(_summary, table(), workers=1)
    assert got == [("b", 3, 10.0, [0, 1, 2]), ("a", 2, 7.0, [0, 1]), ("c", 1, 4.0, [0])]


def test_worker_count(monkeypatch):
    monkeypatch.delenv(per_model.WORKERS_ENV, raising=False)
    assert per_model.worker_count(3, 10) == 1  # a small table stays in this process
    assert per_model.worker_count(3, 10, workers=8) == 3  # at most one per model
    big = per_model.MIN_ROWS_FOR_POOL
    assert 1 <= per_model.worker_count(64, big) <= 64
    monkeypatch.setenv(per_model.WORKERS_ENV, "2")
    assert per_model.worker_count(5, 10) == 2
    monkeypatch.setenv(per_model.WORKERS_ENV, "two")
    with pytest.raises(ValueError, match="CALIB_WORKERS"):
        per_model.worker_count(5, 10)
    with pytest.raises(ValueError, match="at least 1"):
        per_model.worker_count(5, 10, workers=0)


def test_model_part_is_the_rows_taken_whether_one_run_or_not():
    """A model's part is its rows (indexed from 0): a slice where they are one run, a copy
    where they are interleaved with other models'; the same frame either way."""
    from calib.experiments.per_model import model_part, model_rows

    frame = pd.DataFrame({"model": list("aabbbc"), "x": range(6)})
    mixed = frame.iloc[[0, 2, 1, 3, 4, 5]].reset_index(drop=True)  # a's rows: 0 and 2
    for table in (frame, mixed):
        for positions in model_rows(table).values():
            pd.testing.assert_frame_equal(
                model_part(table, positions), table.take(positions).reset_index(drop=True)
            )
    assert model_part(frame, model_rows(frame)["b"])["x"].tolist() == [2, 3, 4]


def _pair(part: pd.DataFrame, other: pd.DataFrame) -> tuple:
    return (part["model"].iloc[0] if len(part) else None, len(part), other["y"].tolist())


def test_several_tables_give_each_model_its_rows_of_every_table():
    other = pd.DataFrame({"model": list("acad"), "y": [10, 20, 30, 40]})
    got = per_model.map_models(_pair, [table(), other], workers=1)
    # the models of the first table first seen first, then the others'; none: no rows
    assert got == [("b", 3, []), ("a", 2, [10, 30]), ("c", 1, [20]), (None, 0, [40])]
    pooled = per_model.map_models(_pair, [table(), other], workers=2)
    assert pooled == got


def test_frames_put_in_the_order_of_an_unsorted_and_a_sorted_groupby():
    source = pd.DataFrame({"model": list("bbaab"), "dataset": list("xyxyz")})
    frame = pd.DataFrame({"model": list("aabbb"), "dataset": list("xyxyz"), "v": range(5)})
    want = source.groupby(["model", "dataset"], sort=False).size().index.tolist()
    got = per_model.in_first_seen_order(frame, source, ["model", "dataset"])
    assert list(zip(got["model"], got["dataset"])) == want
    assert got["v"].tolist() == [2, 3, 0, 1, 4]
    assert per_model.by_sorted(frame.iloc[::-1])["model"].tolist() == list("aabbb")
    with pytest.raises(ValueError, match="source does not have"):
        per_model.in_first_seen_order(frame, source.iloc[:2], ["model", "dataset"])
