"""Auditing DP-SGD: one-run audits (paper 003, Figures 9 and 10) and ε estimates from final-model
scores (papers 000 and 001).

    python benchmarks/training_runs.py           # full tables
    python benchmarks/training_runs.py --quick   # small m and few runs (CI)

1. Figure 9 analogue: white-box full-batch DP-SGD (logistic regression on scikit-learn's
   breast-cancer data, T = 100 steps, σ set so the accountant gives ε ∈ {1, 2, 4, 8} at
   δ = 10^-5) with m Dirac-gradient canaries, one run per audit: "bits" (its GDP-family ε) and
   "steinke" lower bounds, median over 5 seeds.
2. Figure 10: the same with the clipping-after-1/B-scaling bug, claimed ε as above: refuted in
   one run? And both on Opacus (`dpfuzz.adapters.opacus.opacus_one_run`, if installed): the
   correct run and one whose optimizer adds half the noise its accountant was told.
3. Papers 000/001: N runs of the black-box release on each side of the witness → 1-D scores →
   `privacy_profile`: the certified TV, the ε at δ = 10^-5 certified by the profile, and the GDP
   readings (μ from certified TV: valid if the trade-off is Gaussian; from plug-in TV: heuristic),
   against the accountant's ε. Mechanisms: the catalogue's DPSGD (final parameters projected on
   the added record's direction) and a Poisson-subsampled Gaussian step (q = 0.5, σ = 1).
Writes benchmarks/results/training_runs.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import environment, write

from dpfuzz import audit_one_run
from dpfuzz.catalogue import entry
from dpfuzz.catalogue.dpsgd import dpsgd_one_run, noise_for_epsilon
from dpfuzz.profiles import privacy_profile

DELTA = 1e-5
STEPS = 100
EPSILONS = (1.0, 2.0, 4.0, 8.0)


def one_run_rows(bug: str | None, sizes: list[int], seeds: range) -> list[str]:
    rows = []
    for epsilon in EPSILONS:
        run = dpsgd_one_run(noise_for_epsilon(epsilon, STEPS), STEPS, bug)
        for m in sizes:
            cells = []
            for method in ("bits", "steinke"):
                start = time.perf_counter()
                results = [
                    audit_one_run(run, run.claim, canaries=m, seed=seed, method=method)
                    for seed in seeds
                ]
                seconds = (time.perf_counter() - start) / len(results)
                bounds = [
                    r.epsilon_lower_bound_gdp if method == "bits" else r.epsilon_lower_bound
                    for r in results
                ]
                refuted = sum(r.violated for r in results)
                cells.append(f"{np.median(bounds):.3g} | {refuted}/{len(results)} | {seconds:.2f}")
            rows.append(f"| {epsilon:g} | {m:,} | {' | '.join(cells)} |")
    return rows


def opacus_rows(m: int, seeds: range) -> list[str]:
    """The Figure 9/10 audits on Opacus (its GradSampleModule and DPOptimizer, claim from its PRV
    accountant read as GDP): the correct run, and the optimizer adding half the noise."""
    try:
        from dpfuzz.adapters.opacus import opacus_one_run
    except ImportError:
        return ["| opacus not installed | | | | | |"]
    rows = []
    for epsilon in EPSILONS:
        sigma = noise_for_epsilon(epsilon, STEPS)
        cells = []
        for used in (None, sigma / 2):
            run = opacus_one_run(sigma, STEPS, as_gdp=True, optimizer_noise_multiplier=used)
            start = time.perf_counter()
            results = [audit_one_run(run, run.claim, canaries=m, seed=seed) for seed in seeds]
            seconds = (time.perf_counter() - start) / len(results)
            bounds = [r.epsilon_lower_bound_gdp for r in results]
            cells.append(
                f"{np.median(bounds):.3g} | {sum(r.violated for r in results)}/{len(results)} |"
                f" {seconds:.1f}"
            )
        rows.append(f"| {epsilon:g} ({run.claim.describe()}) | {m:,} | {' | '.join(cells)} |")
    return rows


def samples_from(name: str, params: dict, runs: int, rng: np.random.Generator):
    item = entry(name)
    mechanism, witness = item(**params), item.witness(**params)
    outputs = mechanism(witness.d1, runs, rng), mechanism(witness.d0, runs, rng)
    if outputs[0].ndim > 1:  # DPSGD's final parameters: the added record's direction
        direction = np.ravel(witness.d1)[: outputs[0].shape[1]]
        outputs = tuple(output @ direction for output in outputs)
    return outputs


def profile_rows(run_counts: list[int]) -> list[str]:
    import dp_accounting

    subsampled = dp_accounting.pld.PLDAccountant()
    subsampled.compose(dp_accounting.PoissonSampledDpEvent(0.5, dp_accounting.GaussianDpEvent(1.0)))
    cases = [
        (
            "DPSGD black box (σ = 2, T = 3)",
            "DPSGD",
            {"release": "black_box"},
            entry("DPSGD").claim().epsilon,
        ),
        (
            "Poisson-subsampled Gaussian (q = 0.5, σ = 1, 1 step)",
            "PoissonSubsampledGaussian",
            {"q": 0.5, "sigma": 1.0, "steps": 1},
            subsampled.get_epsilon(DELTA),
        ),
    ]
    rows = []
    for label, name, params, accountant in cases:
        for runs in run_counts:
            start = time.perf_counter()
            profile = privacy_profile(*samples_from(name, params, runs, np.random.default_rng(0)))
            seconds = time.perf_counter() - start
            certified_gdp, heuristic = profile.gdp_epsilon(DELTA)
            rows.append(
                f"| {label} | {accountant:.3g} | {runs:,} | {profile.tv_lower:.3g} |"
                f" {profile.epsilon_lower(DELTA):.3g} | {certified_gdp:.3g} | {heuristic:.3g} |"
                f" {seconds:.2f} |"
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="m = 100, 2 seeds, 10^3 runs")
    args = parser.parse_args()
    sizes = [100] if args.quick else [1_000, 10_000]
    seeds = range(2 if args.quick else 5)
    header = (
        "| claimed ε | canaries m | bits ε ≥ (median) | refuted | s | steinke ε ≥ (median) |"
        " refuted | s |"
    )
    lines = [
        "# Auditing DP-SGD: one run (paper 003) and final-model scores (papers 000/001)",
        "",
        (
            f"{environment()}; β = 0.05, δ = 10^-5, T = {STEPS} full-batch steps, {len(seeds)}"
            " seeds per cell."
        ),
        "",
        "## Correct DP-SGD, white box, one run (Figure 9 analogue)",
        "",
        header,
        "|---:|---:|---:|---|---:|---:|---|---:|",
        *one_run_rows(None, sizes, seeds),
        "",
        "## DP-SGD with the clipping-after-1/B-scaling bug, one run (Figure 10)",
        "",
        header,
        "|---:|---:|---:|---|---:|---:|---|---:|",
        *one_run_rows("scale_before_clip", sizes[:1], seeds),
        "",
        (
            "## The same on Opacus: one run, white box (claim: Opacus' PRV accountant's ε at δ read"
            " as μ-GDP)"
        ),
        "",
        (
            "| claimed ε (μ) | canaries m | correct: bits ε ≥ (median) | refuted | s | half the"
            " noise: bits ε ≥ | refuted | s |"
        ),
        "|---:|---:|---:|---|---:|---:|---|---:|",
        *opacus_rows(sizes[0], seeds),
        "",
        "## ε from final-model scores against the accountant (papers 000/001)",
        "",
        (
            "| mechanism | accountant ε | runs per side | TV ≥ | profile: ε ≥ | GDP from certified"
            " TV: ε ≥ (if Gaussian) | GDP from plug-in TV: ε ≈ (heuristic) | s |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        *profile_rows([1_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]),
    ]
    write("training_runs", lines, args.quick)


if __name__ == "__main__":
    main()
