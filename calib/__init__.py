"""calib: an executable companion to two papers on probing what language models know.

* Kissling, Merdjanovska, Akbik (2026), *Self-Aware Knowledge Probing* (arXiv:2601.18901):
  calibration of a model's confidence on the BEAR probe.
* Jiang, Xu, Araki, Neubig (2020), *How Can We Know What Language Models Know?* (LPAQA):
  mined and paraphrased prompts, selected and ensembled.

The flow runs left to right, and no module imports from a stage to its right::

    calib.data, calib.models -> calib.scoring -> calib.confidence -> calib.prompts
        -> calib.experiments -> calib.report -> calib.book (notebooks/ -> the book)

* :mod:`calib.data` - the probes' files (BEAR, LAMA and LPAQA, FACTOR), read and checked;
  :mod:`calib.models` - the model registry and loading.
* :mod:`calib.scoring` - statements scored by a model, through the score cache.
* :mod:`calib.confidence` - reductions, the estimators (Kissling et al. Eqs. 1-7), metrics and
  bootstrap intervals.
* :mod:`calib.prompts` - LPAQA's prompts (mined, paraphrased, de-duplicated), their ensembles
  and accuracy.
* :mod:`calib.experiments` - one module per chapter, from scores to result frames: numbers
  only (the LPAQA chapter's whole pipeline is :func:`calib.experiments.lpaqa.run_lpaqa`).
* :mod:`calib.report` - presentation: HTML tables, charts and their offline rendering, the
  sentences the chapters print, and the papers' reported values.
* :mod:`calib.book` - runs the chapters (``notebooks/*.md``) under a profile and builds the book.

:mod:`calib.settings` (folders, environment) is used by every stage. One import runs against
the flow: :mod:`calib.experiments.paper_tables` reads the papers' reported values from
:mod:`calib.data.reported`.
"""

__version__ = "0.1.0"
