"""Library adapters: the claim read from the library, its neighbouring convention, and audits
through both the per-call and the fast path (each library's test skips when it is not installed)."""

import numpy as np
import pytest

from dpfuzz import ApproxDP, InvalidArgument, PureDP, ZeroConcentratedDP, audit


@pytest.fixture
def dp():
    opendp = pytest.importorskip("opendp.prelude")
    opendp.enable_features("contrib")
    return opendp


def bounded_sum(dp, low=-1.0, high=1.0):
    return (dp.vector_domain(dp.atom_domain(bounds=(low, high))), dp.symmetric_distance()) >> dp.t.then_sum()


def vector_laplace(dp, scale):
    return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=scale)


def test_opendp_claims_and_conventions_are_read_from_the_library(dp):
    from dpfuzz.adapters.opendp import opendp_target

    summed = bounded_sum(dp)
    laplace = opendp_target(summed >> dp.m.then_laplace(scale=2.0))
    # OpenDP charges U − L = 2 per unit of symmetric distance for a clamped sum on [−1, 1]
    assert isinstance(laplace.claim, PureDP) and laplace.claim.epsilon == pytest.approx(1.0)
    assert laplace.domain.relation.name == "add_remove"
    substitute = opendp_target(summed >> dp.m.then_laplace(scale=2.0), relation="substitute")
    assert substitute.claim.epsilon == pytest.approx(2.0) and "d_in = 2" in substitute.convention
    gaussian = opendp_target(summed >> dp.m.then_gaussian(scale=2.0))
    assert isinstance(gaussian.claim, ZeroConcentratedDP) and gaussian.claim.rho == pytest.approx(0.5)
    approximate = opendp_target(dp.c.make_zCDP_to_approxDP(summed >> dp.m.then_gaussian(scale=2.0)), delta=1e-6)
    assert isinstance(approximate.claim, ApproxDP) and approximate.claim.delta == 1e-6
    with pytest.raises(InvalidArgument, match="supports relation"):
        opendp_target(summed >> dp.m.then_laplace(scale=2.0), relation="linf")
    unbounded = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()) >> dp.t.then_count()
    with pytest.raises(InvalidArgument, match="bounded records"):
        opendp_target(unbounded >> dp.m.then_laplace(scale=1.0))


def test_a_correct_opendp_release_is_not_flagged_through_both_paths(dp):
    from dpfuzz.adapters.opendp import opendp_target

    summed = bounded_sum(dp)
    measurement = summed >> dp.m.then_laplace(scale=2.0)
    slow = opendp_target(measurement, max_size=3).audit(seed=0, budget="quick", max_draws=40_000)
    fast = opendp_target(measurement, max_size=3, transformation=summed, noise=vector_laplace(dp, 2.0)).audit(
        seed=0, budget="quick", max_draws=400_000
    )
    assert not slow.violated and not fast.violated
    # the library charges twice the true cost here: the tight add/remove ε is 0.5, and the
    # fast path's certified bound approaches it without passing the claim
    assert fast.epsilon_lower_bound is None or fast.epsilon_lower_bound < 1.0


def test_a_fast_path_whose_noise_is_not_the_measurements_is_refuted(dp):
    # A misuse of the fast path: noise of scale 0.5 standing in for the measurement's scale 2.
    from dpfuzz.adapters.opendp import opendp_target

    summed = bounded_sum(dp)
    target = opendp_target(summed >> dp.m.then_laplace(scale=2.0), max_size=3, transformation=summed, noise=vector_laplace(dp, 0.5))
    report = target.audit(seed=0, budget="quick", max_draws=200_000)
    assert report.violated and report.epsilon_lower_bound > 1.0
    with pytest.raises(InvalidArgument, match="both transformation and noise"):
        opendp_target(summed >> dp.m.then_laplace(scale=2.0), transformation=summed)
