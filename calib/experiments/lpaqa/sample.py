"""The LPAQA chapter's data (Jiang et al. 2020, §5): a seeded sample of LAMA T-REx relations,
training pairs and test facts, the relations left out, and the relation table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from calib.data.lama import MANUAL, Lama, load_lama


@dataclass(frozen=True)
class Sample:
    """``sample``: the sampled LAMA (``instances`` = test facts, ``train`` = training pairs);
    ``full``: the same relations before sampling (all their training pairs and test facts, for
    the majority baselines);
    ``dropped``: relations drawn but left out, with the reason."""

    sample: Lama
    full: Lama
    dropped: tuple[str, ...] = ()


def load_sample(
    relations: Sequence[str] | None = None,
    n_relations: int | None = None,
    train_per_relation: int | None = None,
    test_per_relation: int | None = None,
    seed: int = 0,
    answer_space: str = "test",
    root=None,
) -> Sample:
    """A seeded LAMA T-REx sample (LPAQA §5 data, made small): the given ``relations`` or, when
    ``None``, ``n_relations`` drawn with ``seed`` (``None``: all 41); ``train_per_relation``
    training pairs and ``test_per_relation`` test facts each (:meth:`~calib.data.lama.Lama.sample`).

    ``answer_space="test"`` keeps each relation's answer space to the objects of its test facts
    (cheaper to score; see :func:`calib.data.lama.load_lama`). Drawn relations without a
    training pair in that answer space are left out (``Sample.dropped``); named ones raise."""
    lama = load_lama(
        root, relations=list(relations) if relations else None, answer_space=answer_space
    )
    if relations is None and n_relations is not None:
        lama = lama.sample(None, seed, n_relations=n_relations)
    dropped = tuple(sorted(r for r in lama.relations if not (lama.train["relation"] == r).any()))
    if dropped:
        if relations is not None:
            raise ValueError(
                f"LAMA relation(s) {list(dropped)} have no training pair in the "
                f"{answer_space!r} answer space (nothing to rank prompts on); "
                f"choose other relations"
            )
        lama = lama.select([r for r in lama.relations if r not in dropped])
    sample = lama.sample(test_per_relation, seed, train_per_relation=train_per_relation)
    return Sample(
        sample=sample, full=lama, dropped=tuple(f"{r} (no training pair)" for r in dropped)
    )


def without_unmined(sample: Sample, mined: pd.DataFrame, named: bool) -> Sample:
    """``sample`` without the relations whose corpus yields no middle-word or no
    dependency-based prompt (their Mine, Mid or Dep set would be empty); for ``named``
    relations that is a ``ValueError`` naming them."""
    lacking = sorted(
        r
        for r in sample.sample.relations
        if not ((mined["relation"] == r) & (mined["n_middle"] > 0)).any()
        or not ((mined["relation"] == r) & (mined["n_dependency"] > 0)).any()
    )
    if not lacking:
        return sample
    if named:
        raise ValueError(
            f"LAMA relation(s) {lacking}: the mining corpus yields no middle-word "
            f"or no dependency-based prompt (raise max_sentences or choose other "
            f"relations)"
        )
    keep = [r for r in sample.sample.relations if r not in lacking]
    return Sample(
        sample.sample.select(keep),
        sample.full.select(keep),
        sample.dropped + tuple(f"{r} (no mined prompt of one method)" for r in lacking),
    )


def relation_table(sample: Sample) -> pd.DataFrame:
    """One row per sampled relation: its label and type, manual prompt, answer-space size, and
    the numbers of training pairs and test facts sampled (and available)."""
    lama, full = sample.sample, sample.full
    info = lama.info.set_index("relation")
    rows = []
    for rid, rel in lama.relations.items():
        rows.append(
            (
                rid,
                info.loc[rid, "label"],
                info.loc[rid, "type"],
                rel.templates[MANUAL],
                rel.n_options,
                int((lama.train["relation"] == rid).sum()),
                int((full.train["relation"] == rid).sum()),
                int((lama.instances["relation"] == rid).sum()),
                int((full.instances["relation"] == rid).sum()),
            )
        )
    return pd.DataFrame(
        rows,
        columns=[
            "relation",
            "label",
            "type",
            "manual prompt",
            "options",
            "train",
            "train (all)",
            "test",
            "test (all)",
        ],
    )
