"""Dataset finders: where to look for a violation.

| name   | what it proposes |
|--------|------------------|
| random | the relation's classic patterns, then uniformly random neighbouring pairs |
| grid   | constant datasets on a size × record lattice, corners first, refined when exhausted |
| hypothesis | Hypothesis pairs, targeted towards larger divergence; a violating one is shrunk |
| vizier | google-vizier's GP bandit over the unit-cube parameterisation of pairs (extra `vizier`) |

`RandomFinder(sampler="sobol")` draws pairs quasi-randomly (scrambled Sobol points of the same
parameterisation) after the patterns.

A `DatasetPair` or a list of them is also accepted as a finder (`FixedFinder`): the audit tries
exactly those pairs. A finder class is imported only when asked for (Hypothesis and Vizier
are heavy imports).
"""

from __future__ import annotations

import importlib
from typing import Any

from dpfuzz import names
from dpfuzz.datasets import DatasetPair
from dpfuzz.finders.base import BaseFinder, Finder, WithDefaults
from dpfuzz.validation import check_choice

# name -> (module, class); the module is imported when the finder is made.
_CLASSES = {
    "random": ("dpfuzz.finders.random", "RandomFinder"),
    "grid": ("dpfuzz.finders.grid", "GridFinder"),
    "hypothesis": ("dpfuzz.finders.hypothesis_finder", "HypothesisFinder"),
    "vizier": ("dpfuzz.finders.vizier_finder", "VizierFinder"),
    "fixed": ("dpfuzz.finders.fixed", "FixedFinder"),
}
FINDER_NAMES = names.FINDERS  # "fixed" is the finder a given pair list gets, not a name to give


def finder_class(name: str) -> type:
    module, attribute = _CLASSES[name]
    return getattr(importlib.import_module(module), attribute)


# What names a finder: a registered name, an instance, or the pairs to try.
FinderSpec = str | Finder | DatasetPair | list


def make_finder(finder: FinderSpec) -> BaseFinder:
    """A finder instance from a name, an instance, or the pairs to try."""
    if isinstance(finder, DatasetPair):
        finder = [finder]
    if isinstance(finder, (list, tuple)):
        return finder_class("fixed")(finder)
    if isinstance(finder, str):
        return finder_class(check_choice("finder", finder, FINDER_NAMES))()
    return finder if isinstance(finder, BaseFinder) else WithDefaults(finder)


def __getattr__(name: str) -> Any:
    """The finder classes, imported on first use: ``from dpfuzz.finders import RandomFinder``."""
    for key, (_, attribute) in _CLASSES.items():
        if attribute == name:
            return finder_class(key)
    raise AttributeError(f"module 'dpfuzz.finders' has no attribute {name!r}")


__all__ = [
    "BaseFinder",
    "FINDER_NAMES",
    "Finder",
    "FixedFinder",
    "GridFinder",
    "HypothesisFinder",
    "RandomFinder",
    "VizierFinder",
    "make_finder",
]
