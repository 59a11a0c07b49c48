"""Histogram, MMD and Rényi testers against closed-form divergences; false alarms; auto rule.

Tolerances as in test_hockey_stick.py: a valid (1 − β) lower bound exceeds the truth in at most
β of repetitions, so ≥ 190 of 200 at β = 0.05; false alarms ≤ 5 of 100 seeds.
"""

import math

import numpy as np
import pytest

from dpfuzz import (
    ApproxDP,
    Domain,
    PureDP,
    RenyiDP,
    UnsupportedClaimError,
    UnsupportedOutputError,
    audit,
)
from dpfuzz import divergences as closed
from dpfuzz.profiles import privacy_profile
from dpfuzz.testers import HistogramTester, MMDTester, RenyiTester, choose_tester, make_tester

BETA = 0.05
KEEP = math.exp(1) / (1 + math.exp(1))  # randomized response at ε = 1

PAIRS = {
    # name: (draw P, draw Q, H_{e^ε} truth, R_α truth)
    "gaussian": (
        lambda r, n: r.normal(0, 1, n),
        lambda r, n: r.normal(1, 1, n),
        lambda eps: closed.gaussian_hockey_stick(eps, 1.0),
        lambda alpha: closed.gaussian_renyi(alpha, 1.0),
    ),
    "laplace": (
        lambda r, n: r.laplace(0, 1, n),
        lambda r, n: r.laplace(1, 1, n),
        lambda eps: closed.laplace_hockey_stick(eps, 1.0),
        lambda alpha: closed.laplace_renyi(alpha, 1.0),
    ),
    "exponential": (
        lambda r, n: r.exponential(1 / 2.0, n),
        lambda r, n: r.exponential(1.0, n),
        lambda eps: closed.exponential_hockey_stick(eps, 2.0, 1.0),
        lambda alpha: closed.exponential_renyi(alpha, 2.0, 1.0),
    ),
    "randomized_response": (
        lambda r, n: (r.random(n) < KEEP).astype(int),
        lambda r, n: (r.random(n) >= KEEP).astype(int),
        lambda eps: closed.randomized_response_hockey_stick(eps, 1.0),
        lambda alpha: closed.randomized_response_renyi(alpha, 1.0),
    ),
}

EVENT_TESTERS = {
    "hockey_stick": (make_tester("hockey_stick", PureDP(0.2)), PureDP(0.2)),
    "histogram": (HistogramTester(), PureDP(0.2)),
    "histogram_uniform": (HistogramTester(bound="uniform"), PureDP(0.2)),
    "renyi": (RenyiTester(), RenyiDP(2.0, 0.1)),
}


def _truth(pair: str, claim) -> float:
    _, _, hockey_stick, renyi = PAIRS[pair]
    return renyi(claim.alpha) if isinstance(claim, RenyiDP) else hockey_stick(claim.epsilon)


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize("name", EVENT_TESTERS)
def test_bounds_stay_below_closed_form_truth(name, pair):
    tester, claim = EVENT_TESTERS[name]
    draw_p, draw_q, _, _ = PAIRS[pair]
    truth = _truth(pair, claim)
    rng = np.random.default_rng(11)
    bounds = np.array(
        [
            tester.test(draw_p(rng, 20_000), draw_q(rng, 20_000), claim, BETA, rng).bound
            for _ in range(200)
        ]
    )
    below = int(np.sum(bounds <= truth + 1e-12))
    print(f"{name} on {pair}: {below}/200 below truth {truth:.4f}, mean bound {bounds.mean():.4f}")
    assert below >= 190


@pytest.mark.slow
@pytest.mark.parametrize("pair", ["gaussian", "laplace", "exponential", "randomized_response"])
@pytest.mark.parametrize("kernel", ["gaussian", "laplacian"])
def test_mmd_stays_below_twice_total_variation(pair, kernel):
    # MMD ≤ 2 TV for kernels bounded by 1; TV is the hockey-stick divergence at ε = 0.
    draw_p, draw_q, hockey_stick, _ = PAIRS[pair]
    rng = np.random.default_rng(12)
    tester = MMDTester(kernel=kernel)
    bounds = np.array(
        [
            tester.test(draw_p(rng, 20_000), draw_q(rng, 20_000), PureDP(0.1), BETA, rng).bound
            for _ in range(200)
        ]
    )
    assert np.sum(bounds <= 2 * hockey_stick(0.0)) >= 190 and bounds.mean() > 0


@pytest.mark.slow
def test_mmd_stays_below_closed_form_gaussian_mmd():
    truth = closed.gaussian_kernel_mmd(1.0, 1.0, bandwidth=1.0)
    rng = np.random.default_rng(13)
    tester = MMDTester(bandwidth=1.0)
    bounds = np.array(
        [
            tester.test(
                rng.normal(0, 1, 20_000), rng.normal(1, 1, 20_000), PureDP(0.1), BETA, rng
            ).bound
            for _ in range(200)
        ]
    )
    print(f"mmd: {np.sum(bounds <= truth)}/200 below {truth:.4f}, mean {bounds.mean():.4f}")
    assert np.sum(bounds <= truth) >= 190


@pytest.mark.parametrize("name", ["histogram", "renyi", "mmd"])
@pytest.mark.slow
def test_gap_to_the_truth_shrinks_with_samples(name):
    # The histogram's bound is H_{e^ε} on its event: it approaches the truth when the event is
    # ranked by that bound (objective="divergence"); the default ranks by ε instead.
    tester, claim = {
        **EVENT_TESTERS,
        "histogram": (HistogramTester(objective="divergence"), PureDP(0.2)),
        "mmd": (MMDTester(bandwidth=1.0), PureDP(0.1)),
    }[name]
    truth = (
        closed.gaussian_kernel_mmd(1.0, 1.0, 1.0) if name == "mmd" else _truth("gaussian", claim)
    )
    gaps = []
    for n in (2_000, 20_000, 200_000):
        rngs = [np.random.default_rng(seed) for seed in range(3)]
        mean = np.mean(
            [tester.test(r.normal(0, 1, n), r.normal(1, 1, n), claim, BETA, r).bound for r in rngs]
        )
        gaps.append(truth - mean)
        print(f"{name} n={n:>7,}: truth {truth:.4f}, mean bound {mean:.4f}, gap {truth - mean:.4f}")
    assert gaps[0] > gaps[1] > gaps[2] >= 0


EXACT = {
    # name: (draw P, draw Q, claim for event/MMD testers, claim for the Rényi tester) — all exact
    "laplace": (
        lambda r, n: r.laplace(0, 1, n),
        lambda r, n: r.laplace(1, 1, n),
        PureDP(1.0),
        PureDP(1.0),
    ),
    "randomized_response": (
        PAIRS["randomized_response"][0],
        PAIRS["randomized_response"][1],
        PureDP(1.0),
        PureDP(1.0),
    ),
    "gaussian": (
        lambda r, n: r.normal(0, 1, n),
        lambda r, n: r.normal(1, 1, n),
        ApproxDP(0.5, closed.gaussian_hockey_stick(0.5, 1.0)),
        RenyiDP(2.0, closed.gaussian_renyi(2.0, 1.0)),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", EXACT)
@pytest.mark.parametrize("name", ["hockey_stick", "histogram", "mmd", "renyi"])
def test_exact_claims_are_rarely_refuted(name, mechanism):
    draw_p, draw_q, claim, renyi_claim = EXACT[mechanism]
    claim = renyi_claim if name == "renyi" else claim
    tester = make_tester(name, claim)
    refuted = 0
    for seed in range(100):
        rng = np.random.default_rng(seed)
        refuted += tester.test(draw_p(rng, 50_000), draw_q(rng, 50_000), claim, BETA, rng).violated
    print(f"{name} on {mechanism} at its exact claim {claim.describe()}: refuted {refuted}/100")
    assert refuted <= 5


@pytest.mark.slow
def test_privacy_profile_holds_for_all_epsilons_at_once():
    epsilons = np.linspace(0.0, 1.5, 31)
    truth = np.array([closed.laplace_hockey_stick(e, 1.0) for e in epsilons])
    rng = np.random.default_rng(14)
    held = 0
    for _ in range(100):
        profile = privacy_profile(
            rng.laplace(0, 1, 50_000), rng.laplace(1, 1, 50_000), epsilons=epsilons, beta=BETA
        )
        held += bool(np.all(profile.delta_lower <= truth))
    last = profile.delta_lower
    print(
        f"profile below the truth at every ε in {held}/100 runs; TV bound {last[0]:.3f} (true"
        f" {truth[0]:.3f})"
    )
    assert held >= 95 and last[0] > 0.5 * truth[0]
    assert np.all(np.diff(last) <= 0)


def test_unsupported_claims_and_outputs():
    rng = np.random.default_rng(0)
    with pytest.raises(UnsupportedClaimError, match="mmd refutes PureDP and ApproxDP claims"):
        MMDTester().test(np.zeros(10), np.ones(10), RenyiDP(2.0, 1.0), BETA, rng)
    with pytest.raises(UnsupportedClaimError, match="renyi refutes RenyiDP and PureDP claims"):
        RenyiTester().test(np.zeros(10), np.ones(10), ApproxDP(1.0, 1e-5), BETA, rng)
    with pytest.raises(
        UnsupportedOutputError,
        match="histogram handles 1-D outputs.*use tester='hockey_stick' or 'mmd'",
    ):
        HistogramTester().test(np.zeros((10, 2)), np.ones((10, 2)), PureDP(1.0), BETA, rng)
    with pytest.raises(UnsupportedClaimError, match="bound='uniform' refutes PureDP and ApproxDP"):
        HistogramTester(bound="uniform").test(
            np.zeros(10), np.ones(10), RenyiDP(2.0, 1.0), BETA, rng
        )


@pytest.mark.slow
def test_vector_outputs_for_mmd_and_renyi():
    rng = np.random.default_rng(15)
    p, q = rng.normal(size=(40_000, 3)), rng.normal(size=(40_000, 3)) + [1.0, 0.0, 0.0]
    assert MMDTester().test(p, q, PureDP(0.1), BETA, rng).violated
    for tester in (RenyiTester(), RenyiTester(function="network")):
        result = tester.test(p, q, RenyiDP(2.0, 0.1), BETA, rng)
        assert result.violated and result.bound <= closed.gaussian_renyi(2.0, 1.0)


def test_auto_rule():
    assert choose_tester(RenyiDP(2.0, 1.0)) == "renyi"
    assert choose_tester(PureDP(1.0), np.array([0, 1, 1, 2])) == "histogram"
    assert choose_tester(PureDP(1.0), np.array([0.5, 1.0])) == "hockey_stick"
    assert choose_tester(PureDP(1.0), np.zeros((4, 2))) == "hockey_stick"

    def flip(dataset, num_samples, rng):  # randomized response on "is there a record", truly 1-DP
        keep = rng.random(num_samples) < KEEP
        return np.where(keep, min(len(dataset), 1), 1 - min(len(dataset), 1))

    report = audit(
        flip, PureDP(0.5), Domain(min_size=0, max_size=1), trials=2, samples=20_000, seed=0
    )
    assert report.tester == "histogram" and report.violated


def test_testers_fit_on_one_thread_and_restore_the_pools():
    import importlib

    from threadpoolctl import threadpool_info

    from dpfuzz.testers.base import single_threaded

    # loads scikit-learn's OpenMP runtime, if it has one
    importlib.import_module("sklearn.linear_model")
    before = {pool["filepath"]: pool["num_threads"] for pool in threadpool_info()}
    for _ in range(2):  # the second time through the kept controller
        with single_threaded():
            assert all(pool["num_threads"] == 1 for pool in threadpool_info())
        assert {pool["filepath"]: pool["num_threads"] for pool in threadpool_info()} == before


def test_a_tester_says_which_of_its_events_it_certifies_from_counts():
    rng = np.random.default_rng(0)
    p, q = rng.integers(0, 4, 2_000), rng.integers(0, 4, 2_000)
    for bound, counted in (("event", True), ("uniform", False)):
        tester = HistogramTester(bound=bound)
        fitted = tester.fit(p, q, PureDP(1.0), 0.05, rng)
        assert tester.counts(fitted) is counted, bound
    hockey_stick = make_tester("hockey_stick", PureDP(1.0))
    assert hockey_stick.counts(hockey_stick.fit(p, q, PureDP(1.0), 0.05, rng))
    assert not MMDTester().counts(None)


def test_interval_testers_search_a_renyi_claim_at_its_epsilon():
    # Rényi claims reach the hockey-stick and histogram testers' interval search, whose levels
    # sit at e^ε of the claim: ε is the Rényi claim's own.
    rng = np.random.default_rng(1)
    claim = RenyiDP(alpha=2.0, epsilon=0.1)
    p, q = rng.integers(0, 3, 4_000), rng.integers(0, 3, 4_000)
    for tester in (HistogramTester(), make_tester("hockey_stick", claim)):
        assert any(
            gamma == pytest.approx(math.exp(0.1)) for gamma in tester.selection.gammas(claim)
        )
        result = tester.test(p, q + (rng.random(4_000) < 0.3), claim, 0.05, rng)
        assert result.claim == claim and result.divergence.startswith("renyi")
