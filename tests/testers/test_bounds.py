import math

import numpy as np
import pytest
from scipy import integrate, special, stats

from dpfuzz import divergences
from dpfuzz.testers.bounds import (
    binary_renyi,
    clopper_pearson_lower,
    clopper_pearson_upper,
    conditional_odds_lower,
    pure_dp_epsilon_lower,
    wilson_lower,
    wilson_upper,
)


@pytest.mark.parametrize(
    "k, n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 100_000), (99_990, 100_000)]
)
def test_clopper_pearson_matches_scipy_exact_interval(k, n):
    # A two-sided exact interval at level 1 - 2a is the pair of one-sided bounds at a.
    interval = stats.binomtest(k, n).proportion_ci(confidence_level=0.9, method="exact")
    assert math.isclose(clopper_pearson_lower(k, n, 0.05), interval.low, abs_tol=1e-12)
    assert math.isclose(clopper_pearson_upper(k, n, 0.05), interval.high, abs_tol=1e-12)


def test_clopper_pearson_coverage_over_many_draws():
    # Exact bounds: the miss rate is at most alpha for every p; with 20,000 draws the binomial
    # standard error at 0.05 is 0.0015, so 0.05 + 4 SE catches a wrong bound, not noise.
    rng = np.random.default_rng(7)
    for p in (0.001, 0.3, 0.97):
        k = rng.binomial(200, p, size=20_000)
        assert np.mean(clopper_pearson_lower(k, 200, 0.05) > p) <= 0.056
        assert np.mean(clopper_pearson_upper(k, 200, 0.05) < p) <= 0.056


def _direct_upper_tail(x, n_p, n_q, k, log_odds):
    """P(X ≥ x) under Fisher's noncentral hypergeometric law, summed over its whole support."""
    j = np.arange(max(0, k - n_q), min(k, n_p) + 1)
    logs = special.gammaln(n_p + 1) - special.gammaln(j + 1) - special.gammaln(n_p - j + 1)
    logs += (
        special.gammaln(n_q + 1)
        - special.gammaln(k - j + 1)
        - special.gammaln(n_q - k + j + 1)
        + j * log_odds
    )
    return math.exp(special.logsumexp(logs[j >= x]) - special.logsumexp(logs))


@pytest.mark.parametrize(
    "x, n_p, y, n_q",
    [
        (3, 20, 0, 30),
        (60, 200, 40, 200),
        (150, 200, 120, 250),
        (2_000, 1_000_000, 1_500, 1_000_000),
        (480_000, 1_000_000, 470_000, 1_000_000),
    ],
)
def test_conditional_odds_bound_is_where_the_exact_tail_equals_alpha(x, n_p, y, n_q):
    # Cornfield's limit: the noncentral hypergeometric upper tail at ψ_lo is alpha; the tail is
    # summed here over the whole support from log-gamma terms, not by the bound's windowed sum.
    bound = conditional_odds_lower(x, n_p, y, n_q, 0.05)
    assert math.isclose(_direct_upper_tail(x, n_p, n_q, x + y, math.log(bound)), 0.05, rel_tol=1e-6)
    assert _direct_upper_tail(x, n_p, n_q, x + y, math.log(bound) + 0.01) > 0.05


def test_conditional_odds_bound_above_one_is_fishers_one_sided_exact_test():
    # ψ_lo > 1 exactly when Fisher's exact test (one-sided, "greater") rejects ψ = 1 at alpha.
    rng = np.random.default_rng(3)
    for x, y in zip(rng.binomial(300, 0.35, 60), rng.binomial(300, 0.3, 60)):
        fisher = stats.fisher_exact([[x, 300 - x], [y, 300 - y]], alternative="greater").pvalue
        assert (conditional_odds_lower(x, 300, y, 300, 0.05) > 1) == (fisher < 0.05)
    # x at its smallest: nothing certified
    assert conditional_odds_lower(0, 300, 5, 300, 0.05) == 0.0
    assert pure_dp_epsilon_lower(0, 300, 5, 300, 0.05) == -math.inf


def test_pure_dp_bound_is_tighter_than_clopper_pearson_on_each_side():
    # The Laplace witness x > t at ε = 0.1 (P ≈ 2·10^-3) and an event of probability ½, 10^7 per
    # side.
    for p, n in ((0.002, 10_000_000), (0.5, 10_000_000)):
        x, y = round(p * n), round(p * math.exp(-0.1) * n)
        old = math.log(clopper_pearson_lower(x, n, 0.025) / clopper_pearson_upper(y, n, 0.025))
        assert old < pure_dp_epsilon_lower(x, n, y, n, 0.05) < 0.1


@pytest.mark.slow
@pytest.mark.parametrize(
    "case, p, q, n_p, n_q",
    [
        # events whose privacy loss is ε = 0.1 in closed form (the last: 0), each on the boundary
        ("Laplace, scale 10, shift 1: x > 1", 0.5, 0.5 * math.exp(-0.1), 20_000, 20_000),
        (
            "same pair, far tail x > 60",
            0.5 * math.exp(-5.9),
            0.5 * math.exp(-6.0),
            200_000,
            200_000,
        ),
        (
            "randomized response: both ratios e^ε",
            1 / (1 + math.exp(-0.1)),
            1 / (1 + math.exp(0.1)),
            20_000,
            20_000,
        ),
        ("x > 1 on unequal sample sizes", 0.5, 0.5 * math.exp(-0.1), 20_000, 5_000),
        ("few outputs", 0.02 * math.exp(0.1), 0.02, 300, 300),
        ("no privacy loss", 0.3, 0.3, 5_000, 5_000),
    ],
)
def test_pure_dp_bound_exceeds_the_true_loss_in_at_most_beta_of_draws(case, p, q, n_p, n_q):
    # The event's loss over both orders is max(ln p/q, ln (1−q)/(1−p)). Over 4,000 draws the
    # binomial standard error at β = 0.1 is 0.0047, so β + 4 SE catches an invalid bound and not
    # noise (measured on these rows: 0.05–0.087; Clopper–Pearson on each side at β/2: ≈ 0.01).
    true_loss = max(math.log(p / q), math.log((1 - q) / (1 - p)))
    rng = np.random.default_rng(11)
    draws = zip(rng.binomial(n_p, p, 4_000), rng.binomial(n_q, q, 4_000))
    bounds = [pure_dp_epsilon_lower(x, n_p, y, n_q, 0.1) for x, y in draws]
    assert np.mean(np.array(bounds) > true_loss) <= 0.1 + 4 * 0.0047, case


def test_wilson_is_close_to_clopper_pearson():
    k = np.array([0, 1, 10, 500, 5000])
    n = 10_000
    assert np.allclose(wilson_lower(k, n, 0.025), clopper_pearson_lower(k, n, 0.025), atol=5e-4)
    assert np.allclose(wilson_upper(k, n, 0.025), clopper_pearson_upper(k, n, 0.025), atol=5e-4)


def test_binary_renyi_matches_definition_and_is_monotone():
    p, q, alpha = 0.3, 0.1, 3.0
    direct = math.log(p**alpha * q ** (1 - alpha) + (1 - p) ** alpha * (1 - q) ** (1 - alpha)) / (
        alpha - 1
    )
    assert math.isclose(binary_renyi(p, q, alpha), direct, rel_tol=1e-12)
    grid = np.linspace(0.11, 0.99, 50)
    assert np.all(np.diff(binary_renyi(grid, 0.1, alpha)) > 0)  # increasing in p above q
    # decreasing in q
    assert np.all(np.diff(binary_renyi(0.5, np.linspace(0.01, 0.49, 50), alpha)) < 0)
    assert binary_renyi(0.2, 0.3, alpha) == 0.0


@pytest.mark.parametrize("epsilon", [0.0, 0.3, 0.9])
def test_closed_form_hockey_stick_matches_numerical_integration(epsilon):
    for p, q, closed in (
        (stats.laplace(0, 1), stats.laplace(1, 1), divergences.laplace_hockey_stick(epsilon, 1.0)),
        (stats.norm(0, 1), stats.norm(1, 1), divergences.gaussian_hockey_stick(epsilon, 1.0)),
    ):
        value, _ = integrate.quad(
            lambda x, p=p, q=q: max(0.0, p.pdf(x) - math.exp(epsilon) * q.pdf(x)),
            -30,
            30,
            points=[0, 1],
        )
        assert math.isclose(value, closed, abs_tol=1e-7)


def test_closed_form_renyi_matches_numerical_integration():
    for p, q, closed in (
        (stats.laplace(0, 1), stats.laplace(1, 1), divergences.laplace_renyi(2.5, 1.0)),
        (stats.norm(0, 1), stats.norm(1, 1), divergences.gaussian_renyi(2.5, 1.0)),
    ):
        value, _ = integrate.quad(
            lambda x, p=p, q=q: math.exp(2.5 * p.logpdf(x) - 1.5 * q.logpdf(x)),
            -20,
            20,
            points=[0, 1],
        )
        assert math.isclose(math.log(value) / 1.5, closed, rel_tol=1e-7)


def test_the_bracketed_root_finds_known_roots_to_its_tolerance():
    from dpfuzz.testers.bounds import bracketed_root

    assert abs(bracketed_root(math.cos, 0.0, 3.0) - math.pi / 2) < 1e-11
    assert abs(bracketed_root(lambda x: x**3 - 2.0, 0.0, 5.0) - 2.0 ** (1 / 3)) < 1e-11
    assert (
        abs(
            bracketed_root(lambda x: math.exp(x) - 1e6, -50.0, 50.0, xtol=1e-12, rtol=0.0)
            - math.log(1e6)
        )
        < 1e-11
    )
    # the successes at which the Clopper-Pearson lower bound reaches 0.3 (n = 1,000, alpha = 0.01)
    p = bracketed_root(
        lambda share: float(clopper_pearson_lower(share * 1_000, 1_000, 0.01)) - 0.3, 0.3, 1.0
    )
    assert abs(float(clopper_pearson_lower(p * 1_000, 1_000, 0.01)) - 0.3) < 1e-9
    assert bracketed_root(lambda x: x - 1.0, 1.0, 2.0) == 1.0  # a root at an end
    with pytest.raises(ValueError, match="same sign"):
        bracketed_root(lambda x: x * x + 1.0, -1.0, 1.0)
