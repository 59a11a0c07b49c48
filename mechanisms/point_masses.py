"""Releases that are continuous but for some exact values (point masses).

* LaplaceWithFallback  ΣX + Lap(1/ε), except that with probability `leak` it returns ΣX itself
  (a debug path, a fallback that skips the noise). The exact value ΣX(D) has probability `leak`
  under D and 0 under a neighbour with another sum: no finite ε.
* ClampedLaplace       clip(ΣX + Lap(1/ε), 0, `top`): post-processing of the Laplace mechanism,
  ε-DP. Both clamp values are point masses under both datasets, with a ratio of at most e^ε;
  the ratio e^ε itself is reached on outputs between the two sums' (tight).
"""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth

SUM_DOMAIN = Domain(low=0.0, high=1.0, min_size=0, max_size=10, relation="add_remove")


def laplace_with_fallback(epsilon: float, leak: float) -> Mechanism:
    epsilon, leak = positive("epsilon", epsilon), positive("leak", leak)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        total = float(np.sum(dataset))
        noisy = total + rng.laplace(0.0, 1.0 / epsilon, size=num_samples)
        return np.where(rng.random(num_samples) < leak, total, noisy)

    return mechanism


def clamped_laplace(epsilon: float, top: float) -> Mechanism:
    epsilon, top = positive("epsilon", epsilon), positive("top", top)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return np.clip(
            float(np.sum(dataset)) + rng.laplace(0.0, 1.0 / epsilon, size=num_samples), 0.0, top
        )

    return mechanism


LaplaceWithFallback = CatalogueEntry(
    name="LaplaceWithFallback",
    family="point_masses",
    build=laplace_with_fallback,
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "leak": 1e-3},
    domain_spec=SUM_DOMAIN,
    truth_spec=Truth(
        False,
        math.inf,
        "the exact sum is released with probability `leak`, a point mass the neighbour lacks",
    ),
    witness_spec=DatasetPair(np.array([]), np.array([1.0])),
    description="ΣX + Lap(1/ε), or ΣX itself with probability leak",
)

ClampedLaplace = CatalogueEntry(
    name="ClampedLaplace",
    family="point_masses",
    build=clamped_laplace,
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "top": 3.0},
    domain_spec=SUM_DOMAIN,
    truth_spec=lambda epsilon, top: Truth(
        True,
        epsilon,
        "post-processing of Laplace; point masses at 0 and top on both sides (tight: ratio e^ε"
        " beyond both sums)",
    ),
    witness_spec=DatasetPair(np.array([]), np.array([1.0])),
    description="clip(ΣX + Lap(1/ε), 0, top)",
)

ENTRIES = [LaplaceWithFallback, ClampedLaplace]
