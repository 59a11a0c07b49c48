"""The default audit's blind spots (issue 64): exact values, and vectors whose leak is in one
coordinate's tail.

    python benchmarks/blind_spots.py           # seeds 0-9 per bug, 200 seeds per correct release
    python benchmarks/blind_spots.py --quick   # seeds 0-2, 10 seeds per correct release (CI)

`audit(mechanism, PureDP(1), Domain(max_size=10), seed=s)` at the default budget:
- bugs (a point mass one dataset has and its neighbour has not, ε = ∞): the catalogue's
  LaplaceWithFallback at leak 3·10⁻⁴ and 10⁻³, and a 3-coordinate vector whose first coordinate
  is sometimes exact; the catalogue's TruncatedCoordinateLaplace (a vector whose first
  coordinate's noise window moves with the data), 3 and 8 coordinates; refutations over the seeds;
- correct releases with point masses on both sides (a bounded ratio): ClampedLaplace, Laplace
  rounded to a grid of 0.1, and ClampedLaplaceVector; false alarms over the seeds, which must stay
  at most β = 0.05.
Writes benchmarks/results/blind_spots.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import environment, write

from dpfuzz import PureDP, audit
from dpfuzz.catalogue import entry


def vector_with_fallback(leak: float):
    """(ΣX + Lap(3), ΣX + Lap(3), ΣX + Lap(3)): 1-DP (ℓ1 sensitivity 3), except that the first
    coordinate is ΣX itself with probability `leak`."""

    def mechanism(dataset, num_samples, rng):
        total = float(np.sum(dataset))
        outputs = total + rng.laplace(0.0, 3.0, size=(num_samples, 3))
        outputs[rng.random(num_samples) < leak, 0] = total
        return outputs

    return mechanism


def rounded_laplace(dataset, num_samples, rng):
    """Laplace(1) on the sum, rounded to 0.1: post-processing, 1-DP."""
    return np.round(float(np.sum(dataset)) + rng.laplace(0.0, 1.0, size=num_samples), 1)


BUGS = {
    "LaplaceWithFallback, leak 3e-4": entry("LaplaceWithFallback")(leak=3e-4),
    "LaplaceWithFallback, leak 1e-3": entry("LaplaceWithFallback")(leak=1e-3),
    "3-D Laplace, coordinate 0 exact w.p. 3e-4": vector_with_fallback(3e-4),
    "3-D Laplace, coordinate 0 exact w.p. 1e-3": vector_with_fallback(1e-3),
    "TruncatedCoordinateLaplace, 3-D, cut 3": entry("TruncatedCoordinateLaplace")(),
    "TruncatedCoordinateLaplace, 3-D, cut 5": entry("TruncatedCoordinateLaplace")(cut=5.0),
    "TruncatedCoordinateLaplace, 8-D, cut 3": entry("TruncatedCoordinateLaplace")(dim=8),
}
CORRECT = {
    "ClampedLaplace": entry("ClampedLaplace")(),
    "Laplace rounded to 0.1": rounded_laplace,
    "ClampedLaplaceVector, 3-D": entry("ClampedLaplaceVector")(),
}


def row(name: str, mechanism, seeds: range, bug: bool) -> str:
    domain, began = entry("ClampedLaplace").domain(), time.perf_counter()
    reports = [audit(mechanism, PureDP(1.0), domain, seed=seed) for seed in seeds]
    flagged = sum(report.violated for report in reports)
    bounds = [report.epsilon_lower_bound or 0.0 for report in reports]
    seconds = (time.perf_counter() - began) / len(reports)
    verdict = (
        f"refuted {flagged} of {len(reports)}"
        if bug
        else f"false alarms {flagged} of {len(reports)}"
    )
    return (
        f"| {name} | {'bug (ε = ∞)' if bug else 'correct'} | {verdict} | {np.median(bounds):.3f} |"
        f" {seconds:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="seeds 0-2; 10 seeds per correct release"
    )
    args = parser.parse_args()
    bug_seeds, correct_seeds = (range(3), range(10)) if args.quick else (range(10), range(200))
    rows = [row(name, mechanism, bug_seeds, True) for name, mechanism in BUGS.items()]
    rows += [row(name, mechanism, correct_seeds, False) for name, mechanism in CORRECT.items()]
    lines = [
        "# Blind spots: point masses and one coordinate's tails under pure DP",
        "",
        (
            f"{environment()}; `audit(mechanism, PureDP(1), Domain(max_size=10), seed=s)` at the"
            " default budget, β = 0.05."
        ),
        "Median certified ε over the seeds (0 when none); seconds per audit.",
        "",
        "| release | truth | default audit | median ε ≥ | s |",
        "|---|---|---|---:|---:|",
        *rows,
    ]
    write("blind_spots", lines, args.quick)


if __name__ == "__main__":
    main()
