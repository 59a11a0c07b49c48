"""Private means of records in [0, 1] (DP-Auditorium §6.1, its mean presets).

With ñ = max(1e−12, n + Lap(2/ε)):

* DPLaplaceMean      ΣX/ñ + Lap(2/(ñε))  — ε-DP: ñ·output = ΣX + Lap(2/ε), so the output is
  post-processing of (ñ, ΣX + Lap(2/ε)), two ε/2-DP releases of sensitivity-1 queries.
* NonDPLaplaceMean1  ΣX/n + Lap(2/(nε))  — the true n sets the noise scale, so neighbours of
  different sizes have Laplace outputs of different scales: the privacy loss grows without
  bound in the tails (no finite ε).
* NonDPLaplaceMean2  ΣX/n + Lap(2/(ñε))  — noisy n in the scale but the true n in the mean;
  the privacy loss is finite but exceeds ε: ≈ 1.22 for claimed ε = 1 on the witness pair
  ([1, 0], [1]) by numerical integration over ñ.

Gaussian analogues (each half of the budget a Gaussian mechanism of sensitivity 1 with noise
σ = √(2 ln(1.25/(δ/2))) / (ε/2), so (ε/2, δ/2) each — Dwork & Roth Thm A.1, valid for ε/2 < 1):
* DPGaussianMean      (ΣX + N(0, σ²)) / max(1e−12, n + N(0, σ²)) — (ε, δ)-DP by composition and
  post-processing; its Rényi claim (``guarantee="renyi"``) is the RDP of the two Gaussian
  releases from dp-accounting's RDP accountant; exactly, (ΣX, n) + N(0, σ²I) is a Gaussian
  mechanism of ℓ2 sensitivity √2: √2/σ-GDP (``"gdp"``) and 1/σ²-zCDP (``"zcdp"``).
* NonDPGaussianMean1  ΣX/n + N(0, σ²)/n and NonDPGaussianMean2  ΣX/n + N(0, σ²)/ñ: the two
  bugs again; both violate the (ε, δ) and the Rényi claim.

TwoBudgetMean noises the sum and the count with Lap(1/ε) each — the full ε twice (DP-Auditorium
§6.7's anecdote): 2ε-DP by composition, and not ε-DP.
"""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, GaussianDP, PureDP, RenyiDP, ZeroConcentratedDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .accounting import gaussian_steps, renyi_claim
from .entry import CatalogueEntry, Truth

MEAN_DOMAIN = Domain(low=0.0, high=1.0, min_size=1, max_size=10, relation="add_remove")


def _noisy_count(n: int, epsilon: float, num_samples: int, rng: np.random.Generator) -> np.ndarray:
    return np.maximum(1e-12, n + rng.laplace(0.0, 2.0 / epsilon, size=num_samples))


def dp_laplace_mean(epsilon: float) -> Mechanism:
    epsilon = positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noisy_n = _noisy_count(len(dataset), epsilon, num_samples, rng)
        return dataset.sum() / noisy_n + rng.laplace(0.0, 1.0, size=num_samples) * 2.0 / (
            noisy_n * epsilon
        )

    return mechanism


def non_dp_laplace_mean1(epsilon: float) -> Mechanism:
    epsilon = positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        n = len(dataset)
        return dataset.sum() / n + rng.laplace(0.0, 2.0 / (n * epsilon), size=num_samples)

    return mechanism


def non_dp_laplace_mean2(epsilon: float) -> Mechanism:
    epsilon = positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noisy_n = _noisy_count(len(dataset), epsilon, num_samples, rng)
        return dataset.sum() / len(dataset) + rng.laplace(0.0, 1.0, size=num_samples) * 2.0 / (
            noisy_n * epsilon
        )

    return mechanism


DPLaplaceMean = CatalogueEntry(
    name="DPLaplaceMean",
    family="means",
    build=dp_laplace_mean,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=MEAN_DOMAIN,
    truth_spec=Truth(True, note="post-processing of two ε/2-DP Laplace releases"),
    description="ΣX/ñ + Lap(2/(ñε)), ñ = max(1e-12, n + Lap(2/ε)) (DP-Auditorium §6.1)",
)

NonDPLaplaceMean1 = CatalogueEntry(
    name="NonDPLaplaceMean1",
    family="means",
    build=non_dp_laplace_mean1,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=MEAN_DOMAIN,
    truth_spec=Truth(
        False, math.inf, "noise scale 2/(nε) reveals n: unbounded privacy loss in the tails"
    ),
    witness_spec=DatasetPair(np.array([1.0]), np.array([1.0, 0.0])),
    description="ΣX/n + Lap(2/(nε)) (DP-Auditorium §6.1)",
)

NonDPLaplaceMean2 = CatalogueEntry(
    name="NonDPLaplaceMean2",
    family="means",
    build=non_dp_laplace_mean2,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=MEAN_DOMAIN,
    truth_spec=Truth(
        False, None, "mean uses the true n; privacy loss ≈ 1.22 at ε = 1 on the witness"
    ),
    witness_spec=DatasetPair(np.array([1.0, 0.0]), np.array([1.0])),
    description="ΣX/n + Lap(2/(ñε)), ñ = max(1e-12, n + Lap(2/ε)) (DP-Auditorium §6.1)",
)


def gaussian_sigma(epsilon: float, delta: float) -> float:
    """Noise of each half: the classical Gaussian mechanism at (ε/2, δ/2), sensitivity 1."""
    half = positive("epsilon", epsilon) / 2
    if not 0 < half < 1 or not 0 < delta < 1:
        raise InvalidArgument(
            f"the classical Gaussian mechanism needs 0 < ε/2 < 1 and 0 < δ < 1, got ε={epsilon},"
            f" δ={delta}."
        )
    return math.sqrt(2 * math.log(1.25 / (delta / 2))) / half


def gaussian_mean_claim(epsilon: float, delta: float, guarantee: str, alpha: float) -> Claim:
    """(ε, δ) as stated; the RDP at α of the two Gaussian releases (dp-accounting, RDP
    accountant); or what the two releases (sum, n) are exactly, a Gaussian mechanism of ℓ2
    sensitivity √2 under add/remove of a record in [0, 1]: √2/σ-GDP (``"gdp"``) and
    1/σ²-zCDP (``"zcdp"``), kept by the division (post-processing)."""
    sigma = gaussian_sigma(epsilon, delta)
    if guarantee == "approx":
        return ApproxDP(epsilon, delta)
    if guarantee == "renyi":
        return renyi_claim(gaussian_steps(sigma, 2), alpha)
    if guarantee == "gdp":
        return GaussianDP(math.sqrt(2) / sigma)
    if guarantee == "zcdp":
        return ZeroConcentratedDP(1 / sigma**2)
    raise InvalidArgument(
        f"guarantee must be 'approx', 'renyi', 'gdp' or 'zcdp', got {guarantee!r}."
    )


def gaussian_mean(
    kind: str, epsilon: float, delta: float, guarantee: str, alpha: float
) -> Mechanism:
    sigma = gaussian_sigma(epsilon, delta)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        n, total = len(dataset), dataset.sum()
        noise = rng.normal(0.0, sigma, num_samples)
        if kind == "dp":
            return (total + noise) / np.maximum(1e-12, n + rng.normal(0.0, sigma, num_samples))
        if kind == "bug1":
            return total / n + noise / n
        return total / n + noise / np.maximum(1e-12, n + rng.normal(0.0, sigma, num_samples))

    return mechanism


_GAUSSIAN_DEFAULTS = {"epsilon": 1.0, "delta": 1e-5, "guarantee": "approx", "alpha": 2.0}


def _gaussian_entry(
    name: str, kind: str, truth, witness, description: str, guarantee: str
) -> CatalogueEntry:
    return CatalogueEntry(
        name=name,
        family="means",
        build=lambda **params: gaussian_mean(kind, **params),
        claim_type=ApproxDP if guarantee == "approx" else RenyiDP,
        defaults={**_GAUSSIAN_DEFAULTS, "guarantee": guarantee},
        claim_spec=gaussian_mean_claim,
        domain_spec=MEAN_DOMAIN,
        truth_spec=truth,
        witness_spec=witness,
        description=description,
    )


def _bug2_truth(epsilon: float, delta: float, guarantee: str, alpha: float) -> Truth:
    if guarantee in ("renyi", "zcdp"):  # 1/σ²-zCDP claims R_2 ≤ 2/σ², the α = 2 RDP claim's value
        return Truth(
            False, None, "mean uses the true n; R_2 ≥ 0.066 certified against the claimed 0.020"
        )
    if guarantee == "gdp":
        return Truth(
            False,
            None,
            "mean uses the true n; its √2/σ-GDP profile refuted at 95% on seeds 0–4 (quick budget)",
        )
    if epsilon <= 0.5:
        return Truth(
            False, None, "mean uses the true n; certified at ε = 0.5, δ = 1e-5 with 10^6 samples"
        )
    return Truth(None, None, "no violation of (ε, δ) found for ε > 0.5 at 10^6 samples; unknown")


DPGaussianMean = _gaussian_entry(
    "DPGaussianMean",
    "dp",
    Truth(True, note="composition of two Gaussian mechanisms, then post-processing"),
    None,
    "(ΣX + N(0, σ²)) / max(1e-12, n + N(0, σ²))",
    guarantee="approx",
)
NonDPGaussianMean1 = _gaussian_entry(
    "NonDPGaussianMean1",
    "bug1",
    Truth(False, math.inf, "noise scale σ/n reveals n"),
    DatasetPair(np.array([1.0]), np.array([1.0, 0.0])),
    "ΣX/n + N(0, σ²)/n",
    guarantee="renyi",
)
NonDPGaussianMean2 = _gaussian_entry(
    "NonDPGaussianMean2",
    "bug2",
    _bug2_truth,
    DatasetPair(np.array([1.0, 0.0]), np.array([1.0])),
    "ΣX/n + N(0, σ²)/max(1e-12, n + N(0, σ²))",
    guarantee="renyi",
)


def two_budget_mean(epsilon: float) -> Mechanism:
    scale = 1.0 / positive("epsilon", epsilon)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        noisy_sum = dataset.sum() + rng.laplace(0.0, scale, num_samples)
        return noisy_sum / np.maximum(1e-12, len(dataset) + rng.laplace(0.0, scale, num_samples))

    return mechanism


TwoBudgetMean = CatalogueEntry(
    name="TwoBudgetMean",
    family="means",
    build=two_budget_mean,
    claim_type=PureDP,
    defaults={"epsilon": 1.0},
    domain_spec=MEAN_DOMAIN,
    truth_spec=lambda epsilon: Truth(
        False, 2 * epsilon, "two Lap(1/ε) releases: 2ε by composition (upper bound)"
    ),
    witness_spec=DatasetPair(np.array([1.0]), np.array([1.0, 1.0])),
    description="(ΣX + Lap(1/ε)) / max(1e-12, n + Lap(1/ε))",
)

ENTRIES = (
    DPLaplaceMean,
    NonDPLaplaceMean1,
    NonDPLaplaceMean2,
    DPGaussianMean,
    NonDPGaussianMean1,
    NonDPGaussianMean2,
    TwoBudgetMean,
)
