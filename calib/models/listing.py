"""The ``calib models`` listing: the registry as a table, with what is available here."""

from __future__ import annotations

import importlib.util

from calib.data.reported import reported
from calib.models.locate import hub_snapshot, install_line
from calib.models.registry import ModelSpec, registry


def availability(spec: ModelSpec) -> str:
    """A short word on whether ``spec`` can be loaded here."""
    if spec.kind == "tiny":
        return "built locally"
    if spec.kind == "embedded":
        found = importlib.util.find_spec(spec.gguf_package_name) is not None
        return "installed" if found else f"missing ({install_line(spec)})"
    return "in the hub cache" if hub_snapshot(spec.hub_id, spec.revision) else "needs the hub"


def paper_accuracy() -> dict[str, float]:
    """The BEAR accuracy (percent) the paper's Table 3 prints, by registry name (read from the
    reported values, :func:`calib.data.reported.reported`, where it is stored once)."""
    t3 = reported("kissling2026_table3")
    return dict(zip(t3["registry_name"], t3["accuracy"].astype(float)))


def print_registry() -> None:
    """Print the registry as a table (``calib models``): the paper's models with the BEAR
    accuracy their Table 3 prints (``IT`` marks an instruction-tuned variant, ``*`` a hub id
    inferred rather than read from the authors' code, ``@REVISION`` the hub revision a paper
    model is pinned to in ``paper_models.csv``)."""
    printed = paper_accuracy()

    def paper(s: ModelSpec) -> str:
        if s.name not in printed:
            return ""
        return f"{printed[s.name]:.1f}" + (" IT" if s.instruction_tuned else "")

    rows = [
        (
            s.name,
            s.kind,
            s.objective,
            s.size,
            (s.hub_id or s.gguf_file or "")
            + (f"@{s.revision}" if s.revision else "")
            + ("*" if s.hub_id_inferred else ""),
            paper(s),
            availability(s),
        )
        for s in registry().values()
    ]
    head = ("name", "kind", "objective", "size", "source", "paper acc. (%)", "available here")
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    for r in [head, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    print(
        "paper acc.: BEAR accuracy printed in the paper's Table 3 (IT: instruction-tuned); "
        "*: hub id inferred, not read from the authors' code; pin a hub model's revision "
        "as NAME@REVISION"
    )
