"""Algorithms with m canaries for one-run audits (`dpfuzz.audit_one_run`), each with its true
guarantee per canary. ``run(included, rng) -> scores``: one membership score per canary.

The three of paper 003's Figures 6–8 (Xiang, Wang & Wang), all memoryless channels: every canary
has its own output coordinate with independent noise.
* `gaussian_canaries(mu)`: coordinate i is [canary i included] + N(0, 1/μ²): exactly μ-GDP per
  canary.
* `laplace_canaries(epsilon)`: [included] + Lap(1/ε): ε-DP per canary (tight).
* `randomized_response_canaries(epsilon)`: the inclusion bit, flipped with probability
  1/(1 + e^ε): ε-DP per canary (tight).
"""

from __future__ import annotations

import numpy as np

from dpfuzz.claims import GaussianDP, PureDP
from dpfuzz.one_run import OneRunRelease

from ._checks import positive


def gaussian_canaries(mu: float) -> OneRunRelease:
    scale = 1.0 / positive("mu", mu)

    def run(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return included + rng.normal(0.0, scale, len(included))

    run.claim = GaussianDP(mu)  # type: ignore[attr-defined]
    return run


def laplace_canaries(epsilon: float) -> OneRunRelease:
    scale = 1.0 / positive("epsilon", epsilon)

    def run(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return included + rng.laplace(0.0, scale, len(included))

    run.claim = PureDP(epsilon)  # type: ignore[attr-defined]
    return run


def randomized_response_canaries(epsilon: float) -> OneRunRelease:
    keep = np.exp(positive("epsilon", epsilon)) / (1.0 + np.exp(epsilon))

    def run(included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(len(included)) < keep, included, ~included).astype(float)

    run.claim = PureDP(epsilon)  # type: ignore[attr-defined]
    return run
