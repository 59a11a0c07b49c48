"""A neighbouring pair as a point of the unit cube, so any optimiser can search pairs.

`dimension(domain)` coordinates in [0, 1] map to a valid pair (finders.md, "a pair is
parameterised by a flat vector"):

* add/remove: size of the smaller dataset, which side is larger, its `max_size − distance`
  records (the first `size` used), and the `distance` added records;
* substitute: size, which records are replaced (an offset), the records, the replacements;
* ℓ∞: the k answers, then k steps in [−sensitivity, sensitivity].
"""

from __future__ import annotations

import numpy as np

from dpfuzz.datasets import DatasetPair, Domain, _multiset_difference


def record_width(domain: Domain) -> int:
    return 1 if domain.dim is None else domain.dim


def dimension(domain: Domain) -> int:
    width = record_width(domain)
    if domain.relation == "linf":
        return 2 * domain.max_size
    return 2 + (domain.max_size + domain.distance) * width


def _records(domain: Domain, unit: np.ndarray) -> np.ndarray:
    """Records from unit coordinates, `record_width` per record."""
    width = record_width(domain)
    values = domain.lower.reshape(-1) + unit.reshape(-1, width) * (domain.upper - domain.lower).reshape(-1)
    if domain.dtype == "int":
        span = (domain.upper - domain.lower).reshape(-1)
        values = np.minimum(domain.lower.reshape(-1) + np.floor(unit.reshape(-1, width) * (span + 1)), domain.upper.reshape(-1))
    values = values.astype(domain.numpy_dtype)
    return values[:, 0] if domain.dim is None else values


def _choose(unit: float, low: int, high: int) -> int:
    """An integer in [low, high] from a coordinate in [0, 1]."""
    return int(min(high, low + np.floor(unit * (high - low + 1))))


def pair_from_unit(domain: Domain, unit: np.ndarray) -> DatasetPair:
    """The pair at `unit` (length `dimension(domain)`, coordinates in [0, 1])."""
    unit = np.clip(np.asarray(unit, dtype=float), 0.0, 1.0)
    width, k = record_width(domain), domain.distance
    if domain.relation == "linf":
        n = domain.max_size
        base = _records(domain, unit[:n])
        steps = (2 * unit[n:] - 1) * domain.sensitivity
        if domain.dtype == "int":
            steps = np.round(steps)
        moved = np.clip(base + steps, domain.lower, domain.upper).astype(domain.numpy_dtype)
        if np.array_equal(moved, base):  # a zero step is no neighbour: move the first answer
            moved = moved.copy()
            up = base[0] + domain.sensitivity <= domain.upper
            moved[0] = base[0] + domain.sensitivity if up else max(base[0] - domain.sensitivity, domain.lower)
        return DatasetPair(base, moved)
    pool = _records(domain, unit[2 : 2 + domain.max_size * width])
    extra = _records(domain, unit[2 + domain.max_size * width :])
    if domain.relation == "add_remove":
        size = _choose(unit[0], domain.min_size, domain.max_size - k)
        smaller = pool[:size]
        larger = np.concatenate([smaller, extra[:k]])
        return DatasetPair(smaller, larger) if unit[1] < 0.5 else DatasetPair(larger, smaller)
    size = _choose(unit[0], max(domain.min_size, k), domain.max_size)
    base = pool[:size].copy()
    changed = base.copy()
    start = _choose(unit[1], 0, size - k)
    changed[start : start + k] = extra[:k]
    if _multiset_difference(base, changed) != (k, k):  # a replacement repeated a removed record
        changed = domain.random_neighbour(base, np.random.default_rng(int(unit.sum() * 2**32)))
    return DatasetPair(base, changed)
