"""Given pairs, in order: audit known witnesses, or pairs drawn by a Hypothesis strategy."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.finders.base import BaseFinder


class FixedFinder(BaseFinder):
    """Propose `pairs` in order, cycling when the audit asks for more trials than pairs."""

    name = "fixed"
    open_ended = False

    def __init__(self, pairs: Sequence[DatasetPair]):
        self.pairs = list(pairs)

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        if not self.pairs:
            raise InvalidArgument("FixedFinder needs at least one DatasetPair.")
        for pair in self.pairs:
            domain.validate_pair(pair)
        self._next = 0

    def ask(self) -> DatasetPair:
        pair = self.pairs[self._next % len(self.pairs)]
        self._next += 1
        return pair
