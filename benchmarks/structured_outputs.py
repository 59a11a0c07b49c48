"""Structured outputs (`dpfuzz.structured`): releases of keyed results and labels, buggy and
correct, audited through their natural outputs. Catches over seeds, and false alarms over many.

    python benchmarks/structured_outputs.py           # 10 seeds per bug, 100 per correct release
    python benchmarks/structured_outputs.py --quick   # 2 and 5 (CI)

Rows, each `audit(structured(release), claim, domain, budget="quick", seed=s)`:
- a group-by count with partition selection (records are keys 0–4, Laplace(1) counts): every
  key with a positive noisy count released (no finite ε), or keys above 1 + ln(1/(2δ))/ε
  ((1, 1e-5)-DP);
- a noisy arg-max that returns a label ("low", "middle", "high") of counting queries on records
  in [0, 1]: Laplace(0.1) noise (a bug) or Laplace(2) (1-DP: report noisy max with scale 2/ε).
Writes benchmarks/results/structured_outputs.md.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from results_table import environment, write

from dpfuzz import ApproxDP, Domain, PureDP, audit, structured

KEYS = Domain(low=0, high=4, dtype="int", max_size=3)
LABELS = ("low", "middle", "high")


def noisy_counts(threshold: float):
    def release(dataset, rng):
        keys, counts = np.unique(np.asarray(dataset, dtype=int), return_counts=True)
        noisy = counts + rng.laplace(0.0, 1.0, len(counts))
        return {int(key): float(value) for key, value in zip(keys, noisy) if value > threshold}

    return release


def noisy_label(scale: float):
    def release(dataset, rng):
        scores = np.array(
            [
                np.sum(dataset < 1 / 3),
                np.sum((dataset >= 1 / 3) & (dataset < 2 / 3)),
                np.sum(dataset >= 2 / 3),
            ]
        )
        return LABELS[int(np.argmax(scores + rng.laplace(0.0, scale, 3)))]

    return release


ROWS = [
    (
        "partition selection, every positive key",
        noisy_counts(0.0),
        ApproxDP(1.0, 1e-5),
        KEYS,
        "violates",
    ),
    (
        "partition selection, thresholded for δ",
        noisy_counts(1 + math.log(1 / 2e-5)),
        ApproxDP(1.0, 1e-5),
        KEYS,
        "satisfies",
    ),
    (
        "noisy arg-max label, Laplace(0.1)",
        noisy_label(0.1),
        PureDP(1.0),
        Domain(max_size=3),
        "violates",
    ),
    (
        "noisy arg-max label, Laplace(2)",
        noisy_label(2.0),
        PureDP(1.0),
        Domain(max_size=3),
        "satisfies",
    ),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="2 seeds per bug, 5 per correct release"
    )
    args = parser.parse_args()
    bug_seeds, correct_seeds = (2, 5) if args.quick else (10, 100)
    lines = []
    for name, release, claim, domain, truth in ROWS:
        seeds = bug_seeds if truth == "violates" else correct_seeds
        began, refuted, events = time.perf_counter(), 0, {}
        for seed in range(seeds):
            report = audit(structured(release), claim, domain, budget="quick", seed=seed)
            refuted += report.violated
            if report.violated:
                events[report.verification.event] = events.get(report.verification.event, 0) + 1
        common = max(events, key=events.get) if events else "—"
        what = (
            f"{refuted} of {seeds} caught"
            if truth == "violates"
            else f"{refuted} of {seeds} false alarms"
        )
        lines.append(
            f"| {name} | {claim.describe()} | {truth} | {what} | {common} |"
            f" {(time.perf_counter() - began) / seeds:.2f} |"
        )
        print(lines[-1], flush=True)
    write(
        "structured_outputs",
        [
            "# Structured outputs",
            "",
            (
                f'{environment()}; `audit(structured(release), claim, domain, budget="quick",'
                " seed=s)`, β = 0.05."
            ),
            "",
            "| release | claim | truth | refuted | most common event | s per audit |",
            "|---|---|---|---|---|---:|",
            *lines,
        ],
        args.quick,
    )


if __name__ == "__main__":
    main()
