"""When sequential sampling beats adaptive (issue 76): bugs refuted by each mode at a given draw
budget, the evidence for when `sampling="auto"` races (`dpfuzz.engine.sampling`).

    python benchmarks/sampling_choice.py           # every case, 11 budgets, seeds 0-9
    python benchmarks/sampling_choice.py --quick   # four cases, two budgets, seed 0 (CI)

Cases: `cases.verdict_cases`, those of `draws_to_verdict.py` (the catalogue's bugs with (ε, δ)
claims, and four releases drawing one output per call). Every audit has the defaults but
`sampling` and `max_draws`; a slow release under a time limit affords about its call rate × the
limit.
Writes benchmarks/results/sampling_choice.md, and each audit's outcome to sampling_choice.json
as it ends: a rerun draws only the audits not saved yet (`--fresh`: all), so another budget or
policy costs only its own audits.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from cases import COUNTS, gaussian_delta, verdict_cases
from results_table import environment, results_path, write

from dpfuzz import ApproxDP, AuditSettings, Domain, InvalidArgument, PureDP, audit
from dpfuzz.engine import AuditPolicy
from dpfuzz.engine.sampling import races


def laplace_at(epsilon: float):
    """ΣX + Lap(1/ε) under a claim of ε = 1."""

    def release(dataset, num_samples, rng):
        return np.sum(dataset) + rng.laplace(0.0, 1.0 / epsilon, num_samples)

    return release


def one_coordinate_halved(dataset, num_samples, rng):
    """(ΣX + Lap(2), ΣX + Lap(1)): the second coordinate has half the noise 1-DP needs (ε = 1.5)."""
    total = np.sum(dataset)
    return np.column_stack(
        [total + rng.laplace(0.0, 2.0, num_samples), total + rng.laplace(0.0, 1.0, num_samples)]
    )


def geometric_at(dataset, num_samples, rng):
    """A count with two-sided geometric noise at ε = 1.3 under a claim of ε = 1."""
    p = 1 - math.exp(-1.3)
    return np.sum(dataset) + rng.geometric(p, num_samples) - rng.geometric(p, num_samples)


def randomized_response_at(dataset, num_samples, rng):
    """One bit kept with probability e^1.5 / (1 + e^1.5) under a claim of ε = 1."""
    keep = rng.random(num_samples) < math.exp(1.5) / (1 + math.exp(1.5))
    bit = float(np.sum(dataset) >= 0.5)
    return np.where(keep, bit, 1.0 - bit)


def gaussian_wrong_sensitivity(dataset, num_samples, rng):
    """1.5·ΣX + N(0, σ²) with σ for (1, 10⁻⁵) at sensitivity 1: δ(1) ≈ 10⁻³ at sensitivity 1.5."""
    from scipy.optimize import brentq

    sigma = brentq(lambda s: gaussian_delta(s, 1.0) - 1e-5, 0.1, 20.0)
    return 1.5 * np.sum(dataset) + rng.normal(0.0, sigma, num_samples)


BIT = Domain(low=0.0, high=1.0, min_size=1, max_size=1, relation="substitute")
# Cases the threshold was not chosen on, each drawing one output per call as a library would.
HOLDOUT = {
    "Laplace at ε = 1.25": (laplace_at(1.25), PureDP(1.0), COUNTS),
    "Laplace at ε = 1.1": (laplace_at(1.1), PureDP(1.0), COUNTS),
    "2-D, one coordinate's noise halved (ε = 1.5)": (one_coordinate_halved, PureDP(1.0), COUNTS),
    "geometric count at ε = 1.3": (geometric_at, PureDP(1.0), COUNTS),
    "randomized response at ε = 1.5": (randomized_response_at, PureDP(1.0), BIT),
    "Gaussian, sensitivity 1.5 taken as 1": (
        gaussian_wrong_sensitivity,
        ApproxDP(1.0, 1e-5),
        COUNTS,
    ),
}


def holdout_cases(quick: bool) -> list[tuple]:
    """(name, mechanism, claim, domain, tester, witness) of each holdout case (witness unused)."""
    found = [
        (name, mechanism, claim, domain, "auto", None)
        for name, (mechanism, claim, domain) in HOLDOUT.items()
    ]
    return found[:1] if quick else found


BUDGETS = (1_000, 1_500, 2_000, 2_200, 2_400, 3_000, 5_000, 10_000, 20_000, 50_000, 200_000)
MODES = ("adaptive", "sequential")


SETS = {"chosen on": verdict_cases, "not chosen on": holdout_cases}  # names key the saved outcomes
TITLES = {
    "chosen on": "The cases of draws_to_verdict.py",
    "not chosen on": "Cases written for decision 0038 (the rule was not chosen on them)",
}


def refuted(job: tuple) -> bool | None:
    """Whether the audit `job` = (set, quick, case index, mode, budget, seed) refutes its claim
    (None: the mode cannot run with so few draws)."""
    name, quick, index, sampling, budget, seed = job
    _, mechanism, claim, domain, tester, _ = cases(name, quick)[index]
    try:
        report = audit(
            mechanism, claim, domain, seed=seed, sampling=sampling, tester=tester, max_draws=budget
        )
    except InvalidArgument:
        return None
    return report.violated


@functools.cache
def cases(name: str, quick: bool) -> list[tuple]:
    """Set `name`'s cases, built once per process."""
    return SETS[name](quick)


def key(job: tuple) -> str:
    """The saved outcomes' name for `job`'s case, mode and budget (its seeds under it): the
    case by name, so that a case added to a set does not take another's outcomes."""
    name, quick, index, sampling, budget, _ = job
    return "|".join(map(str, (name, quick, cases(name, quick)[index][0], sampling, budget)))


def auto_races(case: tuple, budget: int) -> bool:
    """Whether `sampling="auto"` races `case` at `max_draws` = `budget` (`engine.sampling`)."""
    _, _, claim, _, tester, _ = case
    settings = AuditSettings(sampling="auto", tester=tester, max_draws=budget)
    return races(settings, claim, budget, AuditPolicy().smallest_audit_draws)


def table(name: str, results: dict, quick: bool, seeds: range, budgets: tuple) -> list[str]:
    """The rows of set `name`: refuted of the seeds per budget and mode (the one `"auto"` runs in
    bold), totals and the cases `"auto"` refutes less often than adaptive sampling."""
    found = cases(name, quick)

    def caught(index: int, mode: str, budget: int) -> int:
        if mode == "auto":
            mode = "sequential" if auto_races(found[index], budget) else "adaptive"
        return sum(bool(results[(name, quick, index, mode, budget, seed)]) for seed in seeds)

    def runs(index: int, mode: str, budget: int) -> bool:
        return results[(name, quick, index, mode, budget, seeds[0])] is not None

    def cell(index: int, budget: int) -> str:
        counts = [
            str(caught(index, mode, budget)) if runs(index, mode, budget) else "—" for mode in MODES
        ]
        chosen = int(auto_races(found[index], budget))
        counts[chosen] = f"**{counts[chosen]}**"
        return " / ".join(counts)

    rows = [
        f"| {case[0]} | {' | '.join(cell(index, budget) for budget in budgets)} |"
        for index, case in enumerate(found)
    ]
    totals, losses = [], []
    for budget in budgets:
        total = {
            mode: sum(caught(i, mode, budget) for i in range(len(found)))
            for mode in (*MODES, "auto")
        }
        totals.append(" / ".join(str(total[mode]) for mode in (*MODES, "auto")))
        lost = [
            case[0]
            for index, case in enumerate(found)
            if caught(index, "auto", budget) < caught(index, "adaptive", budget)
        ]
        losses.append(", ".join(lost) or "none")
    header = " | ".join(f"{budget:,}" for budget in budgets)
    return [
        f"## {TITLES[name]}",
        "",
        f"| bug | {header} |",
        "|---|" + "---:|" * len(budgets),
        *rows,
        f"| **all** (adaptive / sequential / auto) | {' | '.join(totals)} |",
        f"| auto refutes fewer than adaptive | {' | '.join(losses)} |",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="four cases, two budgets, seed 0")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--fresh", action="store_true", help="rerun every audit, not only those not saved yet"
    )
    args = parser.parse_args()
    seeds = range(1) if args.quick else range(10)
    budgets = BUDGETS[:2] if args.quick else BUDGETS
    jobs = [
        (name, args.quick, index, mode, budget, seed)
        for name, cases in SETS.items()
        for index in range(len(cases(args.quick)))
        for budget in budgets
        for mode in MODES
        for seed in seeds
    ]
    # outcomes are saved per case, mode and budget, seed by seed: a rerun draws only the audits
    # not saved yet
    saved = results_path("sampling_choice", "json", args.quick)
    known = {} if args.fresh or not saved.exists() else json.loads(saved.read_text())
    missing = [job for job in jobs if str(job[-1]) not in known.get(key(job), {})]
    with ProcessPoolExecutor(args.workers) as pool:
        for job, outcome in zip(missing, pool.map(refuted, missing)):
            known.setdefault(key(job), {})[str(job[-1])] = None if outcome is None else int(outcome)
    saved.write_text(json.dumps(known, separators=(",", ":")) + "\n")
    results = {job: known[key(job)][str(job[-1])] for job in jobs}
    lines = [
        "# Sampling choice: bugs refuted at a draw budget, adaptive / sequential",
        "",
        (
            f"{environment()}; β = 0.05, seeds {seeds.start}–{seeds.stop - 1}: each cell is"
            f" refuted of {len(seeds)} with `max_draws` = the column, adaptive / sequential (—:"
            f" below the smallest adaptive audit's {AuditPolicy().smallest_audit_draws:,} draws,"
            ' it cannot run); in bold the mode `sampling="auto"` runs there.'
        ),
        "",
    ]
    for name in SETS:
        lines += table(name, results, args.quick, seeds, budgets)
    write("sampling_choice", lines, args.quick)


if __name__ == "__main__":
    main()
