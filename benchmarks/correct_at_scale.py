"""Within 5% of the true ε on the correct mechanisms, given their closest pair and the draws that
allow it (issue 16).

    python benchmarks/correct_at_scale.py           # SVT1/2 at 10^9 draws, noisy max at 2.6·10^7,
    two seeds (about 40 minutes) python benchmarks/correct_at_scale.py --quick   # ReportNoisyMax1
    at 2.6·10^6 draws (CI)

`certifiable_ceiling.md` computes, exactly, the pair of DP-Sniper's domain on which one event
certifies the most, and the smallest `max_draws` whose expected certificate reaches 95% of the true
ε = 0.1. Here `estimate_epsilon` runs on that pair with those draws (seeds 0 and 1, β = 0.05): a
bound within 5% of the truth, and never above it, is what the issue asks of the correct mechanisms.
The side-by-side's correct rows stay on the catalogue's witnesses and DP-Sniper's budget, where the
ceilings are lower. Writes benchmarks/results/correct_at_scale.md.
"""

from __future__ import annotations

import argparse
import resource
import time

from cases import answers, row_setup, row_truth
from results_table import environment, write

from dpfuzz import estimate_epsilon

# DP-Sniper's name: (the pair of certifiable_ceiling.md's "draws for 95%", the draws: for SVT1/2
# 10^9, where the expected certificate clears 0.095 by about two of the bound's standard deviations
# (with Clopper–Pearson on each side, 6·10^8 gave 0.0958, less than one, about 0.0012; with the
# joint bound, 2·10^8 gives 0.0955, 4·10^8 0.0966, 10^9 0.0976))
ROWS = {
    "SVT1": (answers([6.0] * 9 + [8.0], [7.0] * 10), 10**9),
    "SVT2": (answers([6.0] * 9 + [8.0], [7.0] * 10), 10**9),
    "ReportNoisyMax1": (answers([-9.0, 7, 7, 7, 7], [-10.0, 8, 8, 8, 8]), 26_000_000),
    "ReportNoisyMax2": (answers([-7.0, -10, -10, -10, -10], [-8.0, -9, -9, -9, -9]), 26_000_000),
}
QUICK = {"ReportNoisyMax1": 2_600_000}
SEEDS = range(2)


def row(name: str, draws: int, seeds: range) -> str:
    mechanism, _, _, searched, _ = row_setup(name)
    pair, truth = ROWS[name][0], row_truth(name)
    bounds, seconds = [], []
    for seed in seeds:
        start = time.perf_counter()
        estimate = estimate_epsilon(
            mechanism, pair, domain=searched, max_draws=draws, seed=seed, beta=0.05
        )
        seconds.append(time.perf_counter() - start)
        bounds.append(estimate.epsilon_lower_bound)
    verdict = f"{min(bounds) / truth:.1%}" + (" (ABOVE the truth)" if max(bounds) > truth else "")
    return (
        f"| {name} | {pair.d0.tolist()} / {pair.d1.tolist()} | {draws:.2g} |"
        f" {' / '.join(f'{bound:.4f}' for bound in bounds)} | {truth:g} | {verdict} |"
        f" {' / '.join(f'{second:.0f}' for second in seconds)} |"
        f" {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="ReportNoisyMax1 at 2.6·10^6 draws")
    args = parser.parse_args()
    budgets = QUICK if args.quick else {name: draws for name, (_, draws) in ROWS.items()}
    seeds = range(1) if args.quick else SEEDS
    lines = [
        "# Within 5% of the true ε on the correct mechanisms: their closest pair, enough draws",
        "",
        (
            f"{environment()}; `estimate_epsilon(mechanism, pair, max_draws=…, seed=s, beta=0.05)`,"
            f" s = {', '.join(map(str, seeds))}, on the pair and"
        ),
        (
            'with the draws of `certifiable_ceiling.md`\'s "draws for 95%" (SVT1/2: 10^9 rather'
            " than its 2·10^8, whose"
        ),
        (
            "expected certificate clears 0.095 by less than its standard deviation; DP-Sniper's"
            " configurations, ε = 0.1)."
        ),
        (
            "Share of true: the smaller bound's. Peak memory is the process's so far (the rows run"
            " in order)."
        ),
        "",
        (
            "| mechanism | pair | draws | ε ≥ (per seed) | true ε | share of true | s (per seed) |"
            " peak GB |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---:|",
        *(row(name, draws, seeds) for name, draws in budgets.items()),
    ]
    write("correct_at_scale", lines, args.quick)


if __name__ == "__main__":
    main()
