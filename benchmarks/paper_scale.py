"""Every chapter's analysis at the paper's size, on synthetic scores of BEAR's real structure
(issue 24).

The score tables are those the store would give (:mod:`calib.scoring.schema`, the list columns
as Arrow lists, as :meth:`calib.scoring.cache.ScoreStore.lookup` reads them): BEAR's real
relations, instances, answer spaces and ``answer_idx`` (:func:`calib.data.bear.load_bear`, the
seeded sample of :meth:`~calib.data.probe.Probe.sample`,
:func:`calib.scoring.statements.bear_queries`),
2-11 tokens per statement with their roles, random token log-probabilities (the correct option's
object tokens raised by a random amount per model and fact, so that models are right more often
than chance). FACTOR (Wiki-FACTOR's size by default) and LAMA (the paper profile's sample, data
only) are built the same way. Only the analysis is timed (``analyse`` of each chapter, with its
defaults: ``n_bootstrap`` 1000, ``floor_draws`` 1000 ...), each chapter in a fresh process: wall
seconds, CPU seconds (the process and its workers), and the peak RSS of the process tree (sampled
every 0.1 s) beside the table's own size.

Examples
--------
The paper's profile (29 models x all of BEAR; a quiet machine, ~1 h)::

    python benchmarks/paper_scale.py --models 29 --out benchmarks/results/paper_scale.json

One chapter, a sample (per_relation 10: 600 facts), 4 workers::

    python benchmarks/paper_scale.py --chapters calibration --models 4 --per-relation 10 --workers 4
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

CHAPTERS = (
    "calibration",
    "linguistic",
    "reductions",
    "clm_vs_mlm",
    "start_tokens",
    "factor",
    "answer_set",
    "lpaqa",
)
ROLES = ("subject", "object", "template")
ROLE_CODE = {r: i for i, r in enumerate(ROLES)}
#: chapters whose per-model steps run in a pool (calib.experiments.per_model)
POOLED = (
    "calibration",
    "linguistic",
    "reductions",
    "clm_vs_mlm",
    "factor",
    "answer_set",
    "lpaqa",
)
#: pooled chapters whose driver never holds the scores: each worker reads its model's (the
#: measured ``table_gib`` is one model's table)
READ_PER_MODEL = ("lpaqa",)
#: the paper profile: models of Table 3, facts of BEAR
PAPER_MODELS, PAPER_FACTS = 29, 7731
#: where the results go by default, and the Markdown book/scaling.md includes (the book's
#: sources hold it: a build copies book/, not benchmarks/)
DEFAULT_OUT = Path(__file__).parent / "results" / "paper_scale.json"
BOOK_MD = Path(__file__).resolve().parents[1] / "book" / "scaling_measured.md"
#: Wiki-FACTOR's items (the paper profile's FACTOR sample, Table 4)
WIKI_FACTOR_ITEMS = 2994


# -- models -----------------------------------------------------------------------------------


def registry_models(n: int) -> list[str]:
    """The first ``n`` models of the paper's Table 3 (registry order), CLMs and MLMs
    interleaved so that a small ``n`` has both."""
    from calib.models.registry import paper_models

    specs = paper_models()
    clm = [s.name for s in specs if s.objective == "clm"]
    mlm = [s.name for s in specs if s.objective == "mlm"]
    out: list[str] = []
    while len(out) < min(n, len(specs)):
        for group in (clm, mlm, clm, clm):  # about the paper's 21:8
            if group and len(out) < n:
                out.append(group.pop(0))
    return out


def objectives(models) -> dict[str, str]:
    from calib.models.registry import get_spec

    return {m: get_spec(m).objective for m in models}


# -- tables -----------------------------------------------------------------------------------


def query_frame(queries) -> pd.DataFrame:
    """One row per (query, option): the keys, answer and answer_idx of ``queries``
    (:class:`calib.scoring.statements.Query`)."""
    n_opt = np.fromiter((len(q.answers) for q in queries), dtype=np.int64, count=len(queries))
    qi = np.repeat(np.arange(len(queries)), n_opt)
    option = np.arange(len(qi)) - np.repeat(np.cumsum(n_opt) - n_opt, n_opt)
    head = pd.DataFrame(
        [(q.dataset, q.relation, q.instance, q.template, q.answer_idx) for q in queries],
        columns=["dataset", "relation", "instance", "template", "answer_idx"],
    )
    frame = head.iloc[qi].reset_index(drop=True)
    for c in ("dataset", "relation", "instance", "template"):  # one string object per value
        frame[c] = frame[c].astype("category").astype(object)
    frame.insert(4, "option", option.astype(np.int32))
    frame.insert(5, "answer", [a for q in queries for a in q.answers])
    frame["answer_idx"] = frame["answer_idx"].astype(np.int32)
    return frame


def token_columns(
    frame: pd.DataFrame, rng: np.random.Generator, strength: np.ndarray, prefix: int = 0
) -> tuple[pa.Array, pa.Array]:
    """Arrow list columns ``token_logprobs`` (float32) and ``token_roles`` for the rows of
    ``frame``: ``prefix`` + 1-3 template tokens, 1-3 subject tokens and 1-3 object tokens
    (FACTOR: a shared prefix of ``prefix`` template tokens and 1-3 object tokens), log-probabilities
    ``-Gamma(2, 0.5)``; the correct option's object tokens raised by ``strength`` (per row)."""
    n = len(frame)
    n_sub = np.zeros(n, np.int64) if prefix else rng.integers(1, 4, n)
    n_tpl = np.full(n, prefix, np.int64) if prefix else rng.integers(1, 4, n)
    n_obj = rng.integers(1, 4, n)
    n_tok = n_sub + n_tpl + n_obj
    offsets = np.concatenate([[0], np.cumsum(n_tok)]).astype(np.int32)
    total = int(offsets[-1])
    lp = -rng.gamma(2.0, 0.5, total)
    within = np.arange(total) - np.repeat(offsets[:-1], n_tok)
    row = np.repeat(np.arange(n), n_tok)
    code = np.where(
        within < np.repeat(n_tpl, n_tok),
        ROLE_CODE["template"],
        np.where(
            within < np.repeat(n_tpl + n_sub, n_tok), ROLE_CODE["subject"], ROLE_CODE["object"]
        ),
    )
    correct = (frame["option"].to_numpy() == frame["answer_idx"].to_numpy())[row]
    boost = np.where((code == ROLE_CODE["object"]) & correct, (strength / n_obj)[row], 0.0)
    lp = np.minimum(lp + boost, -1e-3).astype(np.float32)
    off = pa.array(offsets)
    logprobs = pa.ListArray.from_arrays(off, pa.array(lp))
    roles = pa.DictionaryArray.from_arrays(pa.array(code.astype(np.int32)), pa.array(ROLES))
    return logprobs, pa.ListArray.from_arrays(off, roles.cast(pa.string()))


def score_table(
    queries, models, seed: int = 0, prefix: int = 0, arrow: bool = True
) -> pd.DataFrame:
    """The store's score table (:data:`calib.scoring.schema.SCORE_COLUMNS`) of ``queries`` for
    each of ``models``, random token log-probabilities: with ``arrow`` every column as the store
    reads it back (:func:`calib.scoring.cache.as_stored`: Arrow-backed strings, Arrow lists, so
    the table's memory is the real one), model after model; else the list columns as the
    Python objects pandas makes of them (the store's read side before issue 24)."""
    from calib.scoring.cache import as_stored
    from calib.scoring.schema import SCORE_COLUMNS

    base = query_frame(queries)
    parts = []
    for i, model in enumerate(models):
        rng = np.random.default_rng([seed, i])
        per_query = rng.gamma(2.0, 2.0, len(queries))  # how sure the model is of each fact
        n_opt = np.fromiter((len(q.answers) for q in queries), dtype=np.int64)
        lp, roles = token_columns(base, rng, np.repeat(per_query, n_opt), prefix)
        part = base.copy()
        part.insert(0, "model", model)
        if arrow:
            part["token_logprobs"] = pd.Series(pd.arrays.ArrowExtensionArray(lp), index=part.index)
            part["token_roles"] = pd.Series(pd.arrays.ArrowExtensionArray(roles), index=part.index)
        else:
            part["token_logprobs"] = lp.to_pandas()
            part["token_roles"] = roles.to_pandas()
        parts.append(as_stored(part[list(SCORE_COLUMNS)]) if arrow else part[list(SCORE_COLUMNS)])
    return pd.concat(parts, ignore_index=True)


def bear_sample(args):
    from calib.data.bear import load_bear

    bear = load_bear(relations=args.relations)
    return bear.sample(args.per_relation, args.seed)


def bear_table(args, models, templates) -> pd.DataFrame:
    from calib.scoring.statements import bear_queries

    return score_table(
        bear_queries(bear_sample(args), templates), models, args.seed, arrow=not args.python_lists
    )


def factor_table(args, models) -> pd.DataFrame:
    """Wiki-FACTOR-sized items (``--factor-items``): four continuations per item (the first
    correct), a shared prefix of 60 tokens."""
    from calib.scoring.statements import Query

    queries = [
        Query(
            "factor-wiki",
            "wiki",
            f"item-{i}",
            "continuation",
            tuple(f"c{j}" for j in range(4)),
            (),
            0,
        )
        for i in range(args.factor_items)
    ]
    return score_table(queries, models, args.seed + 1, prefix=60, arrow=not args.python_lists)


# -- chapters ---------------------------------------------------------------------------------


def params_for(module, args, models, **extra):
    """The chapter's ``Params`` with its defaults, the models and sample of ``args``."""
    names = {f.name for f in dataclasses.fields(module.Params)}
    values = {
        "models": tuple(models),
        "relations": tuple(args.relations) if args.relations else None,
        "per_relation": args.per_relation,
        "seed": args.seed,
    }
    if args.n_bootstrap is not None:
        values["n_bootstrap"] = args.n_bootstrap
    if args.floor_draws is not None:
        values["floor_draws"] = args.floor_draws
    values.update(extra)
    return module.Params(**{k: v for k, v in values.items() if k in names})


def prepare(chapter: str, args):
    """``(thunk, facts, models, table_rows)``: the chapter's analysis on synthetic scores."""
    import importlib

    from calib.data.bear import LINGUISTIC, PARAPHRASES, PLAIN, one_to_one_relations

    module = importlib.import_module(f"calib.experiments.{chapter}")
    models = registry_models(args.models)
    kinds = objectives(models)
    if chapter in ("calibration", "clm_vs_mlm"):
        scores = bear_table(args, models, PARAPHRASES)
        p = params_for(module, args, models)
        kw = {"workers": args.workers}
        if chapter == "clm_vs_mlm":
            kw["objectives"] = kinds
        return (lambda: module.analyse(scores, p, **kw)), scores, models, len(scores)
    if chapter == "linguistic":
        scores = bear_table(args, models, (PLAIN, *LINGUISTIC))
        p = params_for(module, args, models)
        return (
            (lambda: module.analyse(scores, p, workers=args.workers)),
            scores,
            models,
            len(scores),
        )
    if chapter == "reductions":
        scores = bear_table(args, models, (PLAIN,))
        p = params_for(module, args, models)
        return (
            (lambda: module.analyse(scores, p, objectives=kinds, workers=args.workers)),
            scores,
            models,
            len(scores),
        )
    if chapter == "start_tokens":
        causal = [m for m in models if kinds[m] == "clm"]
        p = params_for(module, args, models)
        single = bear_table(args, causal, (p.template,))
        other = single.copy()
        shift = np.random.default_rng(args.seed).normal(0, 0.05, len(other))
        lp = (
            pa.array(other["token_logprobs"].to_list(), pa.list_(pa.float32()))
            if args.python_lists
            else None
        )
        if lp is None:
            import pyarrow.compute as pc

            arr = other["token_logprobs"].array._pa_array.combine_chunks()  # noqa: SLF001
            per_tok = np.repeat(shift, pc.list_value_length(arr).to_numpy())
            flat = pc.list_flatten(arr).to_numpy() + per_tok.astype(np.float32)
            other["token_logprobs"] = pd.arrays.ArrowExtensionArray(
                pa.ListArray.from_arrays(arr.offsets, pa.array(np.minimum(flat, -1e-3)))
            )
        scores = pd.concat(
            [single.assign(rule="single"), other.assign(rule="lm-pub-quiz-0.3.3")],
            ignore_index=True,
        )
        n_queries = int(single[["relation", "instance"]].drop_duplicates().shape[0])
        tokens = pd.DataFrame(
            [(m, "left", n_queries, n_queries, n_queries, "<s>", "<s>") for m in causal],
            columns=["model", "padding_side", "statements", "two_bos", "differ", "start", "bos"],
        )
        rs = module.RuleScores(scores, tokens, n_queries)
        return (lambda: module.analyse(rs, p, objectives=kinds)), scores, models, len(scores)
    if chapter == "factor":
        fac = factor_table(args, models)
        bear = bear_table(args, models, (PLAIN,))
        p = params_for(module, args, models, factor_subsets=("wiki",), factor_items=None)
        fs = module.FactorScores(factor=fac, bear=bear)
        return (
            (lambda: module.analyse(fs, p, objectives=kinds, workers=args.workers)),
            bear,
            models,
            len(fac) + len(bear),
        )
    if chapter == "answer_set":
        ones = set(one_to_one_relations())
        keep = [r for r in (args.relations or ones) if r in ones]
        sub = argparse.Namespace(**{**vars(args), "relations": sorted(keep)})
        bear = bear_table(sub, models, (PLAIN,))
        fac = factor_table(args, models)
        p = params_for(module, args, models, factor_subsets=("wiki",), factor_items=None)
        scores = module.AnswerSetScores(bear=bear, factor=fac)
        return (
            (lambda: module.analyse(scores, p, objectives=kinds, workers=args.workers)),
            bear,
            models,
            len(fac) + len(bear),
        )
    if chapter == "lpaqa":
        return prepare_lpaqa(module, args, models)
    raise ValueError(f"unknown chapter {chapter!r}; expected one of {list(CHAPTERS)}")


def prepare_lpaqa(module, args, models):
    """The paper profile's LAMA sample (data only; ``--lama-relations``), the manual prompt,
    ``top_t`` mined and ``top_t`` paraphrased prompts per relation in LPAQA's prompt sets,
    random sentence scores of every query: built one model at a time and written to a
    temporary folder (Parquet, compact: :func:`calib.experiments.lpaqa.scoring.compact`), which
    the analysis reads one model at a time in its workers (``LpaqaScores.scores`` a loader per
    model, as a score store would be read). No table of several models is made: the table
    returned beside the thunk is the first model's (its facts and its size)."""
    import atexit
    import shutil
    import tempfile
    from functools import partial

    from calib.book.profiles import PROFILES
    from calib.data.lama import MANUAL
    from calib.experiments.lpaqa import sample
    from calib.prompts.sets import PROMPT_COLUMNS, for_models

    paper = PROFILES["paper"].chapters["lpaqa"]
    rels = args.lama_relations
    top_t = args.top_t or paper["top_t"]
    drawn = sample.load_sample(
        rels,
        None,
        args.train_per_relation or paper["train_per_relation"],
        args.test_per_relation or paper["test_per_relation"],
        seed=args.seed,
        answer_space=paper["answer_space"],
    )
    lama = drawn.sample
    mined = [f"mined-{i:02d}" for i in range(top_t)]
    para = [f"paraphrase-{i:02d}" for i in range(top_t)]
    prompts, members = [], []
    for rid, rel in lama.relations.items():
        prompts.append(
            {"relation": rid, "template": MANUAL, "text": rel.templates[MANUAL], "source": "manual"}
        )
        prompts += [
            {"relation": rid, "template": n, "text": "[X] in [Y] .", "source": "mined"}
            for n in mined
        ]
        prompts += [
            {"relation": rid, "template": n, "text": "[X] at [Y] .", "source": "paraphrase"}
            for n in para
        ]
        for prompt_set, names in (
            ("Man", [MANUAL]),
            ("Mine", mined),
            ("Mine+Man", [MANUAL, *mined]),
            ("Para", para),
            ("Man+Para", [MANUAL, *para]),
        ):
            members += [(rid, prompt_set, n, i) for i, n in enumerate(names)]
    prompts = pd.DataFrame(prompts).reindex(columns=list(PROMPT_COLUMNS))
    members = for_models(
        pd.DataFrame(members, columns=["relation", "prompt_set", "template", "position"]), models
    )
    keys = lpaqa_query_keys(lama, prompts)
    folder = Path(tempfile.mkdtemp(prefix="paper-scale-lpaqa-"))
    atexit.register(shutil.rmtree, folder, True)
    loaders, rows = {}, 0
    for i, m in enumerate(models):
        table = lpaqa_sentences(keys, m, args.seed + 2 + i)
        rows += len(table)
        table.to_parquet(folder / f"{i}.parquet")
        loaders[m] = partial(pd.read_parquet, folder / f"{i}.parquet")
        del table
    first = loaders[models[0]]()
    scores = module.LpaqaScores(drawn, prompts, members, loaders)
    p = params_for(module, args, models, beyond_paper=True)
    return (lambda: module.analyse(scores, p, workers=args.workers)), first, models, rows


def lpaqa_query_keys(lama, prompts: pd.DataFrame) -> pd.DataFrame:
    """One row per query of :func:`calib.experiments.lpaqa.scoring.lama_queries` (in its
    order: the training pairs, then the test facts; relation, template, fact): ``dataset,
    relation, instance, template, answer_idx`` and ``n_options``, without the statements' texts
    (the analysis reads none)."""
    from calib.experiments.lpaqa import scoring
    from calib.prompts.generation import REFERENCE_SOURCES

    ours = prompts[~prompts["source"].isin(REFERENCE_SOURCES)]
    parts = []
    for dataset, frame, pr in (
        (scoring.TRAIN, lama.train, ours),
        (scoring.TEST, lama.instances, prompts),
    ):
        facts = scoring.query_facts(frame)
        names = {r: list(dict.fromkeys(g["template"])) for r, g in pr.groupby("relation")}
        for rel, rows in facts.groupby("relation", sort=False):
            n_opt = len(lama.relations[rel].answer_labels)
            for name in names.get(rel, []):
                parts.append(
                    pd.DataFrame(
                        {
                            "dataset": dataset,
                            "relation": str(rel),
                            "instance": rows["instance"].astype(str).to_numpy(),
                            "template": name,
                            "answer_idx": rows["answer_idx"].to_numpy(np.int64),
                            "n_options": n_opt,
                        }
                    )
                )
    return pd.concat(parts, ignore_index=True)


def lpaqa_sentences(keys: pd.DataFrame, model: str, seed: int) -> pd.DataFrame:
    """A compact sentence-score table (:func:`calib.experiments.lpaqa.scoring.compact`: keys as
    categoricals, ``option`` and ``answer_idx`` int32) of the queries ``keys``
    (:func:`lpaqa_query_keys`) for ``model``, built directly: the ``sum`` of 3-9 token
    log-probabilities ``-Gamma(2, 0.5)`` (so ``-Gamma(2 n, 0.5)``), the correct option's raised
    by the model's sureness of the query (``Gamma(2, 2)``), at most ``-1e-3`` per token: what
    :func:`score_table` and ``sentence_scores`` give, without the token lists."""
    rng = np.random.default_rng([seed, 0])
    n_opt = keys["n_options"].to_numpy(np.int64)
    qi = np.repeat(np.arange(len(keys)), n_opt)
    option = (np.arange(len(qi)) - np.repeat(np.cumsum(n_opt) - n_opt, n_opt)).astype(np.int32)
    answer_idx = keys["answer_idx"].to_numpy(np.int32)[qi]
    n_tok = rng.integers(1, 4, (3, len(qi)), dtype=np.int8).sum(axis=0, dtype=np.int64)
    score = -rng.gamma(2.0 * n_tok, 0.5)
    strength = rng.gamma(2.0, 2.0, len(keys))
    correct = option == answer_idx
    score[correct] += strength[qi[correct]]
    score = np.minimum(score, -1e-3 * n_tok)
    del n_tok, correct
    out = {"model": pd.Categorical.from_codes(np.zeros(len(qi), np.int8), [model])}
    for c in ("dataset", "relation", "instance", "template"):
        codes, cats = pd.factorize(keys[c], sort=True)  # sorted: as compact() keeps them
        out[c] = pd.Categorical.from_codes(codes[qi], cats)
    return pd.DataFrame({**out, "option": option, "answer_idx": answer_idx, "score": score})


# -- measuring --------------------------------------------------------------------------------


class PeakRss:
    """The largest summed RSS of this process and its descendants (``peak``), of this process
    alone (``main``) and of any one descendant (``worker``), sampled every ``every`` s."""

    def __init__(self, every: float = 0.1):
        import psutil

        self.me, self.every, self._stop = psutil.Process(), every, threading.Event()
        self.peak = self.main = self.worker = 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        own = self.me.memory_info().rss
        kids = []
        for p in self.me.children(recursive=True):
            with contextlib.suppress(Exception):  # a worker that just ended
                kids.append(p.memory_info().rss)
        self.main = max(self.main, own)
        self.worker = max(self.worker, *kids, 0)
        self.peak = max(self.peak, own + sum(kids))

    def _run(self):
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.every)

    def __enter__(self):
        self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self._sample()


def cpu_seconds() -> tuple[float, float]:
    """CPU seconds of this process and of its ended children (a pool's workers)."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


def pool_workers(chapter: str, n_models: int, rows: int, workers: int | None) -> int:
    """Processes the chapter's analysis used: its per-model pool's, else 1."""
    from calib.experiments.per_model import worker_count

    return worker_count(n_models, rows, workers) if chapter in POOLED else 1


def project(
    rows: list[dict], cores: tuple[int, ...] = (2, 16), ray_workers=(4, 8, 16, 29)
) -> list[dict]:
    """The paper profile's analyses (29 models x 7,731 facts) projected from measured rows,
    assuming the CPU time and memory linear in models x facts (issue 24's requirement; two sizes
    measured test it): per chapter the one-process CPU seconds, the wall seconds on ``cores``
    workers of one machine and on each of ``ray_workers`` Ray workers (a pooled chapter:
    ``main + ceil(29 / W) * per_model``; otherwise one process: its CPU seconds) and the peak
    memory: the interpreter, the score table (``table_gib``, pandas' deep count, which
    overstates Arrow-backed columns) scaled by models x facts, the analysis's own (a pooled
    driver's scaled by facts, one process's by models x facts), plus ``W`` workers' on one
    machine (each scaled by facts; on Ray each worker needs ``worker_gib`` of its own). One
    machine of each of ``cores`` (this 2-core machine, a 16-core GPU machine)."""
    import math

    out = []
    for r in rows:
        fx = r.get("paper_facts", PAPER_FACTS) / r["facts"]
        mx = PAPER_MODELS / r["models"]
        pooled = r["chapter"] in POOLED and r["workers"] > 1
        per_model = (r["cpu_workers_s"] if pooled else r["cpu_s"]) / r["models"] * fx
        main = (r["cpu_main_s"] if pooled else 0.0) * fx * mx
        # memory: the interpreter with calib (``base``), the score table (scales with models x
        # facts), the analysis's own: in a pooled driver per model in flight (facts), in one
        # process over every model (models x facts); each worker's own (facts)
        read = r["chapter"] in READ_PER_MODEL
        base = r["rss_before_gib"] if read else max(r["rss_before_gib"] - r["table_gib"], 0.0)
        extra = (r["peak_main_gib"] if pooled else r["peak_rss_gib"]) - r["rss_before_gib"]
        table = 0.0 if read else r["table_gib"] * fx * mx
        # (a chapter that reads per model holds every model's outputs in its driver: models)
        driver = base + table + max(extra, 0.0) * fx * (1 if pooled and not read else mx)
        worker = base + max(r["peak_worker_gib"] - base, 0.0) * fx if pooled else 0.0
        row = {
            "chapter": r["chapter"],
            "from_models": r["models"],
            "from_facts": r["facts"],
            "cpu_s": round(main + per_model * PAPER_MODELS, 1),
        }
        row["worker_gib"] = round(worker, 2)
        ray = [(f"{n} Ray workers", n, False) for n in ray_workers]
        local = [(f"{c} cores", c, True) for c in cores]
        for label, w, on_one in [*local, *ray]:
            if r["chapter"] in POOLED:
                wall = main + math.ceil(PAPER_MODELS / w) * per_model
                # one machine: the driver and its workers; Ray: the driver (each worker, on its
                # own node, needs worker_gib)
                mem = driver + (min(w, PAPER_MODELS) * worker if on_one else 0.0)
            else:
                wall, mem = per_model * PAPER_MODELS, driver
            row[f"wall_s {label}"] = round(wall, 1)
            row[f"peak_gib {label}"] = round(mem, 2)
        out.append(row)
    return out


def _run_line(run: dict) -> str:
    return (
        f"`{run['command']}` on {run['when']} ({run['machine']['cpus']} CPUs, load "
        f"average {run['machine']['load'][0]:.1f} at the end)"
    )


def markdown(doc: dict) -> str:
    """The measured rows and the projection as Markdown tables (included by book/scaling.md)."""
    if "runs" in doc:  # several runs combined (--combine): each with its command
        head = ["Measured in one run per line:", ""]
        head += [f"- {', '.join(r['chapters'])}: {_run_line(r)}" for r in doc["runs"]]
    else:
        head = [f"Measured by {_run_line(doc)}:"]
    lines = [
        *head,
        "",
        "| chapter | models | facts | workers | wall s | CPU s | peak RSS GiB |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in doc["chapters"]:
        lines.append(
            f"| {r['chapter']} | {r['models']} | {r['facts']:,} | {r['workers']} | "
            f"{r['wall_s']:,.0f} | {r['cpu_s']:,.0f} | {r['peak_rss_gib']:.1f} |"
        )
    proj = doc["projection"]
    labels = [k.removeprefix("wall_s ") for k in proj[0] if k.startswith("wall_s ")]
    lines += [
        "",
        "Projected to the paper profile (29 models x 7,731 facts; minutes, GiB):",
        "",
        "| chapter | CPU min | " + " | ".join(f"{x}: min, GiB" for x in labels) + " |",
        "|---|---|" + "---|" * len(labels),
    ]
    for r in proj:
        cells = [f"{r[f'wall_s {x}'] / 60:,.1f}, {r[f'peak_gib {x}']:.1f}" for x in labels]
        lines.append(f"| {r['chapter']} | {r['cpu_s'] / 60:,.1f} | " + " | ".join(cells) + " |")
    total = {x: sum(r[f"wall_s {x}"] for r in proj) / 60 for x in labels}
    lines.append(
        "| **sum** | "
        + f"{sum(r['cpu_s'] for r in proj) / 60:,.1f} | "
        + " | ".join(f"{total[x]:,.1f}" for x in labels)
        + " |"
    )
    return "\n".join(lines) + "\n"


def paper_facts(chapter: str, facts: int) -> int:
    """Facts per model of the chapter in the paper profile: BEAR's 7,731, the instances of its
    1:1 relations for answer_set, the measured sample for lpaqa (already the paper profile's
    LAMA sample unless made smaller). The FACTOR chapter's FACTOR items do not grow with BEAR:
    scaling its time by BEAR's facts overstates it."""
    if chapter == "lpaqa":
        return facts
    if chapter == "answer_set":
        from calib.data.bear import load_bear, one_to_one_relations

        return len(load_bear(relations=list(one_to_one_relations())).instances)
    return PAPER_FACTS


def release_unused() -> None:
    """Hand memory freed while building the synthetic tables back to the system (Python's
    garbage, Arrow's pool, glibc's heap), so that ``rss_before_gib`` is the table and the
    interpreter, not the builder's leftovers."""
    import ctypes
    import gc

    gc.collect()
    pa.default_memory_pool().release_unused()
    with contextlib.suppress(OSError, AttributeError):  # glibc only
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def measure(chapter: str, args) -> dict:
    """Build the chapter's synthetic scores, then time its analysis (this process)."""
    t0 = time.perf_counter()
    thunk, table, models, rows = prepare(chapter, args)
    build_s = time.perf_counter() - t0
    facts = int(table[["relation", "instance"]].drop_duplicates().shape[0])
    table_gib = float(table.memory_usage(deep=True).sum()) / 2**30
    del table
    release_unused()  # the builder's garbage is no part of the store's table
    import psutil

    before = psutil.Process().memory_info().rss
    with PeakRss() as rss:
        (s0, k0), w0 = cpu_seconds(), time.perf_counter()
        thunk()
        wall = time.perf_counter() - w0
        s1, k1 = cpu_seconds()
    return {
        "chapter": chapter,
        "models": len(models),
        "facts": facts,
        "score_rows": int(rows),
        "workers": pool_workers(chapter, len(models), rows, args.workers),
        "wall_s": round(wall, 2),
        "cpu_s": round(s1 - s0 + k1 - k0, 2),
        "cpu_main_s": round(s1 - s0, 2),
        "cpu_workers_s": round(k1 - k0, 2),
        "peak_rss_gib": round(rss.peak / 2**30, 3),
        "peak_main_gib": round(rss.main / 2**30, 3),
        "peak_worker_gib": round(rss.worker / 2**30, 3),
        "paper_facts": paper_facts(chapter, facts),
        "table_gib": round(table_gib, 3),
        "rss_before_gib": round(before / 2**30, 3),
        "build_s": round(build_s, 2),
    }


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chapters", nargs="+", default=list(CHAPTERS), choices=CHAPTERS)
    ap.add_argument("--models", type=int, default=29, help="registry models (Table 3's, up to 29)")
    ap.add_argument(
        "--per-relation", type=int, default=None, help="BEAR facts per relation (None: all)"
    )
    ap.add_argument("--relations", nargs="+", default=None, help="BEAR relations (None: all 60)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes of a chapter's per-model steps (None: per_model's default)",
    )
    ap.add_argument("--n-bootstrap", type=int, default=None, help="None: each chapter's default")
    ap.add_argument("--floor-draws", type=int, default=None, help="None: each chapter's default")
    ap.add_argument("--factor-items", type=int, default=WIKI_FACTOR_ITEMS)
    ap.add_argument(
        "--lama-relations", nargs="+", default=None, help="None: all 41 (paper profile)"
    )
    ap.add_argument("--train-per-relation", type=int, default=None)
    ap.add_argument("--test-per-relation", type=int, default=None)
    ap.add_argument("--top-t", type=int, default=None)
    ap.add_argument(
        "--python-lists",
        action="store_true",
        help="token lists as Python objects (the old read side)",
    )
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument(
        "--combine",
        nargs="+",
        type=Path,
        default=None,
        help="measure nothing: write the rows of these result files (each measured in its own "
        "run, its command kept) as one document at --out",
    )
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def main(argv=None) -> None:
    args = parse(argv)
    if args.combine:
        combine(args.combine, args.out, list(sys.argv[1:] if argv is None else argv))
        return
    if args.child:  # one chapter, this process
        print(json.dumps(measure(args.chapters[0], args)), flush=True)
        return
    argv = list(sys.argv[1:] if argv is None else argv)
    rows: list[dict] = []
    for chapter in args.chapters:
        child = [*_without(argv, "--chapters"), "--chapters", chapter, "--child"]
        done = subprocess.run(
            [sys.executable, __file__, *child], capture_output=True, text=True, check=False
        )
        if done.returncode:
            sys.stderr.write(done.stderr)
            raise SystemExit(f"{chapter}: the analysis failed (exit {done.returncode})")
        rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(rows[-1]), flush=True)
        write(args.out, argv, rows)  # after each chapter: a stopped run keeps what it measured


def write(path: Path, argv: list[str], rows: list[dict]) -> None:
    """The measured rows, their projection and the command, as JSON at ``path`` and as
    Markdown beside it, each written whole (a temporary file renamed into place)."""
    machine = {"cpus": os.cpu_count(), "platform": platform.platform(), "load": os.getloadavg()}
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_document(path, _document(argv, rows, machine, when))


def _document(
    argv: list[str], rows: list[dict], machine: dict, when: str, runs: list[dict] | None = None
) -> dict:
    """What :func:`write` and :func:`combine` write: the command, the runs combined (if any),
    the machine, the time, the rows, their total wall time and their projection."""
    out: dict = {"command": "python benchmarks/paper_scale.py " + " ".join(argv)}
    if runs is not None:
        out["runs"] = runs
    out.update(
        machine=machine,
        when=when,
        chapters=rows,
        wall_s_total=round(sum(r["wall_s"] for r in rows), 2),
        projection=project(rows),
    )
    return out


def combine(paths: list[Path], path: Path, argv: list[str]) -> dict:
    """The rows of several runs (each file written by this script, its chapters measured in
    that run) as one document at ``path`` (and its Markdown): every run's command, time and
    machine beside the chapters it measured, the projection of all rows. A chapter measured in
    two of them is refused."""
    docs = [json.loads(Path(p).read_text()) for p in paths]
    rows = [r for d in docs for r in d["chapters"]]
    names = [r["chapter"] for r in rows]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SystemExit(f"--combine: chapter(s) {twice} measured in more than one file")
    runs = [
        {
            "command": d["command"],
            "when": d["when"],
            "machine": d["machine"],
            "chapters": [r["chapter"] for r in d["chapters"]],
        }
        for d in docs
    ]
    out = _document(argv, rows, docs[-1]["machine"], max(d["when"] for d in docs), runs)
    write_document(path, out)
    return out


def write_document(path: Path, out: dict) -> None:
    """``out`` as JSON at ``path``, its Markdown beside it (and as ``book/scaling_measured.md``
    when ``path`` is the default), each written whole (a temporary file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    targets = [(path, json.dumps(out, indent=1) + "\n"), (path.with_suffix(".md"), markdown(out))]
    if path.resolve() == DEFAULT_OUT.resolve():
        targets.append((BOOK_MD, markdown(out)))
    for target, text in targets:
        tmp = target.with_suffix(target.suffix + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, target)


def _without(argv: list[str], flag: str) -> list[str]:
    """``argv`` without ``flag`` and the values after it."""
    out, skip = [], False
    for a in argv:
        if a == flag:
            skip = True
            continue
        if skip and a.startswith("--"):
            skip = False
        if not skip:
            out.append(a)
    return out


if __name__ == "__main__":
    main()
