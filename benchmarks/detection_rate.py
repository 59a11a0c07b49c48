"""Detection rate of each tester on the buggy means and SVTs (paper 002, Table 1).

    python benchmarks/detection_rate.py           # 10 runs per cell, n = 5·10^4, 10^5, 5·10^5
    python benchmarks/detection_rate.py --quick   # 2 runs, n = 5,000, two mechanisms (CI)

Each run draws n samples per side on the entry's witness pair and asks the tester, in both
directions at β = 0.025 each (so a run on a correct mechanism raises a false alarm with
probability ≤ 0.05), whether the claim is refuted. The claim is the entry's at the given ε:
pure ε-DP for the Laplace means and SVTs; for the Gaussian means (ε, 10⁻⁵)-DP for the
histogram, hockey-stick and MMD testers, and the Rényi claim of the same noise (dp-accounting,
α = 2) for the Rényi tester, since each tester refutes the guarantee its divergence bounds.
SVT outputs are vectors, which the histogram tester does not take ("–", as in the paper).
Writes benchmarks/results/detection_rate.md beside the published counts.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import environment, refuted_either_way, write

from dpfuzz.catalogue import entry
from dpfuzz.errors import UnsupportedOutputError
from dpfuzz.testers import make_tester

TESTERS = ["histogram", "hockey_stick", "renyi", "mmd"]
MECHANISMS = [
    "NonDPLaplaceMean1",
    "NonDPLaplaceMean2",
    "NonDPGaussianMean1",
    "NonDPGaussianMean2",
    "SVT3",
    "SVT4",
    "SVT5",
    "SVT6",
]
EPSILONS = [0.01, 1.0]
SIZES = [50_000, 100_000, 500_000]

# Paper 002, Table 1: detections in 10 runs, per tester at n = 50k, 100k, 500k (None: not run).
PUBLISHED = {
    ("NonDPLaplaceMean1", 0.01): {
        "histogram": (0, 0, 0),
        "hockey_stick": (9, 8, 9),
        "renyi": (10, 10, 10),
        "mmd": (10, 9, 10),
    },
    ("NonDPLaplaceMean1", 1.0): {
        "histogram": (0, 0, 0),
        "hockey_stick": (10, 10, 10),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("NonDPLaplaceMean2", 0.01): {
        "histogram": (10, 10, 10),
        "hockey_stick": (10, 10, 10),
        "renyi": (10, 7, 5),
        "mmd": (0, 1, 0),
    },
    ("NonDPLaplaceMean2", 1.0): {
        "histogram": (0, 0, 0),
        "hockey_stick": (0, 0, 0),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("NonDPGaussianMean1", 0.01): {
        "histogram": (0, 0, 0),
        "hockey_stick": (0, 0, 0),
        "renyi": (10, 10, 10),
        "mmd": (10, 4, 10),
    },
    ("NonDPGaussianMean1", 1.0): {
        "histogram": (0, 0, 0),
        "hockey_stick": (10, 10, 10),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("NonDPGaussianMean2", 0.01): {
        "histogram": (0, 0, 0),
        "hockey_stick": (6, 5, 5),
        "renyi": (10, 10, 10),
        "mmd": (0, 0, 0),
    },
    ("NonDPGaussianMean2", 1.0): {
        "histogram": (0, 0, 0),
        "hockey_stick": (0, 0, 0),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("SVT3", 0.01): {
        "histogram": None,
        "hockey_stick": (0, 0, 0),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("SVT3", 1.0): {
        "histogram": None,
        "hockey_stick": (0, 0, 0),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("SVT4", 0.01): {
        "histogram": None,
        "hockey_stick": (0, 0, 0),
        "renyi": (0, 0, 0),
        "mmd": (1, 2, 0),
    },
    ("SVT4", 1.0): {
        "histogram": None,
        "hockey_stick": (10, 10, 10),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("SVT5", 0.01): {
        "histogram": None,
        "hockey_stick": (0, 0, 0),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("SVT5", 1.0): {
        "histogram": None,
        "hockey_stick": (10, 10, 10),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("SVT6", 0.01): {
        "histogram": None,
        "hockey_stick": (0, 0, 0),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
    ("SVT6", 1.0): {
        "histogram": None,
        "hockey_stick": (10, 10, 10),
        "renyi": (0, 0, 0),
        "mmd": (0, 0, 0),
    },
}


def parameters(name: str, epsilon: float, tester: str) -> dict:
    if name.startswith("NonDPGaussian"):
        return {"epsilon": epsilon, "guarantee": "renyi" if tester == "renyi" else "approx"}
    return {"epsilon": epsilon}


def detections(name: str, epsilon: float, size: int, runs: int) -> dict[str, int | None]:
    """Detections in `runs` runs per tester; the runs' samples are shared by the testers."""
    item = entry(name)
    witness = item.witness(epsilon=epsilon)
    mechanism = item(epsilon=epsilon)  # the witness and samples do not depend on the claim form
    claims = {tester: item.claim(**parameters(name, epsilon, tester)) for tester in TESTERS}
    counts: dict[str, int | None] = dict.fromkeys(TESTERS, 0)
    for run in range(runs):
        rng = np.random.default_rng([run, size, int(epsilon * 1000)])
        samples0, samples1 = mechanism(witness.d0, size, rng), mechanism(witness.d1, size, rng)
        for tester, claim in claims.items():
            if counts[tester] is None:
                continue
            try:
                counts[tester] += refuted_either_way(
                    make_tester(tester, claim), samples0, samples1, claim, 0.05, rng
                )
            except UnsupportedOutputError:
                counts[tester] = None
    return counts


def cell(ours: int | None, published: tuple | None, index: int) -> str:
    if ours is None:
        return "–"
    return f"{ours}" + ("" if published is None else f" ({published[index]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 runs, n = 5,000, two mechanisms")
    args = parser.parse_args()
    runs = 2 if args.quick else 10
    sizes = [5_000] if args.quick else SIZES
    mechanisms = ["NonDPLaplaceMean1", "SVT5"] if args.quick else MECHANISMS
    rows, fewer, compared = [], [], 0
    settings = caught = caught_published = (
        0  # (mechanism, ε, n) where some tester detects every run
    )
    for name in mechanisms:
        for epsilon in EPSILONS:
            start = time.perf_counter()
            by_size = [detections(name, epsilon, size, runs) for size in sizes]
            published = PUBLISHED[(name, epsilon)]
            for index, counts in enumerate(by_size):
                settings += 1
                caught += any(counts[tester] == runs for tester in TESTERS)
                caught_published += any(
                    published[tester] is not None and published[tester][index] == 10
                    for tester in TESTERS
                )
            for tester in TESTERS:
                for index, counts in enumerate(by_size):
                    if counts[tester] is not None and published[tester] is not None:
                        compared += 1
                        if counts[tester] < published[tester][index]:
                            fewer.append(
                                f"{name} ε = {epsilon} {tester} n = {sizes[index]:,}:"
                                f" {counts[tester]} vs {published[tester][index]}"
                            )
            cells = [
                cell(counts[tester], published[tester], index)
                for tester in TESTERS
                for index, counts in enumerate(by_size)
            ]
            rows.append(
                f"| {name} | {epsilon} | "
                + " | ".join(cells)
                + f" | {time.perf_counter() - start:.0f} |"
            )
            print(rows[-1], flush=True)
    size_names = [f"{size // 1000}k" for size in sizes]
    lines = [
        "# Detection rate (paper 002, Table 1)",
        "",
        f"{environment()}. Detections in {runs} runs on the witness pair, ours (published in",
        "parentheses); a detection is a refutation certified at 95% confidence (both directions at",
        "β = 0.025). Columns: tester at n samples per side; last column: seconds for the row.",
        "",
        "| mechanism | ε | "
        + " | ".join(f"{tester} {size}" for tester in TESTERS for size in size_names)
        + " | s |",
        "|---|---|" + "---|" * (len(TESTERS) * len(sizes) + 1),
        *rows,
        "",
        (
            f"Some tester detects the bug in every run in {caught} of {settings} settings"
            " (mechanism, ε, n); published:"
        ),
        f"{caught_published} of {settings}. Ours detect at least as often as published in"
        f" {compared - len(fewer)} of {compared} cells"
        + (" (the quick mode compares its few runs against 10)." if args.quick else "."),
        *(
            ["Fewer detections than published:", *[f"- {cell_}" for cell_ in fewer]]
            if fewer
            else []
        ),
    ]
    write("detection_rate", lines, args.quick)


if __name__ == "__main__":
    main()
