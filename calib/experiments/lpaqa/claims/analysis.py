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
    LM_AWARE_NEEDS,
    LMS_NEEDS,
    MODELS_PAPER,
    NO_BERTS,
    NO_GOOGLE,
    NO_LM_AWARE,
    NO_LMS,
    SET_COLUMNS,
    _build,
    _man,
    _opti_minus_man,
    _printed,
    _trex,
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
    return Evidence(_printed(rows), "LPAQA Tables 12 and 13, printed values")


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
            ]
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
    units = _printed([(SET_COLUMNS[c], ernie[c] - large[c]) for c in cols])
    return Evidence(
        quantifiers.mean_of_printed(units, "mean over the four prompt sets"),
        "LPAQA Tables 12 and 13, printed values",
    )


# edit_distance_divergence: "The Pearson correlation coefficient is 0.25, which shows that
# there is a weak correlation"


def divergence_correlates(evidence: Evidence) -> Judgement:
    """``edit_distance_divergence``: the Pearson correlation of two prompts' normalised edit
    distance with the divergence of their predictions is above 0, for every model."""
    return quantifiers.every(
        evidence,
        ">",
        0.0,
        unit="model",
        what="Pearson r(normalised edit distance, prediction divergence)",
    )


def divergence_correlates_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_text_numbers").set_index("key")
    return Evidence(
        _printed([("BERT (§5.3)", t.at["edit_distance_divergence_pearson", "value"])]),
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
    return Evidence(_printed(rows), "LPAQA Tables 2 and 10, printed values")


def lm_aware_ensembles_drop(evidence: Evidence) -> Judgement:
    """``lm_aware_ensembles_drop``: after §6.1's LM-aware refinement the rank-based (Top3,
    Top5) and optimised ensembles are less accurate than before."""
    return quantifiers.every(
        evidence, "<", 0.0, unit="method", what="accuracy after refinement - before"
    )


def lm_aware_ensembles_drop_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_lm_aware").set_index("stage")
    return Evidence(
        _printed(
            [(c.title(), t.at["after", c] - t.at["before", c]) for c in ("top3", "top5", "opti")]
        ),
        "LPAQA Table 14, printed values (BERT-base; rows read before, after)",
    )


def lm_aware_oracle_up(evidence: Evidence) -> Judgement:
    """``lm_aware_oracle_up``: after §6.1's LM-aware refinement the oracle is more accurate
    than before."""
    return quantifiers.every(
        evidence, ">", 0.0, unit="method", what="accuracy(Oracle) after refinement - before"
    )


def lm_aware_oracle_up_paper() -> Evidence:
    t = reported("jiang2020_lpaqa_lm_aware").set_index("stage")
    return Evidence(
        _printed([("Oracle", t.at["after", "oracle"] - t.at["before", "oracle"])]),
        "LPAQA Table 14, printed values (BERT-base; rows read before, after)",
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
        "the more their predictions diverge: a positive Pearson correlation over "
        "the pairs of prompts (0.25 in the paper), for every model",
        quantifier="every",
        metrics=("prediction divergence",),
        about="BERT in the paper; every model of the build",
        chapter="lpaqa",
        rule=divergence_correlates,
        paper_evidence=divergence_correlates_paper,
        build_evidence=divergence_correlates_build,
        needs="any model on LAMA T-REx",
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
        'Opti.) are less accurate than before (Table 14, "dropped slightly")',
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
        'accurate than before (Table 14, "increased significantly")',
        quantifier="one model",
        metrics=("micro accuracy",),
        about="BERT-base",
        chapter="lpaqa",
        rule=lm_aware_oracle_up,
        paper_evidence=lm_aware_oracle_up_paper,
        build_evidence=not_in_this_build(NO_LM_AWARE),
        needs=LM_AWARE_NEEDS,
    ),
)
