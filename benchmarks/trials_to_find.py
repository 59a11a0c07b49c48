"""Trials until an audit refutes the claim, per violating catalogue entry × finder (paper 002,
Table 2): the mean over seeds of the smallest T ≤ 50 with audit(trials=T, seed) violated.

    python benchmarks/trials_to_find.py                      # 10 seeds, cap 50, every finder
    python benchmarks/trials_to_find.py --finders random,sobol --seeds 3
    python benchmarks/trials_to_find.py --quick              # smoke test (CI)
    python benchmarks/trials_to_find.py --finders ""         # only rewrite the table from the JSON

audit(trials=T) searches the first T trials of audit(trials=50) (the trial seeds are a prefix)
and verifies the best candidate so far, so T is found by doubling T until the audit refutes,
then checking in order the trials of the last interval at which the best candidate changed.
Budget per trial: 20,000 samples, verification on 100,000; each entry's own tester; fixed
sampling (this measures the finders: adaptive sampling would stop the search at the first
refuting trial, and its racing reorders draws).
Each finder's column is kept in benchmarks/results/trials_to_find.json, so finders can be run
separately (the vizier column takes hours); the table benchmarks/results/trials_to_find.md
shows every finder measured with the same seeds and cap.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from results_table import environment, results_path, write

from dpfuzz import RandomFinder, audit
from dpfuzz.catalogue import catalogue
from dpfuzz.finders import make_finder


def finder(name: str):
    return RandomFinder(sampler="sobol") if name == "sobol" else make_finder(name)


def refutes(item, name: str, seed: int, trials: int) -> tuple[bool, list[float]]:
    report = audit(
        item(),
        item.claim(),
        item.domain(),
        tester=item.tester,
        finder=finder(name),
        trials=trials,
        samples=20_000,
        verify_samples=100_000,
        seed=seed,
        sampling="fixed",
    )
    return report.violated, [record.score for record in report.history if record.round == 0]


def trials_to_refute(item, name: str, seed: int, cap: int) -> int | None:
    """Smallest T ≤ cap with a refuting audit, or None (counted as the cap in the mean)."""
    low, high = 0, 1
    while True:
        violated, scores = refutes(item, name, seed, high)
        if violated:
            break
        if high >= cap:
            return None
        low, high = high, min(2 * high, cap)
    # Between low and high, only trials where the best-so-far score rises (or a positive score,
    # which the Hypothesis finder shrinks) can change the verified candidate.
    best = max(scores[:low], default=float("-inf"))
    for trial in range(low + 1, high):
        score = scores[trial - 1]
        if score > best or score > 0:
            if refutes(item, name, seed, trial)[0]:
                return trial
        best = max(best, score)
    return high


ORDER = ["random", "sobol", "grid", "hypothesis", "vizier"]


def cell(trials: list[int | None], cap: int, seconds: float) -> str:
    mean = statistics.mean(cap if value is None else value for value in trials)
    missed = sum(value is None for value in trials)
    return f"{mean:.1f}" + (f" ({missed} missed)" if missed else "") + f", {seconds:.0f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="two entries, two finders, one seed, cap 5"
    )
    parser.add_argument("--finders", default=",".join(ORDER))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--cap", type=int, default=50)
    args = parser.parse_args()
    names = ["random", "grid"] if args.quick else [name for name in args.finders.split(",") if name]
    seeds = 1 if args.quick else args.seeds
    cap = 5 if args.quick else args.cap
    entries = catalogue(satisfies=False)
    if args.quick:
        entries = [item for item in entries if item.name in ("NonDPLaplaceMean1", "SVT5")]
    store = results_path("trials_to_find", "json", args.quick)
    columns = json.loads(store.read_text()) if store.exists() else {}
    for name in names:
        columns[name] = {"seeds": seeds, "cap": cap, "date": environment(), "entries": {}}
        for item in entries:
            start = time.perf_counter()
            found = [trials_to_refute(item, name, seed, cap) for seed in range(seeds)]
            columns[name]["entries"][item.name] = {
                "trials": found,
                "seconds": time.perf_counter() - start,
            }
            store.write_text(json.dumps(columns, indent=1))  # a finished cell is never lost
            print(
                item.name,
                name,
                cell(found, cap, columns[name]["entries"][item.name]["seconds"]),
                flush=True,
            )
    shown = [
        name
        for name in ORDER
        if columns.get(name, {}).get("seeds") == seeds and columns[name]["cap"] == cap
    ]
    rows = [
        f"| {item.name} | "
        + " | ".join(
            (
                cell(**columns[name]["entries"][item.name], cap=cap)
                if item.name in columns[name]["entries"]
                else "–"
            )
            for name in shown
        )
        + " |"
        for item in entries
    ]
    lines = [
        "# Trials to refute (paper 002, Table 2 analogue)",
        "",
        (
            f"{environment()}. Mean over {seeds} seed(s) of the trials until the audit refutes the"
            " claim,"
        ),
        f"capped at {cap} (a miss counts as {cap}); then the seconds for all seeds.",
        "Measured per finder on: "
        + "; ".join(f"{name} {columns[name]['date'].split(',')[0]}" for name in shown)
        + ".",
        "",
        "| mechanism | " + " | ".join(shown) + " |",
        "|---|" + "---|" * len(shown),
        *rows,
        "",
        (
            "Published (paper 002, Table 2, n = 500,000, ε = 0.01): with the GP bandit, random or"
            " grid finder and any"
        ),
        (
            "tester, SVT3, SVT4, SVT5 and SVT6 were never found in 50 trials (50.0 in every cell);"
            " by tester and finder,"
        ),
        "NonDPLaplace2 took 1.5–50 trials and NonDPGaussian2 1.2–50.",
    ]
    write("trials_to_find", lines, args.quick)


if __name__ == "__main__":
    main()
