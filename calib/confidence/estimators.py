"""Confidence estimators of Kissling et al. (2026), §3, Eqs. 1-7.

All take a sentence-score table (:func:`calib.confidence.reductions.sentence_scores`), or
the :func:`~calib.confidence.probabilities.template_predictions` of one, and return an
estimate table (:mod:`calib.confidence.schema`): per instance a ``prediction`` (option
index, ``-1`` when rejected), ``correct`` (bool) and ``confidence`` in ``[0, 1]`` (the paper's
Entropy-Confidence, Eq. 7, can also be below 0; see :func:`entropy`).
Option probabilities are the softmax over an instance's answer options
(:mod:`calib.confidence.probabilities`); ``p_t`` below is the option distribution under
template ``t``, ``y_t`` its arg-max and ``B_t = max p_t`` its Base-Confidence.

**Intrinsic, one template** (one row per instance and template):

* :func:`base` -- Eq. 1, ``C_Base = max_i p(y_i | x)``.
* :func:`margin` -- Eq. 2, ``C_Margin = p(1st) - p(2nd)``; always ``<= C_Base``.

**Structural consistency over the paraphrases** (``T`` templates, by default the five
paraphrases ``paraphrase-0..4``; one row per instance). The ``T`` predictions ``y_t`` are first
aggregated into one answer ``y*`` (see :data:`AGGREGATIONS`):

* ``"min"`` (the paper's choice): ``y*`` is the prediction of the template with the *smallest*
  Base-Confidence; ``"max"``: of the template with the largest. Ties between templates go to
  the earlier template in the order given.
* ``"vote-k"`` (``k = 2..T``): ``y*`` is the answer predicted by most templates if at least
  ``k`` templates predict it and no other answer has as many votes; otherwise the instance is
  **rejected**: no answer, ``prediction = -1``, ``confidence = 0`` and ``correct = False``. As
  in the paper, a rejected instance therefore adds no calibration error of its own (confidence
  0, not correct) but lowers accuracy; report :func:`rejection_rate` beside the metrics.

``n_agree = |{t : y_t = y*}|`` (for a rejected instance: the largest number of templates
agreeing on any answer). Then

* :func:`average` -- Eq. 3, ``C_Average = (1/T) * sum_{t : y_t = y*} B_t``.
* :func:`consistency` -- Eq. 4, ``C_Consistency = n_agree / T`` (a multiple of ``1/T``).
* :func:`entropy` -- Eqs. 5-7 as the paper prints them. The clusters ``c`` are the distinct
  answers among the ``y_t``; ``s(c)``, the mean Base-Confidence of the templates predicting
  ``c`` (Eq. 5); ``q(c) = s(c) / sum_c' s(c')`` (Eq. 6); ``C_Entropy = 1 - (-sum_c q(c) ln q(c))``
  (Eq. 7, natural logarithm, no further normalisation). It is 1 when all templates agree and
  falls with disagreement, **below 0** when the answers split into 3 or more clusters of
  similar weight (the entropy of ``K`` equal clusters is ``ln K``, above 1 from ``K = 3``); the
  lowest value with five templates is ``1 - ln 5 = -0.61``.
* :func:`entropy_normalised` (``"Entropy (normalised)"``) -- the variant this package used
  before following the print: ``p(c)`` the *share of templates* predicting ``c`` (not their
  Base-Confidence), and ``C = 1 - SE / ln T`` (entropy to base ``T``: 1 = all agree, 0 = all
  differ), or ``1 - SE / ln K`` with ``normalize="clusters"``, ``K`` the number of distinct
  answers, as the authors' released code divides.

Sources: the paper's equations; where the paper is silent, the authors' released code
(github.com/diamir707/knowledge-calibration, ``src/estimates.py`` and ``src/utils.py``) fixed
the details: Average and Consistency divide by ``T`` (not by ``n_agree``); ``min``/``max``
ties go to the first template; a voting tie rejects. Its Entropy code computes the entropy
over only the templates that agree with ``y*`` (always one cluster, so always confidence 1);
we follow the printed Eqs. 5-7 over all ``T`` templates.

**Semantic grounding**: :func:`linguistic` -- Base-Confidence on an injected template
(``possibly``, ``certainly``, ``numeric-0 .. numeric-100``) beside the plain template, on the same
instances.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from calib.confidence.probabilities import template_predictions
from calib.confidence.schema import INSTANCE, group_codes, require_columns
from calib.data.bear import NUMERIC, PARAPHRASES, PLAIN

#: the aggregation strategies for the multi-template estimators, the paper's choice first
AGGREGATIONS: tuple[str, ...] = ("min", "max", "vote-2", "vote-3", "vote-4", "vote-5")
#: the normalisations of :func:`entropy_normalised`
ENTROPY_NORMALIZATIONS: tuple[str, ...] = ("templates", "clusters")


def _template_list(templates: str | Sequence[str] | None, available: Sequence[str]) -> list[str]:
    if templates is None:
        return sorted(available)
    names = [templates] if isinstance(templates, str) else list(templates)
    if not names:
        raise ValueError("no template selected")
    if len(set(names)) != len(names):
        raise ValueError(f"templates {names} lists a template twice")
    return names


#: the columns of :func:`calib.confidence.probabilities.template_predictions`
PER_TEMPLATE = (
    *INSTANCE,
    "template",
    "n_options",
    "answer_idx",
    "prediction",
    "correct",
    "p_top",
    "p_second",
)


def per_template(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` if it already is a :func:`~calib.confidence.probabilities.template_predictions`
    frame (it has ``p_top``), else ``template_predictions(table)``. Lets callers that run several
    estimators on one large table compute the softmax once."""
    if isinstance(table, pd.DataFrame) and "p_top" in table.columns:
        require_columns(table, PER_TEMPLATE, "template-prediction table")
        return table
    return template_predictions(table)


def _single(sent: pd.DataFrame, templates, column: str) -> pd.DataFrame:
    per = per_template(sent)
    names = _template_list(templates, per["template"].unique())
    missing = [t for t in names if t not in set(per["template"].unique())]
    if missing:
        raise ValueError(
            f"template(s) {missing} not in the table; it has {sorted(per['template'].unique())}"
        )
    per = per[per["template"].isin(names)]
    conf = per["p_top"] if column == "base" else per["p_top"] - per["p_second"]
    out = per[[*INSTANCE, "template", "prediction", "correct"]].copy()
    out["confidence"] = np.clip(conf.to_numpy(), 0.0, 1.0)
    return out.reset_index(drop=True)


def base(sent: pd.DataFrame, templates: str | Sequence[str] | None = PLAIN) -> pd.DataFrame:
    """Base-Confidence (Eq. 1): the highest option probability, ``max_i p(y_i | x)``.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table, or its
        :func:`~calib.confidence.probabilities.template_predictions`.
    templates : str or sequence of str or None
        A template name, a list of names, or ``None`` for every template in the table; default
        the plain template ``paraphrase-0``.

    Returns
    -------
    pandas.DataFrame
        An estimate table (:mod:`calib.confidence.schema`): one row per instance and template,
        with ``template``, ``prediction``, ``correct`` and ``confidence``.

    Raises
    ------
    ValueError
        If a template asked for is not in the table.
    """
    return _single(sent, templates, "base")


def margin(sent: pd.DataFrame, templates: str | Sequence[str] | None = PLAIN) -> pd.DataFrame:
    """Margin-Confidence (Eq. 2): highest minus second-highest option probability.

    Same rows and prediction as :func:`base`; the confidence is never above Base's.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table, or its
        :func:`~calib.confidence.probabilities.template_predictions`.
    templates : str or sequence of str or None
        A template name, a list of names, or ``None`` for every template in the table; default
        the plain template ``paraphrase-0``.

    Returns
    -------
    pandas.DataFrame
        An estimate table (:mod:`calib.confidence.schema`): one row per instance and template,
        with ``template``, ``prediction``, ``correct`` and ``confidence``.
    """
    return _single(sent, templates, "margin")


def _parse_aggregation(aggregation: str, n_templates: int) -> tuple[str, int]:
    if aggregation in ("min", "max"):
        return aggregation, 0
    if aggregation.startswith("vote-") and aggregation[5:].isdigit():
        k = int(aggregation[5:])
        if 2 <= k <= n_templates:
            return "vote", k
        raise ValueError(
            f"aggregation {aggregation!r}: k must be 2..{n_templates} for {n_templates} templates"
        )
    raise ValueError(
        f"unknown aggregation {aggregation!r}; expected 'min', 'max' or "
        f"'vote-k' (k = 2..{n_templates}), e.g. {list(AGGREGATIONS)}"
    )


def template_matrix(sent: pd.DataFrame, templates: Sequence[str] = PARAPHRASES):
    """The per-template predictions of every instance as arrays, for the multi-template
    estimators: ``(keys, answer_idx, prediction, base)`` where ``keys`` is a frame of the
    instance keys (one row per instance, sorted), ``answer_idx`` the correct option per instance,
    and ``prediction`` / ``base`` are ``(instances, templates)`` arrays of the arg-max and the
    Base-Confidence, columns in the order of ``templates``.

    Raises ``ValueError`` naming instances that lack one of the templates.
    """
    templates = list(templates)
    if len(templates) < 2:
        raise ValueError(f"a multi-template estimator needs at least 2 templates, got {templates}")
    if len(set(templates)) != len(templates):
        raise ValueError(f"templates {templates} lists a template twice")
    per_all = per_template(sent)
    per = per_all[per_all["template"].isin(templates)].reset_index(drop=True)
    if per.empty:
        raise ValueError(
            f"none of the templates {templates} is in the table; it has "
            f"{sorted(per_all['template'].unique())}"
        )
    inst, n_inst = group_codes(per, INSTANCE)
    # the values, not the column: a categorical column (a compact table) may have categories
    # beyond ``templates``, which pandas will not recode
    col = pd.Categorical(np.asarray(per["template"]), categories=templates).codes.astype(np.int64)
    counts = np.bincount(inst, minlength=n_inst)
    if (counts != len(templates)).any():
        k = int(np.flatnonzero(counts != len(templates))[0])
        rows = per[inst == k]
        have = set(rows["template"].unique())
        lacking = [t for t in templates if t not in have]
        n_bad = int((counts != len(templates)).sum())
        raise ValueError(
            f"instance ({', '.join(f'{c}={rows.iloc[0][c]!r}' for c in INSTANCE)}) "
            f"lacks template(s) {lacking} needed by a multi-template estimator "
            f"over {templates}; {n_bad} of {n_inst} instance(s) are incomplete"
        )
    pred = np.empty((n_inst, len(templates)), dtype=np.int64)
    b = np.empty((n_inst, len(templates)))
    pred[inst, col] = per["prediction"].to_numpy()
    b[inst, col] = per["p_top"].to_numpy()
    first = np.empty(n_inst, dtype=np.int64)
    first[inst[::-1]] = np.arange(len(per))[::-1]
    keys = per.loc[first, list(INSTANCE)].reset_index(drop=True)
    answer_idx = per["answer_idx"].to_numpy()[first]
    return keys, answer_idx, pred, b


def _aggregate(pred: np.ndarray, b: np.ndarray, aggregation: str):
    """``(winner, rejected, n_agree, agree)`` per instance; ``agree[i, t]`` is the number of
    templates predicting the same answer as template ``t``."""
    n, t = pred.shape
    kind, k = _parse_aggregation(aggregation, t)
    agree = (pred[:, :, None] == pred[:, None, :]).sum(axis=2)
    rows = np.arange(n)
    if kind == "min":
        winner = pred[rows, np.argmin(b, axis=1)]
        rejected = np.zeros(n, dtype=bool)
    elif kind == "max":
        winner = pred[rows, np.argmax(b, axis=1)]
        rejected = np.zeros(n, dtype=bool)
    else:
        most = agree.max(axis=1)
        n_tied = (agree == most[:, None]).sum(axis=1) // most  # answers with the most votes
        rejected = (most < k) | (n_tied > 1)
        winner = np.where(rejected, -1, pred[rows, np.argmax(agree, axis=1)])
    n_agree = np.where(rejected, agree.max(axis=1), (pred == winner[:, None]).sum(axis=1))
    return winner, rejected, n_agree, agree


def _multi(sent, templates, aggregation, confidence_of, lowest: float = 0.0) -> pd.DataFrame:
    keys, answer_idx, pred, b = template_matrix(sent, templates)
    winner, rejected, n_agree, agree = _aggregate(pred, b, aggregation)
    conf = np.where(rejected, 0.0, confidence_of(pred, b, winner, agree))
    out = keys
    out["prediction"] = winner.astype(np.int64)
    out["correct"] = (~rejected) & (winner == answer_idx)
    out["confidence"] = np.clip(conf, lowest, 1.0)
    out["n_agree"] = n_agree.astype(np.int64)
    out["rejected"] = rejected
    return out


def average(
    sent: pd.DataFrame, aggregation: str = "min", templates: Sequence[str] = PARAPHRASES
) -> pd.DataFrame:
    """Average-Confidence (Eq. 3): ``(1/T) * sum of B_t over the templates predicting y*``.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table, or its
        :func:`~calib.confidence.probabilities.template_predictions`.
    aggregation : str
        How the templates' answers become one prediction ``y*`` (:data:`AGGREGATIONS`):
        ``"min"`` (the paper's: the answer of the template with the smallest Base-Confidence),
        ``"max"``, or ``"vote-k"`` (at least ``k`` agreeing templates; a tie or too few votes
        rejects the instance: confidence 0, not correct).
    templates : sequence of str
        The templates to aggregate over; default the five paraphrases.

    Returns
    -------
    pandas.DataFrame
        An estimate table (:mod:`calib.confidence.schema`): one row per instance with
        ``prediction``, ``correct``, ``confidence``, ``n_agree`` and ``rejected``.
    """
    t = len(templates)
    return _multi(
        sent,
        templates,
        aggregation,
        lambda pred, b, w, _: (b * (pred == w[:, None])).sum(axis=1) / t,
    )


def consistency(
    sent: pd.DataFrame, aggregation: str = "min", templates: Sequence[str] = PARAPHRASES
) -> pd.DataFrame:
    """Consistency-Confidence (Eq. 4): the share ``n_agree / T`` of templates predicting ``y*``.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table, or its
        :func:`~calib.confidence.probabilities.template_predictions`.
    aggregation : str
        How the templates' answers become one prediction ``y*`` (:data:`AGGREGATIONS`):
        ``"min"`` (the paper's: the answer of the template with the smallest Base-Confidence),
        ``"max"``, or ``"vote-k"`` (at least ``k`` agreeing templates; a tie or too few votes
        rejects the instance: confidence 0, not correct).
    templates : sequence of str
        The templates to aggregate over; default the five paraphrases.

    Returns
    -------
    pandas.DataFrame
        An estimate table (:mod:`calib.confidence.schema`): one row per instance with
        ``prediction``, ``correct``, ``confidence``, ``n_agree`` and ``rejected``.
    """
    t = len(templates)
    return _multi(
        sent, templates, aggregation, lambda pred, b, w, _: (pred == w[:, None]).sum(axis=1) / t
    )


def entropy(
    sent: pd.DataFrame, aggregation: str = "min", templates: Sequence[str] = PARAPHRASES
) -> pd.DataFrame:
    """Entropy-Confidence, Eqs. 5-7 exactly as printed.

    For each distinct predicted answer ``c`` among the ``T`` templates, ``s(c)`` is the mean
    Base-Confidence ``B_t`` of the templates predicting ``c`` (Eq. 5), ``q(c) = s(c) / sum s``
    (Eq. 6), and ``C = 1 - (-sum_c q(c) ln q(c))`` (Eq. 7). Not normalised: with 3 or more
    clusters it can be below 0 (down to ``1 - ln T``); confidences are kept as computed. The
    aggregation only picks the prediction (and may reject: confidence 0).

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table, or its
        :func:`~calib.confidence.probabilities.template_predictions`.
    aggregation : str
        How the templates' answers become one prediction ``y*`` (:data:`AGGREGATIONS`):
        ``"min"`` (the paper's: the answer of the template with the smallest Base-Confidence),
        ``"max"``, or ``"vote-k"`` (at least ``k`` agreeing templates; a tie or too few votes
        rejects the instance: confidence 0, not correct).
    templates : sequence of str
        The templates to aggregate over; default the five paraphrases.

    Returns
    -------
    pandas.DataFrame
        An estimate table (:mod:`calib.confidence.schema`): one row per instance with
        ``prediction``, ``correct``, ``confidence``, ``n_agree`` and ``rejected``.
    """

    def conf(pred, b, w, agree):
        same = pred[:, :, None] == pred[:, None, :]
        s_t = (same * b[:, None, :]).sum(axis=2) / agree  # s(c) of template t's cluster (Eq. 5)
        # a cluster of k templates appears k times among the templates: weight 1/k
        total = (s_t / agree).sum(axis=1, keepdims=True)
        q_t = s_t / total  # Eq. 6
        return 1.0 + (q_t * np.log(q_t) / agree).sum(axis=1)  # Eq. 7

    return _multi(sent, templates, aggregation, conf, lowest=-np.inf)


def entropy_normalised(
    sent: pd.DataFrame,
    aggregation: str = "min",
    templates: Sequence[str] = PARAPHRASES,
    normalize: str = "templates",
) -> pd.DataFrame:
    """A normalised entropy confidence (``"Entropy (normalised)"``; not the paper's Eq. 5-7, see
    :func:`entropy`) over the clusters of identical predicted answers, in ``[0, 1]``.

    ``SE = -sum_c p(c) ln p(c)`` with ``p(c)`` the share of the ``T`` templates predicting
    answer ``c``. The aggregation only picks the prediction (and may reject, confidence 0).

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table, or its
        :func:`~calib.confidence.probabilities.template_predictions`.
    aggregation : str
        How the templates' answers become one prediction ``y*`` (:data:`AGGREGATIONS`):
        ``"min"`` (the paper's: the answer of the template with the smallest Base-Confidence),
        ``"max"``, or ``"vote-k"`` (at least ``k`` agreeing templates; a tie or too few votes
        rejects the instance: confidence 0, not correct).
    templates : sequence of str
        The templates to aggregate over; default the five paraphrases.
    normalize : str
        ``"templates"`` (default): ``C = 1 - SE / ln T``, i.e. entropy to base ``T`` (1 = all
        agree, 0 = all differ). ``"clusters"``: ``C = 1 - SE / ln K`` with ``K`` the number of
        distinct answers (``C = 1`` when ``K = 1``), as in the authors' released code.

    Returns
    -------
    pandas.DataFrame
        An estimate table (:mod:`calib.confidence.schema`): one row per instance with
        ``prediction``, ``correct``, ``confidence``, ``n_agree`` and ``rejected``.
    """
    if normalize not in ENTROPY_NORMALIZATIONS:
        raise ValueError(
            f"unknown normalize {normalize!r}; expected one of {list(ENTROPY_NORMALIZATIONS)}"
        )
    t = len(templates)

    def conf(pred, b, w, agree):
        # sum_c p(c) ln p(c) = (1/T) sum_t ln p(c(t)), p(c(t)) = agree[:, t] / T
        se = -np.log(agree / t).mean(axis=1)
        if normalize == "templates":
            return 1.0 - se / np.log(t)
        k = (1.0 / agree).sum(axis=1)  # number of distinct answers
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(k > 1.5, 1.0 - se / np.log(np.maximum(k, 2.0)), 1.0)

    return _multi(sent, templates, aggregation, conf)


def stated_confidence(template: str) -> float:
    """The confidence a numeric template states (``numeric-25`` -> 0.25); NaN for others."""
    return int(template.rpartition("-")[2]) / 100 if template in NUMERIC else float("nan")


def linguistic(
    sent: pd.DataFrame, injected: str | Sequence[str], plain: str = PLAIN
) -> pd.DataFrame:
    """Linguistic confidence (paper §3, semantic grounding): Base-Confidence (Eq. 1) under
    injected template(s) and under the ``plain`` template, restricted to the instances scored
    with all of them.

    Compare e.g. ``confidence`` between ``template == "possibly"`` and ``template == plain`` on
    the same instances.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table.
    injected : str or sequence of str
        The injected template(s): ``possibly``, ``certainly``, ``numeric-0`` .. ``numeric-100``.
    plain : str
        The plain template (default ``paraphrase-0``); it may not be among ``injected``.

    Returns
    -------
    pandas.DataFrame
        Long format: one row per instance and template, with ``template``, ``prediction``,
        ``correct``, ``confidence`` and ``stated`` (the numeric template's stated confidence,
        NaN otherwise).
    """
    names = [injected] if isinstance(injected, str) else list(injected)
    if plain in names:
        raise ValueError(f"the plain template {plain!r} is also listed as injected")
    est = base(sent, [plain, *names])
    inst, n_inst = group_codes(est, INSTANCE)
    complete = np.bincount(inst, minlength=n_inst) == len(names) + 1
    if not complete.any():
        raise ValueError(f"no instance is scored with all of {[plain, *names]}")
    est = est[complete[inst]].reset_index(drop=True)
    est["stated"] = est["template"].map(stated_confidence).astype(float)
    return est


def rejection_rate(estimates: pd.DataFrame) -> float:
    """Share of instances a voting aggregation rejected (0 for estimators that never reject).

    Parameters
    ----------
    estimates : pandas.DataFrame
        An estimate table (with a ``rejected`` column where the estimator can reject).

    Returns
    -------
    float
        The share of rows with ``rejected``; 0 without that column or without rows.
    """
    require_columns(estimates, ("confidence",), "estimate table")
    if "rejected" not in estimates.columns or len(estimates) == 0:
        return 0.0
    return float(estimates["rejected"].astype(bool).mean())


#: the estimators by name, for :func:`all_estimates`
SINGLE = {"Base": base, "Margin": margin}
MULTI = {"Average": average, "Consistency": consistency, "Entropy": entropy}
#: multi-template estimators that are not the paper's, added to :func:`all_estimates` on request
VARIANTS = {"Entropy (normalised)": entropy_normalised}


def all_estimates(
    sent: pd.DataFrame,
    template: str = PLAIN,
    paraphrases: Sequence[str] | None = PARAPHRASES,
    aggregations: Sequence[str] = ("min",),
    variants: Sequence[str] = (),
) -> pd.DataFrame:
    """Every estimator in one long estimate table with an ``estimator`` column.

    Parameters
    ----------
    sent : pandas.DataFrame
        A sentence-score table (the softmax is computed once for all estimators).
    template : str
        The template of ``Base`` and ``Margin``.
    paraphrases : sequence of str or None
        The templates of ``Average``, ``Consistency`` and ``Entropy``; ``None`` skips the
        multi-template estimators (for a table scored with one template).
    aggregations : sequence of str
        The aggregations (:data:`AGGREGATIONS`) of each multi-template estimator, named e.g.
        ``"Average/min"`` or ``"Consistency/vote-2"``.
    variants : sequence of str
        Estimators beyond the paper's, names of :data:`VARIANTS` (e.g.
        ``"Entropy (normalised)"``), named the same way.

    Returns
    -------
    pandas.DataFrame
        Columns ``estimator``, the instance keys, ``template`` (the single template, or
        ``None``), ``prediction``, ``correct``, ``confidence``, ``n_agree`` (missing for
        single-template estimators) and ``rejected``.

    Raises
    ------
    ValueError
        For an unknown variant.
    """
    sent = per_template(sent)  # the softmax once for all estimators
    parts = []
    for name, fn in SINGLE.items():
        parts.append(fn(sent, template).assign(estimator=name, n_agree=pd.NA, rejected=False))
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise ValueError(f"unknown estimator variant(s) {unknown}; known: {list(VARIANTS)}")
    if paraphrases is not None:
        for agg in aggregations:
            for name, multi in {**MULTI, **{v: VARIANTS[v] for v in variants}}.items():
                parts.append(
                    multi(sent, agg, paraphrases).assign(estimator=f"{name}/{agg}", template=None)
                )
    out = pd.concat(parts, ignore_index=True)
    out["n_agree"] = out["n_agree"].astype("Int64")
    cols = [
        "estimator",
        *INSTANCE,
        "template",
        "prediction",
        "correct",
        "confidence",
        "n_agree",
        "rejected",
    ]
    return out[cols]
