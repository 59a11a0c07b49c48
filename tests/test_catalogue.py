"""Catalogue entries: fields, validity, and each sampler against its definition."""

import math

import numpy as np
import pytest
from scipy import stats

from dpfuzz import PureDP
from dpfuzz.mechanism import draw_samples
from mechanisms import catalogue, entry

ENTRIES = catalogue()


@pytest.mark.parametrize("item", ENTRIES, ids=lambda item: item.name)
def test_entry_fields_are_consistent(item, rng):
    claim, domain, truth, witness = item.claim(), item.domain(), item.truth(), item.witness()
    assert isinstance(claim, item.claim_type)
    assert item.description and item.family
    if not truth.satisfies:
        assert witness is not None, f"{item.name} violates its claim but has no witness pair"
    if witness is not None:
        domain.validate_pair(witness)
    mechanism = item()
    assert mechanism.name == item.name
    shape = None
    for _ in range(5):  # random datasets of the domain: finite outputs of one shape
        samples = draw_samples(mechanism, domain.random_dataset(rng), 100, rng, shape)
        shape = samples.shape[1:]


def test_catalogue_filters():
    names = lambda entries: {item.name for item in entries}  # noqa: E731
    assert names(catalogue(satisfies=False)) == {"NonDPLaplaceMean1", "NonDPLaplaceMean2", "NoisyHistogramWrongScale"}
    assert names(catalogue(family="histograms")) == {"NoisyHistogram", "NoisyHistogramWrongScale"}
    assert len(catalogue(claim_type=PureDP)) == len(ENTRIES)
    with pytest.raises(KeyError, match="no catalogue entry 'Nope'"):
        entry("Nope")


def test_parameters_are_checked():
    with pytest.raises(TypeError, match=r"takes parameters \['epsilon'\], got unknown \['sigma'\]"):
        entry("Laplace")(sigma=1.0)
    with pytest.raises(ValueError, match="epsilon must be > 0"):
        entry("DPLaplaceMean")(epsilon=0.0)


def _laplace_scale(samples):
    return np.mean(np.abs(samples - np.median(samples)))  # MLE of the Laplace scale


# Each sampler against its definition, with 200,000 draws: the scale MLE has relative standard
# error 1/sqrt(n) ≈ 0.0022, so 2% tolerance is ~9 standard errors.
N = 200_000


def test_laplace_sampler(rng):
    samples = entry("Laplace")(epsilon=0.5)(np.array([1.0, 0.25]), N, rng)
    assert math.isclose(np.median(samples), 1.25, abs_tol=0.03)
    assert math.isclose(_laplace_scale(samples), 2.0, rel_tol=0.02)


def test_non_dp_mean1_uses_the_true_n_in_the_scale(rng):
    samples = entry("NonDPLaplaceMean1")(epsilon=1.0)(np.array([1.0, 0.0, 0.5, 0.5]), N, rng)
    assert math.isclose(np.median(samples), 0.5, abs_tol=0.01)
    assert math.isclose(_laplace_scale(samples), 2 / 4, rel_tol=0.02)


def test_dp_mean_is_the_noisy_sum_over_the_noisy_count(rng):
    # ñ·output = ΣX + ñ·Lap(2/(ñε)) = ΣX + Lap(2/ε): check through the distribution of the
    # output for a dataset of zeros, which is Lap(2/ε)/ñ — symmetric with median 0.
    zeros = entry("DPLaplaceMean")(epsilon=1.0)(np.zeros(5), N, rng)
    assert math.isclose(np.median(zeros), 0.0, abs_tol=0.01)
    ones = entry("DPLaplaceMean")(epsilon=1.0)(np.ones(5), N, rng)
    # ΣX/ñ with ñ = 5 + Lap(2): its median is 1 (ñ's median is 5).
    assert math.isclose(np.median(ones), 1.0, abs_tol=0.02)


def test_non_dp_mean2_centres_on_the_true_mean(rng):
    samples = entry("NonDPLaplaceMean2")(epsilon=1.0)(np.array([1.0, 0.0, 0.0, 0.0]), N, rng)
    assert math.isclose(np.median(samples), 0.25, abs_tol=0.01)


@pytest.mark.parametrize("name, scale", [("NoisyHistogram", 1 / 0.5), ("NoisyHistogramWrongScale", 0.5)])
def test_histogram_samplers(name, scale, rng):
    samples = entry(name)(epsilon=0.5, bins=4)(np.array([0, 0, 3]), N, rng)
    assert samples.shape == (N, 4)
    assert np.allclose(np.median(samples, axis=0), [2, 0, 0, 1], atol=0.03 * scale)
    assert np.allclose([_laplace_scale(column) for column in samples.T], scale, rtol=0.02)
    assert stats.kstest(samples[:, 1], stats.laplace(0, scale).cdf).pvalue > 1e-3


def test_truth_depends_on_parameters():
    wrong_scale = entry("NoisyHistogramWrongScale")
    assert not wrong_scale.truth(epsilon=0.1).satisfies and wrong_scale.truth(epsilon=0.1).true_epsilon == 10
    assert wrong_scale.truth(epsilon=2.0).satisfies
