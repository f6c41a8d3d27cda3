"""The LPAQA chapter's queries and scores (Jiang et al. 2020, §4-5): every prompt on the training
pairs and the test facts, scored through the score cache and reduced with ``sum``, the plan of
statements before scoring and the cost after.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import pandas as pd

from calib.confidence.reductions import sentence_scores
from calib.data.bear import PARAPHRASES, Bear
from calib.data.lama import Lama
from calib.prompts.generation import REFERENCE_SOURCES
from calib.scoring.statements import Query, template_queries

#: the score-table datasets of the three fact sets
TRAIN, TEST, BEAR = "lama-train", "lama", "bear"


#: the key columns of a sentence-score table that :func:`compact` keeps as categoricals, and
#: its integer columns it keeps as 32-bit integers
KEY_COLUMNS: tuple[str, ...] = ("model", "dataset", "relation", "instance", "template")
INT_COLUMNS: tuple[str, ...] = ("option", "answer_idx")


def compact(sent: pd.DataFrame) -> pd.DataFrame:
    """A sentence-score table (:func:`calib.confidence.reductions.sentence_scores`) in less
    memory: its keys as categoricals (a code of 1-2 bytes per row instead of a string each) and
    ``option`` and ``answer_idx`` as 32-bit integers; ``score`` as it is. The chapter's steps
    read it as they read the strings and give the same frames (the keys of their outputs come
    back as the strings). The categories are sorted (a categorical column with categories in
    another order gets them sorted): the steps sort and group by the keys, and a categorical
    sorts by its categories' order, so only sorted categories sort as the strings do. Other
    columns are left as they are; a table already compact comes back as it is."""
    cats, unsorted = [], []
    for c in KEY_COLUMNS:
        if c not in sent.columns:
            continue
        if not isinstance(sent[c].dtype, pd.CategoricalDtype):
            cats.append(c)
        elif not sent[c].cat.categories.is_monotonic_increasing:
            unsorted.append(c)
    ints = [
        c
        for c in INT_COLUMNS
        if c in sent.columns
        and sent[c].dtype != "int32"
        and pd.api.types.is_integer_dtype(sent[c].dtype)
        and (not len(sent) or (sent[c].min() >= -(2**31) and sent[c].max() < 2**31))
    ]
    if not cats and not ints and not unsorted:
        return sent
    out = sent.astype({**dict.fromkeys(cats, "category"), **dict.fromkeys(ints, "int32")})
    for c in unsorted:
        out[c] = out[c].cat.reorder_categories(sorted(out[c].cat.categories))
    return out


# ---------------------------------------------------------------------------------------------
# 3. queries and scoring


def _templates(prompts: pd.DataFrame) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for rel, name, text in zip(prompts["relation"], prompts["template"], prompts["text"]):
        out.setdefault(rel, {})[name] = text
    return out


def query_facts(frame: pd.DataFrame) -> pd.DataFrame:
    """Facts (a :class:`~calib.data.lama.Lama`'s or :class:`~calib.data.bear.Bear`'s ``instances``)
    in the columns :func:`~calib.scoring.statements.template_queries` reads."""
    return frame.rename(columns={"sub_label": "subject"})


def lama_queries(lama: Lama, prompts: pd.DataFrame) -> list[Query]:
    """The queries of LPAQA §4-5: every generated prompt of ``prompts`` on the training pairs
    (dataset ``"lama-train"``) and on the test facts (``"lama"``); reference prompts
    (:data:`~calib.prompts.generation.REFERENCE_SOURCES`) on the test facts only."""
    spaces = {r: rel.answer_labels for r, rel in lama.relations.items()}
    ours = prompts[~prompts["source"].isin(REFERENCE_SOURCES)]
    return template_queries(
        query_facts(lama.train), spaces, _templates(ours), TRAIN
    ) + template_queries(query_facts(lama.instances), spaces, _templates(prompts), TEST)


def statements(queries: Sequence[Query]) -> int:
    """The number of statements (model calls' units) of ``queries``."""
    return sum(len(q.statements) for q in queries)


def score(
    models: Sequence[str],
    queries: Sequence[Query] | Mapping[str, Sequence[Query]],
    part: str,
    **kwargs,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score ``queries`` (one list for every model, or a list per model) with
    :func:`calib.scoring.run.score_queries` (cached; ``kwargs`` go to it) and reduce them with
    the ``sum`` reduction. Returns the sentence-score table and a cost frame ``model, part,
    statements, seconds`` (seconds of this call: near 0 when the scores were cached)."""
    from calib.scoring.run import score_queries

    frames, cost = [], []
    for model in models:
        qs = list(queries[model] if isinstance(queries, Mapping) else queries)
        started = time.perf_counter()
        if qs:
            frames.append(sentence_scores(score_queries(model, qs, **kwargs)))
        cost.append((model, part, statements(qs), time.perf_counter() - started))
    return (
        pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(),
        pd.DataFrame(cost, columns=["model", "part", "statements", "seconds"]),
    )


def cost_table(*costs: pd.DataFrame) -> pd.DataFrame:
    """The scoring cost per model and part, with a total row per model. ``statements/s`` is
    left out (NaN) for parts that took under a second: their scores came from the cache."""
    frame = pd.concat(costs, ignore_index=True)
    total = (
        frame.groupby("model", as_index=False)[["statements", "seconds"]].sum().assign(part="total")
    )
    out = pd.concat([frame, total], ignore_index=True)
    out["statements/s"] = out["statements"] / out["seconds"].where(out["seconds"] >= 1.0)
    return out.sort_values(["model"], kind="stable").reset_index(drop=True)


def plan_table(
    sample: Lama,
    prompts: pd.DataFrame,
    top: int,
    bear: Bear | None,
    k: int,
    bear_templates: Sequence[str] = PARAPHRASES,
) -> pd.DataFrame:
    """Statements to score per model, before scoring: per relation the prompts, facts and
    options of the LAMA part (training pairs x generated prompts + test facts x all prompts),
    an upper bound for each model's Mine+Para paraphrases (``top`` per relation, on both fact
    sets) and for the BEAR part (BEAR facts x (BEAR templates + manual + ``k``) x options)."""
    rows = []
    for rid, rel in sample.relations.items():
        p = prompts[prompts["relation"] == rid]
        n_ours = int((~p["source"].isin(REFERENCE_SOURCES)).sum())
        n_train = int((sample.train["relation"] == rid).sum())
        n_test = int((sample.instances["relation"] == rid).sum())
        rows.append(
            (
                "LAMA",
                rid,
                len(p),
                n_train,
                n_test,
                rel.n_options,
                (n_ours * n_train + len(p) * n_test) * rel.n_options,
            )
        )
        rows.append(
            (
                "LAMA Mine+Para (at most)",
                rid,
                top,
                n_train,
                n_test,
                rel.n_options,
                top * (n_train + n_test) * rel.n_options,
            )
        )
    if bear is not None:
        for rid, rel in bear.relations.items():
            n = int((bear.instances["relation"] == rid).sum())
            n_prompts = len(bear_templates) + 1 + k
            rows.append(
                (
                    "BEAR (at most)",
                    rid,
                    n_prompts,
                    0,
                    n,
                    rel.n_options,
                    n_prompts * n * rel.n_options,
                )
            )
    return pd.DataFrame(
        rows,
        columns=[
            "part",
            "relation",
            "prompts",
            "train facts",
            "test facts",
            "options",
            "statements",
        ],
    )
