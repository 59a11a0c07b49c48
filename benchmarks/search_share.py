"""How much of its draws `estimate_epsilon` should spend choosing the pair when it searches a
domain (issue 16): the certified ε over seeds at the default share (half) and at a quarter.

    python benchmarks/search_share.py           # 8 rows, seeds 0-2, 2.6·10^7 draws (13–25 min)
    python benchmarks/search_share.py --quick   # Laplace, seed 0, 6·10^5 draws (CI)

The search stage fits and scores every pair's event on its own held-out halves; the rest of the
draws certify the chosen pair. A larger share chooses better where the pairs' events are hard to
fit on few samples (SVT1/SVT2: at 1.6·10^5 outputs per side the whole-space-like events of the
all-answers-moved pattern outscore the half-up/half-down pattern that certifies twice as much on
more samples), and costs certification samples everywhere else. Rows and β as in
`dpsniper_side_by_side.py` (DP-Sniper's rows at β = 0.1, the correct mechanisms' at 0.05); the
share is `EstimationPolicy.search_share`. Writes benchmarks/results/search_share.md.
"""

from __future__ import annotations

import argparse

import numpy as np
from cases import ROWS, row_truth, timed_estimate
from results_table import environment, write

from dpfuzz import EstimationPolicy

DEFAULT_SHARE = EstimationPolicy().search_share
FULL_ROWS = [
    "SVT1",
    "SVT2",
    "SVT3",
    "SVT4",
    "SVT6",
    "ReportNoisyMax1",
    "ReportNoisyMax3",
    "Laplace",
]
SHARES = [DEFAULT_SHARE, 0.25]


def searched(name: str, share: float, seeds: range, max_draws: int) -> list[float]:
    """Certified ε when searching the row's domain with `share` of the draws on the search."""
    policy = EstimationPolicy(search_share=share)
    return [
        timed_estimate(name, False, seed, max_draws=max_draws, policy=policy)[0] for seed in seeds
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="Laplace, seed 0, 6·10^5 draws")
    args = parser.parse_args()
    names, seeds, max_draws = (
        (["Laplace"], range(1), 600_000) if args.quick else (FULL_ROWS, range(3), 26_000_000)
    )
    rows = []
    for name in names:
        sniper_epsilon = ROWS[name][4]
        reference = (
            f"DP-Sniper {sniper_epsilon:g}"
            if sniper_epsilon is not None
            else f"true {row_truth(name):g}"
        )
        for share in SHARES:
            bounds = searched(name, share, seeds, max_draws)
            rows.append(
                f"| {name} | {reference} |"
                f" {share:.0%}{' (default)' if share == DEFAULT_SHARE else ''} |"
                f" {' / '.join(f'{bound:.4g}' for bound in bounds)} | {np.mean(bounds):.4g} |"
                f" {min(bounds):.4g} |"
            )
    lines = [
        "# The search's share of the draws in estimate_epsilon",
        "",
        (
            f"{environment()}; `estimate_epsilon(entry, domain, max_draws={max_draws:,}, seed=s)`,"
            f" seeds {', '.join(map(str, seeds))}, searching the row's domain in"
            " `dpsniper_side_by_side.py` (10 pairs) with"
        ),
        (
            "`EstimationPolicy.search_share` of the draws on the search and the rest on the chosen"
            " pair."
        ),
        "",
        "| mechanism | reference | search share | ε ≥ per seed | mean | smallest |",
        "|---|---|---|---|---:|---:|",
        *rows,
    ]
    write("search_share", lines, args.quick)


if __name__ == "__main__":
    main()
