"""Laplace noise in floating point (Mironov 2012, "On significance of the least significant bits").

* NaiveFloatLaplace: x + the textbook inverse-CDF sample −b·sign(u)·ln(1 − 2|u|) in float64. The
  sets of reachable outputs differ between x = 0 and x = 1: for |y| < ½, an output of x = 1
  is 1 + n computed exactly (Sterbenz) and so a multiple of 2^−53, while outputs of x = 0
  are noise values of finer granularity. An event of positive probability on one side has
  probability 0 on the other: no finite ε. Seen through the `float_bits` tester.
* SnappingLaplace: Mironov's snapping mechanism clamp_B(round_Λ(clamp_B(x) + S·λ·ln U*)) with
  λ = 1/ε, Λ the smallest power of 2 ≥ λ, and U* uniform on (0, 1] drawn at full precision. It
  satisfies (1/λ + 2^−49 B/λ²)-DP for λ < B < 2^46 λ (Mironov 2012, Thm 1), which it claims.
"""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth

DOMAIN = Domain(low=0.0, high=1.0, min_size=0, max_size=1)
WITNESS = DatasetPair(np.array([]), np.array([1.0]))


def naive_float_laplace(epsilon: float) -> Mechanism:
    scale = 1.0 / positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        u = rng.random(num_samples) - 0.5
        return dataset.sum() + (-scale * np.sign(u) * np.log(1 - 2 * np.abs(u)))

    return mechanism


def full_precision_uniform(num_samples: int, rng: np.random.Generator) -> np.ndarray:
    """U* on (0, 1] with every double reachable: exponent geometric, 52 random mantissa bits."""
    exponent = rng.geometric(0.5, num_samples)  # P(U* ∈ [2^−e, 2^{1−e})) = 2^−e
    mantissa = rng.integers(0, 2**52, num_samples, dtype=np.int64)
    return np.ldexp(1.0 + mantissa / 2.0**52, -exponent)


def snapping_laplace(epsilon: float, bound: float) -> Mechanism:
    lam = 1.0 / positive("epsilon", epsilon)
    grid = 2.0 ** math.ceil(math.log2(lam))

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        centre = np.clip(dataset.sum(), -bound, bound)
        sign = np.where(rng.random(num_samples) < 0.5, -1.0, 1.0)
        noisy = centre + sign * lam * np.log(full_precision_uniform(num_samples, rng))
        return np.clip(np.round(noisy / grid) * grid, -bound, bound)

    return mechanism


def snapping_epsilon(epsilon: float, bound: float) -> float:
    lam = 1.0 / epsilon
    if not lam < bound < 2.0**46 * lam:
        raise InvalidArgument(
            f"the snapping guarantee needs 1/ε < B < 2^46/ε, got ε={epsilon}, B={bound}."
        )
    return 1.0 / lam + 2.0**-49 * bound / lam**2


NaiveFloatLaplace = CatalogueEntry(
    name="NaiveFloatLaplace",
    family="floating_point",
    build=naive_float_laplace,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=DOMAIN,
    truth_spec=Truth(False, math.inf, "reachable floats differ between neighbours (Mironov 2012)"),
    witness_spec=WITNESS,
    description="x + textbook inverse-CDF Laplace(1/ε) in float64",
    tester="float_bits",
)

SnappingLaplace = CatalogueEntry(
    name="SnappingLaplace",
    family="floating_point",
    build=snapping_laplace,
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "bound": 10.0},
    claim_spec=lambda epsilon, bound: PureDP(snapping_epsilon(epsilon, bound)),
    domain_spec=DOMAIN,
    truth_spec=lambda epsilon, bound: Truth(
        True, snapping_epsilon(epsilon, bound), "Mironov 2012, Thm 1"
    ),
    witness_spec=WITNESS,
    description="Mironov's snapping mechanism, λ = 1/ε, bound B",
    tester="float_bits",
)

ENTRIES = (NaiveFloatLaplace, SnappingLaplace)
