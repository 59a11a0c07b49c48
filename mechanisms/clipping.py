"""Clipped sums of points in the plane with Gaussian noise: DP-SGD's aggregation without a model.

Records are points of [−1, 1]²; the release is a clipped sum plus N(0, (σC)²) in each coordinate,
under add/remove of one record. Its claim is the Gaussian mechanism's (ε, δ) at sensitivity C:
(1/σ)-GDP at `delta` (Dong, Roth & Su 2022, Corollary 2.13).

* ClippedRecordsSum  clips each record to ℓ2 norm C, then sums: sensitivity C, so the claim is
  exact (tight).
* ClippedTotalSum    sums, then clips the total to norm C (the mean of a microbatch clipped as
  one gradient; TF Privacy's microbatches told no microbatching), accounted as if each record
  were clipped. Both totals have norm ≤ C, so one record moves the release by up to 2C, reached
  where it turns the total around: (½, ½) with (−1, −1) added. (2/σ)-GDP, tight. Pairs of
  extreme records move it by at most C: equal extremes cancel, and a total past C stays clipped
  to the same direction.
"""

from __future__ import annotations

import numpy as np

from dpfuzz.claims import ApproxDP, GaussianDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth

CLIP = 0.1


def clip_rows(points: np.ndarray, bound: float) -> np.ndarray:
    """Each row scaled down to ℓ2 norm at most `bound`."""
    norms = np.linalg.norm(points, axis=-1, keepdims=True)
    return points * np.minimum(1.0, bound / np.maximum(norms, 1e-300))


def clipped_sum(sigma: float, per_record: bool) -> Mechanism:
    noise = positive("sigma", sigma) * CLIP

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        records = np.asarray(dataset, dtype=float).reshape(-1, 2)
        if per_record:
            total = clip_rows(records, CLIP).sum(axis=0)
        else:
            total = clip_rows(records.sum(axis=0), CLIP)
        return total + rng.normal(0.0, noise, size=(num_samples, 2))

    return mechanism


def _claim(sigma: float, delta: float) -> ApproxDP:
    return ApproxDP(GaussianDP(1.0 / positive("sigma", sigma)).epsilon_at(delta), delta)


_DEFAULTS = {"sigma": 1.0, "delta": 1e-3}
_DOMAIN = Domain(low=-1.0, high=1.0, dim=2, min_size=0, max_size=4)
_TURN_AROUND = DatasetPair(np.array([[0.5, 0.5]]), np.array([[0.5, 0.5], [-1.0, -1.0]]))

ClippedRecordsSum = CatalogueEntry(
    name="ClippedRecordsSum",
    family="clipping",
    build=lambda sigma, delta: clipped_sum(sigma, per_record=True),
    claim_type=ApproxDP,
    defaults=dict(_DEFAULTS),
    claim_spec=_claim,
    domain_spec=_DOMAIN,
    truth_spec=lambda sigma, delta: Truth(
        True, _claim(sigma, delta).epsilon, "Gaussian mechanism, sensitivity C: tight"
    ),
    witness_spec=DatasetPair(np.empty((0, 2)), np.array([[1.0, 1.0]])),
    description="records clipped to norm C, summed, noise N(0, (σC)²) per coordinate",
)

ClippedTotalSum = CatalogueEntry(
    name="ClippedTotalSum",
    family="clipping",
    build=lambda sigma, delta: clipped_sum(sigma, per_record=False),
    claim_type=ApproxDP,
    defaults=dict(_DEFAULTS),
    claim_spec=_claim,
    domain_spec=_DOMAIN,
    truth_spec=lambda sigma, delta: Truth(
        False,
        GaussianDP(2.0 / positive("sigma", sigma)).epsilon_at(delta),
        "the clipped total turns around: sensitivity 2C, tight",
    ),
    witness_spec=_TURN_AROUND,
    description="the sum clipped to norm C, accounted as records clipped to C",
)

ENTRIES = (ClippedRecordsSum, ClippedTotalSum)
