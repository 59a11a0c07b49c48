"""One-run audits against the truth: paper 003's Figures 6–8 (Xiang, Wang & Wang).

    python benchmarks/one_run.py           # m = 10^2 … 10^5 canaries, 20 seeds
    python benchmarks/one_run.py --quick   # m = 10^2 and 10^3, 3 seeds (CI)

Each algorithm has one output coordinate per canary (a memoryless channel): the Gaussian mechanism
(exactly μ-GDP per canary, μ ∈ {0.5, 1, 2}), randomized response and Laplace (exactly ε-DP,
ε ∈ {1, 2, 4}). `audit_one_run` at β = 0.05 with both methods: "bits" (paper 003; for the Gaussian
its GDP-family ε at δ = 10^-5, for the others its (ε, δ)-family ε) and "steinke" (Steinke, Nasr &
Jagielski 2023, valid without the memoryless assumption). Cells: the median certified ε over the
seeds as a share of the true ε, [min, max] across seeds; "above" counts seeds above the truth.
Writes benchmarks/results/one_run.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import environment, write

from dpfuzz import audit_one_run
from dpfuzz.catalogue.one_run import (
    gaussian_canaries,
    laplace_canaries,
    randomized_response_canaries,
)

DELTA = 1e-5


def algorithms():
    for mu in (0.5, 1.0, 2.0):
        yield (
            f"Gaussian μ = {mu:g}",
            gaussian_canaries(mu),
            gaussian_canaries(mu).claim.epsilon_at(DELTA),
            DELTA,
        )
    for epsilon in (1.0, 2.0, 4.0):
        yield (
            f"randomized response ε = {epsilon:g}",
            randomized_response_canaries(epsilon),
            epsilon,
            0.0,
        )
        yield f"Laplace ε = {epsilon:g}", laplace_canaries(epsilon), epsilon, 0.0


def cell(values: list[float], truth: float) -> tuple[str, int]:
    shares = np.asarray(values) / truth
    return f"{np.median(shares):.1%} [{shares.min():.1%}, {shares.max():.1%}]", int(
        np.sum(np.asarray(values) > truth)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="m = 10^2 and 10^3, 3 seeds")
    args = parser.parse_args()
    sizes = [100, 1_000] if args.quick else [100, 1_000, 10_000, 100_000]
    seeds = range(3 if args.quick else 20)
    rows = []
    for name, run, truth, delta in algorithms():
        for m in sizes:
            cells, above, seconds = [], 0, []
            for method in ("bits", "steinke"):
                values = []
                for seed in seeds:
                    start = time.perf_counter()
                    result = audit_one_run(
                        run, run.claim, canaries=m, seed=seed, method=method, delta=delta
                    )
                    seconds.append(time.perf_counter() - start)
                    gdp = method == "bits" and result.epsilon_lower_bound_gdp is not None
                    values.append(
                        result.epsilon_lower_bound_gdp if gdp else result.epsilon_lower_bound
                    )
                text, over = cell(values, truth)
                cells.append(text)
                above += over
            rows.append(
                f"| {name} | {truth:.3g} | {m:,} | {cells[0]} | {cells[1]} | {above} |"
                f" {np.median(seconds):.3f} |"
            )
    lines = [
        "# One-run audits against the truth (paper 003, Figures 6–8)",
        "",
        (
            f"{environment()}; β = 0.05, {len(seeds)} seeds per cell, δ = 10^-5 for the Gaussian, 0"
            " otherwise."
        ),
        "",
        (
            "| algorithm | true ε | canaries m | bits: median share of true ε [min, max] | steinke:"
            " same | seeds above the truth | median s per audit |"
        ),
        "|---|---:|---:|---|---|---:|---:|",
        *rows,
    ]
    write("one_run", lines, args.quick)


if __name__ == "__main__":
    main()
