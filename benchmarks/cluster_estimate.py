"""One estimate spread over a Dask cluster: draws per second against the in-process run, and
the same bound for the same seed.

    python benchmarks/cluster_estimate.py           # 10^8 draws; local clusters of 1, 2 and 4
    workers python benchmarks/cluster_estimate.py --quick   # 10^7 draws; 1 and 2 workers (CI)

`estimate_epsilon(mechanism, pair, max_draws=N, seed=0)` in this process, then with
`dask_client=` a `LocalCluster(n_workers=k, threads_per_worker=1)` (started before the clock).
The certification's chunks are drawn and counted on the workers (`dpfuzz.engine.chunks`); the
probe, the fit and the event's choice stay in this process. Rows: a vectorised Laplace sum
(1-DP), and the same as a per-call release (one Python call per draw, `dpfuzz.per_call`).
Writes benchmarks/results/cluster_estimate.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_table import environment, write

from dpfuzz import DatasetPair, estimate_epsilon, per_call

PAIR = DatasetPair(np.array([0.0]), np.array([1.0]))


def laplace_sum(dataset, num_samples, rng):
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)


def one_laplace_sum(dataset, rng):
    return dataset.sum() + rng.laplace(0.0, 1.0)


def timed(mechanism, draws: int, client=None):
    began = time.perf_counter()
    estimate = estimate_epsilon(mechanism, PAIR, max_draws=draws, seed=0, dask_client=client)
    return estimate, time.perf_counter() - began


def rows(name: str, mechanism, draws: int, worker_counts: list[int]) -> list[str]:
    from dask.distributed import Client, LocalCluster

    local, seconds = timed(mechanism, draws)
    lines = [
        f"| {name} | in this process | {draws:,} | {seconds:.1f} | {local.draws / seconds:,.0f} |"
        f" 1.00 | {local.epsilon_lower_bound:.6f} | — |"
    ]
    for workers in worker_counts:
        with (
            LocalCluster(
                n_workers=workers, threads_per_worker=1, dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            spread, spread_seconds = timed(mechanism, draws, client)
        same = (
            "yes"
            if spread.epsilon_lower_bound == local.epsilon_lower_bound
            and spread.draws == local.draws
            else "**no**"
        )
        lines.append(
            f"| {name} | {workers} worker{'s' if workers > 1 else ''} | {draws:,} |"
            f" {spread_seconds:.1f} | {spread.draws / spread_seconds:,.0f} |"
            f" {seconds / spread_seconds:.2f} | {spread.epsilon_lower_bound:.6f} | {same} |"
        )
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10^7 draws, 1 and 2 workers")
    args = parser.parse_args()
    draws, per_call_draws, workers = (
        (10**7, 2 * 10**5, [1, 2]) if args.quick else (10**8, 10**8, [1, 2, 4])
    )
    table = [
        *rows("vectorised Laplace sum", laplace_sum, draws, workers),
        *rows("per-call Laplace sum", per_call(one_laplace_sum), per_call_draws, workers),
    ]
    lines = [
        "# One estimate on a Dask cluster",
        "",
        f"{environment()}; 2 cores. `estimate_epsilon(mechanism, pair, max_draws=N, seed=0)`, with",
        (
            "`dask_client=` a `LocalCluster(n_workers=k, threads_per_worker=1)` started before the"
            " clock."
        ),
        (
            "Speed-up: in-process seconds over the cluster's. Same bound: the cluster's ε and draws"
            " equal"
        ),
        "the in-process run's.",
        "",
        "| mechanism | where | draws | s | draws/s | speed-up | ε ≥ | same bound |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        *table,
    ]
    write("cluster_estimate", lines, args.quick)


if __name__ == "__main__":
    main()
