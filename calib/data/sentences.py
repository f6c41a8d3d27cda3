"""The papers' result sentences, each with the claims that test it or why it is not a testable
claim: the coverage registry behind the ledger (:mod:`calib.experiments.coverage`).

One YAML file per paper in ``calib/data/reported/sentences/`` (``kissling2026.yaml``,
``jiang2020.yaml``), holding:

``paper``
    the paper's short name (``kissling2026``, ``jiang2020``).
``text``
    the file of its full text in ``shared/papers`` the quotes are checked against.
``covers``
    which sections the file lists every sentence of, and which it leaves out (methods).
``sentences``
    a list, in the paper's order, of entries with:

    ``section``
        where the sentence is (``§5.1``, ``Appendix C``, ``LPAQA §5.2``, ``Limitations``).
    ``quote``
        the sentence, verbatim (whitespace aside). Where the text extraction splits a sentence
        (a table printed inside it, columns out of order), its parts joined by ``" [...] "``,
        each verbatim (:func:`quote_parts`).
    ``reading`` (optional)
        the English of a quote the machine translation of LPAQA's text turned partly into
        Chinese.
    ``claims`` (optional)
        the keys of the claims that test it: claims of the chapters' ``CLAIMS``, or claims
        proposed here (``planned``, in this or another entry).
    ``planned`` (optional)
        claims proposed for the sentence, each ``claim`` (its key), ``status: planned``,
        ``chapter`` (that will hold it), ``quantifier``, ``rule`` (what would make it hold and not
        hold, with the sizes the sentence prints), ``paper_evidence`` (the paper's printed table or
        figure, or "none: ..."), ``build_evidence`` (what the build would judge) and optionally
        ``paper_source`` (:data:`calib.experiments.claims.PAPER_SOURCES`).
    ``kind`` and ``reason`` (together, optional)
        why the sentence (or the part no claim tests) is not a testable claim: ``kind`` one of
        :data:`KINDS`, ``reason`` in words.
    ``note`` (optional)
        what a reader should know about how the claims read the sentence.

    Every entry has ``claims``, ``planned`` or a ``reason``.

:func:`sentences` reads them as one frame, :func:`planned_claims` the proposed claims. A file
that breaks the format is a :class:`calib.data.errors.DataFormatError` naming the file, the
entry and the field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from calib.data.errors import DataFormatError

#: the folder of the registry files (package data)
SENTENCES_DIR = Path(__file__).with_name("reported") / "sentences"
#: why a sentence is not a testable claim
KINDS: dict[str, str] = {
    "description": "says what a section, table or figure holds",
    "method": "says how the experiment was done",
    "definition": "defines a term, a threshold or a metric",
    "caption": "a table's or figure's caption: its name, layout or typography",
    "interpretation": "an explanation, conjecture or judgement the numbers cannot test",
    "figure": "a result read off a figure that prints no numbers, with no analogue in a build",
    "scope": "a limitation, the scope of the work, or future work",
    "contribution": "what the paper contributes or releases",
}
#: the fields of an entry, of a planned claim
ENTRY_FIELDS = ("section", "quote", "reading", "claims", "planned", "kind", "reason", "note")
PLANNED_FIELDS = (
    "claim",
    "status",
    "chapter",
    "quantifier",
    "rule",
    "paper_evidence",
    "build_evidence",
    "paper_source",
)
#: how the parts of a quote split by the text extraction are joined
PART_SEPARATOR = " [...] "
_KEY = re.compile(r"[a-z][a-z0-9_]*")


def quote_parts(quote: str) -> list[str]:
    """The parts of a quote (:data:`PART_SEPARATOR`), each whitespace-normalised.

    Parameters
    ----------
    quote : str
        A registry quote.

    Returns
    -------
    list of str
        Its parts (one for an unsplit quote).
    """
    return [" ".join(p.split()) for p in quote.split(PART_SEPARATOR.strip()) if p.strip()]


def _text(path: Path, where: str, holder: dict, key: str) -> str:
    value = holder.get(key)
    if not isinstance(value, str) or not value.strip():
        raise DataFormatError(path, f"{where}: expected a non-empty text", field=key)
    return value


def _keys(path: Path, where: str, value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or not value:
        raise DataFormatError(
            path, f"{where}: expected a non-empty list of claim keys", field=field
        )
    for k in value:
        if not isinstance(k, str) or not _KEY.fullmatch(k):
            raise DataFormatError(
                path,
                f"{where}: {k!r} is not a claim key (lower-case words joined by _)",
                field=field,
            )
    return list(value)


def _planned(path: Path, where: str, value: Any) -> list[dict]:
    if not isinstance(value, list) or not value:
        raise DataFormatError(path, f"{where}: expected a non-empty list", field="planned")
    out = []
    for i, p in enumerate(value, start=1):
        here = f"{where}, planned claim {i}"
        if not isinstance(p, dict):
            raise DataFormatError(path, f"{here}: expected a mapping", field="planned")
        unknown = sorted(set(p) - set(PLANNED_FIELDS))
        if unknown:
            raise DataFormatError(path, f"{here}: unknown fields {unknown}", field="planned")
        for key in ("claim", "chapter", "quantifier", "rule", "paper_evidence", "build_evidence"):
            _text(path, here, p, key)
        if not _KEY.fullmatch(p["claim"]):
            raise DataFormatError(path, f"{here}: {p['claim']!r} is not a claim key", field="claim")
        if p.get("status") != "planned":
            raise DataFormatError(path, f"{here}: status must be 'planned'", field="status")
        out.append(p)
    return out


def _validate(path: Path, doc: Any) -> dict:
    if not isinstance(doc, dict):
        raise DataFormatError(path, "expected a mapping at the top level")
    for key in ("paper", "text", "covers"):
        _text(path, "the file", doc, key)
    if doc["paper"] != path.stem:
        raise DataFormatError(
            path, f"paper {doc['paper']!r} differs from the file name", field="paper"
        )
    entries = doc.get("sentences")
    if not isinstance(entries, list) or not entries:
        raise DataFormatError(path, "expected a non-empty list", field="sentences")
    for n, e in enumerate(entries, start=1):
        where = f"sentence {n}"
        if not isinstance(e, dict):
            raise DataFormatError(path, f"{where}: expected a mapping", field="sentences")
        unknown = sorted(set(e) - set(ENTRY_FIELDS))
        if unknown:
            raise DataFormatError(path, f"{where}: unknown fields {unknown}", field="sentences")
        _text(path, where, e, "section")
        _text(path, where, e, "quote")
        if "claims" in e:
            _keys(path, where, e["claims"], "claims")
        if "planned" in e:
            _planned(path, where, e["planned"])
        if ("kind" in e) != ("reason" in e):
            raise DataFormatError(path, f"{where}: kind and reason come together", field="reason")
        if "kind" in e and e["kind"] not in KINDS:
            raise DataFormatError(path, f"{where}: kind must be one of {list(KINDS)}", field="kind")
        if "reason" in e:
            _text(path, where, e, "reason")
        if not any(k in e for k in ("claims", "planned", "reason")):
            raise DataFormatError(
                path, f"{where}: needs the claims that test it, a planned claim or a reason"
            )
    return doc


def load(paper: str, directory: str | Path | None = None) -> dict:
    """One paper's registry file, validated.

    Parameters
    ----------
    paper : str
        The paper's short name (the file's stem).
    directory : str or pathlib.Path or None
        The folder of the files (default :data:`SENTENCES_DIR`).

    Returns
    -------
    dict
        The file's contents.

    Raises
    ------
    KeyError
        For a paper without a file.
    calib.data.errors.DataFormatError
        For a file that is not valid YAML or breaks the format.
    """
    folder = SENTENCES_DIR if directory is None else Path(directory)
    path = folder / f"{paper}.yaml"
    if not path.is_file():
        known = ", ".join(papers(folder)) or "(none)"
        raise KeyError(f"no sentence registry for {paper!r} in {folder}; known: {known}")
    try:
        with open(path, encoding="utf-8") as fh:
            doc = yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as err:
        raise DataFormatError(path, f"not valid YAML: {err}") from err
    return _validate(path, doc)


def papers(directory: str | Path | None = None) -> list[str]:
    """The papers with a registry file, sorted."""
    folder = SENTENCES_DIR if directory is None else Path(directory)
    return sorted(p.stem for p in folder.glob("*.yaml"))


def sentences(directory: str | Path | None = None) -> pd.DataFrame:
    """Every registry entry of every paper, one row each: ``paper``, ``n`` (its place in the
    file, from 1), ``section``, ``quote``, ``reading``, ``claims`` (tuple of keys, the planned
    ones included), ``planned`` (tuple of the keys proposed there), ``kind``, ``reason``,
    ``note`` (``""`` where absent).

    Parameters
    ----------
    directory : str or pathlib.Path or None
        The folder of the files (default :data:`SENTENCES_DIR`).

    Returns
    -------
    pandas.DataFrame
        The entries, by paper in file order.
    """
    rows = []
    for paper in papers(directory):
        doc = load(paper, directory)
        for n, e in enumerate(doc["sentences"], start=1):
            planned = tuple(p["claim"] for p in e.get("planned", ()))
            claims = tuple(dict.fromkeys([*e.get("claims", ()), *planned]))
            rows.append(
                {
                    "paper": paper,
                    "n": n,
                    "section": e["section"],
                    "quote": " ".join(e["quote"].split()),
                    "reading": " ".join(e.get("reading", "").split()),
                    "claims": claims,
                    "planned": planned,
                    "kind": e.get("kind", ""),
                    "reason": " ".join(e.get("reason", "").split()),
                    "note": " ".join(e.get("note", "").split()),
                }
            )
    return pd.DataFrame(rows, columns=list(_COLUMNS))


_COLUMNS = (
    "paper",
    "n",
    "section",
    "quote",
    "reading",
    "claims",
    "planned",
    "kind",
    "reason",
    "note",
)


def planned_claims(directory: str | Path | None = None) -> pd.DataFrame:
    """The claims the registry proposes, one row each: ``claim``, ``paper``, ``section``,
    ``chapter``, ``quantifier``, ``rule``, ``paper_evidence``, ``build_evidence``,
    ``paper_source`` (``"printed tables"`` where not given) and ``n`` (the entry proposing it).

    Parameters
    ----------
    directory : str or pathlib.Path or None
        The folder of the files (default :data:`SENTENCES_DIR`).

    Returns
    -------
    pandas.DataFrame
        The proposed claims, by paper in file order.
    """
    rows = []
    for paper in papers(directory):
        for n, e in enumerate(load(paper, directory)["sentences"], start=1):
            for p in e.get("planned", ()):
                rows.append(
                    {
                        "claim": p["claim"],
                        "paper": paper,
                        "section": e["section"],
                        "chapter": p["chapter"],
                        "quantifier": p["quantifier"],
                        "rule": " ".join(p["rule"].split()),
                        "paper_evidence": " ".join(p["paper_evidence"].split()),
                        "build_evidence": " ".join(p["build_evidence"].split()),
                        "paper_source": p.get("paper_source", "printed tables"),
                        "n": n,
                    }
                )
    columns = [*PLANNED_FIELDS[:1], "paper", "section", *PLANNED_FIELDS[2:], "n"]
    return pd.DataFrame(rows, columns=columns)
