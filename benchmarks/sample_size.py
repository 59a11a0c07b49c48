"""Effect of the sample size on the divergence estimate and its certificate (paper 002, Fig. 3a).

    python benchmarks/sample_size.py           # n = 10^3 … 10^6 per side, 10 seeds
    python benchmarks/sample_size.py --quick   # n = 10^3 and 10^4, 2 seeds (CI)

Two buggy mechanisms on their witness pairs, at the paper's parameters: SVT4 at ε = 1 and
NonDPGaussianMean1 at (ε, δ) = (1, 0.01). For each n the hockey-stick tester with
objective="divergence" (half the samples to fit, half to certify, β = 0.05, in the violating
direction P = M(d0), Q = M(d1)) gives the held-out estimate and the certified lower bound of
H_{e^ε}; the band is the 10%–90% range over seeds.
NonDPGaussianMean1's true H_{e^ε} (two Gaussians of different variances) is computed by
numerical integration. Writes benchmarks/results/sample_size.md and sample_size.png.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from results_table import environment, save_figure, subplots, write
from scipy import integrate, stats

from dpfuzz.catalogue import entry
from dpfuzz.catalogue.means import gaussian_sigma
from dpfuzz.testers import HockeyStickTester

SETUPS = {
    "SVT4 (ε = 1)": ("SVT4", {"epsilon": 1.0}),
    "NonDPGaussianMean1 (ε = 1, δ = 0.01)": (
        "NonDPGaussianMean1",
        {"epsilon": 1.0, "delta": 0.01, "guarantee": "approx"},
    ),
}


def gaussian_mean1_truth(epsilon: float, delta: float) -> float:
    """H_{e^ε}(M([1]) ‖ M([1, 0])) for NonDPGaussianMean1: N(1, σ²) against N(1/2, (σ/2)²)."""
    sigma = gaussian_sigma(epsilon, delta)
    p, q = stats.norm(1.0, sigma), stats.norm(0.5, sigma / 2)
    gamma = math.exp(epsilon)
    value, _ = integrate.quad(
        lambda x: max(p.pdf(x) - gamma * q.pdf(x), 0.0),
        -12 * sigma,
        12 * sigma,
        limit=500,
        points=[0.5, 1.0],
    )
    return value


def curve(name: str, params: dict, sizes: list[int], seeds: int) -> list[dict]:
    item = entry(name)
    mechanism, witness, claim = item(**params), item.witness(**params), item.claim(**params)
    # the event that maximises H_{e^ε} (the audits' default ranks events by ε, whose H is smaller)
    tester, points = HockeyStickTester(objective="divergence"), []
    for samples in sizes:
        estimates, bounds = [], []
        for seed in range(seeds):
            rng = np.random.default_rng([seed, samples])
            result = tester.test(
                mechanism(witness.d0, samples, rng),
                mechanism(witness.d1, samples, rng),
                claim,
                0.05,
                rng,
            )
            estimates.append(result.estimate)
            bounds.append(result.bound)
        points.append(
            {
                "n": samples,
                "threshold": claim.delta,
                "estimate": float(np.mean(estimates)),
                "low": float(np.quantile(estimates, 0.1)),
                "high": float(np.quantile(estimates, 0.9)),
                "bound": float(np.mean(bounds)),
            }
        )
        print(name, points[-1], flush=True)
    return points


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^3 and 10^4, two seeds")
    args = parser.parse_args()
    sizes = (
        [1_000, 10_000]
        if args.quick
        else [1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000]
    )
    seeds = 2 if args.quick else 10
    truths = {"NonDPGaussianMean1 (ε = 1, δ = 0.01)": gaussian_mean1_truth(1.0, 0.01)}

    figure, axes = subplots(1, len(SETUPS), figsize=(11, 4))
    lines = [
        "# Sample size: divergence estimate and certified bound against n (paper 002, Figure 3a)",
        "",
        (
            f"{environment()}. Hockey-stick divergence H_{{e^ε}}, mean over {seeds} seeds (estimate"
            " band: 10%–90%"
        ),
        "over seeds); the claim allows H ≤ δ.",
        "",
    ]
    for axis, (label, (name, params)) in zip(axes, SETUPS.items()):
        points = curve(name, params, sizes, seeds)
        n = [point["n"] for point in points]
        axis.plot(n, [point["estimate"] for point in points], "o--", label="held-out estimate")
        axis.fill_between(
            n,
            [point["low"] for point in points],
            [point["high"] for point in points],
            alpha=0.25,
            label="estimate, 10%–90%",
        )
        axis.plot(
            n, [point["bound"] for point in points], "s-", label="certified lower bound (95%)"
        )
        axis.axhline(points[0]["threshold"], color="r", linestyle=":", label="claimed δ")
        if label in truths:
            axis.axhline(truths[label], color="k", label="true H (numerical integration)")
        axis.set_xscale("log")
        axis.set_xlabel("samples per side")
        axis.set_title(label)
        axis.legend(fontsize=8)
        truth = f" True H = {truths[label]:.4f}." if label in truths else ""
        lines += [
            f"**{label}**, claimed δ = {points[0]['threshold']:g}.{truth}",
            "",
            "| n per side | estimate | 10%–90% | certified bound |",
            "|---:|---:|---|---:|",
            *[
                f"| {p['n']:,} | {p['estimate']:.4f} | {p['low']:.4f}–{p['high']:.4f} |"
                f" {p['bound']:.4f} |"
                for p in points
            ],
            "",
        ]
    axes[0].set_ylabel("$H_{e^\\epsilon}$")
    save_figure(figure, "sample_size", args.quick)
    lines.append("![sample size](sample_size.png)")
    write("sample_size", lines, args.quick)


if __name__ == "__main__":
    main()
