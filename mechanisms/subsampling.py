"""Subsampled Gaussian sums of records in [0, 1], T steps, claims from dp-accounting.

* PoissonSubsampledGaussian: each record joins each step's batch independently with
  probability q; the step releases the batch sum + N(0, σ²). Claim: RDP of
  PoissonSampledDpEvent(q, GaussianDpEvent(σ)) composed T times (RDP accountant, add/remove).
* ShuffledBatchAsPoisson: batches of a fixed size b drawn without replacement, with the Poisson
  claim. Under add/remove, fixed-size sampling is not Poisson sampling (Schuchardt et al., "Group
  privacy amplification and unified amplification by subsampling for Rényi DP", §3.2): a dataset
  with at most b records is always sampled whole, so on the witness ([] vs [1]) every step is an
  unsubsampled Gaussian and the true RDP is Tα/(2σ²) — tight.
* GroupSubsampledGaussian(k): each record stands for a group of k identical records, each
  Poisson-sampled on its own, so add/remove of one record audits groups of k. The claim is the
  generic group-privacy bound (Mironov 2017, Prop. 2): for k = 2^c, (2^c α, ε)-RDP per record
  gives (α, 3^c ε)-RDP per group — valid but loose; Schuchardt et al.'s amplification is tighter.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpfuzz.claims import RenyiDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .accounting import poisson_gaussian_steps, renyi_claim
from .entry import CatalogueEntry, Truth

DOMAIN = Domain(low=0.0, high=1.0, min_size=0, max_size=8)
WITNESS = DatasetPair(np.array([]), np.array([1.0]))


def poisson_claim(q: float, sigma: float, steps: int, alpha: float, **_: Any) -> RenyiDP:
    return renyi_claim(poisson_gaussian_steps(q, positive("sigma", sigma), steps), alpha)


def poisson_subsampled_gaussian(
    q: float, sigma: float, steps: int, alpha: float, group: int = 1
) -> Mechanism:
    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        records = np.asarray(dataset, dtype=float)
        copies = rng.binomial(group, q, size=(num_samples, steps, len(records)))
        return (copies * records).sum(axis=2) + rng.normal(0.0, sigma, (num_samples, steps))

    return mechanism


def shuffled_batches(q: float, sigma: float, steps: int, alpha: float, batch: int) -> Mechanism:
    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        records = np.asarray(dataset, dtype=float)
        size = min(batch, len(records))
        order = rng.random((num_samples, steps, len(records))).argsort(axis=2)[:, :, :size]
        return records[order].sum(axis=2) + rng.normal(0.0, sigma, (num_samples, steps))

    return mechanism


_DEFAULTS = {"q": 0.25, "sigma": 1.0, "steps": 4, "alpha": 2.0}

PoissonSubsampledGaussian = CatalogueEntry(
    name="PoissonSubsampledGaussian",
    family="subsampling",
    build=poisson_subsampled_gaussian,
    claim_type=RenyiDP,
    defaults=dict(_DEFAULTS),
    claim_spec=poisson_claim,
    domain_spec=DOMAIN,
    truth_spec=Truth(True, note="dp-accounting RDP of the Poisson-subsampled Gaussian"),
    witness_spec=WITNESS,
    description="T steps: Poisson(q) batch sum + N(0, σ²)",
)

ShuffledBatchAsPoisson = CatalogueEntry(
    name="ShuffledBatchAsPoisson",
    family="subsampling",
    build=shuffled_batches,
    claim_type=RenyiDP,
    defaults={**_DEFAULTS, "batch": 2},
    claim_spec=poisson_claim,
    domain_spec=DOMAIN,
    truth_spec=lambda q, sigma, steps, alpha, batch: Truth(
        False,
        steps * alpha / (2 * sigma**2),
        "small datasets are sampled whole: tight on the witness",
    ),
    witness_spec=WITNESS,
    description="T steps: fixed-size batch (without replacement) sum + N(0, σ²), Poisson claim",
)


def _group_claim(q: float, sigma: float, steps: int, alpha: float, k: int) -> RenyiDP:
    doublings = math.log2(k)
    if k < 1 or doublings != int(doublings):
        raise InvalidArgument(f"group size k must be a power of 2, got {k!r}.")
    single = poisson_claim(q, sigma, steps, alpha * k)
    return RenyiDP(alpha, 3 ** int(doublings) * single.epsilon)


GroupSubsampledGaussian = CatalogueEntry(
    name="GroupSubsampledGaussian",
    family="subsampling",
    build=lambda q, sigma, steps, alpha, k: poisson_subsampled_gaussian(
        q, sigma, steps, alpha, group=k
    ),
    claim_type=RenyiDP,
    defaults={**_DEFAULTS, "k": 2},
    claim_spec=_group_claim,
    domain_spec=DOMAIN,
    truth_spec=Truth(
        True, note="generic group privacy (Mironov Prop. 2); Schuchardt et al.'s bound is tighter"
    ),
    witness_spec=WITNESS,
    description="Poisson-subsampled Gaussian; one record = a group of k records",
)

ENTRIES = (PoissonSubsampledGaussian, ShuffledBatchAsPoisson, GroupSubsampledGaussian)
