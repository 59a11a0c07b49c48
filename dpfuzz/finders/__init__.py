"""Dataset finders: where to look for a violation.

| name   | what it proposes |
|--------|------------------|
| random | classic extreme-record patterns, then uniformly random neighbouring pairs |
| grid   | constant datasets on a size × record lattice, corners first, refined when exhausted |
"""

from __future__ import annotations

from dpfuzz.errors import ConfigError
from dpfuzz.finders.base import Finder
from dpfuzz.finders.grid import GridFinder
from dpfuzz.finders.patterns import classic_pairs
from dpfuzz.finders.random import RandomFinder

FINDERS = {RandomFinder.name: RandomFinder, GridFinder.name: GridFinder}


def make_finder(finder: str | Finder) -> Finder:
    """A finder instance from a name or an instance."""
    if isinstance(finder, str):
        if finder not in FINDERS:
            raise ConfigError(f"unknown finder {finder!r}; choose one of {list(FINDERS)}.")
        return FINDERS[finder]()
    return finder


__all__ = ["FINDERS", "Finder", "GridFinder", "RandomFinder", "classic_pairs", "make_finder"]
