"""Hypothesis strategies for datasets and neighbouring pairs of a `Domain`.

Use them in your own property tests; Hypothesis shrinks a failing pair towards small datasets
and simple values::

    from hypothesis import HealthCheck, given, settings
    from dpfuzz import Domain, PureDP, strategies

    domain = Domain(low=0.0, high=1.0, min_size=0, max_size=5)

    @settings(max_examples=20, deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(pair=strategies.neighbouring_pairs(domain)) def test_noisy_sum(pair, dp_audit):
        dp_audit.pair(noisy_sum, PureDP(1.0), domain, pair)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from hypothesis import strategies as st

from dpfuzz.datasets import DatasetPair

if TYPE_CHECKING:  # a domain's relation builds its pairs from the strategies here
    from dpfuzz.domain import Domain


def records(domain: Domain) -> st.SearchStrategy[np.ndarray]:
    """One record of the domain (a scalar, or a vector of `domain.dim` coordinates)."""
    low, high = np.atleast_1d(domain.lower), np.atleast_1d(domain.upper)
    coordinates: list[st.SearchStrategy[int] | st.SearchStrategy[float]]
    if domain.dtype == "int":
        coordinates = [st.integers(int(a), int(b)) for a, b in zip(low, high)]
    else:
        coordinates = [
            st.floats(float(a), float(b), allow_nan=False, allow_infinity=False)
            for a, b in zip(low, high)
        ]
    record: st.SearchStrategy[np.ndarray] = st.tuples(*coordinates).map(
        lambda values: np.array(values, dtype=domain.numpy_dtype)
    )
    return record.map(lambda value: value[0]) if domain.dim is None else record


def datasets(
    domain: Domain, min_size: int | None = None, max_size: int | None = None
) -> st.SearchStrategy[np.ndarray]:
    """Datasets of the domain (sizes within the domain's range, or the given narrower one)."""
    low = domain.min_size if min_size is None else min_size
    high = domain.max_size if max_size is None else max_size
    return st.lists(records(domain), min_size=low, max_size=high).map(
        lambda rows: _stack(domain, rows)
    )


def neighbouring_pairs(domain: Domain) -> st.SearchStrategy[DatasetPair]:
    """Pairs (d0, d1) that are neighbours under the domain's relation (either order)."""
    return domain.relation.strategy(domain)


def _stack(domain: Domain, rows: list) -> np.ndarray:
    return np.array(rows, dtype=domain.numpy_dtype).reshape((len(rows),) + domain.record_shape)
