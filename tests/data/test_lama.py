"""LAMA T-REx loader: the real data (where the data root has it) and hand-made bad files."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from calib.data.bear import Bear
from calib.data.errors import DataFormatError
from calib.data.lama import MANUAL, answer_spaces, load_lama, load_lpaqa_prompts, load_sentences
from calib.data.probe import Probe
from calib.data.root import DataNotFoundError, data_file


# ---------------------------------------------------------------- a tiny hand-made data root
def _jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))


def make_root(tmp_path, relations=None, facts=None, train=None):
    """Two relations, P1 (test objects a, b; train adds c) and P2."""
    _jsonl(
        tmp_path / "lama/relations.jsonl",
        relations
        or [
            {"relation": "P1", "template": "[X] was born in [Y] .", "label": "born", "type": "N-1"},
            {"relation": "P2", "template": "The capital of [X] is [Y] .", "label": "capital"},
            {"relation": "P9", "template": "[X] has no facts [Y] ."},
        ],
    )
    _jsonl(
        tmp_path / "lama/facts/P1.jsonl",
        facts
        or [
            {"sub_label": "s1", "obj_label": "b", "uuid": "u1"},
            {"sub_label": "s2", "obj_label": "a", "uuid": "u2"},
            {"sub_label": "s3", "obj_label": "b", "uuid": "u3"},
        ],
    )
    _jsonl(tmp_path / "lama/facts/P2.jsonl", [{"sub_label": "t1", "obj_label": "z", "uuid": "v1"}])
    _jsonl(
        tmp_path / "lpaqa/TREx_train/P1.jsonl",
        train
        or [
            {"sub_uri": "Q1", "obj_uri": "Q30", "sub_label": "r1", "obj_label": "c"},
            {"sub_uri": "Q2", "obj_uri": "Q10", "sub_label": "r2", "obj_label": "a"},
            {"sub_uri": "Q3", "obj_uri": "Q20", "sub_label": "s1", "obj_label": "b"},  # = test u1
        ],
    )
    _jsonl(
        tmp_path / "lpaqa/TREx_train/P2.jsonl",
        [{"sub_uri": "Q5", "obj_uri": "Q6", "sub_label": "r5", "obj_label": "z"}],
    )
    return tmp_path


def test_tiny_root_answer_space_and_train_pairs(tmp_path):
    lama = load_lama(make_root(tmp_path))
    assert isinstance(lama, Probe) and not isinstance(lama, Bear) and lama.dataset == "lama"
    assert list(lama.relations) == ["P1", "P2"]  # P9 has no facts file
    p1 = lama.relations["P1"]
    assert p1.templates == {MANUAL: "[X] was born in [Y] ."}
    assert p1.answer_labels == ("a", "b", "c")  # test and train objects, sorted
    assert p1.answer_ids == ("Q10", "", "Q30")  # b's only train pair repeats a test fact
    test = lama.instances[lama.instances["relation"] == "P1"]
    assert list(test["instance"]) == ["u1", "u2", "u3"]
    assert list(test["answer_idx"]) == [1, 0, 1]
    assert list(lama.train["instance"]) == ["Q1-Q30", "Q2-Q10", "Q5-Q6"]  # test pair dropped
    assert list(lama.train["answer_idx"]) == [2, 0, 0]
    spaces = answer_spaces(lama)
    assert list(spaces[spaces["relation"] == "P1"]["obj_label"]) == ["a", "b", "c"]
    assert lama.info.set_index("relation").loc["P1", "type"] == "N-1"


def test_answer_space_of_the_test_facts_only(tmp_path):
    lama = load_lama(make_root(tmp_path), answer_space="test")
    assert lama.relations["P1"].answer_labels == ("a", "b")
    assert list(lama.train["instance"]) == ["Q2-Q10", "Q5-Q6"]  # the pair with object c goes
    with pytest.raises(ValueError, match="unknown answer_space"):
        load_lama(tmp_path, answer_space="vocab")


def test_select_sample_and_templates(tmp_path):
    lama = load_lama(make_root(tmp_path))
    one = lama.select(["P2"])
    assert list(one.relations) == ["P2"] and set(one.train["relation"]) == {"P2"}
    with pytest.raises(ValueError, match="unknown LAMA relation"):
        lama.select(["P7"])
    small = lama.sample(1, seed=3, train_per_relation=1)
    assert small.instances.groupby("relation").size().tolist() == [1, 1]
    assert len(small.train) == 2
    assert small.relations["P1"].answer_labels == ("a", "b", "c")  # answer space kept
    assert lama.sample(2, seed=3).instances.equals(lama.sample(2, seed=3).instances)
    assert len(lama.sample(None, seed=0, n_relations=1).relations) == 1
    prompts = pd.DataFrame(
        {
            "relation": ["P1", "P1"],
            "template": ["m-0", "m-1"],
            "text": ["[X] lives in [Y] .", "[Y] native [X] ."],
        }
    )
    both = lama.with_templates(prompts)
    assert list(both.relations["P1"].templates) == [MANUAL, "m-0", "m-1"]
    assert list(both.relations["P2"].templates) == [MANUAL]
    with pytest.raises(DataFormatError, match=r"must hold \[Y\]"):
        lama.with_templates(prompts.assign(text=["[X] lives in .", "[Y] native [X] ."]))


@pytest.mark.parametrize(
    "target, rows, message, line, field",
    [
        (
            "lama/relations.jsonl",
            ['{"relation": "P1", "template": "[X] born in ."}'],
            r"must hold \[Y\] exactly once",
            1,
            "template",
        ),
        (
            "lama/relations.jsonl",
            [
                {"relation": "P1", "template": "[X] a [Y]"},
                {"relation": "P1", "template": "[X] b [Y]"},
            ],
            "repeats line 1",
            2,
            "relation",
        ),
        (
            "lama/facts/P1.jsonl",
            [{"sub_label": "s", "obj_label": "o", "uuid": "u"}, "{not json"],
            "malformed JSON",
            2,
            None,
        ),
        ("lama/facts/P1.jsonl", [{"sub_label": "s", "uuid": "u"}], "missing", 1, "obj_label"),
        (
            "lama/facts/P1.jsonl",
            [{"sub_label": "s", "obj_label": "", "uuid": "u"}],
            "non-empty string",
            1,
            "obj_label",
        ),
        (
            "lama/facts/P1.jsonl",
            [
                {"sub_label": "s", "obj_label": "o", "uuid": "u"},
                {"sub_label": "t", "obj_label": "o", "uuid": "u"},
            ],
            "uuid u repeats line 1",
            2,
            "uuid",
        ),
        (
            "lpaqa/TREx_train/P1.jsonl",
            [{"sub_uri": "Q1", "sub_label": "s", "obj_label": "o"}],
            "missing",
            1,
            "obj_uri",
        ),
    ],
)
def test_loader_errors_name_file_line_field(tmp_path, target, rows, message, line, field):
    make_root(tmp_path)
    _jsonl(tmp_path / target, rows)
    with pytest.raises(DataFormatError, match=message) as err:
        load_lama(tmp_path)
    assert err.value.path.endswith(target)
    assert (err.value.line, err.value.field) == (line, field)


def test_facts_without_relation_entry(tmp_path):
    make_root(tmp_path)
    _jsonl(tmp_path / "lama/facts/P3.jsonl", [{"sub_label": "s", "obj_label": "o", "uuid": "u"}])
    with pytest.raises(DataFormatError, match="P3 has no entry"):
        load_lama(tmp_path)


def test_sentences_and_their_errors(tmp_path):
    good = {
        "sub_label": "Ann",
        "obj_label": "Rome",
        "evidences": [
            {
                "sub_surface": "Ann",
                "obj_surface": "Rome",
                "masked_sentence": "Ann was born in [MASK].",
            }
        ],
    }
    path = tmp_path / "lama/sentences/train/P1.jsonl"
    _jsonl(path, [good])
    frame = load_sentences(tmp_path, splits=["train"])
    assert frame.loc[0, "sentence"] == "Ann was born in Rome."
    assert (frame.loc[0, "relation"], frame.loc[0, "fact"]) == ("P1", 1)
    bad = json.loads(json.dumps(good))
    bad["evidences"][0]["masked_sentence"] = "[MASK] met [MASK]."
    _jsonl(path, [good, bad])
    with pytest.raises(DataFormatError, match="exactly once") as err:
        load_sentences(tmp_path, splits=["train"])
    assert (err.value.line, err.value.field) == (2, "evidences[0].masked_sentence")
    del bad["evidences"][0]["obj_surface"]
    _jsonl(path, [bad])
    with pytest.raises(DataFormatError) as err:
        load_sentences(tmp_path, splits=["train"])
    assert err.value.field == "evidences[0].obj_surface"
    with pytest.raises(ValueError, match="unknown sentence split"):
        load_sentences(tmp_path, splits=["test"])


def test_lpaqa_prompt_formats_and_errors(tmp_path):
    _jsonl(
        tmp_path / "lpaqa/prompt/mine/P1.jsonl",
        [
            {"template": "[X] was born in [Y] .", "weight": 0.25},
            {"template": "[Y] native [X] .", "weight": 0.75},
            {"template": "[X] was born in [Y] .", "weight": 0.1},
        ],
    )  # repeat: dropped
    (tmp_path / "lpaqa/prompt/manual_paraphrase").mkdir(parents=True)
    (tmp_path / "lpaqa/prompt/manual_paraphrase/P1.txt").write_text("[X] is from [Y].\n\n")
    mine = load_lpaqa_prompts("mine", tmp_path)
    assert list(mine["template"]) == ["lpaqa-mine-00", "lpaqa-mine-01"]
    assert list(mine["weight"]) == [0.25, 0.75]
    manual = load_lpaqa_prompts("manual_paraphrase", tmp_path)
    assert list(manual["text"]) == ["[X] is from [Y]."] and manual["weight"].isna().all()
    _jsonl(tmp_path / "lpaqa/prompt/mine/P1.jsonl", [{"template": "[X] born"}])
    with pytest.raises(DataFormatError, match=r"\[Y\]") as err:
        load_lpaqa_prompts("mine", tmp_path)
    assert (err.value.line, err.value.field) == (1, "template")
    _jsonl(tmp_path / "lpaqa/prompt/mine/P1.jsonl", [{"template": "[X] [Y]", "weight": "x"}])
    with pytest.raises(DataFormatError, match="expected a number"):
        load_lpaqa_prompts("mine", tmp_path)
    with pytest.raises(ValueError, match="unknown LPAQA prompt set"):
        load_lpaqa_prompts("auto", tmp_path)


# ---------------------------------------------------------------- the real data
@pytest.fixture(scope="module")
def lama():
    try:
        data_file("lama/relations.jsonl", download=False)
    except DataNotFoundError as exc:
        pytest.skip(f"LAMA is not under the data root (set CALIB_DATA_DIR): {exc}")
    return load_lama()


def test_real_lama_counts_and_answer_indices(lama):
    assert len(lama.relations) == 41 and len(lama) == 29411
    assert lama.relations["P19"].templates[MANUAL] == "[X] was born in [Y] ."
    for frame in (lama.instances, lama.train):
        labels = [
            lama.relations[r].answer_labels[i]
            for r, i in zip(frame["relation"], frame["answer_idx"])
        ]
        assert labels == list(frame["obj_label"])
    test_pairs = set(
        zip(lama.instances["relation"], lama.instances["sub_label"], lama.instances["obj_label"])
    )
    assert not test_pairs & set(
        zip(lama.train["relation"], lama.train["sub_label"], lama.train["obj_label"])
    )
    assert lama.instances.groupby("relation")["instance"].apply(lambda s: s.is_unique).all()


def test_real_lpaqa_prompts_fit_the_relations(lama):
    for kind in ("mine", "paraphrase", "manual_paraphrase"):
        prompts = load_lpaqa_prompts(kind)
        assert set(prompts["relation"]) == set(lama.relations)
        assert not prompts.duplicated(["relation", "text"]).any()
    assert len(lama.with_templates(prompts).relations["P19"].templates) > 10
