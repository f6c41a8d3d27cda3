"""Paraphrasing prompts by back-translation (Jiang et al. 2020, §3.2).

A prompt is translated into a pivot language and back; the round trips give candidate
paraphrases, which are ranked and the top ``T`` kept. The translator is anything that follows
the small :class:`Translator` protocol (back-ends in :mod:`calib.prompts.translators`: Apertium,
offline, and MarianMT, the paper's English-German models, when the hub is reachable).

**Placeholders.** ``[X]`` and ``[Y]`` would be translated ("[Y]" comes back from Spanish as
"[And]"), so before translation they are replaced by the made-up words of :data:`SENTINELS`,
which translators copy through as unknown names, and put back afterwards (case-insensitively,
at word boundaries). Candidates that do not come back with each placeholder exactly once are
dropped.

**Ranking score.** Every translation carries a log-probability (a back-end with a single
output per input, such as Apertium, gives it probability 1). The one-round score of a candidate
``t`` of the prompt ``t0`` is its round-trip probability, averaged over the pivot languages
``p`` and summed over the pivot sentences ``u`` that lead to it::

    P_1(t | t0) = 1/|pivots| * sum_p sum_u  P(u | t0; en->p) * P(t | u; p->en)

With the paper's setup (one pivot, B forward and B backward beams) this ranks as LPAQA's
round-trip probability, with the B^2 paths that lead to the same ``t`` added up. With Apertium
every probability is 1, so it is the share of pivot languages whose round trip gives ``t``: the
agreement of independent translation systems. Apertium returns one translation per pair, so few
distinct paraphrases come back; ``rounds`` > 1 paraphrases the paraphrases, and the score is
then ``sum_{r<=rounds} P_r(t | t0)`` with ``P_r`` the chain of ``r`` round trips (the expected
number of visits to ``t`` in a random walk of ``rounds`` round trips). Ties are broken by the
text (alphabetical), so the result is deterministic.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple, Protocol, runtime_checkable

import pandas as pd

from calib.data.templates import SLOTS, missing_slot
from calib.prompts.mining import TOP_T

#: the stand-in words that carry [X] and [Y] through a translation
SENTINELS: dict[str, str] = {"[X]": "PX1", "[Y]": "PY1"}


class Candidate(NamedTuple):
    """One translation of one input text, with its log-probability under the translator."""

    text: str
    logprob: float = 0.0


@runtime_checkable
class Translator(Protocol):
    """What paraphrasing needs from a machine-translation back-end.

    ``translate(texts, src, tgt)`` returns, for each input text, its candidate translations from
    language ``src`` into ``tgt`` (ISO 639-1 codes such as ``"en"``, ``"es"``), each with a
    log-probability (0.0 when the back-end gives one output without a score).
    """

    name: str

    def translate(self, texts: Sequence[str], src: str, tgt: str) -> list[list[Candidate]]: ...


def protect(template: str) -> str:
    """Replace ``[X]``/``[Y]`` by their :data:`SENTINELS` so they survive translation."""
    for slot, word in SENTINELS.items():
        template = template.replace(slot, word)
    return template


def restore(text: str, source: str | None = None) -> str | None:
    """Put ``[X]``/``[Y]`` back in a translated text; ``None`` unless each comes back once.

    Whitespace is normalised to single spaces. When the ``source`` prompt starts with a
    placeholder followed by a lower-case word, a capitalised word after a leading placeholder is
    lower-cased again (rule-based translators capitalise the word after an unknown first word).
    """
    for slot, word in SENTINELS.items():
        text = re.sub(rf"(?<![\w\[]){re.escape(word)}(?!\w)", slot, text, flags=re.IGNORECASE)
    text = " ".join(text.split())
    if missing_slot(text) is not None:
        return None
    if source is not None:
        src_words, words = source.split(), text.split()
        if (
            len(src_words) > 1
            and src_words[0] in SLOTS
            and src_words[1][:1].islower()
            and len(words) > 1
            and words[0] in SLOTS
            and words[1][:1].isupper()
            and words[1][1:].islower()
        ):
            words[1] = words[1][:1].lower() + words[1][1:]
            text = " ".join(words)
    return text


def round_trips(
    translator: Translator, templates: Sequence[str], pivots: Sequence[str], lang: str = "en"
) -> list[dict[str, float]]:
    """For each template, its paraphrases with their one-round round-trip probability.

    ``P(t | t0) = 1/|pivots| * sum_p sum_u P_p(u | t0) P_p(t | u)`` (module docstring): the
    template goes into each pivot and back with its placeholders protected; candidates that lose
    a placeholder are dropped, so the values can sum to less than 1.
    """
    if not pivots:
        raise ValueError("at least one pivot language is needed")
    protected = [protect(t) for t in templates]
    scores: list[dict[str, float]] = [defaultdict(float) for _ in templates]
    for pivot in pivots:
        forward = translator.translate(protected, lang, pivot)
        if len(forward) != len(protected):
            raise ValueError(
                f"{translator.name} returned {len(forward)} results for "
                f"{len(protected)} texts ({lang}->{pivot})"
            )
        flat = [(i, c) for i, cands in enumerate(forward) for c in cands]
        back = translator.translate([c.text for _, c in flat], pivot, lang)
        if len(back) != len(flat):
            raise ValueError(
                f"{translator.name} returned {len(back)} results for "
                f"{len(flat)} texts ({pivot}->{lang})"
            )
        for (i, mid), cands in zip(flat, back):
            for cand in cands:
                text = restore(cand.text, templates[i])
                if text is not None:
                    scores[i][text] += math.exp(mid.logprob + cand.logprob) / len(pivots)
    return [dict(s) for s in scores]


def backtranslation_scores(
    translator: Translator,
    templates: Sequence[str],
    pivots: Sequence[str],
    rounds: int = 1,
    lang: str = "en",
) -> list[dict[str, float]]:
    """For each template ``t0``, every paraphrase ``t`` reached in up to ``rounds`` round trips
    with its score ``sum_{r=1..rounds} P_r(t | t0)``, where ``P_1`` is :func:`round_trips` and
    ``P_r(t | t0) = sum_s P_{r-1}(s | t0) P_1(t | s)`` (a chain of round trips; with ``rounds=1``
    this is the paper's ranking). Each distinct text is translated once.
    """
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    cache: dict[str, dict[str, float]] = {}
    dists = [{t: 1.0} for t in templates]
    totals: list[dict[str, float]] = [defaultdict(float) for _ in templates]
    for _ in range(rounds):
        todo = [t for t in dict.fromkeys(s for d in dists for s in d) if t not in cache]
        cache.update(zip(todo, round_trips(translator, todo, pivots, lang)))
        new_dists = []
        for dist, total in zip(dists, totals):
            new: dict[str, float] = defaultdict(float)
            for s, p in dist.items():
                for t, q in cache[s].items():
                    new[t] += p * q
            for t, v in new.items():
                total[t] += v
            new_dists.append(new)
        dists = new_dists
    return [dict(t) for t in totals]


def paraphrase_prompts(
    prompts: pd.DataFrame,
    translator: Translator,
    pivots: Sequence[str],
    top: int = TOP_T,
    rounds: int = 1,
    lang: str = "en",
    keep_source: bool = True,
) -> pd.DataFrame:
    """Paraphrase each relation's prompts by back-translation and keep the ``top`` best (§3.2).

    ``prompts``: columns ``relation, text`` (e.g. the manual template of each relation; several
    prompts of one relation pool their candidates, scores added). Candidates are ranked by
    :func:`backtranslation_scores` (``rounds`` > 1 paraphrases the paraphrases, for back-ends
    with one output per pair such as Apertium). ``keep_source`` puts each source prompt first
    (LPAQA's released paraphrase sets start with the manual prompt), ahead of the ranked
    candidates; it counts towards ``top``.

    Returns ``relation, template, text, rank, score, source``: ``template`` = ``bt-<rank>``,
    ``score`` the ranking score (NaN for a kept source), ``source`` = ``"backtranslation"``.
    """
    for col in ("relation", "text"):
        if col not in prompts.columns:
            raise ValueError(f"prompts lack column {col!r}; expected relation, text")
    texts = list(prompts["text"])
    scored = backtranslation_scores(translator, texts, pivots, rounds, lang)
    pooled: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    sources: dict[str, list[str]] = defaultdict(list)
    for rel, text, cands in zip(prompts["relation"], texts, scored):
        if text not in sources[rel]:
            sources[rel].append(text)
        for cand, score in cands.items():
            pooled[rel][cand] += score
    rows = []
    for rel in dict.fromkeys(prompts["relation"].unique()):
        head = [(t, float("nan")) for t in sources[rel]] if keep_source else []
        ranked = sorted(
            ((t, s) for t, s in pooled[rel].items() if not (keep_source and t in sources[rel])),
            key=lambda ts: (-ts[1], ts[0]),
        )
        for rank, (text, score) in enumerate((head + ranked)[:top]):
            rows.append((rel, f"bt-{rank:02d}", text, rank, score, "backtranslation"))
    return pd.DataFrame(rows, columns=["relation", "template", "text", "rank", "score", "source"])
