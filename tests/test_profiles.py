"""Privacy profiles and trade-off bounds from samples (papers 000/001) against the Gaussian pair,
whose profile δ_μ(ε) and trade-off curve G_μ are closed forms."""

import numpy as np
import pytest

from dpfuzz import Domain, GaussianDP, PureDP, audit
from dpfuzz.profiles import ProfileEstimate, mu_from_tv, privacy_profile

MU = 1.0
TRUTH = GaussianDP(MU)


def gaussian_pair(rng, n):
    return rng.normal(MU, 1.0, n), rng.normal(0.0, 1.0, n)


def holds(profile: ProfileEstimate) -> bool:
    """Every certified statement true: δ(ε) bounds below δ_μ(ε), the trade-off bound above G_μ.
    Checking the hull's corners suffices: G_μ is convex, the bound linear between corners."""
    below = np.all(profile.delta_lower <= [TRUTH.delta_at(e) for e in profile.epsilons])
    above = np.all(profile.tradeoff_upper >= [TRUTH.tradeoff(a) for a in profile.alphas])
    return bool(below and above)


def test_the_gdp_readings_recover_mu_and_the_bounds_hold():
    profile = privacy_profile(*gaussian_pair(np.random.default_rng(0), 1_000_000))
    assert holds(profile)
    # plug-in TV ≈ 2Φ(1/2) − 1 = 0.383 within a few 10^-3 at 5·10^5 per side; μ follows
    assert profile.mu_estimate == pytest.approx(MU, abs=0.03)
    assert 0.85 < profile.mu_lower_bound_if_gaussian < MU
    assert mu_from_tv(TRUTH.delta_at(0.0)) == pytest.approx(MU)
    low, estimate = profile.gdp_epsilon(1e-5)
    assert low < TRUTH.epsilon_at(1e-5) and estimate == pytest.approx(
        TRUTH.epsilon_at(1e-5), rel=0.05
    )
    assert (
        "heuristic" in profile.summary()
        and ProfileEstimate.from_dict(profile.to_dict()).bins == profile.bins
    )


@pytest.mark.slow
def test_all_statements_hold_together_in_at_least_1_minus_beta_of_seeds():
    # The profile and the trade-off bound share one slack event of probability ≥ 0.95. Over 200
    # seeds, more than 20 failures has probability < 0.01 if the bound is valid.
    failures = sum(
        not holds(privacy_profile(*gaussian_pair(np.random.default_rng(seed), 20_000)))
        for seed in range(200)
    )
    print(f"privacy profile of the 1-GDP pair: some statement false in {failures}/200 seeds")
    assert failures <= 20


def test_an_audit_report_carries_the_profile_of_its_verified_pair():
    def noisy_sum(dataset, num_samples, rng):
        return dataset.sum() + rng.normal(0.0, 1.0, num_samples)  # 1-GDP under add/remove on [0, 1]

    report = audit(noisy_sum, PureDP(3.0), Domain(max_size=3), seed=0, samples=20_000)
    profile = ProfileEstimate.from_dict(report.profile)
    assert profile.samples[0] >= 1_000 and report.to_dict()["profile"] == report.profile
    assert "Privacy profile of the verified pair" in report.to_html()


def test_vector_outputs_get_no_profile():
    def pair_of_sums(dataset, num_samples, rng):
        return dataset.sum() + rng.normal(0.0, 1.0, (num_samples, 2))

    report = audit(pair_of_sums, PureDP(3.0), Domain(max_size=3), seed=0, samples=20_000)
    assert report.profile is None and "Privacy profile" not in report.to_html()


def test_output_histograms_count_every_output_and_shade_the_event():
    from dpfuzz.output_histograms import output_histograms

    rng = np.random.default_rng(0)
    p, q = rng.laplace(0.0, 1.0, 50_000), rng.laplace(1.0, 1.0, 50_000)
    data = output_histograms(p, q, lambda values: values > 2.0)
    # the outer bins hold the tails
    assert [sum(counts) for counts in data["counts"]] == [
        50_000,
        50_000,
    ]
    grid, mask = np.asarray(data["grid"]), np.asarray(data["in_event"])
    assert mask.any() and np.array_equal(mask, grid > 2.0)
    # a few exact values get one bin each: counts are the values' frequencies
    coins = output_histograms(
        np.array([0.0] * 30 + [1.0] * 70), np.array([0.0] * 60 + [1.0] * 40), None
    )
    assert coins["counts"] == [[30, 70], [60, 40]] and coins["in_event"] is None


def test_a_heavy_tailed_release_keeps_its_bulk_visible():
    from dpfuzz.output_histograms import output_histograms

    # Cauchy noise scaled by 10^12 on 1% of the draws: the 0.2% quantiles sit near ±10^13, the
    # bulk within a few units; the bins cover the bulk and the outer bins hold the tails
    rng = np.random.default_rng(0)

    def heavy(shift):
        outputs = shift + rng.laplace(0.0, 1.0, 50_000)
        wild = rng.random(50_000) < 0.01
        outputs[wild] = 1e12 * rng.standard_cauchy(int(wild.sum()))
        return outputs

    data = output_histograms(heavy(0.0), heavy(1.0), None)
    edges = np.asarray(data["edges"])
    assert edges[-1] - edges[0] < 50 and [sum(c) for c in data["counts"]] == [50_000, 50_000]
