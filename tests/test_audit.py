"""End-to-end audits: the issue's example, catalogue bugs, false alarms, reproducibility."""

import json

import numpy as np
import pytest

from dpfuzz import (
    ApproxDP,
    ConfigError,
    DatasetPair,
    Domain,
    HockeyStickTester,
    MechanismError,
    PureDP,
    RandomFinder,
    RenyiDP,
    audit,
    per_call,
)
from mechanisms import entry

BUGS = ["NonDPLaplaceMean1", "NonDPLaplaceMean2"]


def noisy_sum(dataset, num_samples, rng):
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)


def test_the_documented_example_runs():
    domain = Domain(low=0.0, high=1.0, min_size=0, max_size=10, relation="add_remove")
    report = audit(noisy_sum, PureDP(epsilon=1.0), domain, seed=0)
    assert not report.violated and report.witness is None
    report = audit(
        noisy_sum,
        ApproxDP(epsilon=1.0, delta=1e-6),
        domain,
        tester="hockey_stick",
        finder="random",
        trials=20,
        samples=100_000,
        beta=0.05,
        seed=0,
    )
    assert not report.violated
    data = json.loads(report.to_json())
    assert data["verdict"] == "not refuted" and len(data["history"]) == 20
    assert data["samples"] == 100_000 and data["verify_samples"] == 500_000 and data["seed"] == 0
    assert {"numpy", "scipy", "scikit-learn", "python"} <= set(data["versions"])
    assert "<h1" in report.to_html() and "| trial | d0 | d1 | estimate |" in report.to_markdown()
    # Laplace(1) on a sum of [0, 1] records is exactly 1-DP: the ε lower bound is valid and close.
    assert report.epsilon_lower_bound is None or report.epsilon_lower_bound <= 1.0


@pytest.mark.parametrize("name", BUGS)
def test_bugs_are_refuted_on_their_witness_pairs(name):
    # On the witness the violation has H_{e^1} ≈ 0.019 (NonDPLaplaceMean2, the weaker bug);
    # 500,000 samples per side make the held-out confidence width ≈ 0.006, so every seed refutes.
    item = entry(name)
    mechanism, witness, claim = item(), item.witness(), item.claim()
    for seed in range(5):
        rng = np.random.default_rng(seed)
        result = HockeyStickTester().test(
            mechanism(witness.d0, 500_000, rng), mechanism(witness.d1, 500_000, rng), claim, 0.05, rng
        )
        assert result.violated and result.epsilon_lower_bound > claim.epsilon


@pytest.mark.parametrize("name", BUGS)
def test_bugs_are_found_by_the_random_finder_at_default_settings(name):
    item = entry(name)
    for seed in range(5):
        report = audit(item(), item.claim(), item.domain(), finder="random", seed=seed)
        assert report.violated, report.summary()
        item.domain().validate_pair(report.witness)
        assert report.epsilon_lower_bound > item.claim().epsilon and report.bound > report.threshold


def test_random_search_without_patterns_finds_the_scale_bug():
    # NonDPLaplaceMean1 violates on every add/remove pair (the noise scale reveals n).
    item = entry("NonDPLaplaceMean1")
    report = audit(item(), item.claim(), item.domain(), finder=RandomFinder(patterns=False), seed=1)
    assert report.violated


def test_grid_finder_and_vector_outputs():
    item = entry("NoisyHistogramWrongScale")  # claims 0.1-DP, truly 10-DP; outputs 5 noisy counts
    report = audit(item(), item.claim(), item.domain(), finder="grid", trials=4, samples=20_000, seed=0)
    assert report.violated and report.epsilon_lower_bound > 1.0
    assert "score" in report.verification.event


def test_renyi_claims_are_refuted_through_a_binary_event():
    # Gaussian noise with σ = 1 on a sensitivity-1 sum has R_2 = 1 exactly; claiming 0.1 is false.
    def gaussian_sum(dataset, num_samples, rng):
        return dataset.sum() + rng.normal(0.0, 1.0, size=num_samples)

    report = audit(gaussian_sum, RenyiDP(alpha=2.0, epsilon=0.1), Domain(), trials=5, seed=0)
    assert report.violated and 0.1 < report.bound <= 1.0
    assert audit(gaussian_sum, RenyiDP(alpha=2.0, epsilon=1.0), Domain(), trials=5, seed=0).violated is False


@pytest.mark.slow
@pytest.mark.parametrize("name", ["DPLaplaceMean", "Laplace"])
def test_correct_mechanisms_are_rarely_flagged(name):
    # The audit's false-alarm probability is at most beta = 0.05 by construction (one held-out
    # Clopper–Pearson test); the criterion is at most 5 of 100 seeded audits.
    item = entry(name)
    flagged = sum(audit(item(), item.claim(), item.domain(), seed=seed).violated for seed in range(100))
    print(f"{name}: flagged in {flagged}/100 audits at beta = 0.05")
    assert flagged <= 5


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_same_seed_gives_the_same_report():
    item = entry("NonDPLaplaceMean2")
    reports = [audit(item(), item.claim(), item.domain(), trials=3, samples=5_000, seed=42) for _ in range(2)]
    assert _without_timings(reports[0].to_dict()) == _without_timings(reports[1].to_dict())
    other = audit(item(), item.claim(), item.domain(), trials=3, samples=5_000, seed=43)
    assert _without_timings(other.to_dict()) != _without_timings(reports[0].to_dict())


def test_unseeded_audits_report_their_seed():
    report = audit(noisy_sum, PureDP(1.0), Domain(), trials=2, samples=1_000)
    again = audit(noisy_sum, PureDP(1.0), Domain(), trials=2, samples=1_000, seed=report.seed)
    assert _without_timings(report.to_dict()) == _without_timings(again.to_dict())


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"trials": 0}, "trials must be a positive int, got 0"),
        ({"samples": 5}, "samples must be an int >= 10"),
        ({"verify_samples": 2.5}, "verify_samples must be an int >= 10"),
        ({"beta": 1.5}, r"beta must be a probability in \(0, 1\), got 1.5"),
        ({"seed": -1}, "seed must be a non-negative int"),
        ({"tester": "magic"}, "unknown tester 'magic'; choose one of"),
        ({"finder": "magic"}, "unknown finder 'magic'; choose one of"),
    ],
)
def test_bad_arguments_are_reported_before_sampling(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        audit(noisy_sum, PureDP(1.0), Domain(), **kwargs)


def test_bad_claim_and_domain_types():
    with pytest.raises(ConfigError, match="claim must be PureDP, ApproxDP or RenyiDP, got 1.0"):
        audit(noisy_sum, 1.0, Domain())  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="domain must be a dpfuzz.Domain, got dict"):
        audit(noisy_sum, PureDP(1.0), {"low": 0})  # type: ignore[arg-type]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_mechanism_failures_name_the_dataset():
    def mean(dataset, num_samples, rng):
        return dataset.mean() + rng.laplace(size=num_samples)  # NaN on the empty dataset

    with pytest.raises(MechanismError, match=r"'.*mean' on dataset \[\] with num_samples=1000 returned 1000 non-finite"):
        audit(mean, PureDP(1.0), Domain(min_size=0, max_size=3), trials=4, samples=1_000, seed=0)


def test_per_call_mechanisms_can_be_audited():
    mechanism = per_call(lambda dataset, rng: dataset.sum() + rng.laplace(0.0, 0.5))  # truly 2-DP
    report = audit(mechanism, PureDP(0.5), Domain(), trials=2, samples=20_000, seed=0)
    assert report.violated


def test_a_finder_proposing_non_neighbours_is_stopped():
    class BadFinder:
        name = "bad"

        def start(self, domain, rng):
            pass

        def ask(self):
            return DatasetPair(np.array([0.1, 0.2]), np.array([0.3]))

        def tell(self, pair, score):
            pass

    with pytest.raises(ValueError, match="are not add_remove neighbours"):
        audit(noisy_sum, PureDP(1.0), Domain(), finder=BadFinder(), trials=1, samples=100)
