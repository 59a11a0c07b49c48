"""Dataset finders: where to look for a violation.

| name   | what it proposes |
|--------|------------------|
| random | classic extreme-record patterns, then uniformly random neighbouring pairs |
| grid   | constant datasets on a size × record lattice, corners first, refined when exhausted |

A `DatasetPair` or a list of them is also accepted as a finder (`FixedFinder`): the audit tries
exactly those pairs.
"""

from __future__ import annotations

from dpfuzz.datasets import DatasetPair
from dpfuzz.errors import ConfigError
from dpfuzz.finders.base import Finder
from dpfuzz.finders.fixed import FixedFinder
from dpfuzz.finders.grid import GridFinder
from dpfuzz.finders.patterns import classic_pairs
from dpfuzz.finders.random import RandomFinder

FINDERS = {RandomFinder.name: RandomFinder, GridFinder.name: GridFinder}


def make_finder(finder: str | Finder | DatasetPair | list) -> Finder:
    """A finder instance from a name, an instance, or the pairs to try."""
    if isinstance(finder, DatasetPair):
        return FixedFinder([finder])
    if isinstance(finder, (list, tuple)):
        return FixedFinder(finder)
    if isinstance(finder, str):
        if finder not in FINDERS:
            raise ConfigError(f"unknown finder {finder!r}; choose one of {list(FINDERS)}.")
        return FINDERS[finder]()
    return finder


__all__ = ["FINDERS", "Finder", "FixedFinder", "GridFinder", "RandomFinder", "classic_pairs", "make_finder"]
