"""Local randomisers: randomized response and RAPPOR (one user's report; substitute relation).

* RandomizedResponse keeps the bit with probability e^ε/(1 + e^ε): ε-DP, tight.
* RandomizedResponseWrongEps keeps it with probability e^{2ε}/(1 + e^{2ε}): true ε is 2ε.
* OneTimeRAPPOR reports a Bloom filter of the value (h hash functions into m bits) after
  permanent randomized response with parameter f: ε = 2h ln((1 − f/2)/(f/2)) (Erlingsson,
  Pihur & Korolova 2014, Thm 1: substituting the value changes at most 2h bits).
* RAPPOR adds the instantaneous randomized response (p, q) on top: one report is
  ε = h ln(q*(1 − p*)/(p*(1 − q*))) with q* = ½f(p + q) + (1 − f)q, p* = ½f(p + q) + (1 − f)p.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth

BIT = Domain(low=0, high=1, min_size=1, max_size=1, relation="substitute", dtype="int")
BIT_WITNESS = DatasetPair(np.array([0]), np.array([1]))


def randomized_response(epsilon: float, factor: float = 1.0) -> Mechanism:
    keep = math.exp(factor * positive("epsilon", epsilon))
    keep = keep / (1 + keep)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        bit = int(dataset[0])
        return np.where(rng.random(num_samples) < keep, bit, 1 - bit)

    return mechanism


RandomizedResponse = CatalogueEntry(
    name="RandomizedResponse",
    family="local",
    build=randomized_response,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=BIT,
    truth_spec=lambda epsilon: Truth(True, epsilon, "Warner 1965; tight"),
    witness_spec=BIT_WITNESS,
    description="keep the bit with probability e^ε/(1 + e^ε)",
)

RandomizedResponseWrongEps = CatalogueEntry(
    name="RandomizedResponseWrongEps",
    family="local",
    build=lambda epsilon: randomized_response(epsilon, factor=2.0),
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=BIT,
    truth_spec=lambda epsilon: Truth(False, 2 * epsilon, "keeps with e^{2ε}/(1 + e^{2ε}); tight"),
    witness_spec=BIT_WITNESS,
    description="keep the bit with probability e^{2ε}/(1 + e^{2ε})",
)

# RAPPOR knobs (defaults): values 0..values-1, Bloom filter of m bits, h hash functions.
RAPPOR_DEFAULTS = {"f": 0.5, "p": 0.5, "q": 0.75, "h": 2, "m": 16, "values": 10}


def bloom_bits(values: int, m: int, h: int) -> np.ndarray:
    """A fixed table of h distinct bit positions per value (a deterministic stand-in for
    hashing)."""
    table = np.random.default_rng(20141103)
    return np.array([table.choice(m, size=h, replace=False) for _ in range(values)])


def rappor(
    f: float, p: float, q: float, h: int, m: int, values: int, instantaneous: bool
) -> Mechanism:
    positions = bloom_bits(values, m, h)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        bloom = np.zeros(m, dtype=bool)
        bloom[positions[int(dataset[0])]] = True
        draw = rng.random((num_samples, m))
        permanent = np.where(draw < f / 2, True, np.where(draw < f, False, bloom))
        if not instantaneous:
            return permanent.astype(np.int64)
        return (rng.random((num_samples, m)) < np.where(permanent, q, p)).astype(np.int64)

    return mechanism


def one_time_epsilon(f: float, h: int, **_: Any) -> float:
    return 2 * h * math.log((1 - f / 2) / (f / 2))


def rappor_epsilon(f: float, p: float, q: float, h: int, **_: Any) -> float:
    q_star = f / 2 * (p + q) + (1 - f) * q
    p_star = f / 2 * (p + q) + (1 - f) * p
    return h * math.log(q_star * (1 - p_star) / (p_star * (1 - q_star)))


def _rappor_domain(values: int, **_) -> Domain:
    return Domain(
        low=0, high=values - 1, min_size=1, max_size=1, relation="substitute", dtype="int"
    )


OneTimeRAPPOR = CatalogueEntry(
    name="OneTimeRAPPOR",
    family="local",
    build=lambda **knobs: rappor(**knobs, instantaneous=False),
    claim_type=PureDP,
    defaults=dict(RAPPOR_DEFAULTS),
    claim_spec=lambda **knobs: PureDP(one_time_epsilon(**knobs)),
    domain_spec=_rappor_domain,
    truth_spec=lambda **knobs: Truth(
        True, one_time_epsilon(**knobs), "Erlingsson et al. 2014, Thm 1"
    ),
    witness_spec=DatasetPair(np.array([0]), np.array([1])),
    description="Bloom filter + permanent randomized response (f)",
)

RAPPOR = CatalogueEntry(
    name="RAPPOR",
    family="local",
    build=lambda **knobs: rappor(**knobs, instantaneous=True),
    claim_type=PureDP,
    defaults=dict(RAPPOR_DEFAULTS),
    claim_spec=lambda **knobs: PureDP(rappor_epsilon(**knobs)),
    domain_spec=_rappor_domain,
    truth_spec=lambda **knobs: Truth(
        True, rappor_epsilon(**knobs), "Erlingsson et al. 2014, one report"
    ),
    witness_spec=DatasetPair(np.array([0]), np.array([1])),
    description="Bloom filter + permanent (f) and instantaneous (p, q) randomized response",
)

ENTRIES = (RandomizedResponse, RandomizedResponseWrongEps, OneTimeRAPPOR, RAPPOR)
