"""Random search: the classic patterns, then uniform random pairs (or quasi-random Sobol points
of the unit-cube parameterisation, scipy.stats.qmc)."""

from __future__ import annotations

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.finders.base import BaseFinder
from dpfuzz.validation import check_choice


class RandomFinder(BaseFinder):
    """Propose the relation's classic pairs (when ``patterns`` is true), then random pairs.

    ``sampler``: ``"uniform"`` (default) or ``"sobol"`` (quasi-random, more even coverage).
    """

    name = "random"

    def __init__(self, patterns: bool = True, sampler: str = "uniform"):
        self.patterns = patterns
        self.sampler = sampler

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        check_choice("sampler", self.sampler, ("uniform", "sobol"))
        self._domain, self._rng = domain, rng
        self._queue = domain.relation.classic_pairs(domain) if self.patterns else []
        if self.sampler == "sobol":
            from scipy.stats import qmc

            self._sobol = qmc.Sobol(
                d=domain.relation.unit_dimension(domain), scramble=True, seed=rng
            )

    def ask(self) -> DatasetPair:
        if self._queue:
            return self._queue.pop(0)
        if self.sampler == "sobol":
            return self._domain.relation.pair_from_unit(self._domain, self._sobol.random(1)[0])
        return self._domain.random_pair(self._rng)
