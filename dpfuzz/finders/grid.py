"""Grid search over constant datasets: size × base record × differing record
(for ℓ∞ query vectors: answer level × StatDP direction); the lattice is the relation's.

The lattice has ``points`` values per record coordinate (the same fraction of [low, high] in
every coordinate) and ``points`` dataset sizes; its corners are the classic patterns and come
first. When the lattice is exhausted it is refined (2·points − 1) and the new pairs follow,
so the order is deterministic and no pair is proposed twice; a finite (integer) domain whose
lattice has nothing new left gets random pairs.
"""

from __future__ import annotations

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.finders.base import BaseFinder
from dpfuzz.validation import check_int


class GridFinder(BaseFinder):
    name = "grid"

    def __init__(self, points: int = 3):
        self.points = points

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        self._points = check_int("GridFinder points", self.points, minimum=2)
        self._domain, self._rng = domain, rng
        self._seen: set[bytes] = set()
        self._exhausted = False
        self._pending: list[DatasetPair] = []

    def ask(self) -> DatasetPair:
        if not self._pending and not self._exhausted:
            lattice = self._domain.relation.lattice(self._domain, self._points)
            self._pending = [pair for pair in lattice if pair.key() not in self._seen]
            self._points = 2 * self._points - 1
            self._exhausted = not self._pending  # a finite (integer) lattice with nothing new
        if self._exhausted:
            return self._domain.random_pair(self._rng)
        pair = self._pending.pop(0)
        self._seen.add(pair.key())
        return pair
