"""The prompt sets of LPAQA's Tables 2, 3 and 7 (calib.prompts.sets) on hand-made mined prompts
and a fake translator: membership, de-duplication by prompt identity, Mine+Para per model."""

from __future__ import annotations

import pandas as pd
import pytest

from calib.data.lama import MANUAL
from calib.experiments.lpaqa.sample import load_sample
from calib.prompts.paraphrase import Candidate
from calib.prompts.sets import (
    MODEL_FREE_SETS,
    PromptPool,
    for_models,
    mine_paraphrase_sets,
    mined_order,
    model_free_sets,
    paraphrase_candidates,
    set_sizes,
)


class Rewrites:
    """A fake translator: into the pivot unchanged; back into English with fixed rewrites."""

    name = "rewrites"

    def __init__(self, rewrites: dict[str, list[str]]):
        self.rewrites = rewrites

    def translate(self, texts, src, tgt):
        if tgt != "en":
            return [[Candidate(t)] for t in texts]
        return [[Candidate(r) for r in self.rewrites.get(t, [t])] for t in texts]


@pytest.fixture(scope="module")
def lama():
    return load_sample(["P30"], None, 2, 2, seed=0).sample


def mined() -> pd.DataFrame:
    rows = [
        ("P30", "mined-00", "[X] lies in [Y] .", 0, 5, 5, 1),
        ("P30", "mined-01", "[Y] , including [X] .", 1, 4, 0, 4),
        ("P30", "mined-02", "[X] is located in [Y].", 2, 3, 3, 0),  # the manual prompt
        ("P30", "mined-03", "capital of [X] is [Y] .", 3, 2, 0, 2),
        ("P30", "mined-04", "[X] , in [Y] .", 4, 1, 1, 1),
    ]
    return pd.DataFrame(
        rows, columns=["relation", "template", "text", "rank", "count", "n_middle", "n_dependency"]
    )


REWRITES = {
    "PX1 is located in PY1 .": [
        "PX1 is situated in PY1 .",
        "PX1 lies in PY1 .",
        "PX1 is located in PY1.",
    ],
    "PX1 lies in PY1 .": ["PX1 lays in PY1 .", "PX1 is situated in PY1 ."],
}


def test_mined_sets_order_by_their_method_and_pool_duplicates(lama):
    pool, members = model_free_sets(lama, mined(), 2, None, (), 1)
    sets = members.groupby("prompt_set")["template"].apply(list).to_dict()
    assert sets["Mine"] == ["mined-00", "mined-01"] == sets["Mid+Dep"]
    assert sets["Mine+Man"] == [MANUAL, "mined-00", "mined-01"]
    # the middle-word prompts by their middle-word count: "lies in", then the manual prompt
    # found by mining (scored once, under its first name)
    assert sets["Mid"] == ["mined-00", MANUAL]
    assert sets["Dep"] == ["mined-01", "mined-03"]
    assert sets["Man+Para"] == [MANUAL]  # no translator: the manual prompt alone
    frame = pool.frame()
    assert list(frame["template"]) == [MANUAL, "mined-00", "mined-01", "mined-03"]
    assert list(mined_order(mined(), "n_dependency")["template"]) == [
        "mined-01",
        "mined-03",
        "mined-00",
        "mined-04",
    ]
    with pytest.raises(ValueError, match="top must be at least 1"):
        model_free_sets(lama, mined(), 0, None, (), 1)


def test_paraphrases_leave_out_the_source_and_keep_the_best(lama):
    cands = paraphrase_candidates(Rewrites(REWRITES), ["[X] is located in [Y] ."], ["es"], 1, 5)
    texts = [t for t, _ in cands[0]]
    assert "[X] is located in [Y]." not in texts  # the source again, spacing aside
    assert texts == sorted(texts) and len(texts) == 2  # equal scores: alphabetical
    pool, members = model_free_sets(lama, mined(), 2, Rewrites(REWRITES), ["es"], 1)
    para = members[members["prompt_set"] == "Man+Para"]
    # "[X] lies in [Y] ." is mined-00 already: the set holds it under that name
    assert list(para["template"]) == [MANUAL, "bt-00", "mined-00"]
    assert pool.frame().set_index("template").at["bt-00", "source"] == "paraphrase"


def test_mine_para_paraphrases_each_models_best_mined_prompt(lama):
    pool, members = model_free_sets(lama, mined(), 2, Rewrites(REWRITES), ["es"], 1)
    best = pd.DataFrame(
        {"model": ["m", "n"], "relation": "P30", "template": ["mined-00", "mined-01"]}
    )
    para = mine_paraphrase_sets(pool, best, 2, Rewrites(REWRITES), ["es"], 1)
    m = para[para["model"] == "m"]
    # mined-00's paraphrases, equal scores so alphabetical: "is situated in" (bt-00 already)
    # and "lays in" (new: mp-00)
    assert list(m["template"]) == ["mined-00", "bt-00", "mp-00"]
    assert set(para.loc[para["model"] == "n", "template"]) == {"mined-01"}  # no rewrite
    assert pool.frame().set_index("template").at["mp-00", "source"] == "mined-paraphrase"
    everyone = pd.concat([for_models(members, ["m", "n"]), para], ignore_index=True)
    sizes = set_sizes(everyone).set_index("model")
    assert sizes.at["m", "Mine+Para"] == 3 and sizes.at["n", "Mine+Para"] == 1
    assert set(MODEL_FREE_SETS) <= set(sizes.columns)


def test_the_pool_keeps_one_name_per_prompt():
    pool = PromptPool()
    assert pool.add("R", "a", "[X] is [Y] .", "mined") == "a"
    assert pool.add("R", "b", "[x] is [Y].", "paraphrase") == "a"
    assert pool.add("S", "b", "[x] is [Y].", "paraphrase") == "b"  # another relation
    assert pool.name_of("R", "[X]  is [Y]") == "a" and pool.name_of("R", "new") is None
    with pytest.raises(ValueError, match="already has a prompt named 'a'"):
        pool.add("R", "a", "[X] was [Y] .", "mined")
