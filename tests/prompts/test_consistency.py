"""Prediction consistency by prompt (LPAQA §5.3, calib.prompts.consistency): word edit
distance, pairs and their divergence by hand, and the correlation with its interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.prompts.consistency import (
    divergence_bins,
    divergence_correlation,
    divergence_pairs,
    prompt_pairs,
    word_edit_distance,
)


def test_word_edit_distance_by_hand():
    assert word_edit_distance("[X] plays [Y] .", "[X] plays [Y] .") == 0
    assert word_edit_distance("[X] plays [Y] .", "[X] played [Y] .") == 1
    assert word_edit_distance("[X] plays [Y] .", "[X] plays the [Y] .") == 1
    assert word_edit_distance("a b c", "c b a") == 2
    assert word_edit_distance("", "a b") == 2


PROMPTS = pd.DataFrame(
    {
        "relation": ["R"] * 3 + ["S"] * 2,
        "template": ["p", "q", "r", "p", "q"],
        "text": [
            "[X] is in [Y] .",
            "[X] is in the [Y] .",
            "[Y] has [X] .",
            "[X] a [Y]",
            "[X] b c [Y]",
        ],
    }
)


def hits(pattern: dict) -> pd.DataFrame:
    rows = [
        (rel, f"{rel}{i}", t, bool(h)) for (rel, t), hs in pattern.items() for i, h in enumerate(hs)
    ]
    return pd.DataFrame(rows, columns=["relation", "instance", "template", "hit"])


HITS = hits(
    {
        ("R", "p"): [1, 1, 0, 0],
        ("R", "q"): [1, 0, 0, 0],
        ("R", "r"): [0, 0, 1, 1],
        ("S", "p"): [1, 0, 1],
        ("S", "q"): [1, 1, 1],
    }
)


def test_pairs_are_normalised_by_the_relations_largest_distance():
    pairs = prompt_pairs(PROMPTS).set_index(["relation", "a", "b"])
    assert pairs.loc[("R", "p", "q"), "distance"] == 1
    top = pairs.loc["R", "distance"].max()
    assert pairs.loc[("R", "p", "q"), "normalised"] == pytest.approx(1 / top)
    assert pairs.loc[("S", "p", "q"), "normalised"] == 1.0  # the relation's only pair
    div = divergence_pairs(HITS, prompt_pairs(PROMPTS)).set_index(["relation", "a", "b"])
    assert div.loc[("R", "p", "q"), "divergence"] == pytest.approx(1 / 4)
    assert div.loc[("R", "p", "r"), "divergence"] == pytest.approx(4 / 4)
    assert div.loc[("S", "p", "q"), "divergence"] == pytest.approx(1 / 3)
    bins = divergence_bins(div.reset_index().assign(model="m"))
    assert bins["pairs"].sum() == 4 and set(bins["bin"]) <= {0.0, 0.2, 0.4, 0.6, 0.8}


def test_the_correlation_is_pearsons_over_the_pairs_with_an_interval():
    pairs = prompt_pairs(PROMPTS)
    div = divergence_pairs(HITS, pairs)
    got = divergence_correlation(HITS, pairs, n_boot=200, seed=0)
    assert got["value"] == pytest.approx(np.corrcoef(div["normalised"], div["divergence"])[0, 1])
    assert got["low"] <= got["value"] <= got["high"]
    assert got["n_pairs"] == 4 and got["n"] == 7 and got["n_relations"] == 2
    again = divergence_correlation(HITS, pairs, n_boot=200, seed=0)
    assert again == got
    with pytest.raises(ValueError, match="no pair of prompts"):
        divergence_correlation(HITS, pairs.iloc[:0])
    missing = HITS[~((HITS["template"] == "q") & (HITS["instance"] == "R0"))]
    with pytest.raises(ValueError, match="relation 'R'"):
        divergence_correlation(missing, pairs)
