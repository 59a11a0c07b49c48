"""The libraries config (`configs/libraries.toml`): every installed library's standard releases
audited with the library's own claim and convention, and the documented misuses (issue 17).

    python benchmarks/libraries.py           # the config's settings (default budget, ≤ 100 s each)
    python benchmarks/libraries.py --quick   # quick budget, 20,000 draws or 10 s each (CI)
    python benchmarks/libraries.py --config configs/libraries-synth.toml   # in its environment

Also the float-level check: diffprivlib's, OpenDP's and python-dp's float Laplace releases
(python-dp: its mechanism and its BoundedSum) audited with ``arithmetic="float"``. Writes
benchmarks/results/libraries.md.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from results_table import environment, write

from dpfuzz import audit
from dpfuzz.campaign import load_config, outcome
from dpfuzz.errors import LibraryMissing

CONFIG = Path(__file__).resolve().parent.parent / "configs" / "libraries.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="quick budget, 20,000 draws or 10 s per audit"
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=CONFIG,
        help="a libraries config (default: configs/libraries.toml)",
    )
    args = parser.parse_args()
    config = load_config(args.config)
    rows, times, verdicts = [], [], []
    for spec in config.audits():
        settings = spec.audit_settings(spec.target.tester or "auto")
        if args.quick:
            settings = settings.build(
                budget="quick", seed=spec.seed, max_draws=20_000, max_seconds=10
            )
        try:
            target = spec.target.build()
        except LibraryMissing as error:
            rows.append(f"| {spec.target.name} | — | skipped: {error} | | | | | |")
            continue
        start = time.perf_counter()
        report = audit(target.mechanism, target.claim, target.domain, settings)
        seconds = time.perf_counter() - start
        verdict = outcome(target.truth, report.verdict)
        times.append(seconds)
        verdicts.append(verdict)
        bound = "—" if report.epsilon_lower_bound is None else f"{report.epsilon_lower_bound:.3g}"
        rows.append(
            f"| {spec.target.name} | {target.claim.describe()} | {verdict} | {bound} |"
            f" {report.draws:,} | {report.draws / seconds:,.0f} |"
            f" {'—' if args.quick else f'{release_rate(target, report.candidate):,.0f}'} |"
            f" {seconds:.1f} |"
        )
        print(rows[-1], flush=True)
    floats = []
    for name in (
        ("diffprivlib_laplace", "opendp_sum", "pydp_laplace", "pydp_release")
        if args.config == CONFIG
        else ()
    ):
        try:
            from dpfuzz.adapters import standard

            target = getattr(standard, name)()
        except LibraryMissing as error:
            floats.append(f"| {name} | skipped: {error} | | |")
            continue
        start = time.perf_counter()
        report = target.audit(
            seed=0,
            arithmetic="float",
            **({"budget": "quick", "max_draws": 20_000} if args.quick else {"max_seconds": 100}),
        )
        floats.append(
            f"| {name} | {'refuted' if report.violated else 'not refuted'} | {report.draws:,} |"
            f" {time.perf_counter() - start:.1f} |"
        )
    budget = (
        "quick budget, 20,000 draws or 10 s" if args.quick else "default budget, max_seconds = 100"
    )
    lines = [
        f"# DP libraries through dpfuzz's adapters (configs/{args.config.name})",
        "",
        (f"{environment()}; {budget}, seed 0, β = 0.05."),
        "",
        (
            "| target | claim read from the library | verdict | ε ≥ | draws | draws/s | release"
            " calls/s | s |"
        ),
        "|---|---|---|---:|---:|---:|---:|---:|",
        *rows,
        "",
        (
            f"{len(times)} audits: median {np.median(times):.1f} s, longest {max(times):.1f} s; "
            f"{sum(v in ('ok', 'caught') for v in verdicts)} with their documented verdict, "
            f"{verdicts.count('false alarm')} false alarms, {verdicts.count('missed')} missed."
            if times
            else "No library installed."
        ),
        "",
        (
            "*draws/s*: the audit's outputs per second, search and certification included; *release"
            " calls/s*: the"
        ),
        (
            "release alone, called in batches of 64 on the audit's final candidate pair (where its"
            " certification draws go) for a second (not measured in the quick mode)."
        ),
    ]
    if floats:
        lines += [
            "",
            (
                'Float-level audits (`arithmetic="float"`: float bit patterns beside the audit\'s'
                " tester, β/2 each):"
            ),
            "",
            "| release | verdict | draws | s |",
            "|---|---|---:|---:|",
            *floats,
        ]
    write(args.config.stem, lines, args.quick)


def release_rate(target, pair) -> float:
    """The release's own calls per second: batches of 64 on each dataset of `pair` in turn (the
    audit's final candidate, where its certification draws go) for a second."""
    datasets = [
        np.asarray(pair.d0, dtype=target.domain.numpy_dtype),
        np.asarray(pair.d1, dtype=target.domain.numpy_dtype),
    ]
    rng, calls, start = np.random.default_rng(0), 0, time.perf_counter()
    while time.perf_counter() - start < 1.0:
        target.mechanism(datasets[(calls // 64) % 2], 64, rng)
        calls += 64
    return calls / (time.perf_counter() - start)


if __name__ == "__main__":
    main()
