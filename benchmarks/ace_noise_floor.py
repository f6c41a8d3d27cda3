"""The noise floor of ACE (and ECE) against the sample size, for the issue's synthetic estimator.

Confidences are drawn from Beta(1.2, 3) (a right-skewed distribution like a small model's
Base-Confidence); the floor is the expected ACE (20 equal-count bins) / ECE (20 equal-width bins)
of a *perfectly calibrated* estimator with those confidences, from ``--draws`` simulated outcome
vectors (:func:`calib.confidence.noise_floor.noise_floor`). For each ``n`` it prints the floor
for one confidence sample (seed 0) with its Monte-Carlo standard error and the central 95% range
of the draws (an ACE in that range is not distinguishable from perfect calibration at this
``n``), and the smallest and largest floor over ``--samples`` independent confidence samples (how
much the floor depends on the particular confidences). Pure numpy; no model, no data.

    python benchmarks/ace_noise_floor.py                  # writes nothing, prints the table
    python benchmarks/ace_noise_floor.py > benchmarks/results/ace_noise_floor.txt
"""

from __future__ import annotations

import argparse
import platform

import numpy as np

from calib.confidence.noise_floor import noise_floor

SIZES = (120, 240, 1000, 7731)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument(
        "--samples",
        type=int,
        default=5,
        help="independent confidence samples per n for the min-max column",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        f"# ACE / ECE noise floor: confidences ~ Beta(1.2, 3), outcomes ~ Bernoulli(confidence),"
        f" 20 bins, {args.draws} draws (seed {args.seed}); python benchmarks/ace_noise_floor.py"
        f" --draws {args.draws} --samples {args.samples}"
    )
    print(f"# numpy {np.__version__}, {platform.machine()}")
    print(
        f"{'n':>6}  {'ACE floor':>9}  {'MC s.e.':>7}  {'95% of draws':>16}  "
        f"{'over samples':>15}  {'ECE floor':>9}  {'MC s.e.':>7}"
    )
    for n in args.n:
        floors = []
        for s in range(args.samples):
            conf = np.random.default_rng([args.seed, n, s]).beta(1.2, 3.0, n)
            floors.append(noise_floor(conf, "ace", args.draws, seed=args.seed))
            if s == 0:
                first_ece = noise_floor(conf, "ece", args.draws, seed=args.seed)
        f = floors[0]
        values = [g["floor"] for g in floors]
        print(
            f"{n:>6}  {f['floor']:>9.4f}  {f['floor_se']:>7.4f}  "
            f"[{f['floor_low']:.4f}, {f['floor_high']:.4f}]  "
            f"[{min(values):.4f}, {max(values):.4f}]  {first_ece['floor']:>9.4f}  "
            f"{first_ece['floor_se']:>7.4f}"
        )


if __name__ == "__main__":
    main()
