"""The BEAR probe (Wiland et al. 2024) with the 12 templates of Kissling et al. (2026).

60 Wikidata relations, 7,731 instances. Every instance of a relation is scored against the
relation's whole *answer space* (5 to 60 options). Each relation has 12 templates, named here:

==========================  =====  =============================================
name                        index  example (P19)
==========================  =====  =============================================
``paraphrase-0`` .. ``-4``  0-4    "[X] was born in [Y]." and four rephrasings
``possibly``                5      "[X] was possibly born in [Y]."
``certainly``               6      "[X] was certainly born in [Y]."
``numeric-0`` .. ``-100``   7-11   "I'm 0% confident [X] was born in [Y]." (0/25/50/75/100)
==========================  =====  =============================================

The numeric templates are kept as the authors' ``metadata_relations.json`` has them,
"I'm x% confident [X] ...", although the paper's text (§3.3) writes "I'm x% confident that
[X] ...".
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pandas as pd

from calib.data.errors import DataFormatError
from calib.data.jsonl import check_unique, check_value, read_json, read_jsonl
from calib.data.probe import Probe, Relation
from calib.data.root import data_file, data_root
from calib.data.templates import check_template

PARAPHRASES: tuple[str, ...] = tuple(f"paraphrase-{i}" for i in range(5))
NUMERIC: tuple[str, ...] = tuple(f"numeric-{p}" for p in (0, 25, 50, 75, 100))
LINGUISTIC: tuple[str, ...] = ("possibly", "certainly", *NUMERIC)
#: the 12 template names, in the order of ``metadata_relations.json``
TEMPLATE_NAMES: tuple[str, ...] = (*PARAPHRASES, *LINGUISTIC)
#: the plain template the injected ("linguistic") ones are derived from
PLAIN = "paraphrase-0"

_INSTANCE_FIELDS = ("sub_id", "sub_label", "obj_id", "obj_label", "answer_idx")
#: the kind of every field the loader reads (:data:`calib.data.jsonl.KINDS`)
_INSTANCE_TYPES = {
    "sub_id": "text",
    "sub_label": "text",
    "obj_id": "text",
    "obj_label": "text",
    "answer_idx": "integer",
    "sub_aliases": "strings",
}
_META = "bear/metadata_relations.json"
_DOMAINS = "bear/relation_info.json"


def template_names(spec: str | list[str] | tuple[str, ...]) -> list[str]:
    """Expand a template selection into names.

    Accepts a list of names, a comma-separated string, ``"all"``, ``"paraphrases"``,
    ``"linguistic"``, and ranges written ``paraphrase-0..4`` (also ``0..4`` for indices).

    Parameters
    ----------
    spec : str or sequence of str
        The selection: names, or a comma-separated string of names, groups and ranges.

    Returns
    -------
    list of str
        The template names, in the order asked for, each once.

    Raises
    ------
    ValueError
        For a malformed or empty range, an unknown name or index, or a selection of no
        template.
    """
    if isinstance(spec, (list, tuple)):
        parts = [str(p) for p in spec]
    else:
        parts = [p.strip() for p in str(spec).split(",") if p.strip()]
    out: list[str] = []
    for part in parts:
        if part == "all":
            out += TEMPLATE_NAMES
        elif part == "paraphrases":
            out += PARAPHRASES
        elif part == "linguistic":
            out += LINGUISTIC
        elif ".." in part:
            out += _template_range(part)
        elif part.isdigit():
            if int(part) >= len(TEMPLATE_NAMES):
                last = len(TEMPLATE_NAMES) - 1
                raise ValueError(f"template index {part} is out of range: expected 0 to {last}")
            out.append(TEMPLATE_NAMES[int(part)])
        else:
            out.append(part)
    unknown = [n for n in out if n not in TEMPLATE_NAMES]
    if unknown:
        raise ValueError(f"unknown template name(s) {unknown}; known: {list(TEMPLATE_NAMES)}")
    if not out:
        raise ValueError(
            f"{spec!r} selects no template: expected names, ranges (paraphrase-0..4) or groups "
            f"(all, paraphrases, linguistic)"
        )
    return list(dict.fromkeys(out))


def _template_range(part: str) -> list[str]:
    """The names of a range ``paraphrase-0..4`` (or ``0..4``, by index); an empty or malformed
    range is a ``ValueError``."""
    head, _, hi = part.rpartition("..")
    stem, _, lo = head.rpartition("-") if "-" in head else ("", "", head)
    if not (lo.isdigit() and hi.isdigit()):
        raise ValueError(f"template range {part!r}: expected e.g. 'paraphrase-0..4'")
    if int(lo) > int(hi):
        raise ValueError(f"template range {part!r} is empty: expected LOW..HIGH with LOW <= HIGH")
    if not stem:
        names = list(TEMPLATE_NAMES[int(lo) : int(hi) + 1])
    else:
        names = [
            n
            for n in TEMPLATE_NAMES
            if n.rpartition("-")[0] == stem and int(lo) <= int(n.rpartition("-")[2]) <= int(hi)
        ]
    if not names:
        raise ValueError(f"template range {part!r} selects no template of {list(TEMPLATE_NAMES)}")
    return names


@dataclass(frozen=True)
class Bear(Probe):
    """BEAR loaded and validated: relations by id and one row per instance.

    ``instances`` columns: ``relation, instance`` (the subject's Wikidata id), ``sub_label,
    sub_aliases, obj_id, obj_label, answer_idx`` (index of the object in the answer space).
    """

    #: the ``dataset`` value of this probe's rows in a score table
    dataset: ClassVar[str] = "bear"
    name: ClassVar[str] = "BEAR"


def parse_relation_metadata(path: Path, rel: str, meta: dict, domains=()) -> dict:
    """Validate one relation's metadata entry and return its parts."""
    if not isinstance(meta, dict):
        raise DataFormatError(path, "expected an object", field=rel)
    for key in ("templates", "answer_space_labels", "answer_space_ids"):
        if key not in meta:
            raise DataFormatError(path, "missing", field=f"{rel}.{key}")
    templates = meta["templates"]
    if not isinstance(templates, list) or len(templates) != len(TEMPLATE_NAMES):
        raise DataFormatError(
            path,
            f"expected {len(TEMPLATE_NAMES)} templates, got "
            f"{len(templates) if isinstance(templates, list) else templates!r}",
            field=f"{rel}.templates",
        )
    for i, t in enumerate(templates):
        check_template(
            path,
            t,
            field=f"{rel}.templates[{i}]",
            name=TEMPLATE_NAMES[i] if i < len(TEMPLATE_NAMES) else str(i),
        )
    labels, ids = meta["answer_space_labels"], meta["answer_space_ids"]
    for key, values in (("answer_space_labels", labels), ("answer_space_ids", ids)):
        check_value(path, values, "list", field=f"{rel}.{key}")
        for i, v in enumerate(values):
            check_value(path, v, "text", field=f"{rel}.{key}[{i}]")
    if not labels:
        raise DataFormatError(path, "the answer space is empty", field=f"{rel}.answer_space_labels")
    if len(labels) != len(ids):
        raise DataFormatError(
            path, f"{len(labels)} labels but {len(ids)} ids", field=f"{rel}.answer_space_ids"
        )
    for key, values in (("answer_space_labels", labels), ("answer_space_ids", ids)):
        seen: dict = {}
        for i, v in enumerate(values):
            if v in seen:
                raise DataFormatError(
                    path,
                    f"duplicate answer {v!r} at positions {seen[v]} and {i}",
                    field=f"{rel}.{key}",
                )
            seen[v] = i
    return dict(
        templates=dict(zip(TEMPLATE_NAMES, templates)),
        answer_labels=tuple(labels),
        answer_ids=tuple(ids),
        domains=tuple(domains),
    )


def load_bear(root: str | os.PathLike | None = None, relations: list[str] | None = None) -> Bear:
    """Load and validate BEAR from the data root (see :mod:`calib.data.root`).

    Raises :class:`~calib.data.errors.DataFormatError` naming file, line and field for bytes that
    are not UTF-8, malformed JSON (with its column), a field of the wrong type (``sub_label``
    must be a non-empty string, ``answer_idx`` an integer ...), an empty relation file, a
    template without ``[X]`` or ``[Y]``, an ``answer_idx`` that does not point at the instance's
    object in the answer space, duplicate answers, an empty answer space, or a relation file
    without metadata.

    Parameters
    ----------
    root : str or os.PathLike or None
        The data root; ``None``: ``$CALIB_DATA_DIR``, else the user cache
        (:func:`calib.data.root.data_root`).
    relations : list of str or None
        Only these relation ids (``P19`` ...); ``None`` (default): every relation of the
        metadata (``bear/metadata_relations.json``), each of whose files must be there.

    Returns
    -------
    calib.data.bear.Bear
        The relations by id and one row per instance (``relation, instance, sub_label,
        sub_aliases, obj_id, obj_label, answer_idx``).

    Raises
    ------
    calib.data.errors.DataFormatError
        For the malformed data above.
    ValueError
        For a relation id in ``relations`` that BEAR's metadata does not have.
    calib.data.root.DataNotFoundError
        When a data file is missing under the root and cannot be downloaded: the metadata or
        the file of a relation it lists.
    """
    meta_path = data_file(_META, root)
    meta = read_json(meta_path)
    if not isinstance(meta, dict):
        raise DataFormatError(meta_path, "expected an object keyed by relation id")
    domains_path: Path | None
    try:
        domains_path = data_file(_DOMAINS, root)
        domain_info = read_json(domains_path)
    except FileNotFoundError:  # no domains file: no relation has domains
        domains_path, domain_info = None, {}
    if domains_path is not None and (
        not isinstance(domain_info, dict)
        or not all(isinstance(v, dict) for v in domain_info.values())
    ):
        raise DataFormatError(domains_path, "expected an object of objects keyed by relation id")
    if relations is not None:
        unknown = sorted(set(relations) - set(meta))
        if unknown:
            raise ValueError(f"unknown BEAR relation(s) {unknown} (not in {meta_path})")
    else:  # every relation of the metadata, and any file beside them (refused below)
        stray = {f.stem for f in (data_root(root) / "bear").glob("P*.jsonl")} - set(meta)
        relations = [*meta, *stray]
    files = [data_file(f"bear/{rel}.jsonl", root) for rel in sorted(set(relations))]
    meta_bytes = {r: json.dumps(m, sort_keys=True).encode() for r, m in meta.items()}
    rels: dict[str, Relation] = {}
    frames = []
    for path in files:
        rel = path.stem
        if rel not in meta:
            raise DataFormatError(path, f"relation {rel} has no entry in {meta_path}")
        domains = domain_info.get(rel, {}).get("domains", [])
        if domains_path is not None:
            check_value(domains_path, domains, "strings", field=f"{rel}.domains")
        parts = parse_relation_metadata(meta_path, rel, meta[rel], domains)
        rows = read_jsonl(path, required=_INSTANCE_FIELDS, types=_INSTANCE_TYPES)
        for row in rows:
            line, idx = row["_line"], row["answer_idx"]
            if not 0 <= idx < len(parts["answer_labels"]):
                raise DataFormatError(
                    path,
                    f"answer_idx {idx!r} is not an index into the "
                    f"answer space of {len(parts['answer_labels'])} options",
                    line=line,
                    field="answer_idx",
                )
            if (
                parts["answer_ids"][idx] != row["obj_id"]
                or parts["answer_labels"][idx] != row["obj_label"]
            ):
                raise DataFormatError(
                    path,
                    f"answer_idx {idx} points at {parts['answer_labels'][idx]!r} "
                    f"({parts['answer_ids'][idx]}), but the object is {row['obj_label']!r} "
                    f"({row['obj_id']})",
                    line=line,
                    field="answer_idx",
                )
        check_unique(path, rows, lambda r: r["sub_id"], "sub_id", lambda k: f"subject {k}")
        digest = hashlib.sha256(meta_bytes[rel] + path.read_bytes()).hexdigest()[:16]
        rels[rel] = Relation(id=rel, version=digest, **parts)
        frames.append(
            pd.DataFrame(
                {
                    "relation": rel,
                    "instance": [r["sub_id"] for r in rows],
                    "sub_label": [r["sub_label"] for r in rows],
                    "sub_aliases": [list(r.get("sub_aliases") or []) for r in rows],
                    "obj_id": [r["obj_id"] for r in rows],
                    "obj_label": [r["obj_label"] for r in rows],
                    "answer_idx": [r["answer_idx"] for r in rows],
                }
            )
        )
    if not frames:
        raise DataFormatError(data_file(_META, root).parent, "no relation files bear/P*.jsonl")
    return Bear(relations=rels, instances=pd.concat(frames, ignore_index=True))


#: the size of a 1:1 relation's answer space in BEAR (Kissling et al. §5.2: "the 60 options in
#: the 1:1 relations")
ONE_TO_ONE_OPTIONS = 60


def one_to_one_relations(
    relations: Sequence[str] | None = None,
    *,
    data_dir: str | os.PathLike | None = None,
    n_options: int = ONE_TO_ONE_OPTIONS,
) -> list[str]:
    """BEAR's 1:1 relations (answer spaces of ``n_options`` = 60) among ``relations``
    (``None``: all of BEAR), sorted: the relations §5.2 subsamples (Figures 3 and 4).

    Parameters
    ----------
    relations : sequence of str or None
        The relations to choose from; ``None`` (default): all of BEAR.
    data_dir : str or os.PathLike or None
        The data root (:func:`calib.data.root.data_root`).
    n_options : int
        The size of the answer space that makes a relation 1:1 (default 60).

    Returns
    -------
    list of str
        The relation ids, sorted.

    Raises
    ------
    ValueError
        For a relation id BEAR does not have.
    calib.data.errors.DataFormatError
        As in :func:`load_bear`.
    """
    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    return sorted(r for r, rel in bear.relations.items() if rel.n_options == n_options)
