"""Datasets: where they live (:mod:`calib.data.root`) and how they are read.

Probes (:mod:`calib.data.probe`: relations with closed answer spaces) are BEAR
(:mod:`calib.data.bear`) and LAMA T-REx with LPAQA's material (:mod:`calib.data.lama`); FACTOR
(:mod:`calib.data.factor`) holds multiple-choice completions. All draw seeded samples with
:mod:`calib.data.sampling`; templates are checked by :mod:`calib.data.templates`. The papers'
reported values (their printed tables and the numbers of their text, and the authors'
repository's stored values) are data too: :mod:`calib.data.reported` reads
``calib/data/reported/*.yaml``.
"""
