"""Three verdicts (issue 67, docs/decisions/0020): an (ε, δ) claim is "not refuted" only where the
audit could have caught a release failing with probability 2δ; otherwise it is refuted or
inconclusive.

    python benchmarks/verdicts.py           # seeds 0-5 per row
    python benchmarks/verdicts.py --quick   # seed 0, quick budget only (CI)

A Gaussian sum over records in [0, 1] (sensitivity 1) claiming (1, 10⁻⁵): with the classic
noise σ = √(2 ln(1.25/δ)) (correct), and with half of it (a bug: ε ≈ 1.8 at δ = 10⁻⁵). Each row
counts the verdicts over the seeds. Writes benchmarks/results/verdicts.md.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from results_table import environment, write

from dpfuzz import ApproxDP, Domain, Verdict, audit

SIGMA = math.sqrt(2 * math.log(1.25 / 1e-5))


def gaussian_sum(scale: float):
    def mechanism(dataset, num_samples, rng):
        return np.clip(dataset, 0.0, 1.0).sum() + rng.normal(0.0, scale * SIGMA, size=num_samples)

    return mechanism


RELEASES = {"half noise (bug)": gaussian_sum(0.5), "classic noise (correct)": gaussian_sum(1.0)}
BUDGETS = {
    "quick": {"budget": "quick"},
    "default": {},
    "default, verify_samples=3,000,000": {"verify_samples": 3_000_000},
}


def row(release: str, budget: str, seeds: range) -> str:
    began = time.perf_counter()
    reports = [
        audit(
            RELEASES[release], ApproxDP(1.0, 1e-5), Domain(max_size=5), seed=seed, **BUDGETS[budget]
        )
        for seed in seeds
    ]
    counts = [sum(report.verdict is verdict for report in reports) for verdict in Verdict]
    seconds = (time.perf_counter() - began) / len(reports)
    return f"| {release} | {budget} | {' | '.join(map(str, counts))} | {seconds:.1f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="seed 0, the quick budget only")
    args = parser.parse_args()
    seeds, budgets = (range(1), ["quick"]) if args.quick else (range(6), list(BUDGETS))
    rows = [row(release, budget, seeds) for release in RELEASES for budget in budgets]
    lines = [
        "# Verdicts of a Gaussian sum claiming (1, 1e-5)",
        "",
        (
            f"{environment()}; `audit(mechanism, ApproxDP(1, 1e-5), Domain(max_size=5), seed=s)`,"
            f" seeds 0–{len(seeds) - 1}, β = 0.05."
        ),
        "",
        "| release | budget | violated | not refuted | inconclusive | s per audit |",
        "|---|---|---:|---:|---:|---:|",
        *rows,
    ]
    write("verdicts", lines, args.quick)


if __name__ == "__main__":
    main()
