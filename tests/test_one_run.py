"""One-run audits (issue 15): the GDP claim against closed forms, both analyses against their
definitions, soundness over many seeds, and clear errors for bad runs."""

import math

import numpy as np
import pytest
from scipy import stats

from dpfuzz import (
    ApproxDP,
    GaussianDP,
    MechanismError,
    PureDP,
    RenyiDP,
    UnsupportedClaimError,
    audit_one_run,
)
from dpfuzz.catalogue.dpsgd import accountant_epsilon, dpsgd_one_run, noise_for_epsilon
from dpfuzz.catalogue.one_run import (
    gaussian_canaries,
    laplace_canaries,
    randomized_response_canaries,
)
from dpfuzz.one_run import steinke_epsilon, steinke_p_value


@pytest.mark.slow
def test_the_gdp_privacy_profile_matches_the_gaussian_mechanism_and_dp_accounting():
    # N(0, σ²) with sensitivity 1 is exactly (1/σ)-GDP: its ε at δ from dp-accounting's
    # privacy-loss-distribution accountant (discretised, so agreement to 1%) equals ours.
    dp_accounting = pytest.importorskip("dp_accounting")
    for sigma in (0.5, 1.0, 2.0):
        accountant = dp_accounting.pld.PLDAccountant()
        accountant.compose(dp_accounting.GaussianDpEvent(sigma))
        assert GaussianDP(1 / sigma).epsilon_at(1e-5) == pytest.approx(
            accountant.get_epsilon(1e-5), rel=0.01
        )
    claim = GaussianDP(1.0)
    # δ_μ(0) is the total variation 2Φ(μ/2) − 1; G_μ(α) = Φ(Φ⁻¹(1 − α) − μ); e_f = Φ(−μ/2)
    assert claim.delta_at(0.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1)
    assert claim.tradeoff(0.05) == pytest.approx(stats.norm.cdf(stats.norm.ppf(0.95) - 1))
    assert claim.error_floor == pytest.approx(stats.norm.cdf(-0.5))
    assert GaussianDP.mu_from_error(claim.error_floor) == pytest.approx(1.0)
    assert claim.delta_at(claim.epsilon_at(1e-5)) == pytest.approx(1e-5, rel=1e-6)
    assert claim.to_approx(1e-5) == ApproxDP(claim.epsilon_at(1e-5), 1e-5)
    # μ-GDP implies (ε, δ_μ(ε))-DP, whose trade-off curve lies below G_μ everywhere
    implied = claim.to_approx(1e-3)
    assert all(implied.tradeoff(a) <= claim.tradeoff(a) + 1e-12 for a in np.linspace(0, 1, 101))
    assert PureDP(1.0).tradeoff(0.0) == 1.0 and PureDP(1.0).tradeoff(0.5) == pytest.approx(
        math.exp(-1) * 0.5
    )


def test_steinke_bound_reduces_to_the_binomial_tail_and_grows_with_delta_term():
    # Pure DP: the p-value is the Binomial(r, e^ε/(1 + e^ε)) tail; at ε = 0 a fair coin.
    assert steinke_p_value(0.0, 100, 60, 1000, 0.0) == pytest.approx(stats.binom.sf(59, 100, 0.5))
    assert steinke_p_value(1.0, 100, 60, 1000, 1e-3) > steinke_p_value(1.0, 100, 60, 1000, 0.0)
    epsilon = steinke_epsilon(1000, 900, 1000, 0.0, 0.05)  # the largest ε refuted at 5%
    assert (
        steinke_p_value(epsilon - 1e-6, 1000, 900, 1000, 0.0)
        < 0.05
        <= steinke_p_value(epsilon + 1e-3, 1000, 900, 1000, 0.0)
    )
    assert steinke_epsilon(100, 50, 100, 0.0, 0.05) == 0.0


def test_the_gaussian_one_run_bound_is_close_to_the_truth_with_ten_thousand_canaries():
    # Paper 003, Figure 6: the bits bound is near-tight for the Gaussian mechanism at m = 10^4.
    # With μ = 2 the error floor is Φ(−1) = 0.159 and the 95% Clopper–Pearson width at 10^4
    # guesses ≈ 0.006, so μ ≥ ≈ 1.93 and ε(10^-5) ≥ ≈ 9.6 against the true 10.0.
    run = gaussian_canaries(2.0)
    result = audit_one_run(run, run.claim, canaries=10_000, seed=0)
    true_epsilon = run.claim.epsilon_at(1e-5)
    assert 0.9 * true_epsilon <= result.epsilon_lower_bound_gdp <= true_epsilon
    assert 1.8 <= result.mu_lower_bound <= 2.0 and not result.violated
    assert result.guesses == result.canaries == 10_000 and "memoryless" in result.assumption


@pytest.mark.parametrize("method", ["bits", "steinke"])
def test_a_claim_below_the_truth_is_refuted_in_one_run(method):
    run = randomized_response_canaries(4.0)  # 4-DP per canary, claimed 1-DP
    result = audit_one_run(run, PureDP(1.0), canaries=2_000, seed=0, method=method)
    assert result.violated and 1.0 < result.epsilon_lower_bound <= 4.0
    assert result.best_possible > result.epsilon_lower_bound
    assert "REFUTED" in result.summary()


@pytest.mark.slow
@pytest.mark.parametrize(
    "method, make, delta",
    [
        ("bits", gaussian_canaries, None),
        ("bits", laplace_canaries, 0.0),
        ("steinke", laplace_canaries, 0.0),
    ],
)
def test_correct_algorithms_are_refuted_in_at_most_beta_of_seeds(method, make, delta):
    # Each audit refutes a true claim with probability ≤ β = 0.05; over 200 seeds more than
    # 20 refutations has probability < 0.01 under Binomial(200, 0.05). The claim is the exact
    # guarantee (μ = 1 or ε = 1), so these audits are as close to a false alarm as they get.
    run = make(1.0)
    results = [
        audit_one_run(run, run.claim, canaries=1_000, seed=seed, method=method, delta=delta)
        for seed in range(200)
    ]
    refuted = sum(result.violated for result in results)
    print(f"{method} on {run.claim.describe()}: refuted the true claim in {refuted}/200 seeds")
    assert refuted <= 20


def test_bad_runs_and_claims_get_clear_errors():
    run = gaussian_canaries(1.0)
    with pytest.raises(MechanismError, match=r"shape \(10,\)"):
        audit_one_run(lambda included, rng: np.zeros(3), run.claim, canaries=10, seed=0)
    with pytest.raises(MechanismError, match="NaN"):
        audit_one_run(
            lambda included, rng: np.full(len(included), np.nan), run.claim, canaries=10, seed=0
        )
    with pytest.raises(MechanismError, match="ZeroDivisionError"):
        audit_one_run(lambda included, rng: 1 / 0, run.claim, canaries=10, seed=0)
    with pytest.raises(UnsupportedClaimError, match="Rényi"):
        audit_one_run(run, RenyiDP(2.0, 1.0), canaries=10, seed=0)
    with pytest.raises(ValueError, match="method"):
        audit_one_run(run, run.claim, canaries=10, seed=0, method="bit")
    with pytest.raises(ValueError, match="mu"):
        GaussianDP(-1.0)


def test_dp_sgd_noise_calibration_agrees_with_its_accountant():
    # Full-batch Gaussian steps are exactly √T/σ-GDP, so calibrating σ through GDP must give
    # dp-accounting's ε back (PLD discretisation: 1%).
    for epsilon in (1.0, 8.0):
        assert accountant_epsilon(noise_for_epsilon(epsilon, 100), 100) == pytest.approx(
            epsilon, rel=0.01
        )


@pytest.mark.parametrize("method", ["bits", "steinke"])
def test_one_run_separates_correct_dp_sgd_from_the_scaling_bug(method):
    # Paper 003 §5.3 / Figure 10: with the 1/B scaling inside the clipping, a Dirac canary moves
    # its coordinate by C instead of C/B, and one run with 1,000 canaries refutes ε = 2.
    sigma = noise_for_epsilon(2.0, 100)
    correct, buggy = dpsgd_one_run(sigma, 100), dpsgd_one_run(sigma, 100, bug="scale_before_clip")
    assert not audit_one_run(correct, correct.claim, canaries=1_000, seed=0, method=method).violated
    assert audit_one_run(buggy, buggy.claim, canaries=1_000, seed=0, method=method).violated
