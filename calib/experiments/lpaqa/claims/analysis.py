"""The LPAQA chapter's claims of its analysis (Jiang et al. 2020, §5.3: cross-model consistency,
prediction divergence, Google-RE, linear against log-linear ensembles) and of §6 (LM-aware
prompts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from calib.data.reported import reported
from calib.experiments import quantifiers
from calib.experiments.claims import Claim
from calib.experiments.lpaqa.claims.evidence import (
    BERT_NEEDS,
    BUILD_SOURCE,
    GOOGLE_NEEDS,
    LARGE,
    LM_AWARE_NEEDS,
    LMS_NEEDS,
    MODELS_PAPER,
    NO_BERTS,
    NO_GOOGLE,
    NO_LM_AWARE,
    NO_LMS,
    SET_COLUMNS,
    SIGNIFICANT,
    SMALL,
    WEAK_R,
    _build,
    _man,
    _opti_minus_man,
    _printed,
    _trex,
    all_parts,
    both_readings,
    not_in_this_build,
)
from calib.experiments.quantifiers import Evidence
from calib.experiments.verdicts import Judgement

if TYPE_CHECKING:
    from calib.experiments.lpaqa import LpaqaResult

# cross_model_drop: "there is usually some drop in performance in the cross-model scenario"


def cross_model_drop(evidence: Evidence) -> Judgement:
    """``cross_model_drop``: the optimised ensemble with weights learned on another model
    minus with its own weights is below 0 for *most* (tested model, weights' model, prompt
    set) units ("usually")."""
    return quantifiers.most(
        evidence,
        "<",
        0.0,
        unit="model-set",
        what="accuracy(Opti., other model's weights) - accuracy(Opti., own)",
    )


def cross_model_drop_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_cross_model").set_index(["test", "train"])
    rows = []
    for (test_, train_), r in t.iterrows():
        if test_ == train_:
            continue
        own = t.loc[(test_, test_)]
        rows += [
            (f"{test_} with {train_}'s weights, {name}", r[c] - own[c])
            for c, name in SET_COLUMNS.items()
        ]
    return Evidence(_printed(rows, terms=2), "LPAQA Tables 12 and 13, printed values")


def cross_model_drop_build(result: LpaqaResult) -> Evidence:
    ev = _build(result, "cross_model")
    if ev.frame.empty and len(result.params.models) < 2:
        return Evidence.empty("the cross-model comparison needs two or more models")
    return ev


# cross_model_best_from_large: "the highest performance when querying BERT-base is actually
# achieved by the weights optimized on BERT-large"


def best_from_other(evidence: Evidence) -> Judgement:
    """``cross_model_best_from_large``: BERT-base's best optimised ensemble with BERT-large's
    weights minus its best with its own weights is above 0."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        unit="model",
        what="max over sets(Opti., BERT-large's weights) - max over sets(Opti., own weights)",
    )


def best_from_other_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_cross_model").set_index(["test", "train"])
    cols = list(SET_COLUMNS)
    return Evidence(
        _printed(
            [
                (
                    "BERT-base",
                    t.loc[("BERT-base", "BERT-large"), cols].max()
                    - t.loc[("BERT-base", "BERT-base"), cols].max(),
                )
            ],
            terms=2,
        ),
        "LPAQA Table 12, printed values",
    )


# ernie_drop_larger: "the drop in performance on ERNIE ... is larger than that on BERT-large
# ... using weights optimized on BERT-base"


def ernie_drop_larger(evidence: Evidence) -> Judgement:
    """``ernie_drop_larger``: on average over the prompt sets, ERNIE's drop with BERT's weights
    exceeds BERT-large's drop with BERT-base's weights."""
    return quantifiers.on_average(
        evidence,
        ">",
        0.0,
        unit="prompt set",
        what="drop(ERNIE, BERT's weights) - drop(BERT-large, BERT-base's weights)",
    )


def ernie_drop_larger_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_cross_model").set_index(["test", "train"])
    cols = list(SET_COLUMNS)
    ernie = t.loc[("ERNIE", "ERNIE"), cols] - t.loc[("ERNIE", "BERT"), cols]
    large = t.loc[("BERT-large", "BERT-large"), cols] - t.loc[("BERT-large", "BERT-base"), cols]
    units = _printed([(SET_COLUMNS[c], ernie[c] - large[c]) for c in cols], terms=4)
    return Evidence(
        quantifiers.mean_of_printed(units, "mean over the four prompt sets"),
        "LPAQA Tables 12 and 13, printed values",
    )


# edit_distance_divergence: "The Pearson correlation coefficient is 0.25, which shows that
# there is a weak correlation"


def divergence_correlates(evidence: Evidence) -> Judgement:
    """``edit_distance_divergence``: the Pearson correlation of two prompts' normalised edit
    distance with the divergence of their predictions is above 0 ("as the edit distance
    becomes larger, the divergence increases") and weak, below
    :data:`~calib.experiments.lpaqa.claims.evidence.WEAK_R` (0.3, calib's reading of "a weak
    correlation"; the paper
    prints 0.25), for every model."""
    what = "Pearson r(normalised edit distance, prediction divergence)"
    return all_parts(
        evidence,
        [
            ("positive", quantifiers.every(evidence, ">", 0.0, unit="model", what=what)),
            (
                f"weak (below {WEAK_R:g})",
                quantifiers.every(evidence, "<", WEAK_R, unit="model", what=what),
            ),
        ],
    )


def divergence_correlates_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_text_numbers").set_index("key")
    return Evidence(
        _printed(
            [("BERT (§5.3)", t.at["edit_distance_divergence_pearson", "value"])],
            terms=1,
            step=0.01,
        ),
        "LPAQA §5.3's text, printed value",
    )


def divergence_correlates_build(result: LpaqaResult) -> Evidence:
    d = result.divergence
    frame = pd.DataFrame(
        {
            "unit": d["model"],
            "difference": d["r"],
            "low": d["r_low"],
            "high": d["r_high"],
            "n_pairs": d["n_pairs"],
        }
    )
    return Evidence(
        frame,
        f"{BUILD_SOURCE} ({result.params.n_bootstrap} resamples), over "
        f"the pairs of each model's prompts",
    )


# log_linear_better: "We assume that log-linear combination outperforms linear combination"


def log_linear_better(evidence: Evidence) -> Judgement:
    """``log_linear_better``: the log-linear TopK ensemble of mined prompts beats the linear
    one, for every K >= 2 and model."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        unit="model-K",
        what="accuracy(log-linear TopK) - accuracy(linear TopK), Mine",
    )


def log_linear_better_build(result: LpaqaResult) -> Evidence:
    return _build(result, "log_linear")


def google_re_improves(evidence: Evidence) -> Judgement:
    """``google_re_ensembles``: on Google-RE the optimised ensemble beats the manual prompts
    for *most* (model, prompt set) units."""
    return quantifiers.most(
        evidence, ">", 0.0, unit="model-set", what="accuracy(Opti.) - accuracy(Man) on Google-RE"
    )


def google_re_improves_paper() -> Evidence:
    return Evidence(_opti_minus_man("jiang2020_lpaqa_google_re"), "LPAQA Table 10, printed values")


def google_re_smaller(evidence: Evidence) -> Judgement:
    """``google_re_smaller_gains``: the optimised ensemble's gain over the manual prompts is
    smaller on Google-RE than on T-REx, for every model and prompt set."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        unit="model-set",
        what="gain(Opti. - Man) on Google-RE - the same on T-REx",
    )


def google_re_smaller_paper() -> Evidence:
    g = reported("jiang2020_lpaqa_google_re").set_index("model")
    micro, man = _trex().set_index(["model", "prompts"]), _man()
    rows = [
        (f"{m}, {name}", (g.at[m, c] - g.at[m, "man"]) - (micro.at[(m, name), "opti"] - man[m]))
        for m in MODELS_PAPER
        for c, name in SET_COLUMNS.items()
    ]
    return Evidence(_printed(rows, terms=4), "LPAQA Tables 2 and 10, printed values")


def lm_aware_ensembles_drop(evidence: Evidence) -> Judgement:
    """``lm_aware_ensembles_drop``: after §6.1's LM-aware refinement the rank-based (Top3,
    Top5) and optimised ensembles are less accurate than before, and only "slightly": by at
    most :data:`~calib.experiments.lpaqa.claims.evidence.SMALL` (1) point (calib's reading),
    for every method."""
    what = "accuracy after refinement - before"
    return all_parts(
        evidence,
        [
            ("dropped", quantifiers.every(evidence, "<", 0.0, unit="method", what=what)),
            (
                f"slightly (by at most {SMALL:g} point)",
                quantifiers.every(evidence, ">=", -SMALL, unit="method", what=what),
            ),
        ],
    )


def lm_aware_ensembles_drop_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_lm_aware").set_index("stage")
    return Evidence(
        _printed(
            [(c.title(), t.at["after", c] - t.at["before", c]) for c in ("top3", "top5", "opti")],
            terms=2,
        ),
        "LPAQA Table 14, printed values (BERT-base; rows read before, after)",
    )


def lm_aware_oracle_up(evidence: Evidence) -> Judgement:
    """``lm_aware_oracle_up``: after §6.1's LM-aware refinement the oracle is more accurate
    than before, "significantly": by at least
    :data:`~calib.experiments.lpaqa.claims.evidence.SIGNIFICANT` (2) points (calib's reading; no
    test is printed)."""
    return quantifiers.every(
        evidence,
        ">=",
        SIGNIFICANT,
        unit="method",
        what="accuracy(Oracle) after refinement - before",
    )


def lm_aware_oracle_up_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_lm_aware").set_index("stage")
    return Evidence(
        _printed([("Oracle", t.at["after", "oracle"] - t.at["before", "oracle"])], terms=2),
        "LPAQA Table 14, printed values (BERT-base; rows read before, after)",
    )


# cross_model_losses_small: "but the losses tend to be small"; "the best accuracies of 40.1% and
# 42.2% (Table 12) and 39.5% and 40.5% (Table 13) with the weights optimized on the other model
# are still much higher than those obtained by the manual prompts"


def cross_model_losses_small(evidence: Evidence) -> Judgement:
    """``cross_model_losses_small``: two fair readings of "the losses tend to be small",
    both judged and shown (the verdict where they agree, undecided where they disagree).

    A, absolute: for *most* (tested model, weights' model, prompt set) units the loss with
    the other model's weights is at most
    :data:`~calib.experiments.lpaqa.claims.evidence.SMALL` (1) point, cross - own at least -1
    (``frame``). B, beside the gains: per tested
    model, its best optimised ensemble with the other model's weights is "still much higher"
    than its manual prompt, by at least
    :data:`~calib.experiments.lpaqa.claims.evidence.LARGE` (3) points (``frames["over_manual"]``;
    the printed 40.1, 42.2, 39.5, 40.5)."""
    over = evidence.frames.get("over_manual")
    over_ev = (
        Evidence(over, evidence.source)
        if over is not None and len(over)
        else Evidence.empty(
            "this build's cross-model comparisons are against the model's own weights, not "
            "against its manual prompt",
            evidence.source,
        )
    )
    return both_readings(
        evidence,
        [
            (
                f"A: most losses at most {SMALL:g} point",
                quantifiers.most(
                    evidence,
                    ">=",
                    -SMALL,
                    unit="model-set",
                    what="accuracy(Opti., other model's weights) - accuracy(Opti., own)",
                ),
            ),
            (
                f"B: best cross-model at least {LARGE:g} points above Man",
                quantifiers.every(
                    over_ev,
                    ">=",
                    LARGE,
                    unit="model",
                    what="max over sets(Opti., other model's weights) - accuracy(Man)",
                ),
            ),
        ],
    )


def cross_model_losses_small_paper() -> Evidence:
    drops = cross_model_drop_paper()
    t = reported("jiang2020_lpaqa_cross_model")
    man = {**dict(reported("jiang2020_lpaqa_lms").set_index("model")["man"]), **_man()}
    cols = list(SET_COLUMNS)
    rows = [
        (f"{r['test']} with {r['train']}'s weights", max(r[c] for c in cols) - man[r["test"]])
        for r in t.to_dict("records")
        if r["test"] != r["train"]
    ]
    return Evidence(
        drops.frame,
        "LPAQA Tables 12 and 13 (the manual prompts: Tables 2 and 8), printed values",
        frames={"over_manual": _printed(rows, terms=2)},
    )


# backward_small: "the improvement resulting from backward probability is small" (Table 15)


def backward_small(evidence: Evidence) -> Judgement:
    """``backward_small``: adding the backward probability to the optimised ensemble changes
    accuracy by at most :data:`~calib.experiments.lpaqa.claims.evidence.SMALL` (1) point either
    way ("small", calib's reading) for every column (Mine and paraphrases, micro and macro), and
    improves it on average over the columns (mean above 0)."""
    what = "accuracy(forward + backward) - accuracy(forward)"
    mean = (
        Evidence(quantifiers.mean_of_printed(evidence.frame), evidence.source)
        if len(evidence.frame)
        else evidence
    )
    return all_parts(
        evidence,
        [
            (
                f"at most +{SMALL:g} point",
                quantifiers.every(evidence, "<=", SMALL, unit="column", what=what),
            ),
            (
                f"at least -{SMALL:g} point",
                quantifiers.every(evidence, ">=", -SMALL, unit="column", what=what),
            ),
            (
                "an improvement on average",
                quantifiers.on_average(mean, ">", 0.0, unit="column", what=what),
            ),
        ],
    )


def backward_small_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_backward").set_index("features")
    names = {
        "mine_micro": "Mine, micro",
        "mine_macro": "Mine, macro",
        "para_micro": "Paraphrase, micro",
        "para_macro": "Paraphrase, macro",
    }
    rows = [(name, t.at["forward + backward", c] - t.at["forward", c]) for c, name in names.items()]
    return Evidence(_printed(rows, terms=2), "LPAQA Table 15 (BERT-base), printed values")


BACKWARD_NEEDS = (
    "§6.2's backward probability log P(x | y, t) (the masked model scoring the subject given "
    "each of the forward probability's top B objects) as a feature of the optimised ensemble, "
    "which calib does not implement (§6 lists it among the omitted design elements)"
)


# pos_patterns_rank_better: "the average rank of prompts matching these patterns is better than
# those in the 'other' group" (Figure 4)


def pos_patterns_rank_better(evidence: Evidence) -> Judgement:
    """``pos_patterns_rank_better``: for each of ReVerb's three part-of-speech patterns (V, V
    P, V W* P), the mean rank of the mined prompts matching it minus the mean rank of those
    matching none ("other") is below 0 (a better rank: lower), for every pattern."""
    return quantifiers.every(
        evidence,
        "<",
        0.0,
        unit="pattern",
        what="mean rank(prompts matching the pattern) - mean rank('other')",
    )


POS_NEEDS = (
    "a part-of-speech tagging of the build's mined prompts (result.rankings' templates) and "
    "ReVerb's three patterns matched against it, with a bootstrap over relations; the "
    "chapter tags no prompt"
)


#: the claims of this module, in the ledger's order (``CLAIMS`` of the package)
CLAIMS: tuple[Claim, ...] = (
    Claim(
        key="cross_model_drop",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="there is usually some drop in performance in the cross-model scenario",
        statement="The optimised ensemble is less accurate (micro) with the weights learned "
        "on another model than with the model's own, for most (tested model, "
        'weights\' model, prompt set) units ("usually"; Tables 12-13; here for '
        "Mine, Mine+Man and Man+Para, whose prompts every model shares)",
        quantifier="most",
        metrics=("micro accuracy",),
        about="BERT-base/BERT-large and BERT/ERNIE; every ordered pair of the build's models",
        chapter="lpaqa",
        rule=cross_model_drop,
        paper_evidence=cross_model_drop_paper,
        build_evidence=cross_model_drop_build,
        needs="two or more models on LAMA T-REx (the cpu and quick profiles have them)",
    ),
    Claim(
        key="cross_model_best_from_large",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="the highest performance when querying BERT- base is actually achieved by the "
        "weights optimized on BERT-large",
        statement="BERT-base's most accurate optimised ensemble (over the prompt sets) uses "
        "BERT-large's weights (40.1%, Mine+Man) rather than its own (39.6%)",
        quantifier="one model",
        metrics=("micro accuracy",),
        about="BERT-base (BERT-large)",
        chapter="lpaqa",
        rule=best_from_other,
        paper_evidence=best_from_other_paper,
        build_evidence=not_in_this_build(NO_BERTS),
        needs=BERT_NEEDS,
    ),
    Claim(
        key="ernie_drop_larger",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="is larger than that on BERT-large (last two columns in Table 12) using "
        "weights optimized on BERT-base",
        statement="With BERT-base's weights, ERNIE loses more accuracy than BERT-large does, "
        "on average over the prompt sets (Tables 12-13)",
        quantifier="on average",
        metrics=("micro accuracy",),
        about="ERNIE and BERT-large (BERT-base's weights)",
        chapter="lpaqa",
        rule=ernie_drop_larger,
        paper_evidence=ernie_drop_larger_paper,
        build_evidence=not_in_this_build(NO_LMS),
        needs=LMS_NEEDS,
    ),
    Claim(
        key="edit_distance_divergence",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="The Pearson correlation coefficient is 0.25",
        statement="The more two prompts of a relation differ (normalised word edit distance), "
        "the more their predictions diverge: a positive and weak Pearson correlation over "
        f"the pairs of prompts (0.25 in the paper; 'weak': below {WEAK_R:g}, calib's "
        "reading), for every model",
        quantifier="every",
        metrics=("prediction divergence",),
        about="BERT in the paper; every model of the build",
        chapter="lpaqa",
        rule=divergence_correlates,
        paper_evidence=divergence_correlates_paper,
        build_evidence=divergence_correlates_build,
        needs="any model on LAMA T-REx",
        paper_source="printed text",
    ),
    Claim(
        key="google_re_ensembles",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="ensembling diverse prompts improves accuracies for both the BERT-base and "
        "BERT-large models",
        statement="On Google-RE the optimised ensemble beats the manual prompts for most "
        "(model, prompt set) units (Table 10)",
        quantifier="most",
        metrics=("micro accuracy",),
        about="BERT-base and BERT-large",
        chapter="lpaqa",
        rule=google_re_improves,
        paper_evidence=google_re_improves_paper,
        build_evidence=not_in_this_build(NO_GOOGLE),
        needs=GOOGLE_NEEDS,
    ),
    Claim(
        key="google_re_smaller_gains",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="The gains are somewhat smaller than those on the T-REx subset",
        statement="The optimised ensemble's gain over the manual prompts is smaller on "
        "Google-RE than on T-REx, for every model and prompt set (Tables 2 and 10)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base and BERT-large",
        chapter="lpaqa",
        rule=google_re_smaller,
        paper_evidence=google_re_smaller_paper,
        build_evidence=not_in_this_build(NO_GOOGLE),
        needs=GOOGLE_NEEDS,
    ),
    Claim(
        key="log_linear_better",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="We assume that log-linear combination outperforms linear combination",
        statement="The log-linear rank-based ensemble of mined prompts beats the linear one "
        "(Eq. 4) in micro accuracy, for every K >= 2 and model (Figure 5)",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base in the paper; every model of the build",
        chapter="lpaqa",
        rule=log_linear_better,
        paper_evidence=None,
        build_evidence=log_linear_better_build,
        paper_note="Figure 5 prints no numbers (accuracy curves of the two combinations)",
        needs="any model on LAMA T-REx",
    ),
    Claim(
        key="lm_aware_ensembles_drop",
        paper="jiang2020",
        section="LPAQA §6",
        quote="while the ensemble performances (both rank-based and optimization-",
        statement="After §6.1's LM-aware refinement of the prompts the ensembles (Top3, Top5, "
        'Opti.) are less accurate than before, and only slightly (Table 14, "dropped '
        f"slightly\"): by at most {SMALL:g} point (calib's reading), for every method",
        quantifier="every",
        metrics=("micro accuracy",),
        about="BERT-base",
        chapter="lpaqa",
        rule=lm_aware_ensembles_drop,
        paper_evidence=lm_aware_ensembles_drop_paper,
        build_evidence=not_in_this_build(NO_LM_AWARE),
        needs=LM_AWARE_NEEDS,
    ),
    Claim(
        key="lm_aware_oracle_up",
        paper="jiang2020",
        section="LPAQA §6",
        quote="After fine-tuning, the oracle perfor- mance increased significantly",
        statement="After §6.1's LM-aware refinement of the prompts the oracle is more "
        'accurate than before (Table 14, "increased significantly"): by at least '
        f"{SIGNIFICANT:g} points (calib's reading; no test is printed)",
        quantifier="one model",
        metrics=("micro accuracy",),
        about="BERT-base",
        chapter="lpaqa",
        rule=lm_aware_oracle_up,
        paper_evidence=lm_aware_oracle_up_paper,
        build_evidence=not_in_this_build(NO_LM_AWARE),
        needs=LM_AWARE_NEEDS,
    ),
    Claim(
        key="cross_model_losses_small",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="but the losses tend to be small",
        statement="The cross-model losses are small, judged in two fair readings (both shown; "
        f"undecided where they disagree): A, most losses are at most {SMALL:g} point; B, "
        "each tested model's best optimised ensemble with the other model's weights is still "
        f"at least {LARGE:g} points above its manual prompt ('still much higher': 40.1, "
        "42.2, 39.5, 40.5 against 31.1, 32.3, 31.1, 32.1); calib's thresholds",
        quantifier="most",
        metrics=("micro accuracy",),
        about="BERT-base/BERT-large and BERT/ERNIE; every ordered pair of the build's models",
        chapter="lpaqa",
        rule=cross_model_losses_small,
        paper_evidence=cross_model_losses_small_paper,
        build_evidence=cross_model_drop_build,
        needs="two or more models on LAMA T-REx (the cpu and quick profiles have them); "
        "reading B also the cross-model ensembles against the manual prompt",
    ),
    Claim(
        key="pos_patterns_rank_better",
        paper="jiang2020",
        section="LPAQA §5.3",
        quote="We can see that the average rank of prompts matching these patterns is better",
        statement="Mined prompts that match one of ReVerb's three part-of-speech patterns rank "
        "better (a lower mean rank within their relation) than those that match none, for "
        "every pattern",
        quantifier="every",
        metrics=("prompt rank",),
        about="BERT-base's mined prompts (Figure 4); the build's mined prompts",
        chapter="lpaqa",
        rule=pos_patterns_rank_better,
        paper_evidence=None,
        build_evidence=not_in_this_build("this build tags no prompt's parts of speech"),
        paper_note="Figure 4 prints no numbers (box plots of ranks per pattern)",
        needs=POS_NEEDS,
    ),
    Claim(
        key="backward_small",
        paper="jiang2020",
        section="LPAQA §6.2",
        quote="the improvement resulting from backward probability is small",
        statement="Adding §6.2's backward probability to the optimised ensemble changes "
        f"accuracy by at most {SMALL:g} point either way ('small', calib's reading) in every "
        "column of Table 15 (Mine and paraphrases, micro and macro; +0.1 to +0.3), and "
        "improves it on average",
        quantifier="every",
        metrics=("micro accuracy", "macro accuracy"),
        about="BERT-base",
        chapter="lpaqa",
        rule=backward_small,
        paper_evidence=backward_small_paper,
        build_evidence=not_in_this_build("calib does not implement §6.2's backward probability"),
        needs=BACKWARD_NEEDS,
    ),
)
