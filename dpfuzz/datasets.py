"""Datasets and dataset pairs, and how they are shown.

A dataset is a numpy array with one row per record: shape ``(n,)`` for scalar records and
``(n, dim)`` for vector records. `dpfuzz.domain.Domain` says which records and sizes are allowed
and which neighbouring relation makes two datasets neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np



@dataclass(frozen=True)
class DatasetPair:
    """Two neighbouring datasets; testers compare M(d0) against M(d1)."""

    d0: np.ndarray
    d1: np.ndarray

    def swapped(self) -> "DatasetPair":
        return DatasetPair(self.d1, self.d0)

    def key(self) -> bytes:
        """The pair's contents as bytes: a dictionary key, equal for equal pairs (same dtype)."""
        return self.d0.tobytes() + b"|" + self.d1.tobytes()

    def to_dict(self) -> dict:
        return {"d0": self.d0.tolist(), "d1": self.d1.tolist()}

    def __iter__(self):
        return iter((self.d0, self.d1))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DatasetPair)
            and np.array_equal(self.d0, other.d0)
            and np.array_equal(self.d1, other.d1)
        )

    __hash__ = None  # arrays are mutable

    def __repr__(self) -> str:
        return f"DatasetPair(d0={format_dataset(self.d0)}, d1={format_dataset(self.d1)})"


def format_records(records, limit: int = 8) -> str:
    """A short, readable listing of records (rounded, truncated)."""
    values = np.round(np.asarray(records, dtype=float), 4).tolist()
    values = [int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 1e15 else v for v in values]
    if len(values) > limit:
        return f"[{', '.join(map(str, values[:limit]))}, … ({len(values)} records)]"
    return str(values)


def format_dataset(dataset: np.ndarray, limit: int = 8) -> str:
    """A short, readable listing of a dataset's records (rounded, truncated)."""
    return format_records(np.asarray(dataset).tolist(), limit)





def __getattr__(name: str):
    if name == "Domain":  # deprecated location, kept for one minor release
        import warnings

        from dpfuzz.domain import Domain

        warnings.warn("dpfuzz.datasets.Domain moved: import dpfuzz.Domain (or dpfuzz.domain.Domain).", DeprecationWarning, stacklevel=2)
        return Domain
    raise AttributeError(f"module 'dpfuzz.datasets' has no attribute {name!r}")
