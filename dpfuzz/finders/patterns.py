"""Hand-made neighbouring pairs that catch most textbook bugs, tried before any search.

Datasets of identical extreme records with one differing extreme record added (add/remove)
or substituted: the largest change of a sum or mean, the smallest and largest dataset sizes
(scale bugs that depend on n), and the empty dataset where the domain allows it. For query
vectors under ℓ∞, StatDP's one-up-rest-down, half-half, all-up and all-down patterns.
"""

from __future__ import annotations

import numpy as np

from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.finders.parameterization import dimension, record_width


def constant_pair(domain: Domain, size: int, base: np.ndarray, other: np.ndarray) -> DatasetPair:
    """`size` copies of `base`, and its neighbour with `distance` copies of `other` added (or
    substituted in)."""
    records = np.broadcast_to(base, (size,) + domain.record_shape).astype(domain.numpy_dtype)
    others = np.broadcast_to(np.asarray(other, dtype=domain.numpy_dtype), (domain.distance,) + domain.record_shape)
    if domain.relation == "add_remove":
        return DatasetPair(records.copy(), np.concatenate([records, others]))
    changed = records.copy()
    changed[size - domain.distance :] = others
    return DatasetPair(records.copy(), changed)


def pattern_sizes(domain: Domain) -> list[int]:
    """Smallest and largest size of d0 under the relation (d1 may be `distance` larger)."""
    if domain.relation == "add_remove":
        return sorted({domain.min_size, domain.max_size - domain.distance})
    return sorted({max(domain.min_size, domain.distance), domain.max_size})


def query_directions(k: int) -> list[np.ndarray]:
    """StatDP's ℓ∞ patterns: one answer up and the rest down, half up half down, all up, all down."""
    index = np.arange(k)
    return [np.where(index == 0, 1.0, -1.0), np.where(index < (k + 1) // 2, 1.0, -1.0), np.ones(k), -np.ones(k)]


def query_vector_pair(domain: Domain, base_value: float, direction: np.ndarray) -> DatasetPair:
    """All answers at `base_value`, and the same moved by the sensitivity along `direction`."""
    base = np.full(domain.max_size, base_value)
    if domain.dtype == "int":
        base = np.floor(base)
    moved = np.clip(base + domain.sensitivity * direction, domain.lower, domain.upper)
    return DatasetPair(base.astype(domain.numpy_dtype), moved.astype(domain.numpy_dtype))


def query_vector_pairs(domain: Domain) -> list[DatasetPair]:
    """The four StatDP patterns from the middle of the answer range."""
    middle = (float(domain.lower) + float(domain.upper)) / 2
    return [query_vector_pair(domain, middle, direction) for direction in query_directions(domain.max_size)]


def classic_pairs(domain: Domain) -> list[DatasetPair]:
    """The hand-made pairs for the domain's relation, in a fixed order."""
    if domain.relation == "linf":
        return query_vector_pairs(domain)
    low, high = domain.lower, domain.upper
    pairs = []
    for size in pattern_sizes(domain):
        for base, other in ((high, low), (low, high)):
            pairs.append(constant_pair(domain, size, base, other))
    return pairs


def classic_units(domain: Domain) -> list[np.ndarray]:
    """`classic_pairs` as points of the unit cube (`parameterization.pair_from_unit` maps each
    to the same pair), so optimisers over the cube (Vizier) can start from them."""
    if domain.relation == "linf":
        n, middle = domain.max_size, (float(domain.lower) + float(domain.upper)) / 2
        base = 0.5
        if domain.dtype == "int":  # the coordinate whose integer record is floor(middle)
            base = (np.floor(middle) - float(domain.lower) + 0.5) / (float(domain.upper) - float(domain.lower) + 1)
        return [np.concatenate([np.full(n, base), (direction + 1) / 2]) for direction in query_directions(n)]
    pool, extra = domain.max_size * record_width(domain), domain.distance * record_width(domain)
    order = 0.0 if domain.relation == "add_remove" else 1.0  # d0 the smaller / replace the last records
    sizes = [0.0, 1.0] if len(pattern_sizes(domain)) == 2 else [0.0]
    units = []
    for size in sizes:
        for base, other in ((1.0, 0.0), (0.0, 1.0)):
            units.append(np.concatenate([[size, order], np.full(pool, base), np.full(extra, other)]))
    assert all(len(unit) == dimension(domain) for unit in units)
    return units
