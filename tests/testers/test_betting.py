"""The betting certificate against Bernoulli pairs whose hockey-stick divergence is known in closed
form: P(S) = p, Q(S) = q on a fixed event S give H_γ = p − γq exactly."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpfuzz.testers.betting import BettingCertificate, epsilon_grid

RUNS = 1000


def race_bernoulli(p, q, epsilon, delta, beta, seed, arms=1, outputs=2048, first=16):
    """One sequential run on arm 0 (the others never bet): round sizes doubling from `first`
    (capped at 256), bets from the counts of all earlier rounds, stopped at the first rejection
    of the claim. Returns the certificate."""
    rng = np.random.default_rng(seed)
    certificate = BettingCertificate(arms, epsilon_grid(epsilon), delta, beta)
    k_p, k_q, n, size = 0, 0, 0, first
    while n < outputs:
        in_p, in_q = rng.random(size) < p, rng.random(size) < q
        if n:
            certificate.update(0, certificate.bets(k_p, k_q, n), in_p, in_q)
            if certificate.look():
                break
        k_p, k_q, n = k_p + in_p.sum(), k_q + in_q.sum(), n + size
        size = min(2 * size, 256)
    return certificate


def alarm_ceiling(beta: float) -> int:
    """Rejections of RUNS true claims above which the level β is refuted at 10⁻³ (binomial)."""
    return int(binom.ppf(0.999, RUNS, beta))


@pytest.mark.parametrize(
    "epsilon, delta, q",
    [
        (1.0, 0.0, 1 / (1 + math.e)),  # randomized response at exactly ε
        (0.5, 0.05, 0.1),  # p − e^ε q = δ exactly
        (0.1, 0.0, 0.45),
    ],
)
@pytest.mark.slow
def test_claims_that_hold_with_equality_are_rejected_at_most_beta_of_the_time(epsilon, delta, q):
    p = delta + math.exp(epsilon) * q
    rejected = sum(race_bernoulli(p, q, epsilon, delta, 0.05, seed).refuted for seed in range(RUNS))
    assert rejected <= alarm_ceiling(0.05)


def test_the_epsilon_lower_bound_exceeds_the_true_epsilon_at_most_beta_of_the_time():
    # randomized response with true ε = ln 4 ≈ 1.386 audited against ε = 1: the grid runs past it
    p, q = 0.8, 0.2
    true_epsilon = math.log(p / q)
    bounds = [
        race_bernoulli(p, q, 1.0, 0.0, 0.05, seed, outputs=4096).epsilon_lower_bound()
        for seed in range(RUNS)
    ]
    assert all(bound is not None for bound in bounds)  # refuted every time
    assert sum(bound >= true_epsilon for bound in bounds) <= alarm_ceiling(0.05)


def test_a_blatant_violation_is_refuted_within_a_few_hundred_outputs():
    # true ε = ln 9 against a claim of 1: a fixed-n Clopper–Pearson test needs ~25 per side
    outputs = [
        int(race_bernoulli(0.9, 0.1, 1.0, 0.0, 0.05, seed).samples[0]) for seed in range(200)
    ]
    assert np.median(outputs) <= 200 and max(outputs) < 2048


@pytest.mark.slow
def test_the_mixture_over_arms_keeps_its_level_when_every_arm_bets():
    rng = np.random.default_rng(0)
    p, q, arms = math.e / (1 + math.e), 1 / (1 + math.e), 8
    rejected = 0
    for _ in range(300):
        certificate = BettingCertificate(arms, epsilon_grid(1.0), 0.0, 0.05)
        for _ in range(8):
            for arm in range(arms):
                # an overconfident bet (as from an overfitted event) on a tight arm
                bets = certificate.bets(60, 10, 100)
                certificate.update(arm, bets, rng.random(64) < p, rng.random(64) < q)
            certificate.look()
        rejected += certificate.refuted
    assert rejected <= int(binom.ppf(0.999, 300, 0.05))


def test_bets_are_never_larger_than_the_cap_nor_negative():
    certificate = BettingCertificate(1, epsilon_grid(1.0), 1e-3, 0.05)
    assert np.all(certificate.bets(0, 50, 50) == 0)  # no edge: no bet
    largest = certificate.bets(50, 0, 50)
    assert largest[0] > 0 and np.all(largest >= 0)
    assert np.all(largest <= 0.5 / (certificate.gammas + 1e-3) + 1e-15)


def test_a_perfect_event_needs_the_outputs_samples_to_refute_says():
    certificate = BettingCertificate(4, epsilon_grid(1.0), 0.0, 0.05)
    needed = certificate.samples_to_refute()
    bets = certificate.bets(100, 0, 100)
    certificate.update(0, bets, np.ones(needed - 1, bool), np.zeros(needed - 1, bool))
    assert not certificate.look()
    certificate.update(0, bets, np.ones(1, bool), np.zeros(1, bool))
    assert certificate.look()


def test_a_round_needs_as_many_outputs_of_p_as_of_q():
    with pytest.raises(ValueError, match="as many fresh outputs"):
        BettingCertificate(1, epsilon_grid(1.0), 0.0, 0.05).update(
            0, np.zeros(33), np.ones(3, bool), np.ones(2, bool)
        )


def test_the_mixture_is_looked_at_only_once_every_arm_on_the_outputs_has_bet():
    certificate = BettingCertificate(2, epsilon_grid(1.0), 0.0, 0.05)
    bets = certificate.bets(100, 0, 100)
    near = certificate.samples_to_refute() - 1
    certificate.update(1, bets, np.ones(near, bool), np.zeros(near, bool))
    assert not certificate.look()
    # one piece read in both directions: arm 0 gains what arm 1 loses
    certificate.update(0, bets, np.ones(15, bool), np.zeros(15, bool))
    assert certificate.log_evidence()[0] > math.log(20) and not certificate.refuted
    certificate.update(1, bets, np.zeros(15, bool), np.ones(15, bool))
    assert not certificate.look()


def test_a_refutation_and_its_e_value_stand_when_later_wealth_falls():
    certificate = BettingCertificate(1, epsilon_grid(1.0), 0.0, 0.05)
    bets = certificate.bets(100, 0, 100)
    needed = certificate.samples_to_refute()
    certificate.update(0, bets, np.ones(needed, bool), np.zeros(needed, bool))
    assert certificate.look()
    refuting = certificate.verdict_e_value()
    certificate.update(0, bets, np.zeros(10, bool), np.ones(10, bool))
    assert certificate.look() and certificate.e_value() < 20 < refuting
    assert certificate.verdict_e_value() == refuting


def test_the_grid_runs_past_the_claim_so_a_blatant_bound_is_not_capped_near_it():
    grid = epsilon_grid(1.0)
    assert np.all(np.diff(grid) > 0) and grid[32] == 5.0 and grid[-1] > 80
    # a perfectly separating event bet on 5,000 times: H(ε') falls while 5,000 / (2e^ε') ≳ ln 20
    certificate = BettingCertificate(1, grid, 0.0, 0.05)
    bets = certificate.bets(5_000, 0, 5_000)
    certificate.update(0, bets, np.ones(5_000, bool), np.zeros(5_000, bool))
    certificate.look()
    assert 6.0 < certificate.epsilon_lower_bound() < math.log(5_000)
