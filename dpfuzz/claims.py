"""Privacy claims a mechanism makes: pure, approximate and Rényi differential privacy.

Small immutable value types in the style of dp-accounting's events. A claim is what a tester
tries to refute; it does not carry the neighbouring relation (that belongs to the `Domain`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union


def _check_number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number, got {value!r} of type {type(value).__name__}.")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must be a number, got NaN.")
    return value


@dataclass(frozen=True)
class ApproxDP:
    """(ε, δ)-DP: P(M(D) ∈ S) ≤ e^ε P(M(D') ∈ S) + δ for all events S and neighbours D ~ D'.

    Equivalently H_{e^ε}(M(D) ‖ M(D')) ≤ δ for both orders of every neighbouring pair
    (Balle et al. 2018, Thm 1).
    """

    epsilon: float
    delta: float

    def __post_init__(self) -> None:
        epsilon = _check_number("epsilon", self.epsilon)
        delta = _check_number("delta", self.delta)
        if not 0.0 <= epsilon < math.inf:
            raise ValueError(f"epsilon must be finite and >= 0, got {self.epsilon!r}.")
        if not 0.0 <= delta < 1.0:
            raise ValueError(f"delta must satisfy 0 <= delta < 1, got {self.delta!r}.")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)

    @property
    def hockey_stick_order(self) -> float:
        """γ = e^ε: the claim is H_γ ≤ δ."""
        return math.exp(self.epsilon)

    def describe(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"

    def to_dict(self) -> dict:
        return {"type": type(self).__name__, "epsilon": self.epsilon, "delta": self.delta}


@dataclass(frozen=True)
class PureDP(ApproxDP):
    """ε-DP: (ε, 0)-DP."""

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.delta != 0.0:
            raise ValueError(f"PureDP has delta = 0, got delta={self.delta!r}; use ApproxDP(epsilon, delta).")

    def describe(self) -> str:
        return f"{self.epsilon:g}-DP"

    def to_dict(self) -> dict:
        return {"type": "PureDP", "epsilon": self.epsilon}


@dataclass(frozen=True)
class RenyiDP:
    """(α, ε)-RDP: R_α(M(D) ‖ M(D')) ≤ ε for every neighbouring pair (Mironov 2017)."""

    alpha: float
    epsilon: float

    def __post_init__(self) -> None:
        alpha = _check_number("alpha", self.alpha)
        epsilon = _check_number("epsilon", self.epsilon)
        if not 1.0 < alpha < math.inf:
            raise ValueError(f"alpha must be finite and > 1, got {self.alpha!r}.")
        if not 0.0 <= epsilon < math.inf:
            raise ValueError(f"epsilon must be finite and >= 0, got {self.epsilon!r}.")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "epsilon", epsilon)

    def describe(self) -> str:
        return f"({self.alpha:g}, {self.epsilon:g})-RDP"

    def to_dict(self) -> dict:
        return {"type": "RenyiDP", "alpha": self.alpha, "epsilon": self.epsilon}


Claim = Union[PureDP, ApproxDP, RenyiDP]


def claim_from_dict(data: dict) -> Claim:
    """Inverse of `claim.to_dict()`."""
    kinds = {"PureDP": PureDP, "ApproxDP": ApproxDP, "RenyiDP": RenyiDP}
    fields = dict(data)
    kind = fields.pop("type", None)
    if kind not in kinds:
        raise ValueError(f"unknown claim type {kind!r}; expected one of {sorted(kinds)}.")
    return kinds[kind](**fields)
