"""Privacy claims a mechanism makes: pure, approximate, Rényi, Gaussian and zero-concentrated DP.

Small immutable value types in the style of dp-accounting's events. A claim is what a tester
tries to refute; it does not carry the neighbouring relation (that belongs to the `Domain`).
Every claim serialises with `to_dict` and back with `claim_from_dict`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from functools import lru_cache
from statistics import NormalDist
from typing import Any, cast

from dpfuzz.errors import InvalidArgument
from dpfuzz.validation import check_keys, check_number, did_you_mean


class Claim:
    """Base of the claim types; subclasses are frozen dataclasses of their parameters."""

    def describe(self) -> str:
        raise NotImplementedError

    def to_dict(self) -> dict:
        return {
            "type": type(self).__name__,
            **{field.name: getattr(self, field.name) for field in fields(cast(Any, self))},
        }


# The largest ε a claim may state: e^ε is a finite float up to about 709.78, and no audit can
# certify a probability ratio anywhere near e^700 with outputs a machine can draw.
MAX_EPSILON = 700.0


def _epsilon(value: object) -> float:
    epsilon = check_number("epsilon", value, finite=False)
    if not 0.0 <= epsilon < math.inf:
        raise InvalidArgument(f"epsilon must be finite and >= 0, got {value!r}.")
    if epsilon > MAX_EPSILON:
        raise InvalidArgument(
            f"epsilon={value!r} is above {MAX_EPSILON:g}: e^epsilon overflows a float, and no audit"
            " could refute such a claim (that needs an event more than e^700 times likelier on one"
            " dataset). Audit a smaller epsilon."
        )
    return epsilon + 0.0  # -0.0 is 0.0 ("0-DP", not "-0-DP")


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
        object.__setattr__(self, "delta", delta + 0.0)  # -0.0 is 0.0

    @property
    def hockey_stick_order(self) -> float:
        """γ = e^ε: the claim is H_γ ≤ δ."""
        return math.exp(self.epsilon)

    def describe(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"

    def tradeoff(self, alpha: float) -> float:
        """f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)): the smallest type-II error of a
        test with type-I error α that (ε, δ)-DP allows (Dong, Roth & Su 2022, Prop. 2.5)."""
        return max(
            0.0,
            1 - self.delta - math.exp(self.epsilon) * alpha,
            math.exp(-self.epsilon) * (1 - self.delta - alpha),
        )


@dataclass(frozen=True)
class PureDP(ApproxDP):
    """ε-DP: (ε, 0)-DP."""

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.delta != 0.0:
            raise InvalidArgument(
                f"PureDP has delta = 0, got delta={self.delta!r}; use ApproxDP(epsilon, delta)."
            )

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


_NORMAL = NormalDist()


class ProfileClaim(Claim):
    """A claim that is (ε, δ(ε))-DP for every ε ≥ 0 at once: a privacy profile. Event testers
    refute it by choosing ε (with the event) on training data and certifying
    H_{e^ε} > δ(ε) on held-out data."""

    def delta_at(self, epsilon: float) -> float:
        """δ(ε): the smallest δ the claim allows at ε."""
        raise NotImplementedError

    def epsilon_at(self, delta: float) -> float:
        """The smallest ε with (ε, δ)-DP: δ(ε) is non-increasing, solved by bisection."""
        delta = check_number("delta", delta, minimum=0.0, maximum=1.0, exclusive_minimum=True)
        if self.delta_at(0.0) <= delta:
            return 0.0
        low, high = 0.0, 1.0
        while self.delta_at(high) > delta:
            low, high = high, 2 * high
        for _ in range(100):
            middle = (low + high) / 2
            low, high = (middle, high) if self.delta_at(middle) > delta else (low, middle)
        return high

    def to_approx(self, delta: float) -> ApproxDP:
        """The (ε, δ)-DP claim this claim implies at δ."""
        return ApproxDP(self.epsilon_at(delta), delta)

    def epsilon_grid(self) -> tuple[float, ...]:
        """The ε at which event testers may test: 24 points from 0 to the ε of δ = 10⁻¹² (at
        most `MAX_EPSILON`)."""
        return tuple(epsilon for epsilon, _ in _profile_points(self))

    def profile_points(self) -> tuple[tuple[float, float], ...]:
        """(ε, δ(ε)) on `epsilon_grid`, computed once per claim."""
        return _profile_points(self)


@lru_cache(maxsize=64)
def _profile_points(claim: ProfileClaim, points: int = 24) -> tuple[tuple[float, float], ...]:
    # past MAX_EPSILON, e^ε overflows and nothing is refutable
    top = min(claim.epsilon_at(1e-12), MAX_EPSILON)
    grid = [top * index / (points - 1) for index in range(points)]
    return tuple((epsilon, claim.delta_at(epsilon)) for epsilon in grid)


@dataclass(frozen=True)
class GaussianDP(ProfileClaim):
    """μ-GDP (Dong, Roth & Su 2022): distinguishing M(D) from M(D') is at least as hard as
    distinguishing N(0, 1) from N(μ, 1), i.e. the trade-off curve is at least
    G_μ(a) = Φ(Φ⁻¹(1 − a) − μ). Equivalent to (ε, δ_μ(ε))-DP for every ε ≥ 0 at once, with the
    privacy profile δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (their Corollary 2.13).
    """

    mu: float

    def __post_init__(self) -> None:
        mu = check_number("mu", self.mu, finite=False)
        if not 0.0 < mu < math.inf:
            raise InvalidArgument(f"mu must be finite and > 0, got {self.mu!r}.")
        object.__setattr__(self, "mu", mu)

    def describe(self) -> str:
        return f"{self.mu:g}-GDP"

    def delta_at(self, epsilon: float) -> float:
        """δ_μ(ε)."""
        mu = self.mu
        # e^ε · tail in logs: e^ε alone overflows past ε ≈ 709
        tail = _NORMAL.cdf(-epsilon / mu - mu / 2)
        return max(
            0.0,
            _NORMAL.cdf(-epsilon / mu + mu / 2)
            - (math.exp(epsilon + math.log(tail)) if tail > 0 else 0.0),
        )

    def tradeoff(self, alpha: float) -> float:
        """G_μ(α): the smallest type-II error of any test with type-I error α."""
        if alpha <= 0.0:
            return 1.0
        if alpha >= 1.0:
            return 0.0
        return _NORMAL.cdf(_NORMAL.inv_cdf(1.0 - alpha) - self.mu)

    @property
    def error_floor(self) -> float:
        """min_a (a + G_μ(a))/2 = Φ(−μ/2): the smallest error of guessing a fair secret bit."""
        return _NORMAL.cdf(-self.mu / 2)

    @classmethod
    def from_epsilon(cls, epsilon: float, delta: float) -> GaussianDP:
        """The μ-GDP whose ε at `delta` is `epsilon` (bisection: ε_μ(δ) increases with μ)."""
        low, high = 1e-3, 100.0
        for _ in range(80):
            middle = (low + high) / 2
            low, high = (middle, high) if cls(middle).epsilon_at(delta) < epsilon else (low, middle)
        return cls(low)

    @staticmethod
    def mu_from_error(error: float) -> float:
        """The μ whose error floor is `error` (inverse of `error_floor`; 0 for error ≥ 1/2)."""
        return (
            max(0.0, -2.0 * _NORMAL.inv_cdf(error))
            if 0.0 < error < 1.0
            else (math.inf if error <= 0 else 0.0)
        )


@dataclass(frozen=True)
class ZeroConcentratedDP(ProfileClaim):
    """ρ-zCDP (Bun & Steinke 2016): R_α(M(D) ‖ M(D')) ≤ ρα for every α > 1. The Rényi tester
    refutes it at its order α; event testers through the privacy profile
    δ(ε) = inf_{α>1} exp((α−1)(αρ − ε))/α · (1 − 1/α)^{α−1} (Canonne, Kamath & Steinke 2020,
    Prop. 12), taken over a grid of α: a grid minimum is at least the infimum, so the claim is
    read as at most as strong as it is and never refuted for a violation it does not have.
    """

    rho: float

    def __post_init__(self) -> None:
        rho = check_number("rho", self.rho, finite=False)
        if not 0.0 < rho < math.inf:
            raise InvalidArgument(f"rho must be finite and > 0, got {self.rho!r}.")
        object.__setattr__(self, "rho", rho)

    def describe(self) -> str:
        return f"{self.rho:g}-zCDP"

    def at_order(self, alpha: float) -> RenyiDP:
        """The (α, ρα)-RDP claim ρ-zCDP makes at order α."""
        return RenyiDP(alpha, self.rho * alpha)

    def delta_at(self, epsilon: float) -> float:
        rho, best = self.rho, 0.0
        for index in range(400):  # α from 1.001 to 10^5, geometrically
            alpha = 1.0 + 1e-3 * 10 ** (index / 50)
            log_delta = (
                (alpha - 1) * (alpha * rho - epsilon)
                - math.log(alpha)
                + (alpha - 1) * math.log1p(-1 / alpha)
            )
            best = log_delta if index == 0 else min(best, log_delta)
        return 1.0 if best >= 0.0 else math.exp(best)


def approx_dp(claim: Claim) -> ApproxDP:
    """`claim` where the caller admits only (ε, δ)-DP and pure DP (a tester past its
    `check_claim`); anything else is a programming error."""
    if not isinstance(claim, ApproxDP):
        raise TypeError(f"an (epsilon, delta)-DP claim is needed here, got {claim!r}.")
    return claim


def group_claim(claim: Claim, k: int) -> Claim:
    """The claim for datasets k neighbouring steps apart (group privacy): kε-DP; (kε,
    δ·Σ_{i<k} e^{iε})-DP (Vadhan 2017, Lemma 2.2, summed exactly); kμ-GDP (Dong, Roth & Su 2022,
    Thm 2.14); k²ρ-zCDP (Bun & Steinke 2016, Prop. 1.9). Rényi DP has no such simple form."""
    if isinstance(claim, PureDP):
        return PureDP(k * claim.epsilon)
    if isinstance(claim, ApproxDP):
        delta = claim.delta * sum(math.exp(i * claim.epsilon) for i in range(k))
        if delta >= 1.0:
            raise InvalidArgument(
                f"{claim.describe()} says nothing about groups of {k}: their δ would be {delta:.3g}"
                " ≥ 1."
            )
        return ApproxDP(k * claim.epsilon, delta)
    if isinstance(claim, GaussianDP):
        return GaussianDP(k * claim.mu)
    if isinstance(claim, ZeroConcentratedDP):
        return ZeroConcentratedDP(k * k * claim.rho)
    raise InvalidArgument(
        "dpfuzz converts pure, approximate, Gaussian and zero-concentrated claims to groups, not"
        f" {claim.describe()}."
    )


CLAIM_TYPES = {
    kind.__name__: kind for kind in (PureDP, ApproxDP, RenyiDP, GaussianDP, ZeroConcentratedDP)
}


def claim_from_dict(data: dict) -> Claim:
    """Inverse of `claim.to_dict()`: ``{"type": "PureDP", "epsilon": 1.0}`` and the like."""
    if not isinstance(data, dict):
        raise InvalidArgument(
            f'a claim must be a table such as {{type = "PureDP", epsilon = 1.0}}, got {data!r}.'
        )
    values = dict(data)
    kind = values.pop("type", None)
    if kind not in CLAIM_TYPES:
        raise InvalidArgument(
            f"claim type must be one of {sorted(CLAIM_TYPES)}, got"
            f" {kind!r}.{did_you_mean(kind, CLAIM_TYPES)}"
        )
    cls = CLAIM_TYPES[kind]
    check_keys(values, [field.name for field in fields(cls)], f"a {kind} claim")
    return cls(**values)


def claim_from_parameters(
    epsilon: float | None = None,
    delta: float | None = None,
    alpha: float | None = None,
    mu: float | None = None,
    rho: float | None = None,
) -> Claim:
    """The claim command-line flags describe: ε alone is pure DP; with δ approximate; with α
    Rényi; μ alone is μ-GDP; ρ alone ρ-zCDP."""
    given = [
        name
        for name, value in (("epsilon", epsilon), ("mu", mu), ("rho", rho))
        if value is not None
    ]
    if len(given) != 1:
        raise InvalidArgument(
            "give exactly one of epsilon (with delta or alpha), mu (GDP) or rho (zCDP), got"
            f" {given or 'none'}."
        )
    if mu is not None or rho is not None:
        if delta is not None or alpha is not None:
            raise InvalidArgument(
                "delta and alpha go with epsilon; a GDP (mu) or zCDP (rho) claim takes neither."
            )
        return GaussianDP(mu) if mu is not None else ZeroConcentratedDP(cast(float, rho))
    if alpha is not None and delta is not None:
        raise InvalidArgument("give either delta (approximate DP) or alpha (Rényi DP), not both.")
    epsilon = cast(float, epsilon)  # the only one given
    if alpha is not None:
        return RenyiDP(alpha, epsilon)
    if delta is not None:
        return ApproxDP(epsilon, delta)
    return PureDP(epsilon)
