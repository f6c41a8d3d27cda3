"""The model groups of §5.2 (Kissling et al. 2026): CLMs under 1B parameters, CLMs of 1B or more,
MLMs, from each model's objective and size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from calib.experiments.paper_tables import text_value

#: §5.2's "CLMs smaller than 1B" (millions of parameters)
SMALL_CLM = text_value("small_clm_size")
#: the groups of models §5.2 speaks of
GROUPS: tuple[str, ...] = ("CLM under 1B", "CLM of 1B or more", "MLM")


def model_groups(
    objectives: Mapping[str, str], sizes: Mapping[str, float | None]
) -> dict[str, str]:
    """Each model's group of §5.2 (:data:`GROUPS`): a CLM under 1B parameters, a CLM of 1B or
    more, an MLM; "" for a CLM of unknown size."""
    out = {}
    for m, obj in objectives.items():
        if obj == "mlm":
            out[m] = GROUPS[2]
        elif (size := sizes.get(m)) is None:
            out[m] = ""
        else:
            out[m] = GROUPS[0] if size < SMALL_CLM else GROUPS[1]
    return out


def _registry_name(model: str) -> str:
    from calib.models.registry import get_spec

    spec = get_spec(model)
    return spec.name if spec is not None else model


def model_sizes(models: Sequence[str]) -> dict[str, float | None]:
    """Millions of parameters per model, from the registry (None where it does not say)."""
    from calib.models.registry import get_spec, size_in_millions

    out = {}
    for m in models:
        spec = get_spec(m)
        out[m] = size_in_millions(spec.size) if spec is not None else None
    return out
