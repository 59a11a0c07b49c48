"""Collect every benchmark's result table into benchmarks/RESULTS.md, with machine and versions.

python benchmarks/collect.py           # after running the benchmarks (see RESULTS.md)
python benchmarks/collect.py --quick   # from results/quick/ into results/quick/RESULTS.md (CI)
"""

from __future__ import annotations

import argparse
import os
import platform
from datetime import date
from importlib import metadata
from pathlib import Path

# (result file, command, what it reproduces), in reading order.
EXPERIMENTS = [
    ("detection_rate", "python benchmarks/detection_rate.py", "paper 002, Table 1"),
    ("trials_to_find", "python benchmarks/trials_to_find.py", "paper 002, Table 2"),
    ("tester_speed", "python benchmarks/tester_speed.py", "paper 002, Figure 1"),
    ("scaled_gd", "python benchmarks/scaled_gd.py", "paper 002, Figure 2"),
    ("sample_size", "python benchmarks/sample_size.py", "paper 002, Figure 3a"),
    (
        "certified_epsilon",
        "python benchmarks/certified_epsilon.py",
        "DP-Sniper's ε lower bounds at ε = 0.1",
    ),
    (
        "dpsniper_side_by_side",
        "python benchmarks/dpsniper_side_by_side.py",
        "estimate_epsilon beside DP-Sniper, audits beside StatDP, on their configurations",
    ),
    (
        "certifiable_ceiling",
        "python benchmarks/certifiable_ceiling.py",
        "the most one event can certify on the correct mechanisms, and the draws 95% of ε needs",
    ),
    (
        "fitted_events",
        "python benchmarks/fitted_events.py",
        "the events estimate_epsilon fits on SVT3, judged exactly",
    ),
    (
        "correct_at_scale",
        "python benchmarks/correct_at_scale.py",
        "the correct mechanisms within 5% of ε on their closest pair, given those draws",
    ),
    (
        "search_share",
        "python benchmarks/search_share.py",
        "estimate_epsilon's search share of the draws, over seeds",
    ),
    (
        "one_run",
        "python benchmarks/one_run.py",
        "paper 003, Figures 6–8: one-run audits against the truth",
    ),
    (
        "training_runs",
        "python benchmarks/training_runs.py",
        "paper 003, Figures 9–10, and papers 000/001: auditing DP-SGD",
    ),
    (
        "libraries",
        "python benchmarks/libraries.py",
        "issue 17: DP libraries through the adapters (configs/libraries.toml)",
    ),
    (
        "libraries-models",
        "python benchmarks/libraries.py --config configs/libraries-models.toml",
        "issue 77: diffprivlib's labelled models without public records, raced and sharpened"
        " (configs/libraries-models.toml)",
    ),
    (
        "libraries-opacus",
        "python benchmarks/libraries.py --config configs/libraries-opacus.toml",
        "issue 77: Opacus' clipping modes and Poisson sampling (configs/libraries-opacus.toml)",
    ),
    (
        "libraries-tools",
        "python benchmarks/libraries.py --config configs/libraries-tools.toml",
        "issue 77: python-dp's QuantileTree and GaussianMechanism, diffprivlib's histogramdd"
        " (configs/libraries-tools.toml)",
    ),
    (
        "libraries-smartnoise",
        "python benchmarks/libraries.py --config configs/libraries-smartnoise.toml",
        "issue 66: SmartNoise SQL, in its own environment (configs/libraries-smartnoise.toml)",
    ),
    (
        "libraries-jaxprivacy",
        "python benchmarks/libraries.py --config configs/libraries-jaxprivacy.toml",
        "issue 66: jax-privacy, in its own environment (configs/libraries-jaxprivacy.toml)",
    ),
    ("tightness", "python benchmarks/tightness.py", "ε lower bound / true ε against samples"),
    (
        "group_privacy",
        "python benchmarks/group_privacy.py",
        "paper 004, group privacy of the subsampled Gaussian",
    ),
    (
        "catalogue_witness",
        "python benchmarks/catalogue_witness.py",
        "the catalogue on its witnesses",
    ),
    ("core_speed", "python benchmarks/core_speed.py", "audit loop speed"),
    (
        "objectives",
        "python benchmarks/objectives.py",
        "the hockey-stick tester's event objectives in audits of the catalogue",
    ),
    (
        "blind_spots",
        "python benchmarks/blind_spots.py",
        "issue 64: point masses and one coordinate's tails under pure DP",
    ),
    (
        "draws_to_verdict",
        "python benchmarks/draws_to_verdict.py",
        "issue 76: total draws to refute, adaptive against sequential, beside an oracle",
    ),
    (
        "sampling_choice",
        "python benchmarks/sampling_choice.py",
        "issue 76: bugs refuted at each draw budget, adaptive against sequential, and auto",
    ),
    (
        "slow_releases",
        "python benchmarks/slow_releases.py",
        "issue 64: max_seconds as a hard bound on slow per-call releases",
    ),
    (
        "verdicts",
        "python benchmarks/verdicts.py",
        "issue 67: three verdicts; an untestable δ is inconclusive, never passed",
    ),
    (
        "adaptive",
        "python benchmarks/adaptive.py",
        "adaptive against fixed sampling; a slow per-call mechanism",
    ),
    (
        "timed_estimates",
        "python benchmarks/timed_estimates.py",
        "estimate_epsilon with max_seconds on slow mechanisms",
    ),
    (
        "cluster_estimate",
        "python benchmarks/cluster_estimate.py",
        "issue 68: one estimate's certification on a Dask cluster",
    ),
    (
        "structured_outputs",
        "python benchmarks/structured_outputs.py",
        "issue 66: keyed results and labels, caught and false alarms",
    ),
    ("startup", "python benchmarks/startup.py", "import and plugin start-up cost"),
    (
        "report_memory",
        "python benchmarks/report_memory.py",
        "issue 80: dpfuzz report's memory against stored audits",
    ),
    (
        "loaded_suite",
        "python benchmarks/loaded_suite.py --runs 3 --together",
        "issue 79: the test suite beside four busy processes",
    ),
]
PACKAGES = [
    "numpy",
    "scipy",
    "scikit-learn",
    "dp-accounting",
    "hypothesis",
    "google-vizier",
    "jax",
    "matplotlib",
    "opendp",
    "polars",
    "diffprivlib",
    "python-dp",
    "opacus",
    "torch",
    "pipeline-dp",
]


def machine() -> str:
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    versions = []
    for package in PACKAGES:
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    return (
        f"Collected {date.today()} on {platform.platform()}, {os.cpu_count()} cores, {memory:.0f}"
        f" GiB, no GPU; Python {platform.python_version()}, dpfuzz {metadata.version('dpfuzz')}, "
        + ", ".join(versions)
        + "."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="collect the quick-mode results (CI)")
    args = parser.parse_args()
    here = Path(__file__).parent
    results = here / "results" / ("quick" if args.quick else "")
    out = results / "RESULTS.md" if args.quick else here / "RESULTS.md"
    prefix = "" if args.quick else "results/"
    lines = [
        "# dpfuzz benchmark results",
        "",
        machine(),
        "Each section's own line gives the date it was measured. Every command takes `--quick`",
        "(a smoke test that CI runs); `python benchmarks/collect.py` rebuilds this file.",
        "",
    ]
    for name, command, what in EXPERIMENTS:
        path = results / f"{name}.md"
        lines += [f"## {what}", "", f"`{command}`", ""]
        if not path.exists():
            lines += ["*(not run yet)*", ""]
            continue
        body = path.read_text().splitlines()
        # the section heading replaces it
        body = [line for line in body if not line.startswith("# ")]
        while body and not body[0].strip():
            body.pop(0)
        lines += [
            line.replace("](", f"]({prefix}") if line.startswith("![") else line for line in body
        ]
        lines.append("")
    out.write_text("\n".join(lines))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
