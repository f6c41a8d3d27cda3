"""Beyond the paper: the calibration of LPAQA's ensembles (ACE with its noise floor, Brier; the
paraphrase-consistency estimators of Kissling et al. 2026 over the best prompts) and LAMA's
prompts transferred to BEAR.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.confidence.estimators import MULTI, base
from calib.confidence.probabilities import template_predictions
from calib.confidence.summary import summary
from calib.data.bear import PARAPHRASES, PLAIN, Bear, load_bear
from calib.data.lama import MANUAL
from calib.experiments.lpaqa.accuracy import method_rank, set_rank
from calib.experiments.lpaqa.scoring import BEAR, query_facts
from calib.experiments.lpaqa.selection import NO_SET, SET_KEYS, Selection, _in_set, key_values
from calib.prompts.ensemble import rank_prompts, top_k_ensemble
from calib.prompts.sets import PAPER_SETS
from calib.scoring.statements import Query, template_queries

#: the set whose ranking the BEAR transfer uses (Table 2's best set for both BERTs)
TRANSFER_SET = "Mine+Man"


# ---------------------------------------------------------------------------------------------
# 7. beyond the paper: calibration of the ensembles, LAMA prompts on BEAR


def ranked_templates(sent: pd.DataFrame, ranking: pd.DataFrame, k: int) -> pd.DataFrame:
    """The rows of the ``k`` best prompts per (model, relation) of ``ranking``, with
    ``template`` renamed ``rank-0 .. rank-<k-1>``: the same template names in every relation,
    as the multi-template estimators expect."""
    r = ranking[ranking["rank"] < k]
    rank = key_values(sent, r, SET_KEYS, "rank")
    keep = ~np.isnan(rank)
    # the inner merge's rows in its order (the left's), the keys keeping their types (a merge
    # of a compact table's categoricals with the ranking's strings made every row's keys
    # strings: 28% of a model's analysis at the paper's sample)
    out = sent[keep].reset_index(drop=True)
    out["template"] = "rank-" + pd.Series(rank[keep].astype(np.int64)).astype(str)
    return out


def _estimates_of(tables: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    parts = []
    for name in names:
        t = tables[tables["template"] == name]
        if len(t):
            parts.append(
                base(
                    t[
                        [
                            "model",
                            "dataset",
                            "relation",
                            "instance",
                            "template",
                            "option",
                            "answer_idx",
                            "score",
                        ]
                    ],
                    name,
                ).assign(method=name)
            )
    return pd.concat(parts, ignore_index=True)


def consistency_estimates(
    sent: pd.DataFrame, ranking: pd.DataFrame, k: int, aggregation: str = "min", prefix: str = ""
) -> pd.DataFrame:
    """Average, Consistency and Entropy (Kissling et al. Eqs. 3-7, ``aggregation``) over the
    ``k`` best prompts of ``ranking`` taken as the paraphrase templates; ``method`` =
    ``<prefix><Estimator>/<aggregation> (k)``. ``k`` is capped at the smallest number of ranked
    prompts of a (model, relation); fewer than 2 gives an empty frame."""
    k = int(min(k, ranking.groupby(["model", "relation"]).size().min()))
    if k < 2:
        return pd.DataFrame()
    # the softmax over options of each ranked prompt once for the three estimators
    ranked = template_predictions(ranked_templates(sent, ranking, k))
    names = [f"rank-{i}" for i in range(k)]
    return pd.concat(
        [
            fn(ranked, aggregation, names).assign(method=f"{prefix}{est}/{aggregation} ({k})")
            for est, fn in MULTI.items()
        ],
        ignore_index=True,
    )


#: the columns of a calibration table the page shows, ACE with its floor beside it (issue 18)
CALIBRATION_COLUMNS: tuple[str, ...] = (
    "accuracy",
    "accuracy_low",
    "accuracy_high",
    "ace",
    "ace_low",
    "ace_high",
    "ace_floor",
    "ace_floor_low",
    "ace_floor_high",
    "ace_debiased",
    "ace_debiased_low",
    "ace_debiased_high",
    "ace_within_floor",
    "brier",
    "brier_low",
    "brier_high",
)


def calibration(
    test: pd.DataFrame,
    selection: Selection,
    sets: Sequence[str] = PAPER_SETS,
    k: int = 5,
    n_boot: int = 1000,
    seed: int = 0,
    caps: Mapping[str, int] | None = None,
) -> pd.DataFrame:
    """ACE (with its noise floor and the debiased ACE), Brier and accuracy (Kissling et al. §4.3) on
    the test facts, per model and prompt set of ``sets``: the Base-Confidence (Eq. 1) of the manual
    prompt, of the top-1 prompt and of the top-K and optimised ensembles (the ensemble's probability
    of its answer), and Average / Consistency / Entropy (min aggregation) over the ``k`` best
    prompts as templates. One row per ``model, prompt_set, method`` (the manual prompt once, prompt
    set :data:`~calib.experiments.lpaqa.selection.NO_SET`), with bootstrap intervals
    (:func:`calib.confidence.summary.summary` with ``floor=("ace",)``). ``caps``: per prompt set
    the most prompts the consistency estimators take (:func:`consistency_estimates` caps ``k``
    at the fewest ranked prompts of a model and relation; run on one model at a time, the
    fewest over every model keeps what all models together give)."""
    ens = selection.ensembles
    parts = []
    for name in [NO_SET, *sets]:
        part = ens[ens["prompt_set"] == name]
        if part.empty:
            continue
        est = _estimates_of(part, sorted(set(part["method"].unique()), key=method_rank))
        if name != NO_SET:
            ranking = selection.rankings[selection.rankings["prompt_set"] == name]
            cap = k if caps is None or name not in caps else min(k, caps[name])
            multi = consistency_estimates(test, ranking, cap)
            if len(multi):
                est = pd.concat([est, multi], ignore_index=True)
        parts.append(est.assign(prompt_set=name))
    table = summary(
        pd.concat(parts, ignore_index=True),
        by=["model", "prompt_set", "method"],
        n_boot=n_boot,
        seed=seed,
        floor=("ace",),
    )
    # keys as strings (categoricals where the ensembles were compact)
    table = table.astype(
        {c: str for c in table.columns if isinstance(table[c].dtype, pd.CategoricalDtype)}
    )
    table = table.assign(_s=table["prompt_set"].map(set_rank), _o=table["method"].map(method_rank))
    return (
        table.sort_values(["model", "_s", "_o"], kind="stable")
        .drop(columns=["_s", "_o"])
        .reset_index(drop=True)
    )


def shared_relations(lama_relations: Sequence[str], bear: Bear) -> list[str]:
    """The relations of ``lama_relations`` that BEAR also has (same Wikidata property)."""
    return [r for r in lama_relations if r in bear.relations]


def transfer_ranking(
    train: pd.DataFrame, test: pd.DataFrame, members: pd.DataFrame, prompt_set: str = TRANSFER_SET
) -> pd.DataFrame:
    """The ranking the BEAR transfer applies: ``prompt_set``'s prompts ranked per model and
    relation by training accuracy (§4.1, :func:`~calib.prompts.ensemble.rank_prompts`), the
    ranking :func:`~calib.experiments.lpaqa.selection.select_and_ensemble` gives that set (the
    chapter scores BEAR before it analyses). ``ValueError`` when the set has no training or no
    test scores."""
    tr, te = _in_set(train, members, prompt_set), _in_set(test, members, prompt_set)
    if tr.empty or te.empty:
        raise ValueError(
            f"the BEAR transfer ranks the prompts of {prompt_set!r}; that set has no "
            f"{'training' if tr.empty else 'test'} scores"
        )
    return rank_prompts(tr).assign(prompt_set=prompt_set)


def transfer_queries(
    bear: Bear,
    prompts: pd.DataFrame,
    ranking: pd.DataFrame,
    model: str,
    k: int,
    bear_templates: Sequence[str] = PARAPHRASES,
) -> list[Query]:
    """BEAR facts under BEAR's own ``bear_templates`` and under the LAMA prompts that the
    chapter transfers for ``model``: the manual LAMA prompt (named ``lama-manual``) and the
    ``k`` best by LAMA training accuracy (``ranking``). Dataset ``"bear"``; BEAR's answer
    spaces."""
    spaces = {r: rel.answer_labels for r, rel in bear.relations.items()}
    texts = {
        (r, t): x for r, t, x in zip(prompts["relation"], prompts["template"], prompts["text"])
    }
    temps: dict[str, dict[str, str]] = {}
    for rid, rel in bear.relations.items():
        chosen = {n: rel.templates[n] for n in bear_templates}
        chosen["lama-manual"] = texts[(rid, MANUAL)]
        mine = ranking[(ranking["model"] == model) & (ranking["relation"] == rid)]
        for name in mine.sort_values("rank")["template"][:k]:
            chosen[f"lama-{name}"] = texts[(rid, name)]
        temps[rid] = chosen
    return template_queries(query_facts(bear.instances), spaces, temps, BEAR)


def transfer_results(
    sent: pd.DataFrame,
    ranking: pd.DataFrame,
    k: int,
    n_boot: int = 1000,
    seed: int = 0,
    bear_templates: Sequence[str] = PARAPHRASES,
    cap: int | None = None,
) -> pd.DataFrame:
    """Accuracy, ACE (with its noise floor and the debiased ACE) and Brier on the BEAR facts
    (``sent``, from :func:`transfer_queries`) of: BEAR's plain template (``BEAR paraphrase-0``,
    Base), the mean of BEAR's templates (``BEAR mean``, a uniform ensemble),
    Average/Consistency/Entropy over BEAR's templates (``BEAR <Estimator>/min``), the LAMA
    manual prompt, the LAMA top-1 prompt and the top-``k`` ensemble of LAMA prompts (ranked on
    LAMA's training pairs), and Average/Consistency/Entropy over those ``k`` prompts. Adds
    ``d_accuracy``, ``d_ace``, ``d_brier``: the change against ``BEAR paraphrase-0`` of the
    same model. ``cap``: the most prompts the consistency estimators over the LAMA prompts take
    (as :func:`calibration`'s ``caps``)."""
    own = sent[sent["template"].isin(bear_templates)]
    lama = sent[sent["template"].str.startswith("lama-")]
    lama = lama.assign(template=lama["template"].str.slice(5))
    order = pd.DataFrame({"template": list(bear_templates), "rank": range(len(bear_templates))})
    fake = own[["model", "dataset", "relation"]].drop_duplicates().merge(order, how="cross")
    tables = [
        own[own["template"] == PLAIN].assign(template=f"BEAR {PLAIN}"),
        top_k_ensemble(own, fake, len(bear_templates), "BEAR mean"),
        lama[lama["template"] == MANUAL].assign(template="LAMA manual"),
        top_k_ensemble(lama, ranking, 1, "LAMA top-1"),
    ]
    if k > 1:
        tables.append(top_k_ensemble(lama, ranking, k, f"LAMA top-{k}"))
    tables = pd.concat(tables, ignore_index=True)
    est = [_estimates_of(tables, list(dict.fromkeys(tables["template"].unique())))]
    est += [
        fn(own, "min", list(bear_templates)).assign(method=f"BEAR {name}/min")
        for name, fn in MULTI.items()
    ]
    multi = consistency_estimates(lama, ranking, k if cap is None else min(k, cap), prefix="LAMA ")
    if len(multi):
        est.append(multi)
    out = summary(
        pd.concat(est, ignore_index=True),
        by=["model", "method"],
        n_boot=n_boot,
        seed=seed,
        floor=("ace",),
    )
    plain = out[out["method"] == f"BEAR {PLAIN}"].set_index("model")
    for m in ("accuracy", "ace", "brier"):
        out[f"d_{m}"] = out[m] - out["model"].map(plain[m])
    return out


def transfer_sample(
    relations: Sequence[str], per_relation: int | None, seed: int = 0, root=None
) -> Bear:
    """The BEAR facts of ``relations``: a seeded sample of ``per_relation`` each
    (``Bear.sample``, the same draw as the BEAR chapters', so their cached scores of
    BEAR's templates are reused)."""
    return load_bear(root, relations=list(relations)).sample(per_relation, seed)


def floor_sentence(table: pd.DataFrame, what: str) -> str:
    """How many of a calibration table's ACEs are within their noise floor (not
    distinguishable from perfect calibration at this sample size), naming them."""
    within = table[table["ace_within_floor"].astype(bool)]
    n = len(table)
    if within.empty:
        return (
            f"Every ACE of the {what} ({n}) is above its noise floor: each is "
            f"distinguishable from perfect calibration at this sample size."
        )

    def label(r: dict) -> str:
        where = r.get("prompt_set", NO_SET)
        return (
            f"{r['model']}, {r['method']}"
            if where == NO_SET
            else f"{r['model']}, {where} {r['method']}"
        )

    names = "; ".join(label(r) for r in within.head(8).to_dict("records"))
    more = f" and {len(within) - 8} more" if len(within) > 8 else ""
    return (
        f"{len(within)} of the {n} ACEs of the {what} are within their noise floor, not "
        f"distinguishable from perfect calibration at this sample size ({names}{more})."
    )
