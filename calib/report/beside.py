"""The papers' printed values beside this build's: one frame per chapter with a ``source``
column, for a combined table or chart.

Every function here joins a computed frame of a chapter with a reported table
(:mod:`calib.data.reported`, via :mod:`calib.experiments.paper_tables`). Rows keep their
source (:data:`THIS_BUILD` or the reported table's label); no value of one source is ever put
in a row of the other. A model of this build matches a model of the paper only under the same
registry name: this build's ``gemma-3-270m`` (the base model, from a GGUF file) is not the
paper's ``gemma-3-270m-it`` (:func:`model_notes` says so on the page).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from calib.data.reported import reported
from calib.experiments.paper_tables import calib_estimator, paper_models, table1_long
from calib.models.registry import get_spec

#: the ``source`` of this build's rows
THIS_BUILD = "this build"


def _label(table_id: str, extra: str = "") -> str:
    return reported(table_id).attrs["label"] + extra


def model_notes(models: Sequence[str]) -> str:
    """A sentence on which of ``models`` are the paper's models (matched by registry name),
    naming the paper's model a build model could be mistaken for (e.g. the instruction-tuned
    ``gemma-3-270m-it`` for the embedded base ``gemma-3-270m``)."""
    paper = list(paper_models()["registry_name"])
    shared = [m for m in models if m in paper]
    others = [m for m in models if m not in paper]
    text = (
        f"Models of this build that are also the paper's (Table 3): {', '.join(shared)}."
        if shared
        else "No model of this build is one of the paper's 29 (Table 3)."
    )
    if others and shared:
        text += f" Not the paper's: {', '.join(others)}."
    for m in others:
        spec = get_spec(m)
        twins = [p for p in paper if p.startswith(m)]
        if twins:
            what = (
                f"{spec.family} {spec.size}, {spec.note.split(',')[0]}"
                if spec
                else "a model of this build"
            )
            text += (
                f" This build's `{m}` ({what}) is not the paper's `{twins[0]}`: a "
                f"different model, never paired with it."
            )
    return text


def reported_only(frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's rows of a frame of this module (every ``source`` but :data:`THIS_BUILD`):
    what a chart of ACE draws (:func:`ace_apart_note` says why this build's are not drawn
    beside them)."""
    return frame[frame["source"] != THIS_BUILD].reset_index(drop=True)


def ace_apart_note() -> str:
    """Why a chart of the paper's ACEs does not draw this build's beside them (the sentence
    above each such chart)."""
    return (
        "Only the paper's points are drawn. An ACE depends on its sample size: its noise "
        "floor, the ACE a perfectly calibrated estimator with the same confidences shows, "
        "falls as the sample grows, so an ACE on a few dozen facts and one on thousands are "
        "not on one scale. The floor at the paper's sample size would need the paper's own "
        "confidences, which it does not publish, so it cannot be drawn beside the paper's "
        "points; this build's ACEs are in the table, each with its own floor."
    )


def calibration_beside(
    table: pd.DataFrame,
    estimators: Sequence[str] = ("Base", "Margin", "Average/min"),
    accuracy: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """This build's calibration table
    (:func:`calib.experiments.calibration.tables.calibration_table`) and the paper's Table 1 (with
    Table 3's accuracy) for ``estimators``: ``source``, ``model`` (registry name), ``objective``,
    ``estimator``, ``accuracy``, ``ace``, ``brier``, ``in_paper``. The paper's accuracy is Table 3's
    BEAR accuracy over all templates, the same for every estimator. This build's is ``accuracy``
    (model -> accuracy) where given -- the same definition as the paper's: the accuracy averaged
    over the five paraphrase templates
    (:func:`calib.experiments.calibration.tables.template_accuracy`) -- else the accuracy of each
    estimator's answer."""
    ours = table[table["estimator"].isin(list(estimators))]
    names = set(paper_models()["registry_name"])
    kinds = {m: getattr(get_spec(m), "objective", "") for m in ours["model"].unique()}
    acc = ours["model"].map(dict(accuracy)) if accuracy is not None else ours["accuracy"]
    ours = pd.DataFrame(
        {
            "source": THIS_BUILD,
            "model": ours["model"],
            "objective": ours["model"].map(kinds),
            "estimator": ours["estimator"],
            "accuracy": acc,
            "ace": ours["ace"],
            "brier": ours["brier"],
        }
    )
    paper = table1_long()
    paper = paper[paper["estimator"].isin(list(estimators))]
    paper = pd.DataFrame(
        {
            "source": _label("kissling2026_table1", "; accuracy: Table 3"),
            "model": paper["registry_name"],
            "objective": paper["objective"],
            "estimator": paper["estimator"],
            "accuracy": paper["accuracy"],
            "ace": paper["ace"],
            "brier": paper["brier"],
        }
    )
    out = pd.concat([ours, paper], ignore_index=True)
    out["in_paper"] = out["model"].isin(names)
    return out


def selective_beside(curves: pd.DataFrame, table: pd.DataFrame, estimator: str) -> pd.DataFrame:
    """Appendix E's selective-prediction example beside this build: the paper states that for
    gemma-7b a threshold of 0.1 on C_Average raises accuracy by about 15 percentage points while
    rejecting less than 30% of the instances; this build's rows give, per model, the share
    rejected and the gain in accuracy of the kept instances at that threshold
    (``curves``: :func:`calib.experiments.calibration.curves.rejection_curves`; ``table``: the
    calibration table, for the accuracy without rejection). Columns ``source``, ``model``,
    ``estimator``, ``threshold``, ``rejected``, ``accuracy gain`` (text)."""
    nums = reported("kissling2026_text_numbers").set_index("key")
    threshold = float(nums.at["selective_gemma7b_threshold", "value"])
    gain, rejected = nums.loc["selective_gemma7b_gain"], nums.loc["selective_gemma7b_rejected"]
    rows = [
        {
            "source": "reported in the paper (Appendix E)",
            "model": "gemma-7b",
            "estimator": calib_estimator("Average"),
            "threshold": threshold,
            "rejected": f"{rejected['relation']} {rejected['value']:g}%",
            "accuracy gain": f"{gain['relation']} +{gain['value']:g} pp",
        }
    ]
    at = curves[(curves["estimator"] == estimator) & np.isclose(curves["threshold"], threshold)]
    overall = table[table["estimator"] == estimator].set_index("model")["accuracy"]
    for r in at.to_dict("records"):
        rows.append(
            {
                "source": THIS_BUILD,
                "model": r["model"],
                "estimator": estimator,
                "threshold": threshold,
                "rejected": f"{100 * r['rejected']:.0f}%",
                "accuracy gain": f"{100 * (r['accuracy'] - overall[r['model']]):+.1f} pp",
            }
        )
    return pd.DataFrame(rows)


def side_by_side(
    combined: pd.DataFrame, keys: Sequence[str], values: Sequence[str]
) -> pd.DataFrame:
    """The rows of ``combined`` (a frame of this module) whose ``keys`` appear in both
    sources, one row per key with ``<value> (this build)`` and ``<value> (paper)`` columns.
    Empty (with those columns) when this build shares nothing with the paper."""
    ours = combined[combined["source"] == THIS_BUILD]
    paper = combined[combined["source"] != THIS_BUILD]
    both = ours[list(keys) + list(values)].merge(
        paper[list(keys) + list(values)], on=list(keys), suffixes=(" (this build)", " (paper)")
    )
    cols = list(keys) + [f"{v} ({s})" for v in values for s in ("this build", "paper")]
    return both[cols] if len(both) else pd.DataFrame(columns=cols)


def table2_beside(rows: pd.DataFrame, accuracy: str = "accuracy") -> pd.DataFrame:
    """This build's per-model rows (:func:`calib.experiments.clm_vs_mlm.tables.model_table` or
    ``pair_table``) and the paper's Table 2: ``source``, ``pair`` (Table 2's; this build's
    pair if given), ``model``, ``objective``, ``accuracy`` (a fraction; Table 2's percent /
    100), ``brier_margin``, ``brier_average``. ``accuracy``: the column of ``rows`` set beside
    Table 2's accuracy (``"accuracy_templates"``: the average over all templates, as Table 2's
    caption defines it)."""
    cols = ["source", "pair", "model", "objective", "accuracy", "brier_margin", "brier_average"]
    ours = rows.assign(source=THIS_BUILD, accuracy=rows[accuracy])
    if "pair" not in ours:
        ours["pair"] = pd.NA
    t2 = reported("kissling2026_table2")
    paper = pd.DataFrame(
        {
            "source": _label("kissling2026_table2"),
            "pair": t2["pair"],
            "model": t2["registry_name"],
            "objective": t2["objective"].str.lower(),
            "accuracy": t2["accuracy"] / 100,
            "brier_margin": t2["brier_margin"],
            "brier_average": t2["brier_average"],
        }
    )
    return pd.concat([ours[cols], paper], ignore_index=True)


def brier_bars_beside(combined: pd.DataFrame) -> pd.DataFrame:
    """:func:`table2_beside` in long form for a bar chart: ``model`` (with ``(paper)`` or
    ``(this build)`` appended, so a model in both shows twice), ``estimator`` (Margin,
    Average), ``brier``."""
    tag = combined["source"].where(combined["source"] == THIS_BUILD, "paper")
    label = combined["model"] + " (" + tag + ")"
    return pd.concat(
        [
            pd.DataFrame({"model": label, "estimator": name, "brier": combined[col]})
            for name, col in (("Margin", "brier_margin"), ("Average", "brier_average"))
        ],
        ignore_index=True,
    )


def table4_beside(table: pd.DataFrame) -> pd.DataFrame:
    """This build's FACTOR table (:func:`calib.experiments.factor.tables.table4`) and the
    paper's Table 4 (Wiki-FACTOR): ``source``, ``model``, ``subset``, ``accuracy`` (a fraction; the
    paper's percent / 100), ``ace_base``, ``ace_margin``, ``brier_base``, ``brier_margin``."""
    cols = ["model", "subset", "accuracy", "ace_base", "ace_margin", "brier_base", "brier_margin"]
    t4 = reported("kissling2026_table4")
    paper = t4.assign(model=t4["registry_name"], subset="wiki", accuracy=t4["accuracy"] / 100)
    return pd.concat(
        [
            table[cols].assign(source=THIS_BUILD),
            paper[cols].assign(source=_label("kissling2026_table4")),
        ],
        ignore_index=True,
    )[["source", *cols]]


def factor_points(combined: pd.DataFrame) -> pd.DataFrame:
    """:func:`table4_beside` as points of an ACE-accuracy chart: one row per model, subset and
    estimator (``Base``, ``Margin``) with ``source``, ``accuracy``, ``ace``."""
    parts = [
        combined.assign(estimator=e, ace=combined[f"ace_{e.lower()}"]) for e in ("Base", "Margin")
    ]
    return pd.concat(parts, ignore_index=True)[
        ["source", "model", "subset", "estimator", "accuracy", "ace"]
    ]


def figure4_beside(points: pd.DataFrame, k: int = 5) -> pd.DataFrame:
    """Figure 4's points from both sources: this build's
    (:func:`calib.experiments.answer_set.figure4.figure4_points`) and the paper's, BEAR's 1:1
    relations with ``k`` options from the authors' repository (the earlier version's causal models)
    and Wiki-FACTOR from Table 4 (C_Base). Columns ``source``, ``model``, ``benchmark``,
    ``accuracy``, ``ace``."""
    from calib.experiments.answer_set.figure4 import reported_bear_points

    cols = ["source", "model", "benchmark", "accuracy", "ace"]
    bear = reported_bear_points(reported("kissling2026_repo_answer_space_subsampling"), k)
    t4 = reported("kissling2026_table4")
    return pd.concat(
        [
            points.assign(source=THIS_BUILD)[cols],
            bear.assign(
                source=_label("kissling2026_repo_answer_space_subsampling"),
                benchmark=f"BEAR 1:1 ({k} options)",
            )[cols],
            pd.DataFrame(
                {
                    "source": _label("kissling2026_table4"),
                    "model": t4["registry_name"],
                    "benchmark": "Wiki-FACTOR (4 options)",
                    "accuracy": t4["accuracy"] / 100,
                    "ace": t4["ace_base"],
                }
            ),
        ],
        ignore_index=True,
    )


#: LPAQA's method columns -> calib's method names
LPAQA_METHODS = {
    "top1": "top-1",
    "top3": "top-3",
    "top5": "top-5",
    "opti": "optimized",
    "oracle": "oracle",
}


def lpaqa_beside(set_table: pd.DataFrame, averaging: str = "micro") -> pd.DataFrame:
    """This build's accuracy by prompt set (:func:`calib.experiments.lpaqa.accuracy.set_table`) and
    LPAQA's Table 2 (micro) or 3 (macro) in one frame: ``source``, ``model``, ``prompt_set``
    and the methods' accuracy as fractions (the paper's percent / 100; blank where the text
    does not pin a column). The prompt sets are the paper's (Man, Mine, Mine+Man, Mine+Para,
    Man+Para); Mine+Para paraphrases the best mined prompt, as LPAQA §3.2 does."""
    trex = reported("jiang2020_lpaqa_trex")
    trex = trex[trex["averaging"] == averaging]
    paper = pd.DataFrame(
        {
            "source": _label("jiang2020_lpaqa_trex", f" ({averaging})"),
            "model": trex["model"],
            "prompt_set": trex["prompts"],
        }
    )
    for col, name in LPAQA_METHODS.items():
        paper[name] = trex[col].to_numpy() / 100
    ours = set_table.assign(source=THIS_BUILD)
    methods = [c for c in set_table.columns if c not in ("model", "prompt_set")]
    cols = ["source", "model", "prompt_set", *dict.fromkeys([*methods, *LPAQA_METHODS.values()])]
    return pd.concat([ours, paper], ignore_index=True).reindex(columns=cols)


def lpaqa_baselines_beside(accuracy: pd.DataFrame) -> pd.DataFrame:
    """The manual-prompt and majority baselines: this build's (``manual``, ``majority
    (test facts)`` and ``majority`` rows of
    :func:`calib.experiments.lpaqa.accuracy.accuracy_table`) and LPAQA's, as fractions:
    ``source``, ``model``, ``baseline``, ``micro``, ``macro``. The paper's Majority is counted
    on the test facts (§5.1), as this build's ``Majority``; ``Majority (training pairs)`` is
    the baseline the page sets beside every gain, not fitted on the facts it is judged on."""
    names = {
        "manual": "Man",
        "majority (test facts)": "Majority",
        "majority": "Majority (training pairs)",
    }
    ours = accuracy[accuracy["method"].isin(list(names))]
    ours = pd.DataFrame(
        {
            "source": THIS_BUILD,
            "model": ours["model"],
            "baseline": ours["method"].map(names),
            "micro": ours["micro"],
            "macro": ours["macro"],
        }
    )
    base = reported("jiang2020_lpaqa_trex_baselines")
    paper = (
        base.pivot_table(index=["model", "baseline"], columns="averaging", values="accuracy")
        .reset_index()
        .assign(source=_label("jiang2020_lpaqa_trex_baselines"))
    )
    paper[["micro", "macro"]] = paper[["micro", "macro"]] / 100
    return pd.concat(
        [ours, paper[["source", "model", "baseline", "micro", "macro"]]], ignore_index=True
    )


def reductions_beside(
    means: pd.DataFrame,
    repo_means: pd.DataFrame,
    labels: dict[str, str],
    floors: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Figure 7's means from both sources: this build's
    (:func:`calib.experiments.reductions.tables.objective_means`) and those computed from the
    authors' stored per-model values; ``labels`` maps this build's reduction keys to the
    paper's names. One row per source, objective and reduction with ``accuracy``, ``ace``,
    ``H``, ``n_models``. With ``floors``
    (:func:`calib.experiments.reductions.tables.objective_floors`), this build's rows also get the
    noise floor of their mean ACE (``ace_floor``, ``ace_debiased`` with its bounds,
    ``ace_within_floor``; beyond the paper), the authors' rows none (NaN: their confidences
    are not stored)."""

    def wide(frame: pd.DataFrame, source: str) -> pd.DataFrame:
        out = frame.pivot_table(
            index=["objective", "reduction", "n_models"],
            columns="metric",
            values="value",
            sort=False,
        ).reset_index()
        out.columns.name = None
        return out.assign(source=source)

    ours = wide(
        means.assign(reduction=means["reduction"].map(labels).fillna(means["reduction"])),
        THIS_BUILD,
    )
    repo = wide(
        repo_means.assign(
            objective=repo_means["objective"].str.lower(),
            reduction=repo_means["reduction"].map(labels).fillna(repo_means["reduction"]),
        ),
        "reported in the authors' repository (means computed here from its per-model values)",
    )
    cols = ["source", "objective", "reduction", "accuracy", "ace", "H", "n_models"]
    if floors is not None:
        extra = [
            "ace_floor",
            "ace_debiased",
            "ace_debiased_low",
            "ace_debiased_high",
            "ace_within_floor",
        ]
        keyed = floors.assign(
            reduction=floors["reduction"].map(labels).fillna(floors["reduction"])
        )[["objective", "reduction", *extra]]
        ours = ours.merge(keyed, on=["objective", "reduction"], how="left")
        cols = [*cols[:5], *extra[:4], extra[4], *cols[5:]]
    return pd.concat([ours, repo], ignore_index=True)[cols]


def linguistic_beside(effects: pd.DataFrame) -> pd.DataFrame:
    """The paper's numbers on the injected templates (Appendix G's accuracy changes, §6's ACE
    change under "certainly") beside this build's changes for the same template and quantity
    (:func:`calib.experiments.linguistic.injections.injection_effects`): ``source``, ``model``,
    ``template``, ``quantity``, ``change`` (text: the paper's as written, this build's with its
    95% interval; accuracy in percentage points)."""
    nums = reported("kissling2026_text_numbers").set_index("key")
    cases = {
        "largest_accuracy_drop": ("numeric-25", "accuracy"),
        "only_accuracy_gain": ("certainly", "accuracy"),
        "certainly_ace_gemma3_4b_it": ("certainly", "ace"),
        "certainly_ace_gemma3_12b_it": ("certainly", "ace"),
    }
    rows = []
    for key, (template, quantity) in cases.items():
        n = nums.loc[key]
        value = (
            f"{n['value']:+g} pp"
            if n["value_unit"] == "percentage points"
            else f"{n['relation']} {n['value']:g}"
        )
        rows.append(
            {
                "source": f"reported in the paper ({n['section']})",
                "model": n["registry_name"],
                "template": template,
                "quantity": quantity,
                "change": value,
            }
        )
    form = {"accuracy": (100.0, ".1f", " pp"), "ace": (1.0, ".3f", "")}
    mine = effects[
        effects["quantity"].isin(list(form))
        & effects["template"].isin([t for t, _ in cases.values()])
    ]
    for r in mine.to_dict("records"):
        scale, spec, unit = form[r["quantity"]]
        rows.append(
            {
                "source": THIS_BUILD,
                "model": r["model"],
                "template": r["template"],
                "quantity": r["quantity"],
                "change": f"{scale * r['delta']:+{spec}}{unit} "
                f"[{scale * r['low']:+{spec}}, {scale * r['high']:+{spec}}]",
            }
        )
    return pd.DataFrame(rows, columns=["source", "model", "template", "quantity", "change"])


def text_numbers(section_prefixes: Sequence[str]) -> pd.DataFrame:
    """The numbers the paper's text states in the sections starting with any of
    ``section_prefixes`` (e.g. ``["§5.2"]``), values as text for display, with the reported
    table's metadata in attrs."""
    nums = reported("kissling2026_text_numbers")
    keep = nums["section"].map(lambda s: any(s.startswith(p) for p in section_prefixes))
    out = nums[keep].reset_index(drop=True)
    out["value"] = [f"{v:g}" for v in out["value"]]  # as the text writes it (21, not 21.0)
    out.attrs = nums.attrs
    return out


def paper_estimator_names(aggregation: str = "min") -> list[str]:
    """The calib names of the paper's Base, Margin and Average estimates."""
    return [calib_estimator(n, aggregation) for n in ("Base", "Margin", "Average")]


__all__ = [
    "THIS_BUILD",
    "brier_bars_beside",
    "calibration_beside",
    "factor_points",
    "figure4_beside",
    "linguistic_beside",
    "lpaqa_baselines_beside",
    "lpaqa_beside",
    "model_notes",
    "paper_estimator_names",
    "reductions_beside",
    "selective_beside",
    "side_by_side",
    "table2_beside",
    "table4_beside",
    "text_numbers",
]
