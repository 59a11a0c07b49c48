"""Sequential audits (``sampling="sequential"``): search and certification as one race, refuting at
the first round whose evidence suffices (`dpfuzz.engine.race`)."""

import json

import numpy as np
import pytest
from scipy.stats import binom

from dpfuzz import (
    ApproxDP,
    DatasetPair,
    Domain,
    InvalidArgument,
    PureDP,
    RenyiDP,
    Verdict,
    audit,
    per_call,
)
from dpfuzz.catalogue import entry

DOMAIN = Domain(low=0.0, high=1.0, min_size=0, max_size=5, relation="add_remove")


def sum_release(scale, clock):
    """A per-call release of the sum with Laplace noise of `scale` (ε = 1/scale, sensitivity 1),
    one call = one output, each "taking" 50 ms on the test's `clock`."""

    def release(dataset, rng):
        clock.advance(0.05)
        return float(np.sum(dataset) + rng.laplace(0.0, scale))

    return per_call(release)


def race_sum(scale, clock, **options):
    """A sequential audit of `sum_release(scale)` under a claim of ε = 1 on `DOMAIN`."""
    return audit(sum_release(scale, clock), PureDP(1.0), DOMAIN, sampling="sequential", **options)


@pytest.mark.parametrize("seed", range(5))
def test_a_per_call_release_with_half_its_noise_is_refuted_within_2500_calls(seed, clock):
    report = race_sum(0.5, clock, seed=seed, max_draws=20_000)
    assert report.violated and report.draws < 2_500
    assert report.epsilon_lower_bound >= 1.0 and report.verdict is Verdict.VIOLATED
    assert report.witness is not None and "e-value" in report.summary()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_sharpening_after_a_refutation_raises_the_certified_epsilon_never_past_the_truth(
    seed, clock
):
    # half the noise: the release is exactly 2-DP
    stopped = race_sum(0.5, clock, seed=seed, max_draws=20_000)
    sharpened = race_sum(0.5, clock, seed=seed, max_draws=20_000, sharpen=True)
    assert sharpened.violated and stopped.draws < sharpened.draws <= 20_000
    assert stopped.epsilon_lower_bound < sharpened.epsilon_lower_bound <= 2.0


def test_a_sharpened_race_whose_evidence_outgrows_a_float_still_reports():
    # randomized response at twice its ε: 20,000 draws take the wealth past e^709
    flipped = entry("RandomizedResponseWrongEps")
    report = audit(
        flipped(),
        flipped.claim(),
        flipped.domain(),
        seed=0,
        sampling="sequential",
        sharpen=True,
        max_draws=20_000,
    )
    assert report.violated and "e-value" in report.summary()
    assert 1.0 < report.epsilon_lower_bound <= flipped.truth().true_epsilon


def test_sharpening_needs_sequential_sampling():
    with pytest.raises(InvalidArgument, match="sharpen=True keeps betting.*sampling='sequential'"):
        audit(sum_release(0.5, None), PureDP(1.0), DOMAIN, sharpen=True, sampling="adaptive")


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_an_atom_that_moves_with_the_data_is_a_point_event_the_race_refutes_on(seed, clock):
    # ΣX + Lap(1), except that one call in ten releases ΣX itself: an atom on each side, at a
    # different place. Its point event refutes it in fewer draws than any interval among the
    # bulk's (docs/decisions/0034)
    def release(dataset, rng):
        clock.advance(0.05)
        return float(np.sum(dataset) + (0.0 if rng.random() < 0.1 else rng.laplace(0.0, 1.0)))

    report = audit(
        per_call(release), PureDP(1.0), DOMAIN, sampling="sequential", seed=seed, max_draws=20_000
    )
    assert report.violated and report.draws < 4_500
    assert report.verification.event in ("x = 0", "x = 1")


@pytest.mark.slow
def test_correct_per_call_releases_are_not_refuted_and_say_what_they_could_have_refuted(clock):
    report = race_sum(1.0, clock, seed=0, max_draws=4_000)
    assert report.verdict is Verdict.NOT_REFUTED
    assert "would have refuted the claim after" in report.summary()


def test_a_race_the_budget_ends_before_any_power_is_inconclusive(clock):
    report = race_sum(1.0, clock, seed=0, max_draws=300, trials=10)
    assert report.verdict is Verdict.INCONCLUSIVE
    assert "no outcome could have refuted the claim" in report.inconclusive


def test_a_race_with_no_round_to_bet_on_is_inconclusive_not_an_error(clock):
    # the probe's 40 draws, then the budget ends within the first four pairs' fitting outputs
    report = race_sum(1.0, clock, seed=0, max_draws=150)
    assert report.verdict is Verdict.INCONCLUSIVE and "before any output was bet on" in (
        report.inconclusive
    )


@pytest.mark.slow
def test_correct_catalogue_mechanisms_tight_at_their_claim_are_flagged_at_most_beta():
    laplace = entry("Laplace")
    runs, flagged = 60, 0
    for seed in range(runs):
        flagged += audit(
            laplace(),
            laplace.claim(),
            laplace.domain(),
            seed=seed,
            sampling="sequential",
            max_draws=20_000,
        ).violated
    assert flagged <= binom.ppf(0.999, runs, 0.05)


@pytest.mark.parametrize("name", ["TwoBudgetMean", "RandomizedResponseWrongEps", "SVT5"])
def test_catalogue_bugs_are_refuted_with_fewer_draws_than_the_adaptive_audit(name):
    bug = entry(name)
    options = {"seed": 0, "tester": bug.tester, "max_draws": 1_000_000}
    adaptive = audit(bug(), bug.claim(), bug.domain(), **options)
    sequential = audit(bug(), bug.claim(), bug.domain(), sampling="sequential", **options)
    assert adaptive.violated and sequential.violated and sequential.draws < adaptive.draws


def test_the_report_of_a_race_survives_json_and_names_the_raced_pairs(clock):
    report = race_sum(0.5, clock, seed=1, max_draws=20_000, trials=6)
    data = json.loads(report.to_json())
    raced = report.history_pairs()
    assert data["verdict"] == "violated" and data["verification"]["details"]["pairs"] == len(raced)
    # the first bracket races the relation's classic pairs, which the finder proposes first
    assert raced[:4] == DOMAIN.relation.classic_pairs(DOMAIN)[:4] and len(raced) <= 6


def test_claims_a_race_cannot_certify_are_refused_before_any_draw():
    calls = []

    def mechanism(dataset, num_samples, rng):
        calls.append(num_samples)
        return rng.normal(size=num_samples)

    with pytest.raises(InvalidArgument, match="sampling='adaptive'"):
        audit(mechanism, RenyiDP(2.0, 1.0), DOMAIN, sampling="sequential", seed=0)
    with pytest.raises(InvalidArgument, match="sampling='adaptive'"):
        audit(mechanism, ApproxDP(1.0, 1e-3), DOMAIN, sampling="sequential", tester="mmd", seed=0)
    assert not calls


def test_a_pair_given_as_the_finder_is_raced_alone(clock):
    pair = DatasetPair(np.array([0.0]), np.array([0.0, 1.0]))
    report = race_sum(0.5, clock, seed=0, finder=[pair], max_draws=20_000)
    assert report.violated and report.witness in (pair, pair.swapped())
    assert report.history_pairs() == [pair] and report.verification.details["arms"] == 2
