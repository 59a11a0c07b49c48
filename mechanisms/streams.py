"""Noisy prefix sums of a vector of k answers.

PrefixSum releases cumsum(x + Lap(1/ε)): ε-DP when one answer changes by 1, the relation its
author had in mind. Under the ℓ∞ relation every answer may move by 1, the noisy vector has ℓ1
sensitivity k, and the true ε is kε (tight: all answers up by 1).
"""

from __future__ import annotations

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth


def prefix_sum(epsilon: float, k: int) -> Mechanism:
    scale = 1.0 / positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return np.cumsum(
            np.asarray(dataset, dtype=float) + rng.laplace(0.0, scale, (num_samples, len(dataset))),
            axis=1,
        )

    return mechanism


PrefixSum = CatalogueEntry(
    name="PrefixSum",
    family="streams",
    build=prefix_sum,
    claim_type=PureDP,
    defaults={"epsilon": 0.5, "k": 5},
    domain_spec=lambda epsilon, k: Domain(
        low=0.0, high=2.0, min_size=k, max_size=k, relation="linf"
    ),
    truth_spec=lambda epsilon, k: Truth(
        False, k * epsilon, "ℓ1 sensitivity k under ℓ∞ neighbours; tight"
    ),
    witness_spec=lambda epsilon, k: DatasetPair(np.ones(k), np.full(k, 2.0)),
    description="cumsum(x + Lap(1/ε)), claimed for one-answer changes, audited under ℓ∞",
)

ENTRIES = (PrefixSum,)
