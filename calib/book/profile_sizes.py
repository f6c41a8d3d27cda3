"""How many facts per model each profile (:mod:`calib.book.profiles`) runs a chapter with: the
sizes the ledger names when it says which profile would decide an undecided verdict
(:func:`calib.report.ledger_page.facts_text`, :mod:`calib.experiments.decide`).

A BEAR chapter runs ``per_relation`` facts from each of its ``relations`` (all 60 when
``None``), all 7,731 facts of BEAR (the paper's §4.1) when both are ``None``; the LPAQA chapter
runs ``test_per_relation`` test facts from each of its ``lama_relations`` (or of
``n_relations`` drawn ones). A profile that leaves
a parameter to the chapter's ``Params`` default gets that default; a size that is not a plain
product (every fact of a list of relations, every test fact of LAMA) is ``None``: unknown.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from calib.book.profiles import PROFILES, Profile
from calib.experiments.paper_tables import text_value


def _values(profile: Profile, params_cls) -> dict:
    fields = {f.name: f.default for f in dataclasses.fields(params_cls)}
    fields.update(profile.defaults_for(params_cls.chapter, fields))
    return fields


def chapter_facts(profile: Profile, params_cls) -> int | None:
    """Facts per model ``profile`` runs the chapter of ``params_cls`` (its ``Params``) with.

    Parameters
    ----------
    profile : calib.book.profiles.Profile
        The profile.
    params_cls : type
        The chapter's ``Params`` class.

    Returns
    -------
    int or None
        The facts per model, or ``None`` where the size is not a plain product.
    """
    v = _values(profile, params_cls)
    if "test_per_relation" in v and "lama_relations" in v:  # LPAQA: LAMA test facts
        k, rels, n_rels = v["test_per_relation"], v["lama_relations"], v.get("n_relations")
        count = len(rels) if rels is not None else n_rels
        return k * count if k is not None and count is not None else None
    if "per_relation" in v:
        k, rels = v["per_relation"], v.get("relations")
        if k is None:
            return int(text_value("bear_instances")) if rels is None else None
        return k * (len(rels) if rels is not None else int(text_value("bear_relations")))
    return None


def facts_per_model(
    params_cls, profiles: dict[str, Profile] | None = None
) -> dict[str, int | None]:
    """Per profile of real models (``cpu``, ``paper``: the synthetic ``quick`` profile's
    placeholder numbers decide nothing), the facts per model the chapter of ``params_cls`` runs
    with (:func:`chapter_facts`), smallest first.

    Parameters
    ----------
    params_cls : type
        The chapter's ``Params`` class.
    profiles : dict or None
        The profiles (default ``calib.book.profiles.PROFILES``).

    Returns
    -------
    dict
        Profile name -> facts per model (``None``: not a plain product).
    """
    profiles = PROFILES if profiles is None else profiles
    sizes = {name: chapter_facts(p, params_cls) for name, p in profiles.items() if not p.synthetic}
    return dict(sorted(sizes.items(), key=lambda kv: (kv[1] is None, kv[1] or 0)))


def allocation(profile: Profile, chapters: list[str]) -> pd.DataFrame:
    """How ``profile`` spends its budget: per chapter (``chapters``, those with ``Params``), its
    models, the parameters that set its sample (``per_relation``, ``relations``,
    ``test_per_relation``, ``lama_relations``: the profile's value or the chapter's default) and
    the facts per model they give (:func:`chapter_facts`; ``None``: not a plain product).

    Parameters
    ----------
    profile : calib.book.profiles.Profile
        The profile.
    chapters : list of str
        Chapter names, e.g. the toc's.

    Returns
    -------
    pandas.DataFrame
        One row per chapter with ``Params``: ``chapter``, ``models``, ``sample`` (the size
        parameters as ``name = value``), ``facts per model``.
    """
    import importlib

    rows = []
    for name in chapters:
        try:
            params_cls = importlib.import_module(f"calib.experiments.{name}").Params
        except (ImportError, AttributeError):
            continue
        values = _values(profile, params_cls)
        if "models" not in values:
            continue
        sample = "; ".join(
            f"{k} = {values[k]!r}"
            for k in ("per_relation", "relations", "test_per_relation", "lama_relations")
            if k in values
        )
        rows.append(
            {
                "chapter": name,
                "models": ", ".join(values["models"]),
                "sample": sample,
                "facts per model": chapter_facts(profile, params_cls),
            }
        )
    return pd.DataFrame(rows, columns=["chapter", "models", "sample", "facts per model"])


def allocation_markdown(profiles: dict[str, Profile], chapters: list[str]) -> str:
    """The reproduction page's table of each real-model profile's allocation
    (:func:`allocation`), with the profile's description (its reason) above it: Markdown."""
    out = []
    for name, profile in profiles.items():
        frame = allocation(profile, chapters)
        out.append(f"**`{name}`**: {profile.description}\n")
        out.append("| chapter | models | sample | facts per model |")
        out.append("|---|---|---|---:|")
        for r in frame.to_dict("records"):
            facts = r["facts per model"]
            shown = f"{facts:,}" if facts is not None else "see the chapter"
            out.append(f"| {r['chapter']} | {r['models']} | {r['sample']} | {shown} |")
        out.append("")
    return "\n".join(out)
