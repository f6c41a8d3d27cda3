"""How the bootstrap intervals of ACE behave on samples of the book's size (a simulation).

Draws samples of ``n`` instances from a synthetic population (confidences and correctness like
those of a Base or a voting estimator), and for each sample computes three 95% intervals of ACE
(20 equal-count bins) from the same seeded resamples: the percentile interval, BCa, and the
bias-centred percentile interval the book uses (:mod:`calib.confidence.bootstrap`). It prints,
per method, how often the interval holds its own estimate and how often it covers

* ``E[ACE_n]``, the expected ACE of a sample of ``n`` instances (Monte Carlo over many samples):
  the quantity a table of ACE at this sample size estimates, and
* the population ACE (one very large sample), which binning noise keeps far below ``E[ACE_n]``
  at a few instances per bin.

    python benchmarks/interval_coverage.py                      # n = 180, both populations
    python benchmarks/interval_coverage.py --n 120 360 --samples 300
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from calib.confidence.bootstrap import (
    _bca_levels,
    _metric_statistic,
    _share_below,
    acceleration,
    interval,
    jackknife,
    percentile_interval,
    replicates,
)
from calib.confidence.metrics import ace

POPULATIONS = ("base", "vote")


def draw(rng: np.random.Generator, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """``n`` instances: ``base`` confidences ~ Beta(0.7, 1.5), right with probability
    ``0.8 * confidence``; ``vote``: 40% rejected (confidence 0, wrong), the rest ~ Beta(1, 2)
    rounded to 0.01 and right with probability ``confidence``."""
    if kind == "base":
        conf = rng.beta(0.7, 1.5, n)
        return conf, rng.random(n) < 0.8 * conf
    conf = np.where(rng.random(n) < 0.4, 0.0, np.round(rng.beta(1, 2, n), 2))
    return conf, (conf > 0) & (rng.random(n) < conf)


def intervals(conf, corr, n_boot: int, seed: int) -> tuple[float, dict]:
    stat, _ = _metric_statistic("ace", conf, corr.astype(float), 20)
    point = float(stat(np.ones((1, len(conf)), np.int64))[0])
    reps = replicates(stat, len(conf), n_boot, seed)
    share = np.clip(_share_below(reps, point), 0.5 / n_boot, 1 - 0.5 / n_boot)
    levels = _bca_levels(stats.norm.ppf(share), acceleration(jackknife(stat, len(conf))), 0.95)
    return point, {
        "percentile": percentile_interval(reps, 0.95),
        # BCa as the formula gives it, before calib.confidence.bootstrap.interval widens it
        "bca": tuple(np.quantile(reps, levels)) if levels else percentile_interval(reps, 0.95),
        "centred": interval(point, reps, 0.95, "centred", bounds=(0.0, 1.0)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=[180])
    parser.add_argument("--samples", type=int, default=150)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for kind in POPULATIONS:
        for n in args.n:
            rng = np.random.default_rng(args.seed)
            population = ace(*draw(rng, 400_000, kind))
            expected = float(np.mean([ace(*draw(rng, n, kind)) for _ in range(2000)]))
            hits = {m: np.zeros(3) for m in ("percentile", "bca", "centred")}
            for s in range(args.samples):
                point, found = intervals(*draw(rng, n, kind), args.n_boot, s)
                for m, (lo, hi) in found.items():
                    hits[m] += [lo <= point <= hi, lo <= expected <= hi, lo <= population <= hi]
            print(f"{kind}, n = {n}: population ACE {population:.4f}, E[ACE_n] {expected:.4f}")
            for m, h in hits.items():
                h = h / args.samples
                print(
                    f"  {m:10s} holds its estimate {h[0]:.2f}  covers E[ACE_n] {h[1]:.2f}  "
                    f"covers the population ACE {h[2]:.2f}"
                )


if __name__ == "__main__":
    main()
