"""Seconds and bound of one estimate per tester vs samples per side, 1-D outputs (paper 002, Fig.
1a).

    python benchmarks/tester_speed.py           # n in {5·10^4, 10^5, 5·10^5, 10^6}, 3 repetitions
    python benchmarks/tester_speed.py --quick   # smoke test (CI)

Pair: Lap(0, 1) against Lap(1, 1). Claims: PureDP(0.5) for hockey_stick, histogram, float_bits
(the event testers, with objective="divergence") and mmd, RenyiDP(2, 0.1) for renyi. Writes
benchmarks/results/tester_speed.md and tester_speed.png (quick: results/quick/).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from results_table import environment, save_figure, subplots, write

from dpfuzz import PureDP, RenyiDP
from dpfuzz.testers import TESTER_NAMES, tester_class

EVENT_TESTERS = ("hockey_stick", "histogram", "float_bits")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small size, one repetition")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else [50_000, 100_000, 500_000, 1_000_000]
    repetitions = 1 if args.quick else 3
    rows, curves = [], {}
    for name in TESTER_NAMES:
        claim = RenyiDP(2.0, 0.1) if name == "renyi" else PureDP(0.5)
        # the bound column is H_{e^ε}, beside its true value: the event testers pick the event of
        # largest H, not (their audit default) the one that certifies the largest ε
        tester = tester_class(name)(
            **({"objective": "divergence"} if name in EVENT_TESTERS else {})
        )
        for n in sizes:
            seconds, bounds = [], []
            for seed in range(repetitions):
                rng = np.random.default_rng(seed)
                p, q = rng.laplace(0, 1, n), rng.laplace(1, 1, n)
                start = time.perf_counter()
                result = tester.test(p, q, claim, 0.05, rng)
                seconds.append(time.perf_counter() - start)
                bounds.append(result.bound)
            curves.setdefault(name, []).append(statistics.median(seconds))
            rows.append(
                f"| {name} | {n:,} | {statistics.median(seconds):.3f} | {np.mean(bounds):.4f} |"
                f" {result.divergence} |"
            )
    lines = [
        "# Tester speed",
        "",
        f"{environment()}; median seconds of {repetitions} run(s), mean bound.",
        (
            "Lap(0,1) vs Lap(1,1): H_{e^0.5} = 0.2212, R_2 = 0.6191, 2·TV = 0.7869 (bounds MMD) for"
            " the real-valued"
        ),
        (
            "laws. float_bits tests the float64 outputs, and numpy's Laplace sampler (x + textbook"
            " noise) leaks through"
        ),
        (
            "its bit patterns (Mironov 2012), so its bound may exceed the real-valued H: that is a"
            " true float-level finding."
        ),
        "",
        "| tester | samples per side | seconds | bound | divergence |",
        "|---|---:|---:|---:|---|",
        *rows,
        "",
        (
            "Paper 002 (§6.4, Fig. 1a) timed its testers on NonDPLaplace1 at 5·10^4 to 5·10^5"
            " samples on a Colab CPU and"
        ),
        (
            "found its hockey-stick tester (a network trained for 30 epochs) the slowest; the"
            " figure's values are not in the text we hold."
        ),
        "",
        "![tester speed](tester_speed.png)",
    ]
    plot(sizes, curves, args.quick)
    write("tester_speed", lines, args.quick)


def plot(sizes: list[int], curves: dict[str, list[float]], quick: bool) -> None:
    figure, axis = subplots(figsize=(6, 4))
    for name, seconds in curves.items():
        axis.plot(sizes, seconds, "o-", label=name)
    axis.set_xscale("log")
    axis.set_yscale("log")
    axis.set_xlabel("samples per side")
    axis.set_ylabel("seconds per estimate")
    axis.legend()
    save_figure(figure, "tester_speed", quick)


if __name__ == "__main__":
    main()
