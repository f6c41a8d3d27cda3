"""The LPAQA chapter's analysis one model at a time (issue 24):
:func:`calib.experiments.lpaqa.analyse` gives, on a small synthetic sample of three models (a
Mine+Para set whose prompts differ by model, LPAQA reference prompts, BEAR transfer scores), what
the serial analysis of all models in one table gave before it, and it never hands a step more
than one model's rows."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import query_score_table

from calib.confidence.reductions import sentence_scores
from calib.data.bear import PARAPHRASES
from calib.data.lama import MANUAL
from calib.experiments import lpaqa as lp
from calib.experiments.lpaqa import sample, scoring
from calib.experiments.lpaqa.accuracy import (
    accuracy_table,
    comparison_table,
    reference_accuracy,
    replicates,
)
from calib.experiments.lpaqa.beyond_paper import TRANSFER_SET, calibration, transfer_results
from calib.experiments.lpaqa.consistency import divergence
from calib.experiments.lpaqa.selection import select_and_ensemble
from calib.prompts.sets import PROMPT_COLUMNS, for_models

#: not in sorted order: the serial analysis orders some frames by name, some by first sight
MODELS = ("zeta", "alpha", "mid")
#: Mine+Para prompts per model: different counts (the consistency estimators' cap is the
#: fewest over every model)
MINE_PARA = {"zeta": 3, "alpha": 2, "mid": 3}
FRAMES = (
    "hits",
    "rankings",
    "weights",
    "accuracy",
    "comparisons",
    "reference",
    "divergence",
    "divergence_bins",
    "calibration",
    "transfer",
)


def serial_analyse(scores: lp.LpaqaScores, p: lp.Params) -> dict:
    """The chapter's analysis as it was before issue 24 (all models in one table, one
    process), on the steps it called: the reference of the equivalence test."""
    sample_, prompts, members, sent = scores.sample, scores.prompts, scores.members, scores.scores
    train, test = sent[sent["dataset"] == scoring.TRAIN], sent[sent["dataset"] == scoring.TEST]
    selection = select_and_ensemble(
        train,
        test,
        members,
        sample_.sample.instances,
        reference=sample_.full.train,
        test_reference=sample_.full.instances,
        ks=p.ensemble_k,
        steps=p.adam_steps,
        lr=p.adam_lr,
    )
    reps = replicates(selection.hits, p.n_bootstrap, p.seed)
    corr, bins = divergence(test, prompts, members, p.n_bootstrap, p.seed)
    calib_table = calibration(
        test, selection, k=max(p.ensemble_k), n_boot=p.n_bootstrap, seed=p.seed
    )
    ranking = selection.rankings[selection.rankings["prompt_set"] == TRANSFER_SET]
    transfer = transfer_results(scores.bear, ranking, p.bear_top_k, p.n_bootstrap, p.seed)
    return {
        "hits": selection.hits,
        "rankings": selection.rankings,
        "weights": selection.weights,
        "accuracy": accuracy_table(reps),
        "comparisons": comparison_table(reps, p.ensemble_k),
        "reference": reference_accuracy(test, prompts, p.n_bootstrap, p.seed),
        "divergence": corr,
        "divergence_bins": bins,
        "calibration": calib_table,
        "transfer": transfer,
    }


def bear_scores(models, relations, seed: int) -> pd.DataFrame:
    """Sentence scores of BEAR-like facts under BEAR's templates and the LAMA prompts named
    ``lama-<template>``."""
    rng = np.random.default_rng(seed)
    templates = [*PARAPHRASES, *(f"lama-{t}" for t in (MANUAL, "mined-00", "mined-01", "mined-02"))]
    rows = []
    for model in models:
        for rel in relations:
            for i in range(6):
                gold = int(rng.integers(4))
                for t in templates:
                    values = rng.normal(-3.0, 1.0, 4)
                    values[gold] += rng.random() * 2
                    rows += [
                        (model, scoring.BEAR, rel, f"{rel}-b{i}", t, o, gold, float(values[o]))
                        for o in range(4)
                    ]
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "dataset",
            "relation",
            "instance",
            "template",
            "option",
            "answer_idx",
            "score",
        ],
    )


@pytest.fixture(scope="module")
def lpaqa_scores():
    drawn = sample.load_sample(["P30", "P1303", "P140"], None, 4, 6, seed=0)
    lama = drawn.sample
    own = {
        "mined-00": ("[X] lies in [Y] .", "mined"),
        "mined-01": ("[X] is part of [Y] .", "mined"),
        "mined-02": ("[X] , [Y] .", "mined"),
        "paraphrase-00": ("[X] is situated in [Y] .", "paraphrase"),
        "lpaqa-mine-00": ("[X] is in [Y] .", "lpaqa-mine"),
    }
    for m, n in MINE_PARA.items():
        own.update({f"mp-{m}-{i}": (f"[X] {m} {i} [Y] .", "mined-paraphrase") for i in range(n)})
    prompts, members = [], []
    for rid, rel in lama.relations.items():
        prompts.append(
            {"relation": rid, "template": MANUAL, "text": rel.templates[MANUAL], "source": "manual"}
        )
        for name, (text, source) in own.items():
            prompts.append({"relation": rid, "template": name, "text": text, "source": source})
        for prompt_set, names in (
            ("Mine", ["mined-00", "mined-01", "mined-02"]),
            ("Mine+Man", [MANUAL, "mined-00", "mined-01", "mined-02"]),
            ("Man+Para", [MANUAL, "paraphrase-00"]),
            ("Mid", ["mined-00", "mined-01"]),
        ):
            members += [(rid, prompt_set, n, i) for i, n in enumerate(names)]
    prompts = pd.DataFrame(prompts).reindex(columns=list(PROMPT_COLUMNS))
    members = for_models(
        pd.DataFrame(members, columns=["relation", "prompt_set", "template", "position"]), MODELS
    )
    para = pd.DataFrame(
        [
            (m, rid, "Mine+Para", f"mp-{m}-{i}", i)
            for m, n in MINE_PARA.items()
            for rid in lama.relations
            for i in range(n)
        ],
        columns=["model", "relation", "prompt_set", "template", "position"],
    )
    members = pd.concat([members, para], ignore_index=True)
    parts = []
    for i, m in enumerate(MODELS):
        mine = prompts[
            ~prompts["template"].str.startswith("mp-")
            | prompts["template"].str.startswith(f"mp-{m}-")
        ]
        table = query_score_table(scoring.lama_queries(lama, mine), (m,), seed=10 + i)
        parts.append(sentence_scores(table))
    return lp.LpaqaScores(
        drawn,
        prompts,
        members,
        pd.concat(parts, ignore_index=True),
        bear=bear_scores(MODELS, ["P30", "P1303"], 5),
        bear_relations=["P30", "P1303"],
        n_bear_facts=12,
    )


PARAMS = lp.Params(models=MODELS, ensemble_k=(2, 3), adam_steps=20, n_bootstrap=30, bear_top_k=3)


@pytest.fixture(scope="module")
def serial(lpaqa_scores):
    return serial_analyse(lpaqa_scores, PARAMS)


def assert_same(result, serial) -> None:
    for key in FRAMES:
        pd.testing.assert_frame_equal(
            getattr(result, key), serial[key], check_exact=False, rtol=0, atol=1e-12, obj=key
        )


def test_per_model_analysis_equals_the_serial_analysis_of_all_models(lpaqa_scores, serial):
    result = lp.analyse(lpaqa_scores, PARAMS, workers=1)
    assert set(serial["comparisons"]["kind"]) >= {"cross_model", "ensemble_vs_top1"}
    assert len(serial["calibration"]) and len(serial["transfer"]) and len(serial["reference"])
    assert_same(result, serial)


def test_scores_per_model_as_tables_or_loaders_in_a_pool_give_the_same(
    lpaqa_scores, serial, tmp_path
):
    """Per model its table, or a loader read in a worker process (two of them)."""
    sent, bear = lpaqa_scores.scores, lpaqa_scores.bear
    tables, loaders = {}, {}
    for m in MODELS:
        tables[m] = sent[sent["model"] == m].reset_index(drop=True)
        path = tmp_path / f"{m}.parquet"
        tables[m].to_parquet(path)
        loaders[m] = partial(pd.read_parquet, path)
    bears = {m: bear[bear["model"] == m].reset_index(drop=True) for m in MODELS}
    as_tables = lp.LpaqaScores(**{**vars(lpaqa_scores), "scores": tables, "bear": bears})
    assert_same(lp.analyse(as_tables, PARAMS, workers=1), serial)
    as_loaders = lp.LpaqaScores(**{**vars(lpaqa_scores), "scores": loaders, "bear": bears})
    assert_same(lp.analyse(as_loaders, PARAMS, workers=2), serial)


def test_the_analysis_never_hands_a_step_two_models(lpaqa_scores, monkeypatch):
    """Each pass loads every model's scores once, and each step sees one model's rows."""
    seen: dict[str, list] = {"fit": [], "select": [], "loads": []}
    fit, select = lp.fit_sets, lp.select_and_ensemble

    def fit_spy(train, test, *a, **k):
        seen["fit"].append((tuple(train["model"].unique()), tuple(test["model"].unique())))
        return fit(train, test, *a, **k)

    def select_spy(train, test, *a, **k):
        seen["select"].append((tuple(train["model"].unique()), tuple(test["model"].unique())))
        return select(train, test, *a, **k)

    sent = lpaqa_scores.scores

    def loader(m):
        seen["loads"].append(m)
        return sent[sent["model"] == m].reset_index(drop=True)

    monkeypatch.setattr(lp, "fit_sets", fit_spy)
    monkeypatch.setattr(lp, "select_and_ensemble", select_spy)
    scores = lp.LpaqaScores(
        **{**vars(lpaqa_scores), "scores": {m: partial(loader, m) for m in MODELS}}
    )
    lp.analyse(scores, PARAMS, workers=1)
    assert seen["fit"] == [((m,), (m,)) for m in MODELS]
    assert seen["select"] == [((m,), (m,)) for m in MODELS]
    assert seen["loads"] == [*MODELS, *MODELS]  # two passes, one model at a time
    # a table said to be one model's that holds two is refused
    two = lp.LpaqaScores(**{**vars(lpaqa_scores), "scores": {"zeta": sent}})
    with pytest.raises(ValueError, match="several models"):
        lp.analyse(two, PARAMS, workers=1)


def first_seen(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its keys as categoricals whose categories are in first-seen order."""
    out = table.copy()
    for c in scoring.KEY_COLUMNS:
        codes, cats = pd.factorize(out[c].astype(str))
        out[c] = pd.Categorical.from_codes(codes, list(cats))
    return out


def test_compact_tables_cost_less_and_give_the_same_frames(lpaqa_scores, serial):
    """Keys as categoricals, option and answer_idx as int32: a fifth of the bytes per row; the
    analysis of compact tables is the serial one, its keys strings again."""
    sent = lpaqa_scores.scores
    small = scoring.compact(sent)
    assert scoring.compact(small) is small
    assert isinstance(small["instance"].dtype, pd.CategoricalDtype)
    assert small["option"].dtype == "int32" and small["score"].dtype == "float64"
    before = sent.memory_usage(deep=True).sum() / len(sent)
    after = small.memory_usage(deep=True).sum() / len(small)
    assert after < before / 3
    tables = {m: scoring.compact(sent[sent["model"] == m].reset_index(drop=True)) for m in MODELS}
    result = lp.analyse(lp.LpaqaScores(**{**vars(lpaqa_scores), "scores": tables}), PARAMS)
    assert_same(result, serial)
    # categories in another order than the strings' (a store's first-seen order) are sorted:
    # a categorical groups and sorts by its categories' order
    backwards = {m: first_seen(t) for m, t in tables.items()}
    again = scoring.compact(backwards["zeta"])
    assert again["instance"].cat.categories.is_monotonic_increasing
    pd.testing.assert_frame_equal(again.astype(str), backwards["zeta"].astype(str))
    result = lp.analyse(lp.LpaqaScores(**{**vars(lpaqa_scores), "scores": backwards}), PARAMS)
    assert_same(result, serial)
    assert not isinstance(result.hits["instance"].dtype, pd.CategoricalDtype)


def test_in_set_gives_the_inner_merges_rows_with_the_tables_types(lpaqa_scores):
    from calib.experiments.lpaqa.selection import _in_set

    sent, members = lpaqa_scores.scores, lpaqa_scores.members
    for name in ("Mine", "Mine+Para", "Man+Para"):
        keys = members.loc[members["prompt_set"] == name, ["model", "relation", "template"]]
        merged = sent.merge(keys.drop_duplicates(), on=["model", "relation", "template"])
        pd.testing.assert_frame_equal(_in_set(sent, members, name), merged, obj=name)
        small = _in_set(scoring.compact(sent), members, name)
        assert isinstance(small["template"].dtype, pd.CategoricalDtype)
        pd.testing.assert_frame_equal(small.astype(merged.dtypes.to_dict()), merged, obj=name)


def test_ranked_templates_gives_the_inner_merges_rows_on_string_and_compact_tables(lpaqa_scores):
    """``ranked_templates`` (a lookup of each distinct key, not a merge that made a compact
    table's keys strings) gives the rows, order and values of the inner merge it replaced."""
    from calib.experiments.lpaqa.beyond_paper import ranked_templates
    from calib.prompts.ensemble import rank_prompts

    sent = lpaqa_scores.scores
    ranking = rank_prompts(sent[sent["dataset"] == "lama-train"])
    keys = ["model", "relation", "template"]
    for k in (1, 2, 3):
        r = ranking[ranking["rank"] < k][[*keys, "rank"]]
        merged = sent.merge(r, on=keys, how="inner")
        merged["template"] = "rank-" + merged["rank"].astype(str)
        merged = merged.drop(columns="rank")
        assert len(merged), k
        pd.testing.assert_frame_equal(ranked_templates(sent, ranking, k), merged, obj=str(k))
        small = ranked_templates(scoring.compact(sent), ranking, k)
        assert isinstance(small["model"].dtype, pd.CategoricalDtype)
        pd.testing.assert_frame_equal(small.astype(merged.dtypes.to_dict()), merged, obj=str(k))
    assert ranked_templates(sent.iloc[:0], ranking, 2).empty


def test_rows_with_counts_a_compact_tables_keys_by_their_codes_and_falls_back_otherwise():
    """A compact table's keys are numbered from their categories' codes (linear); a key
    missing in a row, or plain strings, take the groupby path; all give the merge's rows."""
    from calib.experiments.lpaqa.selection import _dense_codes, key_values, rows_with

    sent = pd.DataFrame(
        {
            "relation": pd.Categorical(
                ["P1", "P2", "P1", "P3", "P2"], categories=["P1", "P2", "P3", "P9"]
            ),
            "template": pd.Categorical(["a", "b", "b", "a", "b"]),
            "score": [1.0, 2.0, 3.0, 4.0, 5.0],
        }
    )
    keys = pd.DataFrame(
        {"relation": ["P2", "P3", "P9"], "template": ["b", "a", "a"], "rank": [0, 1, 2]}
    )
    on = ["relation", "template"]
    assert _dense_codes(sent, on) is not None
    assert rows_with(sent, keys, on)["score"].tolist() == [2.0, 4.0, 5.0]
    np.testing.assert_array_equal(key_values(sent, keys, on, "rank"), [np.nan, 0, np.nan, 1, 0])
    missing = sent.assign(relation=sent["relation"].astype(object).where(sent.index != 0))
    missing["relation"] = missing["relation"].astype("category")
    assert _dense_codes(missing, on) is None
    assert rows_with(missing, keys, on)["score"].tolist() == [2.0, 4.0, 5.0]
    plain = sent.astype({"relation": object, "template": object})
    assert _dense_codes(plain, on) is None
    np.testing.assert_array_equal(key_values(plain, keys, on, "rank"), [np.nan, 0, np.nan, 1, 0])


def test_fit_sets_numbers_each_table_once_and_gives_what_separate_numbering_gives(
    lpaqa_scores, monkeypatch
):
    """Inside ``fit_sets`` (and ``select_and_ensemble``) the training and test tables are
    numbered by (model, relation, template) once for all prompt sets; the rankings and weights
    are those of numbering them anew for every set; outside, nothing is held."""
    from calib.experiments.lpaqa import selection

    sent = scoring.compact(lpaqa_scores.scores)
    train, test = sent[sent["dataset"] == "lama-train"], sent[sent["dataset"] == "lama"]
    members = lpaqa_scores.members
    names = list(dict.fromkeys(members["prompt_set"]))
    numbered = []
    number = selection._number_keys
    monkeypatch.setattr(
        selection, "_number_keys", lambda s, on: numbered.append(id(s)) or number(s, on)
    )
    fitted = selection.fit_sets(train, test, members, names, steps=20)
    assert sorted(numbered) == sorted([id(train), id(test)])
    assert selection._NUMBERED.store is None
    for name in names:
        numbered.clear()
        alone = selection.fit_sets(train, test, members, [name], steps=20)
        assert len(numbered) == 2
        for got, want in zip(fitted[name], alone[name]):
            pd.testing.assert_frame_equal(got, want, obj=name)
    numbered.clear()
    with selection.numbering_once(test):
        chosen = selection.select_and_ensemble(
            train, test, members, lpaqa_scores.sample.sample.instances, fitted=fitted
        )
        selection.key_values(test, fitted["Mine"][0], selection.SET_KEYS, "rank")
    assert numbered == [id(test)]  # train: only with fitted=None; test once for every use
    assert len(chosen.hits)
