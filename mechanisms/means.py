"""Private means of records in [0, 1] (DP-Auditorium §6.1, its mean presets).

With ñ = max(1e−12, n + Lap(2/ε)):

* DPLaplaceMean      ΣX/ñ + Lap(2/(ñε))  — ε-DP: ñ·output = ΣX + Lap(2/ε), so the output is
  post-processing of (ñ, ΣX + Lap(2/ε)), two ε/2-DP releases of sensitivity-1 queries.
* NonDPLaplaceMean1  ΣX/n + Lap(2/(nε))  — the true n sets the noise scale, so neighbours of
  different sizes have Laplace outputs of different scales: the privacy loss grows without
  bound in the tails (no finite ε).
* NonDPLaplaceMean2  ΣX/n + Lap(2/(ñε))  — noisy n in the scale but the true n in the mean;
  the privacy loss is finite but exceeds ε: ≈ 1.22 for claimed ε = 1 on the witness pair
  ([1, 0], [1]) by numerical integration over ñ.
"""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair, Domain
from mechanisms._checks import positive
from mechanisms.entry import CatalogueEntry, Truth

MEAN_DOMAIN = Domain(low=0.0, high=1.0, min_size=1, max_size=10, relation="add_remove")


def _noisy_count(n: int, epsilon: float, num_samples: int, rng: np.random.Generator) -> np.ndarray:
    return np.maximum(1e-12, n + rng.laplace(0.0, 2.0 / epsilon, size=num_samples))


def dp_laplace_mean(epsilon: float):
    epsilon = positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noisy_n = _noisy_count(len(dataset), epsilon, num_samples, rng)
        return dataset.sum() / noisy_n + rng.laplace(0.0, 1.0, size=num_samples) * 2.0 / (noisy_n * epsilon)

    return mechanism


def non_dp_laplace_mean1(epsilon: float):
    epsilon = positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        n = len(dataset)
        return dataset.sum() / n + rng.laplace(0.0, 2.0 / (n * epsilon), size=num_samples)

    return mechanism


def non_dp_laplace_mean2(epsilon: float):
    epsilon = positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noisy_n = _noisy_count(len(dataset), epsilon, num_samples, rng)
        return dataset.sum() / len(dataset) + rng.laplace(0.0, 1.0, size=num_samples) * 2.0 / (noisy_n * epsilon)

    return mechanism


DPLaplaceMean = CatalogueEntry(
    name="DPLaplaceMean",
    family="means",
    build=dp_laplace_mean,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=MEAN_DOMAIN,
    truth_spec=Truth(True, note="post-processing of two ε/2-DP Laplace releases"),
    description="ΣX/ñ + Lap(2/(ñε)), ñ = max(1e-12, n + Lap(2/ε)) (DP-Auditorium §6.1)",
)

NonDPLaplaceMean1 = CatalogueEntry(
    name="NonDPLaplaceMean1",
    family="means",
    build=non_dp_laplace_mean1,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=MEAN_DOMAIN,
    truth_spec=Truth(False, math.inf, "noise scale 2/(nε) reveals n: unbounded privacy loss in the tails"),
    witness_spec=DatasetPair(np.array([1.0]), np.array([1.0, 0.0])),
    description="ΣX/n + Lap(2/(nε)) (DP-Auditorium §6.1)",
)

NonDPLaplaceMean2 = CatalogueEntry(
    name="NonDPLaplaceMean2",
    family="means",
    build=non_dp_laplace_mean2,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=MEAN_DOMAIN,
    truth_spec=Truth(False, None, "mean uses the true n; privacy loss ≈ 1.22 at ε = 1 on the witness"),
    witness_spec=DatasetPair(np.array([1.0, 0.0]), np.array([1.0])),
    description="ΣX/n + Lap(2/(ñε)), ñ = max(1e-12, n + Lap(2/ε)) (DP-Auditorium §6.1)",
)

ENTRIES = (DPLaplaceMean, NonDPLaplaceMean1, NonDPLaplaceMean2)
