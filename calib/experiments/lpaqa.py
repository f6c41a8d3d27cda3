"""The LPAQA chapter (Jiang et al. 2020, §4-§5) on LAMA T-REx: prompts (from
:mod:`calib.prompts.generation`) selected and ensembled, their accuracy, and two steps beyond
the paper. The chapter calls :func:`run_lpaqa` once, which returns an :class:`LpaqaResult`
holding every frame the chapter shows; its steps:

1. :func:`load_sample` - a seeded sample of LAMA T-REx relations, training pairs and test facts
   (closed answer space per relation, :mod:`calib.data.lama`).
2. :func:`calib.prompts.generation.generate_prompts` - the manual prompt, the ``top`` most
   frequent mined prompts of :func:`calib.prompts.mining.mining_corpus` (§3.1) and the ``top``
   best back-translations of the manual prompt (§3.2, :mod:`calib.prompts.paraphrase`),
   duplicates removed; LPAQA's released prompts as a reference
   (:func:`calib.prompts.generation.reference_prompts`).
3. :func:`lama_queries`, :func:`score` - every prompt on the training pairs (to rank prompts and
   learn weights) and on the test facts, with :func:`calib.scoring.run.score_queries` (cached)
   and the ``sum`` reduction (:func:`calib.confidence.reductions.sentence_scores`).
4. :func:`select_and_ensemble` - per prompt set (:data:`PROMPT_SETS`): the manual prompt, top-1
   by training accuracy, top-K rank ensembles, the optimised ensemble, the oracle (§4,
   :mod:`calib.prompts.ensemble`) and the majority baseline, as per-fact hits;
   :func:`accuracy_table` gives micro and macro accuracy (§5.1, :mod:`calib.prompts.accuracy`)
   and :func:`paired_accuracy` compares selection and ensembles with the manual prompt.
5. beyond the paper: :func:`calibration` - ACE and Brier (Kissling et al. §4.3) of single
   prompts, the ensembles' probabilities and the paraphrase-consistency estimators over the
   best prompts (:func:`consistency_estimates`);
6. beyond the paper: :func:`transfer_sample`, :func:`transfer_queries`,
   :func:`transfer_results` - BEAR facts under BEAR's own templates and under the LAMA prompts
   ranked on LAMA's training pairs (the BEAR relations that LAMA also has).

Datasets in the score tables: ``"lama-train"`` (training pairs), ``"lama"`` (test facts),
``"bear"`` (BEAR facts, shared with the BEAR chapters' score cache).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from calib.confidence.estimators import MULTI, base
from calib.confidence.reductions import sentence_scores
from calib.confidence.summary import summary
from calib.data.bear import PARAPHRASES, PLAIN, Bear, load_bear
from calib.data.lama import MANUAL, Lama, load_lama
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence, every, printed
from calib.data.reported import reported
from calib.prompts.accuracy import majority_baseline, mean_accuracy, predictions
from calib.prompts.ensemble import (fit_ensemble_weights, oracle, rank_prompts, top_k_ensemble,
                                    weighted_ensemble)
from calib.prompts.generation import (REFERENCE_SOURCES, SOURCES, generate_prompts,
                                      lpaqa_overlap, reference_prompts)
from calib.prompts.mining import mining_corpus
from calib.prompts.translators import apertium
from calib.scoring.statements import Query, template_queries

#: the score-table datasets of the three fact sets
TRAIN, TEST, BEAR = "lama-train", "lama", "bear"
#: the prompt sets that selection and ensembles choose from (LPAQA §5's Mine, Mine+Man,
#: Man+Para; "All" = Mine+Man+Para). Our paraphrases are back-translations of the manual prompt.
PROMPT_SETS: dict[str, tuple[str, ...]] = {
    "Mine": ("mined",),
    "Man+Para": ("manual", "paraphrase"),
    "Mine+Man": ("mined", "manual"),
    "All": ("manual", "mined", "paraphrase"),
}
#: the prompt set of the chapter's main table
MAIN_SET = "All"
#: the methods of the main table, in their order (§5: baselines, selection, ensembles, bound)
METHOD_ORDER: tuple[str, ...] = ("majority", "manual", "top-1", "top-3", "top-5", "optimized",
                                 "oracle")
#: the methods the closing note compares with the manual prompt (paired bootstrap)
COMPARED: tuple[str, ...] = ("top-1", "optimized")


def method_rank(method: str) -> float:
    """Where a method goes in a table: :data:`METHOD_ORDER`, any other ``top-K`` by ``K``
    among the top-K rows, unknown methods last."""
    if method in METHOD_ORDER:
        return float(METHOD_ORDER.index(method))
    if method.startswith("top-") and method[4:].isdigit():
        return METHOD_ORDER.index("top-1") + 1 - 1 / (1 + int(method[4:]))
    return float(len(METHOD_ORDER))


# ---------------------------------------------------------------------------------------------
# 1. data


@dataclass(frozen=True)
class Sample:
    """``sample``: the sampled LAMA (``instances`` = test facts, ``train`` = training pairs);
    ``full``: the same relations before sampling (all their facts, for the majority baseline);
    ``dropped``: relations drawn but left out for want of training pairs."""

    sample: Lama
    full: Lama
    dropped: tuple[str, ...] = ()


def load_sample(relations: Sequence[str] | None = None, n_relations: int | None = None,
                train_per_relation: int | None = None, test_per_relation: int | None = None,
                seed: int = 0, answer_space: str = "test", root=None) -> Sample:
    """A seeded LAMA T-REx sample (LPAQA §5 data, made small): the given ``relations`` or, when
    ``None``, ``n_relations`` drawn with ``seed`` (``None``: all 41); ``train_per_relation``
    training pairs and ``test_per_relation`` test facts each (:meth:`Lama.sample`).

    ``answer_space="test"`` keeps each relation's answer space to the objects of its test facts
    (cheaper to score; see :func:`calib.data.lama.load_lama`). Drawn relations without a
    training pair in that answer space are left out (``Sample.dropped``); named ones raise."""
    lama = load_lama(root, relations=list(relations) if relations else None,
                     answer_space=answer_space)
    if relations is None and n_relations is not None:
        lama = lama.sample(None, seed, n_relations=n_relations)
    dropped = tuple(sorted(r for r in lama.relations if not (lama.train["relation"] == r).any()))
    if dropped:
        if relations is not None:
            raise ValueError(f"LAMA relation(s) {list(dropped)} have no training pair in the "
                             f"{answer_space!r} answer space (nothing to rank prompts on); "
                             f"choose other relations")
        lama = lama.select([r for r in lama.relations if r not in dropped])
    sample = lama.sample(test_per_relation, seed, train_per_relation=train_per_relation)
    return Sample(sample=sample, full=lama, dropped=dropped)


def relation_table(sample: Sample) -> pd.DataFrame:
    """One row per sampled relation: its label and type, manual prompt, answer-space size, and
    the numbers of training pairs and test facts sampled (and available)."""
    lama, full = sample.sample, sample.full
    info = lama.info.set_index("relation")
    rows = []
    for rid, rel in lama.relations.items():
        rows.append((rid, info.loc[rid, "label"], info.loc[rid, "type"],
                     rel.templates[MANUAL], rel.n_options,
                     int((lama.train["relation"] == rid).sum()),
                     int((full.train["relation"] == rid).sum()),
                     int((lama.instances["relation"] == rid).sum()),
                     int((full.instances["relation"] == rid).sum())))
    return pd.DataFrame(rows, columns=["relation", "label", "type", "manual prompt", "options",
                                       "train", "train (all)", "test", "test (all)"])


# ---------------------------------------------------------------------------------------------
# 3. scoring


def _templates(prompts: pd.DataFrame) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for rel, name, text in zip(prompts["relation"], prompts["template"], prompts["text"]):
        out.setdefault(rel, {})[name] = text
    return out


def query_facts(frame: pd.DataFrame) -> pd.DataFrame:
    """Facts (a :class:`Lama`'s or :class:`~calib.data.bear.Bear`'s ``instances``) in the
    columns :func:`~calib.scoring.statements.template_queries` reads."""
    return frame.rename(columns={"sub_label": "subject"})


def lama_queries(lama: Lama, prompts: pd.DataFrame) -> list[Query]:
    """The queries of LPAQA §4-5: every prompt of :data:`SOURCES` on the training pairs
    (dataset ``"lama-train"``) and on the test facts (``"lama"``); reference prompts
    (:data:`REFERENCE_SOURCES`) on the test facts only."""
    spaces = {r: rel.answer_labels for r, rel in lama.relations.items()}
    ours = prompts[prompts["source"].isin(SOURCES)]
    return (template_queries(query_facts(lama.train), spaces, _templates(ours), TRAIN)
            + template_queries(query_facts(lama.instances), spaces, _templates(prompts), TEST))


def statements(queries: Sequence[Query]) -> int:
    """The number of statements (model calls' units) of ``queries``."""
    return sum(len(q.statements) for q in queries)


def score(models: Sequence[str], queries: Sequence[Query] | Mapping[str, Sequence[Query]],
          part: str, **kwargs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Score ``queries`` (one list for every model, or a list per model) with
    :func:`calib.scoring.run.score_queries` (cached; ``kwargs`` go to it) and reduce them with
    the ``sum`` reduction. Returns the sentence-score table and a cost frame ``model, part,
    statements, seconds`` (seconds of this call: near 0 when the scores were cached)."""
    from calib.scoring.run import score_queries

    frames, cost = [], []
    for model in models:
        qs = queries[model] if isinstance(queries, Mapping) else queries
        started = time.perf_counter()
        frames.append(sentence_scores(score_queries(model, list(qs), **kwargs)))
        cost.append((model, part, statements(qs), time.perf_counter() - started))
    return (pd.concat(frames, ignore_index=True),
            pd.DataFrame(cost, columns=["model", "part", "statements", "seconds"]))


# ---------------------------------------------------------------------------------------------
# 4. selection, ensembles, accuracy


def _in_set(sent: pd.DataFrame, prompts: pd.DataFrame, sources: Sequence[str]) -> pd.DataFrame:
    keys = prompts.loc[prompts["source"].isin(sources), ["relation", "template"]]
    return sent.merge(keys, on=["relation", "template"], how="inner")


@dataclass(frozen=True)
class Selection:
    """What :func:`select_and_ensemble` returns.

    ``hits``: per fact ``model, prompt_set, method, relation, instance, answer_idx, hit``;
    ``ensembles``: the ensemble tables (:mod:`calib.prompts.ensemble`) of every method but the
    oracle, with ``prompt_set`` and ``method`` (``template`` = method); ``rankings``:
    :func:`~calib.prompts.ensemble.rank_prompts` per prompt set; ``weights``: the learned
    optimised-ensemble weights per prompt set."""

    hits: pd.DataFrame
    ensembles: pd.DataFrame
    rankings: pd.DataFrame
    weights: pd.DataFrame


def select_and_ensemble(train: pd.DataFrame, test: pd.DataFrame, prompts: pd.DataFrame,
                        facts: pd.DataFrame, reference: pd.DataFrame | None = None,
                        prompt_sets: Mapping[str, Sequence[str]] = PROMPT_SETS,
                        ks: Sequence[int] = (3, 5), steps: int = 200, lr: float = 0.1
                        ) -> Selection:
    """LPAQA §4 on sentence-score tables of the training pairs (``train``) and test facts
    (``test``), for every model and prompt set:

    * ``manual`` - the manual prompt alone; ``majority`` - the relation's most frequent object
      in ``reference`` (default: ``facts``) for every fact (``facts``: the test facts, a
      :class:`Lama`'s ``instances``);
    * ``top-1`` - the prompt with the best training accuracy (§4.1, :func:`rank_prompts`);
    * ``top-K`` for ``K`` in ``ks`` - average of the K best prompts' log-probabilities (§4.2);
    * ``optimized`` - softmax weights per relation learned with Adam (``steps``, ``lr``) on the
      training pairs (§4.2, :func:`fit_ensemble_weights`);
    * ``oracle`` - correct if any prompt of the set is (§5).
    """
    hits, ensembles, rankings, weights = [], [], [], []
    models = sorted(test["model"].unique())
    manual = test[test["template"] == MANUAL]
    man_table = manual.assign(template="manual")
    ensembles.append(man_table.assign(prompt_set="-", method="manual"))
    hits.append(predictions(man_table).assign(prompt_set="-", method="manual"))
    majority = majority_baseline(facts, reference)
    for m in models:
        hits.append(majority.assign(model=m, dataset=TEST, prompt_set="-", method="majority"))
    for name, sources in prompt_sets.items():
        tr, te = _in_set(train, prompts, sources), _in_set(test, prompts, sources)
        if tr.empty or te.empty:
            continue
        ranking = rank_prompts(tr)
        rankings.append(ranking.assign(prompt_set=name))
        tables = [top_k_ensemble(te, ranking, 1, "top-1")]
        tables += [top_k_ensemble(te, ranking, k) for k in ks]
        w = fit_ensemble_weights(tr, steps=steps, lr=lr)
        weights.append(w.assign(prompt_set=name))
        tables.append(weighted_ensemble(te, w))
        for table in tables:
            ensembles.append(table.assign(prompt_set=name, method=table["template"]))
            hits.append(predictions(table).assign(prompt_set=name, method=table["template"]))
        hits.append(oracle(te).assign(prompt_set=name, method="oracle"))
    cols = ["model", "prompt_set", "method", "relation", "instance", "answer_idx", "hit"]
    return Selection(hits=pd.concat(hits, ignore_index=True)[cols],
                     ensembles=pd.concat(ensembles, ignore_index=True),
                     rankings=pd.concat(rankings, ignore_index=True),
                     weights=pd.concat(weights, ignore_index=True))


def accuracy_table(hits: pd.DataFrame, prompt_set: str | None = MAIN_SET) -> pd.DataFrame:
    """Micro and macro accuracy (§5.1, averaged over relations) per ``model, prompt_set,
    method``; ``prompt_set`` given: that set plus the set-free rows (``manual``, ``majority``),
    in :data:`METHOD_ORDER`."""
    frame = hits if prompt_set is None else hits[hits["prompt_set"].isin(["-", prompt_set])]
    acc = mean_accuracy(frame, by=["model", "prompt_set", "method"])
    acc["_o"] = acc["method"].map(method_rank)
    acc = acc.sort_values(["model", "_o", "prompt_set"], kind="stable")
    return acc[["model", "prompt_set", "method", "n_relations", "n", "micro", "macro"]] \
        .reset_index(drop=True)


def wide_accuracy(acc: pd.DataFrame) -> pd.DataFrame:
    """One row per method, a ``micro`` and a ``macro`` column per model (the closing table)."""
    out = acc.pivot_table(index="method", columns="model", values=["micro", "macro"],
                          sort=False)
    out.columns = [f"{model} {avg}" for avg, model in out.columns]
    models = list(dict.fromkeys(acc["model"]))
    out = out[[f"{m} {a}" for m in models for a in ("micro", "macro")]]
    return out.reset_index().sort_values("method", key=lambda s: s.map(method_rank)) \
        .reset_index(drop=True)


def set_table(acc: pd.DataFrame, average: str = "micro") -> pd.DataFrame:
    """LPAQA's table layout: one row per model and prompt set, one column per method."""
    frame = acc[acc["prompt_set"] != "-"]
    out = frame.pivot_table(index=["model", "prompt_set"], columns="method", values=average,
                            sort=False).reset_index()
    methods = sorted((c for c in out.columns if c not in ("model", "prompt_set")),
                     key=method_rank)
    out.columns.name = None
    return out[["model", "prompt_set", *methods]]


def paired_accuracy(hits: pd.DataFrame, a: str, b: str, prompt_set: str = MAIN_SET,
                    n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Paired bootstrap of the accuracy difference ``a - b`` of two methods on the same test
    facts (pooled over relations), per model (:func:`calib.confidence.bootstrap.
    paired_difference`). Columns ``model, a, b, metric, difference, low, high, p_value, n``."""
    from calib.confidence.bootstrap import paired_difference

    frame = hits[hits["prompt_set"].isin(["-", prompt_set])]
    keys = ["model", "relation", "instance"]
    rows = []
    for model, grp in frame.groupby("model", sort=True):
        pair = grp[grp["method"] == a][[*keys, "hit"]].merge(
            grp[grp["method"] == b][[*keys, "hit"]], on=keys, suffixes=("_a", "_b"))
        if pair.empty:
            raise ValueError(f"no facts scored by both {a!r} and {b!r} for model {model!r}")
        pair = pair.sort_values(keys)
        zero = np.zeros(len(pair))
        diff = paired_difference(zero, pair["hit_a"].to_numpy(bool), zero,
                                 pair["hit_b"].to_numpy(bool), "accuracy", n_boot, seed)
        rows.append({"model": model, "a": a, "b": b, **diff})
    return pd.DataFrame(rows)


def best_prompts(rankings: pd.DataFrame, prompts: pd.DataFrame, prompt_set: str = MAIN_SET,
                 k: int = 3) -> pd.DataFrame:
    """The ``k`` best prompts per model and relation by training accuracy, with their text
    and source."""
    r = rankings[(rankings["prompt_set"] == prompt_set) & (rankings["rank"] < k)]
    r = r.merge(prompts[["relation", "template", "text", "source"]],
                on=["relation", "template"], how="left")
    return r[["model", "relation", "rank", "template", "source", "text", "accuracy"]]


def reference_accuracy(test: pd.DataFrame, prompts: pd.DataFrame, hits: pd.DataFrame
                       ) -> pd.DataFrame:
    """Test accuracy (micro, macro) of LPAQA's released prompts, one prompt at a time
    averaged per source, beside our manual and top-1 (``All``) prompts."""
    ref = _in_set(test, prompts, REFERENCE_SOURCES)
    rows = []
    if len(ref):
        per = predictions(ref)
        per = per.merge(prompts[["relation", "template", "source"]],
                        on=["relation", "template"])
        acc = mean_accuracy(per, by=["model", "source", "template"]) \
            .rename(columns={"source": "method"})
        rows.append(acc.groupby(["model", "method"], as_index=False)[["micro", "macro"]].mean())
    ours = accuracy_table(hits)
    rows.append(ours[ours["method"].isin(["manual", "top-1"])][["model", "method", "micro",
                                                                "macro"]])
    return pd.concat(rows, ignore_index=True).sort_values(["model", "method"]) \
        .reset_index(drop=True)


def cost_table(*costs: pd.DataFrame) -> pd.DataFrame:
    """The scoring cost per model and part, with a total row per model. ``statements/s`` is
    left out (NaN) for parts that took under a second: their scores came from the cache."""
    frame = pd.concat(costs, ignore_index=True)
    total = frame.groupby("model", as_index=False)[["statements", "seconds"]].sum() \
        .assign(part="total")
    out = pd.concat([frame, total], ignore_index=True)
    out["statements/s"] = out["statements"] / out["seconds"].where(out["seconds"] >= 1.0)
    return out.sort_values(["model"], kind="stable").reset_index(drop=True)


def plan_table(sample: Lama, prompts: pd.DataFrame, bear: Bear | None, k: int,
               bear_templates: Sequence[str] = PARAPHRASES) -> pd.DataFrame:
    """Statements to score per model, before scoring: per relation the prompts, facts and
    options of the LAMA part (training pairs x our prompts + test facts x all prompts) and an
    upper bound for the BEAR part (BEAR facts x (BEAR templates + manual + ``k``) x options)."""
    rows = []
    for rid, rel in sample.relations.items():
        p = prompts[prompts["relation"] == rid]
        n_ours = int(p["source"].isin(SOURCES).sum())
        n_train = int((sample.train["relation"] == rid).sum())
        n_test = int((sample.instances["relation"] == rid).sum())
        rows.append(("LAMA", rid, len(p), n_train, n_test, rel.n_options,
                     (n_ours * n_train + len(p) * n_test) * rel.n_options))
    if bear is not None:
        for rid, rel in bear.relations.items():
            n = int((bear.instances["relation"] == rid).sum())
            n_prompts = len(bear_templates) + 1 + k
            rows.append(("BEAR (at most)", rid, n_prompts, 0, n, rel.n_options,
                         n_prompts * n * rel.n_options))
    return pd.DataFrame(rows, columns=["part", "relation", "prompts", "train facts",
                                       "test facts", "options", "statements"])


# ---------------------------------------------------------------------------------------------
# 5. and 6. beyond the paper: calibration of the ensembles, LAMA prompts on BEAR


def ranked_templates(sent: pd.DataFrame, ranking: pd.DataFrame, k: int) -> pd.DataFrame:
    """The rows of the ``k`` best prompts per (model, relation) of ``ranking``, with
    ``template`` renamed ``rank-0 .. rank-<k-1>``: the same template names in every relation,
    as the multi-template estimators expect."""
    r = ranking[ranking["rank"] < k][["model", "relation", "template", "rank"]]
    out = sent.merge(r, on=["model", "relation", "template"], how="inner")
    out["template"] = "rank-" + out["rank"].astype(str)
    return out.drop(columns="rank")


def _estimates_of(tables: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    parts = []
    for name in names:
        t = tables[tables["template"] == name]
        if len(t):
            parts.append(base(t[["model", "dataset", "relation", "instance", "template",
                                 "option", "answer_idx", "score"]], name).assign(method=name))
    return pd.concat(parts, ignore_index=True)


def consistency_estimates(sent: pd.DataFrame, ranking: pd.DataFrame, k: int,
                          aggregation: str = "min", prefix: str = "") -> pd.DataFrame:
    """Average, Consistency and Entropy (Kissling et al. Eqs. 3-7, ``aggregation``) over the
    ``k`` best prompts of ``ranking`` taken as the paraphrase templates; ``method`` =
    ``<prefix><Estimator>/<aggregation> (k)``. ``k`` is capped at the smallest number of ranked
    prompts of a (model, relation); fewer than 2 gives an empty frame."""
    k = int(min(k, ranking.groupby(["model", "relation"]).size().min()))
    if k < 2:
        return pd.DataFrame()
    ranked = ranked_templates(sent, ranking, k)
    names = [f"rank-{i}" for i in range(k)]
    return pd.concat([fn(ranked, aggregation, names).assign(
        method=f"{prefix}{est}/{aggregation} ({k})") for est, fn in MULTI.items()],
        ignore_index=True)


def calibration(test: pd.DataFrame, selection: Selection, prompt_set: str = MAIN_SET,
                k: int = 5, n_boot: int = 1000, seed: int = 0) -> pd.DataFrame:
    """ACE, Brier and accuracy (Kissling et al. §4.3) on the test facts of: the manual prompt's
    and the top-1 prompt's Base-Confidence (Eq. 1), the Base-Confidence of the top-K and
    optimised ensembles (the ensemble probability of its answer), and Average / Consistency /
    Entropy (min aggregation) over the ``k`` best prompts as templates. One row per ``model,
    method`` with bootstrap intervals (:func:`calib.confidence.summary.summary`)."""
    ens = selection.ensembles
    ens = ens[ens["prompt_set"].isin(["-", prompt_set])]
    names = sorted(set(ens["method"]), key=method_rank)
    est = _estimates_of(ens, names)
    ranking = selection.rankings[selection.rankings["prompt_set"] == prompt_set]
    multi = consistency_estimates(test, ranking, k)
    est = pd.concat([est, multi], ignore_index=True) if len(multi) else est
    return summary(est, by=["model", "method"], n_boot=n_boot, seed=seed)


# ---------------------------------------------------------------------------------------------
# BEAR relations that LAMA also has


def shared_relations(lama_relations: Sequence[str], bear: Bear) -> list[str]:
    """The relations of ``lama_relations`` that BEAR also has (same Wikidata property)."""
    return [r for r in lama_relations if r in bear.relations]


def transfer_queries(bear: Bear, prompts: pd.DataFrame, ranking: pd.DataFrame, model: str,
                     k: int, bear_templates: Sequence[str] = PARAPHRASES) -> list[Query]:
    """BEAR facts under BEAR's own ``bear_templates`` and under the LAMA prompts that the
    chapter transfers for ``model``: the manual LAMA prompt (named ``lama-manual``) and the
    ``k`` best by LAMA training accuracy (``ranking``). Dataset ``"bear"``; BEAR's answer
    spaces."""
    spaces = {r: rel.answer_labels for r, rel in bear.relations.items()}
    texts = {(r, t): x for r, t, x in zip(prompts["relation"], prompts["template"],
                                          prompts["text"])}
    temps: dict[str, dict[str, str]] = {}
    for rid, rel in bear.relations.items():
        chosen = {n: rel.templates[n] for n in bear_templates}
        chosen["lama-manual"] = texts[(rid, MANUAL)]
        mine = ranking[(ranking["model"] == model) & (ranking["relation"] == rid)]
        for name in mine.sort_values("rank")["template"][:k]:
            chosen[f"lama-{name}"] = texts[(rid, name)]
        temps[rid] = chosen
    return template_queries(query_facts(bear.instances), spaces, temps, BEAR)


def transfer_results(sent: pd.DataFrame, ranking: pd.DataFrame, k: int, n_boot: int = 1000,
                     seed: int = 0, bear_templates: Sequence[str] = PARAPHRASES
                     ) -> pd.DataFrame:
    """Accuracy, ACE and Brier on the BEAR facts (``sent``, from :func:`transfer_queries`) of:
    BEAR's plain template (``BEAR paraphrase-0``, Base), the mean of BEAR's templates
    (``BEAR mean``, a uniform ensemble), Average/Consistency/Entropy over BEAR's templates
    (``BEAR <Estimator>/min``), the LAMA manual prompt, the LAMA top-1 prompt and the top-``k``
    ensemble of LAMA prompts (ranked on LAMA's training pairs), and Average/Consistency/Entropy
    over those ``k`` prompts. Adds ``d_accuracy``, ``d_ace``, ``d_brier``: the change against
    ``BEAR paraphrase-0`` of the same model."""
    own = sent[sent["template"].isin(bear_templates)]
    lama = sent[sent["template"].str.startswith("lama-")]
    lama = lama.assign(template=lama["template"].str.slice(5))
    order = pd.DataFrame({"template": list(bear_templates), "rank": range(len(bear_templates))})
    fake = own[["model", "dataset", "relation"]].drop_duplicates().merge(order, how="cross")
    tables = [own[own["template"] == PLAIN].assign(template=f"BEAR {PLAIN}"),
              top_k_ensemble(own, fake, len(bear_templates), "BEAR mean"),
              lama[lama["template"] == MANUAL].assign(template="LAMA manual"),
              top_k_ensemble(lama, ranking, 1, "LAMA top-1")]
    if k > 1:
        tables.append(top_k_ensemble(lama, ranking, k, f"LAMA top-{k}"))
    tables = pd.concat(tables, ignore_index=True)
    est = [_estimates_of(tables, list(dict.fromkeys(tables["template"])))]
    est += [fn(own, "min", list(bear_templates)).assign(method=f"BEAR {name}/min")
            for name, fn in MULTI.items()]
    multi = consistency_estimates(lama, ranking, k, prefix="LAMA ")
    if len(multi):
        est.append(multi)
    out = summary(pd.concat(est, ignore_index=True), by=["model", "method"], n_boot=n_boot,
                  seed=seed)
    plain = out[out["method"] == f"BEAR {PLAIN}"].set_index("model")
    for m in ("accuracy", "ace", "brier"):
        out[f"d_{m}"] = out[m] - out["model"].map(plain[m])
    return out


def transfer_sample(relations: Sequence[str], per_relation: int | None, seed: int = 0,
                    root=None) -> Bear:
    """The BEAR facts of ``relations``: a seeded sample of ``per_relation`` each
    (:meth:`Bear.sample`, the same draw as the BEAR chapters', so their cached scores of
    BEAR's templates are reused)."""
    from calib.data.bear import load_bear

    return load_bear(root, relations=list(relations)).sample(per_relation, seed)


# ---------------------------------------------------------------------------------------------
# the whole chapter


@dataclass(frozen=True)
class LpaqaResult:
    """What :func:`run_lpaqa` returns: every frame the LPAQA chapter shows.

    ``sample``: the LAMA sample; ``corpus``: the mining corpus; ``pivots``: the Apertium pivots
    used and ``missing_pivots`` the reason for the others; ``prompts``: every prompt scored
    (ours, then LPAQA's reference prompts); ``sentences``: their sentence scores on the
    training pairs (dataset :data:`TRAIN`) and test facts (:data:`TEST`); ``selection``: §4's
    selection and ensembles; ``lama_cost``, ``bear_cost``: the scoring cost of each part.
    Beyond the paper (``None`` when ``run_lpaqa(beyond_paper=False)``): ``calibration``
    (:func:`calibration`), ``paired`` (:func:`paired_accuracy` of each of :data:`COMPARED`
    against ``manual``, one frame), and, where BEAR has sampled LAMA relations
    (``bear_relations``), the BEAR facts ``bear``, the plan of statements ``plan`` and
    ``transfer`` (:func:`transfer_results`)."""

    sample: Sample
    corpus: pd.DataFrame
    pivots: list[str]
    missing_pivots: str
    prompts: pd.DataFrame
    sentences: pd.DataFrame
    selection: Selection
    lama_cost: pd.DataFrame
    bear_relations: list[str]
    bear: Bear | None
    plan: pd.DataFrame
    calibration: pd.DataFrame | None = None
    paired: pd.DataFrame | None = None
    transfer: pd.DataFrame | None = None
    bear_cost: pd.DataFrame | None = None

    @property
    def train(self) -> pd.DataFrame:
        """The sentence scores of the training pairs."""
        return self.sentences[self.sentences["dataset"] == TRAIN]

    @property
    def test(self) -> pd.DataFrame:
        """The sentence scores of the test facts."""
        return self.sentences[self.sentences["dataset"] == TEST]

    @property
    def ranking(self) -> pd.DataFrame:
        """The prompt ranking of the main prompt set (:data:`MAIN_SET`)."""
        rankings = self.selection.rankings
        return rankings[rankings["prompt_set"] == MAIN_SET]

    @property
    def overlap(self) -> pd.DataFrame:
        """How many of our prompts LPAQA also released
        (:func:`~calib.prompts.generation.lpaqa_overlap`)."""
        return lpaqa_overlap(self.prompts)

    @property
    def cost(self) -> pd.DataFrame:
        """:func:`cost_table` of both parts."""
        bear_cost = self.lama_cost.iloc[:0] if self.bear_cost is None else self.bear_cost
        return cost_table(self.lama_cost, bear_cost)


def run_lpaqa(models: Sequence[str], lama_relations: Sequence[str] | None = None,
              n_relations: int | None = None, answer_space: str = "test",
              train_per_relation: int | None = None, test_per_relation: int | None = None,
              top_t: int = 4, max_sentences: int | None = None, pivots: Sequence[str] = (),
              paraphrase_rounds: int = 1, ensemble_k: Sequence[int] = (3, 5),
              adam_steps: int = 200, adam_lr: float = 0.1, reference_per_set: int = 1,
              bear_per_relation: int | None = None, bear_top_k: int = 3, seed: int = 0,
              n_bootstrap: int = 1000, beyond_paper: bool = True,
              **_chapter_parameters) -> LpaqaResult:
    """The LPAQA chapter with its parameters: steps 1-4 (:func:`load_sample`,
    :func:`~calib.prompts.mining.mining_corpus`, :func:`~calib.prompts.generation.
    generate_prompts` with Apertium through :func:`~calib.prompts.translators.apertium`,
    :func:`~calib.prompts.generation.reference_prompts`, :func:`score`,
    :func:`select_and_ensemble`) and, with ``beyond_paper``, step 5 (:func:`calibration` over
    the ``max(ensemble_k)`` best prompts, :func:`paired_accuracy`) and step 6 (the BEAR
    relations that LAMA also has: :func:`transfer_sample`, :func:`transfer_queries`,
    :func:`transfer_results`). Parameters no step uses are ignored."""
    sample = load_sample(lama_relations, n_relations, train_per_relation, test_per_relation,
                         seed, answer_space)
    lama = sample.sample
    corpus = mining_corpus(list(lama.relations), max_sentences, seed)
    translator, usable, missing = apertium(pivots)
    prompts = generate_prompts(lama, corpus, top_t, translator, usable, paraphrase_rounds,
                               exclude=sample.full.instances)
    every = pd.concat([prompts, reference_prompts(prompts, reference_per_set)],
                      ignore_index=True)
    bear_rels = shared_relations(list(lama.relations), load_bear()) if beyond_paper else []
    bear = transfer_sample(bear_rels, bear_per_relation, seed) if bear_rels else None
    plan = plan_table(lama, every, bear, bear_top_k)
    sent, lama_cost = score(models, lama_queries(lama, every), "LAMA", progress=False)
    train, test = sent[sent["dataset"] == TRAIN], sent[sent["dataset"] == TEST]
    selection = select_and_ensemble(train, test, every, lama.instances,
                                    reference=sample.full.instances, ks=ensemble_k,
                                    steps=adam_steps, lr=adam_lr)
    result = LpaqaResult(sample, corpus, usable, missing, every, sent, selection, lama_cost,
                         bear_rels, bear, plan)
    if not beyond_paper:
        return result
    calib_table = calibration(test, selection, k=max(ensemble_k), n_boot=n_bootstrap,
                              seed=seed)
    paired = pd.concat([paired_accuracy(selection.hits, method, "manual", n_boot=n_bootstrap,
                                        seed=seed) for method in COMPARED], ignore_index=True)
    transfer = bear_cost = None
    if bear is not None:
        ranking = result.ranking
        queries = {m: transfer_queries(bear, every, ranking, m, bear_top_k) for m in models}
        bear_sent, bear_cost = score(models, queries, "BEAR", progress=False)
        transfer = transfer_results(bear_sent, ranking, bear_top_k, n_bootstrap, seed)
    return replace(result, calibration=calib_table, paired=paired, transfer=transfer,
                   bear_cost=bear_cost)


# ---------------------------------------------------------------------------------------------
# the claims this chapter tests (calib.experiments.claims): rules over evidence frames and the
# paper's evidence. The chapter does not record its result yet, so build_evidence is None ("not
# run in this build") until it is converted to a chapter unit (issue 17; the reductions chapter
# is the worked example).


def _lpaqa_micro() -> pd.DataFrame:
    trex = reported("jiang2020_lpaqa_trex")
    return trex[trex["averaging"] == "micro"]


def _beats(evidence: Evidence, what: str):
    # TODO(issue 17): rule to fix -- "almost always" is not "every"; the build compared on an
    # "All" prompt set the paper does not have, and pooled accuracy over facts instead of the
    # paper's relation average
    return every(evidence, ">", 0.0, what=what, unit="model-comparison")


def top1_beats_manual(evidence: Evidence):
    """``lpaqa_beats_manual``: accuracy(Top1) - accuracy(manual prompt) above 0."""
    return _beats(evidence, "accuracy(Top1) - accuracy(manual prompt)")


def top1_beats_manual_paper() -> Evidence:
    base = reported("jiang2020_lpaqa_trex_baselines")
    man = base[(base["averaging"] == "micro") & (base["baseline"] == "Man")] \
        .set_index("model")["accuracy"]
    micro = _lpaqa_micro()
    frame = micro.assign(value=micro["top1"] - micro["model"].map(man))
    return Evidence(printed(frame, "value", ["model", "prompts"]),
                    "LPAQA Table 2 (micro), printed values")


def _column_differences(pairs) -> pd.DataFrame:
    micro = _lpaqa_micro()
    rows = []
    for a, b in pairs:
        part = micro.dropna(subset=[a, b])
        rows += [{"model": r["model"], "prompts": r["prompts"], "comparison": f"{a} vs {b}",
                  "value": r[a] - r[b]} for r in part.to_dict("records")]
    return printed(pd.DataFrame(rows), "value", ["model", "prompts", "comparison"])


def ensembles_beat_top1(evidence: Evidence):
    """``lpaqa_ensembles``: accuracy(ensemble) - accuracy(Top1) above 0."""
    return _beats(evidence, "accuracy(ensemble) - accuracy(Top1)")


def ensembles_beat_top1_paper() -> Evidence:
    return Evidence(_column_differences([("top3", "top1"), ("top5", "top1"),
                                         ("opti", "top1")]),
                    "LPAQA Table 2 (micro), printed values (cells LPAQA's text leaves "
                    "unassigned are left out)")


def optimised_beats_rank(evidence: Evidence):
    """``lpaqa_optimised``: accuracy(optimised) - accuracy(rank-based top-K) above 0."""
    return _beats(evidence, "accuracy(Opti.) - accuracy(TopK)")


def optimised_beats_rank_paper() -> Evidence:
    return Evidence(_column_differences([("opti", "top3"), ("opti", "top5")]),
                    "LPAQA Table 2 (micro), printed values (BERT-large's Top3/Top5 columns are "
                    "not assigned)")


CLAIMS: tuple[Claim, ...] = (
    Claim(key="lpaqa_beats_manual", paper="jiang2020", section="LPAQA §5.2",
          quote="the manually created prompts are a somewhat weak lower bound",
          statement="A prompt selected from mined and paraphrased ones (Top1) beats the manual "
                    "prompt",
          quantifier="every", metrics=("accuracy",), about="BERT-base and BERT-large, every "
                                                           "prompt set",
          chapter="lpaqa", rule=top1_beats_manual, paper_evidence=top1_beats_manual_paper,
          build_evidence=None, needs="any model on LAMA T-REx"),
    Claim(key="lpaqa_ensembles", paper="jiang2020", section="LPAQA §5.2",
          quote="ensembling multiple prompts almost always leads to better",
          statement="Ensembles of prompts beat the single best prompt (Top1)",
          quantifier="every", metrics=("accuracy",), about="BERT-base and BERT-large, every "
                                                           "prompt set",
          chapter="lpaqa", rule=ensembles_beat_top1, paper_evidence=ensembles_beat_top1_paper,
          build_evidence=None, needs="any model on LAMA T-REx"),
    Claim(key="lpaqa_optimised", paper="jiang2020", section="LPAQA §5.2",
          quote="outperforming the rank-based ensemble by a large margin",
          statement="The optimised ensemble beats the rank-based (averaged) ensembles",
          quantifier="every", metrics=("accuracy",), about="BERT-base and BERT-large, every "
                                                           "prompt set",
          chapter="lpaqa", rule=optimised_beats_rank, paper_evidence=optimised_beats_rank_paper,
          build_evidence=None, needs="any model on LAMA T-REx"),
)
