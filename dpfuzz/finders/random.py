"""Random search: the classic patterns first, then random neighbouring pairs — uniform
(`Domain.random_pair`) or quasi-random (scrambled Sobol points of the unit-cube
parameterisation, scipy.stats.qmc)."""

from __future__ import annotations

import numpy as np
from scipy.stats import qmc

from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.finders.parameterization import dimension, pair_from_unit
from dpfuzz.finders.patterns import classic_pairs


class RandomFinder:
    """Propose `classic_pairs` (when ``patterns`` is true), then random pairs.

    ``sampler``: ``"uniform"`` (default) or ``"sobol"`` (quasi-random, more even coverage).
    """

    name = "random"

    def __init__(self, patterns: bool = True, sampler: str = "uniform"):
        self.patterns = patterns
        self.sampler = sampler

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        if self.sampler not in ("uniform", "sobol"):
            raise ValueError(f"sampler must be 'uniform' or 'sobol', got {self.sampler!r}.")
        self._domain, self._rng = domain, rng
        self._queue = classic_pairs(domain) if self.patterns else []
        if self.sampler == "sobol":
            self._sobol = qmc.Sobol(d=dimension(domain), scramble=True, seed=rng)

    def ask(self) -> DatasetPair:
        if self._queue:
            return self._queue.pop(0)
        if self.sampler == "sobol":
            return pair_from_unit(self._domain, self._sobol.random(1)[0])
        return self._domain.random_pair(self._rng)

    def tell(self, pair: DatasetPair, score: float) -> None:
        """Random search does not learn."""
