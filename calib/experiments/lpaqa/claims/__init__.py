"""The claims of the LPAQA chapter (Jiang et al. 2020, the abstract, §5 and §6): ``CLAIMS``, in
the ledger's order, from the modules that hold each claim, its rule and its evidence from the
paper's printed tables (``<rule>_paper``) and from this build's result (``<rule>_build``):

===================================================  ===============================================
module                                               claims
===================================================  ===============================================
:mod:`~calib.experiments.lpaqa.claims.methods`       the prompt-selection and ensemble methods
                                                     against the manual prompts and each other, on
                                                     T-REx with BERT (the abstract, §5.1, §5.2:
                                                     Table 2)
:mod:`~calib.experiments.lpaqa.claims.prompt_sets`   the generation methods against each other:
                                                     paraphrased and mined prompts, middle-word and
                                                     dependency-based mining (§5.2: Tables 2 and 7)
:mod:`~calib.experiments.lpaqa.claims.macro`         macro- against micro-averaged accuracy and the
                                                     macro gains (§5.2: Table 3)
:mod:`~calib.experiments.lpaqa.claims.other_models`  ERNIE and KnowBert against BERT, LAMA-UHN
                                                     (§5.2: Tables 8 and 9)
:mod:`~calib.experiments.lpaqa.claims.analysis`      cross-model consistency, prediction divergence,
                                                     Google-RE, linear against log-linear ensembles
                                                     (§5.3), LM-aware prompts (§6)
:mod:`~calib.experiments.lpaqa.claims.evidence`      the printed tables and this build's comparisons
                                                     as evidence, and what the claims this build
                                                     cannot test would need
===================================================  ===============================================
"""

from __future__ import annotations

from calib.experiments.claims import Claim
from calib.experiments.lpaqa.claims import analysis, macro, methods, other_models, prompt_sets

CLAIMS: tuple[Claim, ...] = (
    *methods.CLAIMS,
    *prompt_sets.CLAIMS,
    *macro.CLAIMS,
    *other_models.CLAIMS,
    *analysis.CLAIMS,
)
