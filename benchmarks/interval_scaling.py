"""Bootstrap intervals against the number of instances, the quadratic implementation against
the current one in one run (issue 24: "a jackknife linear in n").

For each ``n`` (default 1,000, 7,731 = all of BEAR, 30,000) and each interval the chapters
take, on synthetic confidences of BEAR's kind (overconfident, with ties and rejected instances
at confidence 0):

* ``metric``: :func:`calib.confidence.bootstrap.bootstrap_metrics` of one metric (every
  metric of :data:`calib.confidence.metrics.WEIGHTED`), BCa or bias-centred by
  :data:`~calib.confidence.bootstrap.INTERVAL_METHODS`;
* ``paired``: :func:`calib.confidence.bootstrap.paired_difference` of two estimators;
* ``closure``: a chapter's own function of the weights (kept accuracy minus accuracy, as the
  calibration chapter's selective example), which gets the grouped jackknife.

*Old* is the implementation before the change (``--old-rev``, default ``5a662fa``): its metric
kernels (``calib/confidence/metrics.py`` at that commit, loaded from git), a gather of every
block of weights into confidence order per statistic, and the delete-one jackknife on ``n`` rows
of ``n`` weights. Where that jackknife would take more than ``--old-rows`` rows it is timed on
that many rows and scaled by ``n / rows`` (``old_jackknife_extrapolated``: its cost per row is
constant). *New* is the package as it is. Both draw the same resamples (``--seed``). Per
interval: CPU and wall seconds of both, their ratio, and how far the new interval's bounds lie
from the old one's (``max_bound_change``; the grouped jackknife's only where ``n`` exceeds
:data:`calib.confidence.jackknife.JACKKNIFE_GROUPS`).

    python benchmarks/interval_scaling.py                      # writes the JSON below
    python benchmarks/interval_scaling.py --n 1000 --n-boot 200 --out /tmp/x.json  # quick

Writes ``benchmarks/results/interval_scaling.json`` (``--out``) with the command, the load
average at the start and end (timings taken while other work runs are ratios, not figures).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from calib.confidence.bootstrap import (
    INTERVAL_METHODS,
    METRIC_RANGE,
    bootstrap_metrics,
    difference_interval,
    interval,
    paired_difference,
    resample_weights,
)
from calib.confidence.jackknife import JACKKNIFE_GROUPS
from calib.confidence.metrics import WEIGHTED

REPO = Path(__file__).resolve().parents[1]
SIZES = (1000, 7731, 30000)
PAIRED = ("ace", "brier", "accuracy", "gap", "auroc", "aurc")


def old_kernels(rev: str):
    """``calib/confidence/metrics.py`` at ``rev`` as a module (its ``WEIGHTED`` kernels)."""
    try:
        src = subprocess.run(
            ["git", "-C", str(REPO), "show", f"{rev}:calib/confidence/metrics.py"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        sys.exit(f"interval_scaling: cannot read the old metrics at {rev!r} from git ({exc})")
    path = Path(tempfile.mkdtemp()) / "old_metrics.py"
    path.write_text(src, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("interval_scaling_old_metrics", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sample(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two estimators on the same instances, ``(conf_a, correct_a, conf_b, correct_b)``: ``a``
    overconfident, with ties (rounded to 0.01) and 10% rejected instances (confidence 0,
    wrong); ``b`` near calibrated, its answers differing from ``a``'s on 15% of the instances."""
    rng = np.random.default_rng([seed, n])
    truth = rng.beta(1.5, 2.5, n)
    correct_b = (rng.random(n) < truth).astype(float)
    correct_a = np.where(rng.random(n) < 0.15, 1.0 - correct_b, correct_b)
    a = np.round(np.clip(truth**0.6 + 0.1 * rng.standard_normal(n), 0, 1), 2)
    rejected = rng.random(n) < 0.1
    a[rejected], correct_a[rejected] = 0.0, 0.0
    b = np.clip(truth + 0.15 * rng.standard_normal(n), 0, 1)
    return a, correct_a, b, correct_b


def old_statistic(kernels, metric: str, conf, corr):
    """The statistic before the change: every block of weights gathered into confidence order."""
    order = np.argsort(conf, kind="stable")
    c, y, fn = conf[order], corr[order], kernels.WEIGHTED[metric]
    return lambda w: fn(c, y, w[:, order], 20)


def old_jackknife(statistic, n: int, max_rows: int) -> tuple[np.ndarray, bool]:
    """The delete-one jackknife on ``min(n, max_rows)`` of its ``n`` rows (blocks of at most
    4M cells, as before); ``True`` when cut short."""
    rows = min(n, max_rows)
    block = max(1, min(n, 4_000_000 // n))
    out = []
    for start in range(0, rows, block):
        idx = np.arange(start, min(start + block, rows))
        w = np.ones((len(idx), n), np.int64)
        w[np.arange(len(idx)), idx] = 0
        out.append(statistic(w))
    return np.concatenate(out), rows < n


def jackknife_kind(kind: str, method: str, n: int) -> str:
    """Which jackknife the new interval uses: none (not BCa), the closed form (``exact``) or,
    for a function of the weights, delete-one up to the groups and grouped beyond."""
    if method != "bca":
        return "none"
    if kind != "closure":
        return "exact"
    return "grouped" if n > JACKKNIFE_GROUPS else "delete-one"


def timed(fn):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def old_interval(statistic, n, method, n_boot, seed, max_rows, bounds=(-np.inf, np.inf)):
    """(low, high), seconds of the bootstrap (wall, cpu) and of the jackknife (wall, cpu,
    extrapolated) of the old implementation."""
    point = float(statistic(np.ones((1, n), np.int64))[0])
    reps, bw, bc = timed(
        lambda: np.concatenate([statistic(w) for w in resample_weights(n, n_boot, seed)])
    )
    jack, jw, jc, cut = None, 0.0, 0.0, False
    if method == "bca":
        (jack, cut), jw, jc = timed(lambda: old_jackknife(statistic, n, max_rows))
        if cut:
            jw, jc = jw * n / len(jack), jc * n / len(jack)
            jack = None  # a partial jackknife gives no acceleration: no bounds to compare
    lo, hi = interval(point, reps, 0.95, method, jack, bounds) if not cut else (np.nan, np.nan)
    return (lo, hi), bw + jw, bc + jc, jw, jc, cut


def run_case(kernels, kind: str, name: str, data, n_boot: int, seed: int, old_rows: int) -> dict:
    """One interval, new and old: its row of the results."""
    a, y, b, yb = data
    n = len(y)
    if kind == "metric":
        method = INTERVAL_METHODS[name]
        new, nw, nc = timed(lambda: bootstrap_metrics(a, y, (name,), n_boot, seed))
        new_bounds = tuple(new[["low", "high"]].iloc[0].to_numpy(float))
        stat = old_statistic(kernels, name, a, y)
        old = old_interval(stat, n, method, n_boot, seed, old_rows, METRIC_RANGE[name])
    elif kind == "paired":
        method = INTERVAL_METHODS[name]
        new, nw, nc = timed(lambda: paired_difference(a, y, b, yb, name, n_boot, seed))
        new_bounds = (new["low"], new["high"])
        sa, sb = old_statistic(kernels, name, a, y), old_statistic(kernels, name, b, yb)
        old = old_interval(lambda w: sa(w) - sb(w), n, method, n_boot, seed, old_rows)
    else:  # the calibration chapter's selective example: kept accuracy minus accuracy
        method = "bca"
        below = (a < 0.5).astype(float)

        def gain(w):
            w = w.astype(float)
            kept = w @ (1 - below)
            return (w @ (y * (1 - below))) / kept - w @ y / w.sum(axis=1)

        new, nw, nc = timed(lambda: difference_interval(gain, n, "bca", n_boot, seed))
        new_bounds = (new["low"], new["high"])
        old = old_interval(gain, n, method, n_boot, seed, old_rows)
    (olo, ohi), ow, oc, _, jc, cut = old
    change = None if cut else float(max(abs(new_bounds[0] - olo), abs(new_bounds[1] - ohi)))
    return {
        "n": n,
        "kind": kind,
        "interval": name,
        "method": method,
        "jackknife": jackknife_kind(kind, method, n),
        "old_wall_s": round(ow, 3),
        "old_cpu_s": round(oc, 3),
        "old_jackknife_cpu_s": round(jc, 3),
        "old_jackknife_extrapolated": cut,
        "new_wall_s": round(nw, 3),
        "new_cpu_s": round(nc, 3),
        "cpu_ratio_old_over_new": round(oc / nc, 2) if nc > 0 else None,
        "max_bound_change": change,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--old-rev", default="5a662fa")
    parser.add_argument(
        "--old-rows",
        type=int,
        default=8000,
        help="time the old delete-one jackknife on at most this many rows (scaled to n)",
    )
    parser.add_argument(
        "--out", type=Path, default=REPO / "benchmarks" / "results" / "interval_scaling.json"
    )
    args = parser.parse_args()
    kernels = old_kernels(args.old_rev)
    load_start = os.getloadavg()
    cases = [("metric", m) for m in WEIGHTED] + [("paired", m) for m in PAIRED]
    cases.append(("closure", "selective gain"))
    rows = []
    for n in args.n:
        data = sample(n, args.seed)
        for kind, name in cases:
            row = run_case(kernels, kind, name, data, args.n_boot, args.seed, args.old_rows)
            rows.append(row)
            print(json.dumps(row), flush=True)
    result = {
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]]),
        "old_rev": args.old_rev,
        "n_boot": args.n_boot,
        "seed": args.seed,
        "jackknife_groups": JACKKNIFE_GROUPS,
        "load_average_start": [round(v, 2) for v in load_start],
        "load_average_end": [round(v, 2) for v in os.getloadavg()],
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "note": "timings under the load shown are ratios, not figures",
        "results": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    tmp.replace(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
