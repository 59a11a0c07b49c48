"""Slow releases under a time budget (issue 64): does `max_seconds` bound the wall time, and is a
blatant bug refuted in it?

    python benchmarks/slow_releases.py           # 20, 150 and 2,000 calls/s, seeds 0-2 (about 13
    min) python benchmarks/slow_releases.py --quick   # 2,000 calls/s, 5 s budgets, seed 0 (CI)

A per-call release of ΣX + Lap(b), one output per call, each call held for 1/rate s of CPU (a busy
wait: the machine is as loaded as by a real library), audited under `PureDP(1)` with
`Domain(max_size=10, relation="add_remove")` and `max_seconds=S`: b = 1 (correct) and b = 0.5 (a
2× noise-scale error, ε = 2 on the classic pair); S "none" is an audit given no budget at all,
which `AuditPolicy.slow_max_seconds` limits. Wall time is measured around `audit`; "power"
says whether the report states what the audit could have detected.
Writes benchmarks/results/slow_releases.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import environment, write

from dpfuzz import AuditPolicy, Domain, PureDP, audit, per_call


def slow_laplace(scale: float, rate: float):
    def release(dataset, rng):
        until = time.perf_counter() + 1.0 / rate
        while time.perf_counter() < until:
            pass
        return float(np.sum(dataset)) + rng.laplace(0.0, scale)

    return per_call(release)


def row(rate: float, scale: float, max_seconds: float | None, seeds: range) -> str:
    domain = Domain(low=0.0, high=1.0, max_size=10, relation="add_remove")
    walls, refuted, bounds, powers = [], 0, [], 0
    for seed in seeds:
        began = time.perf_counter()
        report = audit(
            slow_laplace(scale, rate), PureDP(1.0), domain, seed=seed, max_seconds=max_seconds
        )
        walls.append(time.perf_counter() - began)
        refuted += report.violated
        bounds.append(report.epsilon_lower_bound or 0.0)
        powers += report.violated or report.power is not None
    truth = "correct" if scale == 1.0 else "bug (ε = 2)"
    limit = max_seconds or AuditPolicy().slow_max_seconds
    return (
        f"| {rate:,.0f} | {truth} | {max_seconds or 'none'} | {refuted} of {len(walls)} |"
        f" {np.median(bounds):.3f} | {powers} of {len(walls)} | {max(walls):.1f} |"
        f" {max(walls) / limit:.3f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 calls/s, 5 s budgets, seed 0")
    args = parser.parse_args()
    if args.quick:
        cases, seeds = [(2_000, 0.5, 5.0), (2_000, 1.0, 5.0)], range(1)
    else:
        cases, seeds = (
            [
                (150, 0.5, 60.0),
                (150, 1.0, 30.0),
                (20, 1.0, 60.0),
                (2_000, 1.0, None),
            ],
            range(3),
        )
    rows = [row(rate, scale, seconds, seeds) for rate, scale, seconds in cases]
    lines = [
        "# Slow releases under max_seconds",
        "",
        (
            f"{environment()}; per-call Laplace sum, `PureDP(1)`, seeds"
            f" {seeds.start}–{seeds.stop - 1}; the longest wall time over the seeds."
        ),
        "",
        (
            "| calls/s | release | max_seconds S | refuted | median ε ≥ | power stated | longest"
            " wall s | longest / S |"
        ),
        "|---:|---|---:|---|---:|---|---:|---:|",
        *rows,
    ]
    write("slow_releases", lines, args.quick)


if __name__ == "__main__":
    main()
