"""The chapters' sentences (calib.report.findings) that earlier lived in the notebooks: each
states what its numbers show and nothing more."""

from __future__ import annotations

import pandas as pd

from calib.report import findings as fd


def test_bullets_are_one_markdown_item_per_sentence():
    assert fd.bullets(["a.", "b."]) == "- a.\n- b."
    assert fd.bullets([]) == ""


def test_the_model_kinds_note_names_both_sides_and_says_why_there_is_no_pair():
    both = fd.model_kinds_note({"gpt": "clm", "bert": "mlm"})
    assert both == "Causal models: gpt. Masked models: bert."
    clm_only = fd.model_kinds_note({"gpt": "clm", "llama": "clm"})
    assert clm_only.startswith("Causal models: gpt, llama. Masked models: none.")
    assert "no masked language model" in clm_only and "no masked" not in both


def test_the_reduction_sentences_follow_the_intervals_of_h():
    rows = pd.DataFrame(
        [
            {
                "objective": "clm",
                "a": "sum",
                "b": "mean",
                "metric": "H",
                "difference": 0.06,
                "low": 0.02,
                "high": 0.1,
                "n_models": 2,
            },
            {
                "objective": "mlm",
                "a": "sum",
                "b": "mean-answer",
                "metric": "H",
                "difference": 0.01,
                "low": -0.02,
                "high": 0.04,
                "n_models": 1,
            },
        ]
    )
    clm, mlm = fd.reduction_sentences(rows)
    assert clm.startswith(
        "Sum has a higher H (harmonic mean of accuracy and 1 - ACE) than Mean "
        "for the CLMs (mean over 2 model(s))"
    )
    assert clm.endswith("better on this sample.")
    assert mlm.startswith("This run cannot tell Sum and Mean (A) apart by H")
    assert "includes 0" in mlm


def test_the_manual_comparison_follows_the_interval():
    paired = pd.DataFrame(
        [
            {
                "model": "m",
                "a": "top-1",
                "b": "manual",
                "metric": "accuracy",
                "difference": 0.2,
                "low": 0.1,
                "high": 0.3,
            },
            {
                "model": "m",
                "a": "optimized",
                "b": "manual",
                "metric": "accuracy",
                "difference": 0.1,
                "low": -0.1,
                "high": 0.3,
            },
        ]
    )
    better, unsure = fd.manual_comparison_sentences(paired)
    assert better.startswith("top-1 has a higher accuracy than the manual prompt for m")
    assert unsure.startswith("This run cannot tell optimized and the manual prompt apart")
