"""`Domain`: which records and dataset sizes are allowed, and which neighbouring relation
(`dpfuzz.relations`) makes two datasets neighbours."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpfuzz.datasets import DatasetPair, first_difference, format_dataset
from dpfuzz.errors import InvalidArgument
from dpfuzz.memory import check_affordable
from dpfuzz.relations import Linf, Relation, make_relation
from dpfuzz.validation import check_int

_DTYPE_NAMES = {"int": "int", "float": "float"}

# The largest |low| or |high|: squared distances between records stay finite (1e150² < 1e308).
LARGEST_BOUND = 1e150


def _dtype_name(dtype: Any) -> str:
    """ "int" or "float" from the strings, Python's int and float, or any numpy integer/float
    dtype."""
    if isinstance(dtype, str) and dtype in _DTYPE_NAMES:
        return dtype
    try:
        kind = np.dtype(dtype).kind
    except TypeError:
        kind = None
    if kind in ("i", "u"):
        return "int"
    if kind == "f":
        return "float"
    raise InvalidArgument(
        "dtype must be 'int' or 'float' (or int, float, a numpy integer or float dtype), got"
        f" {dtype!r}."
    )


@dataclass(frozen=True, init=False)
class Domain:
    """Where datasets live: record type and bounds, dataset sizes, neighbouring relation.

    Parameters
    ----------
    low, high : bounds of every record coordinate (scalars, or arrays of length ``dim``).
    min_size, max_size : allowed number of records in a dataset (inclusive).
    relation : ``"add_remove"`` (default), ``"substitute"`` or ``"linf"`` (query-answer vectors
        of exactly ``min_size == max_size`` answers), or a `dpfuzz.relations.Relation`.
    dim : ``None`` for scalar records, else the length of each vector record.
    dtype : ``"float"`` or ``"int"`` (Python's ``int``/``float`` and numpy dtypes work too);
        integer records take every value in [low, high].
    distance : add/remove and substitute: neighbours differ in this many records (groups of k;
        default 1).
    sensitivity : linf: how far each answer may move between neighbours (default 1).
    labelled : vector records whose last coordinate is a class label (features first). The
        search then also proposes neighbours that differ only in a label: records that share
        their features, and datasets whose set of classes differs.

    Notes
    -----
    After construction `relation` is the `Relation` object, and `distance` and `sensitivity`
    hold its parameter (1 and None for the multiset relations, 1 and s for linf).
    """

    low: float | tuple
    high: float | tuple
    min_size: int
    max_size: int
    relation: Relation
    dim: int | None
    dtype: str
    distance: int | None
    sensitivity: float | None
    labelled: bool
    _low: np.ndarray = field(init=False, repr=False, compare=False)
    _high: np.ndarray = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        low: float | tuple | np.ndarray = 0.0,
        high: float | tuple | np.ndarray = 1.0,
        min_size: int = 0,
        max_size: int = 10,
        relation: str | Relation = "add_remove",
        dim: int | None = None,
        dtype: object = "float",
        distance: int | None = None,
        sensitivity: float | None = None,
        labelled: bool = False,
    ) -> None:
        given = {
            "low": low,
            "high": high,
            "min_size": min_size,
            "max_size": max_size,
            "relation": relation,
            "dim": dim,
            "dtype": dtype,
            "distance": distance,
            "sensitivity": sensitivity,
            "labelled": labelled,
        }
        for name, value in given.items():
            object.__setattr__(self, name, value)
        self._check_and_resolve(relation)

    def _check_and_resolve(self, relation_name: str | Relation) -> None:
        relation = make_relation(relation_name, self.distance, self.sensitivity)
        object.__setattr__(self, "relation", relation)
        object.__setattr__(self, "distance", getattr(relation, "distance", 1))
        object.__setattr__(
            self, "sensitivity", relation.sensitivity if isinstance(relation, Linf) else None
        )
        object.__setattr__(self, "dtype", _dtype_name(self.dtype))
        if self.dim is not None:
            check_int("dim (None for scalar records)", self.dim, minimum=1)
        if not isinstance(self.labelled, (bool, np.bool_)):
            raise InvalidArgument(f"labelled must be True or False, got {self.labelled!r}.")
        if self.labelled and (self.dim or 1) < 2:
            raise InvalidArgument(
                "labelled=True needs vector records of features and a label (dim >= 2), got"
                f" dim={self.dim!r}."
            )
        for name in ("min_size", "max_size"):
            object.__setattr__(self, name, check_int(name, getattr(self, name), minimum=0))
        if self.max_size < self.min_size:
            raise InvalidArgument(
                f"max_size ({self.max_size}) must be >= min_size ({self.min_size})."
            )
        width = self.dim or 1
        check_affordable(
            [
                (
                    "max_size" if width == 1 else "dim",
                    self.max_size if width == 1 else width,
                    16 * max(self.max_size, 1) * width,
                    f"two datasets of {self.max_size:,} records"
                    + (f" of {width:,} values" if width > 1 else ""),
                )
            ]
        )
        shape = () if self.dim is None else (self.dim,)
        low, high = self._bound("low", self.low, shape), self._bound("high", self.high, shape)
        if not np.all(low <= high):
            raise InvalidArgument(
                f"low must be <= high in every coordinate, got low={self.low!r},"
                f" high={self.high!r}."
            )
        if self.dtype == "int" and not (
            np.all(low == np.round(low)) and np.all(high == np.round(high))
        ):
            raise InvalidArgument(
                f"dtype='int' needs integer bounds, got low={self.low!r}, high={self.high!r}."
            )
        object.__setattr__(self, "_low", low)
        object.__setattr__(self, "_high", high)
        relation.check_domain(self)

    @staticmethod
    def _bound(name: str, value: object, shape: tuple) -> np.ndarray:
        if np.asarray(value).dtype.kind not in "iuf":  # "0" and True are not numbers here
            raise InvalidArgument(
                f"{name}={value!r} must be a number or one per coordinate (shape {shape}), got"
                f" {type(value).__name__}."
            )
        try:
            array = np.broadcast_to(np.asarray(value, dtype=float), shape).copy()
        except (TypeError, ValueError) as error:
            raise InvalidArgument(
                f"{name}={value!r} must be a number or one per coordinate (shape {shape})."
            ) from error
        if not np.all(np.isfinite(array)):
            raise InvalidArgument(f"{name} must be finite, got {value!r}.")
        if np.any(np.abs(array) > LARGEST_BOUND):
            raise InvalidArgument(
                f"{name}={value!r} is beyond ±{LARGEST_BOUND:g}: differences and squared distances"
                " between records would overflow. Rescale the records."
            )
        return array

    # -- shapes and records -------------------------------------------------------------
    @property
    def record_shape(self) -> tuple:
        return () if self.dim is None else (self.dim,)

    @property
    def record_width(self) -> int:
        """Coordinates per record (1 for scalar records)."""
        return 1 if self.dim is None else self.dim

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
            return rng.integers(
                self._low.astype(np.int64), self._high.astype(np.int64) + 1, size=shape
            )
        return rng.uniform(self._low, self._high, size=shape)

    def random_dataset(self, rng: np.random.Generator, size: int | None = None) -> np.ndarray:
        size = int(rng.integers(self.min_size, self.max_size + 1)) if size is None else size
        return self.random_records(size, rng)

    def record_at(self, fraction: float | np.ndarray) -> np.ndarray:
        """The record at `fraction` of the way from `lower` to `upper` in every coordinate (or
        per coordinate: an array of the record's shape)."""
        record = self._low + fraction * (self._high - self._low)
        return np.round(record) if self.dtype == "int" else record

    def constant_records(self, record: object, count: int) -> np.ndarray:
        """`count` copies of one record, as a dataset array."""
        return np.broadcast_to(
            np.asarray(record, dtype=self.numpy_dtype), (count,) + self.record_shape
        ).copy()

    def records_from_unit(self, unit: np.ndarray) -> np.ndarray:
        """Records from coordinates in [0, 1], `record_width` per record (integers: equal cells)."""
        width = self.record_width
        low, span = self._low.reshape(-1), (self._high - self._low).reshape(-1)
        cells = np.asarray(unit, dtype=float).reshape(-1, width)
        if self.dtype == "int":
            values = np.minimum(low + np.floor(cells * (span + 1)), self._high.reshape(-1))
        else:
            values = low + cells * span
        values = values.astype(self.numpy_dtype)
        return values[:, 0] if self.dim is None else values

    def random_pair(self, rng: np.random.Generator) -> DatasetPair:
        """A random neighbouring pair of the domain (either order)."""
        return self.relation.random_pair(self, rng)

    # -- validation and description ------------------------------------------------------
    def validate_dataset(self, dataset: np.ndarray, name: str = "dataset") -> None:
        if not isinstance(dataset, np.ndarray):
            raise InvalidArgument(f"{name} must be a numpy array, got {type(dataset).__name__}.")
        if dataset.ndim != 1 + len(self.record_shape) or dataset.shape[1:] != self.record_shape:
            expected = "(n,)" if self.dim is None else f"(n, {self.dim})"
            raise InvalidArgument(
                f"{name} has shape {dataset.shape}; this domain's datasets have shape {expected}."
            )
        if not self.min_size <= len(dataset) <= self.max_size:
            raise InvalidArgument(
                f"{name} has {len(dataset)} records; the domain allows {self.min_size} to"
                f" {self.max_size}."
            )
        if len(dataset) and (np.any(dataset < self._low) or np.any(dataset > self._high)):
            raise InvalidArgument(
                f"{name} = {format_dataset(dataset)} has records outside [{self.low}, {self.high}]."
            )
        if self.dtype == "int" and np.any(dataset != np.round(dataset)):
            raise InvalidArgument(
                f"{name} = {format_dataset(dataset)} has non-integer records but dtype='int'."
            )

    def validate_pair(self, pair: DatasetPair) -> None:
        """Raise `InvalidArgument` unless both datasets lie in the domain and are neighbours."""
        if not isinstance(pair, DatasetPair):
            raise InvalidArgument(f"expected a dpfuzz.DatasetPair, got {type(pair).__name__}.")
        self.validate_dataset(pair.d0, "d0")
        self.validate_dataset(pair.d1, "d1")
        self.relation.check_pair(self, pair)

    def describe_pair(self, pair: DatasetPair) -> list[str]:
        """What differs first, then both datasets: ``["d1 = d0 + [0.0] (added)", "d0 = …", "d1 =
        …"]``."""
        at = first_difference(pair)
        return [
            self.relation.difference(pair),
            f"d0 = {format_dataset(pair.d0, at=at)}",
            f"d1 = {format_dataset(pair.d1, at=at)}",
        ]

    def to_dict(self) -> dict:
        def plain(value):
            return np.asarray(value).tolist()

        return {
            "low": plain(self.low),
            "high": plain(self.high),
            "min_size": int(self.min_size),
            "max_size": int(self.max_size),
            "dim": self.dim,
            "dtype": self.dtype,
            **self.relation.domain_fields(),
            **({"labelled": True} if self.labelled else {}),
        }


def enclosing_domain(pairs: list[DatasetPair]) -> Domain:
    """The smallest domain holding the pairs, under the first built-in relation that makes every
    pair a neighbouring pair (add/remove, substitute, then ℓ∞ with sensitivity 1)."""
    datasets = [np.asarray(dataset) for pair in pairs for dataset in pair]
    values = np.concatenate(
        [dataset.reshape(len(dataset), int(np.prod(dataset.shape[1:]))) for dataset in datasets]
    )
    vector = datasets[0].ndim > 1
    integral = all(
        np.issubdtype(dataset.dtype, np.integer) or np.array_equal(dataset, np.round(dataset))
        for dataset in datasets
    )
    low, high = (
        (values.min(axis=0), values.max(axis=0)) if len(values) else (np.zeros(1), np.ones(1))
    )
    if not vector:
        low, high = float(low.min()), float(high.max())
    sizes = [len(dataset) for dataset in datasets]
    base: dict[str, Any] = {
        "low": low,
        "high": high,
        "dim": datasets[0].shape[1] if vector else None,
        "dtype": "int" if integral else "float",
    }
    smallest, largest = min(sizes), max(sizes)
    # add/remove and substitute need a size range of at least two; linf one size, the answers' count
    candidates = (
        ("add_remove", smallest, max(largest, smallest + 1)),
        ("substitute", smallest, largest + 1),
        ("linf", largest, largest),
    )
    tried = []
    for relation, min_size, max_size in candidates:
        try:
            domain = Domain(**base, relation=relation, min_size=min_size, max_size=max_size)
            for pair in pairs:
                domain.validate_pair(pair)
            return domain
        except InvalidArgument as error:
            tried.append(f"{relation}: {error}")
    raise InvalidArgument(
        "the pairs are not neighbours under add_remove, substitute or linf (sensitivity 1); pass a"
        " Domain whose relation they satisfy, and its pairs. " + " ".join(tried)
    )
