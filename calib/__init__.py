"""calib: an executable companion to two papers on probing what language models know.

* Kissling, Merdjanovska, Akbik (2026), *Self-Aware Knowledge Probing* (arXiv:2601.18901):
  calibration of a model's confidence on the BEAR probe.
* Jiang, Xu, Araki, Neubig (2020), *How Can We Know What Language Models Know?* (LPAQA):
  mined and paraphrased prompts, selected and ensembled.

The flow runs left to right, and no module imports from a stage to its right::

    calib.data, calib.models -> calib.scoring -> calib.confidence -> calib.prompts
        -> calib.experiments -> calib.report -> calib.book (notebooks/ -> the book)

* :mod:`calib.data` - the probes' files (BEAR, LAMA and LPAQA, FACTOR), read and checked, and
  the papers' reported values (:mod:`calib.data.reported`, ``calib/data/reported/*.yaml``);
  :mod:`calib.models` - the model registry and loading.
* :mod:`calib.scoring` - statements scored by a model, through the score cache.
* :mod:`calib.confidence` - reductions, the estimators (Kissling et al. Eqs. 1-7), metrics and
  bootstrap intervals.
* :mod:`calib.prompts` - LPAQA's prompts (mined, paraphrased, de-duplicated), their ensembles
  and accuracy.
* :mod:`calib.experiments` - one module per chapter. A chapter *unit*
  (:mod:`calib.experiments.reductions` is the worked example) holds ``Params`` (a frozen
  dataclass, the only home of the chapter's defaults), ``run(params)`` returning a typed
  result with every frame and number the page shows, and ``CLAIMS``, the paper's claims it
  tests (:class:`calib.experiments.claims.Claim`: the paper's words, the claim as stated, a
  rule, the paper's own evidence and this build's). Verdicts are one type,
  :class:`calib.experiments.verdicts.Verdict`; the rules are quantifiers over 95% intervals
  (:mod:`calib.experiments.quantifiers`).
* :mod:`calib.report` - presentation: HTML tables, charts and their offline rendering, the
  sentences the chapters print.
* :mod:`calib.book` - runs the chapters (``notebooks/*.md``) under a profile and builds the book.

A chapter's life: the book's runner (:func:`calib.book.run_chapter`) checks the parameters
against ``Params`` (the notebook's ``parameters`` cell equals it), executes the notebook, which
calls ``run`` once, records the result (:func:`calib.experiments.records.record`) and displays
it; the runner installs the record beside the executed notebook
(``_build/chapters/<chapter>.result/``) only when the notebook succeeded. The ledger
(:mod:`calib.experiments.ledger`) reads those records, never re-running a chapter, and applies
each claim's rule to the paper's printed tables and to this build's numbers.

:mod:`calib.settings` (folders, environment) is used by every stage. How to add a chapter, an
estimator or a claim: ``CONTRIBUTING.md``.
"""

__version__ = "0.1.0"
