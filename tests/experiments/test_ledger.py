"""The ledger: claims quoted verbatim, verdicts decided by their rules from numbers, and the whole
ledger from chapter parameters (nothing given: every claim not testable, with what would test
it)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from calib.experiments import calibration as cx
from calib.experiments import ledger as lg
from calib.experiments.verdicts import universal_verdict


def _diffs(intervals, **cols) -> pd.DataFrame:
    lows, highs = zip(*intervals)
    frame = pd.DataFrame({"low": lows, "high": highs})
    frame["difference"] = (frame["low"] + frame["high"]) / 2
    for k, v in cols.items():
        frame[k] = v
    return frame


def test_every_claim_is_quoted_verbatim(paper_text):
    flat = {k: " ".join(v.split()) for k, v in paper_text.items()}
    for claim in lg.CLAIMS:
        assert " ".join(claim.quote.split()) in flat[claim.paper], claim.key
    assert len(set(lg.CLAIM_KEYS)) == len(lg.CLAIMS) == 14


@pytest.mark.parametrize("agree, against, n, verdict", [
    (3, 0, 3, "holds"), (2, 1, 3, "does not hold"), (2, 0, 3, "undecided"),
    (0, 0, 0, "not testable")])
def test_a_claim_about_every_model(agree, against, n, verdict):
    assert universal_verdict(agree, against, n) == verdict


def test_margin_verdicts_follow_the_intervals():
    comps = _diffs([(-0.2, -0.1), (-0.3, -0.05)], model=["a", "b"], a="Margin", b="Base")
    assert lg.margin_bear(comps)["verdict"] == "holds"
    comps = _diffs([(-0.2, -0.1), (0.01, 0.05)], model=["a", "b"], a="Margin", b="Base")
    out = lg.margin_bear(comps)
    assert out["verdict"] == "does not hold" and "against it for 1" in out["evidence"]
    comps = _diffs([(-0.2, -0.1), (-0.01, 0.05)], model=["a", "b"], a="Margin", b="Base")
    assert lg.margin_bear(comps)["verdict"] == "undecided"


def test_average_best_needs_every_other_estimator_beaten():
    others = ["Base", "Margin", "Consistency/min", "Entropy/min"]
    comps = _diffs([(-0.2, -0.1)] * 4 + [(-0.2, -0.1)] * 3 + [(0.01, 0.02)],
                   model=["a"] * 4 + ["b"] * 4, a="Average/min", b=others * 2)
    comps = pd.concat([comps, _diffs([(-0.2, -0.1)] * 2, model=["a", "b"], a="Margin",
                                     b="Base")], ignore_index=True)
    out = lg.average_best(cx.claim_checks(comps, "min"))
    assert out["verdict"] == "does not hold" and "Entropy/min" in out["evidence"]
    assert "lowest for 1, beaten by another estimator for 1" in out["evidence"]


def test_injections_accuracy_rule():
    def effects(intervals):
        return _diffs(intervals, quantity="accuracy", model="m",
                      template=[f"t{i}" for i in range(len(intervals))],
                      delta=[(lo + hi) / 2 for lo, hi in intervals])
    assert lg.injections_accuracy(effects([(-0.2, -0.1), (-0.1, 0.1)]))["verdict"] == "holds"
    assert lg.injections_accuracy(effects([(-0.1, 0.1)] * 3))["verdict"] == "undecided"
    assert lg.injections_accuracy(effects([(0.1, 0.2), (-0.1, 0.1)]))["verdict"] == \
        "does not hold"


def test_possibly_against_the_numeric_weakeners():
    rows = _diffs([(-0.2, -0.1), (-0.1, 0.1), (-0.1, 0.1)], quantity="ace", model="m",
                  template=["possibly", "numeric-0", "numeric-25"])
    assert lg.possibly_vs_numeric(rows)["verdict"] == "holds"
    assert lg.possibly_vs_numeric(rows[rows["template"] != "possibly"])["verdict"] == \
        "not testable"


def test_sum_reduction_and_correlation_verdicts():
    best = pd.DataFrame({"objective": ["clm", "mlm"], "best": ["sum", "mean"],
                         "H_best": [0.4, 0.3], "H_sum": [0.4, 0.2], "n_models": [2, 1]})
    assert lg.sum_reduction(best)["verdict"] == "does not hold"
    assert lg.sum_reduction(best.iloc[:1])["verdict"] == "holds"
    corr = pd.DataFrame({"estimator": ["Margin"], "n": [2], "r": [np.nan], "low": [np.nan],
                         "high": [np.nan], "n_used": [0], "note": ["only 2 models"]})
    out = lg.ace_accuracy(corr)
    assert out == {"verdict": "not testable", "evidence": "only 2 models"}


def test_size_and_objective_claims_need_the_right_models():
    assert lg.family_pairs(["opt-125m", "gpt2", "opt-1.3b", "opt-350m", "not-a-model"]) == \
        [("OPT", "opt-125m", "opt-1.3b")]
    assert lg.family_pairs(["smollm2-135m-instruct", "gemma-3-270m"]) == []
    out = lg.clm_better(pd.DataFrame(), {"smollm2-135m-instruct": "clm"})
    assert out["verdict"] == "not testable" and "no masked model" in out["evidence"]


def test_ace_stabilises_from_the_curve():
    def curve(values_20, values_60):
        rows = [(m, k, r, v) for m, (a, b) in {"m": (values_20, values_60)}.items()
                for k, vals in ((20, a), (60, b)) for r, v in enumerate(vals)]
        frame = pd.DataFrame(rows, columns=["model", "k", "repeat", "value"])
        return frame.assign(metric="ace", n=10)
    assert lg.ace_stabilises(curve([0.3, 0.31, 0.32], [0.30, 0.31, 0.33]))["verdict"] == "holds"
    out = lg.ace_stabilises(curve([0.3, 0.31, 0.32], [0.1, 0.11, 0.12]))
    assert out["verdict"] == "does not hold" and "m: 0.310 -> 0.110, lower" in out["evidence"]


def test_a_ledger_without_parameters_is_all_untestable_but_keeps_the_papers_evidence():
    ledger = lg.build_ledger({})
    assert list(ledger["key"]) == list(lg.CLAIM_KEYS)
    assert (ledger["verdict"] == "not testable").all()
    assert ledger["paper_evidence"].str.len().gt(0).all()
    assert ledger["needs"].str.len().gt(0).all()
    assert lg.verdict_counts(ledger) == {"holds": 0, "does not hold": 0, "undecided": 0,
                                         "not testable": 14}


def test_the_claims_file_is_read_whole_and_a_bad_entry_is_named(tmp_path):
    from calib.experiments.calibration import MIN_MODELS_FOR_CORRELATION
    from calib.experiments.ledger import CLAIMS, CLAIMS_FILE, load_claims

    assert load_claims(CLAIMS_FILE) == CLAIMS and len(CLAIMS) == 14
    needs = {c.key: c.needs for c in CLAIMS}["ace_accuracy"]
    assert f"at least {MIN_MODELS_FOR_CORRELATION} models" in needs
    bad = tmp_path / "claims.yaml"
    bad.write_text("- key: x\n  paper: kissling2026\n  section: s\n  claim: c\n  quote: q\n"
                   "  chapter: calibration\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"claims\.yaml, entry 1: field\(s\) \['needs'\]"):
        load_claims(bad)
