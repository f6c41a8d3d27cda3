"""The number of answer options (paper §5.2, Figures 3 and 4).

BEAR's 1:1 relations have 60 options per instance. Cutting the answer space to ``k`` options
(the correct one always kept, the others drawn at random:
:func:`calib.confidence.subsample_options`) from the *stored* scores, with no rescoring, shows
how Base confidence, accuracy and ACE move with the size of the answer space (Figure 3). At
``k = 5`` BEAR's 1:1 relations are set beside FACTOR's four options for the same models
(Figure 4, with :mod:`calib.experiments.factor`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd

from calib.confidence import base, margin, subsample_repeats, summary
from calib.confidence.probabilities import template_predictions
from calib.data.bear import PLAIN, load_bear
from calib.experiments.claims import Claim
from calib.experiments.quantifiers import Evidence, every, printed
from calib.experiments.paper_tables import answer_space_ace
from calib.scoring.run import score_bear

#: the size of a 1:1 relation's answer space in BEAR
ONE_TO_ONE_OPTIONS = 60
#: the paper's grid of answer-space sizes
K_GRID: tuple[int, ...] = tuple(range(5, 61, 5))
#: the metrics of Figure 3, as they are named in :func:`subsample_curve`
CURVE_METRICS: tuple[str, ...] = ("confidence", "accuracy", "ace", "ace_margin")


def one_to_one_relations(relations: Iterable[str] | None = None, *, data_dir=None,
                         n_options: int = ONE_TO_ONE_OPTIONS) -> list[str]:
    """BEAR's 1:1 relations (answer spaces of ``n_options`` = 60) among ``relations``
    (``None``: all of BEAR), sorted."""
    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    return sorted(r for r, rel in bear.relations.items() if rel.n_options == n_options)


def answer_set_scores(models: Sequence[str], relations: Iterable[str] | None = None,
                      per_relation: int | None = None, seed: int = 0, *,
                      template: str = PLAIN, data_dir=None, cache_dir=None,
                      device: str | None = "auto", progress: bool = True) -> pd.DataFrame:
    """The score table of ``models`` on the 1:1 relations among ``relations`` under the plain
    ``template``: the same seeded BEAR sample as every BEAR chapter, so the scores come from
    the cache when another chapter scored them. ``ValueError`` when no 1:1 relation is left."""
    chosen = one_to_one_relations(relations, data_dir=data_dir)
    if not chosen:
        raise ValueError(f"none of the relations {list(relations or [])} is a 1:1 relation with "
                         f"{ONE_TO_ONE_OPTIONS} options; Figure 3 needs at least one")
    return score_bear(models, [template], per_relation, seed, chosen, data_dir=data_dir,
                      cache_dir=cache_dir, device=device, progress=progress)


def _curve_point(sent: pd.DataFrame, template: str) -> pd.DataFrame:
    """Per model: instances, mean Base confidence, accuracy, ACE of Base and of Margin."""
    per = template_predictions(sent)
    b, m = base(per, template), margin(per, template)
    table = summary(b, by=["model"], n_boot=0, metrics=("accuracy", "ace"))
    table["confidence"] = b.groupby("model", sort=True)["confidence"].mean().to_numpy()
    table["ace_margin"] = summary(m, by=["model"], n_boot=0, metrics=("ace",))["ace"].to_numpy()
    return table[["model", "n", *CURVE_METRICS]]


def subsample_curve(sent: pd.DataFrame, ks: Sequence[int] = K_GRID, repeats: int = 3,
                    seed: int = 0, template: str = PLAIN) -> pd.DataFrame:
    """Figure 3's data: for each ``k`` in ``ks`` and each of ``repeats`` seeded draws, the
    answer space of every instance is cut to ``k`` options (correct one kept; §5.2) and the
    softmax recomputed. Long format, one row per model, ``k``, ``repeat`` and ``metric``
    (:data:`CURVE_METRICS`) with its ``value`` and the number of instances ``n``.

    A ``k`` at least as large as an instance's answer space keeps it whole (every repeat is
    then the same). The draws are shared by all models (the same options for every model).
    """
    ks = sorted({int(k) for k in ks})
    if not ks or ks[0] < 2:
        raise ValueError(f"ks must be answer-space sizes >= 2, got {ks}")
    parts = []
    for k in ks:
        for r, sub in subsample_repeats(sent, k, repeats=repeats, seed=seed, too_small="keep"):
            point = _curve_point(sub, template)
            point.insert(1, "k", k)
            point.insert(2, "repeat", r)
            parts.append(point)
    wide = pd.concat(parts, ignore_index=True)
    return wide.melt(id_vars=["model", "k", "repeat", "n"], value_vars=list(CURVE_METRICS),
                     var_name="metric", value_name="value")


def curve_spread(curve: pd.DataFrame) -> pd.DataFrame:
    """Per model, metric and ``k``: the mean over repeats and its spread (``lower`` = minimum,
    ``upper`` = maximum), one row per point of Figure 3."""
    grouped = curve.groupby(["model", "metric", "k"], sort=True)["value"]
    return grouped.agg(mean="mean", lower="min", upper="max", repeats="count").reset_index()


def curve_table(curve: pd.DataFrame, ks: Sequence[int] = (5, 30, 60)) -> pd.DataFrame:
    """A compact table of Figure 3: per model and metric, the mean over repeats at a few
    ``ks`` (those present) as columns ``k=5``, ``k=30``, ...; the change from the smallest
    to the largest shown ``k`` in ``change``."""
    spread = curve_spread(curve)
    shown = [k for k in ks if k in set(spread["k"])]
    if not shown:
        raise ValueError(f"none of ks={list(ks)} is in the curve (k = "
                         f"{sorted(spread['k'].unique())})")
    wide = (spread[spread["k"].isin(shown)]
            .pivot_table(index=["model", "metric"], columns="k", values="mean", sort=True))
    wide.columns = [f"k={k}" for k in wide.columns]
    wide["change"] = wide[f"k={shown[-1]}"] - wide[f"k={shown[0]}"]
    out = wide.reset_index()
    out["metric"] = pd.Categorical(out["metric"], categories=list(CURVE_METRICS), ordered=True)
    return out.sort_values(["model", "metric"]).reset_index(drop=True).assign(
        metric=lambda f: f["metric"].astype(str))


def reported_curve(reported: pd.DataFrame) -> pd.DataFrame:
    """The authors' subsampling data (``kissling2026_repo_answer_space_subsampling``) in the
    long format of :func:`subsample_curve` (``repeat`` 0, ``n`` missing)."""
    frame = reported.rename(columns={"sample_size": "k", "avg_conf": "confidence"})
    frame = frame.assign(repeat=0, n=pd.NA, k=frame["k"].astype(int))
    return frame.melt(id_vars=["model", "k", "repeat", "n"], value_vars=list(CURVE_METRICS),
                      var_name="metric", value_name="value")


def bear_vs_factor(curve: pd.DataFrame, factor_table: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """Figure 4's points: per model, ACE (Base) and accuracy on BEAR's 1:1 relations cut to
    ``k`` options (mean over the repeats) and on each FACTOR subset (four options; rows of
    :func:`calib.experiments.factor.table4`). Columns ``model, benchmark, options,
    accuracy, ace``; only models present in both."""
    spread = curve_spread(curve)
    at_k = spread[spread["k"] == k]
    if at_k.empty:
        raise ValueError(f"the curve has no k={k}; it has {sorted(spread['k'].unique())}")
    bear = (at_k.pivot_table(index="model", columns="metric", values="mean")
            .reset_index()[["model", "accuracy", "ace"]])
    bear.insert(1, "benchmark", f"BEAR 1:1 ({k} options)")
    bear.insert(2, "options", k)
    fac = factor_table[["model", "subset", "accuracy", "ace_base"]].rename(
        columns={"ace_base": "ace"})
    fac = fac.assign(benchmark="FACTOR " + fac["subset"] + " (4 options)", options=4)
    both = sorted(set(bear["model"]) & set(fac["model"]))
    out = pd.concat([bear, fac[["model", "benchmark", "options", "accuracy", "ace"]]],
                    ignore_index=True)
    return out[out["model"].isin(both)].reset_index(drop=True)


def reported_bear_points(reported: pd.DataFrame, k: int = 5, objective: str = "clm"
                         ) -> pd.DataFrame:
    """The BEAR side of the paper's Figure 4 from the authors' subsampling data: ACE and
    accuracy at ``k`` options of the models with ``objective`` (the figure shows the causal
    models), with a ``benchmark`` column."""
    from calib.models.registry import get_spec

    kind = reported["registry_name"].map(lambda m: getattr(get_spec(m), "objective", None))
    out = reported[(reported["sample_size"] == k) & (kind == objective)]
    return out[["model", "accuracy", "ace"]].assign(benchmark=f"BEAR ({k} options)")


# ---------------------------------------------------------------------------------------------
# the claims this chapter tests (calib.experiments.claims): rules over evidence frames and the
# paper's evidence. The chapter does not record its result yet, so build_evidence is None ("not
# run in this build") until it is converted to a chapter unit (issue 17; the reductions chapter
# is the worked example).


def more_options_lower_ace(evidence: Evidence):
    """``more_options``: ACE (C_Base) at the largest number of options minus ACE at the
    smallest below 0, for every causal model under 1B parameters."""
    return every(evidence, "<", 0.0, what="ACE(most options) - ACE(fewest options), C_Base",
                 unit="causal model under 1B")


def more_options_lower_ace_paper() -> Evidence:
    wide = answer_space_ace(small_only=True)
    lo, hi = wide.columns.min(), wide.columns.max()
    frame = pd.DataFrame({"model": wide.index, "value": (wide[hi] - wide[lo]).to_numpy()})
    return Evidence(printed(frame, "value", "model"),
                    f"authors' repository values (k={lo} to k={hi}, mean of three draws), no "
                    f"interval")


def ace_stable(evidence: Evidence):
    """``ace_stabilises``: beyond 15-20 options no further gain: ACE at the largest k minus
    ACE at k = 20 not below 0, for every model."""
    # TODO(issue 17): rule to fix -- the claim is "for larger CLMs and MLMs", and "stabilises"
    # needs a tolerance: lack of power must not count as support (today's build rule said
    # "holds" when the min-max ranges of three draws overlapped)
    return every(evidence, ">=", 0.0, what="ACE(largest k) - ACE(k = 20), C_Base", unit="model")


CLAIMS: tuple[Claim, ...] = (
    Claim(key="more_options", paper="kissling2026", section="§5.2",
          quote="significantly reduces calibration error in CLMs smaller than 1B",
          statement="More answer options lower the ACE of C_Base for causal models smaller "
                    "than 1B",
          quantifier="every", metrics=("ace",), about="CLMs under 1B", chapter="answer_set",
          rule=more_options_lower_ace, paper_evidence=more_options_lower_ace_paper,
          build_evidence=None,
          paper_note="Figure 3 prints no numbers: the paper's side uses the authors' "
                     "repository's values for the earlier version's models",
          needs="a causal model under 1B parameters and BEAR's 1:1 relations"),
    Claim(key="ace_stabilises", paper="kissling2026", section="§5.2",
          quote="After 15–20 answer options, ACE stabilizes",
          statement="Beyond 15-20 answer options ACE stabilises: no further gain in "
                    "calibration",
          quantifier="every", metrics=("ace",), about="larger CLMs and MLMs",
          chapter="answer_set", rule=ace_stable, paper_evidence=None, build_evidence=None,
          paper_note="Figure 3 prints no numbers, and the authors' repository stores the means "
                     "of three draws without their spread, which a claim of no further change "
                     "needs",
          needs="BEAR's 1:1 relations with answer-space sizes of 20 and more"),
)
