"""Grid search over constant datasets: size × base record × differing record
(for ℓ∞ query vectors: answer level × StatDP direction).

The lattice has ``points`` values per record coordinate (the same fraction of [low, high] in
every coordinate) and ``points`` dataset sizes; its corners are the classic patterns and come
first. When the lattice is exhausted it is refined (2·points − 1) and the new pairs follow,
so the order is deterministic and no pair is proposed twice; a finite (integer) domain whose
lattice has nothing new left gets random pairs.
"""

from __future__ import annotations

import itertools

import numpy as np

from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.finders.patterns import constant_pair, pattern_sizes, query_directions, query_vector_pair


class GridFinder:
    name = "grid"

    def __init__(self, points: int = 3):
        self.points = points

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        if self.points < 2:
            raise ValueError(f"GridFinder needs points >= 2, got {self.points!r}.")
        self._domain, self._rng = domain, rng
        self._points = self.points
        self._seen: set[bytes] = set()
        self._exhausted = False
        self._pending: list[DatasetPair] = []

    def ask(self) -> DatasetPair:
        if not self._pending and not self._exhausted:
            self._pending = [pair for pair in self._lattice(self._points) if pair.key() not in self._seen]
            self._points = 2 * self._points - 1
            self._exhausted = not self._pending  # a finite (integer) lattice with nothing new
        if self._exhausted:
            return self._domain.random_pair(self._rng)
        pair = self._pending.pop(0)
        self._seen.add(pair.key())
        return pair

    def tell(self, pair: DatasetPair, score: float) -> None:
        """Grid search does not learn."""

    def _lattice(self, points: int) -> list[DatasetPair]:
        domain = self._domain
        if domain.relation == "linf":  # answer level × StatDP direction, the middle level first
            levels = sorted(np.linspace(0.0, 1.0, points), key=lambda fraction: abs(fraction - 0.5))
            pairs = [
                query_vector_pair(domain, float(self._record(level)), direction)
                for level in levels
                for direction in query_directions(domain.max_size)
            ]
            return [pair for pair in pairs if not np.array_equal(pair.d0, pair.d1)]
        extreme_sizes = pattern_sizes(domain)
        sizes = np.unique(np.round(np.linspace(extreme_sizes[0], extreme_sizes[-1], points)).astype(int))
        fractions = np.linspace(0.0, 1.0, points)

        def is_corner(cell: tuple) -> bool:
            size, base, other = cell
            return size in extreme_sizes and base in (0.0, 1.0) and other in (0.0, 1.0)

        cells = sorted(itertools.product(sizes, fractions, fractions), key=lambda cell: not is_corner(cell))
        pairs, keys = [], set()
        for size, base, other in cells:
            pair = constant_pair(domain, int(size), self._record(base), self._record(other))
            if pair.key() not in keys and not np.array_equal(pair.d0, pair.d1):
                keys.add(pair.key())
                pairs.append(pair)
        return pairs

    def _record(self, fraction: float) -> np.ndarray:
        domain = self._domain
        record = domain.lower + fraction * (domain.upper - domain.lower)
        return np.round(record) if domain.dtype == "int" else record
