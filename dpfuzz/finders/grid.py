"""Grid search over constant datasets: size × base record × differing record.

The lattice has ``points`` values per record coordinate (the same fraction of [low, high] in
every coordinate) and ``points`` dataset sizes; its corners are the classic patterns and come
first. When the lattice is exhausted it is refined (2·points − 1) and the new points follow,
so the order is deterministic and every pair is proposed once.
"""

from __future__ import annotations

import itertools

import numpy as np

from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.finders.patterns import constant_pair, pattern_sizes


class GridFinder:
    name = "grid"

    def __init__(self, points: int = 3):
        self.points = points

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        if self.points < 2:
            raise ValueError(f"GridFinder needs points >= 2, got {self.points!r}.")
        self._domain = domain
        self._seen: set = set()
        self._points = self.points
        self._pending = self._lattice(self._points)

    def _lattice(self, points: int) -> list[tuple[int, float, float]]:
        domain = self._domain
        smallest, largest = pattern_sizes(domain)[0], pattern_sizes(domain)[-1]
        sizes = np.unique(np.round(np.linspace(smallest, largest, points)).astype(int))
        fractions = np.linspace(0.0, 1.0, points)
        cells = [
            (int(size), float(base), float(other))
            for size, base, other in itertools.product(sizes, fractions, fractions)
            if base != other or domain.relation == "add_remove"
        ]
        corner = lambda cell: not ({cell[0]} <= {smallest, largest} and {cell[1], cell[2]} <= {0.0, 1.0})  # noqa: E731
        cells.sort(key=corner)  # stable: corners first, then lattice order
        return [cell for cell in cells if cell not in self._seen]

    def ask(self) -> DatasetPair:
        while not self._pending:
            self._points = 2 * self._points - 1
            self._pending = self._lattice(self._points)
        cell = self._pending.pop(0)
        self._seen.add(cell)
        size, base, other = cell
        domain = self._domain
        span = domain.upper - domain.lower
        to_record = lambda fraction: domain.lower + fraction * span  # noqa: E731
        base_record, other_record = to_record(base), to_record(other)
        if domain.dtype == "int":
            base_record, other_record = np.round(base_record), np.round(other_record)
        return constant_pair(domain, size, base_record, other_record)

    def tell(self, pair: DatasetPair, score: float) -> None:
        """Grid search does not learn."""
