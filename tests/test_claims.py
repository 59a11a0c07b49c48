import math

import pytest

from dpfuzz import ApproxDP, GaussianDP, InvalidArgument, PureDP, RenyiDP, ZeroConcentratedDP
from dpfuzz.claims import claim_from_dict


def test_claims_are_immutable_values():
    claim = ApproxDP(epsilon=1.0, delta=1e-6)
    with pytest.raises(AttributeError):
        claim.epsilon = 2.0  # type: ignore[misc]
    assert claim == ApproxDP(1.0, 1e-6)
    assert PureDP(0.5).delta == 0.0
    assert math.isclose(PureDP(1.0).hockey_stick_order, math.e)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: PureDP(-0.1), "epsilon must be finite and >= 0"),
        (lambda: PureDP(math.inf), "epsilon must be finite"),
        (lambda: ApproxDP(1.0, 1.0), "0 <= delta < 1"),
        (lambda: ApproxDP(1.0, -1e-9), "0 <= delta < 1"),
        (lambda: RenyiDP(alpha=1.0, epsilon=1.0), "alpha must be finite and > 1"),
        (lambda: RenyiDP(alpha=2.0, epsilon=-1.0), "epsilon must be finite and >= 0"),
        (lambda: PureDP(float("nan")), "got NaN"),
        (lambda: PureDP(1.0, delta=0.1), "use ApproxDP"),
        (lambda: PureDP(1e308), "epsilon=1e\\+308 is above 700"),
        (lambda: ApproxDP(701.0, 1e-5), "above 700: e\\^epsilon overflows"),
    ],
)
def test_invalid_claims_name_the_value(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_non_numbers_are_rejected():
    with pytest.raises(InvalidArgument, match="epsilon must be a real number, got '1'"):
        PureDP("1")  # type: ignore[arg-type]


@pytest.mark.parametrize("claim", [PureDP(0.3), ApproxDP(1.0, 1e-5), RenyiDP(4.0, 0.5)])
def test_claims_round_trip_through_dicts(claim):
    assert claim_from_dict(claim.to_dict()) == claim


@pytest.mark.parametrize(
    "claim",
    [GaussianDP(1e308), GaussianDP(40.0), ZeroConcentratedDP(1e308), ZeroConcentratedDP(600.0)],
    ids=["mu 1e308", "mu 40", "rho 1e308", "rho 600"],
)
def test_huge_profile_claims_have_a_finite_profile_no_audit_can_refute(claim):
    from dpfuzz.testers.hockey_stick import HockeyStickTester

    points = claim.profile_points()
    assert all(
        math.isfinite(epsilon) and epsilon <= 700 and 0 <= delta <= 1 for epsilon, delta in points
    )
    assert HockeyStickTester().max_certifiable(claim, 10**9, 0.05) <= 0


def test_a_negative_zero_is_zero_in_every_claim():
    assert PureDP(-0.0).describe() == "0-DP"
    assert ApproxDP(-0.0, -0.0).describe() == "(0, 0)-DP"
    assert RenyiDP(2.0, -0.0).describe() == "(2, 0)-RDP"
