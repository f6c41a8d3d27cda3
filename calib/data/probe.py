"""A probe: relations, each with named templates and a closed answer space, and one row per
instance (a subject and the index ``answer_idx`` of its object in the relation's answer space).
:class:`~calib.data.bear.Bear` and :class:`~calib.data.lama.Lama` are probes; every instance is
scored against its relation's whole answer space."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import ClassVar

import pandas as pd

from calib.data.sampling import sample_groups


@dataclass(frozen=True)
class Relation:
    """One relation of a probe: its templates (by name), answer space and knowledge domains."""

    id: str
    templates: dict[str, str]
    answer_labels: tuple[str, ...]
    answer_ids: tuple[str, ...]
    domains: tuple[str, ...] = ()
    version: str = ""  # sha256 of this relation's metadata and instance file

    @property
    def n_options(self) -> int:
        return len(self.answer_labels)


@dataclass(frozen=True)
class Probe:
    """Relations by id (:class:`Relation`) and one row per instance in ``instances`` (at least
    the columns ``relation, instance, sub_label, answer_idx``)."""

    relations: dict[str, Relation]
    instances: pd.DataFrame = field(repr=False)
    #: the ``dataset`` value of this probe's rows in a score table
    dataset: ClassVar[str] = ""
    #: the probe's name in messages
    name: ClassVar[str] = "probe"

    @property
    def version(self) -> str:
        """A digest of every relation's version: changes when any data file changes."""
        joined = "".join(f"{r}:{self.relations[r].version};" for r in sorted(self.relations))
        return hashlib.sha256(joined.encode()).hexdigest()[:16]

    def sample(self, per_relation: int | None, seed: int = 0):
        """A seeded sample of ``per_relation`` instances from every relation (all if fewer).

        Each relation is shuffled by its own generator (seeded by ``seed`` and the relation id,
        :mod:`calib.data.sampling`) and the first ``per_relation`` are kept, so a larger sample
        contains a smaller one with the same seed. ``None`` keeps everything.
        """
        if per_relation is None:
            return self
        if per_relation < 1:
            raise ValueError(f"per_relation must be at least 1, got {per_relation}")
        return replace(
            self, instances=sample_groups(self.instances, "relation", per_relation, seed)
        )

    def select(self, relations: list[str] | None):
        """Only the given relations (``None``: all)."""
        if relations is None:
            return self
        missing = sorted(set(relations) - set(self.relations))
        if missing:
            raise ValueError(f"unknown {self.name} relation(s) {missing}")
        keep = {r: self.relations[r] for r in relations}
        inst = self.instances[self.instances["relation"].isin(relations)].reset_index(drop=True)
        return replace(self, relations=keep, instances=inst)

    def __len__(self) -> int:
        return len(self.instances)
