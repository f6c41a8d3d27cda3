"""Whether each model moves its confidence the way the injected words say (Kissling et al. 2026,
§6): lower under "possibly", higher under "certainly", rising with the stated number.
"""

from __future__ import annotations

import pandas as pd

from calib.confidence.schema import require_columns
from calib.experiments import quantifiers
from calib.experiments.verdicts import FAILS, HOLDS, unit_tally

#: the direction a grounded model would move its confidence, per injected marker
EXPECTED_DIRECTION = {"possibly": "lower", "certainly": "higher"}


def _direction(low: float, high: float) -> str:
    return "lower" if high < 0 else "higher" if low > 0 else "undecided"


def grounding_checks(effects: pd.DataFrame, numeric: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per model: does its Base-Confidence move the way the injected words say?

    * ``possibly`` should lower and ``certainly`` raise the mean confidence against the plain
      template (from the ``confidence`` rows of
      :func:`~calib.experiments.linguistic.injections.injection_effects`);
    * ``numeric``: the highest stated level should give a higher mean confidence than the
      lowest (:func:`~calib.experiments.linguistic.injections.numeric_differences`, when given).

    Each is ``lower`` / ``higher`` by the 95% interval of its paired difference, or
    ``undecided`` when the interval includes 0 (``not scored`` when absent). ``grounded`` is
    the verdict (:class:`~calib.experiments.verdicts.Verdict` text) on "every marker moves as
    its words say" for the model: holds when every scored marker does with an interval
    excluding 0, does not hold when some marker moves the opposite way with an interval
    excluding 0, undecided otherwise (:func:`calib.experiments.quantifiers.every_verdict`)."""
    require_columns(effects, ("model", "template", "quantity", "low", "high"), "injection effects")
    conf = effects[effects["quantity"] == "confidence"]
    by_model = None if numeric is None or numeric.empty else numeric.set_index("model")
    rows = []
    for model in dict.fromkeys(effects["model"].unique()):
        by_t = conf[conf["model"] == model].set_index("template")
        row: dict = {"model": model}
        moves = []
        for marker, expected in EXPECTED_DIRECTION.items():
            if marker in by_t.index:
                row[marker] = _direction(by_t.at[marker, "low"], by_t.at[marker, "high"])
                moves.append((row[marker], expected))
            else:
                row[marker] = "not scored"
        if by_model is not None and model in by_model.index:
            row["numeric"] = _direction(by_model.at[model, "low"], by_model.at[model, "high"])
            moves.append((row["numeric"], "higher"))
        else:
            row["numeric"] = "not scored"
        right = sum(d == e for d, e in moves)
        wrong = sum(d not in ("undecided", e) for d, e in moves)
        row["grounded"] = quantifiers.every_verdict(right, wrong, len(moves)).value
        rows.append(row)
    return pd.DataFrame(rows, columns=["model", "possibly", "certainly", "numeric", "grounded"])


def grounding_tally(checks: pd.DataFrame) -> dict:
    """Counts over models of :func:`grounding_checks` (``grounded``: every marker moves as its
    words say; ``not_grounded``: some marker moves the opposite way; ``undecided``) and a
    phrase with them (:func:`calib.experiments.verdicts.unit_tally`)."""
    g = checks["grounded"].tolist()
    right, wrong = g.count(HOLDS.value), g.count(FAILS.value)
    evidence = (
        "That every marker moves mean Base-Confidence as its words say ('possibly' "
        "lowers it and 'certainly' raises it against the plain template, numeric-100 "
        "gives more than numeric-0; 95% paired bootstrap intervals) is "
        + unit_tally(right, wrong, len(g))
    )
    return {
        "n_models": len(g),
        "grounded": right,
        "not_grounded": wrong,
        "undecided": len(g) - right - wrong,
        "evidence": evidence,
    }
