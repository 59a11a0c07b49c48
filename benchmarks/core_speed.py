"""Speed of the core: one hockey-stick estimate vs samples, and whole default audits.

    python benchmarks/core_speed.py           # full: n up to 10^6, 5 repetitions
    python benchmarks/core_speed.py --quick   # smoke test (CI)

Writes benchmarks/results/core_speed.md (quick mode: benchmarks/results/quick/).
Times are medians over repetitions on the machine it runs on; the tester is timed on
Lap(0, 1) against Lap(1, 1) with the claim 0.5-DP (fit on one half, evaluate on the other).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from datetime import date
from pathlib import Path

import numpy as np

import dpfuzz
from dpfuzz import HockeyStickTester, PureDP, audit
from dpfuzz.divergences import laplace_hockey_stick
from mechanisms import entry


def tester_rows(sizes: list[int], repetitions: int) -> list[str]:
    tester, claim = HockeyStickTester(), PureDP(0.5)
    rows = []
    for n in sizes:
        times, bounds = [], []
        for seed in range(repetitions):
            rng = np.random.default_rng(seed)
            p, q = rng.laplace(0, 1, n), rng.laplace(1, 1, n)
            start = time.perf_counter()
            result = tester.test(p, q, claim, 0.05, rng)
            times.append(time.perf_counter() - start)
            bounds.append(result.bound)
        rows.append(
            f"| {n:,} | {statistics.median(times):.3f} | {np.mean(bounds):.4f} | {laplace_hockey_stick(0.5, 1.0):.4f} |"
        )
    return rows


def audit_rows(names: list[str], repetitions: int, samples: int) -> list[str]:
    rows = []
    for name in names:
        item = entry(name)
        times, verdicts = [], []
        for seed in range(repetitions):
            start = time.perf_counter()
            report = audit(item(), item.claim(), item.domain(), samples=samples, seed=seed)
            times.append(time.perf_counter() - start)
            verdicts.append(report.violated)
        rows.append(f"| {name} | {samples:,} | {statistics.median(times):.2f} | {sum(verdicts)}/{repetitions} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repetition (smoke test)")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else [10_000, 100_000, 1_000_000]
    repetitions = 1 if args.quick else 5
    samples = 10_000 if args.quick else 100_000
    out_dir = Path(__file__).parent / "results" / ("quick" if args.quick else "")
    out_dir.mkdir(parents=True, exist_ok=True)

    lines = [
        "# Core speed",
        "",
        f"{date.today()}, dpfuzz {dpfuzz.__version__}, numpy {np.__version__}, Python {platform.python_version()}, "
        f"{platform.machine()} ({platform.processor() or 'cpu'}); median of {repetitions} run(s).",
        "",
        "## One hockey-stick estimate (Lap(0,1) vs Lap(1,1), claim 0.5-DP)",
        "",
        "| samples per side | seconds | mean certified H lower bound | true H |",
        "|---:|---:|---:|---:|",
        *tester_rows(sizes, repetitions),
        "",
        "## Whole default audits (10 trials, random finder, verification on 5x fresh samples)",
        "",
        "| mechanism | samples per trial | seconds | refuted |",
        "|---|---:|---:|---:|",
        *audit_rows(["NonDPLaplaceMean1", "DPLaplaceMean"], repetitions, samples),
        "",
    ]
    path = out_dir / "core_speed.md"
    path.write_text("\n".join(lines))
    print("\n".join(lines))
    print(f"written to {path}")


if __name__ == "__main__":
    main()
