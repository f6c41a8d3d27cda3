"""Recalibration baselines: temperature scaling of the option softmax and Platt scaling, both
cross-fitted over relations."""

import numpy as np
import pandas as pd
import pytest

from calib.confidence import (
    ace,
    all_estimates,
    base,
    brier,
    fit_platt,
    fit_temperature,
    platt_scaling,
    relation_folds,
    sentence_scores,
    summary,
    temperature_scaling,
)
from calib.confidence.probabilities import log_softmax
from calib.confidence.recalibration import platt_transform
from calib.data.bear import PLAIN


def synthetic_scores(temperature, n_relations=6, per_relation=300, seed=0, model="m"):
    """A sentence-score table whose correct option is drawn from ``softmax(score / T)``: the
    scores are over-sharp by the factor ``1 / T``, and temperature ``T`` recalibrates them."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in range(n_relations):
        k = 3 + 2 * r  # answer spaces of different sizes
        for i in range(per_relation):
            s = rng.normal(0, 3, k)
            p = np.exp(log_softmax(s / temperature))
            answer = int(rng.choice(k, p=p))
            for o in range(k):
                rows.append((model, "bear", f"R{r}", f"Q{r}_{i}", PLAIN, o, answer, s[o]))
    return pd.DataFrame(
        rows,
        columns=[
            "model",
            "dataset",
            "relation",
            "instance",
            "template",
            "option",
            "answer_idx",
            "score",
        ],
    )


def test_relation_folds_are_seeded_balanced_and_depend_on_the_set_only():
    rel = [f"P{i}" for i in range(11)]
    folds = relation_folds(rel, k=4, seed=3)
    assert set(folds) == set(rel) and sorted(np.bincount(list(folds.values()))) == [2, 3, 3, 3]
    assert relation_folds(reversed(rel * 2), k=4, seed=3) == folds
    assert relation_folds(rel, k=4, seed=4) != folds
    with pytest.raises(ValueError, match="at least 12 relations"):
        relation_folds(rel, k=12)
    with pytest.raises(ValueError, match=">= 2"):
        relation_folds(rel, k=1)


@pytest.mark.parametrize("true_t", [0.5, 2.5])
def test_temperature_scaling_recovers_a_known_temperature(true_t):
    sent = synthetic_scores(true_t, seed=int(true_t * 10))
    fit = fit_temperature(sent).iloc[0]
    assert fit.n_fit == 6 * 300
    assert fit.temperature_low < true_t < fit.temperature_high
    assert fit.temperature_high - fit.temperature_low < 0.25 * true_t  # informative
    # the cross-fitted temperatures, each on 5 of 6 relations, are near it too
    rec = temperature_scaling(sent, k=3)
    assert (rec.fits.temperature_low < true_t * 1.1).all()
    assert (rec.fits.temperature_high > true_t / 1.1).all()


def test_temperature_scaled_base_keeps_the_prediction_and_calibrates():
    sent = synthetic_scores(2.0, seed=1)
    rec = temperature_scaling(sent, k=3)
    plain = base(sent).sort_values("instance").reset_index(drop=True)
    scaled = rec.estimates.sort_values("instance").reset_index(drop=True)
    assert (scaled.estimator == "Base (temperature)").all()
    assert (scaled.prediction == plain.prediction).all()
    assert (scaled.correct == plain.correct).all()
    assert ace(scaled.confidence, scaled.correct) < ace(plain.confidence, plain.correct) / 2
    assert brier(scaled.confidence, scaled.correct) < brier(plain.confidence, plain.correct)


def test_cross_fitting_never_uses_a_held_out_relation():
    sent = synthetic_scores(2.0, n_relations=6, per_relation=60, seed=2)
    rec = temperature_scaling(sent, k=3, seed=5, estimators=("Base", "Margin"))
    fits = rec.fits
    assert len(fits) == 3
    relations = set(sent.relation)
    for _, fit in fits.iterrows():
        assert not set(fit.fit_relations) & set(fit.scored_relations)
        assert set(fit.fit_relations) | set(fit.scored_relations) == relations
        assert fit.n_fit == 60 * len(fit.fit_relations)
    assert sorted(r for rs in fits.scored_relations for r in rs) == sorted(relations)
    scored = dict(zip(fits.fold, fits.scored_relations))
    for _, row in rec.estimates.iterrows():
        assert row.relation in scored[row.fold]
    # behaviour: changing one relation's scores changes nothing else in its own fold
    folds = relation_folds(relations, k=3, seed=5)
    r0 = "R0"
    same_fold = [r for r in relations if folds[r] == folds[r0] and r != r0]
    other_fold = [r for r in relations if folds[r] != folds[r0]]
    changed = sent.assign(score=np.where(sent.relation == r0, sent.score * 3, sent.score))
    again = temperature_scaling(changed, k=3, seed=5, estimators=("Base", "Margin")).estimates

    def conf(table, rels):
        part = table[table.relation.isin(rels)].sort_values(["estimator", "instance"])
        return part.confidence.to_numpy()

    np.testing.assert_array_equal(conf(rec.estimates, same_fold), conf(again, same_fold))
    assert not np.allclose(conf(rec.estimates, other_fold), conf(again, other_fold))


def test_platt_on_calibrated_confidences_stays_close_to_the_identity():
    rng = np.random.default_rng(0)
    conf = rng.uniform(0.02, 0.98, 5000)
    corr = rng.random(5000) < conf
    slope, intercept = fit_platt(conf, corr)
    assert slope == pytest.approx(1.0, abs=0.1) and intercept == pytest.approx(0.0, abs=0.1)
    assert np.abs(platt_transform(conf, slope, intercept) - conf).max() < 0.05
    # Newton found the minimum: the gradient of the loss with Platt's targets is ~0
    x = np.log(conf / (1 - conf))
    t = np.where(corr, (corr.sum() + 1) / (corr.sum() + 2), 1 / ((~corr).sum() + 2))
    p = 1 / (1 + np.exp(-(slope * x + intercept)))
    assert np.abs([np.sum((p - t) * x), np.sum(p - t)]).max() < 1e-6
    # separable data: Platt's smoothed targets keep the fit finite
    s, b = fit_platt([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])
    assert np.isfinite(s) and np.isfinite(b) and s > 0
    s, b = fit_platt([0.1, 0.9, 0.5], [1, 1, 1])
    assert np.isfinite(s) and np.isfinite(b)


def overconfident_estimates(n_relations=5, per_relation=200, seed=0):
    rng = np.random.default_rng(seed)
    n = n_relations * per_relation
    conf = rng.uniform(0.3, 1.0, n)
    corr = rng.random(n) < conf**3  # much less often right than the confidence says
    rel = np.repeat([f"R{r}" for r in range(n_relations)], per_relation)
    return pd.DataFrame(
        {
            "estimator": "Base",
            "model": "m",
            "dataset": "bear",
            "relation": rel,
            "instance": [f"q{i}" for i in range(n)],
            "template": PLAIN,
            "prediction": 0,
            "correct": corr,
            "confidence": conf,
            "n_agree": pd.NA,
            "rejected": False,
        }
    )


def test_platt_scaling_is_cross_fitted_and_recalibrates():
    est = overconfident_estimates()
    rec = platt_scaling(est, k=5, seed=1)
    out = rec.estimates
    assert list(out.columns) == [
        "estimator",
        "model",
        "dataset",
        "relation",
        "instance",
        "template",
        "prediction",
        "correct",
        "confidence",
        "n_agree",
        "rejected",
        "fold",
    ]
    assert (out.estimator == "Base (Platt)").all() and len(out) == len(est)
    assert ace(out.confidence, out.correct) < ace(est.confidence, est.correct) / 2
    for _, fit in rec.fits.iterrows():
        assert not set(fit.fit_relations) & set(fit.scored_relations)
        assert fit.n_fit == 200 * 4 and fit.n_scored == 200
    # the same folds as temperature scaling for the same relations, k and seed
    folds = relation_folds(est.relation, k=5, seed=1)
    assert (out.fold == out.relation.map(folds)).all()
    # flipping the outcomes of R0 (k = 5: alone in its fold) leaves R0's recalibrated
    # confidences as they were, since the fit that scores R0 never saw it, and moves the other
    # relations' ones, whose fits did
    assert folds["R0"] not in {folds[r] for r in folds if r != "R0"}
    flipped = est.assign(correct=np.where(est.relation == "R0", ~est.correct, est.correct))
    again = platt_scaling(flipped, k=5, seed=1).estimates
    held = (out.relation == "R0").to_numpy()
    np.testing.assert_array_equal(again.confidence[held], out.confidence[held])
    assert (again.confidence[~held].to_numpy() != out.confidence[~held].to_numpy()).all()


def test_recalibrated_rows_go_through_summary_with_the_other_estimators(random_table):
    sent = sentence_scores(random_table)
    est = all_estimates(sent, aggregations=("min", "vote-2"))
    temp = temperature_scaling(sent, k=3)
    platt = platt_scaling(est, ["Margin", "Average/vote-2"], k=3)
    both = pd.concat([est, temp.estimates, platt.estimates], ignore_index=True)
    table = summary(both, by=["model", "estimator"], n_boot=50)
    names = set(table.estimator)
    assert {"Base (temperature)", "Margin (Platt)", "Average/vote-2 (Platt)"} <= names
    assert (table.groupby("estimator").n.first() == 36).all()
    # rejected instances stay rejected with confidence 0
    voted = platt.estimates[platt.estimates.estimator == "Average/vote-2 (Platt)"]
    assert voted.rejected.any()
    assert (voted.loc[voted.rejected, "confidence"] == 0).all()
    assert (voted.loc[~voted.rejected, "confidence"] > 0).all()
    with pytest.raises(ValueError, match="not in the estimate table"):
        platt_scaling(est, ["Nope"])
    with pytest.raises(ValueError, match="single-template"):
        temperature_scaling(sent, estimators=("Average",))
