"""Import and start-up cost: what dpfuzz adds to a project that does not audit anything.

    python benchmarks/startup.py           # 21 runs of each, medians
    python benchmarks/startup.py --quick   # 3 runs (CI smoke test)

Measures, each in a fresh interpreter: ``import dpfuzz``; ``dpfuzz --help``; pytest on a
one-test project with the plugin against ``-p no:dpfuzz`` (the plugin's overhead); and two first
audits of a 1-D bug, ``dpfuzz audit NonDPLaplaceMean1`` and a script importing dpfuzz and auditing
its own function (the imports a first audit pays: no scikit-learn for one number per draw).
Targets (issues 13, 63): import ≤ 0.3 s, --help ≤ 0.5 s, plugin overhead ≤ 0.1 s, the CLI's
first audit ≤ 1.0 s, the script's ≤ 0.8 s.
Writes benchmarks/results/startup.md (quick mode: benchmarks/results/quick/).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from results_table import environment, write

FIRST_AUDIT = """
from dpfuzz import Domain, PureDP, audit

def leaky_sum(dataset, num_samples, rng):  # Laplace noise at half the scale 1-DP needs
    return dataset.sum() + rng.laplace(0.0, 0.5, size=num_samples)

assert audit(leaky_sum, PureDP(1.0), Domain(max_size=3), seed=0).violated
"""


def seconds(command: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(
        command, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def median_seconds(command: list[str], runs: int, cwd: Path | None = None) -> float:
    seconds(command, cwd)  # warm the file cache
    return statistics.median(seconds(command, cwd) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 runs of each")
    args = parser.parse_args()
    runs = 3 if args.quick else 21
    python = sys.executable
    dpfuzz = shutil.which("dpfuzz") or str(Path(python).with_name("dpfuzz"))
    bare = median_seconds([python, "-c", "pass"], runs)
    numpy = median_seconds([python, "-c", "import numpy"], runs)
    imported = median_seconds([python, "-c", "import dpfuzz"], runs)
    helped = median_seconds([dpfuzz, "--help"], runs)
    audit_help = median_seconds([dpfuzz, "audit", "--help"], runs)
    cli_audit = median_seconds([dpfuzz, "audit", "NonDPLaplaceMean1"], runs)
    script_audit = median_seconds([python, "-c", FIRST_AUDIT], runs)
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
        pytest = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        with_plugin = median_seconds(pytest, runs, project)
        without_plugin = median_seconds([*pytest, "-p", "no:dpfuzz"], runs, project)
    overhead = with_plugin - without_plugin
    rows = [
        ("python -c pass", bare, "—"),
        ("import numpy", numpy, "—"),
        ("import dpfuzz", imported, "≤ 0.3"),
        ("dpfuzz --help", helped, "≤ 0.5"),
        ("dpfuzz audit --help", audit_help, "—"),
        ("pytest, one-test project, with the plugin", with_plugin, "—"),
        ("pytest, same, -p no:dpfuzz", without_plugin, "—"),
        ("plugin overhead (difference)", overhead, "≤ 0.1"),
        ("dpfuzz audit NonDPLaplaceMean1 (a first audit, fresh process)", cli_audit, "≤ 1.0"),
        ("a script: import dpfuzz, audit a 1-D bug", script_audit, "≤ 0.8"),
    ]
    lines = [
        "# Start-up cost",
        "",
        (
            f"{environment()}; median of {runs} runs, each in a fresh interpreter (wall clock,"
            " including"
        ),
        "the interpreter's own start-up, which the first row shows).",
        "",
        "| what | seconds | target |",
        "|---|---:|---:|",
        *(f"| {name} | {value:.3f} | {target} |" for name, value, target in rows),
    ]
    write("startup", lines, args.quick)


if __name__ == "__main__":
    main()
