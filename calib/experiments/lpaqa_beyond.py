"""The LPAQA chapter beyond the paper: how well calibrated the ensembles are, and what the LAMA
prompts do on the BEAR relations that LAMA also has (steps 5 and 6 of
:mod:`calib.experiments.lpaqa`).

* :func:`calibration` - ACE and Brier (Kissling et al. §4.3) of single prompts, the ensembles'
  probabilities and the paraphrase-consistency estimators over the best prompts
  (:func:`consistency_estimates`);
* :func:`transfer_sample`, :func:`transfer_queries`, :func:`transfer_results` - BEAR facts under
  BEAR's own templates and under the LAMA prompts ranked on LAMA's training pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from calib.confidence.estimators import MULTI, base
from calib.confidence.summary import summary
from calib.data.bear import PARAPHRASES, PLAIN, Bear
from calib.data.lama import MANUAL
from calib.experiments.lpaqa import BEAR, MAIN_SET, Selection, method_rank, query_facts
from calib.prompts.ensemble import top_k_ensemble
from calib.scoring.statements import Query, template_queries


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
