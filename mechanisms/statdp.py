"""StatDP's incorrect sparse vector variants iSVT1–4 (Ding et al., CCS 2018, Algorithms 2–5 as in
cmla-psu/statdp ``statdp/algorithms.py`` and its benchmark: N = 1, T = 1, claimed ε = 0.7).

They are SVT variants of `svt` with StatDP's own post-processing of the output, which is what
StatDP tests and what makes these configurations differ from DP-Sniper's:
* iSVT1 (= SVT5: no query noise, no cutoff) and iSVT2 (= SVT6 with ν ~ Lap(2/ε), no cutoff),
  iSVT3 (= SVT4: ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε)), cutoff N) release the Hamming distance between
  the answer vector and the pattern "first half ⊤, second half ⊥" (positions not answered after
  the cutoff count as mismatches, as ``zip_longest`` makes them);
* iSVT4 (= SVT3 with ν ~ Lap(2N/ε)) releases (number of ⊥ answers, the last answer): the noisy
  query value if it stopped at a ⊤, else 0 (StatDP's ``False``).
Post-processing cannot raise ε, so the truths are those of the underlying variant (see `svt`):
iSVT1 and iSVT4 have no finite ε (for iSVT1 with all answers equal, the distance is always k/2,
while moving half of them up and half down makes distance 0 possible); iSVT3 is at most
(1 + 6N)ε/4-DP; iSVT2's loss grows with the number of ⊤ answers. All four violate ε = 0.7 for the
10 queries here (StatDP's counterexamples).
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
from .svt import QUERIES, sparse_vector

N, T = 1, 1.0
EXPECTED = np.arange(QUERIES) < QUERIES // 2  # StatDP's pattern: first half ⊤


def _noise(name: str, epsilon: float) -> dict:
    epsilon = positive("epsilon", epsilon)
    variants: dict[str, dict[str, Any]] = {
        "iSVT1": dict(rho_scale=2 / epsilon, nu_scale=None, cutoff=None),
        "iSVT2": dict(rho_scale=2 / epsilon, nu_scale=2 / epsilon, cutoff=None),
        "iSVT3": dict(rho_scale=4 / epsilon, nu_scale=4 / (3 * epsilon), cutoff=N),
        "iSVT4": dict(rho_scale=2 / epsilon, nu_scale=2 * N / epsilon, cutoff=N, release="noisy"),
    }
    return variants[name]


def build(name: str, epsilon: float) -> Mechanism:
    settings = _noise(name, epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        outputs = sparse_vector(
            np.asarray(dataset, dtype=float), num_samples, rng, threshold=T, **settings
        )
        codes = outputs[:, :QUERIES]
        if name != "iSVT4":  # codes are 1 (⊤), 0 (⊥), −1 (not answered): −1 never matches
            return (codes != EXPECTED).sum(axis=1)
        falses = (codes == 0).sum(axis=1)
        last_value = outputs[:, QUERIES:].sum(axis=1)  # the one released value (N = 1), or 0
        return np.column_stack([falses, last_value])

    return mechanism


DOMAIN = Domain(low=0.0, high=2.0, min_size=QUERIES, max_size=QUERIES, relation="linf")
# StatDP's ALL_DIFFER pattern family: answers at T, then half up and half down.
WITNESS = DatasetPair(np.ones(QUERIES), np.where(EXPECTED, 2.0, 0.0))


def _entry(name: str, truth, description: str) -> CatalogueEntry:
    return CatalogueEntry(
        name=name,
        family="statdp",
        build=lambda epsilon: build(name, epsilon),
        claim_type=PureDP,
        defaults={"epsilon": 0.7},
        domain_spec=DOMAIN,
        truth_spec=truth,
        witness_spec=WITNESS,
        description=description,
    )


iSVT1 = _entry(
    "iSVT1",
    lambda epsilon: Truth(False, math.inf, "SVT5 post-processed: no query noise"),
    "StatDP: ρ ~ Lap(2/ε), no query noise, no cutoff; releases the Hamming distance to ⊤^5⊥^5",
)
iSVT2 = _entry(
    "iSVT2",
    lambda epsilon: Truth(
        False, None, "SVT6 post-processed: no cutoff, query noise not scaled with N"
    ),
    "StatDP: ρ ~ Lap(2/ε), ν ~ Lap(2/ε), no cutoff; releases the Hamming distance to ⊤^5⊥^5",
)
iSVT3 = _entry(
    "iSVT3",
    lambda epsilon: Truth(
        False, (1 + 6 * N) * epsilon / 4, "SVT4 post-processed: proven upper bound (1 + 6N)ε/4"
    ),
    "StatDP: ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε)), cutoff N = 1; releases the Hamming distance to ⊤^5⊥^5",
)
iSVT4 = _entry(
    "iSVT4",
    lambda epsilon: Truth(
        False, math.inf, "SVT3 post-processed: releases the compared noisy value"
    ),
    "StatDP: ρ ~ Lap(2/ε), ν ~ Lap(2N/ε), cutoff N = 1; releases (number of ⊥, the noisy value"
    " at ⊤)",
)

ENTRIES = (iSVT1, iSVT2, iSVT3, iSVT4)
