"""Tightness: certified ε lower bound / true ε as the number of samples grows.

    python benchmarks/tightness.py           # n = 10^4 … 10^7 per side, 3 seeds
    python benchmarks/tightness.py --quick   # n = 10^4 and 10^5, 1 seed (CI)

Three mechanisms whose ε is exact: the Laplace mechanism (ε = 1, catalogue ``Laplace``),
randomized response (ε = 1, ``RandomizedResponse``), and the Gaussian mechanism N(0, 1) against
N(1, 1) at δ = 10⁻³, whose ε(δ) solves H_{e^ε} = δ (closed form, `divergences`). The hockey-stick
tester with ``objective="epsilon"`` and ``certificate="privacy_loss"`` fits on half of the n
samples per side and certifies on the other half, both directions at β = 0.025. Writes
benchmarks/results/tightness.md and .png.
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np
from results_table import both_directions, environment, save_figure, subplots, write
from scipy.optimize import brentq

from dpfuzz import ApproxDP, PureDP
from dpfuzz.catalogue import entry
from dpfuzz.divergences import gaussian_hockey_stick
from dpfuzz.testers import HockeyStickTester

GAUSSIAN_DELTA = 1e-3


def gaussian_epsilon(delta: float) -> float:
    """The exact ε(δ) of N(0, 1) against N(1, 1): H_{e^ε} = δ."""
    return brentq(lambda epsilon: gaussian_hockey_stick(epsilon, 1.0) - delta, 0.0, 20.0)


def setups():
    """name → (draw(samples, rng) → (samples0, samples1), claim, true ε)."""

    def catalogue_pair(name):
        item = entry(name)
        mechanism, witness = item(), item.witness()
        return (
            lambda n, rng: (mechanism(witness.d0, n, rng), mechanism(witness.d1, n, rng)),
            PureDP(1.0),
            item.truth().true_epsilon,
        )

    true_gaussian = gaussian_epsilon(GAUSSIAN_DELTA)
    return {
        "Laplace (ε = 1)": catalogue_pair("Laplace"),
        "randomized response (ε = 1)": catalogue_pair("RandomizedResponse"),
        f"Gaussian σ = 1 (δ = {GAUSSIAN_DELTA:g})": (
            lambda n, rng: (rng.normal(0.0, 1.0, n), rng.normal(1.0, 1.0, n)),
            ApproxDP(true_gaussian, GAUSSIAN_DELTA),
            true_gaussian,
        ),
    }


def ratios(draw, claim, true_epsilon: float, samples: int, seeds: int) -> list[float]:
    values = []
    for seed in range(seeds):
        rng = np.random.default_rng([seed, samples])
        samples0, samples1 = draw(samples, rng)
        results = both_directions(
            HockeyStickTester(objective="epsilon", certificate="privacy_loss"),
            samples0,
            samples1,
            claim,
            0.05,
            rng,
        )
        bound = max((result.epsilon_lower_bound or 0.0) for result in results)
        values.append(bound / true_epsilon)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^4 and 10^5, one seed")
    args = parser.parse_args()
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000, 10_000_000]
    seeds = 1 if args.quick else 3
    table, curves = [], {}
    for name, (draw, claim, true_epsilon) in setups().items():
        curves[name] = []
        for samples in sizes:
            values = ratios(draw, claim, true_epsilon, samples, seeds)
            curves[name].append(statistics.mean(values))
            print(name, samples, values, flush=True)
        table.append(
            f"| {name} | {true_epsilon:.4f} | "
            + " | ".join(f"{value:.3f}" for value in curves[name])
            + " |"
        )

    figure, axis = subplots(figsize=(6, 4))
    for name, values in curves.items():
        axis.plot(sizes, values, "o-", label=name)
    axis.axhline(1.0, color="k", linestyle=":")
    axis.set_xscale("log")
    axis.set_xlabel("samples per side")
    axis.set_ylabel("certified ε lower bound / true ε")
    axis.set_ylim(0, 1.05)
    axis.legend()
    save_figure(figure, "tightness", args.quick)
    lines = [
        "# Tightness of the certified ε lower bound",
        "",
        f"{environment()}. Mean over {seeds} seed(s) of ε_lb / ε_true (hockey-stick tester,",
        "objective ε, half the samples to fit and half to certify, 95% confidence).",
        "",
        "| mechanism | true ε | " + " | ".join(f"n = {size:.0e}" for size in sizes) + " |",
        "|---|---:|" + "---:|" * len(sizes),
        *table,
        "",
        "![tightness](tightness.png)",
    ]
    write("tightness", lines, args.quick)


if __name__ == "__main__":
    main()
