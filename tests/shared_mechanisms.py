"""Mechanisms the tests share, at module level so that worker processes can import them."""

import numpy as np


def laplace_sum(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
    """ΣX + Lap(1): exactly 1-DP under add/remove of records in [0, 1]."""
    return dataset.sum() + rng.laplace(0.0, 1.0, size=num_samples)


def one_laplace_sum(dataset: np.ndarray, rng: np.random.Generator) -> float:
    """`laplace_sum`, one output per call (for `per_call`)."""
    return dataset.sum() + rng.laplace(0.0, 1.0)


def gaussian_sum(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
    """ΣX + N(0, 1): R_2 = 1 and (ε, δ) at the analytic Gaussian's δ(ε) for sensitivity 1."""
    return dataset.sum() + rng.normal(0.0, 1.0, size=num_samples)
