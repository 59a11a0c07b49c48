"""Privacy claims a mechanism makes: pure, approximate and Rényi differential privacy.

Small immutable value types in the style of dp-accounting's events. A claim is what a tester
tries to refute; it does not carry the neighbouring relation (that belongs to the `Domain`).
Every claim serialises with `to_dict` and back with `claim_from_dict`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from dpfuzz.errors import InvalidArgument
from dpfuzz.validation import check_keys, check_number, did_you_mean


class Claim:
    """Base of the claim types; subclasses are frozen dataclasses of their parameters."""

    def describe(self) -> str:
        raise NotImplementedError

    def to_dict(self) -> dict:
        return {"type": type(self).__name__, **{field.name: getattr(self, field.name) for field in fields(self)}}


def _epsilon(value: object) -> float:
    epsilon = check_number("epsilon", value, finite=False)
    if not 0.0 <= epsilon < math.inf:
        raise InvalidArgument(f"epsilon must be finite and >= 0, got {value!r}.")
    return epsilon


@dataclass(frozen=True)
class ApproxDP(Claim):
    """(ε, δ)-DP: P(M(D) ∈ S) ≤ e^ε P(M(D') ∈ S) + δ for all events S and neighbours D ~ D'.

    Equivalently H_{e^ε}(M(D) ‖ M(D')) ≤ δ for both orders of every neighbouring pair
    (Balle et al. 2018, Thm 1).
    """

    epsilon: float
    delta: float

    def __post_init__(self) -> None:
        epsilon = _epsilon(self.epsilon)
        delta = check_number("delta", self.delta)
        if not 0.0 <= delta < 1.0:
            raise InvalidArgument(f"delta must satisfy 0 <= delta < 1, got {self.delta!r}.")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)

    @property
    def hockey_stick_order(self) -> float:
        """γ = e^ε: the claim is H_γ ≤ δ."""
        return math.exp(self.epsilon)

    def describe(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"


@dataclass(frozen=True)
class PureDP(ApproxDP):
    """ε-DP: (ε, 0)-DP."""

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.delta != 0.0:
            raise InvalidArgument(f"PureDP has delta = 0, got delta={self.delta!r}; use ApproxDP(epsilon, delta).")

    def describe(self) -> str:
        return f"{self.epsilon:g}-DP"

    def to_dict(self) -> dict:
        return {"type": "PureDP", "epsilon": self.epsilon}


@dataclass(frozen=True)
class RenyiDP(Claim):
    """(α, ε)-RDP: R_α(M(D) ‖ M(D')) ≤ ε for every neighbouring pair (Mironov 2017)."""

    alpha: float
    epsilon: float

    def __post_init__(self) -> None:
        alpha = check_number("alpha", self.alpha, finite=False)
        if not 1.0 < alpha < math.inf:
            raise InvalidArgument(f"alpha must be finite and > 1, got {self.alpha!r}.")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "epsilon", _epsilon(self.epsilon))

    def describe(self) -> str:
        return f"({self.alpha:g}, {self.epsilon:g})-RDP"


CLAIM_TYPES = {kind.__name__: kind for kind in (PureDP, ApproxDP, RenyiDP)}


def claim_from_dict(data: dict) -> Claim:
    """Inverse of `claim.to_dict()`: ``{"type": "PureDP", "epsilon": 1.0}`` and the like."""
    if not isinstance(data, dict):
        raise InvalidArgument(f"a claim must be a table such as {{type = \"PureDP\", epsilon = 1.0}}, got {data!r}.")
    values = dict(data)
    kind = values.pop("type", None)
    if kind not in CLAIM_TYPES:
        raise InvalidArgument(
            f"claim type must be one of {sorted(CLAIM_TYPES)}, got {kind!r}.{did_you_mean(kind, CLAIM_TYPES)}"
        )
    cls = CLAIM_TYPES[kind]
    check_keys(values, [field.name for field in fields(cls)], f"a {kind} claim")
    return cls(**values)


def claim_from_parameters(epsilon: float, delta: float | None = None, alpha: float | None = None) -> Claim:
    """The claim command-line flags describe: ε alone is pure DP; with δ approximate; with α Rényi."""
    if alpha is not None and delta is not None:
        raise InvalidArgument("give either delta (approximate DP) or alpha (Rényi DP), not both.")
    if alpha is not None:
        return RenyiDP(alpha, epsilon)
    if delta is not None:
        return ApproxDP(epsilon, delta)
    return PureDP(epsilon)
