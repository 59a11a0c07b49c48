"""Hand-made neighbouring pairs that catch most textbook bugs, tried before any search.

Datasets of identical extreme records with one differing extreme record added (add/remove)
or substituted: the largest change of a sum or mean, the smallest and largest dataset sizes
(scale bugs that depend on n), and the empty dataset where the domain allows it.
"""

from __future__ import annotations

import numpy as np

from dpfuzz.datasets import DatasetPair, Domain


def constant_pair(domain: Domain, size: int, base: np.ndarray, other: np.ndarray) -> DatasetPair:
    """`size` copies of `base`, and its neighbour with one `other` added (or substituted in)."""
    records = np.broadcast_to(base, (size,) + domain.record_shape).astype(domain.numpy_dtype)
    other = np.asarray(other, dtype=domain.numpy_dtype).reshape((1,) + domain.record_shape)
    if domain.relation == "add_remove":
        return DatasetPair(records.copy(), np.concatenate([records, other]))
    changed = records.copy()
    changed[-1] = other[0]
    return DatasetPair(records.copy(), changed)


def pattern_sizes(domain: Domain) -> list[int]:
    """Smallest and largest size of d0 under the relation (d1 may be one larger)."""
    if domain.relation == "add_remove":
        return sorted({domain.min_size, domain.max_size - 1})
    return sorted({max(domain.min_size, 1), domain.max_size})


def classic_pairs(domain: Domain) -> list[DatasetPair]:
    """Extreme-record pairs at the extreme sizes, in a fixed order."""
    low, high = domain.lower, domain.upper
    pairs = []
    for size in pattern_sizes(domain):
        for base, other in ((high, low), (low, high)):
            pairs.append(constant_pair(domain, size, base, other))
    return pairs
