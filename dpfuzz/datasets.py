"""Record domains, neighbouring relations and dataset pairs.

A dataset is a numpy array with one row per record: shape ``(n,)`` for scalar records and
``(n, dim)`` for vector records. Two datasets are neighbours under

* ``"add_remove"`` — one is the other with one record added (sizes differ by one);
* ``"substitute"`` — same size, exactly one record replaced;
* ``"linf"`` — the dataset is a vector of query answers (one scalar per query, order matters)
  and every answer moves by at most ``sensitivity`` (StatDP / DP-Sniper's convention for SVT
  and noisy max).

The first two are multiset relations: the order of records does not matter.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

RELATIONS = ("add_remove", "substitute", "linf")
DTYPES = ("float", "int")


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


def format_dataset(dataset: np.ndarray, limit: int = 8) -> str:
    """A short, readable listing of a dataset's records (rounded, truncated)."""
    values = np.round(dataset, 4).tolist()
    if len(values) > limit:
        return f"[{', '.join(map(str, values[:limit]))}, … ({len(values)} records)]"
    return str(values)


@dataclass(frozen=True)
class Domain:
    """Where datasets live: record type and bounds, dataset sizes, neighbouring relation.

    Parameters
    ----------
    low, high : bounds of every record coordinate (scalars, or arrays of length ``dim``).
    min_size, max_size : allowed number of records in a dataset (inclusive).
    relation : ``"add_remove"``, ``"substitute"`` or ``"linf"`` (query-answer vectors of
        exactly ``min_size == max_size`` answers).
    dim : ``None`` for scalar records, else the length of each vector record.
    dtype : ``"float"`` or ``"int"`` (integer records take every value in [low, high]).
    sensitivity : for ``"linf"``, how far each answer may move between neighbours.
    distance : neighbours differ in this many records (groups of k under add/remove or
        substitute; 1 is the usual relation).
    """

    low: float | tuple = 0.0
    high: float | tuple = 1.0
    min_size: int = 0
    max_size: int = 10
    relation: Literal["add_remove", "substitute", "linf"] = "add_remove"
    dim: int | None = None
    dtype: Literal["float", "int"] = "float"
    sensitivity: float = 1.0
    distance: int = 1
    _low: np.ndarray = field(init=False, repr=False, compare=False)
    _high: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {RELATIONS}, got {self.relation!r}.")
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {DTYPES}, got {self.dtype!r}.")
        if self.dim is not None and (isinstance(self.dim, bool) or not isinstance(self.dim, int) or self.dim < 1):
            raise ValueError(f"dim must be None (scalar records) or a positive int, got {self.dim!r}.")
        for name in ("min_size", "max_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} must be a non-negative int, got {value!r}.")
        if self.max_size < self.min_size:
            raise ValueError(f"max_size ({self.max_size}) must be >= min_size ({self.min_size}).")
        if isinstance(self.distance, bool) or not isinstance(self.distance, int) or self.distance < 1:
            raise ValueError(f"distance must be a positive int, got {self.distance!r}.")
        if self.relation == "linf" and self.distance != 1:
            raise ValueError("relation='linf' moves every answer at once; distance must be 1.")
        if self.relation == "add_remove" and self.max_size - self.min_size < self.distance:
            raise ValueError(
                f"add_remove neighbours at distance {self.distance} need max_size - min_size >= {self.distance}, "
                f"got {self.min_size}..{self.max_size}; widen the size range."
            )
        if self.relation == "add_remove" and self.max_size == self.min_size:
            raise ValueError(
                f"add_remove neighbours differ in size by one, but min_size == max_size == {self.min_size}; "
                "widen the size range or use relation='substitute'."
            )
        if self.relation == "substitute" and self.max_size < self.distance:
            raise ValueError(f"substitute neighbours need at least {self.distance} record(s): set max_size >= {self.distance}.")
        if self.relation == "linf":
            if self.dim is not None or self.min_size != self.max_size or self.min_size < 1:
                raise ValueError(
                    "relation='linf' holds one scalar answer per query: set dim=None and "
                    f"min_size == max_size == the number of queries, got dim={self.dim!r}, "
                    f"min_size={self.min_size}, max_size={self.max_size}."
                )
            if not self.sensitivity > 0:
                raise ValueError(f"sensitivity must be > 0, got {self.sensitivity!r}.")
        shape = () if self.dim is None else (self.dim,)
        low, high = self._bound("low", self.low, shape), self._bound("high", self.high, shape)
        if not np.all(low <= high):
            raise ValueError(f"low must be <= high in every coordinate, got low={self.low!r}, high={self.high!r}.")
        if self.dtype == "int" and not (np.all(low == np.round(low)) and np.all(high == np.round(high))):
            raise ValueError(f"dtype='int' needs integer bounds, got low={self.low!r}, high={self.high!r}.")
        object.__setattr__(self, "_low", low)
        object.__setattr__(self, "_high", high)

    @staticmethod
    def _bound(name: str, value: object, shape: tuple) -> np.ndarray:
        try:
            array = np.broadcast_to(np.asarray(value, dtype=float), shape).copy()
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name}={value!r} must be a number or one per coordinate (shape {shape}).") from error
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must be finite, got {value!r}.")
        return array

    # -- shapes and records -------------------------------------------------------------
    @property
    def record_shape(self) -> tuple:
        return () if self.dim is None else (self.dim,)

    @property
    def numpy_dtype(self) -> type:
        return np.int64 if self.dtype == "int" else np.float64

    @property
    def lower(self) -> np.ndarray:
        """Lower bound per record coordinate, as an array of the record's shape."""
        return self._low

    @property
    def upper(self) -> np.ndarray:
        """Upper bound per record coordinate, as an array of the record's shape."""
        return self._high

    def dataset(self, records: object) -> np.ndarray:
        """Turn a sequence of records into a dataset array of this domain (validated)."""
        array = np.asarray(records, dtype=float).reshape((-1,) + self.record_shape)
        self.validate_dataset(array)
        return array.astype(self.numpy_dtype)

    def random_records(self, count: int, rng: np.random.Generator) -> np.ndarray:
        shape = (count,) + self.record_shape
        if self.dtype == "int":
            return rng.integers(self._low.astype(np.int64), self._high.astype(np.int64) + 1, size=shape)
        return rng.uniform(self._low, self._high, size=shape)

    def random_dataset(self, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        size = int(rng.integers(self.min_size, self.max_size + 1)) if size is None else size
        return self.random_records(size, rng)

    def random_neighbour(self, dataset: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random neighbour of `dataset` under this domain's relation."""
        n = len(dataset)
        if self.relation == "linf":
            while True:
                if self.dtype == "int":
                    step = rng.integers(-int(self.sensitivity), int(self.sensitivity) + 1, size=n)
                else:
                    step = rng.uniform(-self.sensitivity, self.sensitivity, size=n)
                neighbour = np.clip(dataset + step, self._low, self._high).astype(dataset.dtype)
                if not np.array_equal(neighbour, dataset):
                    return neighbour
        if self.relation == "substitute":
            if n == 0:
                raise ValueError("the empty dataset has no substitute neighbour.")
            if np.all(self._low == self._high):
                raise ValueError(f"the domain holds a single record value ({self.low}); nothing to substitute.")
            if n < self.distance:
                raise ValueError(f"a dataset of {n} records has no substitute neighbour at distance {self.distance}.")
            for _ in range(1000):  # k records out, k different ones in (as multisets)
                neighbour = dataset.copy()
                neighbour[rng.choice(n, size=self.distance, replace=False)] = self.random_records(self.distance, rng)
                if _multiset_difference(dataset, neighbour) == (self.distance, self.distance):
                    return neighbour
            raise ValueError(f"found no substitute neighbour at distance {self.distance} of {format_dataset(dataset)}.")
        k = self.distance
        can_add, can_remove = n + k <= self.max_size, n - k >= self.min_size
        if not (can_add or can_remove):
            raise ValueError(f"a dataset of {n} records has no add/remove neighbour at distance {k} in this domain.")
        if can_add and (not can_remove or rng.random() < 0.5):
            return np.concatenate([dataset, self.random_records(k, rng)])
        return np.delete(dataset, rng.choice(n, size=k, replace=False), axis=0)

    def random_pair(self, rng: np.random.Generator) -> DatasetPair:
        if self.relation == "add_remove":  # the smaller dataset, then k records added; either order
            smaller = self.random_dataset(rng, size=int(rng.integers(self.min_size, self.max_size - self.distance + 1)))
            larger = np.concatenate([smaller, self.random_records(self.distance, rng)])
            return DatasetPair(smaller, larger) if rng.random() < 0.5 else DatasetPair(larger, smaller)
        size_low = max(self.min_size, self.distance) if self.relation == "substitute" else self.min_size
        d0 = self.random_dataset(rng, size=int(rng.integers(size_low, self.max_size + 1)))
        return DatasetPair(d0, self.random_neighbour(d0, rng))

    # -- validation ------------------------------------------------------------------------
    def validate_dataset(self, dataset: np.ndarray, name: str = "dataset") -> None:
        if not isinstance(dataset, np.ndarray):
            raise TypeError(f"{name} must be a numpy array, got {type(dataset).__name__}.")
        if dataset.ndim != 1 + len(self.record_shape) or dataset.shape[1:] != self.record_shape:
            expected = "(n,)" if self.dim is None else f"(n, {self.dim})"
            raise ValueError(f"{name} has shape {dataset.shape}; this domain's datasets have shape {expected}.")
        if not self.min_size <= len(dataset) <= self.max_size:
            raise ValueError(
                f"{name} has {len(dataset)} records; the domain allows {self.min_size} to {self.max_size}."
            )
        if len(dataset) and (np.any(dataset < self._low) or np.any(dataset > self._high)):
            raise ValueError(f"{name} = {format_dataset(dataset)} has records outside [{self.low}, {self.high}].")
        if self.dtype == "int" and np.any(dataset != np.round(dataset)):
            raise ValueError(f"{name} = {format_dataset(dataset)} has non-integer records but dtype='int'.")

    def validate_pair(self, pair: DatasetPair) -> None:
        """Raise ValueError unless both datasets lie in the domain and are neighbours."""
        self.validate_dataset(pair.d0, "d0")
        self.validate_dataset(pair.d1, "d1")
        if self.relation == "linf":
            distance = float(np.max(np.abs(pair.d0 - pair.d1))) if len(pair.d0) else 0.0
            if distance > self.sensitivity * (1 + 1e-12) or distance == 0:
                raise ValueError(
                    f"{pair!r} are not linf neighbours: the answers move by up to {distance:g}, "
                    f"which must be in (0, {self.sensitivity:g}]."
                )
            return
        removed, added = _multiset_difference(pair.d0, pair.d1)
        k = self.distance
        if self.relation == "add_remove":
            ok = (removed, added) in ((k, 0), (0, k))
        else:
            ok = (removed, added) == (k, k)
        if not ok:
            raise ValueError(
                f"{pair!r} are not {self.relation} neighbours: d1 removes {removed} and adds {added} "
                "records of d0."
            )

    def to_dict(self) -> dict:
        def plain(value):
            return np.asarray(value).tolist()

        return {
            "low": plain(self.low),
            "high": plain(self.high),
            "min_size": int(self.min_size),
            "max_size": int(self.max_size),
            "relation": self.relation,
            "dim": self.dim,
            "dtype": self.dtype,
            "sensitivity": self.sensitivity,
            "distance": self.distance,
        }


def _multiset_difference(d0: np.ndarray, d1: np.ndarray) -> tuple[int, int]:
    """(records of d0 missing from d1, records of d1 missing from d0), as multisets."""
    c0 = Counter(map(_record_key, d0))
    c1 = Counter(map(_record_key, d1))
    return sum((c0 - c1).values()), sum((c1 - c0).values())


def _record_key(record: np.ndarray) -> tuple | float:
    return tuple(np.ravel(record).tolist()) if np.ndim(record) else float(record)
