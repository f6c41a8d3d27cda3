"""Statements: templates filled with a subject and an answer, with character spans.

This module holds the one template filler (:func:`fill_template`) and the *query*: the
statements of one (dataset, relation, instance, template), one per answer option, over which a
softmax later runs. Statements are built as the BEAR authors' library builds them
(``lm-pub-quiz`` 0.3.3, ``Templater.replace_placeholders``, with which the paper's scores were
computed): the placeholders are replaced verbatim (no spaces added or stripped) and then the
first character of the statement is upper-cased, so "[X] is located in [Y]." with the subject
"mountain states" gives "Mountain states is located in ...". It also maps tokens to roles
(subject / object / template) from character offsets, so that reductions over answer tokens
(paper Appendix C) need no rescoring.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np
import pandas as pd

from calib.data.templates import OBJECT, SUBJECT, missing_slot
from calib.scoring.schema import ROLES

#: a role's index in :data:`~calib.scoring.schema.ROLES` (the codes of :func:`role_codes`)
ROLE_CODE: dict[str, int] = {role: i for i, role in enumerate(ROLES)}


@dataclass(frozen=True)
class Statement:
    """A filled template: its text and the character spans ``(role, start, end)`` of the
    subject and the object; every other character belongs to the template."""

    text: str
    spans: tuple[tuple[str, int, int], ...]


def capitalize_first(text: str) -> str:
    """``text`` with its first character upper-cased (``str.upper``), the rest unchanged: the
    rule of lm-pub-quiz 0.3.3's ``Templater.capitalize_text``."""
    return text[:1].upper() + text[1:]


def fill_template(template: str, subject: str, answer: str) -> Statement:
    """Put ``subject`` at ``[X]`` and ``answer`` at ``[Y]`` (each exactly once, either order),
    verbatim, then upper-case the statement's first character (:func:`capitalize_first`), as
    lm-pub-quiz 0.3.3 does (see the module docstring).

    >>> fill_template("[X] was born in [Y].", "Marie Curie", "Warsaw").text
    'Marie Curie was born in Warsaw.'
    >>> fill_template("[X] is located in [Y].", "mountain states", "Idaho").text
    'Mountain states is located in Idaho.'
    """
    slot = missing_slot(template)
    if slot is not None:
        raise ValueError(f"template {template!r} must hold {slot} exactly once")
    slots = sorted(
        (
            (template.index(SUBJECT), SUBJECT, "subject", subject),
            (template.index(OBJECT), OBJECT, "object", answer),
        )
    )
    text, spans, pos = "", [], 0
    for idx, slot, role, value in slots:
        text += template[pos:idx]
        spans.append((role, len(text), len(text) + len(value)))
        text += value
        pos = idx + len(slot)
    text += template[pos:]
    capital = capitalize_first(text)
    shift = len(capital) - len(text)  # non-zero only where upper() lengthens ("ß" -> "SS")
    if shift:
        spans = [(role, a + shift * (a > 0), b + shift) for role, a, b in spans]
    return Statement(text=capital, spans=tuple(sorted(spans, key=lambda s: s[0] != "subject")))


def continuation_statement(prefix: str, completion: str) -> Statement:
    """A prefix followed by a completion (FACTOR): the prefix is ``template``, the completion
    ``object``."""
    return Statement(
        text=prefix + completion, spans=(("object", len(prefix), len(prefix) + len(completion)),)
    )


@dataclass(frozen=True)
class Query:
    """The statements of one instance under one template: one per answer option."""

    dataset: str
    relation: str
    instance: str
    template: str
    answers: tuple[str, ...]
    statements: tuple[Statement, ...]
    answer_idx: int

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.dataset, self.relation, self.instance, self.template)


def template_queries(
    instances: pd.DataFrame,
    answer_spaces: Mapping[str, Sequence[str]],
    templates: Mapping[str, Mapping[str, str]],
    dataset: str,
) -> list[Query]:
    """Queries for every instance under every template of its relation.

    ``instances`` has columns ``relation, instance, subject, answer_idx`` (index of the object in
    the relation's answer space); ``answer_spaces[relation]`` lists the options;
    ``templates[relation]`` maps template names to texts with ``[X]`` and ``[Y]``.
    """
    out = []
    for rel, rows in instances.groupby("relation", sort=False):
        answers = tuple(answer_spaces[rel])
        for name, template in templates[rel].items():
            for inst, subject, idx in zip(rows["instance"], rows["subject"], rows["answer_idx"]):
                if not 0 <= int(idx) < len(answers):
                    raise ValueError(
                        f"{dataset} {rel} {inst}: answer_idx {idx} outside "
                        f"the answer space of {len(answers)}"
                    )
                out.append(
                    Query(
                        dataset,
                        str(rel),
                        str(inst),
                        name,
                        answers,
                        tuple(fill_template(template, subject, a) for a in answers),
                        int(idx),
                    )
                )
    return out


def bear_queries(bear, template_names: Iterable[str]) -> list[Query]:
    """Queries for a (sampled) :class:`~calib.data.bear.Bear` under the named templates."""
    names = list(template_names)
    inst = bear.instances.rename(columns={"sub_label": "subject"})
    spaces = {r: rel.answer_labels for r, rel in bear.relations.items()}
    temps = {r: {n: rel.templates[n] for n in names} for r, rel in bear.relations.items()}
    return template_queries(inst, spaces, temps, dataset="bear")


def token_roles(
    offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[str, int, int]]
) -> list[str]:
    """The role of each token: the span it overlaps most (ties go to the object), else
    ``template``. Offsets are the tokenizer's ``(start, end)`` character offsets (one
    statement's; :func:`role_codes` does many statements at once, by the same rule)."""
    offs = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    codes = role_codes(
        offs[:, 0],
        offs[:, 1],
        np.zeros(len(offs), dtype=np.int64),
        *flat_spans([spans]),
    )
    return [ROLES[c] for c in codes]


def flat_spans(
    spans_per_statement: Iterable[Sequence[tuple[str, int, int]]],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The spans of many statements as arrays: ``(starts, role, start, end)``, ``starts`` the
    offsets of each statement's spans (length statements + 1), ``role`` the index of the
    span's role in :data:`~calib.scoring.schema.ROLES`."""
    lists = list(spans_per_statement)
    starts = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(spans) for spans in lists], out=starts[1:])
    flat = list(chain.from_iterable(lists))
    if not flat:
        empty = np.zeros(0, dtype=np.int64)
        return starts, empty.astype(np.int8), empty, empty
    roles, begins, ends = zip(*flat)
    return (
        starts,
        np.fromiter(map(ROLE_CODE.__getitem__, roles), dtype=np.int8, count=len(flat)),
        np.asarray(begins, dtype=np.int64),
        np.asarray(ends, dtype=np.int64),
    )


def role_codes(
    token_start: np.ndarray,
    token_end: np.ndarray,
    statement: np.ndarray,
    span_starts: np.ndarray,
    span_role: np.ndarray,
    span_begin: np.ndarray,
    span_end: np.ndarray,
) -> np.ndarray:
    """The role of many tokens at once, as indices into :data:`~calib.scoring.schema.ROLES`:
    token ``i`` covers characters ``[token_start[i], token_end[i])`` of statement
    ``statement[i]``, whose spans are ``span_starts[s]:span_starts[s + 1]`` of the span arrays
    (:func:`flat_spans`). The rule of :func:`token_roles`: the span overlapping the token most,
    in the statement's span order, a later span winning a tie only if it is the object; no
    overlap: ``template``."""
    n_spans = np.diff(span_starts)[statement]
    first = span_starts[:-1][statement]
    best = np.full(len(token_start), ROLE_CODE["template"], dtype=np.int8)
    best_overlap = np.zeros(len(token_start), dtype=np.int64)
    last = max(len(span_role) - 1, 0)
    for j in range(int(n_spans.max()) if len(n_spans) else 0):
        k = np.minimum(first + j, last)
        overlap = np.minimum(token_end, span_end[k]) - np.maximum(token_start, span_begin[k])
        role = span_role[k]
        win = (overlap > best_overlap) | (
            (overlap == best_overlap) & (best_overlap > 0) & (role == ROLE_CODE["object"])
        )
        win &= n_spans > j
        best = np.where(win, role, best)
        best_overlap = np.where(win, overlap, best_overlap)
    return best


def common_prefix_length(sequences: Sequence[Sequence[int] | np.ndarray]) -> int:
    """Length of the longest common prefix of integer sequences."""
    if not sequences:
        return 0
    n = min(len(s) for s in sequences)
    first = np.asarray(sequences[0][:n])
    for s in sequences[1:]:
        diff = np.nonzero(np.asarray(s[:n]) != first)[0]
        if diff.size:
            n = int(diff[0])
            first = first[:n]
    return n
