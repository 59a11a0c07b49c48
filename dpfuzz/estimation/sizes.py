"""How an estimate's draws are split between fitting, searching and certifying
(`EstimationPolicy`; evidence in docs/decisions/0002–0005)."""

from __future__ import annotations

import math

from dpfuzz.engine.policy import EstimationPolicy

DEFAULT = EstimationPolicy()


def fit_samples(budget: int, scalar: bool = False, policy: EstimationPolicy = DEFAULT) -> int:
    """Outputs per side that fit and select one pair's event out of `budget` draws: at most
    (1 − `verify_share`) of them, and at most `max_fit_samples`, or `large_fit_share` of them up
    to `largest_fit_samples` where that is more; of `scalar` outputs (one number per draw) at
    most `scalar_fit_samples`, or `scalar_fit_share` of them where that is more."""
    share, least = (
        (policy.scalar_fit_share, policy.scalar_fit_samples)
        if scalar
        else (policy.large_fit_share, policy.max_fit_samples)
    )
    large = min(int(share * budget / 2), policy.largest_fit_samples)
    return min(int((1 - policy.verify_share) * budget / 2), max(least, large))


def verification_samples(
    draws: int, scalar: bool = False, policy: EstimationPolicy = DEFAULT
) -> int:
    """Outputs per side of the final certification of one pair out of `draws` (without a
    deadline)."""
    budget = draws - policy.audit.probe_draws
    return (budget - 2 * fit_samples(budget, scalar, policy)) // 2


def search_plan(max_draws: int, trials: int, policy: EstimationPolicy = DEFAULT) -> tuple[int, int]:
    """(outputs per side of each pair, all draws) of the search among `trials` pairs:
    `search_share` of the draws, at most `max_fit_samples` per side of a pair."""
    probe, verify = policy.audit.probe_draws, policy.search_verify
    samples = min(
        int(policy.search_share * (max_draws - probe - 2 * verify) / (2 * trials)),
        policy.max_fit_samples,
    )
    return samples, probe + 2 * trials * samples + 2 * verify


def smallest_budget(trials: int, policy: EstimationPolicy = DEFAULT) -> int:
    """The fewest draws an estimate accepts for `trials` pairs: 1,000 outputs per side to fit
    each pair's event on, the verification share, and the probe (with several pairs, for both
    stages)."""
    probe = policy.audit.probe_draws
    single = math.ceil(2_000 / (1 - policy.verify_share)) + probe
    if trials == 1:
        return single
    return (
        probe
        + 2 * policy.search_verify
        + math.ceil(max(2_000 * trials / policy.search_share, single / (1 - policy.search_share)))
    )
