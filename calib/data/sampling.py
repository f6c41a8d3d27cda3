"""The seeded per-group sample behind every ``sample`` of the probes (BEAR's relations, LAMA's
relations, facts and training pairs, FACTOR's subsets) and LPAQA's mining corpus.

The rows of each group are shuffled by a generator of their own, seeded by ``seed`` and the
CRC-32 of the group's *label*, and the first ``n`` are kept, in their original order. So one
group's sample does not depend on the others, and a larger sample holds a smaller one with the
same seed.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd


def seeded_positions(size: int, n: int | None, seed: int, label: str) -> np.ndarray:
    """Sorted positions of ``n`` of ``size`` items (all if fewer; ``None``: all) drawn by the
    generator seeded by ``(seed, crc32(label))``."""
    rng = np.random.default_rng([seed, zlib.crc32(label.encode())])
    return np.sort(rng.permutation(size)[:n])


def sample_groups(
    frame: pd.DataFrame, by: str, n: int | None, seed: int, *, label: str = "{}", sort: bool = False
) -> pd.DataFrame:
    """At most ``n`` rows of every group of ``frame`` by column ``by`` (:func:`seeded_positions`,
    the group's label is ``label.format(value)``), the groups in order of appearance (or sorted,
    ``sort``), with a fresh index. ``frame`` itself when it has no rows."""
    parts = [
        grp.iloc[seeded_positions(len(grp), n, seed, label.format(key))]
        for key, grp in frame.groupby(by, sort=sort)
    ]
    return pd.concat(parts, ignore_index=True) if parts else frame
