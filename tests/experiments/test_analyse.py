"""Every chapter's analysis-only entry, ``analyse(scores, params) -> Result``: on a small
synthetic score table of the store's schema (no model, no disk) it gives a complete result that
records and reads back; where a tiny model can score it, ``run(params)`` equals ``analyse`` on the
scores ``run`` scored."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from synthetic_scores import query_score_table, random_score_table

from calib.data.bear import LINGUISTIC, PARAPHRASES, PLAIN
from calib.experiments import (
    answer_set,
    calibration,
    clm_vs_mlm,
    factor,
    linguistic,
    lpaqa,
    records,
    reductions,
    start_tokens,
)


def complete(result, tmp_path, given: tuple[str, ...] = ()) -> None:
    """Every field of ``result`` is set (frames: with their columns; ``given``: fields passed
    through from the scores, empty where the test passed none), and the result records and reads
    back with equal frames."""
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        assert value is not None or "None" in str(f.type), f.name
        if isinstance(value, pd.DataFrame) and f.name not in given:
            assert len(value.columns), f.name
    back = records.load_record_folder(records.write_record(result, tmp_path))
    assert back.params == result.params
    for f in dataclasses.fields(result):
        value = getattr(result, f.name)
        if isinstance(value, pd.DataFrame) and len(value):
            pd.testing.assert_frame_equal(
                _missing_as_none(getattr(back, f.name)),
                _missing_as_none(value),
                check_dtype=False,
                check_index_type=False,
                obj=f.name,
            )


def _missing_as_none(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every missing value as ``None`` (Parquet reads an all-``None`` column of
    objects back as ``<NA>``)."""
    return frame.astype(object).where(frame.notna(), None)


def assert_values_equal(a, b, key: str) -> None:
    """Two values of a chapter's per-model steps are equal: frames, or dicts of tuples of
    numbers and arrays (the contrasts' cells), exactly."""
    if isinstance(b, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=key)
    elif isinstance(b, dict):
        assert a.keys() == b.keys(), key
        for k in b:
            for x, y in zip(a[k], b[k], strict=True):
                np.testing.assert_array_equal(x, y, err_msg=f"{key} {k}")
    else:
        assert a == b, key


def assert_results_equal(a, b) -> None:
    """Two results of one chapter hold equal frames and values."""
    assert type(a) is type(b)
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, pd.DataFrame):
            pd.testing.assert_frame_equal(x, y, obj=f.name)
        else:
            assert x == y, f.name


# -- reductions -------------------------------------------------------------------------------


def test_reductions_analyse_a_synthetic_score_table(tmp_path):
    scores = random_score_table(models=("m2", "m1"), templates=(PLAIN,), n_instances=4)
    params = reductions.Params(models=("m2", "m1"), n_bootstrap=20)
    result = reductions.analyse(scores, params, objectives={"m2": "clm", "m1": "mlm"})
    for claim in reductions.CLAIMS:
        assert claim.judge_build(result).verdict, claim.key
    assert result.objectives == {"m2": "clm", "m1": "mlm"}
    assert result.n_relations == 3 and result.n_facts == 12
    assert len(result.table) == 2 * 4 and set(result.means["objective"]) == {"clm", "mlm"}
    assert len(result.h_differences) == 2 * 3 and len(result.mean_vs_sum) == 2 * 4 * 2
    assert len(result.shape) == 2 * 4 and len(result.mean_floors) == 2 * 4
    complete(result, tmp_path)


@pytest.mark.slow
def test_reductions_run_is_score_bear_then_analyse():
    from calib.scoring.run import score_bear

    params = reductions.Params(
        models=("tiny-gpt2", "tiny-bert"), relations=("P36", "P19"), per_relation=2, n_bootstrap=20
    )
    result = reductions.run(params)
    scores = score_bear(list(params.models), PLAIN, 2, 0, ["P36", "P19"])  # the cached scores
    assert_results_equal(result, reductions.analyse(scores, params))


# -- calibration ------------------------------------------------------------------------------


def test_calibration_analyse_a_synthetic_score_table(tmp_path):
    scores = random_score_table(models=("m2", "m1"), templates=PARAPHRASES, n_instances=4)
    info = pd.DataFrame(
        {"model": ["m2", "m1"], "objective": ["clm", "mlm"], "family": "F", "size_m": [1.0, 2.0]}
    )
    params = calibration.Params(models=("m2", "m1"), n_bootstrap=10, floor_draws=10)
    result = calibration.analyse(scores, params, info)
    assert result.n_facts == 12 and result.n_relations == 3 and result.folds == 3
    assert result.models["model"].tolist() == ["m2", "m1"]
    assert set(result.table["model"]) == {"m2", "m1"}
    assert {"objectives", "size step"} == set(result.contrasts["kind"])  # one family, two sizes
    complete(result, tmp_path)


@pytest.mark.slow
def test_calibration_run_is_score_bear_then_analyse():
    from calib.scoring.run import score_bear

    params = calibration.Params(
        models=("tiny-gpt2", "tiny-bert"),
        relations=("P36", "P19"),
        per_relation=2,
        n_bootstrap=10,
        floor_draws=10,
    )
    result = calibration.run(params)
    scores = score_bear(list(params.models), "paraphrases", 2, 0, ["P36", "P19"])
    assert_results_equal(result, calibration.analyse(scores, params))


# -- linguistic -------------------------------------------------------------------------------


def test_linguistic_analyse_a_synthetic_score_table(tmp_path):
    models = ("smollm2-135m-instruct", "gemma-3-270m")  # registry names: family and size
    scores = random_score_table(models=models, templates=(PLAIN, *LINGUISTIC), n_instances=3)
    params = linguistic.Params(models=models, n_bootstrap=10, floor_draws=10, curve_bins=4)
    result = linguistic.analyse(scores, params)
    assert result.n_facts == 9 and result.n_relations == 3 and result.injected == list(LINGUISTIC)
    assert result.models["model"].tolist() == list(models)
    assert set(result.effects["template"]) == set(LINGUISTIC)
    complete(result, tmp_path)


# -- lpaqa ------------------------------------------------------------------------------------


def test_lpaqa_analyse_synthetic_scores_of_a_real_sample(tmp_path):
    """LpaqaScores by hand: two LAMA relations (data only), the manual prompt, two mined
    prompts and a paraphrase in three prompt sets, random scores of every query."""
    from calib.confidence.reductions import sentence_scores
    from calib.data.lama import MANUAL
    from calib.experiments.lpaqa import sample, scoring
    from calib.prompts.sets import PROMPT_COLUMNS, for_models

    drawn = sample.load_sample(["P30", "P1303"], None, 3, 4, seed=0)
    lama = drawn.sample
    own = {
        "mined-00": ("[X] lies in [Y] .", "mined"),
        "mined-01": ("[X] is part of [Y] .", "mined"),
        "paraphrase-00": ("[X] is situated in [Y] .", "paraphrase"),
    }
    prompts, members = [], []
    for rid, rel in lama.relations.items():
        prompts.append({"relation": rid, "template": MANUAL, "text": rel.templates[MANUAL]})
        prompts[-1]["source"] = "manual"
        for name, (text, source) in own.items():
            prompts.append({"relation": rid, "template": name, "text": text, "source": source})
        for prompt_set, names in (
            ("Mine", ["mined-00", "mined-01"]),
            ("Mine+Man", [MANUAL, "mined-00", "mined-01"]),
            ("Man+Para", [MANUAL, "paraphrase-00"]),
        ):
            members += [(rid, prompt_set, n, i) for i, n in enumerate(names)]
    prompts = pd.DataFrame(prompts).reindex(columns=list(PROMPT_COLUMNS))
    models = ("m1", "m2")
    members = for_models(
        pd.DataFrame(members, columns=["relation", "prompt_set", "template", "position"]), models
    )
    table = query_score_table(scoring.lama_queries(lama, prompts), models, seed=3)
    scores = lpaqa.LpaqaScores(drawn, prompts, members, sentence_scores(table))
    params = lpaqa.Params(models=models, ensemble_k=(2,), adam_steps=5, n_bootstrap=10)
    result = lpaqa.analyse(scores, params)
    assert set(result.accuracy["prompt_set"]) >= {"Mine", "Mine+Man", "Man+Para"}
    assert result.n_test_facts == 8 and result.transfer is None and result.calibration is not None
    assert set(result.comparisons["model"]) == set(models)
    complete(result, tmp_path, given=("corpus", "plan", "cost"))


# -- factor -----------------------------------------------------------------------------------


def synthetic_factor_scores(models, n_items: int = 6, seed: int = 0) -> pd.DataFrame:
    """A FACTOR score table of the store's schema: subsets news and expert, four continuations
    per item, random log-probabilities."""
    table = random_score_table(
        models=models, templates=("continuation",), sizes=(4, 4), n_instances=n_items, seed=seed
    )
    subset = table["relation"].map({"R0": "news", "R1": "expert"})
    return table.assign(relation=subset, dataset="factor-" + subset)


def synthetic_bear_scores(models, n_instances: int = 4, seed: int = 0) -> pd.DataFrame:
    """A BEAR score table of the plain template whose first two relations are BEAR's 1:1
    relations (so that the cut to five options has facts)."""
    from calib.data.bear import one_to_one_relations

    table = random_score_table(
        models=models, templates=(PLAIN,), sizes=(6, 8, 13), n_instances=n_instances, seed=seed
    )
    ones = one_to_one_relations()
    return table.assign(relation=table["relation"].map({"R0": ones[0], "R1": ones[1], "R2": "R2"}))


def test_factor_analyse_synthetic_scores(tmp_path):
    models = ("c1", "m1")
    scores = factor.FactorScores(
        factor=synthetic_factor_scores(models), bear=synthetic_bear_scores(models)
    )
    params = factor.Params(models=models, n_bootstrap=10, repeats=2)
    result = factor.analyse(scores, params, objectives={"c1": "clm", "m1": "mlm"})
    assert result.clms == ["c1"] and result.n_items == 6
    assert result.n_bear == 12 and result.n_bear_one_to_one == 8
    assert set(result.summary["model"]) == set(models) and len(result.bear_cut)
    assert result.n_facts == 6 and set(result.mean_reduction["model"]) == set(models)
    for claim in factor.CLAIMS:  # every rule runs on a real result (floors included)
        assert claim.judge_build(result).verdict, claim.key
    complete(result, tmp_path, given=("items", "cost"))


# -- answer_set -------------------------------------------------------------------------------


def test_answer_set_analyse_synthetic_scores(tmp_path):
    from calib.data.bear import one_to_one_relations

    models = ("c1", "m1")
    ones = one_to_one_relations()
    bear = random_score_table(
        models=models, templates=(PLAIN,), sizes=(60, 60), n_instances=4, seed=1
    )  # two 1:1 relations of 60 options, as BEAR's
    bear = bear.assign(relation=bear["relation"].map({"R0": ones[0], "R1": ones[1]}))
    scores = answer_set.AnswerSetScores(bear=bear, factor=synthetic_factor_scores(models))
    params = answer_set.Params(models=models, ks=(5, 30, 60), repeats=2, n_bootstrap=10)
    result = answer_set.analyse(
        scores, params, objectives={"c1": "clm", "m1": "mlm"}, sizes={"c1": 100.0, "m1": None}
    )
    assert result.groups == {"c1": "CLM under 1B", "m1": "MLM"}
    assert result.relations == sorted(ones[:2]) and result.n_instances == 8
    assert set(result.points["k"]) == {5, 30, 60} and result.n_factor_items == 6
    assert result.n_facts == 8
    for claim in answer_set.CLAIMS:  # every rule runs on a real result (floors included)
        assert claim.judge_build(result).verdict, claim.key
    complete(result, tmp_path)


# -- clm_vs_mlm -------------------------------------------------------------------------------


def test_clm_vs_mlm_analyse_a_synthetic_score_table(tmp_path):
    models = ("c1", "m1", "c2")
    relations = ("P36", "P19", "P30")  # BEAR's: their knowledge domains come from its data
    scores = random_score_table(models=models, templates=PARAPHRASES, n_instances=6, seed=2)
    scores = scores.assign(
        relation=scores["relation"].map(dict(zip(("R0", "R1", "R2"), relations)))
    )
    params = clm_vs_mlm.Params(models=models, relations=relations, n_bootstrap=10, max_gap=1.0)
    kinds = {"c1": "clm", "m1": "mlm", "c2": "clm"}
    result = clm_vs_mlm.analyse(scores, params, objectives=kinds)
    assert result.objectives == kinds and result.n_relations == 3 and result.n_facts == 18
    assert len(result.pairs) == 1  # one MLM: one pair
    assert set(result.model_rows["model"]) == set(models) and len(result.differences)
    for claim in clm_vs_mlm.CLAIMS:  # every rule runs on a real result
        assert claim.judge_build(result).verdict, claim.key
    complete(result, tmp_path)


# -- start_tokens -----------------------------------------------------------------------------


def test_start_tokens_analyse_scores_under_both_rules(tmp_path):
    from calib.experiments.start_tokens.rules import SUMMARY_COLUMNS

    single = random_score_table(models=("c1",), templates=("paraphrase-0",), n_instances=5)
    other = single.assign(token_logprobs=[[x - 0.1 for x in t] for t in single["token_logprobs"]])
    scores = pd.concat(
        [single.assign(rule="single"), other.assign(rule="lm-pub-quiz-0.3.3")], ignore_index=True
    )
    tokens = pd.DataFrame([("c1", "left", 15, 15, 15, "<s>", "<s>")], columns=list(SUMMARY_COLUMNS))
    params = start_tokens.Params(models=("c1", "m1"), n_bootstrap=10)
    result = start_tokens.analyse(
        start_tokens.RuleScores(scores, tokens, 15), params, objectives={"c1": "clm", "m1": "mlm"}
    )
    assert result.causal == ["c1"] and result.masked == ["m1"] and result.measured == ["c1"]
    assert result.table["rule"].tolist() == list(start_tokens.RULES.values())
    assert set(result.differences["metric"]) == {"accuracy", "ace"}
    complete(result, tmp_path)


def test_calibration_analyse_per_model_equals_one_pass_and_the_pool_a_serial_run():
    """The per-model steps on each model's rows, put together, are the frames one call on the
    whole table gives (every interval of a model draws from the seed alone), and a pool of two
    processes gives what one process gives, to the bit."""
    from functools import partial

    from calib.experiments.calibration import assemble, model_frames
    from calib.experiments.per_model import map_models

    models = ("m3", "m1", "m2")  # not in sorted order
    scores = random_score_table(models=models, templates=PARAPHRASES, n_instances=4, seed=5)
    info = pd.DataFrame(
        {"model": list(models), "objective": "clm", "family": "F", "size_m": [1.0, 2.0, 3.0]}
    )
    params = calibration.Params(models=models, n_bootstrap=10, floor_draws=10)
    whole = assemble([model_frames(scores, params)])
    split = assemble(map_models(partial(model_frames, params=params), scores, workers=1))
    assert whole.keys() == split.keys()
    for key, frame in whole.items():
        assert_values_equal(split[key], frame, key)
    from calib.experiments.calibration.contrasts import model_contrasts

    given = model_contrasts(
        split["est"], split["correct"], info, "min", 10, 0, cells=split["contrast_cells"]
    )
    here = model_contrasts(split["est"], split["correct"], info, "min", 10, 0)  # computed here
    with pytest.raises(ValueError, match="n_bootstrap"):
        model_contrasts(split["est"], split["correct"], info, cells=split["contrast_cells"])
    assert len(given) and set(given["kind"]) == {"size step"}
    pd.testing.assert_frame_equal(given, here, check_exact=True)
    serial = calibration.analyse(scores, params, info, workers=1)
    assert serial.table["model"].unique().tolist() == list(models)
    assert_results_equal(calibration.analyse(scores, params, info, workers=2), serial)


def test_calibration_model_frames_share_resamples_with_the_same_numbers():
    """One model's steps with their resamples and replicates shared (the path ``analyse``
    takes) give every frame the unshared steps give, to the bit."""
    from calib.experiments.calibration import _model_frames, model_frames

    scores = random_score_table(models=("m1",), templates=PARAPHRASES, n_instances=6, seed=2)
    params = calibration.Params(models=("m1",), n_bootstrap=40, floor_draws=20)
    shared, plain = model_frames(scores, params), _model_frames(scores, params)
    assert shared.keys() == plain.keys()
    for key, frame in plain.items():
        assert_values_equal(shared[key], frame, key)


def test_calibration_steps_given_the_sentence_scores_equal_those_computing_them():
    """Estimates, recalibration and the paraphrase accuracy on sentence scores computed once
    (as one model's steps pass them) equal each step computing its own."""
    from calib.experiments.calibration.estimators import (
        estimates,
        paraphrase_sentences,
        recalibrated,
    )
    from calib.experiments.calibration.tables import template_correct

    scores = random_score_table(models=("m1", "m2"), templates=PARAPHRASES, n_instances=4)
    sent = paraphrase_sentences(scores)
    est = estimates(scores, aggregations=("min", "vote-2"))
    pd.testing.assert_frame_equal(
        estimates(scores, aggregations=("min", "vote-2"), sent=sent), est, check_exact=True
    )
    pd.testing.assert_frame_equal(
        template_correct(scores, sent=sent), template_correct(scores), check_exact=True
    )
    given, own = recalibrated(scores, est, sent=sent), recalibrated(scores, est)
    assert given.folds == own.folds == 3
    for field in ("estimates", "temperatures", "fits"):
        pd.testing.assert_frame_equal(
            getattr(given, field), getattr(own, field), check_exact=True, obj=field
        )


def test_linguistic_model_frames_share_resamples_with_the_same_numbers():
    """The linguistic chapter's per-model steps with shared resamples give the unshared
    frames, to the bit."""
    from calib.experiments.linguistic import _model_frames, model_frames

    models = ("gemma-3-270m",)
    scores = random_score_table(models=models, templates=(PLAIN, *LINGUISTIC), n_instances=5)
    params = linguistic.Params(models=models, n_bootstrap=40, floor_draws=20, curve_bins=4)
    shared, plain = model_frames(scores, params), _model_frames(scores, params)
    assert shared.keys() == plain.keys()
    for key, frame in plain.items():
        pd.testing.assert_frame_equal(shared[key], frame, check_exact=True, obj=key)


def test_linguistic_analyse_per_model_equals_one_pass():
    """The linguistic chapter's per-model steps on each model's rows, put together, are what
    one pass over the whole table gives."""
    from calib.experiments.linguistic import model_frames

    models = ("gemma-3-270m", "smollm2-135m-instruct")
    scores = random_score_table(models=models, templates=(PLAIN, *LINGUISTIC), n_instances=3)
    params = linguistic.Params(models=models, n_bootstrap=10, floor_draws=10, curve_bins=4)
    whole = model_frames(scores, params)
    result = linguistic.analyse(scores, params, workers=1)
    for key in ("calibration", "effects", "numeric", "sensitivity", "alignment"):
        pd.testing.assert_frame_equal(getattr(result, key), whole[key], obj=key)


def test_factor_analyse_per_model_equals_one_pass_and_the_pool_a_serial_run():
    """The FACTOR chapter's per-model steps on each model's estimates, put together, are the
    frames each step gives on every model's at once, and a pool of two processes gives what
    one process gives."""
    from functools import partial

    from calib.confidence.combined import _MEMO
    from calib.experiments.factor import assemble, model_frames
    from calib.experiments.factor.bear import bear_option_estimates
    from calib.experiments.factor.scoring import factor_estimates
    from calib.experiments.per_model import map_models

    models = ("c2", "m1", "c1")  # not in sorted order
    kinds = {"c2": "clm", "m1": "mlm", "c1": "clm"}
    scores = factor.FactorScores(
        factor=synthetic_factor_scores(models), bear=synthetic_bear_scores(models)
    )
    params = factor.Params(models=models, n_bootstrap=10, repeats=2)
    est, mean_est = factor_estimates(scores.factor), factor_estimates(scores.factor, "mean")
    whole, cut = bear_option_estimates(scores.bear, None, params.seed, repeats=params.repeats)
    one = model_frames(est, whole, cut, mean_est, params)
    split = assemble(
        map_models(partial(model_frames, params=params), [est, whole, cut, mean_est], workers=1),
        est,
        mean_est,
    )
    for key, frame in one.items():
        pd.testing.assert_frame_equal(split[key], frame, obj=key)
    serial = factor.analyse(scores, params, objectives=kinds, workers=1)
    assert serial.summary["model"].unique().tolist() == sorted(models)
    _MEMO.clear()  # the pool's workers start without the parent's replicates
    assert_results_equal(factor.analyse(scores, params, objectives=kinds, workers=2), serial)


def test_answer_set_analyse_per_model_equals_one_pass_and_the_pool_a_serial_run():
    """The answer-set chapter's per-model steps on each model's estimates, put together, are
    the frames each step gives on every model's at once, and a pool of two processes gives
    what one process gives."""
    from functools import partial

    from calib.confidence.combined import _MEMO
    from calib.confidence.reductions import sentence_scores
    from calib.data.bear import one_to_one_relations
    from calib.experiments.answer_set import assemble, model_frames
    from calib.experiments.answer_set.curves import option_estimates
    from calib.experiments.factor.scoring import factor_estimates
    from calib.experiments.per_model import map_models

    models = ("m1", "c2", "c1")  # not in sorted order
    kinds = {"c2": "clm", "m1": "mlm", "c1": "clm"}
    sizes = {"c2": 2000.0, "m1": None, "c1": 100.0}
    ones = one_to_one_relations()
    bear = random_score_table(models=models, templates=(PLAIN,), sizes=(60, 60), n_instances=4)
    bear = bear.assign(relation=bear["relation"].map({"R0": ones[0], "R1": ones[1]}))
    scores = answer_set.AnswerSetScores(bear=bear, factor=synthetic_factor_scores(models))
    params = answer_set.Params(models=models, ks=(5, 30, 60), repeats=2, n_bootstrap=10)
    groups = answer_set.model_groups(kinds, sizes)
    est = option_estimates(sentence_scores(bear), (5, 30, 60), 2, params.seed)
    fac = factor_estimates(scores.factor)
    step = partial(model_frames, params=params, objectives=kinds, groups=groups)
    one = step(est, fac)
    one["factor_summary"] = one["factor_summary"].reset_index(drop=True)
    split = assemble(map_models(step, [est, fac], workers=1))
    for key, frame in one.items():
        pd.testing.assert_frame_equal(split[key], frame, obj=key)
    serial = answer_set.analyse(scores, params, kinds, sizes, workers=1)
    assert serial.points["model"].unique().tolist() == est["model"].unique().tolist()
    _MEMO.clear()
    assert_results_equal(answer_set.analyse(scores, params, kinds, sizes, workers=2), serial)


def test_reductions_analyse_per_model_equals_one_pass_and_the_pool_a_serial_run():
    """The reductions chapter's per-model steps on each model's scores, put together, are the
    frames each step gives on every model's scores at once, and a pool of two processes gives
    what one process gives."""
    from functools import partial

    from calib.experiments.per_model import map_models
    from calib.experiments.reductions import assemble, model_frames

    models = ("m3", "m1", "m2")  # not in sorted order
    kinds = {"m3": "clm", "m1": "mlm", "m2": "clm"}
    scores = random_score_table(models=models, templates=(PLAIN,), n_instances=4, seed=3)
    scores = scores.iloc[::-1].reset_index(drop=True)  # models first seen: m3, m2, m1
    params = reductions.Params(models=models, n_bootstrap=10)
    one = model_frames(scores, params, kinds)
    split = assemble(map_models(partial(model_frames, params=params, objectives=kinds), scores))
    for key, frame in one.items():
        pd.testing.assert_frame_equal(split[key], frame, obj=key)
    serial = reductions.analyse(scores, params, kinds, workers=1)
    assert_results_equal(reductions.analyse(scores, params, kinds, workers=2), serial)


@pytest.mark.parametrize("within", ["probe", "domain"])
def test_clm_vs_mlm_analyse_per_model_equals_one_pass_and_the_pool_a_serial_run(within):
    """The CLM-vs-MLM chapter's per-model steps (sentence scores, estimates, accuracy over the
    templates) on each model's scores, put together, are what one pass over every model's
    scores gives, and a pool of two processes gives what one process gives."""
    from functools import partial

    from calib.experiments.clm_vs_mlm import assemble, model_frames
    from calib.experiments.clm_vs_mlm.pairing import relation_domains
    from calib.experiments.per_model import map_models

    models = ("m1", "c2", "c1")
    kinds = {"c1": "clm", "m1": "mlm", "c2": "clm"}
    relations = ("P36", "P19", "P30")
    scores = random_score_table(models=models, templates=PARAPHRASES, n_instances=6, seed=2)
    scores = scores.assign(
        relation=scores["relation"].map(dict(zip(("R0", "R1", "R2"), relations)))
    ).iloc[::-1]
    params = clm_vs_mlm.Params(
        models=models, relations=relations, n_bootstrap=10, max_gap=1.0, pair_within=within
    )
    step = partial(
        model_frames, params=params, objectives=kinds, domains=relation_domains(relations)
    )
    one, split = step(scores), assemble(map_models(step, scores, workers=1))
    for key, frame in one.items():
        if frame is None:
            assert split[key] is None, key
        else:
            pd.testing.assert_frame_equal(split[key], frame.reset_index(drop=True), obj=key)
    serial = clm_vs_mlm.analyse(scores, params, objectives=kinds, workers=1)
    assert_results_equal(clm_vs_mlm.analyse(scores, params, objectives=kinds, workers=2), serial)
