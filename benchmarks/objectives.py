"""The hockey-stick tester's event objectives and pure-DP certificates in audits of the catalogue.

    python benchmarks/objectives.py           # every (ε, δ) entry, seeds 0-4, quick budget
    python benchmarks/objectives.py --quick   # three entries, seed 0 (CI)
    python benchmarks/objectives.py --false-alarms 200   # exactly-tight entries, seeds 0-199

`audit(entry(), entry.claim(), entry.domain(), tester=HockeyStickTester(objective=o,
certificate=c), budget="quick", seed=s)` for three variants: events ranked by the H_{e^ε} bound
("divergence"), by the ε bound and certified per side ("epsilon", the default), and by the ε
bound with pure DP certified by the joint privacy-loss bound ("epsilon, joint", what
`estimate_epsilon` uses), on every catalogue
entry with a pure or approximate DP claim that the hockey-stick tester can take (its tester
"auto" or "hockey_stick"). Per entry and variant: catches (bugs) or
false alarms (correct entries) over the seeds, the mean certified ε lower bound (0 when none),
the mean privacy loss on the verified event that a clean audit would have refuted (its power
statement), and the mean draws. Writes benchmarks/results/objectives.md.
"""

from __future__ import annotations

import argparse

import numpy as np
from results_table import environment, write

from dpfuzz import audit
from dpfuzz.catalogue import catalogue, entry
from dpfuzz.claims import ApproxDP
from dpfuzz.testers import HockeyStickTester

VARIANTS = {  # label: (objective, certificate)
    "divergence": ("divergence", "per_side"),
    "epsilon": ("epsilon", "per_side"),
    "epsilon, joint": ("epsilon", "privacy_loss"),
}
QUICK_ENTRIES = ("Laplace", "GeoSample", "iSVT4")
# true ε = claimed ε
TIGHT_ENTRIES = (
    "Laplace",
    "NoisyHistogram",
    "RandomizedResponse",
    "TruncatedGeometric",
)


def entries(quick: bool) -> list:
    chosen = [
        item
        for item in catalogue()
        if item.tester in ("auto", "hockey_stick") and isinstance(item.claim(), ApproxDP)
    ]
    return [item for item in chosen if item.name in QUICK_ENTRIES] if quick else chosen


def measure(item, variant: str, seeds) -> dict:
    objective, certificate = VARIANTS[variant]
    reports = [
        audit(
            item(),
            item.claim(),
            item.domain(),
            tester=HockeyStickTester(objective=objective, certificate=certificate),
            budget="quick",
            seed=seed,
        )
        for seed in seeds
    ]
    powers = [(report.power or {}).get("epsilon") for report in reports]
    powers = [power for power in powers if power is not None and np.isfinite(power)]
    return {
        "flagged": sum(report.violated for report in reports),
        "epsilon": float(np.mean([report.epsilon_lower_bound or 0.0 for report in reports])),
        "power": f"{np.mean(powers):.3f}" if powers else "—",
        "draws": float(np.mean([report.draws for report in reports])),
    }


def false_alarms(seeds: int) -> None:
    """Print how often each ε-ranked variant refutes each exactly-tight entry over `seeds` seeds."""
    for variant in ("epsilon", "epsilon, joint"):
        for name in TIGHT_ENTRIES:
            item = entry(name)
            flagged = measure(item, variant, range(seeds))["flagged"]
            print(
                f"{variant}: {name}: {flagged} of {seeds} audits refuted its exact claim"
                f" {item.claim().describe()} (β = 0.05)",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="three entries, seed 0")
    parser.add_argument(
        "--false-alarms",
        type=int,
        metavar="SEEDS",
        help="only the exactly-tight entries, ε-ranked variants",
    )
    args = parser.parse_args()
    if args.false_alarms:
        return false_alarms(args.false_alarms)
    seeds = range(1 if args.quick else 5)
    rows, totals = [], {(variant, truth): 0 for variant in VARIANTS for truth in (True, False)}
    audits = {True: 0, False: 0}  # audits of correct entries, of bugs
    for item in entries(args.quick):
        truth = item.truth()
        audits[bool(truth.satisfies)] += len(seeds)
        cells = []
        for variant in VARIANTS:
            result = measure(item, variant, seeds)
            totals[variant, bool(truth.satisfies)] += result["flagged"]
            cells.append(
                f"{result['flagged']} | {result['epsilon']:.3f} | {result['power']} |"
                f" {result['draws']:,.0f}"
            )
        true_epsilon = "?" if truth.true_epsilon is None else f"{truth.true_epsilon:.4g}"
        verdict = "correct" if truth.satisfies else "bug"
        rows.append(
            f"| {item.name} | {item.claim().describe()} | {verdict} | {true_epsilon} | "
            + " | ".join(cells)
            + " |"
        )
    lines = [
        (
            "# Hockey-stick event objectives and certificates in audits of the catalogue (quick"
            " budget)"
        ),
        "",
        (
            f"{environment()}; seeds {seeds.start}–{seeds.stop - 1}, β = 0.05 per audit, both"
            " directions verified."
        ),
        (
            "Flagged: refutations (catches on bugs, false alarms on correct entries). ε ≥: mean"
            " certified"
        ),
        (
            "lower bound (0 when none). Power: mean privacy loss on the verified event that the"
            " audit would"
        ),
        "have refuted (— when every audit refuted, or none had one). Draws: mean outputs drawn.",
        "",
        (
            "Variants: events ranked by the H_{e^ε} bound (divergence), by the ε bound and"
            " certified with"
        ),
        "Clopper–Pearson per side (epsilon, the default), or with pure DP certified by the joint",
        "privacy-loss bound (epsilon, joint: `estimate_epsilon`'s).",
        "",
        "| entry | claim | truth | true ε | "
        + " | ".join(f"{variant}: flagged | ε ≥ | power | draws" for variant in VARIANTS)
        + " |",
        "|---|---|---|---:|" + "---:|" * 4 * len(VARIANTS),
        *rows,
        "",
        *(
            f"- {variant}: {totals[variant, False]} of {audits[False]} bug audits caught, "
            f"{totals[variant, True]} false alarm(s) in {audits[True]} audits of correct entries."
            for variant in VARIANTS
        ),
    ]
    write("objectives", lines, args.quick)


if __name__ == "__main__":
    main()
