"""Errors as outcomes: a release that raises for some datasets leaks through the error.

* RaisingBoundedSum: ΣX + Lap(b/ε) for records declared in [0, b], which raises ValueError when a
  record exceeds b. A dataset with such a record is always refused, its neighbour without it never:
  the exception is an output one side gives with probability 1 and the other never (no finite ε).
* ClampingBoundedSum: the same release clamping records to [0, b] instead: ε-DP, tight.

Both are audited with ``per_call(..., errors="outcome")`` (`dpfuzz.error_outcomes`): the error is
an output coordinate.
"""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism, per_call

from ._checks import positive
from .entry import CatalogueEntry, Truth


def _refuse_out_of_range(dataset: np.ndarray, bound: float) -> None:
    if dataset.size and float(np.max(dataset)) > bound:
        raise ValueError(f"a record exceeds the declared bound {bound:g}")


def bounded_sum(epsilon: float, bound: float, clamp: bool) -> Mechanism:
    """ΣX + Lap(bound/ε) over records clamped to [0, bound] (`clamp`), or refused above it."""
    scale = positive("bound", bound) / positive("epsilon", epsilon)

    def prepared(dataset: np.ndarray) -> np.ndarray:
        if clamp:
            return np.clip(dataset, 0.0, bound)
        _refuse_out_of_range(dataset, bound)
        return dataset

    def release(dataset: np.ndarray, rng: np.random.Generator) -> float:
        return float(prepared(dataset).sum() + rng.laplace(0.0, scale))

    def batch(dataset: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        return prepared(dataset).sum() + rng.laplace(0.0, scale, size=count)

    return per_call(release, batch=batch, errors="outcome")


DOMAIN = Domain(low=0.0, high=2.0, min_size=0, max_size=10, relation="add_remove")
WITNESS = DatasetPair(np.array([]), np.array([2.0]))

RaisingBoundedSum = CatalogueEntry(
    name="RaisingBoundedSum",
    family="errors",
    build=lambda epsilon, bound: bounded_sum(epsilon, bound, clamp=False),
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "bound": 1.0},
    domain_spec=DOMAIN,
    truth_spec=lambda epsilon, bound: Truth(
        False, math.inf, "raises exactly when a record exceeds the bound: no finite ε"
    ),
    witness_spec=WITNESS,
    description="ΣX + Lap(b/ε) that raises ValueError for a record above b, errors as outcomes",
)

ClampingBoundedSum = CatalogueEntry(
    name="ClampingBoundedSum",
    family="errors",
    build=lambda epsilon, bound: bounded_sum(epsilon, bound, clamp=True),
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "bound": 1.0},
    domain_spec=DOMAIN,
    truth_spec=lambda epsilon, bound: Truth(
        True, epsilon, "clamped to [0, b], sensitivity b: Dwork et al. 2006; tight on the witness"
    ),
    witness_spec=WITNESS,
    description="ΣX + Lap(b/ε) over records clamped to [0, b], errors as outcomes",
)

ENTRIES = (RaisingBoundedSum, ClampingBoundedSum)
