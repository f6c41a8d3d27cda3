"""calib.prompts.reuse: a value made from a table once per table object inside a block."""

from __future__ import annotations

import pandas as pd

from calib.prompts.reuse import Reuse


def counting(reuse: Reuse):
    made: list[int] = []

    def get(table, what="x"):
        return reuse.once(table, what, lambda: made.append(id(table)) or len(made))

    return get


def test_outside_a_block_every_call_makes_the_value():
    reuse = Reuse()
    get = counting(reuse)
    t = pd.DataFrame({"a": [1]})
    assert [get(t), get(t)] == [1, 2]
    assert reuse.store is None


def test_inside_a_block_once_per_table_object_and_kind_then_forgotten():
    reuse = Reuse()
    get = counting(reuse)
    t, copy = pd.DataFrame({"a": [1]}), pd.DataFrame({"a": [1]})
    with reuse.block():
        assert get(t) == get(t) == 1
        assert get(copy) == 2  # an equal table, another object
        assert get(t, "y") == 3  # another kind of value of the same table
    assert reuse.store is None
    assert get(t) == 4


def test_a_block_of_given_tables_keeps_only_theirs():
    reuse = Reuse()
    get = counting(reuse)
    kept, temporary = pd.DataFrame({"a": [1]}), pd.DataFrame({"a": [2]})
    with reuse.block(kept):
        assert get(kept) == get(kept) == 1
        assert get(temporary) == 2 and get(temporary) == 3  # not held
        assert all(key[1] == id(kept) for key in reuse.store)


def test_a_nested_block_adds_its_tables_and_drops_their_values_when_it_ends():
    reuse = Reuse()
    get = counting(reuse)
    outer, inner = pd.DataFrame({"a": [1]}), pd.DataFrame({"a": [2]})
    with reuse.block(outer):
        assert get(outer) == 1
        with reuse.block(outer, inner):
            assert get(inner) == get(inner) == 2
            assert get(outer) == 1  # the outer block's value
        assert {key[1] for key in reuse.store} == {id(outer)}  # the inner table is let go
        assert get(inner) == 3  # not kept any more
        assert get(outer) == 1
    assert reuse.store is None and reuse.kept is None
