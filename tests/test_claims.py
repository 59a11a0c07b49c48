import math

import pytest

from dpfuzz import ApproxDP, InvalidArgument, PureDP, RenyiDP
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
