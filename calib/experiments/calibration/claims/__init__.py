"""The claims of the calibration chapter (Kissling et al. 2026, §5.1, the abstract, §7,
Appendices D and E): ``CLAIMS``, in the ledger's order, from the modules that hold each claim,
its rule (``<claim>_rule``) and its evidence from the paper's printed tables
(``<claim>_paper``) and from this build's result (``<claim>_build``):

===============================================================  ===================================
module                                                           claims
===============================================================  ===================================
:mod:`~calib.experiments.calibration.claims.overconfidence`      over- and underconfidence (the
                                                                 abstract, §7, §5.1): signed gaps,
                                                                 where the curves start, Margin's
                                                                 low range
:mod:`~calib.experiments.calibration.claims.margin_and_average`  Margin against Base, Average
                                                                 against the others, Consistency and
                                                                 Entropy (§5.1)
:mod:`~calib.experiments.calibration.claims.sizes_and_families`  larger models, the best families,
                                                                 Gemma 3, ModernBERT, XLM-R (§5.1)
:mod:`~calib.experiments.calibration.claims.appendices`          ACE against accuracy (Appendix D),
                                                                 selective prediction (Appendix E),
                                                                 the recalibrated baseline (beyond
                                                                 the paper)
:mod:`~calib.experiments.calibration.claims.evidence`            the evidence rows and judgements
                                                                 the modules share
===============================================================  ===================================
"""

from __future__ import annotations

from calib.experiments.calibration.claims import (
    appendices,
    margin_and_average,
    overconfidence,
    sizes_and_families,
)
from calib.experiments.claims import Claim

CLAIMS: tuple[Claim, ...] = (
    *overconfidence.CLAIMS,
    *margin_and_average.CLAIMS,
    *sizes_and_families.CLAIMS,
    *appendices.CLAIMS,
)
