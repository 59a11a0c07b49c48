"""Random search: the classic patterns first, then uniformly random neighbouring pairs."""

from __future__ import annotations

import numpy as np

from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.finders.patterns import classic_pairs


class RandomFinder:
    """Propose `classic_pairs` (when ``patterns`` is true), then `Domain.random_pair` draws."""

    name = "random"

    def __init__(self, patterns: bool = True):
        self.patterns = patterns

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        self._domain, self._rng = domain, rng
        self._queue = classic_pairs(domain) if self.patterns else []

    def ask(self) -> DatasetPair:
        if self._queue:
            return self._queue.pop(0)
        return self._domain.random_pair(self._rng)

    def tell(self, pair: DatasetPair, score: float) -> None:
        """Random search does not learn."""
