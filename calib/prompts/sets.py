"""The prompt sets of LPAQA's experiments (Jiang et al. 2020, §5.1, Tables 2, 3 and 7): which
prompts each set holds, per relation (and, for Mine+Para, per model).

=============  ================================================================================
set            prompts (at most ``top`` = T generated ones, §5.1: "T = 40 most frequent prompts
               either generated through mining or paraphrasing")
=============  ================================================================================
``Mine``       the T mined prompts found in the most sentences, middle-word and dependency-based
               together (§3.1)
``Mine+Man``   Mine and the manual prompt
``Mine+Para``  the highest-ranked mined prompt (by the model's accuracy on the training pairs,
               §4.1) and its T best paraphrases (§3.2): one set per model
``Man+Para``   the manual prompt and its T best paraphrases
``Mid``        the T most frequent middle-word prompts (Table 7)
``Dep``        the T most frequent dependency-based prompts (beyond the paper: Table 7 prints
               Mid and Mid+Dep only)
``Mid+Dep``    Mine (Table 7's Mid+Dep row equals Table 2's Mine row)
=============  ================================================================================

The prompts are pooled per relation by their identity (:func:`calib.prompts.generation.prompt_key`):
a prompt found twice (a paraphrase equal to a mined prompt, a mined prompt equal to the manual one)
is scored once, under the name it got first, and belongs to every set that found it. The *prompt
frame* (:class:`PromptPool`'s :meth:`~PromptPool.frame`) has one row per scored prompt: ``relation,
template, text, source, rank, count, n_middle, n_dependency, score``; the *members frame* one row
per prompt of a set: ``relation, prompt_set, template, position`` (plus ``model`` for per-model
sets, :func:`for_models`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.data.lama import MANUAL, Lama
from calib.prompts.generation import prompt_key
from calib.prompts.paraphrase import Translator, backtranslation_scores

#: the prompt sets of the paper's Tables 2 and 3, in their order
PAPER_SETS: tuple[str, ...] = ("Mine", "Mine+Man", "Mine+Para", "Man+Para")
#: the mining ablation of Table 7 (Mid, Mid+Dep) and the dependency-based prompts alone
ABLATION_SETS: tuple[str, ...] = ("Mid", "Dep", "Mid+Dep")
#: the sets whose prompts do not depend on the model (Mine+Para does: its seed is the model's
#: best mined prompt)
MODEL_FREE_SETS: tuple[str, ...] = ("Mine", "Mine+Man", "Man+Para", "Mid", "Dep", "Mid+Dep")
#: the mined sets and the mining statistic that orders them
MINED_ORDER: dict[str, str] = {"Mine": "count", "Mid": "n_middle", "Dep": "n_dependency"}
MEMBER_COLUMNS: tuple[str, ...] = ("relation", "prompt_set", "template", "position")
PROMPT_COLUMNS: tuple[str, ...] = (
    "relation",
    "template",
    "text",
    "source",
    "rank",
    "count",
    "n_middle",
    "n_dependency",
    "score",
)


class PromptPool:
    """The distinct prompts of each relation, by :func:`~calib.prompts.generation.prompt_key`:
    :meth:`add` returns the name a prompt is scored under (the first name it was added with)."""

    def __init__(self):
        self._rows: list[dict] = []
        self._names: dict[tuple[str, str], str] = {}

    def add(self, relation: str, template: str, text: str, source: str, **extra) -> str:
        """Add a prompt (``extra``: the prompt frame's other columns); an equal prompt of the
        relation already in the pool keeps its name, which is returned."""
        key = (relation, prompt_key(text))
        if key in self._names:
            return self._names[key]
        if any(r["relation"] == relation and r["template"] == template for r in self._rows):
            raise ValueError(f"relation {relation!r} already has a prompt named {template!r}")
        self._names[key] = template
        self._rows.append(
            {"relation": relation, "template": template, "text": text, "source": source, **extra}
        )
        return template

    def name_of(self, relation: str, text: str) -> str | None:
        """The name an equal prompt of ``relation`` is scored under, or ``None``."""
        return self._names.get((relation, prompt_key(text)))

    def frame(self) -> pd.DataFrame:
        """The prompt frame (``PROMPT_COLUMNS``), in the order the prompts were added."""
        return pd.DataFrame(self._rows).reindex(columns=list(PROMPT_COLUMNS))


def paraphrase_candidates(
    translator: Translator, texts: Sequence[str], pivots: Sequence[str], rounds: int, top: int
) -> list[list[tuple[str, float]]]:
    """For each text, its ``top`` best back-translations (§3.2, ranked by
    :func:`~calib.prompts.paraphrase.backtranslation_scores`, ties by the text), each a
    ``(text, score)``: none equal (:func:`~calib.prompts.generation.prompt_key`) to the text
    itself or to a better-ranked candidate."""
    out = []
    for text, scores in zip(texts, backtranslation_scores(translator, list(texts), pivots, rounds)):
        seen, kept = {prompt_key(text)}, []
        for cand, score in sorted(scores.items(), key=lambda ts: (-ts[1], ts[0])):
            key = prompt_key(cand)
            if key in seen:
                continue
            seen.add(key)
            kept.append((cand, float(score)))
            if len(kept) == top:
                break
        out.append(kept)
    return out


def mined_order(mined: pd.DataFrame, statistic: str) -> pd.DataFrame:
    """The mined prompts (:func:`~calib.prompts.mining.mine_prompts`) that ``statistic``
    (``count``, ``n_middle`` or ``n_dependency``) finds at least once, most frequent first per
    relation (ties: the larger ``count``, then the text)."""
    found = mined[mined[statistic] > 0]
    return found.sort_values(
        ["relation", statistic, "count", "text"],
        ascending=[True, False, False, True],
        kind="stable",
    )


def model_free_sets(
    lama: Lama,
    mined: pd.DataFrame,
    top: int,
    translator: Translator | None,
    pivots: Sequence[str],
    rounds: int,
) -> tuple[PromptPool, pd.DataFrame]:
    """The pool and members of every set but Mine+Para (:data:`MODEL_FREE_SETS`), per relation of
    ``lama``: the manual prompt, the mined sets from ``mined``
    (:func:`~calib.prompts.mining.mine_prompts` with every prompt kept, ``top=None``) and the manual
    prompt's ``top`` best paraphrases (skipped, leaving Man+Para the manual prompt alone, when
    ``translator`` is ``None`` or there is no pivot)."""
    if top < 1:
        raise ValueError(f"top must be at least 1, got {top}")
    pool, members = PromptPool(), []

    def member(rel, name, template, position):
        members.append((rel, name, template, position))

    rels = list(lama.relations)
    for rel in rels:
        pool.add(rel, MANUAL, lama.relations[rel].templates[MANUAL], "manual", rank=0)
    mined = mined[mined["relation"].isin(rels)]
    for name, statistic in MINED_ORDER.items():
        for rel, grp in mined_order(mined, statistic).groupby("relation", sort=False):
            for pos, row in enumerate(grp.head(top).to_dict("records")):
                t = pool.add(
                    rel,
                    row["template"],
                    row["text"],
                    "mined",
                    rank=row["rank"],
                    count=row["count"],
                    n_middle=row["n_middle"],
                    n_dependency=row["n_dependency"],
                )
                member(rel, name, t, pos)
    para = (
        [[] for _ in rels]
        if translator is None or not pivots
        else paraphrase_candidates(
            translator, [lama.relations[r].templates[MANUAL] for r in rels], pivots, rounds, top
        )
    )
    for rel, cands in zip(rels, para):
        member(rel, "Man+Para", MANUAL, 0)
        for pos, (text, score) in enumerate(cands):
            t = pool.add(rel, f"bt-{pos:02d}", text, "paraphrase", rank=pos, score=score)
            member(rel, "Man+Para", t, pos + 1)
    frame = pd.DataFrame(members, columns=list(MEMBER_COLUMNS))
    mine = frame[frame["prompt_set"] == "Mine"]
    with_manual = pd.concat(
        [
            pd.DataFrame(
                {"relation": rels, "prompt_set": "Mine+Man", "template": MANUAL, "position": 0}
            ),
            mine.assign(prompt_set="Mine+Man", position=mine["position"] + 1),
        ]
    )
    frame = pd.concat([frame, with_manual, mine.assign(prompt_set="Mid+Dep")], ignore_index=True)
    # a prompt found twice within one set (a paraphrase equal to the manual prompt's name) once
    frame = frame.drop_duplicates(["relation", "prompt_set", "template"])
    return pool, _ordered(frame)


def mine_paraphrase_sets(
    pool: PromptPool,
    best: pd.DataFrame,
    top: int,
    translator: Translator | None,
    pivots: Sequence[str],
    rounds: int,
) -> pd.DataFrame:
    """Mine+Para (§5.1: "paraphrases the highest-ranked mined prompt for each relation") for
    each ``model, relation, template`` of ``best`` (the model's top-ranked prompt of the Mine
    set, a name in ``pool``): that prompt and its ``top`` best paraphrases, added to ``pool``
    as ``mp-<n>`` (source ``mined-paraphrase``, numbered per relation; a text two models reach
    has one name). Returns the members with a ``model`` column."""
    frame = pool.frame().set_index(["relation", "template"])
    seeds = list(dict.fromkeys(zip(best["relation"], best["template"])))
    texts = [frame.loc[s, "text"] for s in seeds]
    para = (
        [[] for _ in seeds]
        if translator is None or not pivots
        else paraphrase_candidates(translator, texts, pivots, rounds, top)
    )
    cands = dict(zip(seeds, para))
    counter: dict[str, int] = {}
    rows = []
    for model, rel, seed in zip(best["model"], best["relation"], best["template"]):
        rows.append((model, rel, "Mine+Para", seed, 0))
        for pos, (text, score) in enumerate(cands[(rel, seed)]):
            name = pool.name_of(rel, text)
            if name is None:
                name = pool.add(
                    rel,
                    f"mp-{counter.setdefault(rel, 0):02d}",
                    text,
                    "mined-paraphrase",
                    rank=pos,
                    score=score,
                )
                counter[rel] += 1
            rows.append((model, rel, "Mine+Para", name, pos + 1))
    out = pd.DataFrame(rows, columns=["model", *MEMBER_COLUMNS])
    return out.drop_duplicates(["model", "relation", "template"]).reset_index(drop=True)


def for_models(members: pd.DataFrame, models: Sequence[str]) -> pd.DataFrame:
    """A model-free members frame repeated for every model (a ``model`` column first)."""
    return pd.concat([members.assign(model=m) for m in models], ignore_index=True)[
        ["model", *MEMBER_COLUMNS]
    ]


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    order = {s: i for i, s in enumerate((*PAPER_SETS, *ABLATION_SETS))}
    return (
        frame.assign(_s=frame["prompt_set"].map(order))
        .sort_values(["relation", "_s", "position"], kind="stable")
        .drop(columns="_s")
        .reset_index(drop=True)
    )


def set_sizes(members: pd.DataFrame) -> pd.DataFrame:
    """Prompts per model, relation and set (the members frame counted), sets in the paper's
    order."""
    sizes = (
        members.groupby(["model", "relation", "prompt_set"], sort=False)
        .size()
        .rename("prompts")
        .reset_index()
    )
    return (
        sizes.pivot_table(
            index=["model", "relation"],
            columns="prompt_set",
            values="prompts",
            fill_value=0,
            sort=False,
        )
        .reindex(
            columns=[
                s for s in (*PAPER_SETS, *ABLATION_SETS) if s in set(members["prompt_set"].unique())
            ]
        )
        .reset_index()
        .rename_axis(columns=None)
    )
