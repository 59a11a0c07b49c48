"""Noisy counts and sums: the tightness references for continuous and discrete outputs.

* Laplace: q(D) + Lap(1/ε) on a sum of records in [0, 1] (sensitivity 1 under add/remove) is
  ε-DP and tight: on D0 = [], D1 = [1] the privacy loss reaches ε on a whole half-line.
* TruncatedGeometric: a count plus two-sided geometric noise P(Z = z) ∝ e^{−ε|z|}, clamped to
  [0, n_max] (Ghosh, Roughgarden & Sundararajan 2009). ε-DP (clamping is post-processing) and
  tight at every interior output.
"""

from __future__ import annotations

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair, Domain
from ._checks import positive
from .entry import CatalogueEntry, Truth


def laplace_sum(epsilon: float):
    epsilon = positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return dataset.sum() + rng.laplace(0.0, 1.0 / epsilon, size=num_samples)

    return mechanism


Laplace = CatalogueEntry(
    name="Laplace",
    family="counting",
    build=laplace_sum,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=Domain(low=0.0, high=1.0, min_size=0, max_size=10, relation="add_remove"),
    truth_spec=lambda epsilon: Truth(True, epsilon, "Dwork et al. 2006; tight on the witness"),
    witness_spec=DatasetPair(np.array([]), np.array([1.0])),
    description="ΣX + Lap(1/ε), records in [0, 1]",
)

def truncated_geometric(epsilon: float, n_max: int):
    alpha = np.exp(-positive("epsilon", epsilon))

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noise = rng.geometric(1 - alpha, num_samples) - rng.geometric(1 - alpha, num_samples)
        return np.clip(int(dataset.sum()) + noise, 0, n_max)

    return mechanism


TruncatedGeometric = CatalogueEntry(
    name="TruncatedGeometric",
    family="counting",
    build=truncated_geometric,
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "n_max": 10},
    domain_spec=lambda epsilon, n_max: Domain(low=0, high=1, min_size=0, max_size=n_max, dtype="int"),
    truth_spec=lambda epsilon, n_max: Truth(True, epsilon, "Ghosh et al. 2009; tight at interior outputs"),
    witness_spec=DatasetPair(np.array([], dtype=np.int64), np.array([1], dtype=np.int64)),
    description="count of bits + two-sided geometric(e^-ε) noise, clamped to [0, n_max]",
)

ENTRIES = (Laplace, TruncatedGeometric)
