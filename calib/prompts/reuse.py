"""Work derived from a table, made once per table object inside a block.

LPAQA computes ten or more things from each prompt set's sentence-score table (ensembles,
rankings, the oracle, one ensemble per other model's weights: §4, §5.3), and takes several
prompt sets' rows out of each model's table; each of them would otherwise split or number the
same table anew. A :class:`Reuse` keeps what it made from a table by the table's identity while
its block is open (the table must not change inside), and forgets it when the block ends: a
block is as wide as the memory it may hold.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from typing import Any


class Reuse:
    """A store of values made from tables, open inside :meth:`block` (nested blocks share the
    outermost one's store); outside any block :meth:`once` makes the value every time."""

    def __init__(self) -> None:
        #: per (what, id of the table): the table (so that the id is not reused while it
        #: lives) and the value; None outside a block
        self.store: dict[tuple[Hashable, int], tuple[Any, Any]] | None = None
        #: the ids of the tables whose values are kept (None: every table's)
        self.kept: set[int] | None = None

    @contextmanager
    def block(self, *tables: Any) -> Iterator[None]:
        """Inside, :meth:`once` makes each value once per table object: of every table, or
        where ``tables`` are given only of those (the others' values, such as those of a
        temporary subset, are made every time and not held)."""
        outer, outer_kept = self.store, self.kept
        added: set[int] = set()
        if outer is None:
            self.store = {}
            self.kept = {id(t) for t in tables} if tables else None
        elif tables and outer_kept is not None:
            added = {id(t) for t in tables} - outer_kept
            self.kept = outer_kept | added
        try:
            yield
        finally:
            if outer is not None:  # what this block's own tables made goes with it
                for key in [k for k in outer if k[1] in added]:
                    del outer[key]
            self.store, self.kept = outer, outer_kept

    def once(self, table: Any, what: Hashable, make: Callable[[], Any]) -> Any:
        """``make()``, made once per ``table`` object and ``what`` inside a block."""
        if self.store is None or (self.kept is not None and id(table) not in self.kept):
            return make()
        key = (what, id(table))
        seen = self.store.get(key)
        if seen is not None and seen[0] is table:
            return seen[1]
        value = make()
        self.store[key] = (table, value)
        return value
