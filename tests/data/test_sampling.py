"""The one seeded per-group sampler (calib.data.sampling) draws what the four samplers it
replaced drew: the expected rows below were computed with the old BEAR, FACTOR, LAMA and LPAQA
mining-corpus code before it was deleted."""

import hashlib

import pandas as pd
import pytest

from calib.data.bear import load_bear
from calib.data.factor import load_factor
from calib.data.lama import load_lama
from calib.data.sampling import sample_groups, seeded_positions
from calib.prompts.mining import mining_corpus

BEAR = {
    0: [
        ("P1412", "Q8739"),
        ("P1412", "Q30812"),
        ("P1412", "Q1271"),
        ("P19", "Q5623985"),
        ("P19", "Q19152611"),
        ("P19", "Q31721"),
        ("P30", "Q202780"),
        ("P30", "Q28"),
        ("P30", "Q403"),
    ],
    1: [
        ("P1412", "Q41980"),
        ("P1412", "Q444"),
        ("P1412", "Q40933"),
        ("P19", "Q1934555"),
        ("P19", "Q464616"),
        ("P19", "Q469565"),
        ("P30", "Q988689"),
        ("P30", "Q403"),
        ("P30", "Q771"),
    ],
    7: [
        ("P1412", "Q11903"),
        ("P1412", "Q315132"),
        ("P1412", "Q52947"),
        ("P19", "Q1360099"),
        ("P19", "Q18752"),
        ("P19", "Q6778253"),
        ("P30", "Q822"),
        ("P30", "Q928"),
        ("P30", "Q1391"),
    ],
}
FACTOR = {
    0: [
        ("news", "9"),
        ("news", "725"),
        ("news", "751"),
        ("expert", "143"),
        ("expert", "147"),
        ("expert", "186"),
    ],
    5: [
        ("news", "294"),
        ("news", "353"),
        ("news", "787"),
        ("expert", "24"),
        ("expert", "48"),
        ("expert", "126"),
    ],
}
LAMA = {
    0: (
        ["P106", "P27", "P495"],
        [
            "551aea28-6c60-4f4d-a17b-2fa9fa082c2f",
            "2fb654c7-0746-4296-b00f-0ef4f9bd96da",
            "4fb459ac-5972-49b8-bdfd-e266e0518b43",
            "3db4f28e-d42b-41d2-a0a7-7918a9a67e5b",
            "9f4a7230-a440-4f88-a522-b81dcd078c98",
            "9bdae64a-7e49-4af3-8403-3413e89e70d6",
        ],
        [
            "Q1728953-Q7358",
            "Q5674070-Q12299841",
            "Q715078-Q767089",
            "Q9383336-Q414",
            "Q1411365-Q16",
            "Q1389472-Q212",
        ],
    ),
    3: (
        ["P103", "P108", "P176"],
        [
            "438a0137-9568-4c6b-8b5a-4705dfc6b7b2",
            "63e98a1d-6a70-4644-ab1e-818dd87eb1fb",
            "04cda8f3-8b8a-46ec-8aa9-919a8bfeacee",
            "f1c36add-b71d-440b-a756-9c6f36519b61",
            "f73e240e-7fda-4229-b36f-6709f914adc8",
            "0439c479-2e5d-46e7-b780-907598d71cdc",
        ],
        [
            "Q3397928-Q150",
            "Q213470-Q33557",
            "Q2892855-Q1431686",
            "Q19629650-Q3291285",
            "Q1054315-Q248",
            "Q3477720-Q122741",
        ],
    ),
}
#: (relation, fact, sha1 of the masked sentence, first 8 hex digits)
CORPUS = {
    0: [
        ("P19", 53, "ec2e82f8"),
        ("P19", 117, "3f9c6288"),
        ("P19", 179, "5d2cb4fc"),
        ("P37", 141, "e74d09d0"),
        ("P37", 141, "69598f54"),
        ("P37", 141, "932c9a92"),
    ],
    2: [
        ("P19", 201, "4d66239c"),
        ("P19", 643, "68ab5f68"),
        ("P19", 748, "6f7f3459"),
        ("P37", 141, "c24ab33f"),
        ("P37", 141, "72bb2da1"),
        ("P37", 141, "18bbd0ca"),
    ],
}


@pytest.mark.parametrize("seed", sorted(BEAR))
def test_bear_sample_is_unchanged(seed):
    s = load_bear(relations=["P19", "P30", "P1412"]).sample(3, seed).instances
    assert list(zip(s["relation"], s["instance"])) == BEAR[seed]


@pytest.mark.parametrize("seed", sorted(FACTOR))
def test_factor_sample_is_unchanged(seed):
    s = load_factor().sample(3, seed).items
    assert list(zip(s["subset"], s["item"])) == FACTOR[seed]


@pytest.mark.parametrize("seed", sorted(LAMA))
def test_lama_sample_is_unchanged(seed):
    s = load_lama().sample(2, seed, n_relations=3, train_per_relation=2)
    assert (list(s.relations), list(s.instances["instance"]), list(s.train["instance"])) == LAMA[
        seed
    ]


@pytest.mark.parametrize("seed", sorted(CORPUS))
def test_mining_corpus_sample_is_unchanged(seed):
    c = mining_corpus(["P19", "P37"], max_sentences=3, seed=seed)
    got = [
        (r, int(f), hashlib.sha1(m.encode()).hexdigest()[:8])
        for r, f, m in zip(c["relation"], c["fact"], c["masked_sentence"])
    ]
    assert got == CORPUS[seed]


def test_groups_are_drawn_independently_and_samples_nest():
    frame = pd.DataFrame({"g": ["a"] * 20 + ["b"] * 5, "v": range(25)})
    small, large = (sample_groups(frame, "g", n, seed=4) for n in (3, 8))
    assert small.groupby("g").size().to_dict() == {"a": 3, "b": 3}
    assert large.groupby("g").size().to_dict() == {"a": 8, "b": 5}  # all of b: fewer than 8
    assert set(small["v"]) <= set(large["v"])
    alone = sample_groups(frame[frame["g"] == "a"], "g", 3, seed=4)
    assert list(alone["v"]) == list(small.loc[small["g"] == "a", "v"])
    assert list(seeded_positions(20, 3, 4, "a")) == list(alone["v"])  # kept in original order
    assert list(sample_groups(frame, "g", 3, seed=5)["v"]) != list(small["v"])
