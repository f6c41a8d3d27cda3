"""The bottom line of a chapter and of the book: what the paper claimed, what this build found,
and what its sample can and cannot decide, generated from the ledger's rows
(:func:`calib.experiments.ledger.build_ledger`), so that a page states no verdict the ledger
does not.

A build verdict reads as one of four outcomes (:data:`OUTCOMES`): the build *confirms* a claim
(holds), *contradicts* it (does not hold), *cannot decide* it at this size (undecided, or cannot
be decided at this size: the facts that would decide it come from
:mod:`calib.experiments.decide`), or *cannot test* it (the build lacks the models or data, or
did not run the chapter). The chapter's headline claims (``Claim.headline``) come first, each
with the paper's own verdict beside this build's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from html import escape

import pandas as pd

from calib.experiments.decide import sample_size
from calib.experiments.verdicts import FAILS, HOLDS, NOT_RUN, TOO_SMALL, UNDECIDED, UNTESTABLE
from calib.report.ledger_page import facts_text
from calib.report.table_format import HtmlTable, plain_math

#: the outcome of each build verdict, in the order the bottom line lists them
OUTCOMES: dict[str, tuple[str, ...]] = {
    "confirms": (HOLDS.value,),
    "contradicts": (FAILS.value,),
    "cannot decide": (UNDECIDED.value, TOO_SMALL.value),
    "cannot test": (UNTESTABLE.value, NOT_RUN.value),
}
#: the HTML id of a chapter's bottom line (the tests and the intro's links look for it)
ANCHOR = "bottom-line"
#: the parameters that set a chapter's facts per model, per relation (BEAR, LAMA's test facts)
SIZE_PARAMETERS: tuple[str, ...] = ("per_relation", "test_per_relation")

Sizes = Mapping[str, Mapping[str, int | None]]


def claims_anchor(chapter: str) -> str:
    """The HTML id of a chapter's section on the paper's claims (its MyST label,
    ``(<chapter>-claims)=``, with ``_`` as ``-``)."""
    return f"{chapter.replace('_', '-')}-claims"


def outcome(verdict: str) -> str:
    """The outcome (a key of :data:`OUTCOMES`) of a build verdict's text."""
    for name, verdicts in OUTCOMES.items():
        if verdict in verdicts:
            return name
    raise ValueError(f"{verdict!r} is no verdict")


def papers_claims(ledger: pd.DataFrame) -> pd.DataFrame:
    """The ledger's claims of the papers (those beyond the papers left out)."""
    beyond = ledger["beyond_paper"].astype(bool) if "beyond_paper" in ledger else False
    return ledger[~beyond]


def tallies(ledger: pd.DataFrame) -> dict[str, int]:
    """How many of the ledger's claims of the papers have each outcome, in
    :data:`OUTCOMES` order."""
    got = [outcome(v) for v in papers_claims(ledger)["verdict"]]
    return {name: got.count(name) for name in OUTCOMES}


def size_parameter(params) -> tuple[str, int] | None:
    """The parameter that sets a chapter's facts per model and its value in this run
    (:data:`SIZE_PARAMETERS`), or ``None`` (all facts, or no such parameter)."""
    for name in SIZE_PARAMETERS:
        value = getattr(params, name, None)
        if isinstance(value, int) and value > 0:
            return name, value
    return None


def reaching_parameter(row: Mapping, params) -> str:
    """The command-line option that gives a chapter the facts that would decide an open
    verdict (e.g. ``-p per_relation 17``): the run's size parameter scaled by the verdict's
    factor (:mod:`calib.experiments.decide`); ``""`` when the factor, the parameter or the
    sample the verdict narrows with (facts) is unknown or infinite."""
    factor = row.get("decide_factor")
    size = size_parameter(params) if params is not None else None
    if (
        size is None
        or row.get("decide_sample", "facts") != "facts"
        or factor is None
        or not math.isfinite(float(factor))
    ):
        return ""
    name, value = size
    return f"-p {name} {max(value + 1, math.ceil(value * float(factor)))}"


def _claim_html(row: Mapping, sizes: Sizes | None, params) -> str:
    verdict = row["verdict"]
    paper = row["paper_verdict"]
    text = (
        f"<b>{escape(row['section'])}</b> {escape(plain_math(row['statement']))} "
        f"<i>The paper's own numbers:</i> {escape(paper)}. "
        f"<i>This build:</i> <b>{escape(verdict)}</b>"
    )
    if outcome(verdict) == "cannot decide":
        decide = facts_text(row, sizes)
        option = reaching_parameter(row, params)
        if decide:
            text += f"; {escape(decide)}"
        if option:
            text += f" (<code>calib run {escape(row['chapter'])} {escape(option)}</code>)"
    elif outcome(verdict) == "cannot test":
        text += f": {escape(row.get('reason') or '')}"
    return f"<li>{text}.</li>"


def _tally_sentence(counts: Mapping[str, int], total: int, whose: str = "its") -> str:
    parts = [f"{name} {n}" for name, n in counts.items() if n]
    return f"Of {whose} {total} claims, this build " + (", ".join(parts) or "none") + "."


def _nearest(ledger: pd.DataFrame, sizes: Sizes | None, params) -> str:
    """The open claim that is not a headline that the fewest facts would decide, as a sentence
    (``""``: none)."""
    rows = papers_claims(ledger)
    rows = rows[rows["verdict"].map(outcome) == "cannot decide"]
    if "headline" in rows:  # a headline claim is stated above already
        rows = rows[~rows["headline"].astype(bool)]
    if "facts_to_decide" not in rows or rows["facts_to_decide"].isna().all():
        return ""
    row = rows.loc[rows["facts_to_decide"].astype(float).idxmin()].to_dict()
    if not math.isfinite(float(row["facts_to_decide"])):
        return ""
    option = reaching_parameter(row, params)
    how = f" (<code>calib run {escape(row['chapter'])} {escape(option)}</code>)" if option else ""
    return (
        f"The open claim nearest to a verdict ({escape(row['section'])}: "
        f"{escape(plain_math(row['statement']))}): {escape(facts_text(row, sizes))}{how}."
    )


def chapter_bottom_line(
    ledger: pd.DataFrame, result=None, sizes: Mapping[str, int | None] | None = None
) -> HtmlTable:
    """The bottom line at the top of a chapter: its headline claims (``headline``; the first
    three claims of the papers where none is marked) each with the paper's own verdict and this
    build's, the facts that would decide an open one and the option that gives them; the tally
    of all its claims of the papers by outcome; and the open claim nearest to a verdict.

    Parameters
    ----------
    ledger : pandas.DataFrame
        The chapter's rows of :func:`calib.experiments.ledger.build_ledger`.
    result : object or None
        The chapter's result (its facts per model, models and parameters), or ``None``.
    sizes : mapping or None
        The chapter's facts per model by profile
        (:func:`calib.book.profile_sizes.facts_per_model`), for the profile that would decide an
        open verdict.

    Returns
    -------
    calib.report.table_format.HtmlTable
        An admonition box (HTML, id :data:`ANCHOR`).
    """
    claims = papers_claims(ledger)
    heads = claims[claims["headline"].astype(bool)] if "headline" in claims else claims.iloc[:0]
    if heads.empty:
        heads = claims.iloc[:3]
    params = getattr(result, "params", None)
    facts = sample_size(result)
    models = tuple(getattr(params, "models", None) or ())
    by_chapter = {c: dict(sizes or {}) for c in set(ledger["chapter"])}
    size = f" on {facts:,} facts per model" if facts else ""
    who = f" ({', '.join(models)})" if models else ""
    body = [f"<p>This build ran{escape(size + who)}. The paper's headline claims here:</p>"]
    body += ["<ul>", *(_claim_html(r, by_chapter, params) for r in heads.to_dict("records"))]
    body.append("</ul>")
    tally = _tally_sentence(tallies(ledger), len(claims)).replace("claims,", "claims of the paper,")
    body.append(f"<p>{escape(tally)} ")
    chapter = str(ledger["chapter"].iloc[0]) if len(ledger) else ""
    body.append(
        f'Each claim, with its evidence, is listed in <a href="#{claims_anchor(chapter)}">the '
        "section on the paper's claims</a> below.</p>"
    )
    nearest = _nearest(ledger, by_chapter, params)
    if nearest:
        body.append(f"<p>{nearest}</p>")
    return HtmlTable(
        f'<div class="admonition important calib-bottom-line" id="{ANCHOR}">'
        f'<p class="admonition-title">Bottom line</p>{"".join(body)}</div>'
    )


def book_summary(ledger: pd.DataFrame) -> str:
    """The intro's summary (Markdown): per paper, the claims this build confirms, those it
    contradicts (each by section and statement, with a link to its chapter's bottom line), and
    how many it cannot decide or cannot test.

    Parameters
    ----------
    ledger : pandas.DataFrame
        :func:`calib.experiments.ledger.build_ledger` over every chapter.

    Returns
    -------
    str
        Markdown.
    """
    from calib.experiments.claims import PAPERS

    out = []
    claims = papers_claims(ledger)
    for paper, title in PAPERS.items():
        part = claims[claims["paper"] == paper]
        if part.empty:
            continue
        counts = tallies(part)
        tally = _tally_sentence(counts, len(part), "the paper's")
        out.append(f"**{title}**: {tally}")
        for name in ("confirms", "contradicts"):
            rows = part[part["verdict"].map(outcome) == name]
            if rows.empty:
                continue
            out.append(f"- This build {name}:")
            out += [
                f"  - {r['section']}: {plain_math(r['statement'])} "
                f"({{doc}}`{r['chapter']} </_build/chapters/{r['chapter']}>`)"
                for r in rows.to_dict("records")
            ]
        open_ = part[part["verdict"].map(outcome) == "cannot decide"]
        if len(open_):
            heads = open_[open_["headline"].astype(bool)] if "headline" in open_ else open_[:0]
            named = "; ".join(
                f"{r['section']}: {plain_math(r['statement'])}" for r in heads.to_dict("records")
            )
            out.append(
                f"- It cannot decide {len(open_)} at its size"
                + (f", among them the headline claims {named}" if named else "")
                + "; each chapter's bottom line says how many facts would."
            )
        out.append("")
    return "\n".join(out)
