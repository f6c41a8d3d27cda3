"""The ledger of the papers' claims: where each is made, the paper's own evidence, and this
build's verdict computed from this build's numbers.

Each claim (:data:`CLAIMS`, read from ``claims.yaml`` beside this module) is a sentence the paper states about its results, with the
section and a verbatim quote (``tests/experiments/test_ledger.py`` checks the quotes against the
papers' text). Its verdict in this build is one of :data:`VERDICTS`, decided by a rule applied
to the same numbers the chapters show, computed by the chapters' own functions from the same
stored scores (:func:`build_ledger` takes each chapter's parameters, see
:func:`calib.book.profile_parameters`):

* **holds** / **does not hold** -- the intervals decide it (95% paired bootstrap intervals
  that exclude 0; for a claim about every model, every model must agree for "holds" and one
  model against it is enough for "does not hold");
* **undecided** -- the intervals include 0, or the models disagree without one against it;
* **not testable** -- this build lacks the models or data the claim needs (``needs`` says
  which would test it).

The paper's own evidence comes from :func:`calib.experiments.paper_tables.claim_evidence`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from calib.confidence.bootstrap import paired_estimates_difference
from calib.confidence.reductions import sentence_scores
from calib.experiments import answer_set as ax
from calib.experiments import calibration as cx
from calib.experiments import clm_vs_mlm as cm
from calib.experiments import factor as fx
from calib.experiments import linguistic as lx
from calib.experiments import lpaqa as lp
from calib.experiments import reductions as rx
from calib.experiments.paper_tables import claim_evidence, text_value
from calib.experiments.scores import objectives
from calib.experiments.verdicts import (FAILS, HOLDS, UNDECIDED, UNTESTABLE, VERDICTS,
                                        universal_verdict)
from calib.models.registry import get_spec, size_in_millions
from calib.scoring.run import score_bear
from calib.scoring.schema import FACT

#: the chapters whose parameters :func:`build_ledger` needs
CHAPTERS: tuple[str, ...] = ("calibration", "linguistic", "answer_set", "clm_vs_mlm", "lpaqa",
                             "reductions", "factor")
#: the numeric templates that weaken a statement (§6: "I'm 0% confident ...")
NUMERIC_WEAKENERS: tuple[str, ...] = ("numeric-0", "numeric-25")
#: at most this many per-model numbers are written into an evidence phrase
MAX_DETAILS = 6
#: the claims, one entry per claim with :class:`Claim`'s fields
CLAIMS_FILE = Path(__file__).with_name("claims.yaml")


@dataclass(frozen=True)
class Claim:
    """A claim a paper makes about its results."""

    key: str
    paper: str  # "kissling2026" or "jiang2020"
    section: str
    claim: str  # the claim in one sentence
    quote: str  # the paper's words (verbatim)
    chapter: str  # the chapter that shows it
    needs: str  # what would test it where this build cannot


def load_claims(path: Path = CLAIMS_FILE) -> tuple[Claim, ...]:
    """The claims of ``path`` (:file:`claims.yaml` beside this module), in its order; an entry
    without one of :class:`Claim`'s fields is an error naming the file and the entry."""
    with open(path, encoding="utf-8") as fh:
        entries = yaml.safe_load(fh)
    fields = [f.name for f in dataclasses.fields(Claim)]
    out = []
    for i, entry in enumerate(entries):
        missing = [f for f in fields if not isinstance(entry.get(f), str)]
        if missing:
            raise ValueError(f"{path}, entry {i + 1}: field(s) {missing} missing or not text; "
                             f"expected {fields}")
        entry = {f: entry[f] for f in fields}
        entry["needs"] = entry["needs"].format(min_models=cx.MIN_MODELS_FOR_CORRELATION)
        out.append(Claim(**entry))
    return tuple(out)


CLAIMS: tuple[Claim, ...] = load_claims()
CLAIM_KEYS: tuple[str, ...] = tuple(c.key for c in CLAIMS)


def _interval(row: Mapping) -> str:
    """``difference [low, high]`` with three decimals (as :func:`calib.report.prose.fmt`; the
    ledger's evidence is text, but an experiment does not import from the report stage)."""
    return f"{row['difference']:.3f} [{row['low']:.3f}, {row['high']:.3f}]"


def _details(rows: pd.DataFrame, label) -> str:
    """`` (a: d [lo, hi]; ...)`` for at most :data:`MAX_DETAILS` rows."""
    if len(rows) > MAX_DETAILS or rows.empty:
        return ""
    return " (" + "; ".join(f"{label(r)}: {_interval(r)}" for r in rows.to_dict("records")) \
        + ")"


def _paired_verdict(diffs: pd.DataFrame, what: str, unit: str, label,
                    expected: str = "lower", method: str = "paired bootstrap") -> dict:
    """Verdict and evidence for "``a`` is ``expected`` than ``b`` for every unit" from paired
    differences (columns ``difference``, ``low``, ``high``)."""
    lower, higher = int((diffs["high"] < 0).sum()), int((diffs["low"] > 0).sum())
    agree, against = (lower, higher) if expected == "lower" else (higher, lower)
    n = len(diffs)
    evidence = (f"{what}, {method}, 95% intervals: as claimed for {agree}, against it "
                f"for {against}, undecided for {n - agree - against} of {n} {unit}(s)"
                + _details(diffs, label))
    return {"verdict": universal_verdict(agree, against, n), "evidence": evidence}


def _untestable(reason: str) -> dict:
    return {"verdict": UNTESTABLE, "evidence": reason}


# ---------------------------------------------------------------------------------------------
# verdicts, one function per claim (pure: computed frames in, a verdict and its evidence out)


def margin_bear(comparisons: pd.DataFrame) -> dict:
    """``margin_bear`` from :func:`calib.experiments.calibration.estimator_comparisons`."""
    diffs = comparisons[(comparisons["a"] == "Margin") & (comparisons["b"] == "Base")]
    return _paired_verdict(diffs, "ACE(Margin) - ACE(Base) on BEAR", "model",
                           lambda r: r["model"])


def average_best(checks: pd.DataFrame) -> dict:
    """``average_best`` from :func:`calib.experiments.calibration.claim_checks` (per model:
    C_Average's ACE below every other estimator's, or beaten by one)."""
    part = checks[checks["claim"] == "average"]
    agree = int((part["holds"] == True).sum())  # noqa: E712 (object column of True/False/None)
    against = part[part["holds"] == False]  # noqa: E712
    n = len(part)
    return {"verdict": universal_verdict(agree, len(against), n),
            "evidence": (f"ACE of C_Average minus each other estimator's on BEAR, paired "
                         f"bootstrap, 95% intervals: lowest for {agree}, beaten by another "
                         f"estimator for {len(against)}, undecided for "
                         f"{n - agree - len(against)} of {n} model(s)"
                         + (" (" + "; ".join(f"{r.model}: {r.detail}" for r in
                                             against.itertuples()) + ")"
                            if 0 < len(against) <= MAX_DETAILS else ""))}


def family_pairs(models: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(family, smaller, larger)`` for every family of the registry with two or more sizes
    among ``models``: its smallest and its largest model."""
    by_family: dict[str, list[tuple[float, str]]] = {}
    for m in models:
        spec = get_spec(m)
        size = size_in_millions(spec.size) if spec else None
        if spec is None or size is None or not spec.family:
            continue
        by_family.setdefault(spec.family, []).append((size, m))
    out = []
    for family, sized in sorted(by_family.items()):
        sized.sort()
        if len(sized) >= 2 and sized[0][0] < sized[-1][0]:
            out.append((family, sized[0][1], sized[-1][1]))
    return out


def larger_better(est: pd.DataFrame, estimators: Sequence[str], n_bootstrap: int,
                  seed: int) -> dict:
    """``larger_better``: per family with two sizes, ACE(largest) - ACE(smallest) on the same
    BEAR instances, for each of ``estimators``."""
    pairs = family_pairs(list(dict.fromkeys(est["model"])))
    if not pairs:
        return _untestable("no model family has two sizes among this build's models")
    rows = []
    for family, small, large in pairs:
        for e in estimators:
            part = est[est["estimator"] == e]
            d = paired_estimates_difference(part[part["model"] == large],
                                            part[part["model"] == small], "ace",
                                            n_boot=n_bootstrap, seed=seed, keys=FACT)
            rows.append({"family": family, "small": small, "large": large, "estimator": e,
                         **d})
    return _paired_verdict(pd.DataFrame(rows), "ACE(largest) - ACE(smallest) per family and "
                           "estimator", "family-estimator pair",
                           lambda r: f"{r['large']} vs {r['small']}, {r['estimator']}")


def _curve_ends(curve: pd.DataFrame, k_from: int, k_to: int, models: Sequence[str],
                metric: str = "ace") -> pd.DataFrame:
    """Per model: the mean and range over the draws of ``metric`` at ``k_from`` and ``k_to``
    (:func:`calib.experiments.answer_set.curve_spread`), and the direction of the change
    (``lower``/``higher`` when the ranges do not overlap, else ``undecided``)."""
    spread = ax.curve_spread(curve)
    spread = spread[(spread["metric"] == metric) & spread["model"].isin(list(models))]
    a = spread[spread["k"] == k_from].set_index("model")
    b = spread[spread["k"] == k_to].set_index("model")
    both = [m for m in models if m in a.index and m in b.index]
    rows = []
    for m in both:
        lower, higher = b.at[m, "upper"] < a.at[m, "lower"], b.at[m, "lower"] > a.at[m, "upper"]
        rows.append({"model": m, "from": a.at[m, "mean"], "to": b.at[m, "mean"],
                     "direction": "lower" if lower else "higher" if higher else "undecided"})
    return pd.DataFrame(rows, columns=["model", "from", "to", "direction"])


def _curve_phrase(ends: pd.DataFrame) -> str:
    if len(ends) > MAX_DETAILS:
        return ""
    return " (" + "; ".join(f"{r['model']}: {r['from']:.3f} -> {r['to']:.3f}, {r['direction']}"
                            for r in ends.to_dict("records")) + ")"


def more_options(curve: pd.DataFrame, kinds: Mapping[str, str]) -> dict:
    """``more_options``: for the causal models under 1B, ACE at the smallest against the
    largest ``k`` of the curve (ranges over the seeded draws of the options)."""
    limit = text_value("small_clm_size")
    small = [m for m, o in kinds.items() if o == "clm" and get_spec(m) is not None
             and (size_in_millions(get_spec(m).size) or np.inf) < limit]
    if not small:
        return _untestable("no causal model under 1B parameters in this build")
    ks = sorted(curve["k"].unique())
    ends = _curve_ends(curve, ks[0], ks[-1], small)
    agree = int((ends["direction"] == "lower").sum())
    against = int((ends["direction"] == "higher").sum())
    return {"verdict": universal_verdict(agree, against, len(ends)),
            "evidence": (f"ACE (C_Base) on BEAR's 1:1 relations at k={ks[0]} and k={ks[-1]} "
                         f"options, mean over {curve['repeat'].nunique()} draws; a change "
                         f"counts where the ranges of the draws do not overlap: lower for "
                         f"{agree}, higher for {against}, undecided for "
                         f"{len(ends) - agree - against} of {len(ends)} causal model(s) under "
                         f"1B" + _curve_phrase(ends))}


def ace_stabilises(curve: pd.DataFrame) -> dict:
    """``ace_stabilises``: no model's ACE falls from k = 20 to the largest ``k`` by more than
    the spread of the draws (a fall is "a further gain" against the claim)."""
    k20 = int(text_value("ace_stable_to"))
    ks = sorted(curve["k"].unique())
    if k20 not in ks or ks[-1] <= k20:
        return _untestable(f"the curve has no k = {k20} and a larger k (ks = {ks})")
    models = list(dict.fromkeys(curve["model"]))
    ends = _curve_ends(curve, k20, ks[-1], models)
    fell = int((ends["direction"] == "lower").sum())
    verdict = FAILS if fell else HOLDS
    return {"verdict": verdict,
            "evidence": (f"ACE (C_Base) at k={k20} and k={ks[-1]}: it falls beyond the spread "
                         f"of the draws for {fell} of {len(ends)} model(s), rises for "
                         f"{int((ends['direction'] == 'higher').sum())}"
                         + _curve_phrase(ends))}


def clm_better(diffs: pd.DataFrame, kinds: Mapping[str, str]) -> dict:
    """``clm_better`` from :func:`calib.experiments.clm_vs_mlm.pair_differences` (Brier of
    the CLM minus the MLM's, per pair and estimator)."""
    if not {"clm", "mlm"} <= set(kinds.values()):
        have = "no masked" if "mlm" not in kinds.values() else "no causal"
        return _untestable(f"this build has {have} model, so no pair can be formed")
    if diffs.empty:
        return _untestable("no causal-masked pair was formed under the chapter's pairing rule")
    return _paired_verdict(diffs, "Brier(CLM) - Brier(MLM) within each pair", "pair-estimator",
                           lambda r: f"{r['clm']} vs {r['mlm']}, {r['estimator']}")


def possibly_vs_numeric(effects: pd.DataFrame,
                        weakeners: Sequence[str] = NUMERIC_WEAKENERS) -> dict:
    """``possibly_vs_numeric``: the share of models whose ACE 'possibly' lowers (interval
    below 0) against the share of (model, numeric weakener) cells whose ACE it lowers."""
    ace = effects[effects["quantity"] == "ace"]
    pos = ace[ace["template"] == "possibly"]
    num = ace[ace["template"].isin(list(weakeners))]
    if pos.empty or num.empty:
        return _untestable("the build lacks the 'possibly' or the numeric templates")
    p, q = float((pos["high"] < 0).mean()), float((num["high"] < 0).mean())
    verdict = HOLDS if p > q else FAILS if p < q else UNDECIDED
    return {"verdict": verdict,
            "evidence": (f"ACE(injected) - ACE(plain), paired bootstrap, 95% intervals: "
                         f"'possibly' lowers ACE for {int((pos['high'] < 0).sum())} of "
                         f"{len(pos)} model(s) ({p:.0%}); {', '.join(weakeners)} lower it in "
                         f"{int((num['high'] < 0).sum())} of {len(num)} model-template cells "
                         f"({q:.0%})")}


def injections_accuracy(effects: pd.DataFrame) -> dict:
    """``injections_accuracy``: holds when at least half of the (model, injection) cells
    lower accuracy (interval below 0) and none raises it; does not hold when more cells raise
    it than lower it; undecided otherwise."""
    acc = effects[effects["quantity"] == "accuracy"]
    if acc.empty:
        return _untestable("no injected template was scored")
    lower, higher = int((acc["high"] < 0).sum()), int((acc["low"] > 0).sum())
    n = len(acc)
    verdict = HOLDS if lower * 2 >= n and not higher else FAILS if higher > lower else UNDECIDED
    worst = acc.loc[acc["delta"].idxmin()]
    return {"verdict": verdict,
            "evidence": (f"accuracy(injected) - accuracy(plain), paired bootstrap, 95% "
                         f"intervals: lower in {lower}, higher in {higher}, undecided in "
                         f"{n - lower - higher} of {n} model-template cells; the largest drop "
                         f"{100 * worst['delta']:+.1f} pp ({worst['model']}, "
                         f"{worst['template']})")}


def sum_reduction(best: pd.DataFrame) -> dict:
    """``sum_reduction`` from :func:`calib.experiments.reductions.best_reductions`: holds when
    ``sum`` has the highest mean H for every objective of the build. H is a mean of point
    values, without an interval."""
    if best.empty:
        return _untestable("no model was scored")
    right = best[best["best"] == "sum"]
    bits = "; ".join(f"{r.objective.upper()}s ({r.n_models}): best {r.best} H "
                     f"{r.H_best:.3f}, sum {r.H_sum:.3f}" for r in best.itertuples())
    return {"verdict": HOLDS if len(right) == len(best) else FAILS,
            "evidence": f"mean H per objective (point values, no interval): {bits}"}


def ace_accuracy(corr: pd.DataFrame) -> dict:
    """``ace_accuracy`` from :func:`calib.experiments.calibration.ace_accuracy_correlation`:
    every estimator's correlation must have an interval below 0 for "holds"; one above 0 is
    enough for "does not hold"."""
    done = corr[corr["n_used"] > 0]
    if done.empty:
        return _untestable(corr["note"].iloc[0] if len(corr) else "no correlation computed")
    return _paired_verdict(done.rename(columns={"r": "difference"}),
                           "Pearson correlation of ACE with accuracy across models", "estimator",
                           lambda r: f"{r['estimator']}, r over {r['n']} models",
                           method="bootstrap over models")


def lpaqa_comparison(hits: pd.DataFrame, pairs: Sequence[tuple[str, str]], n_bootstrap: int,
                     seed: int, what: str) -> dict:
    """An LPAQA claim "``a`` beats ``b``" per model and pair of methods, from the paired
    bootstrap of accuracy on the same test facts
    (:func:`calib.experiments.lpaqa.paired_accuracy`, prompt set All)."""
    present = set(hits["method"])
    pairs = [(a, b) for a, b in pairs if a in present and b in present]
    if not pairs:
        return _untestable("the methods compared were not run")
    diffs = pd.concat([lp.paired_accuracy(hits, a, b, n_boot=n_bootstrap, seed=seed)
                       for a, b in pairs], ignore_index=True)
    return _paired_verdict(diffs, what, "model-comparison",
                           lambda r: f"{r['model']}, {r['a']} vs {r['b']}", expected="higher")


# ---------------------------------------------------------------------------------------------
# the whole ledger from the chapters' parameters (scores from the cache)


def _bear(p: Mapping, templates) -> pd.DataFrame:
    return score_bear(p["models"], templates, p["per_relation"], p["seed"], p["relations"],
                      progress=False)


def calibration_verdicts(p: Mapping) -> dict[str, dict]:
    """``margin_bear``, ``average_best``, ``larger_better``, ``ace_accuracy`` with the
    calibration chapter's parameters ``p``."""
    agg = p["aggregations"][0]
    est = cx.estimates(_bear(p, "paraphrases"), reduction=p["reduction"],
                       aggregations=[agg])
    pairs = [pr for prs in cx.claim_pairs(agg).values() for pr in prs]
    comparisons = cx.estimator_comparisons(est, pairs, n_bootstrap=p["n_bootstrap"],
                                           seed=p["seed"])
    table = cx.calibration_table(est, n_bootstrap=0)
    corr = cx.ace_accuracy_correlation(table, estimators=["Margin", f"Average/{agg}"],
                                       n_bootstrap=p["n_bootstrap"], seed=p["seed"])
    return {"margin_bear": margin_bear(comparisons),
            "average_best": average_best(cx.claim_checks(comparisons, agg)),
            "larger_better": larger_better(est, ["Base", "Margin", f"Average/{agg}"],
                                           p["n_bootstrap"], p["seed"]),
            "ace_accuracy": ace_accuracy(corr)}


def factor_verdicts(p: Mapping) -> dict[str, dict]:
    """``margin_factor`` with the FACTOR chapter's parameters (its causal models only)."""
    clms = [m for m, o in objectives(p["models"]).items() if o == "clm"]
    if not clms:
        return {"margin_factor": _untestable("no causal model in this build")}
    run = fx.run_factor(clms, p["factor_subsets"], p["factor_items"], p["seed"],
                        p["factor_max_tokens"], p["factor_completion_words"], n_boot=0,
                        progress=False)
    diffs = fx.margin_vs_base(run.estimates, "ace", n_boot=p["n_bootstrap"], seed=p["seed"])
    return {"margin_factor": _paired_verdict(diffs, "ACE(Margin) - ACE(Base) on FACTOR",
                                             "model-subset",
                                             lambda r: f"{r['model']}, {r['subset']}")}


def answer_set_verdicts(p: Mapping) -> dict[str, dict]:
    """``more_options`` and ``ace_stabilises`` with the answer-set chapter's parameters."""
    scores = ax.answer_set_scores(p["models"], p["relations"], p["per_relation"], p["seed"],
                                  progress=False)
    curve = ax.subsample_curve(sentence_scores(scores), p["ks"], p["repeats"], p["seed"])
    return {"more_options": more_options(curve, objectives(p["models"])),
            "ace_stabilises": ace_stabilises(curve)}


def clm_vs_mlm_verdicts(p: Mapping) -> dict[str, dict]:
    """``clm_better`` with the CLM-vs-MLM chapter's parameters (its pairing rule)."""
    kinds = objectives(p["models"])
    sent = sentence_scores(_bear(p, "paraphrase-0..4"))
    est = cm.clm_mlm_estimates(sent)
    domains = cm.relation_domains(p["relations"])
    acc = cm.template_accuracy(sent, kinds, domains, p["pair_within"])
    pairs = cm.pair_models(acc, max_gap=p["max_gap"], min_instances=p["min_instances"])
    diffs = (cm.pair_differences(est, pairs, domains, p["pair_within"], p["n_bootstrap"],
                                 p["seed"]) if len(pairs) else pd.DataFrame())
    return {"clm_better": clm_better(diffs, kinds)}


def linguistic_verdicts(p: Mapping) -> dict[str, dict]:
    """``possibly_vs_numeric`` and ``injections_accuracy`` with the linguistic chapter's
    parameters."""
    est = lx.linguistic_estimates(_bear(p, "paraphrase-0,linguistic"), reduction=p["reduction"])
    effects = lx.injection_effects(est, n_bootstrap=p["n_bootstrap"], seed=p["seed"])
    return {"possibly_vs_numeric": possibly_vs_numeric(effects),
            "injections_accuracy": injections_accuracy(effects)}


def reductions_verdicts(p: Mapping) -> dict[str, dict]:
    """``sum_reduction`` with the reductions chapter's parameters."""
    table = rx.reduction_table(_bear(p, "paraphrase-0"), objectives(p["models"]),
                               n_bootstrap=0, seed=p["seed"])
    return {"sum_reduction": sum_reduction(rx.best_reductions(rx.objective_means(table)))}


def lpaqa_verdicts(p: Mapping) -> dict[str, dict]:
    """The three LPAQA claims with the LPAQA chapter's parameters (prompt set All)."""
    hits = lp.run_lpaqa(**p, beyond_paper=False).selection.hits
    n, seed = p["n_bootstrap"], p["seed"]
    ks = [f"top-{k}" for k in sorted(p["ensemble_k"])]
    return {
        "lpaqa_beats_manual": lpaqa_comparison(hits, [("top-1", "manual")], n, seed,
                                               "accuracy(top-1) - accuracy(manual prompt)"),
        "lpaqa_ensembles": lpaqa_comparison(hits, [(k, "top-1") for k in [*ks, "optimized"]],
                                            n, seed, "accuracy(ensemble) - accuracy(top-1)"),
        "lpaqa_optimised": lpaqa_comparison(hits, [("optimized", k) for k in ks], n, seed,
                                            "accuracy(optimized) - accuracy(top-K)"),
    }


#: which chapter's parameters compute which verdicts
RUNNERS = {"calibration": calibration_verdicts, "factor": factor_verdicts,
           "answer_set": answer_set_verdicts, "clm_vs_mlm": clm_vs_mlm_verdicts,
           "linguistic": linguistic_verdicts, "reductions": reductions_verdicts,
           "lpaqa": lpaqa_verdicts}


def build_ledger(params: Mapping[str, Mapping]) -> pd.DataFrame:
    """The ledger: one row per claim of :data:`CLAIMS`, with ``key``, ``paper``, ``section``,
    ``claim``, ``quote``, ``chapter``, ``paper_evidence`` (what the paper's own tables show),
    ``verdict`` (one of :data:`VERDICTS`), ``evidence`` (this build's numbers) and ``needs``
    (what would test it, for "not testable").

    ``params``: each chapter's parameters, by chapter name (:data:`CHAPTERS`; e.g. from
    :func:`calib.book.profile_parameters`). The verdicts reuse the chapters' functions and
    stored scores; a chapter missing from ``params`` leaves its claims "not testable"."""
    results: dict[str, dict] = {}
    for chapter, run in RUNNERS.items():
        if chapter in params:
            results.update(run(params[chapter]))
    rows = []
    for c in CLAIMS:
        got = results.get(c.key) or _untestable(f"the {c.chapter} chapter's parameters were "
                                                f"not given")
        rows.append({"key": c.key, "paper": c.paper, "section": c.section, "claim": c.claim,
                     "quote": c.quote, "chapter": c.chapter,
                     "paper_evidence": claim_evidence(c.key), "verdict": got["verdict"],
                     "evidence": got["evidence"],
                     "needs": c.needs if got["verdict"] == UNTESTABLE else ""})
    return pd.DataFrame(rows)


def verdict_counts(ledger: pd.DataFrame) -> dict[str, int]:
    """How many claims got each verdict, in :data:`VERDICTS` order."""
    return {v: int((ledger["verdict"] == v).sum()) for v in VERDICTS}
