"""Hypothesis strategies for datasets and neighbouring pairs of a `Domain`.

Use them in your own property tests; Hypothesis shrinks a failing pair towards small datasets
and simple values::

    from hypothesis import HealthCheck, given, settings
    from dpfuzz import Domain, PureDP, strategies

    domain = Domain(low=0.0, high=1.0, min_size=0, max_size=5)

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(pair=strategies.neighbouring_pairs(domain))
    def test_noisy_sum(pair, dp_audit):
        dp_audit.pair(noisy_sum, PureDP(1.0), domain, pair)
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from dpfuzz.datasets import DatasetPair, Domain


def records(domain: Domain) -> st.SearchStrategy[np.ndarray]:
    """One record of the domain (a scalar, or a vector of `domain.dim` coordinates)."""
    low, high = np.atleast_1d(domain.lower), np.atleast_1d(domain.upper)
    if domain.dtype == "int":
        coordinates = [st.integers(int(a), int(b)) for a, b in zip(low, high)]
    else:
        coordinates = [st.floats(float(a), float(b), allow_nan=False, allow_infinity=False) for a, b in zip(low, high)]
    record = st.tuples(*coordinates).map(lambda values: np.array(values, dtype=domain.numpy_dtype))
    return record.map(lambda value: value[0]) if domain.dim is None else record


def datasets(domain: Domain, min_size: int | None = None, max_size: int | None = None) -> st.SearchStrategy[np.ndarray]:
    """Datasets of the domain (sizes within the domain's range, or the given narrower one)."""
    low = domain.min_size if min_size is None else min_size
    high = domain.max_size if max_size is None else max_size
    return st.lists(records(domain), min_size=low, max_size=high).map(lambda rows: _stack(domain, rows))


def neighbouring_pairs(domain: Domain) -> st.SearchStrategy[DatasetPair]:
    """Pairs (d0, d1) that are neighbours under the domain's relation (either order)."""
    if domain.relation == "linf":
        return st.builds(_linf_pair, st.just(domain), datasets(domain), st.lists(
            st.floats(-domain.sensitivity, domain.sensitivity, allow_nan=False),
            min_size=domain.max_size, max_size=domain.max_size,
        )).filter(lambda pair: not np.array_equal(pair.d0, pair.d1))
    k = domain.distance
    extra = st.lists(records(domain), min_size=k, max_size=k)
    if domain.relation == "substitute":
        return st.builds(
            _substitute, datasets(domain, min_size=max(domain.min_size, k)), extra, st.integers(0, 10**6)
        ).filter(lambda pair: _differs_everywhere(pair, k))
    return st.builds(_add_remove, datasets(domain, max_size=domain.max_size - k), extra, st.booleans())


def _stack(domain: Domain, rows: list) -> np.ndarray:
    return np.array(rows, dtype=domain.numpy_dtype).reshape((len(rows),) + domain.record_shape)


def _add_remove(base: np.ndarray, added: list, add: bool) -> DatasetPair:
    larger = np.concatenate([base, np.asarray(added, dtype=base.dtype).reshape((len(added),) + base.shape[1:])])
    return DatasetPair(base, larger) if add else DatasetPair(larger, base)


def _substitute(base: np.ndarray, replacements: list, offset: int) -> DatasetPair:
    changed = base.copy()
    start = offset % (len(base) - len(replacements) + 1)
    changed[start : start + len(replacements)] = np.asarray(replacements, dtype=base.dtype).reshape(
        (len(replacements),) + base.shape[1:]
    )
    return DatasetPair(base, changed)


def _differs_everywhere(pair: DatasetPair, k: int) -> bool:
    """Exactly k records replaced (as multisets): no replacement equal to what it replaced."""
    from dpfuzz.datasets import _multiset_difference

    return _multiset_difference(pair.d0, pair.d1) == (k, k)


def _linf_pair(domain: Domain, base: np.ndarray, step: list) -> DatasetPair:
    moved = np.clip(base + np.asarray(step), domain.lower, domain.upper).astype(base.dtype)
    return DatasetPair(base, moved)
