"""Helpers over several models (calib.experiments.scores)."""

from __future__ import annotations

from calib.experiments.scores import causal_models, objectives


def test_causal_models_are_the_clms_in_the_given_order():
    models = ["tiny-bert", "tiny-llama", "tiny-roberta", "tiny-gpt2"]
    assert objectives(models) == {
        "tiny-bert": "mlm",
        "tiny-llama": "clm",
        "tiny-roberta": "mlm",
        "tiny-gpt2": "clm",
    }
    assert causal_models(models) == ["tiny-llama", "tiny-gpt2"]
    assert causal_models(["tiny-bert"]) == []
