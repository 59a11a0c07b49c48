"""The libraries config (`configs/libraries.toml`): every installed library's standard releases
audited with the library's own claim and convention, and the documented misuses (issue 17).

    python benchmarks/libraries.py           # the config's settings (default budget, ≤ 100 s each)
    python benchmarks/libraries.py --quick   # quick budget, 20,000 draws each (CI)

Also the float-level check: diffprivlib's, OpenDP's and python-dp's float Laplace releases
(python-dp: its mechanism and its BoundedSum) audited with ``arithmetic="float"``. Writes benchmarks/results/libraries.md.
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
    parser.add_argument("--quick", action="store_true", help="quick budget, 20,000 draws per audit")
    args = parser.parse_args()
    config = load_config(CONFIG)
    rows, times, verdicts = [], [], []
    for spec in config.audits():
        settings = spec.audit_settings(spec.target.tester or "auto")
        if args.quick:
            settings = settings.build(budget="quick", seed=spec.seed, max_draws=20_000)
        try:
            target = spec.target.build()
        except LibraryMissing as error:
            rows.append(f"| {spec.target.name} | — | skipped: {error} | | | | |")
            continue
        start = time.perf_counter()
        report = audit(target.mechanism, target.claim, target.domain, settings)
        seconds = time.perf_counter() - start
        verdict = outcome(target.truth, report.verdict)
        times.append(seconds)
        verdicts.append(verdict)
        bound = "—" if report.epsilon_lower_bound is None else f"{report.epsilon_lower_bound:.3g}"
        rows.append(f"| {spec.target.name} | {target.claim.describe()} | {verdict} | {bound} | {report.draws:,} | "
                    f"{report.draws / seconds:,.0f} | {seconds:.1f} |")
    floats = []
    for name in ("diffprivlib_laplace", "opendp_sum", "pydp_laplace", "pydp_release"):
        try:
            from dpfuzz.adapters import standard

            target = getattr(standard, name)()
        except LibraryMissing as error:
            floats.append(f"| {name} | skipped: {error} | | |")
            continue
        start = time.perf_counter()
        report = target.audit(seed=0, arithmetic="float", **({"budget": "quick", "max_draws": 20_000} if args.quick else {"max_seconds": 100}))
        floats.append(f"| {name} | {'refuted' if report.violated else 'not refuted'} | {report.draws:,} | {time.perf_counter() - start:.1f} |")
    lines = [
        "# DP libraries through dpfuzz's adapters (configs/libraries.toml)",
        "",
        f"{environment()}; {'quick budget, 20,000 draws' if args.quick else 'default budget, max_seconds = 100'}, seed 0, β = 0.05.",
        "",
        "| target | claim read from the library | verdict | ε ≥ | draws | draws/s | s |",
        "|---|---|---|---:|---:|---:|---:|",
        *rows,
        "",
        f"{len(times)} audits: median {np.median(times):.1f} s, longest {max(times):.1f} s; "
        f"{sum(v in ('ok', 'caught') for v in verdicts)} with their documented verdict, "
        f"{verdicts.count('false alarm')} false alarms, {verdicts.count('missed')} missed." if times else "No library installed.",
        "",
        "Float-level audits (`arithmetic=\"float\"`: float bit patterns beside the audit's tester, β/2 each):",
        "",
        "| release | verdict | draws | s |",
        "|---|---|---:|---:|",
        *floats,
    ]
    write("libraries", lines, args.quick)


if __name__ == "__main__":
    main()
