"""The prompts of a relation for LPAQA (Jiang et al. 2020, §3): the manual prompt, mined and
paraphrased prompts without duplicates, and LPAQA's released prompts as a reference.

* :func:`prompt_key` - a prompt's identity (case, spacing and the final full stop ignored);
* :func:`generate_prompts` - manual, ``top`` mined (§3.1, :mod:`calib.prompts.mining`) and
  ``top`` paraphrased (§3.2, :mod:`calib.prompts.paraphrase`) prompts per relation, each new
  by :func:`prompt_key`;
* :func:`reference_prompts` - LPAQA's best-weighted released prompts not already generated;
* :func:`lpaqa_overlap` - how many generated prompts LPAQA also released.

A prompt frame has ``relation, template, text, source, rank`` (and ``count``, ``score`` or
``weight`` by source).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import pandas as pd

from calib.data.lama import MANUAL, Lama, load_lpaqa_prompts
from calib.prompts.mining import METHODS, mine_prompts
from calib.prompts.paraphrase import paraphrase_prompts

#: where a prompt comes from (the ``source`` column of a prompt frame), in the order that
#: de-duplication keeps them
SOURCES: tuple[str, ...] = ("manual", "mined", "paraphrase", "mined-paraphrase")
#: LPAQA's released prompts used as a reference (scored on the test facts only)
REFERENCE_SOURCES: tuple[str, ...] = ("lpaqa-mine", "lpaqa-paraphrase")


def prompt_key(text: str) -> str:
    """A prompt's identity for de-duplication and for comparing prompt sets: lower case, single
    spaces, no space before punctuation, no final full stop (``"[X] plays [Y] ."`` and
    ``"[X] plays [Y]."`` are the same prompt)."""
    text = " ".join(text.lower().split())
    text = re.sub(r"\s+([.,;:!?)])", r"\1", text)
    return text.rstrip(" .")


def _dedup(frame: pd.DataFrame, seen: dict[str, set], top: int) -> pd.DataFrame:
    """Rows whose prompt is not yet in ``seen[relation]``, at most ``top`` per relation (in
    the frame's order); ``seen`` is updated."""
    keep: list[int] = []
    kept: Counter[str] = Counter()
    for i, (rel, text) in enumerate(zip(frame["relation"], frame["text"])):
        key, have = prompt_key(text), seen.setdefault(rel, set())
        if key in have or kept[rel] >= top:
            continue
        have.add(key)
        kept[rel] += 1
        keep.append(i)
    return frame.iloc[keep]


def generate_prompts(
    lama: Lama,
    corpus: pd.DataFrame,
    top: int,
    translator=None,
    pivots: Sequence[str] = (),
    rounds: int = 1,
    methods: Sequence[str] = METHODS,
    exclude: pd.DataFrame | None = None,
    nlp=None,
) -> pd.DataFrame:
    """Every relation's prompts (LPAQA §3): ``manual``; the ``top`` most frequent ``mined``
    prompts of ``corpus`` (§3.1, middle-word and dependency); the ``top`` best ``paraphrase``
    candidates of the manual prompt by back-translation through ``pivots`` (§3.2, ranked by the
    score of :mod:`calib.prompts.paraphrase`; skipped when ``translator`` is ``None``).

    A prompt equal (:func:`prompt_key`) to an earlier one (manual, then mined, then paraphrase)
    is dropped. ``exclude``: facts whose sentences are not mined (e.g. all test facts).
    Returns ``relation, template, text, source, rank, count, score`` (``count``: sentences
    that yield a mined prompt; ``score``: a paraphrase's ranking score).
    """
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    manual = pd.DataFrame(
        {
            "relation": list(lama.relations),
            "template": MANUAL,
            "text": [r.templates[MANUAL] for r in lama.relations.values()],
            "source": "manual",
            "rank": 0,
        }
    )
    seen: dict[str, set] = {}
    parts = [_dedup(manual, seen, 1)]
    rels = set(lama.relations)
    corpus = corpus[corpus["relation"].isin(rels)]
    if len(corpus):
        mined = mine_prompts(corpus, methods=methods, top=top + 1, exclude=exclude, nlp=nlp)
        parts.append(_dedup(mined.assign(source="mined"), seen, top))
    if translator is not None:
        para = paraphrase_prompts(
            manual, translator, pivots, top=3 * top + 1, rounds=rounds, keep_source=False
        )
        parts.append(_dedup(para.assign(source="paraphrase"), seen, top))
    cols = ["relation", "template", "text", "source", "rank", "count", "score"]
    out = pd.concat(parts, ignore_index=True).reindex(columns=cols)
    order = {r: i for i, r in enumerate(lama.relations)}
    out["_r"] = out["relation"].map(order)
    out["_s"] = out["source"].map({s: i for i, s in enumerate(SOURCES)})
    return (
        out.sort_values(["_r", "_s", "rank"], kind="stable")
        .drop(columns=["_r", "_s"])
        .reset_index(drop=True)
    )


def reference_prompts(prompts: pd.DataFrame, n: int, root=None) -> pd.DataFrame:
    """LPAQA's released prompts as a reference: per relation of ``prompts`` the ``n`` prompts
    of each of its ``mine`` and ``paraphrase`` sets with the largest weight (the weights LPAQA's
    optimised ensemble learned for BERT), leaving out any equal (:func:`prompt_key`) to one of
    ``prompts`` or to an earlier reference prompt. ``source`` is ``lpaqa-mine`` /
    ``lpaqa-paraphrase``."""
    cols = ["relation", "template", "text", "source", "rank", "weight"]
    if n < 1:
        return pd.DataFrame(columns=cols)
    seen = {rel: {prompt_key(t) for t in grp["text"]} for rel, grp in prompts.groupby("relation")}
    parts = []
    for kind in ("mine", "paraphrase"):
        p = load_lpaqa_prompts(kind, root, relations=sorted(seen))
        p = p.sort_values(
            ["relation", "weight", "rank"], ascending=[True, False, True], kind="stable"
        )
        parts.append(_dedup(p, seen, n))
    return pd.concat(parts, ignore_index=True)[cols]


def lpaqa_overlap(prompts: pd.DataFrame, root=None) -> pd.DataFrame:
    """How many of our mined and paraphrased prompts LPAQA also released (compared by
    :func:`prompt_key`): per relation and source, ``ours``, ``lpaqa`` (their set: ``mine``
    for mined; ``paraphrase`` + ``manual_paraphrase`` for paraphrases, of the manual prompt or
    of a mined one) and ``shared``. Sources ``prompts`` does not have are left out."""
    rels = sorted(set(prompts["relation"].unique()))
    theirs = {
        "mined": ("mine",),
        "paraphrase": ("paraphrase", "manual_paraphrase"),
        "mined-paraphrase": ("paraphrase", "manual_paraphrase"),
    }
    rows = []
    for source, kinds in theirs.items():
        if source != "mined" and source != "paraphrase" and not (prompts["source"] == source).any():
            continue
        lp = pd.concat([load_lpaqa_prompts(k, root, relations=rels) for k in kinds])
        for rel in rels:
            ours = {
                prompt_key(t)
                for t in prompts.loc[
                    (prompts["relation"] == rel) & (prompts["source"] == source), "text"
                ]
            }
            their = {prompt_key(t) for t in lp.loc[lp["relation"] == rel, "text"]}
            shared = sorted(ours & their)
            rows.append((rel, source, len(ours), len(their), len(shared), "; ".join(shared)))
    return pd.DataFrame(
        rows, columns=["relation", "source", "ours", "lpaqa", "shared", "shared prompts"]
    )
