"""The catalogue of correct and buggy mechanisms, each with its claim and ground truth.

Entries are addressed by their bare names.

>>> from dpfuzz.catalogue import catalogue, entry
>>> [item.name for item in catalogue(satisfies=False)]  # doctest: +SKIP
>>> entry("NonDPLaplaceMean1")  # doctest: +SKIP
"""

from __future__ import annotations

from dpfuzz.errors import InvalidArgument
from dpfuzz.validation import did_you_mean

from . import (
    clipping,
    counting,
    dpsgd,
    errors,
    floating_point,
    gradient_descent,
    histograms,
    local,
    means,
    median,
    noisy_max,
    partitions,
    point_masses,
    statdp,
    streams,
    subsampling,
    svt,
    vector_marginals,
)
from .entry import CatalogueEntry, Truth

_MODULES = (
    means,
    counting,
    point_masses,
    vector_marginals,
    partitions,
    histograms,
    noisy_max,
    svt,
    statdp,
    local,
    streams,
    median,
    gradient_descent,
    clipping,
    subsampling,
    dpsgd,
    floating_point,
    errors,
)


def catalogue(
    satisfies: bool | None = None, claim_type: type | None = None, family: str | None = None
) -> list[CatalogueEntry]:
    """Entries in a fixed order, filtered by truth at default parameters, claim type and family.

    ``satisfies=True`` / ``False`` keep the entries whose truth at default parameters is
    established as such; entries of unknown truth are in neither.
    """
    entries = [entry for module in _MODULES for entry in module.ENTRIES]
    families = sorted({entry.family for entry in entries})
    if family is not None and family not in families:
        raise InvalidArgument(
            f"no catalogue family {family!r}.{did_you_mean(family, families)} Families:"
            f" {', '.join(families)}."
        )
    if satisfies is not None:
        entries = [entry for entry in entries if entry.truth().satisfies is satisfies]
    if claim_type is not None:
        entries = [entry for entry in entries if entry.claim_type is claim_type]
    if family is not None:
        entries = [entry for entry in entries if entry.family == family]
    return entries


def entry(name: str) -> CatalogueEntry:
    """The entry called `name`."""
    for candidate in catalogue():
        if candidate.name == name:
            return candidate
    names = [item.name for item in catalogue()]
    raise InvalidArgument(
        f"no catalogue entry {name!r}.{did_you_mean(name, names)} Entries: {', '.join(names)}."
    )


__all__ = ["CatalogueEntry", "Truth", "catalogue", "entry"]
