"""The score table: the one frame every later stage reads.

A *score table* (``pandas.DataFrame``) has one row per scored statement, i.e. per
(relation, instance, template, option):

==================  ===========  ==============================================================
column              dtype        meaning
==================  ===========  ==============================================================
``model``           str          the scorer's name (registry name, hub id or folder)
``dataset``         str          ``"bear"``, ``"factor-news"``, ``"factor-expert"``, ``"lama"``
``relation``        str          relation id (``"P19"``); for FACTOR the subset name
``instance``        str          instance id, unique within a relation (BEAR: the subject's QID)
``template``        str          template name (``"paraphrase-0"`` ... see :mod:`calib.data.bear`)
``option``          int          index of this answer option in the instance's answer space
``answer``          str          the option's surface text as it was put into the template
``answer_idx``      int          index of the correct option (the same on every row of an
                                 (instance, template))
``token_logprobs``  list[float]  log-probability of each scored token, in order (CLM: natural-log
                                 probability given everything before; MLM: the within-word
                                 pseudo-log-likelihood term). The start token is not listed.
``token_roles``     list[str]    per token: ``"subject"``, ``"object"`` or ``"template"``. For
                                 FACTOR the shared prefix is ``"template"`` and the completion
                                 ``"object"``.
==================  ===========  ==============================================================

The options of one (relation, instance, template) are a complete answer space; they are the
unit a softmax runs over (see :mod:`calib.confidence`).

A *sentence-score table* is the same keys with the token lists reduced to one float ``score``
(see :func:`calib.confidence.reductions.sentence_scores`).
"""

from __future__ import annotations

import pandas as pd

KEYS: tuple[str, ...] = ("model", "dataset", "relation", "instance", "template", "option")
SCORE_COLUMNS: tuple[str, ...] = (*KEYS, "answer", "answer_idx", "token_logprobs", "token_roles")
#: the role of a statement's token: part of the subject, of the object (the answer), or of the
#: template's own words
ROLES: tuple[str, ...] = ("subject", "object", "template")
#: the rows that together form one softmax
GROUP: tuple[str, ...] = ("model", "dataset", "relation", "instance", "template")
#: the keys of one fact (instance), the same for every model and template: the unit that
#: paired comparisons of two models and answer-set subsets are drawn over
FACT: tuple[str, ...] = ("dataset", "relation", "instance")
#: how far a token log-probability may move when the same chunk is scored with another number
#: of intra-op threads (torch's default differs between machines; a Ray actor uses
#: ``CALIB_RAY_CPUS_PER_WORKER``): float32 sums in another order. Measured by
#: ``benchmarks/thread_rounding.py``: at most 3.0e-5 on SmolLM2-135M (1 vs 2 vs 4 threads,
#: 17k tokens), at most 1e-6 on the tiny models. The thread count is therefore no part of the
#: score store's key (one store serves every thread count), and predictions agree unless two
#: options' sentence scores lie within about this much times their length of each other.
ROUNDING_TOLERANCE = 1e-4


def check_score_table(frame: pd.DataFrame, name: str = "score table") -> pd.DataFrame:
    """Raise ``ValueError`` naming the missing columns if ``frame`` is not a score table."""
    missing = [c for c in SCORE_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"{name} lacks column(s) {missing}; expected {list(SCORE_COLUMNS)}")
    return frame
