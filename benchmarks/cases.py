"""Cases several benchmarks share: DP-Sniper's rows (its mechanisms, pairs, domains and published
bounds, and a timed estimate on one) and the exact output distribution of SVT3 with the best
certificates it allows."""

from __future__ import annotations

import math
import time

import numpy as np
from scipy import stats
from sklearn.isotonic import IsotonicRegression

from dpfuzz import ApproxDP, DatasetPair, Domain, PureDP, estimate_epsilon
from dpfuzz.catalogue import catalogue, entry
from dpfuzz.testers.bounds import pure_dp_epsilon_lower, wilson_lower, wilson_upper


def answers(d0, d1) -> DatasetPair:
    return DatasetPair(np.asarray(d0, dtype=float), np.asarray(d1, dtype=float))


def answers_domain(queries: int) -> Domain:
    """DP-Sniper's InputDomain(queries, FLOAT, [−10, 10]) with ℓ∞ neighbours at distance 1."""
    return Domain(low=-10.0, high=10.0, min_size=queries, max_size=queries, relation="linf")


# DP-Sniper's name: (our entry, its parameters, DP-Sniper's pair (None: our witness), the domain
# searched (None: the entry's), DP-Sniper's ε lower bound and seconds (None: not measured here))
ROWS = {
    "SVT1": ("SVT1", {"c": 1, "t": 0.5}, None, answers_domain(10), None, None),
    "SVT2": ("SVT2", {"c": 1}, None, answers_domain(10), None, None),
    "SVT3": (
        "SVT3",
        {"c": 1},
        answers([0] * 5 + [1] * 5, [1] * 5 + [0] * 5),
        answers_domain(10),
        0.174,
        205,
    ),
    "SVT4": (
        "SVT4",
        {"c": 1},
        answers([1] * 10, [2] * 5 + [0] * 5),
        answers_domain(10),
        0.138,
        237,
    ),
    "SVT5": ("SVT5", {"c": 1}, answers([2] * 5 + [0] * 5, [1] * 10), answers_domain(10), 1.758, 32),
    "SVT6": (
        "SVT6",
        {"c": 1},
        answers([1] * 5 + [0] * 5, [0] * 5 + [1] * 5),
        answers_domain(10),
        0.266,
        58,
    ),
    "ReportNoisyMax1": ("NoisyMaxLaplace", {}, None, answers_domain(5), None, None),
    "ReportNoisyMax2": ("NoisyMaxExponential", {}, None, answers_domain(5), None, None),
    "ReportNoisyMax3": (
        "NoisyMaxValueLaplace",
        {},
        answers([1] * 5, [2] * 5),
        answers_domain(5),
        0.244,
        101,
    ),
    "ReportNoisyMax4": (
        "NoisyMaxValueExponential",
        {},
        answers([1] * 5, [2] * 5),
        answers_domain(5),
        0.342,
        37,
    ),
    "NoisyHist1": ("NoisyHistogram", {"bins": 5}, None, None, None, None),
    # counts [1,1,1,1,1] / [0,1,1,1,1]: one record in each of bins 0..4, and without the bin-0
    # record
    "NoisyHist2": (
        "NoisyHistogramWrongScale",
        {"bins": 5},
        DatasetPair(np.arange(5, dtype=np.int64), np.arange(1, 5, dtype=np.int64)),
        None,
        4.605,
        16,
    ),
    "TruncatedGeometric": ("GeoSample", {"n": 5}, None, None, None, None),
    "Laplace": ("Laplace", {}, DatasetPair(np.array([]), np.array([1.0])), None, 0.0985, 140),
}
SNIPER_BETA = 0.1  # DP-Sniper's confidence 0.9


def row_setup(name: str):
    """The row's mechanism, its entry's domain, the pair measured (DP-Sniper's, or our witness),
    the domain searched, and β (DP-Sniper's rows at its confidence, the correct ones at 0.05)."""
    entry_name, params, pair, search_domain, sniper_epsilon, _ = ROWS[name]
    item = entry(entry_name)
    params = {"epsilon": 0.1, **params}
    domain = item.domain(**params)
    beta = 0.05 if sniper_epsilon is None else SNIPER_BETA
    return item(**params), domain, pair or item.witness(**params), search_domain or domain, beta


def row_truth(name: str) -> float | None:
    """The row's true ε at DP-Sniper's parameters (None where the catalogue does not know it)."""
    entry_name, params, *_ = ROWS[name]
    return entry(entry_name).truth(epsilon=0.1, **params).true_epsilon


def timed_estimate(name: str, on_pair: bool, seed: int, **budget) -> tuple[float, float]:
    """(ε lower bound, seconds) on DP-Sniper's pair (correct mechanisms: our witness) or
    searching."""
    mechanism, domain, pair, searched, beta = row_setup(name)
    start = time.perf_counter()
    estimate = estimate_epsilon(
        mechanism,
        pair if on_pair else searched,
        beta=beta,
        seed=seed,
        domain=domain if on_pair else None,
        **budget,
    )
    return estimate.epsilon_lower_bound, time.perf_counter() - start


# The exact SVT3 computations (certifiable_ceiling.py, fitted_events.py).
EPSILON, BETA, MAX_DRAWS = 0.1, 0.05, 26_000_000


def svt3_outputs(
    answers: np.ndarray, threshold: float, values: np.ndarray, grid: np.ndarray, weights: np.ndarray
) -> np.ndarray:
    """SVT3 with cutoff 1 (ρ ~ Lap(2/ε), ν ~ Lap(2/ε), T = `threshold`): one answer vector ↦ the
    probabilities of ⊤ first at query j with its released value q_j + ν_j in each cell of the
    `values` grid (row-major: j, then the cell), then of ⊥^k; `weights` is the density of ρ on the
    `grid` times its step. Given ⊤ at j with value v, ρ ≤ v − T and every earlier answer is ⊥:

        p(j, v) = f_ν(v − q_j) ∫_{r ≤ v − T} f_ρ(r) ∏_{i<j} F_ν(T + r − q_i) dr."""
    # ν
    noise, below, cell = (
        stats.laplace(scale=2 / EPSILON),
        np.ones_like(grid),
        values[1] - values[0],
    )
    cells = []
    for answer in answers:
        reached = np.cumsum(weights * below)  # ∫_{r ≤ grid} f_ρ(r) ∏ F_ν dr
        cells.append(
            noise.pdf(values - answer) * np.interp(values - threshold, grid, reached) * cell
        )
        below = below * noise.cdf(threshold + grid - answer)
    probabilities = np.r_[np.concatenate(cells), weights @ below]
    return probabilities / probabilities.sum()  # the grid sums add 0.08% to the mass


def certificates(
    p: np.ndarray,
    q: np.ndarray,
    n: int,
    top_sets: int,
    beta: float = BETA,
    scores: np.ndarray | None = None,
) -> np.ndarray:
    """Per row, the best expected certificate over the likelihood-ratio sets S (unions of the
    outputs of largest p/q, short of the whole output space, which certifies nothing): the bound
    `estimate_epsilon` certifies pure DP with (`pure_dp_epsilon_lower`, β) at the expected counts
    p(S)·n and q(S)·n. It is computed for the `top_sets` sets that Wilson's bounds at β/2 rank
    highest and the `top_sets` / 2 they rank highest at 2β (the joint bound's margin is about half
    a side's at β/2, so its best set can be smaller than all of the first shortlist: SVT3's
    outputs of equal ratio make thousands of sets of nearly one size), −∞ for the rest. With
    `scores`, the sets are those a score of each output thresholds instead: unions of its largest
    values, never splitting outputs of equal score."""
    order = np.argsort(np.log(q) - np.log(p) if scores is None else -scores, axis=1, kind="stable")
    p, q = np.take_along_axis(p, order, axis=1), np.take_along_axis(q, order, axis=1)
    p_sets, q_sets = np.cumsum(p, axis=1)[:, :-1] * n, np.cumsum(q, axis=1)[:, :-1] * n
    ends = np.ones(p_sets.shape, dtype=bool)
    if scores is not None:  # a set ends only where the score changes
        ranked = np.take_along_axis(scores, order, axis=1)
        ends = ranked[:, :-1] != ranked[:, 1:]
    shortlists = []
    for level, count in ((beta / 2, top_sets), (2 * beta, top_sets // 2)):
        approximate = np.log(
            np.maximum(wilson_lower(p_sets, n, level), 1e-300) / wilson_upper(q_sets, n, level)
        )
        shortlists.append(np.argsort(np.where(ends, approximate, -np.inf), axis=None)[-count:])
    top = np.unique(np.concatenate(shortlists))
    exact = np.full(p_sets.size, -np.inf)
    exact[top] = [
        pure_dp_epsilon_lower(round(x), n, round(y), n, beta)
        for x, y in zip(p_sets.ravel()[top], q_sets.ravel()[top])
    ]
    return exact.reshape(p_sets.shape).max(axis=1)


def monotone_scores(p: np.ndarray, q: np.ndarray, patterns: int) -> np.ndarray:
    """The exact log-ratio ln(p/q) of SVT3's outputs (`patterns` blocks of value cells, then ⊥^k)
    as `MonotonePatternScore` can express it: within each pattern, the best monotone fit of the
    ratio over the value (isotonic, in the direction that fits better, weighted by p + q)."""
    ratio, weight = np.log(p) - np.log(q), p + q
    cells = (len(p) - 1) // patterns
    scores = ratio.copy()
    for block in range(patterns):
        rows = slice(block * cells, (block + 1) * cells)
        x, y, w = np.arange(cells), ratio[rows], weight[rows]
        fits = [
            IsotonicRegression(increasing=up).fit_transform(x, y, sample_weight=w)
            for up in (True, False)
        ]
        scores[rows] = min(fits, key=lambda fit: np.sum(w * (fit - y) ** 2))
    return scores


# SVT3's pairs: DP-Sniper's, and three of StatDP's patterns from all answers at 0 (which searches of
# DP-Sniper's domain settle on: search_share.md, dpsniper_side_by_side.md), each in both orders.
SVT3_PAIRS = {
    "DP-Sniper's: [0]*5+[1]*5 / [1]*5+[0]*5": (
        np.r_[np.zeros(5), np.ones(5)],
        np.r_[np.ones(5), np.zeros(5)],
    ),
    "half up, half down: [0]*10 / [1]*5+[-1]*5": (np.zeros(10), np.r_[np.ones(5), -np.ones(5)]),
    "all answers up: [0]*10 / [1]*10": (np.zeros(10), np.ones(10)),
    "one up, the rest down: [0]*10 / [1]+[-1]*9": (np.zeros(10), np.r_[1.0, -np.ones(9)]),
}


# -- draws to a verdict: the catalogue's (ε, δ) bugs and releases drawing one output per call
COUNTS = Domain(low=0.0, high=1.0, min_size=0, max_size=5, relation="add_remove")
ADDED = DatasetPair(np.zeros(0), np.array([1.0]))


def laplace_half_noise(dataset, num_samples, rng):
    """ΣX + Lap(0.5) under a claim of ε = 1: ε = 2."""
    return np.sum(dataset) + rng.laplace(0.0, 0.5, num_samples)


def geometric_twice(dataset, num_samples, rng):
    """A count with two-sided geometric noise at ε = 2 under a claim of ε = 1."""
    p = 1 - math.exp(-2.0)
    return np.sum(dataset) + rng.geometric(p, num_samples) - rng.geometric(p, num_samples)


def moving_atom(dataset, num_samples, rng):
    """ΣX + Lap(1), except that one output in ten is ΣX itself: an atom on each side."""
    exact = rng.random(num_samples) < 0.1
    return np.sum(dataset) + np.where(exact, 0.0, rng.laplace(0.0, 1.0, num_samples))


def gaussian_delta(sigma: float, epsilon: float) -> float:
    """The exact δ(ε) of N(0, σ²) noise on a sensitivity-1 sum (Balle & Wang 2018, Thm 8)."""
    from scipy.stats import norm

    return float(
        norm.cdf(0.5 / sigma - epsilon * sigma)
        - math.exp(epsilon) * norm.cdf(-0.5 / sigma - epsilon * sigma)
    )


def gaussian_wrong_delta(dataset, num_samples, rng):
    """ΣX + N(0, σ²) with σ exactly (1, 10⁻²)-DP under a claim of (1, 10⁻⁵)."""
    from scipy.optimize import brentq

    sigma = brentq(lambda s: gaussian_delta(s, 1.0) - 1e-2, 0.1, 10.0)
    return np.sum(dataset) + rng.normal(0.0, sigma, num_samples)


WRITTEN = {
    "Laplace, half the noise (per call)": (laplace_half_noise, PureDP(1.0)),
    "geometric count, ε = 2 (per call)": (geometric_twice, PureDP(1.0)),
    "an atom on each side (per call)": (moving_atom, PureDP(1.0)),
    "Gaussian for δ = 10⁻² (per call)": (gaussian_wrong_delta, ApproxDP(1.0, 1e-5)),
}


def verdict_cases(quick: bool) -> list[tuple]:
    """The cases of `draws_to_verdict.py` and `sampling_choice.py`: (name, mechanism, claim,
    domain, tester, witness pair) of each; `quick`: three of them."""
    found = [
        (name, mechanism, claim, COUNTS, "auto", ADDED)
        for name, (mechanism, claim) in WRITTEN.items()
    ]
    found += [
        (bug.name, bug(), bug.claim(), bug.domain(), bug.tester, bug.witness())
        for bug in catalogue(satisfies=False)
        if isinstance(bug.claim(), ApproxDP) and bug.witness() is not None
    ]
    if quick:
        return [found[0], found[2]] + [case for case in found if case[0] == "TwoBudgetMean"]
    return found
