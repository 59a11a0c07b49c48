"""The test suite beside busy processes: does it pass on a shared machine, in how long?

    python benchmarks/loaded_suite.py                 # README command 2 beside 4 busy processes
    python benchmarks/loaded_suite.py --runs 3        # three times
    python benchmarks/loaded_suite.py --quick         # one small test file (CI smoke test)

Each busy process is `while True: pass`; the suite is README command 2 (`python -m pytest -n
auto`). The engine runs on a fake clock in tests (decision record 0030), so the load changes how
long the suite takes, never its verdicts. Target (issue 79): 0 failures over 3 runs.
Writes benchmarks/results/loaded_suite.md (quick mode: benchmarks/results/quick/).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from results_table import environment, write

ROOT = Path(__file__).resolve().parent.parent
BUSY = "while True: pass"


def loaded_run(tests: list[str], busy: int) -> tuple[str, float, float]:
    """(pytest's closing line, seconds, the load average at the end) of one run of `tests`."""
    spinners = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(busy)]
    try:
        began = time.perf_counter()
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider", *tests],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - began
        load = os.getloadavg()[1]
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    closing = [line for line in run.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    return (closing[-1].strip("= ") if closing else f"exit {run.returncode}"), seconds, load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small test file")
    parser.add_argument("--runs", type=int, default=1, help="runs of the suite")
    parser.add_argument("--busy", type=int, default=4, help="busy processes beside it")
    args = parser.parse_args()
    tests = ["tests/test_datasets.py"] if args.quick else []
    rows = [loaded_run(tests, args.busy) for _ in range(args.runs)]
    lines = [
        "# The test suite beside busy processes",
        "",
        f"{environment()}; {os.cpu_count()} cores, {args.busy} busy processes beside"
        f" `python -m pytest -n auto {' '.join(tests)}`.",
        "",
        "| run | pytest's result | minutes | load (5 min) |",
        "|---:|---|---:|---:|",
        *(
            f"| {index} | {closing} | {seconds / 60:.1f} | {load:.1f} |"
            for index, (closing, seconds, load) in enumerate(rows, start=1)
        ),
    ]
    write("loaded_suite", lines, args.quick)
    if any("failed" in closing or closing.startswith("exit") for closing, _, _ in rows):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
