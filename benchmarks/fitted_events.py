"""How good are the events `estimate_epsilon` fits on SVT3, judged exactly (issue 16)?

    python benchmarks/fitted_events.py           # 12 seeds on each pair (about 5 minutes) python
    benchmarks/fitted_events.py --quick   # one seed, a tenth of the outputs, coarser cells (CI)

SVT3 (DP-Sniper's configuration) on the all-answers-up pair and on DP-Sniper's pair: per seed, the
final fit of an estimate after a search of DP-Sniper's domain at its budget (the fitting and the
verification outputs per side that `estimate_epsilon` gives the chosen pair; the event chosen by
`HockeyStickTester.fit_oriented`, as the estimate calls it). Each fitted event is judged by its
expected certificate: the joint bound (`pure_dp_epsilon_lower`, β = 0.1) at its expected counts,
summed exactly over the output cells (`certifiable_ceiling.svt3_outputs`). Beside it, the best
expected certificate of any threshold of the same fitted score, which splits what is lost into the
score's ordering of the outputs (ceiling minus best threshold) and the threshold chosen (best
threshold minus event). The verification's own count noise is left out, so two fitting rules can
be compared on a few seeds. Writes benchmarks/results/fitted_events.md.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from cases import (
    EPSILON,
    MAX_DRAWS,
    SNIPER_BETA,
    SVT3_PAIRS,
    certificates,
    monotone_scores,
    row_setup,
    svt3_outputs,
)
from results_table import environment, write
from scipy import stats
from sklearn.pipeline import Pipeline

from dpfuzz import EstimationPolicy
from dpfuzz.claims import PureDP
from dpfuzz.estimation import sizes as estimate_sizes
from dpfuzz.estimation.task import estimation_tester
from dpfuzz.testers.bounds import pure_dp_epsilon_lower
from dpfuzz.testers.models import MonotonePatternScore

PAIRS = {
    name: SVT3_PAIRS[name]
    for name in ("all answers up: [0]*10 / [1]*10", "DP-Sniper's: [0]*5+[1]*5 / [1]*5+[0]*5")
}
TOP_SETS = 200  # exact bounds per ceiling (`certificates`)


def search_sizes() -> tuple[int, int]:
    """(fitting, verification) outputs per side of the chosen pair after a 10-pair search at
    DP-Sniper's budget of 2.6·10^7 draws."""
    policy = EstimationPolicy()
    left = MAX_DRAWS - estimate_sizes.search_plan(MAX_DRAWS, policy.search_trials)[1]
    return estimate_sizes.fit_samples(
        left - policy.audit.probe_draws
    ), estimate_sizes.verification_samples(left)


def output_rows(values: np.ndarray, k: int = 10) -> np.ndarray:
    """SVT3's outputs as the catalogue's entry releases them (codes 0 = ⊥, 1 = ⊤, −1 = not
    answered, then the values, 0 where none is released), in `svt3_outputs`' order: ⊤ first at
    query j with each value of the grid, for j = 0 … k − 1, then ⊥^k."""
    rows = np.zeros((k * len(values) + 1, 2 * k))
    for j in range(k):
        block = slice(j * len(values), (j + 1) * len(values))
        rows[block, j], rows[block, j + 1 : k], rows[block, k + j] = 1.0, -1.0, values
    return rows


def expected_certificate(
    inside: np.ndarray, p: np.ndarray, q: np.ndarray, n: int
) -> tuple[float, float]:
    """(the joint bound at the event's expected counts on n outputs per side, its expected count
    under P)."""
    count_p, count_q = p[inside].sum() * n, q[inside].sum() * n
    return pure_dp_epsilon_lower(round(count_p), n, round(count_q), n, SNIPER_BETA), count_p


def best_threshold(scores: np.ndarray, p: np.ndarray, q: np.ndarray, n: int) -> float:
    """The best expected certificate of an upper or a lower tail of `scores`."""
    return max(
        certificates(p[None], q[None], n, TOP_SETS, SNIPER_BETA, scores=sign * scores[None]).max()
        for sign in (1, -1)
    )


def score_name(model) -> str:
    """The fitted score an event thresholds, in a few words."""
    if isinstance(model, MonotonePatternScore):
        return "monotone steps" + (
            f", {model.prior_rows:g} pseudo-rows" if model.prior_rows else ""
        )
    return type(model[-1] if isinstance(model, Pipeline) else model).__name__


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one seed, a tenth of the outputs, coarser cells"
    )
    args = parser.parse_args()
    (fit, verify), seeds, cell = search_sizes(), range(12), 0.1
    if args.quick:
        fit, verify, seeds, cell = fit // 10, verify // 10, range(1), 0.5
    values = np.arange(-300.0, 320.0, cell)  # released values: Lap(20) beyond ±300 has mass e^-15
    grid = np.linspace(-800.0, 800.0, 10_001 if args.quick else 40_001)
    weights = stats.laplace(scale=2 / EPSILON).pdf(grid) * (grid[1] - grid[0])  # ρ ~ Lap(2/ε)
    rows = output_rows(values)
    mechanism = row_setup("SVT3")[0]
    tester = estimation_tester(mechanism)
    lines = [
        "# The events estimate_epsilon fits on SVT3, judged exactly",
        "",
        (
            f"{environment()}; SVT3 (t = 1, c = 1, ε = 0.1), each seed's event fitted on {fit:,}"
            " outputs per side"
        ),
        (
            f"for {verify:,} verification outputs (the chosen pair's after a 10-pair search at"
            " 2.6·10^7 draws), value"
        ),
        (
            f"cells of width {cell:g}. Expected certificates at β = {SNIPER_BETA}: the joint bound"
            " at the event's expected counts."
        ),
        (
            '"Best threshold": the most any upper or lower tail of the same fitted score certifies.'
            " Ceilings"
        ),
        (
            "(`certifiable_ceiling.md`): any event, and any threshold of the exact ratio's monotone"
            " fit per pattern."
        ),
        "",
        (
            "| pair | seed | fitted event | its count under P | best threshold of its score | score"
            " | fit s |"
        ),
        "|---|---:|---:|---:|---:|---|---:|",
    ]
    summary = []
    for name, (first, second) in PAIRS.items():
        p, q = (svt3_outputs(answers, 1.0, values, grid, weights) for answers in (first, second))
        ceiling = certificates(p[None], q[None], verify, TOP_SETS, SNIPER_BETA).max()
        monotone = best_threshold(monotone_scores(p, q, 10), p, q, verify)
        events, thresholds = [], []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            samples0, samples1 = mechanism(first, fit, rng), mechanism(second, fit, rng)
            began = time.perf_counter()
            event, swapped = tester.fit_oriented(
                samples0, samples1, PureDP(0.0), SNIPER_BETA, rng, eval_size=verify
            )
            seconds = time.perf_counter() - began
            a, b = (q, p) if swapped else (p, q)
            certificate, count = expected_certificate(event.contains(rows), a, b, verify)
            threshold = best_threshold(event.score(rows), a, b, verify)
            events.append(certificate)
            thresholds.append(threshold)
            lines.append(
                f"| {name} | {seed} | {certificate:.4f} | {count:,.0f} | {threshold:.4f} |"
                f" {score_name(event.score.model)}{' (reversed)' if swapped else ''} |"
                f" {seconds:.1f} |"
            )
        summary.append(
            (name, ceiling, monotone, np.mean(events), np.min(events), np.mean(thresholds))
        )
    lines += [
        "",
        (
            "| pair | ceiling | monotone ceiling | fitted events: mean | smallest | best thresholds"
            " of their scores: mean |"
        ),
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {name} | {c:.4f} | {m:.4f} | {mean:.4f} | {low:.4f} | {best:.4f} |"
        for name, c, m, mean, low, best in summary
    ]
    write("fitted_events", lines, args.quick)


if __name__ == "__main__":
    main()
