"""Report noisy max over k query answers with the ℓ∞ relation (StatDP, DP-Sniper, DP-Auditorium).

Noise of scale 2/ε (Δ = 1):
* NoisyMaxLaplace, NoisyMaxExponential, NoisyMaxGumbel return the *index* of the largest noisy
  answer: ε-DP (Dwork & Roth Claim 3.9; Ding et al. 2021 for exponential noise; Gumbel noise
  is the exponential mechanism with weights e^{εq/2}).
* NoisyMaxValueLaplace / NoisyMaxValueExponential return the largest noisy *value*: not ε-DP.
  The maximum's density Σ_i f(x − a_i) Π_{j≠i} F(x − a_j) is a sum of products of k Laplace
  densities and CDFs of scale 2/ε, each of which moves by at most e^{ε/2} when its answer moves
  by 1, so the true ε is at most kε/2; with all answers moving down by 1 the lower tail, where
  the density is ∝ e^{kεx/2}, attains it (here k = 5: 2.5ε, tight; one answer up and the rest
  down, the witness, gives (k − 2)ε/2). With exponential noise the maximum is at least the
  largest answer, so moving every answer up makes outputs below it impossible: no finite ε.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth

QUERIES = 5

_NOISE = {
    "laplace": lambda rng, scale, shape: rng.laplace(0.0, scale, shape),
    "exponential": lambda rng, scale, shape: rng.exponential(scale, shape),
    "gumbel": lambda rng, scale, shape: rng.gumbel(0.0, scale, shape),
}


def noisy_max(noise: str, output: str, epsilon: float) -> Mechanism:
    scale = 2.0 / positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noisy = np.asarray(dataset, dtype=float) + _NOISE[noise](
            rng, scale, (num_samples, len(dataset))
        )
        return noisy.argmax(axis=1) if output == "index" else noisy.max(axis=1)

    return mechanism


DOMAIN = Domain(low=0.0, high=2.0, min_size=QUERIES, max_size=QUERIES, relation="linf")
# One answer up, the rest down (StatDP's first pattern).
WITNESS = DatasetPair(np.ones(QUERIES), np.r_[2.0, np.zeros(QUERIES - 1)])


def _truth(noise: str, satisfies: bool, note: str, epsilon: float) -> Truth:
    if satisfies:
        return Truth(True, epsilon, note)
    return Truth(False, QUERIES * epsilon / 2 if noise == "laplace" else math.inf, note)


def _entry(name: str, noise: str, output: str, satisfies: bool, note: str) -> CatalogueEntry:
    return CatalogueEntry(
        name=name,
        family="noisy_max",
        build=partial(noisy_max, noise, output),
        claim_type=PureDP,
        defaults={"epsilon": 1.0},
        domain_spec=DOMAIN,
        truth_spec=partial(_truth, noise, satisfies, note),
        witness_spec=WITNESS,
        description=f"{output} of the largest answer + {noise} noise of scale 2/ε",
    )


NoisyMaxLaplace = _entry("NoisyMaxLaplace", "laplace", "index", True, "Dwork & Roth Claim 3.9")
NoisyMaxExponential = _entry(
    "NoisyMaxExponential", "exponential", "index", True, "Ding et al. 2021"
)
NoisyMaxGumbel = _entry(
    "NoisyMaxGumbel", "gumbel", "index", True, "exponential mechanism with e^{εq/2}"
)
NoisyMaxValueLaplace = _entry(
    "NoisyMaxValueLaplace",
    "laplace",
    "value",
    False,
    "releases the maximum; tight: true ε = kε/2 (lower tail)",
)
NoisyMaxValueExponential = _entry(
    "NoisyMaxValueExponential",
    "exponential",
    "value",
    False,
    "releases the maximum of exponential noise, at least the largest answer: no finite ε",
)

ENTRIES = (
    NoisyMaxLaplace,
    NoisyMaxExponential,
    NoisyMaxGumbel,
    NoisyMaxValueLaplace,
    NoisyMaxValueExponential,
)
