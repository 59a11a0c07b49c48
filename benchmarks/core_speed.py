"""Wall time of whole default audits (the 1-D tester alone: tester_speed.py).

    python benchmarks/core_speed.py           # 100,000 samples per trial, 5 repetitions
    python benchmarks/core_speed.py --quick   # smoke test (CI)

Writes benchmarks/results/core_speed.md (quick mode: benchmarks/results/quick/).
"""

from __future__ import annotations

import argparse
import statistics
import time

from results_table import environment, write

from dpfuzz import audit
from dpfuzz.catalogue import entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 samples, one repetition")
    args = parser.parse_args()
    repetitions = 1 if args.quick else 5
    samples = 10_000 if args.quick else 100_000
    rows = []
    for name in ("NonDPLaplaceMean1", "DPLaplaceMean", "SVT4", "NoisyHistogram"):
        item = entry(name)
        times, verdicts = [], []
        for seed in range(repetitions):
            start = time.perf_counter()
            report = audit(item(), item.claim(), item.domain(), samples=samples, seed=seed)
            times.append(time.perf_counter() - start)
            verdicts.append(report.violated)
        rows.append(
            f"| {name} | {samples:,} | {statistics.median(times):.2f} |"
            f" {sum(verdicts)}/{repetitions} |"
        )
    lines = [
        "# Whole default audits",
        "",
        (
            f"{environment()}; median of {repetitions} run(s). Default audit: 10 trials, random"
            " finder, adaptive"
        ),
        (
            "sampling (racing search, sequential verification on up to 5x fresh samples;"
            " adaptive.py compares"
        ),
        "it with fixed sampling), tester 'auto'.",
        "",
        "| mechanism | samples per trial | seconds | refuted |",
        "|---|---:|---:|---:|",
        *rows,
    ]
    write("core_speed", lines, args.quick)


if __name__ == "__main__":
    main()
