"""calib: an executable companion to two papers on probing what language models know.

* Kissling, Merdjanovska, Akbik (2026), *Self-Aware Knowledge Probing* (arXiv:2601.18901):
  calibration of a model's confidence on the BEAR probe.
* Jiang, Xu, Araki, Neubig (2020), *How Can We Know What Language Models Know?* (LPAQA):
  mined and paraphrased prompts, selected and ensembled.

The flow runs left to right, and no module imports from a stage to its right::

    calib.data -> calib.scoring -> calib.confidence -> calib.report -> notebooks/ -> book

``calib.prompts`` produces templates that enter the same flow at the scoring stage.
"""

__version__ = "0.1.0"
