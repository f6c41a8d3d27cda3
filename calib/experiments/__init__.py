"""Experiments: one package per chapter, from scores to the chapter's result, and the claims.

This stage sits between :mod:`calib.confidence` (estimators, metrics) and :mod:`calib.report`
(charts, tables, sentences). A chapter *unit* is one package named as its notebook
(``notebooks/reductions.md`` <-> :mod:`calib.experiments.reductions`) whose ``__init__.py``
holds ``Params`` (a frozen dataclass, :class:`~calib.experiments.params.ChapterParams`: the
only home of the chapter's defaults), ``analyse(scores, params) -> <Chapter>Result`` (every
frame and number the page shows, from given scores: no model, no score store),
``run(params)`` (score, then ``analyse``) and ``CLAIMS``; its steps are modules of the package,
and its ``claims`` module holds the claims (:class:`~calib.experiments.claims.Claim`: the
paper's claims the chapter tests, each with its rule and the paper's evidence). The shared
machinery:

======================================  ======================================================
:mod:`~calib.experiments.verdicts`      the one verdict type
                                        (:class:`~calib.experiments.verdicts.Verdict`), the
                                        :class:`~calib.experiments.verdicts.Judgement`, the
                                        wording of a tally
:mod:`~calib.experiments.quantifiers`   ``every``, ``most``, ``on_average``: rules over frames
                                        of units with 95% intervals
                                        (:class:`~calib.experiments.quantifiers.Evidence`)
:mod:`~calib.experiments.claims`        the :class:`~calib.experiments.claims.Claim`
                                        definition; each rule is applied to the paper's
                                        printed tables and to this build's result
:mod:`~calib.experiments.params`        ``ChapterParams``, ``parameter``: the chapters' Params
:mod:`~calib.experiments.records`       a result recorded beside the executed notebook
                                        (``record``, ``load_record``)
:mod:`~calib.experiments.ledger`        every claim of every chapter, judged on the paper's
                                        tables and on this build's records (never re-runs)
:mod:`~calib.experiments.paper_tables`  the papers' printed tables reshaped and checked
:mod:`~calib.experiments.scores`        the objectives and sample sizes of score tables
:mod:`~calib.experiments.per_model`     a chapter's per-model steps over processes (a local
                                        pool or Ray; ``map_models``)
======================================  ======================================================

Every chapter is such a package (``reductions`` is the worked example, ``CONTRIBUTING.md``);
each package's docstring maps its modules. The ledger is a chapter unit too, kept one module.
"""
