"""Prompt mining (LPAQA §3.1) on hand-made sentences with known middle words and parses."""

from __future__ import annotations

import pandas as pd
import pytest

spacy = pytest.importorskip("spacy", reason="mining needs spaCy (pip install calib[prompts])")
from spacy.tokens import Doc  # noqa: E402

from calib.prompts.mining import (  # noqa: E402
    dependency_path,
    dependency_prompt,
    is_valid_prompt,
    load_pipeline,
    locate,
    middle_word_prompt,
    mine_prompts,
)


@pytest.fixture(scope="module")
def blank():
    return spacy.blank("en")


@pytest.fixture(scope="module")
def parser():
    try:
        return load_pipeline()
    except OSError as exc:
        pytest.skip(f"no spaCy English pipeline installed: {exc}")


def spans(sentence: str, sub: str, obj: str):
    s, o = sentence.index(sub), sentence.index(obj)
    return (s, s + len(sub)), (o, o + len(obj))


def test_locate_puts_the_object_back_and_finds_the_nearest_subject():
    text, sub, obj = locate("Ann met Bob ; Ann was born in [MASK] .", "Ann", "Rome")
    assert text == "Ann met Bob ; Ann was born in Rome ."
    assert text[sub[0] : sub[1]] == "Ann" and sub[0] == 14  # the second Ann is nearer
    assert text[obj[0] : obj[1]] == "Rome"
    # the subject after the mask is shifted by the surface form's length
    text, sub, obj = locate("[MASK] is the birthplace of Ann Lee .", "Ann Lee", "Hawaii")
    assert text[sub[0] : sub[1]] == "Ann Lee" and text[obj[0] : obj[1]] == "Hawaii"
    # word boundaries: "Paris" is not in "Parisian"; a subject hidden by the mask is not found
    assert locate("A Parisian was born in [MASK] .", "Paris", "Rome") is None
    assert locate("Court of [MASK] met .", "Court of Saskatchewan", "Saskatchewan") is None


@pytest.mark.parametrize(
    "sentence, sub, obj, prompt",
    [
        ("Barack Obama was born in Hawaii .", (0, 12), (25, 31), "[X] was born in [Y] ."),
        (
            "Hawaii is the birthplace of Barack Obama.",
            (28, 40),
            (0, 6),
            "[Y] is the birthplace of [X] .",
        ),
        ("Toyota Corolla, made by Toyota, sold well.", (0, 14), (24, 30), "[X] , made by [Y] ."),
        ("Paris Hilton Paris", (0, 12), (13, 18), None),  # adjacent: nothing in the middle
        ("Paris Hilton", (0, 12), (0, 5), None),  # overlapping
    ],
)
def test_middle_word_prompt(blank, sentence, sub, obj, prompt):
    assert middle_word_prompt(blank(sentence), sub, obj) == prompt


def hand_parsed(vocab):
    # "The capital of France is Paris ." with its parse written out
    words = ["The", "capital", "of", "France", "is", "Paris", "."]
    heads = [1, 4, 1, 2, 4, 4, 4]
    deps = ["det", "nsubj", "prep", "pobj", "ROOT", "attr", "punct"]
    return Doc(vocab, words=words, heads=heads, deps=deps)


def test_dependency_path_and_span_on_a_known_parse(blank):
    doc = hand_parsed(blank.vocab)
    assert dependency_path(doc, 3, 5) == [3, 2, 1, 4, 5]  # France of capital is Paris
    sub, obj = spans(doc.text, "France", "Paris")
    assert dependency_prompt(doc, sub, obj) == "capital of [X] is [Y] ."
    assert middle_word_prompt(doc, sub, obj) == "[X] is [Y] ."
    # leftmost/rightmost word of the path, not only the words between the two
    doc = Doc(
        blank.vocab,
        words=["Rome", ",", "where", "Ann", "was", "born", "."],
        heads=[0, 0, 5, 5, 5, 0, 0],
        deps=["ROOT", "punct", "advmod", "nsubjpass", "auxpass", "relcl", "punct"],
    )
    sub, obj = spans(doc.text, "Ann", "Rome")
    assert dependency_path(doc, 3, 0) == [3, 5, 0]
    assert dependency_prompt(doc, sub, obj) == "[Y] , where [X] was born ."


def test_dependency_path_across_sentences_is_none(blank):
    doc = Doc(
        blank.vocab,
        words=["Ann", "slept", ".", "Rome", "woke", "."],
        heads=[1, 1, 1, 4, 4, 4],
        deps=["nsubj", "ROOT", "punct", "nsubj", "ROOT", "punct"],
    )
    assert dependency_path(doc, 0, 3) is None
    assert dependency_prompt(doc, (0, 3), spans(doc.text, "Ann", "Rome")[1]) is None


def test_dependency_prompt_with_the_real_parser(parser):
    doc = parser("The capital of France is Paris.")
    sub, obj = spans(doc.text, "France", "Paris")
    assert dependency_prompt(doc, sub, obj) == "capital of [X] is [Y] ."
    doc = parser("Barack Obama was born in Hawaii.")
    sub, obj = spans(doc.text, "Barack Obama", "Hawaii")
    assert dependency_prompt(doc, sub, obj) == "[X] was born in [Y] ."


@pytest.mark.parametrize(
    "prompt, ok",
    [
        ("[X] was born in [Y] .", True),
        ("[X] is the [Y] .", False),  # stopwords only
        ("[X] , ( [Y] .", False),  # punctuation only
        ("[X] " + " ".join(["word"] * 10) + " [Y] .", True),
        ("[X] " + " ".join(["word"] * 11) + " [Y] .", False),  # 11 words
        ("[X] was born in [X] .", False),
    ],
)
def test_prompt_filter(prompt, ok):
    assert is_valid_prompt(prompt) is ok


def test_mine_prompts_counts_filters_and_keeps_the_top(blank):
    rows = [
        ("P19", "Ann", "Rome", "Ann was born in [MASK] ."),
        ("P19", "Bob", "Oslo", "Bob was born in [MASK] ."),
        ("P19", "Cy", "Kyiv", "[MASK] native Cy sang ."),
        ("P19", "Di", "Lima", "Di is the [MASK] ."),  # stopwords only: dropped
        ("P19", "Ed", "Baku", "Ed lived in [MASK] ."),
        ("P19", "Fa", "Riga", "Someone else was born in [MASK] ."),  # no subject
        ("P36", "Gu", "Nuuk", "[MASK] , capital of Gu ."),
        ("P36", "Ho", "Bern", "[MASK] , capital of Ho ."),
    ]
    frame = pd.DataFrame(rows, columns=["relation", "sub_label", "obj_label", "masked_sentence"])
    frame["sub_surface"], frame["obj_surface"] = frame["sub_label"], frame["obj_label"]
    out = mine_prompts(frame, methods=["middle"], top=2, nlp=blank)
    p19 = out[out["relation"] == "P19"]
    assert list(p19["text"]) == ["[X] was born in [Y] .", "[X] lived in [Y] ."]  # 2, then a tie
    assert list(p19["count"]) == [2, 1] and list(p19["template"]) == ["mined-00", "mined-01"]
    assert list(out[out["relation"] == "P36"]["text"]) == ["[Y] , capital of [X] ."]
    excluded = mine_prompts(
        frame,
        methods=["middle"],
        nlp=blank,
        exclude=pd.DataFrame(
            [("P19", "Ann", "Rome")], columns=["relation", "sub_label", "obj_label"]
        ),
    )
    assert excluded.set_index("text").loc["[X] was born in [Y] .", "count"] == 1
    with pytest.raises(ValueError, match="unknown mining method"):
        mine_prompts(frame, methods=["surface"], nlp=blank)


def test_mine_prompts_counts_a_sentence_once_across_methods(parser):
    frame = pd.DataFrame(
        {
            "relation": ["P36", "P19"],
            "sub_label": ["France", "Barack Obama"],
            "obj_label": ["Paris", "Hawaii"],
            "masked_sentence": [
                "The capital of France is [MASK].",
                "Barack Obama was born in [MASK].",
            ],
        }
    )
    frame["sub_surface"], frame["obj_surface"] = frame["sub_label"], frame["obj_label"]
    out = mine_prompts(frame, nlp=parser).set_index("text")
    # "[X] is [Y] ." (the middle word) has only stopwords: dropped
    assert out.loc["capital of [X] is [Y] .", ["count", "n_middle", "n_dependency"]].tolist() == [
        1,
        0,
        1,
    ]
    assert out.loc["[X] was born in [Y] .", ["count", "n_middle", "n_dependency"]].tolist() == [
        1,
        1,
        1,
    ]
    assert len(out) == 2
