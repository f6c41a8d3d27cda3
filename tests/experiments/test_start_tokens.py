"""Start tokens measured both ways (the methods page's chapter): calib's one start token against
lm-pub-quiz 0.3.3's, on a tiny causal model whose tokenizer pads on the right (no difference)
and on a copy of it that pads on the left (two BOS tokens for most instances)."""

from __future__ import annotations

import json

import pytest

from calib.experiments import start_tokens as st
from calib.experiments.start_tokens import rules
from calib.report import findings as fd
from calib.scoring.statements import bear_queries


@pytest.fixture(scope="module")
def left_llama(tiny_models, tmp_path_factory):
    """tiny-llama saved as a local folder whose tokenizer pads on the left."""
    lm = tiny_models["tiny-llama"]
    folder = tmp_path_factory.mktemp("left-llama")
    lm.model.save_pretrained(folder)
    lm.tokenizer.save_pretrained(folder)
    config = folder / "tokenizer_config.json"
    config.write_text(json.dumps({**json.loads(config.read_text()), "padding_side": "left"}))
    return str(folder)


def test_right_padding_changes_nothing(small_bear, tmp_path):
    queries = bear_queries(small_bear, ["paraphrase-0"])
    summ = rules.encoding_summary("tiny-llama", queries)
    assert summ["padding_side"] == "right" and summ["statements"] > 50
    assert summ["two_bos"] == 0 and summ["differ"] == 0


def test_left_padding_doubles_the_bos_and_is_scored_apart(left_llama, small_bear, tmp_path):
    import pandas as pd

    queries = bear_queries(small_bear, ["paraphrase-0"])
    summ = rules.encoding_summary(left_llama, queries)
    assert summ["padding_side"] == "left"
    assert 0 < summ["two_bos"] == summ["differ"] < summ["statements"]
    scores = rules.rule_scores(
        [left_llama],
        queries,
        pd.DataFrame([summ]),
        cache_dir=tmp_path,
        device="cpu",
        progress=False,
    )
    assert set(scores["rule"]) == set(st.RULES)
    est = rules.rule_estimates(scores, "paraphrase-0")
    table = rules.rule_table(est, n_boot=20)
    assert table["rule"].tolist() == list(st.RULES.values())
    assert (table["n"] == len(queries)).all()
    ours = est[est["rule"] == "single"]["confidence"].to_numpy()
    theirs = est[est["rule"] == "lm-pub-quiz-0.3.3"]["confidence"].to_numpy()
    assert abs(ours - theirs).max() > 1e-4  # the doubled BOS changes the scores
    diffs = rules.rule_differences(est, n_boot=20)
    assert diffs["metric"].tolist() == ["accuracy", "ace"]
    assert all("lm-pub-quiz 0.3.3" in s for s in fd.rule_sentences(diffs))


def test_models_to_measure_leaves_out_another_bos_only_when_asked():
    import pandas as pd

    rows = pd.DataFrame(
        {
            "model": ["same", "doubled", "other"],
            "statements": [10, 10, 10],
            "two_bos": [0, 8, 0],
            "differ": [0, 8, 10],
            "start": ["<a>"] * 3,
            "bos": ["<a>", "<a>", "<b>"],
        }
    )
    names, note = rules.models_to_measure(rows)
    assert names == ["same", "doubled"]
    assert "other" in note and "<b> instead of <a>" in note
    assert rules.models_to_measure(rows, only_doubled=False) == (["same", "doubled", "other"], "")
    with pytest.raises(ValueError, match="no causal model"):
        rules.rule_scores([], [], rows)


def test_the_chapter_unit_runs_on_a_tiny_causal_model_with_the_floor_beside_ace(tmp_path):
    """``run(Params)``: masked models are left out, a right-padding tokenizer changes nothing,
    and every ACE carries its noise floor (issue 18)."""
    params = st.Params(
        models=("tiny-llama", "tiny-bert"), relations=("P36", "P30"), per_relation=2, n_bootstrap=10
    )
    result = st.run(params)
    assert result.causal == ["tiny-llama"] and result.masked == ["tiny-bert"]
    assert result.n_queries == 4 and result.measured == ["tiny-llama"]
    assert result.tokens["differ"].tolist() == [0]
    table = result.table
    assert table["rule"].tolist() == list(st.RULES.values())
    for col in (
        "ace_floor",
        "ace_floor_low",
        "ace_floor_high",
        "ace_within_floor",
        "ace_debiased",
        "ace_debiased_low",
        "ace_debiased_high",
    ):
        assert col in table.columns, col
    assert (table["ace_debiased"] == table["ace"] - table["ace_floor"]).all()
    assert (table["ace_floor_low"] <= table["ace_floor"]).all()
    assert (table["ace_within_floor"] == (table["ace"] <= table["ace_floor_high"])).all()
    assert (result.differences["difference"] == 0).all()  # the same scores both ways
    assert st.CLAIMS == ()
    with pytest.raises(ValueError, match="did you mean 'only_doubled'"):
        st.Params.from_mapping({"only_double": False})


def test_no_causal_model_leaves_nothing_to_measure():
    import pandas as pd

    empty = pd.DataFrame(columns=list(rules.SUMMARY_COLUMNS))
    assert rules.models_to_measure(empty) == ([], "")
