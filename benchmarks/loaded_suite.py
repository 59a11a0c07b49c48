"""The test suite beside busy processes: does it pass on a shared machine, in how long?

    python benchmarks/loaded_suite.py                 # README command 2 beside 4 busy processes
    python benchmarks/loaded_suite.py --runs 3        # three times
    python benchmarks/loaded_suite.py --runs 3 --together   # three at once, each beside the others
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from results_table import environment, write

ROOT = Path(__file__).resolve().parent.parent
BUSY = "while True: pass"


def suite(tests: list[str]) -> subprocess.Popen[str]:
    """README command 2 (quiet, no cache) on `tests`, started."""
    return subprocess.Popen(
        [sys.executable, "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider", *tests],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def closing_line(run: subprocess.Popen[str]) -> str:
    """pytest's closing line ("682 passed, ..."), or the exit status when there is none."""
    output, _ = run.communicate()
    closing = [line for line in output.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    return closing[-1].strip("= ") if closing else f"exit {run.returncode}"


def timed_run(tests: list[str], began: float) -> tuple[str, float, float]:
    """(pytest's closing line, seconds since `began`, the load average at the end) of a run."""
    closing = closing_line(suite(tests))
    return closing, time.perf_counter() - began, os.getloadavg()[1]


def loaded_runs(
    tests: list[str], runs: int, busy: int, together: bool
) -> list[tuple[str, float, float]]:
    """`timed_run` of each run of `tests` beside `busy` spinning processes."""
    spinners = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(busy)]
    try:
        if not together:
            return [timed_run(tests, time.perf_counter()) for _ in range(runs)]
        began = time.perf_counter()
        with ThreadPoolExecutor(runs) as pool:
            return list(pool.map(lambda _: timed_run(tests, began), range(runs)))
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small test file")
    parser.add_argument("--runs", type=int, default=1, help="runs of the suite")
    parser.add_argument("--busy", type=int, default=4, help="busy processes beside it")
    parser.add_argument(
        "--together", action="store_true", help="start the runs at once, each beside the others"
    )
    args = parser.parse_args()
    tests = ["tests/test_datasets.py"] if args.quick else []
    rows = loaded_runs(tests, args.runs, args.busy, args.together)
    beside = f"{args.busy} busy processes" + (
        " and the other runs, all started at once" if args.together else ""
    )
    lines = [
        "# The test suite beside busy processes",
        "",
        f"{environment()}; {os.cpu_count()} cores, {beside} beside"
        f" `{' '.join(['python -m pytest -n auto', *tests])}`.",
        "",
        "| run | pytest's result | minutes (since the start) | load (5 min) |",
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
