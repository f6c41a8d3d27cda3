"""A relation's prompts (calib.prompts.generation) and the mining corpus
(calib.prompts.mining.mining_corpus), on hand-made frames and a few real LAMA relations (data
only, no model)."""

from __future__ import annotations

import pandas as pd
import pytest

from calib.experiments.lpaqa.sample import load_sample
from calib.prompts.generation import generate_prompts, lpaqa_overlap, prompt_key, reference_prompts
from calib.prompts.mining import mining_corpus
from calib.prompts.paraphrase import Candidate


def test_prompt_key_ignores_case_spacing_and_the_final_stop():
    assert prompt_key("[X] plays [Y] .") == prompt_key("[x]  plays [Y].") == "[x] plays [y]"
    assert prompt_key("[X] , who plays [Y] .") == "[x], who plays [y]"
    assert prompt_key("[X] plays [Y] .") != prompt_key("[X] played [Y] .")


class EchoTranslator:
    """A fake translator: into the pivot unchanged; back into English with a fixed rewrite."""

    name = "echo"

    def __init__(self, rewrites: dict[str, list[str]]):
        self.rewrites = rewrites

    def translate(self, texts, src, tgt):
        if tgt != "en":
            return [[Candidate(t)] for t in texts]
        return [[Candidate(r) for r in self.rewrites.get(t, [t])] for t in texts]


def _corpus(rows):
    return pd.DataFrame(
        rows,
        columns=[
            "relation",
            "sub_label",
            "obj_label",
            "sub_surface",
            "obj_surface",
            "masked_sentence",
        ],
    )


@pytest.fixture(scope="module")
def small_lama():
    return load_sample(["P30", "P1303"], None, 3, 4, seed=0)


def test_generate_prompts_orders_sources_removes_duplicates_and_caps_at_top(small_lama):
    spacy = pytest.importorskip("spacy")
    corpus = _corpus(
        [
            # P30: "is located in" repeats the manual prompt; "lies in" is new (2 sentences)
            ("P30", "Kenya", "Africa", "Kenya", "Africa", "Kenya is located in [MASK]."),
            ("P30", "Chad", "Africa", "Chad", "Africa", "Chad lies in [MASK]."),
            ("P30", "Peru", "South America", "Peru", "South America", "Peru lies in [MASK]."),
            ("P30", "Laos", "Asia", "Laos", "Asia", "Laos , far away in [MASK]."),
            ("P30", "Fiji", "Oceania", "Fiji", "Oceania", "Fiji , an island of [MASK]."),
            ("P1303", "Miles", "trumpet", "Miles", "trumpet", "Miles played the [MASK]."),
        ]
    )
    rewrites = {
        "PX1 is located in PY1 .": ["PX1 is situated in PY1 .", "PX1 lies in PY1 ."],
        "PX1 plays PY1 .": ["PX1 plays PY1.", "PX1 performs PY1 ."],
    }
    prompts = generate_prompts(
        small_lama.sample,
        corpus,
        top=2,
        translator=EchoTranslator(rewrites),
        pivots=("es",),
        methods=("middle",),
        nlp=spacy.blank("en"),
    )
    p30 = prompts[prompts["relation"] == "P30"]
    assert list(p30["source"]) == ["manual", "mined", "mined", "paraphrase"]
    assert list(p30["text"]) == [
        "[X] is located in [Y] .",
        "[X] lies in [Y] .",
        "[X] , an island of [Y] .",
        "[X] is situated in [Y] .",
    ]
    assert p30["count"].iloc[1] == 2
    p1303 = prompts[prompts["relation"] == "P1303"]
    # "[X] plays [Y]." is the manual prompt again: dropped
    assert list(p1303["text"]) == ["[X] plays [Y] .", "[X] played the [Y] .", "[X] performs [Y] ."]
    for _rel, grp in prompts.groupby("relation"):
        assert grp["text"].map(prompt_key).is_unique
        assert (grp["source"] == "mined").sum() <= 2 and (grp["source"] == "paraphrase").sum() <= 2
    with pytest.raises(ValueError, match="top must be at least 1"):
        generate_prompts(small_lama.sample, corpus, top=0)


def test_mining_corpus_counts_each_evidence_once_and_caps_with_a_seed():
    full = mining_corpus(["P30"])
    assert not full.duplicated(["relation", "sub_label", "obj_label", "masked_sentence"]).any()
    a, b = mining_corpus(["P30"], 50, seed=1), mining_corpus(["P30"], 50, seed=1)
    assert len(a) == 50 and a.equals(b)
    assert not a.equals(mining_corpus(["P30"], 50, seed=2))


def test_reference_prompts_leave_out_ours_and_each_others_duplicates(small_lama):
    ours = pd.DataFrame(
        {
            "relation": ["P1303"],
            "template": ["x"],
            "text": ["[X] on vocals and [Y]."],
            "source": ["mined"],
        }
    )
    ref = reference_prompts(ours, 1)
    assert set(ref["source"]) <= {"lpaqa-mine", "lpaqa-paraphrase"}
    assert (ref.groupby("source").size() <= 1).all()
    assert "[x] on vocals and [y]" not in set(ref["text"].map(prompt_key))
    assert ref["text"].map(prompt_key).is_unique
    assert reference_prompts(ours, 0).empty


def test_lpaqa_overlap_finds_a_released_prompt():
    ours = pd.DataFrame(
        {
            "relation": ["P1303", "P1303"],
            "template": ["mined-00", "bt-00"],
            "text": ["[X] played [Y] .", "[X] zzz [Y] ."],
            "source": ["mined", "paraphrase"],
        }
    )
    out = lpaqa_overlap(ours).set_index("source")
    assert out.loc["mined", "shared"] == 1 and out.loc["mined", "ours"] == 1
    assert out.loc["paraphrase", "shared"] == 0 and out.loc["paraphrase", "lpaqa"] > 0
