"""The claims of the calibration chapter (Kissling et al. 2026, §5.1, the abstract, §7,
Appendices D and E): ``CLAIMS``, in the ledger's order, from the modules that hold each claim,
its rule (``<claim>_rule``) and its evidence from the paper's printed tables
(``<claim>_paper``) and from this build's result (``<claim>_build``):

===============================================================  ===================================
module                                                           claims
===============================================================  ===================================
:mod:`~calib.experiments.calibration.claims.overconfidence`      over- and underconfidence (the
                                                                 abstract, §7, §5.1): signed gaps,
                                                                 the range the curves of C_Base
                                                                 and C_Margin cover, Margin's low
                                                                 range
:mod:`~calib.experiments.calibration.claims.margin_and_average`  Margin against Base, Average
                                                                 against the others, Consistency and
                                                                 Entropy (§5.1)
:mod:`~calib.experiments.calibration.claims.best_estimates`      Figure 2's curves, C_Average close
                                                                 to perfect calibration, the best
                                                                 paraphrase estimate, single-
                                                                 template estimates (§5.1, the
                                                                 abstract, §7)
:mod:`~calib.experiments.calibration.claims.sizes_and_families`  larger models, the best families
                                                                 (two readings), Gemma 3,
                                                                 ModernBERT, XLM-R (§5.1)
:mod:`~calib.experiments.calibration.claims.appendices`          ACE against accuracy and size,
                                                                 within objectives and families
                                                                 (Appendix D),
                                                                 selective prediction (Appendix E),
                                                                 the recalibrated baseline (beyond
                                                                 the paper)
:mod:`~calib.experiments.calibration.claims.evidence`            the evidence rows and judgements
                                                                 the modules share (floor-corrected
                                                                 comparisons, units made of parts,
                                                                 two readings of a sentence)
===============================================================  ===================================
"""

from __future__ import annotations

from calib.experiments.calibration.claims import (
    appendices,
    best_estimates,
    margin_and_average,
    overconfidence,
    sizes_and_families,
)
from calib.experiments.claims import Claim

CLAIMS: tuple[Claim, ...] = (
    *overconfidence.CLAIMS,
    *margin_and_average.CLAIMS,
    *best_estimates.CLAIMS,
    *sizes_and_families.CLAIMS,
    *appendices.CLAIMS,
)
