"""Peak memory of `dpfuzz report` against the number of stored audits: a night's database.

    python benchmarks/report_memory.py           # 1,000 and 10,000 stored audits
    python benchmarks/report_memory.py --quick   # 100 and 400 (CI smoke test)

Each stored audit is one real audit's summary and report (a Laplace audit at a small budget),
with an HTML page padded to 700 kB, the size of a page with its two plots inline (issue 80:
1.69 GB for 2,410 audits when every report was loaded at once). The report runs in a fresh
process; its peak resident memory is read from the kernel (`ru_maxrss` of the child).
Target (issue 80): under 500 MB at 10,000 audits, and not growing with their number.
Writes benchmarks/results/report_memory.md (quick mode: benchmarks/results/quick/).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from results_table import environment, write

PAGE_BYTES = 700_000


def stored_database(folder: Path, audits: int) -> Path:
    """A results database of `audits` copies of one audit, under distinct keys."""
    from dpfuzz.campaign import load_config, run_audit
    from dpfuzz.store import ResultsStore

    config_path = folder / "campaign.toml"
    config_path.write_text('trials = 2\nsamples = 2000\n[[target]]\nentry = "Laplace"\n')
    config = load_config(config_path)
    key, summary, report = run_audit(config.audits()[0])
    report = {**report, "html": report.get("html", "") + " " * PAGE_BYTES}
    store = ResultsStore(folder / "results" / "results.db")
    run_id = store.new_run({**config.to_dict(), "seeds": list(range(audits))})
    for index in range(audits):
        store.record(run_id, f"{key}|{index}", replace(summary, seed=index), report)
    return folder / "results"


# A wrapper process per measurement: ru_maxrss of its one child is that report's peak alone.
MEASURE = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def report_peak(results: Path) -> tuple[float, float]:
    """(peak resident MB, seconds) of `dpfuzz report` on `results`, in a fresh process."""
    report = [sys.executable, "-m", "dpfuzz", "report", "--results", str(results), "--exit-zero"]
    began = time.perf_counter()
    measured = subprocess.run(
        [sys.executable, "-c", MEASURE, *report], check=True, capture_output=True, text=True
    )
    return int(measured.stdout.split()[-1]) / 1024, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 400 audits")
    args = parser.parse_args()
    sizes = (100, 400) if args.quick else (1_000, 10_000)
    rows = []
    for audits in sizes:
        with tempfile.TemporaryDirectory() as folder:
            results = stored_database(Path(folder), audits)
            database_mb = (results / "results.db").stat().st_size / 1e6
            peak, seconds = report_peak(results)
            rows.append((audits, database_mb, peak, seconds))
    lines = [
        "# Memory of `dpfuzz report`",
        "",
        f"{environment()}; one fresh process per row (`ru_maxrss`); pages of {PAGE_BYTES:,} bytes.",
        "",
        "| stored audits | database MB | peak resident MB | seconds |",
        "|---:|---:|---:|---:|",
        *(f"| {a:,} | {d:,.0f} | {p:,.0f} | {s:.1f} |" for a, d, p, s in rows),
    ]
    write("report_memory", lines, args.quick)


if __name__ == "__main__":
    main()
