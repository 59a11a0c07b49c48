"""Draws to a verdict (issue 76): total draws until a bug is refuted, adaptive against sequential
sampling, beside an oracle that knows the witness pair and the best event.

    python benchmarks/draws_to_verdict.py           # every case, seeds 0-4 (about 25 min)
    python benchmarks/draws_to_verdict.py --quick   # three cases, seed 0 (CI)

Cases (`cases.verdict_cases`): the catalogue's bugs with (ε, δ) claims, and releases written
for this benchmark, each drawing one output per call as a slow library release would
(vectorised here: draws are the measure, not seconds): a 2× noise-scale error (continuous), a
geometric count at twice the claimed ε (discrete), a release with an atom that moves with the
data on each side, and Gaussian noise computed for δ = 10⁻² under a claim of δ = 10⁻⁵. Every
audit has the defaults but `sampling` and `max_draws` = 2·10⁶.

Oracle: the fewest outputs per side with which the fixed-n Clopper–Pearson certificate (β/2
per side, one direction, the same β) refutes the claim at the expected counts of the best event
on the witness pair (event fitted on 10⁵ outputs per side for the size it is certified at, its
probabilities estimated on 2·10⁵ more). "sequential / oracle" divides the sequential audit's
total draws by the oracle's per-side n, the issue's measure (goal ≤ 10).

Betting oracle: what anytime validity costs by itself. The same pair and event, its probabilities
known, one arm betting the growth-optimal fixed λ from the first output (no fit, no search, no
cap): the median over `BETTING_RUNS` simulated runs of the outputs per side until its wealth
reaches 1/β. The sequential audit's total draws over twice this (both sides) is what its search,
probe and fitting cost on top.
Writes benchmarks/results/draws_to_verdict.md.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from cases import verdict_cases
from results_table import environment, write

from dpfuzz import ApproxDP, DatasetPair, audit
from dpfuzz.testers import make_tester
from dpfuzz.testers.bounds import clopper_pearson_lower, clopper_pearson_upper

BETA = 0.05
MAX_DRAWS = 2_000_000
BETTING_RUNS = 400


def refutes(claim: ApproxDP, p: float, q: float, n: int) -> bool:
    p_lower = float(clopper_pearson_lower(p * n, n, BETA / 2))
    q_upper = float(clopper_pearson_upper(q * n, n, BETA / 2))
    return p_lower - math.exp(claim.epsilon) * q_upper > claim.delta


def oracle(mechanism, claim, tester_name: str, pair: DatasetPair) -> tuple | None:
    """The oracle's outputs per side and its event's probabilities (p, q), best direction of
    `pair` (None: above 10⁹): the event is fitted for the size it is certified at (three rounds
    of fit, size, refit)."""
    rng = np.random.default_rng(12345)
    sides = [mechanism(dataset, 100_000, rng) for dataset in (pair.d0, pair.d1)]
    fresh = [mechanism(dataset, 200_000, rng) for dataset in (pair.d0, pair.d1)]
    tester = make_tester(tester_name, claim, sides[0])
    best = None
    for order in ((0, 1), (1, 0)):
        size = 1_000
        for _ in range(3):
            event = tester.fit(sides[order[0]], sides[order[1]], claim, BETA, rng, eval_size=size)
            p, q = (tester.in_event(event, fresh[side]) / 200_000 for side in order)
            n = smallest_n(claim, p, q)
            if n is not None and (best is None or n < best[0]):
                best = (n, p, q)
            if n is None or n == size:
                break
            size = n
    return best


def betting_oracle(claim: ApproxDP, p: float, q: float) -> float:
    """Median outputs per side a single arm needs to reach 1/β betting the growth-optimal λ on an
    event of known probabilities p on P and q on Q (Z = 1[x ∈ S] − γ·1[y ∈ S])."""
    from scipy.optimize import minimize_scalar

    gamma, delta = math.exp(claim.epsilon), claim.delta
    values = np.array([1.0, -gamma, 1.0 - gamma, 0.0]) - delta
    chances = np.array([p * (1 - q), (1 - p) * q, p * q, (1 - p) * (1 - q)])
    top = (1 - 1e-9) / (gamma + delta)
    best = minimize_scalar(
        lambda bet: -chances @ np.log1p(bet * values), bounds=(0.0, top), method="bounded"
    )
    steps = np.log1p(best.x * values)
    if chances @ steps <= 0:
        return math.inf
    rng, length = np.random.default_rng(0), 64
    while True:
        outcomes = rng.choice(4, size=(BETTING_RUNS, length), p=chances)
        wealth = np.cumsum(steps[outcomes], axis=1)
        crossed = wealth >= math.log(1 / BETA)
        if crossed.any(axis=1).all():
            return float(np.median(crossed.argmax(axis=1) + 1))
        length *= 2


def smallest_n(claim: ApproxDP, p: float, q: float) -> int | None:
    low, high = 1, 2
    while not refutes(claim, p, q, high):
        low, high = high, 2 * high
        if high > 10**9:
            return None
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if refutes(claim, p, q, middle) else (middle, high)
    return high


def row(case: tuple, seeds: range) -> str:
    name, mechanism, claim, domain, tester, witness = case
    draws, refuted = {}, {}
    for sampling in ("adaptive", "sequential"):
        reports = [
            audit(
                mechanism,
                claim,
                domain,
                seed=seed,
                sampling=sampling,
                tester=tester,
                max_draws=MAX_DRAWS,
            )
            for seed in seeds
        ]
        draws[sampling] = float(np.median([report.draws for report in reports]))
        refuted[sampling] = sum(report.violated for report in reports)
    best = oracle(mechanism, claim, tester, witness)
    per_side, betting = (best[0], betting_oracle(claim, *best[1:])) if best else (None, None)
    ratio = f"{draws['sequential'] / per_side:,.1f}" if per_side else "—"
    finite = betting is not None and math.isfinite(betting)
    over_betting = f"{draws['sequential'] / (2 * betting):,.1f}" if finite else "—"
    betting_cell = f"{betting:,.0f}" if finite else "—"
    return (
        f"| {name} | {per_side or '> 10⁹'} | {betting_cell} |"
        f" {draws['adaptive']:,.0f} ({refuted['adaptive']}) |"
        f" {draws['sequential']:,.0f} ({refuted['sequential']}) | {ratio} | {over_betting} |"
        f" {draws['adaptive'] / draws['sequential']:.1f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three cases, seed 0")
    args = parser.parse_args()
    seeds = range(1) if args.quick else range(5)
    rows = [row(case, seeds) for case in verdict_cases(args.quick)]
    lines = [
        "# Draws to a verdict",
        "",
        (
            f"{environment()}; β = {BETA}, max_draws = {MAX_DRAWS:,}, seeds"
            f" {seeds.start}–{seeds.stop - 1}: median total draws (refuted of {len(seeds)})."
        ),
        "",
        (
            "| bug | oracle n per side | betting oracle n per side | adaptive draws |"
            " sequential draws | sequential / oracle | sequential / (2 × betting oracle) |"
            " adaptive / sequential |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
    ]
    write("draws_to_verdict", lines, args.quick)


if __name__ == "__main__":
    main()
