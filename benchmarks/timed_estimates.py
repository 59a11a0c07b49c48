"""`estimate_epsilon` under `max_seconds` on slow mechanisms: does it use the time it is given,
and end within it?

    python benchmarks/timed_estimates.py           # OpenDP's per-call Laplace sum, and a 1,000
    draws/s mechanism python benchmarks/timed_estimates.py --quick   # one short row of each (CI)

Rows: OpenDP's Laplace sum of the README (per call, about 10^4 draws/s; its domain searched) and
a mechanism that sleeps for its draws at 1,000 per second (Laplace noise of scale 1 on a sum,
exactly 1-DP under add/remove; one pair), each with several time budgets, seed 0. The pace is
the mechanism's own, as `seconds_per_draw` measures it before planning. Writes
benchmarks/results/timed_estimates.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import environment, write

from dpfuzz import DatasetPair, estimate_epsilon
from dpfuzz.errors import InvalidArgument
from dpfuzz.estimation.timing import seconds_per_draw

SLOW_RATE = 1_000  # draws per second of the emulated per-call mechanism


def slow_laplace_sum(dataset, num_samples, rng):
    """A sum with Laplace(1) noise drawn at SLOW_RATE draws/s, as a library releasing one value per
    call."""
    time.sleep(num_samples / SLOW_RATE)
    return float(np.sum(dataset)) + rng.laplace(0.0, 1.0, num_samples)


def targets():
    """(name, mechanism, target, truth) of each row's mechanism; OpenDP's only when installed."""
    pair = DatasetPair(np.array([0.0]), np.array([0.0, 1.0]))
    rows = [
        (f"per-call Laplace sum at {SLOW_RATE:,} draws/s, one pair", slow_laplace_sum, pair, "1")
    ]
    try:
        import opendp.prelude as dp

        from dpfuzz.adapters.opendp import opendp_target
    except ImportError:  # the opendp extra is not installed
        return rows
    dp.enable_features("contrib")
    summed = (
        dp.vector_domain(dp.atom_domain(bounds=(-1.0, 1.0))),
        dp.symmetric_distance(),
    ) >> dp.t.then_sum()
    # the README's, one call per draw
    target = opendp_target(summed >> dp.m.then_laplace(scale=2.0), max_size=5)
    rows.insert(
        0,
        (
            "OpenDP Laplace sum (one call per draw), its domain searched",
            target.mechanism,
            target.domain,
            "≤ 1 (claim)",
        ),
    )
    return rows


def row(name, mechanism, target, truth, max_seconds: float) -> str:
    pair = target if isinstance(target, DatasetPair) else target.relation.classic_pairs(target)[0]
    pace = 1 / seconds_per_draw(mechanism, pair, 0)
    start = time.perf_counter()
    try:
        estimate = estimate_epsilon(mechanism, target, max_seconds=max_seconds, seed=0)
    except InvalidArgument as error:  # too short for the smallest estimate: said before it runs
        return (
            f"| {name} | {truth} | {pace:,.0f} | {max_seconds:g} | — |"
            f" {time.perf_counter() - start:.1f} | — | {error} |"
        )
    ended = next(iter(estimate.clock_notes()), "—")
    return (
        f"| {name} | {truth} | {pace:,.0f} | {max_seconds:g} | {estimate.draws:,} |"
        f" {time.perf_counter() - start:.1f} | {estimate.epsilon_lower_bound:.3g} | {ended} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one short row of each mechanism")
    args = parser.parse_args()
    budgets = {
        True: {"OpenDP": [5.0], "per-call": [3.0, 10.0]},
        False: {"OpenDP": [5.0, 15.0, 30.0], "per-call": [3.0, 20.0, 60.0]},
    }[args.quick]
    rows = [
        row(name, mechanism, target, truth, seconds)
        for name, mechanism, target, truth in targets()
        for seconds in budgets["OpenDP" if name.startswith("OpenDP") else "per-call"]
    ]
    lines = [
        "# estimate_epsilon with max_seconds on slow mechanisms",
        "",
        (
            f"{environment()}; `estimate_epsilon(mechanism, target, max_seconds=S, seed=0)`, β ="
            " 0.05. Pace: the"
        ),
        (
            "mechanism's draws per second as `seconds_per_draw` measures them first. Seconds: the"
            " whole call."
        ),
        (
            "How it ended: the report's note when the clock cut the final certification (or the"
            " estimate is a"
        ),
        "pilot's); an error when S is too short for the smallest estimate at that pace.",
        "",
        "| mechanism | true ε | pace (draws/s) | max_seconds | draws | s | ε ≥ | how it ended |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        *rows,
    ]
    write("timed_estimates", lines, args.quick)


if __name__ == "__main__":
    main()
