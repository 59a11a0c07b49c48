"""Every catalogue entry on its witness pair: the verdict and certified ε lower bound.

    python benchmarks/catalogue_witness.py           # 200,000 samples per side
    python benchmarks/catalogue_witness.py --quick   # 5,000 per side (smoke test, CI)

Each entry at its default parameters (SVT entries in both input forms), its own tester, both
directions at β = 0.05 each; the stronger direction is reported. Writes
benchmarks/results/catalogue_witness.md (quick: results/quick/).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import both_directions, environment, write

from dpfuzz.catalogue import catalogue
from dpfuzz.testers import make_tester


def rows(samples: int) -> list[str]:
    lines = []
    for item in catalogue():
        for params in [{"form": "answers"}, {"form": "dataset"}] if item.family == "svt" else [{}]:
            witness, truth = item.witness(**params), item.truth(**params)
            if witness is None:
                continue
            mechanism, claim = item(**params), item.claim(**params)
            rng = np.random.default_rng(0)
            start = time.perf_counter()
            samples0, samples1 = (
                mechanism(witness.d0, samples, rng),
                mechanism(witness.d1, samples, rng),
            )
            tester = make_tester(item.tester, claim, samples0)
            # both directions at β = 0.05 each
            result = max(
                both_directions(tester, samples0, samples1, claim, 0.10, rng), key=lambda r: r.bound
            )
            seconds = time.perf_counter() - start
            name = item.name + (f" ({params['form']})" if params else "")
            verdict = {True: "satisfies", False: "violates", None: "unknown"}[truth.satisfies]
            true = "" if truth.true_epsilon is None else f"{truth.true_epsilon:.4g}"
            lower = (
                "—" if result.epsilon_lower_bound is None else f"{result.epsilon_lower_bound:.3f}"
            )
            refuted = "**refuted**" if result.violated else "not refuted"
            lines.append(
                f"| {name} | {claim.describe()} | {verdict} | {true} | {tester.name} | {refuted} |"
                f" {lower} | {samples:,} | {seconds:.2f} |"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 samples per side")
    args = parser.parse_args()
    samples = 5_000 if args.quick else 200_000
    lines = [
        "# Catalogue on its witness pairs",
        "",
        (
            f"{environment()}. ε lower bounds are certified at 95% (Rényi ε at the claim's α for"
            " RDP claims);"
        ),
        "seconds include sampling both sides and both test directions.",
        "",
        (
            "| mechanism | claim | truth | true ε | tester | verdict | certified ε ≥ | samples per"
            " side | seconds |"
        ),
        "|---|---|---|---:|---|---|---:|---:|---:|",
        *rows(samples),
    ]
    write("catalogue_witness", lines, args.quick)


if __name__ == "__main__":
    main()
