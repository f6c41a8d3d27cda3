"""Prompts (LPAQA, Jiang et al. 2020): mining, paraphrasing by back-translation, selection and
ensembles, and their accuracy.

* :mod:`calib.prompts.mining` - middle-word and dependency-path prompts from Wikipedia (§3.1),
  and the corpus of evidence sentences they are mined from
* :mod:`calib.prompts.paraphrase` - back-translation behind the ``Translator`` protocol (§3.2);
  back-ends in :mod:`calib.prompts.translators` (Apertium offline, MarianMT with the hub)
* :mod:`calib.prompts.generation` - a relation's prompts: manual, mined and paraphrased
  without duplicates; LPAQA's released prompts as a reference
* :mod:`calib.prompts.ensemble` - top-1, top-K and optimised ensembles, the oracle (§4)
* :mod:`calib.prompts.accuracy` - micro/macro accuracy and the majority baseline (§5.1)

The LAMA data and LPAQA's released prompts are loaded by :mod:`calib.data.lama`.
"""
