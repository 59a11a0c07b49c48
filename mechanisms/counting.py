"""Noisy counts and sums: the tightness references for continuous and discrete outputs.

* Laplace: q(D) + Lap(1/ε) on a sum of records in [0, 1] (sensitivity 1 under add/remove) is
  ε-DP and tight: on D0 = [], D1 = [1] the privacy loss reaches ε on a whole half-line.
* TruncatedGeometric: a count plus two-sided geometric noise P(Z = z) ∝ e^{−ε|z|}, clamped to
  [0, n_max] (Ghosh, Roughgarden & Sundararajan 2009). ε-DP (clamping is post-processing) and
  tight at every interior output.
* GeoSample: Balcer & Vadhan's exact-arithmetic truncated geometric sampler (2018, Alg. 4.8) with
  DP-Sniper's parameters (n = 5, k = ⌈ln(2/ε)⌉). Its ε is ln(1 + 2^−k) (their Thm 4.7; computed
  exactly from the output distribution here): at ε = 0.1, k = 3 and the true ε is 0.1178, so
  with the natural log in k DP-Sniper's "TruncatedGeometric" misses its claim of 0.1 (k from
  log₂ would give k = 5 and ε = 0.031).
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


def laplace_sum(epsilon: float) -> Mechanism:
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


def truncated_geometric(epsilon: float, n_max: int) -> Mechanism:
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
    domain_spec=lambda epsilon, n_max: Domain(
        low=0, high=1, min_size=0, max_size=n_max, dtype="int"
    ),
    truth_spec=lambda epsilon, n_max: Truth(
        True, epsilon, "Ghosh et al. 2009; tight at interior outputs"
    ),
    witness_spec=DatasetPair(np.array([], dtype=np.int64), np.array([1], dtype=np.int64)),
    description="count of bits + two-sided geometric(e^-ε) noise, clamped to [0, n_max]",
)


def geo_sample_cdf(epsilon: float, n: int, count: int) -> np.ndarray:
    """F(z) for z = 0..n of Balcer & Vadhan's GeoSample (2018, Alg. 4.8, Step 2), integers out of
    d = (2^{k+1} + 1)(2^k + 1)^{n−1}, with k = ⌈ln(2/ε)⌉ as DP-Sniper implements it."""
    k = math.ceil(math.log(2.0 / positive("epsilon", epsilon)))
    d = (2 ** (k + 1) + 1) * (2**k + 1) ** (n - 1)
    below = [2 ** (k * (count - z)) * (2**k + 1) ** (n - (count - z)) for z in range(count)]
    above = [
        d - 2 ** (k * (z - count + 1)) * (2**k + 1) ** (n - 1 - (z - count))
        for z in range(count, n)
    ]
    return np.array(below + above + [d], dtype=np.int64)


def geo_sample(epsilon: float, n: int) -> Mechanism:
    cdfs = [geo_sample_cdf(epsilon, n, count) for count in range(n + 1)]

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        cdf = cdfs[int(np.clip(dataset.sum(), 0, n))]
        return np.searchsorted(cdf, rng.integers(1, cdf[-1] + 1, num_samples), side="left")

    return mechanism


def geo_sample_epsilon(epsilon: float, n: int) -> float:
    """The exact ε of GeoSample: the largest log ratio of output probabilities for counts c, c +
    1."""
    pmfs = [np.diff(geo_sample_cdf(epsilon, n, count), prepend=0) for count in range(n + 1)]
    return max(float(np.max(np.abs(np.log(pmfs[c] / pmfs[c + 1])))) for c in range(n))


GeoSample = CatalogueEntry(
    name="GeoSample",
    family="counting",
    build=geo_sample,
    claim_type=PureDP,
    defaults={"epsilon": 0.1, "n": 5},
    domain_spec=lambda epsilon, n: Domain(low=0, high=1, min_size=0, max_size=n, dtype="int"),
    truth_spec=lambda epsilon, n: Truth(
        geo_sample_epsilon(epsilon, n) <= epsilon + 1e-12,
        geo_sample_epsilon(epsilon, n),
        "exact, from the output distribution; Balcer & Vadhan Thm 4.7: ln(1 + 2^-k)",
    ),
    witness_spec=DatasetPair(np.array([], dtype=np.int64), np.array([1], dtype=np.int64)),
    description=(
        "Balcer & Vadhan's GeoSample, k = ⌈ln(2/ε)⌉ (DP-Sniper's TruncatedGeometric), count of n ≤"
        " 5 bits"
    ),
)

ENTRIES = (Laplace, TruncatedGeometric, GeoSample)
