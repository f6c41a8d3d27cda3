"""Accuracy with intervals and the comparisons the claims need (Jiang et al. 2020, §5.1-§5.3):
micro- and macro-averaged accuracy per model, prompt set and method with 95% BCa intervals,
the paper's tables' layout, and every paired comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.experiments.lpaqa.selection import CROSS_MODEL_SETS, LINEAR, MAJORITY_TEST, NO_SET
from calib.prompts.accuracy import (
    AVERAGES,
    AccuracyReplicates,
    accuracy_intervals,
    accuracy_replicates,
    predictions,
)
from calib.prompts.generation import REFERENCE_SOURCES
from calib.prompts.sets import ABLATION_SETS, PAPER_SETS

#: the methods of the paper's tables, in their order (§5: baselines, selection, ensembles,
#: bound)
METHOD_ORDER: tuple[str, ...] = (
    "majority",
    MAJORITY_TEST,
    "manual",
    "top-1",
    "top-3",
    "top-5",
    "optimized",
    "oracle",
)


def method_rank(method: str) -> float:
    """Where a method goes in a table: :data:`METHOD_ORDER`, any other ``top-K`` by ``K``
    among the top-K rows (its linear variant right after it), other methods last."""
    linear = method.endswith(LINEAR)
    name = method.removesuffix(LINEAR)
    if name in METHOD_ORDER:
        rank = float(METHOD_ORDER.index(name))
    elif name.startswith("top-") and name[4:].isdigit():
        rank = METHOD_ORDER.index("top-1") + 1 - 1 / (1 + int(name[4:]))
    else:
        return float(len(METHOD_ORDER)) + (0.5 if name.startswith("optimized") else 0.0)
    return rank + (0.01 if linear else 0.0)


def set_rank(prompt_set: str) -> int:
    """Where a prompt set goes in a table: none (manual, majority) first, then the paper's
    sets (Tables 2-3), then the mining ablation (Table 7)."""
    order = (NO_SET, *PAPER_SETS, *ABLATION_SETS)
    return order.index(prompt_set) if prompt_set in order else len(order)


# ---------------------------------------------------------------------------------------------
# 5. accuracy with intervals, and the comparisons the claims need


def replicates(hits: pd.DataFrame, n_boot: int, seed: int) -> dict[str, AccuracyReplicates]:
    """Per model, :func:`~calib.prompts.accuracy.accuracy_replicates` of every (prompt set,
    method) of ``hits``: the same stratified resamples of the test facts for all of them."""
    return {
        m: accuracy_replicates(part, ["prompt_set", "method"], n_boot, seed)
        for m, part in hits.groupby("model", sort=False)
    }


def accuracy_table(reps: Mapping[str, AccuracyReplicates]) -> pd.DataFrame:
    """Micro and macro accuracy (§5.1: per relation, then averaged over relations) per model,
    prompt set and method, with 95% BCa intervals: ``model, prompt_set, method, n_relations, n,
    micro, micro_low, micro_high, macro, macro_low, macro_high``; sets and methods in the
    paper's order."""
    rows = []
    for model, rep in reps.items():
        for label in rep.labels:
            row = {
                "model": model,
                "prompt_set": label[0],
                "method": label[1],
                "n_relations": rep.n_relations,
                "n": rep.n,
            }
            for avg in AVERAGES:
                got = rep.accuracy(label, avg)
                row.update(
                    {avg: got["value"], f"{avg}_low": got["low"], f"{avg}_high": got["high"]}
                )
            rows.append(row)
    out = pd.DataFrame(rows)
    models = {m: i for i, m in enumerate(reps)}
    out = out.assign(
        _m=out["model"].map(models),
        _s=out["prompt_set"].map(set_rank),
        _o=out["method"].map(method_rank),
    )
    return (
        out.sort_values(["_m", "_s", "_o"], kind="stable")
        .drop(columns=["_m", "_s", "_o"])
        .reset_index(drop=True)
    )


def set_table(
    acc: pd.DataFrame,
    average: str = "micro",
    sets: Sequence[str] = PAPER_SETS,
    methods: Sequence[str] | None = None,
) -> pd.DataFrame:
    """LPAQA's table layout (Tables 2, 3, 7): one row per model and prompt set of ``sets``,
    one column per method (default the paper's: top-1, the log-linear top-K, optimized,
    oracle), the ``average`` accuracy."""
    frame = acc[acc["prompt_set"].isin(list(sets))]
    if methods is None:
        methods = [
            m
            for m in dict.fromkeys(frame["method"].unique())
            if not m.endswith(LINEAR) and not m.startswith("optimized (")
        ]
    frame = frame[frame["method"].isin(list(methods))]
    out = frame.pivot_table(
        index=["model", "prompt_set"], columns="method", values=average, sort=False
    ).reset_index()
    cols = sorted((c for c in out.columns if c not in ("model", "prompt_set")), key=method_rank)
    out.columns.name = None
    return out[["model", "prompt_set", *cols]]


def majority_note(acc: pd.DataFrame, average: str = "micro") -> str:
    """A caption's sentence on the majority baselines (no model, so one value each) of
    :func:`accuracy_table`'s ``average``, with their 95% intervals: the baseline beside a
    table of the prompt sets' accuracies (the paper's Tables 2 and 3 name theirs in the
    caption)."""
    base = acc[(acc["prompt_set"] == NO_SET) & acc["method"].isin(["majority", MAJORITY_TEST])]
    base = base.drop_duplicates("method")
    if base.empty:
        return ""
    words = {"majority": "counted on the training pairs", MAJORITY_TEST: "on the test facts"}
    parts = [
        f"{words[r['method']]} {r[average]:.3f} [{r[f'{average}_low']:.3f}, "
        f"{r[f'{average}_high']:.3f}]"
        for r in base.to_dict("records")
    ]
    return f"The majority baseline (no model; {average}): " + "; ".join(parts) + "."


def wide_accuracy(acc: pd.DataFrame, prompt_set: str = "Mine+Man") -> pd.DataFrame:
    """One row per method of ``prompt_set`` and the baselines, a ``micro`` and a ``macro``
    column per model (the closing table)."""
    part = acc[acc["prompt_set"].isin([NO_SET, prompt_set])]
    part = part[
        ~part["method"].str.endswith(LINEAR) & ~part["method"].str.startswith("optimized (")
    ]
    out = part.pivot_table(index="method", columns="model", values=["micro", "macro"], sort=False)
    out.columns = [f"{model} {avg}" for avg, model in out.columns]
    models = list(dict.fromkeys(part["model"].unique()))
    out = out[[f"{m} {a}" for m in models for a in AVERAGES]]
    return (
        out.reset_index()
        .sort_values("method", key=lambda s: s.map(method_rank))
        .reset_index(drop=True)
    )


def _row(kind: str, model: str, unit: str, got: dict, **extra) -> dict:
    return {
        "kind": kind,
        "model": model,
        "unit": unit,
        **extra,
        "difference": got["value"],
        "low": got["low"],
        "high": got["high"],
        "p_value": got["p_value"],
        "n": got["n"],
        "n_relations": got["n_relations"],
        "n_boot": got["n_boot"],
    }


#: the comparisons of :func:`comparison_table` (its ``kind`` column), by the claim they serve
COMPARISONS: dict[str, str] = {
    "best_top1_vs_manual": "best Top1 over the paper's prompt sets - manual prompt (micro)",
    "ensemble_vs_top1": "ensemble - Top1 of the same prompt set",
    "optimized_vs_rank": "Opti. - rank-based TopK of the same prompt set (micro)",
    "abstract_gain": "Opti. of Mine+Man - manual prompt (micro)",
    "paraphrase_vs_mined": "Man+Para - Mine, the same method (micro)",
    "mid_dep_vs_mid": "Mid+Dep - Mid, the same method (micro)",
    "macro_vs_micro": "macro - micro accuracy of the same method",
    "macro_gain": "Opti. of Mine - manual prompt (macro)",
    "macro_gain_smaller": "(Opti. of Mine - manual) macro - the same micro",
    "oracle_bound": "Oracle - the best other method of the same prompt set",
    "best_k": "rank-based TopK - the best other K of the same prompt set (micro; K = 1 and "
    "the ensemble sizes)",
    "cross_model": "Opti. with another model's weights - with its own (micro)",
    "log_linear": "log-linear - linear TopK ensemble of Mine (micro)",
    "vs_majority": "a method - the majority baseline (each relation's most frequent object "
    "among its training pairs), the same averaging",
}

#: the methods set against the majority baseline (``vs_majority``): those the claims of a gain
#: over the manual prompt name (prompt set, method; ``best top-1`` is the best Top1 over the
#: paper's prompt sets, as in ``best_top1_vs_manual``)
AGAINST_MAJORITY: tuple[tuple[str, str], ...] = (
    (NO_SET, "manual"),
    ("best", "top-1"),
    ("Mine+Man", "optimized"),
    ("Mine", "optimized"),
)


def comparison_table(reps: Mapping[str, AccuracyReplicates], ks: Sequence[int]) -> pd.DataFrame:
    """Every paired comparison of accuracies the chapter's claims judge (:data:`COMPARISONS`), per
    model, each with its 95% BCa interval from the same stratified resamples of the test facts
    (:meth:`~calib.prompts.accuracy.AccuracyReplicates.interval`): ``kind, model, unit, prompt_set,
    a, b, averaging, difference, low, high, p_value, n, n_relations, n_boot`` (and ``best_set`` for
    ``best_top1_vs_manual``, ``weights_of`` for ``cross_model``). A comparison whose methods a model
    lacks is left out."""
    rank_methods = ["top-1", *[f"top-{k}" for k in ks if k > 1]]
    ensembles = [f"top-{k}" for k in ks if k > 1] + ["optimized"]
    rows: list[dict] = []
    man = (NO_SET, "manual")
    mi, ma = AVERAGES.index("micro"), AVERAGES.index("macro")
    for model, rep in reps.items():
        col = rep.column

        def diff(a, b, avg="micro", rep=rep):
            return rep.difference(a, b, avg)

        present = [s for s in PAPER_SETS if rep.has((s, "top-1"))]
        if present and rep.has(man):
            idx = [col((s, "top-1")) for s in present]
            j = col(man)

            def best_minus_manual(v: np.ndarray, idx: list[int] = idx, j: int = j) -> np.ndarray:
                return v[:, mi, idx].max(axis=1) - v[:, mi, j]

            got = rep.interval(best_minus_manual)
            best = present[int(np.argmax(rep.point[mi, idx]))]
            rows.append(
                _row(
                    "best_top1_vs_manual",
                    model,
                    model,
                    got,
                    a="best top-1",
                    b="manual",
                    averaging="micro",
                    best_set=best,
                )
            )
        for s in PAPER_SETS:
            if not rep.has((s, "top-1")):
                continue
            for e in ensembles:
                if rep.has((s, e)):
                    for avg in AVERAGES:
                        rows.append(
                            _row(
                                "ensemble_vs_top1",
                                model,
                                f"{model}, {s}, {e} ({avg})",
                                diff((s, e), (s, "top-1"), avg),
                                prompt_set=s,
                                a=e,
                                b="top-1",
                                averaging=avg,
                            )
                        )
            for r in rank_methods[1:]:
                if rep.has((s, r)) and rep.has((s, "optimized")):
                    rows.append(
                        _row(
                            "optimized_vs_rank",
                            model,
                            f"{model}, {s}, optimized vs {r}",
                            diff((s, "optimized"), (s, r)),
                            prompt_set=s,
                            a="optimized",
                            b=r,
                            averaging="micro",
                        )
                    )
            ranks = [r for r in rank_methods if rep.has((s, r))]
            for r in ranks if len(ranks) > 1 else []:
                i_r, rest = col((s, r)), [col((s, q)) for q in ranks if q != r]

                def k_minus_best_other(
                    v: np.ndarray, i: int = i_r, rest: list[int] = rest
                ) -> np.ndarray:
                    return v[:, mi, i] - v[:, mi, rest].max(axis=1)

                rows.append(
                    _row(
                        "best_k",
                        model,
                        f"{model}, {s}, {r}",
                        rep.interval(k_minus_best_other),
                        prompt_set=s,
                        a=r,
                        b="best other K",
                        averaging="micro",
                    )
                )
            others = [m for m in [*rank_methods, "optimized"] if rep.has((s, m))]
            if rep.has((s, "oracle")) and others:
                idx, o = [col((s, m)) for m in others], col((s, "oracle"))
                for avg in AVERAGES:
                    k = AVERAGES.index(avg)

                    def oracle_minus_best(
                        v: np.ndarray, k: int = k, idx: list[int] = idx, o: int = o
                    ) -> np.ndarray:
                        return v[:, k, o] - v[:, k, idx].max(axis=1)

                    got = rep.interval(oracle_minus_best)
                    rows.append(
                        _row(
                            "oracle_bound",
                            model,
                            f"{model}, {s} ({avg})",
                            got,
                            prompt_set=s,
                            a="oracle",
                            b="best other method",
                            averaging=avg,
                        )
                    )
            for label in [
                (s, m) for m in [*rank_methods, "optimized", "oracle"] if rep.has((s, m))
            ]:
                i = col(label)

                def macro_minus_micro(v: np.ndarray, i: int = i) -> np.ndarray:
                    return v[:, ma, i] - v[:, mi, i]

                got = rep.interval(macro_minus_micro)
                rows.append(
                    _row(
                        "macro_vs_micro",
                        model,
                        f"{model}, {s}, {label[1]}",
                        got,
                        prompt_set=s,
                        a=label[1],
                        b=label[1],
                        averaging="macro - micro",
                    )
                )
        for label in [(NO_SET, "manual"), (NO_SET, "majority"), (NO_SET, MAJORITY_TEST)]:
            if rep.has(label):
                i = col(label)

                def macro_minus_micro(v: np.ndarray, i: int = i) -> np.ndarray:
                    return v[:, ma, i] - v[:, mi, i]

                got = rep.interval(macro_minus_micro)
                rows.append(
                    _row(
                        "macro_vs_micro",
                        model,
                        f"{model}, {label[1]}",
                        got,
                        prompt_set=NO_SET,
                        a=label[1],
                        b=label[1],
                        averaging="macro - micro",
                    )
                )
        rows += _against_majority(rep, model)
        opt_mm, opt_mine = ("Mine+Man", "optimized"), ("Mine", "optimized")
        if rep.has(opt_mm) and rep.has(man):
            rows.append(
                _row(
                    "abstract_gain",
                    model,
                    model,
                    diff(opt_mm, man),
                    prompt_set="Mine+Man",
                    a="optimized",
                    b="manual",
                    averaging="micro",
                )
            )
        if rep.has(opt_mine) and rep.has(man):
            rows.append(
                _row(
                    "macro_gain",
                    model,
                    model,
                    diff(opt_mine, man, "macro"),
                    prompt_set="Mine",
                    a="optimized",
                    b="manual",
                    averaging="macro",
                )
            )
            i, j = col(opt_mine), col(man)

            def macro_gain_minus_micro(v: np.ndarray, i: int = i, j: int = j) -> np.ndarray:
                return (v[:, ma, i] - v[:, ma, j]) - (v[:, mi, i] - v[:, mi, j])

            got = rep.interval(macro_gain_minus_micro)
            rows.append(
                _row(
                    "macro_gain_smaller",
                    model,
                    model,
                    got,
                    prompt_set="Mine",
                    a="optimized",
                    b="manual",
                    averaging="macro gain - micro gain",
                )
            )
        for m in [*rank_methods, "optimized"]:
            if rep.has(("Man+Para", m)) and rep.has(("Mine", m)):
                rows.append(
                    _row(
                        "paraphrase_vs_mined",
                        model,
                        f"{model}, {m}",
                        diff(("Man+Para", m), ("Mine", m)),
                        prompt_set="Man+Para vs Mine",
                        a=m,
                        b=m,
                        averaging="micro",
                    )
                )
        for m in [*rank_methods, "optimized", "oracle"]:
            if rep.has(("Mid+Dep", m)) and rep.has(("Mid", m)):
                rows.append(
                    _row(
                        "mid_dep_vs_mid",
                        model,
                        f"{model}, {m}",
                        diff(("Mid+Dep", m), ("Mid", m)),
                        prompt_set="Mid+Dep vs Mid",
                        a=m,
                        b=m,
                        averaging="micro",
                    )
                )
        for s in CROSS_MODEL_SETS:
            for label in rep.labels:
                if label[0] == s and label[1].startswith("optimized (weights of "):
                    other = label[1].removeprefix("optimized (weights of ").removesuffix(")")
                    rows.append(
                        _row(
                            "cross_model",
                            model,
                            f"{model} with {other}'s weights, {s}",
                            diff(label, (s, "optimized")),
                            prompt_set=s,
                            a=label[1],
                            b="optimized",
                            averaging="micro",
                            weights_of=other,
                        )
                    )
        for k in ks:
            lin = ("Mine", f"top-{k}{LINEAR}")
            if k > 1 and rep.has(lin) and rep.has(("Mine", f"top-{k}")):
                rows.append(
                    _row(
                        "log_linear",
                        model,
                        f"{model}, Mine, top-{k}",
                        diff(("Mine", f"top-{k}"), lin),
                        prompt_set="Mine",
                        a=f"top-{k}",
                        b=f"top-{k}{LINEAR}",
                        averaging="micro",
                    )
                )
    cols = [
        "kind",
        "model",
        "unit",
        "prompt_set",
        "a",
        "b",
        "averaging",
        "difference",
        "low",
        "high",
        "p_value",
        "n",
        "n_relations",
        "n_boot",
        "best_set",
        "weights_of",
    ]
    return pd.DataFrame(rows).reindex(columns=cols)


def _against_majority(rep: AccuracyReplicates, model: str) -> list[dict]:
    """``vs_majority`` rows of one model: each method of :data:`AGAINST_MAJORITY` that the
    model has minus the majority baseline, micro and macro, with a 95% paired interval (the
    same resamples)."""
    majority = (NO_SET, "majority")
    if not rep.has(majority):
        return []
    m = rep.column(majority)
    rows = []
    for prompt_set, method in AGAINST_MAJORITY:
        if prompt_set == "best":
            idx = [rep.column((s, method)) for s in PAPER_SETS if rep.has((s, method))]
            name = "best top-1"
        else:
            idx = [rep.column((prompt_set, method))] if rep.has((prompt_set, method)) else []
            name = method if prompt_set == NO_SET else f"{method} of {prompt_set}"
        if not idx:
            continue
        for k, avg in enumerate(AVERAGES):

            def minus_majority(
                v: np.ndarray, k: int = k, idx: list[int] = idx, m: int = m
            ) -> np.ndarray:
                return v[:, k, idx].max(axis=1) - v[:, k, m]

            rows.append(
                _row(
                    "vs_majority",
                    model,
                    f"{model}, {name} ({avg})",
                    rep.interval(minus_majority),
                    prompt_set=prompt_set,
                    a=name,
                    b="majority",
                    averaging=avg,
                )
            )
    return rows


def reference_accuracy(
    test: pd.DataFrame, prompts: pd.DataFrame, n_boot: int = 1000, seed: int = 0
) -> pd.DataFrame:
    """Test accuracy (micro, macro, with intervals) of LPAQA's released prompts: per model and
    source (``lpaqa-mine``, ``lpaqa-paraphrase``) the mean over the source's prompts of a
    relation of their hits, then §5.1's averages over the relations the source has prompts
    for. Columns as :func:`~calib.prompts.accuracy.accuracy_intervals` with ``method`` = the
    source."""
    ref = test.merge(
        prompts.loc[prompts["source"].isin(REFERENCE_SOURCES), ["relation", "template", "source"]],
        on=["relation", "template"],
        how="inner",
    )
    if ref.empty:
        return pd.DataFrame(
            columns=[
                "model",
                "method",
                "n_relations",
                "n",
                "micro",
                "micro_low",
                "micro_high",
                "macro",
                "macro_low",
                "macro_high",
            ]
        )
    per = predictions(ref.drop(columns="source")).merge(
        prompts[["relation", "template", "source"]], on=["relation", "template"]
    )
    per = (
        per.groupby(["model", "source", "relation", "instance", "answer_idx"], as_index=False)[
            "hit"
        ]
        .mean()
        .rename(columns={"source": "method"})
    )
    return accuracy_intervals(per, ["method"], n_boot, seed)


def best_prompts(
    rankings: pd.DataFrame, prompts: pd.DataFrame, prompt_set: str = "Mine+Man", k: int = 3
) -> pd.DataFrame:
    """The ``k`` best prompts per model and relation of ``prompt_set`` by training accuracy,
    with their text and source."""
    r = rankings[(rankings["prompt_set"] == prompt_set) & (rankings["rank"] < k)]
    r = r.merge(
        prompts[["relation", "template", "text", "source"]], on=["relation", "template"], how="left"
    )
    return r[["model", "relation", "rank", "template", "source", "text", "accuracy"]]
