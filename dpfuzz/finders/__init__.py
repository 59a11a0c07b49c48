"""Dataset finders: where to look for a violation.

| name   | what it proposes |
|--------|------------------|
| random | classic extreme-record patterns, then uniformly random neighbouring pairs |
| grid   | constant datasets on a size × record lattice, corners first, refined when exhausted |
| hypothesis | Hypothesis-generated pairs, targeted towards larger divergence; a pair that looks violating is shrunk to the simplest one |
| vizier | google-vizier's GP bandit over a unit-cube parameterisation of pairs (extra `vizier`) |

`RandomFinder(sampler="sobol")` draws pairs quasi-randomly (scrambled Sobol points of the same
parameterisation) after the patterns.

A `DatasetPair` or a list of them is also accepted as a finder (`FixedFinder`): the audit tries
exactly those pairs.
"""

from __future__ import annotations

from dpfuzz.datasets import DatasetPair
from dpfuzz.errors import ConfigError
from dpfuzz.finders.base import Finder
from dpfuzz.finders.fixed import FixedFinder
from dpfuzz.finders.grid import GridFinder
from dpfuzz.finders.hypothesis_finder import HypothesisFinder
from dpfuzz.finders.patterns import classic_pairs
from dpfuzz.finders.random import RandomFinder

FINDERS = {RandomFinder.name: RandomFinder, GridFinder.name: GridFinder, HypothesisFinder.name: HypothesisFinder}
FINDER_NAMES = [*FINDERS, "vizier"]  # vizier is imported only when asked for (it loads JAX)


def _vizier_finder() -> Finder:
    from dpfuzz.finders.vizier_finder import VizierFinder  # imports JAX: only when asked for

    return VizierFinder()


def make_finder(finder: str | Finder | DatasetPair | list) -> Finder:
    """A finder instance from a name, an instance, or the pairs to try."""
    if isinstance(finder, DatasetPair):
        return FixedFinder([finder])
    if isinstance(finder, (list, tuple)):
        return FixedFinder(finder)
    if isinstance(finder, str):
        if finder == "vizier":
            return _vizier_finder()
        if finder not in FINDERS:
            raise ConfigError(f"unknown finder {finder!r}; choose one of {FINDER_NAMES}.")
        return FINDERS[finder]()
    return finder


__all__ = ["FINDERS", "FINDER_NAMES", "Finder", "FixedFinder", "GridFinder", "HypothesisFinder", "RandomFinder", "classic_pairs", "make_finder"]
