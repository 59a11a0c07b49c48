import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpfuzz import divergences
from dpfuzz.testers.bounds import (
    binary_renyi,
    clopper_pearson_lower,
    clopper_pearson_upper,
    wilson_lower,
    wilson_upper,
)


@pytest.mark.parametrize("k, n", [(0, 10), (1, 10), (5, 10), (10, 10), (3, 100_000), (99_990, 100_000)])
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


def test_wilson_is_close_to_clopper_pearson():
    k = np.array([0, 1, 10, 500, 5000])
    n = 10_000
    assert np.allclose(wilson_lower(k, n, 0.025), clopper_pearson_lower(k, n, 0.025), atol=5e-4)
    assert np.allclose(wilson_upper(k, n, 0.025), clopper_pearson_upper(k, n, 0.025), atol=5e-4)


def test_binary_renyi_matches_definition_and_is_monotone():
    p, q, alpha = 0.3, 0.1, 3.0
    direct = math.log(p**alpha * q ** (1 - alpha) + (1 - p) ** alpha * (1 - q) ** (1 - alpha)) / (alpha - 1)
    assert math.isclose(binary_renyi(p, q, alpha), direct, rel_tol=1e-12)
    grid = np.linspace(0.11, 0.99, 50)
    assert np.all(np.diff(binary_renyi(grid, 0.1, alpha)) > 0)  # increasing in p above q
    assert np.all(np.diff(binary_renyi(0.5, np.linspace(0.01, 0.49, 50), alpha)) < 0)  # decreasing in q
    assert binary_renyi(0.2, 0.3, alpha) == 0.0


@pytest.mark.parametrize("epsilon", [0.0, 0.3, 0.9])
def test_closed_form_hockey_stick_matches_numerical_integration(epsilon):
    for p, q, closed in (
        (stats.laplace(0, 1), stats.laplace(1, 1), divergences.laplace_hockey_stick(epsilon, 1.0)),
        (stats.norm(0, 1), stats.norm(1, 1), divergences.gaussian_hockey_stick(epsilon, 1.0)),
    ):
        value, _ = integrate.quad(lambda x: max(0.0, p.pdf(x) - math.exp(epsilon) * q.pdf(x)), -30, 30, points=[0, 1])
        assert math.isclose(value, closed, abs_tol=1e-7)


def test_closed_form_renyi_matches_numerical_integration():
    for p, q, closed in (
        (stats.laplace(0, 1), stats.laplace(1, 1), divergences.laplace_renyi(2.5, 1.0)),
        (stats.norm(0, 1), stats.norm(1, 1), divergences.gaussian_renyi(2.5, 1.0)),
    ):
        value, _ = integrate.quad(lambda x: math.exp(2.5 * p.logpdf(x) - 1.5 * q.logpdf(x)), -20, 20, points=[0, 1])
        assert math.isclose(math.log(value) / 1.5, closed, rel_tol=1e-7)
