"""Vector releases whose privacy rests on one coordinate's tails.

Each release is `dim` coordinates of ΣX + Lap(dim/ε) (ℓ1 sensitivity `dim` under add/remove of
one record in [0, 1]: ε-DP), changed in one way:

* TruncatedCoordinateLaplace  coordinate 0's noise is truncated to ±`cut`·dim/ε around the true
  sum (drawn from the Laplace conditioned on that window). Its support moves with the data:
  outputs just beyond one sum's window have probability 0 under that dataset and positive under
  a neighbour's, so no finite ε. The violating event lives in one marginal's tail, which a score
  fitted on all coordinates at once blurs.
* ClampedLaplaceVector        every coordinate clipped to [0, `top`]: post-processing of the
  Laplace release, ε-DP, with point masses at 0 and `top` in every coordinate on both sides; the
  ratio e^ε is reached where every coordinate lies beyond both sums (tight).
"""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.mechanism import Mechanism
from dpfuzz.validation import check_int

from ._checks import positive
from .entry import CatalogueEntry, Truth
from .point_masses import SUM_DOMAIN


def truncated_laplace_noise(
    scale: float, cut: float, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Lap(scale) conditioned on |noise| ≤ cut·scale, by inverting its CDF on the window."""
    tail = 0.5 * math.exp(-cut)  # mass of Lap(scale) below −cut·scale (and above +cut·scale)
    u = tail + rng.random(size) * (1.0 - 2.0 * tail)
    return np.where(u < 0.5, scale * np.log(2.0 * u), -scale * np.log(2.0 * (1.0 - u)))


def truncated_coordinate_laplace(epsilon: float, dim: int, cut: float) -> Mechanism:
    epsilon, cut = positive("epsilon", epsilon), positive("cut", cut)
    dim = check_int("dim", dim, minimum=1)
    scale = dim / epsilon

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        total = float(np.sum(dataset))
        outputs = total + rng.laplace(0.0, scale, size=(num_samples, dim))
        outputs[:, 0] = total + truncated_laplace_noise(scale, cut, num_samples, rng)
        return outputs

    return mechanism


def clamped_laplace_vector(epsilon: float, dim: int, top: float) -> Mechanism:
    epsilon, top = positive("epsilon", epsilon), positive("top", top)
    dim = check_int("dim", dim, minimum=1)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noisy = float(np.sum(dataset)) + rng.laplace(0.0, dim / epsilon, size=(num_samples, dim))
        return np.clip(noisy, 0.0, top)

    return mechanism


TruncatedCoordinateLaplace = CatalogueEntry(
    name="TruncatedCoordinateLaplace",
    family="vector_marginals",
    build=truncated_coordinate_laplace,
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "dim": 3, "cut": 3.0},
    domain_spec=SUM_DOMAIN,
    truth_spec=Truth(
        False,
        math.inf,
        "coordinate 0's noise window moves with the sum: outputs beyond one window the neighbour"
        " lacks",
    ),
    witness_spec=DatasetPair(np.array([]), np.array([1.0])),
    description="dim coordinates of ΣX + Lap(dim/ε), coordinate 0's noise truncated to ±cut·dim/ε",
)

ClampedLaplaceVector = CatalogueEntry(
    name="ClampedLaplaceVector",
    family="vector_marginals",
    build=clamped_laplace_vector,
    claim_type=PureDP,
    defaults={"epsilon": 1.0, "dim": 3, "top": 3.0},
    domain_spec=SUM_DOMAIN,
    truth_spec=lambda epsilon, dim, top: Truth(
        True,
        epsilon,
        "post-processing of the Laplace vector; point masses at 0 and top on both sides (tight)",
    ),
    witness_spec=DatasetPair(np.array([]), np.array([1.0])),
    description="dim coordinates of clip(ΣX + Lap(dim/ε), 0, top)",
)

ENTRIES = [TruncatedCoordinateLaplace, ClampedLaplaceVector]
