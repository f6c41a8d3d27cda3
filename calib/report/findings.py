"""The sentences the chapters print about their results, built from the experiments' frames
(:mod:`calib.experiments`): no number is computed here, and no sentence claims what its numbers
do not show (the wording rules are :mod:`calib.report.prose`'s).

===============================  ===========================================================
chapter                          sentences
===============================  ===========================================================
calibration                      :func:`below_zero_sentence`,
                                 :func:`below_zero_counts_sentence`,
                                 :func:`floor_summary_sentence`, :func:`gap_sentence`,
                                 :func:`claim_sentences`
answer_set                       :func:`trend_sentences`, :func:`figure4_sentences`,
                                 :data:`METRIC_TITLES`
clm_vs_mlm                       :func:`model_kinds_note`, :func:`pairing_note`,
                                 :func:`pair_sentences`, :func:`objective_sentence`
factor                           :func:`margin_sentences`, :func:`margin_claim`
start_tokens                     :func:`rule_sentences`
reductions                       :func:`reduction_sentences`, :data:`METRIC_LABELS`
linguistic                       :func:`ace_change_sentences`,
                                 :func:`confidence_move_sentences`
lpaqa                            :func:`manual_comparison_sentences`
every ACE                        :func:`floor_sentence`, :func:`floor_sentences`
===============================  ===========================================================
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from calib.confidence.schema import require_columns
from calib.experiments.answer_set.curves import curve_spread
from calib.experiments.clm_vs_mlm.pairing import PAIRING_RULE, SCOPES
from calib.experiments.quantifiers import every_verdict, number_text
from calib.experiments.reductions import REDUCTION_LABELS
from calib.experiments.start_tokens.rules import RULES
from calib.experiments.verdicts import unit_tally
from calib.report.prose import agreement_sentence, change_sentence, compare_sentence, fmt

#: how the metrics of the answer-set curves are titled in charts and sentences
METRIC_TITLES = {
    "confidence": "mean Base confidence",
    "accuracy": "accuracy",
    "ace": "ACE (Base)",
    "ace_margin": "ACE (Margin)",
}
#: the display names of Figure 7's metrics
#: (:data:`calib.experiments.reductions.tables.FIGURE7_METRICS`)
METRIC_LABELS: dict[str, str] = {"accuracy": "Accuracy", "ace": "ACE", "H": "H"}


def bullets(sentences: Sequence[str]) -> str:
    """Markdown bullet points, one per sentence."""
    return "\n".join(f"- {s}" for s in sentences)


# ---------------------------------------------------------------------------------------------
# calibration


def below_zero_counts(est: pd.DataFrame) -> pd.DataFrame:
    """Per estimator and model of an estimate table: how many instances have a confidence
    below 0 (``below``), of how many (``n``), and the lowest confidence (``lowest``); only the
    rows with at least one (the input of :func:`below_zero_counts_sentence`)."""
    require_columns(est, ("model", "estimator", "confidence"), "estimate table")
    counts = (
        est.assign(below=est["confidence"] < 0)
        .groupby(["estimator", "model"], sort=False)
        .agg(below=("below", "sum"), n=("below", "size"), lowest=("confidence", "min"))
        .reset_index()
    )
    return counts[counts["below"] > 0].reset_index(drop=True)


def below_zero_counts_sentence(counts: pd.DataFrame) -> str:
    """The sentence of :func:`below_zero_sentence` from :func:`below_zero_counts`' frame."""
    require_columns(counts, ("estimator", "model", "below", "n", "lowest"), "below-zero counts")
    if counts.empty:
        return (
            "No estimator gave any instance a confidence below 0 in this run (the paper's "
            "Entropy-Confidence, Eq. 7, can be below 0 when the templates split into three "
            "or more answers)."
        )
    parts = [
        f"{r.estimator} for {int(r.below)} of {int(r.n)} instances of {r.model} "
        f"(lowest {r.lowest:.2f})"
        for r in counts.itertuples(index=False)
    ]
    return (
        "The paper's Entropy-Confidence (Eq. 7) is 1 minus an entropy in nats, not "
        "normalised, so it falls below 0 when the templates split into three or more "
        "answers of similar weight; ACE and Brier are computed on these values as they are. "
        "In this run confidences below 0 came from " + "; ".join(parts) + "."
    )


def below_zero_sentence(est: pd.DataFrame) -> str:
    """How many instances each estimator gave a confidence below 0, per model, as a sentence.
    Only the paper's Entropy-Confidence (Eq. 7, not normalised) can: it is 1 minus an entropy
    in nats, below 0 when the templates split into three or more answers of similar weight."""
    return below_zero_counts_sentence(below_zero_counts(est))


#: the words for an ACE within its noise floor (issue 18; :mod:`calib.confidence.noise_floor`)
WITHIN_FLOOR = "not distinguishable from perfect calibration at this sample size"


def _ace_text(row: Mapping) -> str:
    return (
        f"ACE {row['ace']:.3f} [{row['ace_low']:.3f}, {row['ace_high']:.3f}]"
        if pd.notna(row.get("ace_low"))
        else f"ACE {row['ace']:.3f}"
    )


def floor_summary_sentence(
    table: pd.DataFrame,
    label: Sequence[str] = ("model", "estimator"),
    limit: int = 12,
    what: str = "ACE",
) -> str:
    """Which ACEs of a table with the noise-floor columns
    (:func:`calib.confidence.noise_floor.floor_record`: ``ace_floor``, ``ace_floor_high``,
    ``ace_within_floor``, ``ace_debiased`` ...) are within their floor -- "not
    distinguishable from perfect calibration at this sample size" (:data:`WITHIN_FLOOR`) --
    and how far above it the others are (the debiased ACE with its interval). Rows are named
    by the ``label`` columns; at most ``limit`` rows are named per sentence; ``what`` names
    the ACEs (e.g. "ACE of C_Base")."""
    require_columns(
        table,
        (
            *label,
            "ace",
            "ace_floor",
            "ace_floor_high",
            "ace_within_floor",
            "ace_debiased",
            "ace_debiased_low",
            "ace_debiased_high",
        ),
        "table with the noise floor of ACE",
    )
    if table.empty:
        return ""

    def name(row):
        return ", ".join(str(row[c]) for c in label)

    def listed(rows, text):
        shown = "; ".join(f"{name(r)}: {text(r)}" for r in rows[:limit])
        return shown + (f"; and {len(rows) - limit} more" if len(rows) > limit else "")

    rows = table.to_dict("records")
    within = [r for r in rows if bool(r["ace_within_floor"])]
    above = [r for r in rows if not bool(r["ace_within_floor"])]
    out = []
    if within:
        out.append(
            f"{len(within)} of the {len(rows)} values of {what} are within their noise floor "
            f"(at most the upper end of the ACEs a perfectly calibrated estimator with the same "
            f"confidences shows in 95% of samples), so they are {WITHIN_FLOOR}: "
            + listed(
                within,
                lambda r: (
                    f"{_ace_text(r)}, floor {r['ace_floor']:.3f} (up to {r['ace_floor_high']:.3f})"
                ),
            )
            + "."
        )
    if above:
        one = len(above) == 1
        out.append(
            f"{'The other' if within else 'All'} {len(above)} value{'' if one else 's'} of "
            f"{what} exceed{'s' if one else ''} {'its' if one else 'their'} "
            f"floor; the debiased ACE (ACE minus floor, beyond the paper) with its 95% interval: "
            + listed(
                above,
                lambda r: (
                    f"{r['ace_debiased']:.3f} [{r['ace_debiased_low']:.3f}, "
                    f"{r['ace_debiased_high']:.3f}]"
                ),
            )
            + "."
        )
    return " ".join(out)


def _claim_clause(statement: str) -> str:
    """A claim's statement as a clause after "that": its first word lower-cased when it is an
    ordinary capitalised word ("Most models ..." -> "most models ..."), never a name or a
    symbol ("C_Base", "ACE", "ModernBERT")."""
    first = statement.split(" ", 1)[0]
    if first[:1].isupper() and first[1:].isalpha() and first[1:].islower():
        return statement[:1].lower() + statement[1:]
    return statement


def claim_sentences(ledger: pd.DataFrame) -> list[str]:
    """One sentence per claim of a ledger frame (:func:`calib.experiments.ledger.build_ledger`):
    :func:`calib.report.prose.agreement_sentence` with this build's verdict and its evidence
    (or, where there is none, the reason)."""
    require_columns(ledger, ("statement", "verdict", "evidence", "reason"), "ledger")
    return [
        agreement_sentence(
            _claim_clause(r["statement"]), r["verdict"], r["evidence"] or r["reason"]
        )
        for r in ledger.to_dict("records")
    ]


def gap_sentence(
    gaps: pd.DataFrame, label: Sequence[str] = ("model", "estimator"), limit: int = 12
) -> str:
    """Which rows of a signed-gap table (:func:`calib.confidence.gap.signed_gaps`: ``gap``,
    ``gap_low``, ``gap_high``, ``direction``) are overconfident, underconfident or undecided
    (the 95% interval of mean confidence minus accuracy above 0, below 0, or around it)."""
    require_columns(gaps, (*label, "gap", "gap_low", "gap_high", "direction"), "signed-gap table")
    out = []
    words = {
        "overconfident": "Overconfident (interval above 0)",
        "underconfident": "Underconfident (interval below 0)",
        "undecided": "Undecided (the interval includes 0)",
    }
    for direction, title in words.items():
        rows = gaps[gaps["direction"] == direction].to_dict("records")
        if not rows:
            continue
        named = "; ".join(
            f"{', '.join(str(r[c]) for c in label)} {r['gap']:+.3f} "
            f"[{r['gap_low']:+.3f}, {r['gap_high']:+.3f}]"
            for r in rows[:limit]
        )
        more = f"; and {len(rows) - limit} more" if len(rows) > limit else ""
        out.append(f"{title}: {named}{more}.")
    return " ".join(out)


# ---------------------------------------------------------------------------------------------
# answer_set


def trend_sentences(curve: pd.DataFrame) -> list[str]:
    """Sentences on how accuracy and mean Base confidence change from the smallest to the
    largest ``k`` per model, and whether the change is larger than the spread of the repeats
    (no claim is made where the repeats' ranges at the two ends overlap)."""
    spread = curve_spread(curve)
    lo_k, hi_k = spread["k"].min(), spread["k"].max()
    out = []
    for model, part in spread.groupby("model", sort=True):
        bits = []
        for metric in ("accuracy", "confidence", "ace"):
            p = part[part["metric"] == metric].set_index("k")
            if lo_k not in p.index or hi_k not in p.index:
                continue
            a, b = p.loc[lo_k], p.loc[hi_k]
            change = b["mean"] - a["mean"]
            apart = b["lower"] > a["upper"] or b["upper"] < a["lower"]
            direction = "rises" if change > 0 else "falls"
            if apart:
                bits.append(
                    f"{METRIC_TITLES[metric]} {direction} from {a['mean']:.3f} at k={lo_k} "
                    f"to {b['mean']:.3f} at k={hi_k}"
                )
            else:
                bits.append(
                    f"{METRIC_TITLES[metric]} goes from {a['mean']:.3f} to "
                    f"{b['mean']:.3f}, within the spread of the repeats"
                )
        if bits:
            out.append(f"{model}: " + "; ".join(bits) + ".")
    return out


def figure4_sentences(points: pd.DataFrame) -> list[str]:
    """Per model, the ACE and accuracy of each benchmark in
    :func:`calib.experiments.answer_set.figure4.figure4_points`, in words (a description of the
    plotted numbers, no claim beyond them)."""
    out = []
    for model, part in points.groupby("model", sort=True):
        bits = [
            f"ACE {r.ace:.3f} at accuracy {r.accuracy:.3f} on {r.benchmark}"
            for r in part.itertuples(index=False)
        ]
        out.append(f"{model}: " + "; ".join(bits) + ".")
    return out


# ---------------------------------------------------------------------------------------------
# the noise floor beside an ACE (issue 18; calib.confidence.noise_floor)


def floor_sentence(row: Mapping, subject: str, metric: str = "ace") -> str:
    """One sentence on an ACE (or another binned metric) beside its noise floor, from a row
    with the columns of :func:`calib.confidence.noise_floor.floor_record` (``ace``,
    ``ace_low``, ``ace_high``, ``ace_floor``, ``ace_floor_low``, ``ace_floor_high``,
    ``ace_within_floor``, ``ace_debiased`` and its bounds): within its floor it is
    :data:`WITHIN_FLOOR`; above it, the debiased value is given with its interval."""
    name = {"ace": "ACE", "ece": "ECE", "mce": "MCE", "rms": "RMS"}.get(metric, metric)

    def bounds(lo, hi):
        return (
            f" [{fmt(row[lo])}, {fmt(row[hi])}]"
            if pd.notna(row.get(lo)) and pd.notna(row.get(hi))
            else ""
        )

    value = f"{name} {fmt(row[metric])}" + bounds(f"{metric}_low", f"{metric}_high")
    floor = (
        f"its noise floor {fmt(row[f'{metric}_floor'])} (a perfectly calibrated "
        f"estimator with these confidences gives {fmt(row[f'{metric}_floor_low'])} to "
        f"{fmt(row[f'{metric}_floor_high'])} in 95% of samples)"
    )
    if bool(row[f"{metric}_within_floor"]):
        return f"{subject}: {value} is within {floor}: {WITHIN_FLOOR}."
    return (
        f"{subject}: {value} is above {floor}; debiased {name} "
        f"{fmt(row[f'{metric}_debiased'])}"
        + bounds(f"{metric}_debiased_low", f"{metric}_debiased_high")
        + "."
    )


def floor_sentences(frame: pd.DataFrame, subject: Sequence[str], metric: str = "ace") -> list[str]:
    """:func:`floor_sentence` for every row of ``frame``, its subject the values of the
    ``subject`` columns joined by ", " (e.g. ``["model", "label"]``)."""
    require_columns(
        frame,
        (*subject, metric, f"{metric}_floor", f"{metric}_within_floor"),
        "table with a noise floor",
    )
    return [
        floor_sentence(r, ", ".join(str(r[c]) for c in subject), metric)
        for r in frame.to_dict("records")
    ]


# ---------------------------------------------------------------------------------------------
# clm_vs_mlm


def model_kinds_note(kinds: Mapping[str, str]) -> str:
    """The causal and the masked models of a run (``kinds``: model -> ``clm``/``mlm``,
    :func:`calib.experiments.scores.objectives`), and why there is no pair when it has no
    masked model."""
    clms = [m for m, o in kinds.items() if o == "clm"]
    mlms = [m for m, o in kinds.items() if o == "mlm"]
    note = (
        f"Causal models: {', '.join(clms) or 'none'}. Masked models: {', '.join(mlms) or 'none'}."
    )
    if not mlms:
        note += (
            " **This build has no masked language model**: the offline machine that ran "
            "it has no real masked model (the paper's six come from the Hugging Face hub), "
            "so no pair can be formed and this page shows only the causal models' rows. "
            "Run with the `paper` profile, or `-p models` with masked model ids where the "
            "hub is reachable, to fill the masked side."
        )
    return note


def pairing_note(within: str, min_instances: int, max_gap: float | None) -> str:
    """``PAIRING_RULE`` with the scope and gap settings of this run, in words."""
    if within not in SCOPES:
        raise ValueError(f"unknown within {within!r}; expected one of {list(SCOPES)}")
    scope = (
        f"a BEAR domain with at least {min_instances} instances (the per-domain option)"
        if within == "domain"
        else "the whole probe (this build's BEAR sample)"
    )
    gap = "" if max_gap is None else f"; pairs with an accuracy gap above {max_gap} are left out"
    return f"{PAIRING_RULE} In this run the scope is {scope}{gap}."


def pair_sentences(differences: pd.DataFrame) -> list[str]:
    """One sentence per row of :func:`calib.experiments.clm_vs_mlm.differences.pair_differences`
    (:func:`~calib.report.prose.compare_sentence`)."""
    return [
        compare_sentence(
            f"{d['clm']} (causal)",
            f"{d['mlm']} (masked)",
            d,
            subject=f"{d['estimator']} on {d['scope']}",
        )
        for d in differences.to_dict("records")
    ]


def objective_sentence(differences: pd.DataFrame) -> str:
    """How many pairs show the causal model with a lower / higher Brier score than its masked
    partner (95% paired interval excluding 0), per estimator: generated from the numbers."""
    if differences.empty:
        return "No causal-masked pair was formed, so this run compares no objectives."
    parts = []
    for est, part in differences.groupby("estimator", sort=False):
        n = len(part)
        lower = int((part["high"] < 0).sum())
        higher = int((part["low"] > 0).sum())
        parts.append(
            f"for {est}, the causal model has the lower Brier score in {lower} of {n} "
            f"pair(s), the higher in {higher}, and the two cannot be told apart in "
            f"{n - lower - higher}"
        )
    return "In this run, " + "; ".join(parts) + " (95% paired bootstrap intervals)."


# ---------------------------------------------------------------------------------------------
# factor


def margin_sentences(differences: pd.DataFrame) -> list[str]:
    """One sentence per row of :func:`calib.experiments.factor.tables.margin_vs_base`."""
    return [
        compare_sentence("Margin", "Base", d, subject=f"{d['model']} on {d['dataset']}")
        for d in differences.to_dict("records")
    ]


def margin_claim(differences: pd.DataFrame, reported_base: float, reported_margin: float) -> str:
    """A sentence setting the mean ACE of Base and Margin that the paper's Appendix F states for
    Wiki-FACTOR beside this run's paired comparisons
    (:func:`calib.experiments.factor.tables.margin_vs_base`): it agrees only if Margin's ACE is
    lower with an interval below 0 in every model and subset, and disagrees as soon as it is higher
    with an interval above 0 in one (:func:`calib.experiments.quantifiers.every_verdict`); otherwise
    it cannot decide."""
    n = len(differences)
    lower = int((differences["high"] < 0).sum())
    higher = int((differences["low"] > 0).sum())
    evidence = (
        f"Margin's ACE minus Base's, 95% paired intervals: "
        f"{unit_tally(lower, higher, n, 'model-subset cell')}"
    )
    claim = (
        f"Margin has a lower mean ACE than Base over its causal models on Wiki-FACTOR "
        f"({reported_margin:.3f} vs {reported_base:.3f}, Appendix F) and improves on Base "
        f"for every model"
    )
    return (
        agreement_sentence(claim, every_verdict(lower, higher, n), evidence)
        + " This build's subsets and models differ from the paper's, so this compares "
        "tendencies, not values."
    )


# ---------------------------------------------------------------------------------------------
# start_tokens


def rule_sentences(differences: pd.DataFrame) -> list[str]:
    """One sentence per row of :func:`calib.experiments.start_tokens.rules.rule_differences`."""
    return [
        compare_sentence(RULES["lm-pub-quiz-0.3.3"], RULES["single"], d, subject=d["model"])
        for d in differences.to_dict("records")
    ]


# ---------------------------------------------------------------------------------------------
# reductions


def reduction_sentences(differences: pd.DataFrame) -> list[str]:
    """One sentence per row of :func:`calib.experiments.reductions.tables.objective_differences`
    (the mean over an objective's models of a metric of reduction ``a`` minus ``b``, with its
    paired interval), worded by :func:`~calib.report.prose.compare_sentence`: "higher" or
    "lower" only where the interval excludes 0."""
    return [
        compare_sentence(
            REDUCTION_LABELS.get(d["a"], d["a"]),
            REDUCTION_LABELS.get(d["b"], d["b"]),
            d,
            subject=f"the {d['objective'].upper()}s (mean over {d['n_models']} model(s))",
        )
        for d in differences.to_dict("records")
    ]


# ---------------------------------------------------------------------------------------------
# linguistic


def _signed(x: float) -> str:
    """``x`` with its sign, three decimals (two significant digits where that would show 0)."""
    return ("+" if x > 0 else "") + number_text(x)


def ace_change_sentences(changes: pd.DataFrame) -> list[str]:
    """One sentence per row of :func:`calib.experiments.linguistic.injections.ace_changes`: the
    change in ACE under the injected template (:func:`~calib.report.prose.compare_sentence`, "lower"
    or "higher" only where its interval excludes 0), then what the noise floors allow: both ACEs
    within their floors, or the change of the floors and the debiased change, saying when the change
    is no larger than the floors' change allows (the debiased interval includes 0)."""
    out = []
    for r in changes.to_dict("records"):
        diff = {"metric": "ace", "difference": r["delta"], "low": r["low"], "high": r["high"]}
        text = compare_sentence(
            f"'{r['template']}'", "the plain template", diff, subject=r["model"]
        )
        significant = r["low"] > 0 or r["high"] < 0
        if r["within_floors"]:
            text += (
                f" Both ACEs ({r['ace_plain']:.3f} plain, {r['ace_injected']:.3f} "
                f"injected) are within their noise floors ({r['ace_plain_floor']:.3f}, "
                f"{r['ace_injected_floor']:.3f}): neither is {WITHIN_FLOOR}, so "
                f"the change is within what the floors allow."
            )
        else:
            debiased_zero = r["delta_debiased_low"] <= 0 <= r["delta_debiased_high"]
            text += (
                f" The floors change by {_signed(r['floor_change'])}; beyond them the "
                f"change is {_signed(r['delta_debiased'])} "
                f"[{_signed(r['delta_debiased_low'])}, "
                f"{_signed(r['delta_debiased_high'])}]"
            )
            text += (
                ", which includes 0: the change is within what the floors allow."
                if significant and debiased_zero
                else "."
            )
        out.append(text)
    return out


def confidence_move_sentences(
    effects: pd.DataFrame, numeric: pd.DataFrame, markers: Sequence[str] = ("possibly", "certainly")
) -> list[str]:
    """One neutral sentence (:func:`~calib.report.prose.change_sentence`) per model on how each of
    ``markers`` moves mean Base-Confidence against the plain template (the ``confidence`` rows of
    :func:`calib.experiments.linguistic.injections.injection_effects`), and on numeric-100 against
    numeric-0 (:func:`calib.experiments.linguistic.injections.numeric_differences`)."""
    conf = effects[(effects["quantity"] == "confidence") & effects["template"].isin(markers)]
    out = [
        change_sentence(
            f"'{r['template']}'",
            "the plain template",
            {"difference": r["delta"], "low": r["low"], "high": r["high"]},
            "mean Base-Confidence",
            r["model"],
        )
        for r in conf.to_dict("records")
    ]
    out += [
        change_sentence(r["a"], r["b"], r, "mean Base-Confidence", r["model"])
        for r in numeric.to_dict("records")
    ]
    return out


# ---------------------------------------------------------------------------------------------
# lpaqa


def manual_comparison_sentences(paired: pd.DataFrame) -> list[str]:
    """One sentence per row of the LPAQA chapter's paired comparisons with the manual prompt
    (the rows of ``calib.experiments.lpaqa.LpaqaResult.comparisons`` against it)."""
    return [
        compare_sentence(d["a"], "the manual prompt", d, subject=d["model"])
        for d in paired.to_dict("records")
    ]


def option_change_sentences(
    changes: pd.DataFrame,
    names: Sequence[str] = ("ace_change", "confidence_change", "accuracy_change"),
) -> list[str]:
    """One sentence per model and change of
    :func:`calib.experiments.answer_set.changes.option_changes` (by default how ACE, mean confidence
    and accuracy of C_Base change from the fewest to the most options), worded from its paired
    interval (:func:`~calib.report.prose.change_sentence`); an ACE change adds the change of the
    debiased ACE."""
    from calib.report.prose import change_sentence, fmt

    quantity = {
        "ace": "ACE",
        "confidence": "mean confidence",
        "accuracy": "accuracy",
        "gap": "signed gap (confidence - accuracy)",
    }
    out = []
    for d in changes[changes["change"].isin(list(names))].to_dict("records"):
        text = change_sentence(
            f"k={d['a']}", f"k={d['b']}", d, quantity[d["metric"]], subject=d["model"]
        )
        if d["metric"] == "ace" and pd.notna(d.get("debiased")):
            text += (
                f" Debiased (ACE minus its noise floor, beyond the paper): "
                f"{fmt(d['debiased'])} [{fmt(d['debiased_low'])}, "
                f"{fmt(d['debiased_high'])}]."
            )
        out.append(text)
    return out


def figure4_floor_sentences(points: pd.DataFrame) -> list[str]:
    """Per model, the ACE and accuracy of each benchmark of
    :func:`calib.experiments.answer_set.figure4.figure4_points`, with their intervals, saying which
    ACE lies within its noise floor (a description of the plotted numbers)."""
    out = []
    for model, part in points.groupby("model", sort=False):
        bits = []
        for r in part.to_dict("records"):
            floor = (
                f" (ACE within its noise floor: {WITHIN_FLOOR})" if r["ace_within_floor"] else ""
            )
            bits.append(
                f"ACE {r['ace']:.3f} [{r['ace_low']:.3f}, {r['ace_high']:.3f}] at "
                f"accuracy {r['accuracy']:.3f} on {r['benchmark']}{floor}"
            )
        out.append(f"{model}: " + "; ".join(bits) + ".")
    return out


def authors_change_sentence(authors: pd.DataFrame) -> str:
    """How ACE changes from the fewest to the most options in the authors' repository's data
    (:func:`calib.experiments.answer_set.changes.authors_changes`), per group of models: how many
    fall and how many rise (values without intervals)."""
    require_columns(authors, ("group", "ace_5_to_60", "ace_20_to_60"), "the authors' changes")
    bits = []
    for group, part in authors.groupby("group", sort=False):
        down = int((part["ace_5_to_60"] < 0).sum())
        stable = float(part["ace_20_to_60"].abs().max())
        bits.append(
            f"for {down} of {len(part)} models ({group}) ACE falls from 5 to 60 options "
            f"(it rises for {len(part) - down}), and it changes by at most "
            f"{stable:.3f} from 20 to 60"
        )
    return (
        "In the authors' repository's data (the earlier version's models, means of three "
        "draws, no intervals), " + "; ".join(bits) + "."
    )
