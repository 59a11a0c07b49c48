"""The Laplace mechanism on a sum of records in [0, 1] (sensitivity 1 under add/remove).

q(D) + Lap(1/ε) is ε-DP and tight: on D0 = [], D1 = [1] the privacy loss reaches ε on a
whole half-line, so a good tester's ε lower bound approaches ε (the tightness reference).
"""

from __future__ import annotations

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair, Domain
from mechanisms._checks import positive
from mechanisms.entry import CatalogueEntry, Truth


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

ENTRIES = (Laplace,)
