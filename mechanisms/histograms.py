"""Noisy histograms: Laplace noise on every bin count (records are bin indices).

Under add/remove one record changes one count by 1 (ℓ1 sensitivity 1), so Lap(b) per bin is
(1/b)-DP and no better (the witness [0] vs [] is tight):

* NoisyHistogram            b = 1/ε — ε-DP.
* NoisyHistogramWrongScale  b = ε   — true ε' = 1/ε, a violation whenever ε < 1
  (10 for the default claim ε = 0.1; DP-Sniper's NoisyHist2).
"""

from __future__ import annotations

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth


def noisy_histogram(epsilon: float, bins: int, scale: float) -> Mechanism:
    if int(bins) != bins or bins < 1:
        raise InvalidArgument(f"bins must be a positive int, got {bins!r}.")
    bins, scale = int(bins), positive("noise scale", scale)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.bincount(dataset.astype(np.int64), minlength=bins)[:bins]
        return counts + rng.laplace(0.0, scale, size=(num_samples, bins))

    return mechanism


def histogram_domain(epsilon: float, bins: int) -> Domain:
    return Domain(low=0, high=bins - 1, min_size=0, max_size=10, relation="add_remove", dtype="int")


_WITNESS = DatasetPair(np.array([0], dtype=np.int64), np.array([], dtype=np.int64))

NoisyHistogram = CatalogueEntry(
    name="NoisyHistogram",
    family="histograms",
    build=lambda epsilon, bins: noisy_histogram(epsilon, bins, 1.0 / positive("epsilon", epsilon)),
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "bins": 5},
    domain_spec=histogram_domain,
    truth_spec=lambda epsilon, bins: Truth(True, epsilon, "Lap(1/ε) per bin, ℓ1 sensitivity 1"),
    witness_spec=_WITNESS,
    description="bin counts + Lap(1/ε) per bin",
)

NoisyHistogramWrongScale = CatalogueEntry(
    name="NoisyHistogramWrongScale",
    family="histograms",
    build=lambda epsilon, bins: noisy_histogram(epsilon, bins, epsilon),
    claim_type=PureDP,
    defaults={"epsilon": 0.1, "bins": 5},
    domain_spec=histogram_domain,
    truth_spec=lambda epsilon, bins: Truth(
        epsilon >= 1.0, 1.0 / epsilon, "Lap(ε) per bin is (1/ε)-DP"
    ),
    witness_spec=_WITNESS,
    description="bin counts + Lap(ε) per bin (noise scale inverted)",
)

ENTRIES = (NoisyHistogram, NoisyHistogramWrongScale)
