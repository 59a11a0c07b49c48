"""Sparse vector technique: the six variants of Lyu, Su & Li (2017, "Understanding the Sparse
Vector Technique", Algorithms 1–6), NumericalSVT and SVT34Parallel.

Each answers k threshold queries "is q_i(D) + ν_i ≥ T + ρ?" and stops after c ⊤ answers (where
the variant has a cutoff). Outputs are integer vectors: 1 = ⊤, 0 = ⊥, −1 = not answered after
the cutoff. SVT3 and NumericalSVT also release a number for each ⊤; their output is the code
vector followed by a value vector (0 where no value is released).

Every variant compares with the threshold T = ``t`` (default 1; DP-Sniper runs SVT1 at
t = 0.5). Query answers come in two forms (parameter ``form``):
* ``"answers"`` (default): the dataset *is* the vector of k answers, with the ℓ∞ relation
  (each answer moves by at most Δ = 1) — StatDP and DP-Sniper's convention;
* ``"dataset"``: records are bit vectors of length k and q_i counts the records with bit i
  set — counting queries under add/remove, Δ = 1, as in DP-Auditorium.

Truths (claimed ε, Δ = 1), each from the variant's own privacy proof or counterexample:
* SVT1 (ρ ~ Lap(Δ/ε₁), ν ~ Lap(2cΔ/ε₂), ε₁ = ε₂ = ε/2) and SVT2 (ρ ~ Lap(cΔ/ε₁) resampled after
  every ⊤) satisfy ε-DP (Lyu et al. Thm 2 and its Alg. 2 analysis).
* SVT3 releases q_i + ν_i with the very noise used in the comparison: no finite ε.
* SVT4 (ε₁ = ε/4, ν ~ Lap(Δ/ε₂)) forgets the factor 2c in the query noise: it satisfies
  (1 + 6c)ε/4-DP and no better bound is known (Lyu et al. §3).
* SVT5 adds no query noise and has no cutoff: for the pattern "one answer up, the rest
  unchanged" an output set has probability 0 on one side only — no finite ε.
* SVT6 has query noise but no cutoff: its loss grows with the number of ⊤ answers, without a
  finite bound as k grows; for the k = 10 queries here it exceeds the claim.
* NumericalSVT (ρ ~ Lap(3Δ/ε), ν ~ Lap(6cΔ/ε), fresh Lap(3cΔ/ε) on each released value)
  satisfies ε-DP (Lyu et al. Alg. 7).
* SVT34Parallel runs SVT3 and SVT4 on the same input and concatenates the outputs: violates.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any

import numpy as np

from dpfuzz.claims import PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism

from ._checks import positive
from .entry import CatalogueEntry, Truth

QUERIES = 10


def query_answers(dataset: np.ndarray, form: str) -> np.ndarray:
    """The k answers: the dataset itself, or column counts of bit-vector records."""
    if form == "answers":
        return np.asarray(dataset, dtype=float)
    return np.asarray(dataset, dtype=float).reshape(len(dataset), QUERIES).sum(axis=0)


def sparse_vector(
    answers: np.ndarray,
    num_samples: int,
    rng: np.random.Generator,
    *,
    threshold: float,
    rho_scale: float,
    nu_scale: float | None,
    cutoff: int | None,
    resample_rho: bool = False,
    release: str | None = None,
    release_scale: float = 0.0,
) -> np.ndarray:
    """All k comparisons at once, as (samples × k) arrays; the cutoff masks the queries after
    the c-th ⊤. Only SVT2's threshold noise, redrawn after every ⊤, makes queries depend on each
    other: that variant loops over the k queries.

    ``release``: None (codes only), ``"noisy"`` (q_i + ν_i on ⊤, SVT3) or ``"fresh"`` (q_i plus
    fresh Lap(release_scale) on ⊤, NumericalSVT).
    """
    k = len(answers)
    rho = rng.laplace(0.0, rho_scale, num_samples)
    if nu_scale:
        noisy = rng.laplace(0.0, nu_scale, (num_samples, k))
        noisy += answers
    else:
        noisy = np.broadcast_to(np.asarray(answers, dtype=float), (num_samples, k))
    if resample_rho:
        top = np.empty((num_samples, k), dtype=bool)
        for i in range(k):
            top[:, i] = noisy[:, i] >= threshold + rho
            rho = np.where(top[:, i], rng.laplace(0.0, rho_scale, num_samples), rho)
    else:
        top = noisy >= threshold + rho[:, None]
    codes = top.astype(np.int8)
    if cutoff is not None:  # answered while fewer than c ⊤ came before
        answered = np.cumsum(top, axis=1, dtype=np.int32) - top < cutoff
        codes[~answered] = -1
        top &= answered
    if release is None:
        return codes
    if release == "fresh":
        noisy = rng.laplace(0.0, release_scale, (num_samples, k))
        noisy += answers
    return np.concatenate([codes, np.where(top, noisy, 0.0)], axis=1)


ANSWER_SYMBOLS = {1.0: "⊤", 0.0: "⊥", -1.0: "·"}


def answer_words(codes: np.ndarray) -> str | None:
    """A pattern of answer codes as ⊤ (1), ⊥ (0) and · (−1, not answered) per query, e.g.
    "⊥⊥⊤·": reports' words for SVT outputs. None for a row with other values."""
    if not all(float(code) in ANSWER_SYMBOLS for code in codes):
        return None
    return "".join(ANSWER_SYMBOLS[float(code)] for code in codes)


def _variant(name: str, epsilon: float, c: int) -> dict:
    """Noise scales of each variant for claimed ε (Δ = 1)."""
    epsilon = positive("epsilon", epsilon)
    half = epsilon / 2
    variants: dict[str, dict[str, Any]] = {
        "SVT1": dict(rho_scale=1 / half, nu_scale=2 * c / half, cutoff=c),
        "SVT2": dict(rho_scale=c / half, nu_scale=2 * c / half, cutoff=c, resample_rho=True),
        "SVT3": dict(rho_scale=1 / half, nu_scale=c / half, cutoff=c, release="noisy"),
        "SVT4": dict(rho_scale=4 / epsilon, nu_scale=1 / (epsilon - epsilon / 4), cutoff=c),
        "SVT5": dict(rho_scale=1 / half, nu_scale=None, cutoff=None),
        "SVT6": dict(rho_scale=1 / half, nu_scale=1 / half, cutoff=None),
        "NumericalSVT": dict(
            rho_scale=3 / epsilon,
            nu_scale=6 * c / epsilon,
            cutoff=c,
            release="fresh",
            release_scale=3 * c / epsilon,
        ),
    }
    return variants[name]


def build(name: str, epsilon: float, c: int, form: str, t: float) -> Mechanism:
    settings = _variant(name, epsilon, c)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return sparse_vector(
            query_answers(dataset, form), num_samples, rng, threshold=t, **settings
        )

    return mechanism


def build_svt34(epsilon: float, c: int, form: str, t: float) -> Mechanism:
    svt3, svt4 = build("SVT3", epsilon, c, form, t), build("SVT4", epsilon, c, form, t)

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        return np.concatenate(
            [svt3(dataset, num_samples, rng), svt4(dataset, num_samples, rng)], axis=1
        )

    return mechanism


def svt_domain(epsilon: float, c: int, form: str, t: float) -> Domain:
    if form == "answers":
        return Domain(low=0.0, high=2.0, min_size=QUERIES, max_size=QUERIES, relation="linf")
    if form == "dataset":
        return Domain(
            low=0, high=1, min_size=0, max_size=4, dim=QUERIES, dtype="int", relation="add_remove"
        )
    raise InvalidArgument(f"form must be 'answers' or 'dataset', got {form!r}.")


def svt_witness(epsilon: float, c: int, form: str, t: float) -> DatasetPair:
    """Answers all at T = 1, then half of them up and half down (StatDP's half-half pattern); in
    dataset form, one all-ones record, then one more record with the first half of its bits set."""
    half = np.arange(QUERIES) < QUERIES // 2
    if form == "answers":
        return DatasetPair(np.ones(QUERIES), np.where(half, 2.0, 0.0))
    ones = np.ones((1, QUERIES), dtype=np.int64)
    return DatasetPair(ones, np.concatenate([ones, half[None, :].astype(np.int64)]))


def _entry(name: str, truth, description: str, c: int = 2, builder=None) -> CatalogueEntry:
    return CatalogueEntry(
        name=name,
        family="svt",
        build=builder or partial(build, name),
        claim_type=PureDP,
        defaults={"epsilon": 1.0, "c": c, "form": "answers", "t": 1.0},
        domain_spec=svt_domain,
        truth_spec=truth,
        witness_spec=svt_witness,
        description=description,
        describe_output=answer_words,
    )


SVT1 = _entry(
    "SVT1",
    lambda epsilon, c, form, t: Truth(True, epsilon, "Lyu et al. Alg. 1, Thm 2"),
    "ρ ~ Lap(2/ε), ν ~ Lap(4c/ε), ⊤/⊥, cutoff c",
)
SVT2 = _entry(
    "SVT2",
    lambda epsilon, c, form, t: Truth(True, epsilon, "Lyu et al. Alg. 2"),
    "ρ ~ Lap(2c/ε) resampled after each ⊤, ν ~ Lap(4c/ε), cutoff c",
)
SVT3 = _entry(
    "SVT3",
    lambda epsilon, c, form, t: Truth(
        False, math.inf, "releases q_i + ν_i with the comparison's noise"
    ),
    "ρ ~ Lap(2/ε), ν ~ Lap(2c/ε), releases q_i + ν_i on ⊤, cutoff c",
    c=1,
)
SVT4 = _entry(
    "SVT4",
    lambda epsilon, c, form, t: Truth(
        False, (1 + 6 * c) * epsilon / 4, "proven upper bound (1 + 6c)ε/4"
    ),
    "ρ ~ Lap(4/ε), ν ~ Lap(4/(3ε)), cutoff c",
)
SVT5 = _entry(
    "SVT5",
    lambda epsilon, c, form, t: Truth(
        False, math.inf, "no query noise: some outputs impossible on one side"
    ),
    "ρ ~ Lap(2/ε), no query noise, no cutoff",
    c=1,
)
SVT6 = _entry(
    "SVT6",
    lambda epsilon, c, form, t: Truth(
        False, None, "no cutoff: loss grows with the number of ⊤ answers"
    ),
    "ρ ~ Lap(2/ε), ν ~ Lap(2/ε), no cutoff",
)
NumericalSVT = _entry(
    "NumericalSVT",
    lambda epsilon, c, form, t: Truth(True, epsilon, "Lyu et al. Alg. 7"),
    "ρ ~ Lap(3/ε), ν ~ Lap(6c/ε), releases q_i + fresh Lap(3c/ε) on ⊤, cutoff c",
)
SVT34Parallel = _entry(
    "SVT34Parallel",
    lambda epsilon, c, form, t: Truth(False, math.inf, "contains SVT3's output"),
    "SVT3 and SVT4 on the same input, outputs concatenated",
    c=1,
    builder=build_svt34,
)

ENTRIES = (SVT1, SVT2, SVT3, SVT4, SVT5, SVT6, NumericalSVT, SVT34Parallel)
