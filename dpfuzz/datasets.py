"""Datasets and dataset pairs, and how they are shown.

A dataset is a numpy array with one row per record: shape ``(n,)`` for scalar records and
``(n, dim)`` for vector records. `dpfuzz.domain.Domain` says which records and sizes are allowed
and which neighbouring relation makes two datasets neighbours.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


@dataclass(frozen=True)
class DatasetPair:
    """Two neighbouring datasets; testers compare M(d0) against M(d1)."""

    d0: np.ndarray
    d1: np.ndarray

    def swapped(self) -> DatasetPair:
        return DatasetPair(self.d1, self.d0)

    def key(self) -> bytes:
        """The pair's contents as bytes: a dictionary key, equal for equal pairs (same dtype)."""
        return self.d0.tobytes() + b"|" + self.d1.tobytes()

    def to_dict(self) -> dict:
        return {"d0": self.d0.tolist(), "d1": self.d1.tolist()}

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.d0, self.d1))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DatasetPair)
            and np.array_equal(self.d0, other.d0)
            and np.array_equal(self.d1, other.d1)
        )

    __hash__ = None  # type: ignore[assignment]  # arrays are mutable

    def __repr__(self) -> str:
        return f"DatasetPair(d0={format_dataset(self.d0)}, d1={format_dataset(self.d1)})"


def format_records(records: ArrayLike, limit: int = 8, at: int | None = None) -> str:
    """A short, readable listing of records (rounded, truncated); a truncated listing shows the
    records around index `at` too (where two datasets differ)."""
    values = np.round(np.asarray(records, dtype=float), 4).tolist()
    values = [
        int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 1e15 else v for v in values
    ]
    if len(values) <= limit:
        return str(values)
    if at is None or at < limit:
        return f"[{', '.join(map(str, values[:limit]))}, … ({len(values)} records)]"
    head, window = values[:3], values[at - 1 : at + 2]
    tail = ", …" if at + 2 < len(values) else ""
    return (
        f"[{', '.join(map(str, head))}, …, {', '.join(map(str, window))}{tail} ({len(values)}"
        f" records; from record {at - 1})]"
    )


def format_dataset(dataset: np.ndarray, limit: int = 8, at: int | None = None) -> str:
    """A short, readable listing of a dataset's records (rounded, truncated; see
    `format_records`)."""
    return format_records(np.asarray(dataset).tolist(), limit, at)


def first_difference(pair: DatasetPair) -> int:
    """The first record index at which d0 and d1 differ (the shorter one's length if none does)."""
    shorter = min(len(pair.d0), len(pair.d1))
    rows0, rows1 = (
        (np.asarray(d[:shorter]).reshape(shorter, -1) for d in (pair.d0, pair.d1))
        if shorter
        else (np.empty((0, 1)),) * 2
    )
    differs = np.flatnonzero(np.any(rows0 != rows1, axis=1))
    return int(differs[0]) if len(differs) else shorter


def __getattr__(name: str) -> Any:
    if name == "Domain":  # deprecated location, kept for one minor release
        import warnings

        from dpfuzz.domain import Domain

        warnings.warn(
            "dpfuzz.datasets.Domain moved: import dpfuzz.Domain (or dpfuzz.domain.Domain).",
            DeprecationWarning,
            stacklevel=2,
        )
        return Domain
    raise AttributeError(f"module 'dpfuzz.datasets' has no attribute {name!r}")
