"""Neighbouring relations: which datasets are neighbours, and everything that depends on it.

Each relation is one object that owns, for a `Domain`: its constraints on the domain, the
validity check of a pair, random neighbouring pairs, the unit-cube parameterisation of pairs
(so any optimiser can search them), its Hypothesis strategy, the classic hand-made patterns,
the grid finder's lattice and the description of what differs in a pair. A new relation is a
new subclass here, and nothing else changes.

* `AddRemove(distance=k)`: one dataset is the other with k records added (sizes differ by k);
* `Substitute(distance=k)`: same size, k records replaced;
* `Linf(sensitivity=s)`: the dataset is a vector of query answers (one scalar per query, order
  matters) and every answer moves by at most s (StatDP and DP-Sniper's convention for SVT and
  noisy max).

The first two are multiset relations: the order of records does not matter. ``distance=1`` is
the usual relation; larger distances audit groups of records.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from dpfuzz.datasets import DatasetPair, format_dataset, format_records
from dpfuzz.errors import InvalidArgument
from dpfuzz.validation import check_choice, check_int, check_number

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

if TYPE_CHECKING:
    from dpfuzz.domain import Domain


class Relation(ABC):
    """A neighbouring relation; see the module docstring for what each subclass owns."""

    name: ClassVar[str]

    @abstractmethod
    def check_domain(self, domain: Domain) -> None:
        """Raise `InvalidArgument` unless the domain can hold neighbouring pairs of this
        relation."""

    @abstractmethod
    def check_pair(self, domain: Domain, pair: DatasetPair) -> None:
        """Raise `InvalidArgument` unless the pair (of valid datasets) are neighbours."""

    @abstractmethod
    def random_pair(self, domain: Domain, rng: np.random.Generator) -> DatasetPair: ...

    @abstractmethod
    def unit_dimension(self, domain: Domain) -> int:
        """Number of coordinates of the unit-cube parameterisation."""

    @abstractmethod
    def pair_from_unit(self, domain: Domain, unit: np.ndarray) -> DatasetPair:
        """The neighbouring pair at a point of [0, 1]^unit_dimension (every point is a valid
        pair)."""

    @abstractmethod
    def strategy(self, domain: Domain) -> SearchStrategy[DatasetPair]:
        """A Hypothesis strategy of neighbouring pairs (either order)."""

    @abstractmethod
    def classic_pairs(self, domain: Domain) -> list[DatasetPair]:
        """Hand-made pairs that catch most textbook bugs, tried before any search."""

    def turn_around_pairs(self, domain: Domain) -> list[DatasetPair]:
        """The classic pairs that turn an aggregate around (the multiset relations' last one;
        none by default)."""
        return []

    @abstractmethod
    def classic_units(self, domain: Domain) -> list[np.ndarray]:
        """`classic_pairs` as points of the unit cube (`pair_from_unit` maps each to its pair)."""

    @abstractmethod
    def lattice(self, domain: Domain, points: int) -> list[DatasetPair]:
        """The grid finder's pairs with `points` values per parameter, corners (classic) first."""

    @abstractmethod
    def difference(self, pair: DatasetPair) -> str:
        """What d1 changes in d0, in words (shown before the datasets themselves)."""

    @abstractmethod
    def domain_fields(self) -> dict:
        """The relation as `Domain` keyword arguments (``relation`` name and parameters)."""

    def __str__(self) -> str:
        return self.name


def make_relation(
    name: str | Relation, distance: int | None = None, sensitivity: float | None = None
) -> Relation:
    """The relation a `Domain` names: a `Relation`, or a name with its parameter."""
    if isinstance(name, Relation):
        own = name.domain_fields()
        if distance not in (None, own.get("distance", 1)) or sensitivity not in (
            None,
            own.get("sensitivity"),
        ):
            raise InvalidArgument(
                f"relation={name!r} carries its own parameters; leave distance and sensitivity"
                " unset."
            )
        return name
    check_choice("relation", name, RELATION_NAMES)
    if name == Linf.name:
        if distance not in (None, 1):
            raise InvalidArgument(
                f"relation='linf' moves every answer at once; distance must be 1, got {distance!r}."
            )
        return Linf(1.0 if sensitivity is None else sensitivity)
    if sensitivity is not None:
        raise InvalidArgument(
            f"sensitivity belongs to relation='linf'; relation={name!r} takes distance=k instead."
        )
    return RELATIONS[name](1 if distance is None else distance)


# -- multiset relations -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Multiset(Relation):
    """Shared by add/remove and substitute: records are a multiset, `distance` of them differ."""

    distance: int = 1
    replaces: ClassVar[bool]  # d1 replaces records of d0 (substitute) or only adds them

    def __post_init__(self) -> None:
        check_int("distance", self.distance, minimum=1)

    def domain_fields(self) -> dict:
        return {"relation": self.name, "distance": self.distance}

    def __str__(self) -> str:
        return self.name if self.distance == 1 else f"{self.name}(distance={self.distance})"

    # What differs, as multisets of records.
    @staticmethod
    def changes(pair: DatasetPair) -> tuple[list, list]:
        """(records of d0 missing from d1, records of d1 missing from d0), as multisets."""
        c0, c1 = Counter(map(_record_key, pair.d0)), Counter(map(_record_key, pair.d1))
        return list((c0 - c1).elements()), list((c1 - c0).elements())

    def counts(self, pair: DatasetPair) -> tuple[int, int]:
        removed, added = self.changes(pair)
        return len(removed), len(added)

    def difference(self, pair: DatasetPair) -> str:
        removed, added = self.changes(pair)
        if removed and added:
            return f"d1 = d0 with {format_records(removed)} replaced by {format_records(added)}"
        if added:
            return f"d1 = d0 + {format_records(added)} (added)"
        if removed:
            return f"d1 = d0 − {format_records(removed)} (removed)"
        return "d1 = d0 (no record differs)"

    def check_pair(self, domain: Domain, pair: DatasetPair) -> None:
        removed, added = self.counts(pair)
        if (removed, added) not in self.valid_counts():
            raise InvalidArgument(
                f"{pair!r} are not {self} neighbours: d1 removes {removed} and adds {added} records"
                " of d0."
            )

    def valid_counts(self) -> tuple[tuple[int, int], ...]:
        raise NotImplementedError

    def pattern_sizes(self, domain: Domain) -> list[int]:
        """Smallest and largest size of d0 in the classic patterns."""
        raise NotImplementedError

    def constant_pair(
        self, domain: Domain, size: int, base: np.ndarray, other: np.ndarray
    ) -> DatasetPair:
        """`size` copies of `base`, and its neighbour with `distance` copies of `other`."""
        raise NotImplementedError

    def classic_pairs(self, domain: Domain) -> list[DatasetPair]:
        """Identical extreme records with `distance` differing extreme records: the largest
        change of a sum or mean, at the smallest and largest sizes (scale bugs that depend on n).
        A labelled domain's come next: the same features with the other extreme label. Last, the
        turn-around pair (`turn_around`)."""
        sizes = self.pattern_sizes(domain)
        return self._extreme_pairs(domain, _patterns(domain, sizes) + self.turn_around(domain))

    def turn_around_pairs(self, domain: Domain) -> list[DatasetPair]:
        return self._extreme_pairs(domain, self.turn_around(domain))

    def turn_around(self, domain: Domain) -> list[tuple[np.ndarray, np.ndarray, int]]:
        """The turn-around pattern, as `_patterns` gives them (decision record 0039). d0 holds
        equal base records above the middle of the range, at the smallest size that leaves one
        of them in d1; d1 adds (or substitutes) k = `distance` records at `lower`. With m base
        records left in d1, they sit k / 2m half-ranges above the middle, so the total about the
        middle turns from positive in d0 to −k/2 in d1: (½, then ½ + (−1), in [−1, 1]). Equal
        extremes cancel instead, so this is the pair that moves a clipped, normalised or signed
        aggregate (a microbatch's clipped mean) by two records' share. None where the sizes
        leave no room, where integer records round the base so that the total no longer turns,
        and in a labelled domain, whose eight classic pairs already take most of a search's
        trials."""
        sizes = self.pattern_sizes(domain)
        removed = self.distance if self.replaces else 0  # base records of d0 not in d1
        base_size = max(sizes[0], removed + 1)
        if domain.labelled or base_size > sizes[-1]:
            return []
        kept = base_size - removed
        base = np.full(domain.record_shape, min(1.0, 0.5 + 0.25 * self.distance / kept))
        middle = (domain.lower + domain.upper) / 2
        total = kept * (_record(domain, base) - middle) + self.distance * (domain.lower - middle)
        if np.any(total >= 0):  # integer records rounded the base: the total does not turn
            return []
        return [(base, np.zeros(domain.record_shape), base_size)]

    def _extreme_pairs(self, domain: Domain, patterns: list) -> list[DatasetPair]:
        """`constant_pair` of each (base, other, size) of `patterns`, fractions of the way from
        `lower` to `upper` in each record coordinate (1 is `upper` and 0 `lower` exactly)."""
        return [
            self.constant_pair(domain, size, _record(domain, base), _record(domain, other))
            for base, other, size in patterns
        ]

    def lattice(self, domain: Domain, points: int) -> list[DatasetPair]:
        extremes = self.pattern_sizes(domain)
        sizes = np.unique(np.round(np.linspace(extremes[0], extremes[-1], points)).astype(int))
        fractions = np.linspace(0.0, 1.0, points)

        def is_corner(cell: tuple) -> bool:
            size, base, other = cell
            return size in extremes and base in (0.0, 1.0) and other in (0.0, 1.0)

        cells = sorted(
            itertools.product(sizes, fractions, fractions), key=lambda c: not is_corner(c)
        )
        corners = sum(map(is_corner, cells))
        candidates = [
            self.constant_pair(domain, int(size), domain.record_at(base), domain.record_at(other))
            for size, base, other in cells
        ]
        # a labelled domain's relabelled classic pairs, or the turn-around, come right after the
        # corners
        after_corners = self._extreme_pairs(
            domain, _label_patterns(domain, extremes) + self.turn_around(domain)
        )
        pairs, keys = [], set()
        for pair in candidates[:corners] + after_corners + candidates[corners:]:
            if pair.key() not in keys and not np.array_equal(pair.d0, pair.d1):
                keys.add(pair.key())
                pairs.append(pair)
        return pairs

    def unit_dimension(self, domain: Domain) -> int:
        # size, orientation or offset, a pool of max_size records, the `distance` new records
        return 2 + (domain.max_size + self.distance) * domain.record_width

    def _unit_records(self, domain: Domain, unit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        split = 2 + domain.max_size * domain.record_width
        return domain.records_from_unit(unit[2:split]), domain.records_from_unit(unit[split:])

    def _unit_point(
        self, domain: Domain, size: float, order: float, base: np.ndarray, other: np.ndarray
    ) -> np.ndarray:
        """The unit point of `constant_pair` with records at fractions `base` and `other` (one
        per record coordinate) of the way from `lower` to `upper`."""
        pool, extra = domain.max_size * domain.record_width, self.distance * domain.record_width
        base, other = (np.ravel(np.broadcast_to(f, domain.record_shape)) for f in (base, other))
        return np.concatenate([[size, order], np.resize(base, pool), np.resize(other, extra)])

    def _classic_units(self, domain: Domain, order: float) -> list[np.ndarray]:
        sizes = self.pattern_sizes(domain)
        low, high = sizes[0], sizes[-1]

        def size_unit(size: int) -> float:  # `_choose` maps it back to `size`
            return (
                0.0
                if size == low
                else 1.0
                if size == high
                else (size - low + 0.5) / (high - low + 1)
            )

        return [
            self._unit_point(domain, size_unit(size), order, base, other)
            for base, other, size in _patterns(domain, sizes) + self.turn_around(domain)
        ]


@dataclass(frozen=True)
class AddRemove(_Multiset):
    """One dataset is the other with `distance` records added."""

    name: ClassVar[str] = "add_remove"
    replaces: ClassVar[bool] = False

    def check_domain(self, domain: Domain) -> None:
        if domain.max_size == domain.min_size:
            raise InvalidArgument(
                "add_remove neighbours differ in size, but min_size == max_size =="
                f" {domain.min_size}; widen the size range or use relation='substitute'."
            )
        if domain.max_size - domain.min_size < self.distance:
            raise InvalidArgument(
                f"add_remove neighbours at distance {self.distance} need max_size - min_size >="
                f" {self.distance}, got {domain.min_size}..{domain.max_size}; widen the size range."
            )

    def valid_counts(self) -> tuple[tuple[int, int], ...]:
        return ((self.distance, 0), (0, self.distance))

    def random_pair(self, domain: Domain, rng: np.random.Generator) -> DatasetPair:
        smaller = domain.random_dataset(
            rng, size=int(rng.integers(domain.min_size, domain.max_size - self.distance + 1))
        )
        larger = np.concatenate([smaller, domain.random_records(self.distance, rng)])
        return DatasetPair(smaller, larger) if rng.random() < 0.5 else DatasetPair(larger, smaller)

    def pair_from_unit(self, domain: Domain, unit: np.ndarray) -> DatasetPair:
        unit = np.clip(np.asarray(unit, dtype=float), 0.0, 1.0)
        pool, extra = self._unit_records(domain, unit)
        smaller = pool[: _choose(unit[0], domain.min_size, domain.max_size - self.distance)]
        larger = np.concatenate([smaller, extra[: self.distance]])
        return DatasetPair(smaller, larger) if unit[1] < 0.5 else DatasetPair(larger, smaller)

    def pattern_sizes(self, domain: Domain) -> list[int]:
        return sorted({domain.min_size, domain.max_size - self.distance})

    def constant_pair(
        self, domain: Domain, size: int, base: np.ndarray, other: np.ndarray
    ) -> DatasetPair:
        records = domain.constant_records(base, size)
        return DatasetPair(
            records, np.concatenate([records, domain.constant_records(other, self.distance)])
        )

    def classic_units(self, domain: Domain) -> list[np.ndarray]:
        return self._classic_units(domain, order=0.0)

    def strategy(self, domain: Domain) -> SearchStrategy[DatasetPair]:
        from hypothesis import strategies as st

        from dpfuzz.strategies import datasets, records

        def build(base: np.ndarray, added: list, add: bool) -> DatasetPair:
            larger = np.concatenate(
                [base, np.asarray(added, dtype=base.dtype).reshape((len(added),) + base.shape[1:])]
            )
            return DatasetPair(base, larger) if add else DatasetPair(larger, base)

        extra = st.lists(records(domain), min_size=self.distance, max_size=self.distance)
        return st.builds(
            build, datasets(domain, max_size=domain.max_size - self.distance), extra, st.booleans()
        )


@dataclass(frozen=True)
class Substitute(_Multiset):
    """Same size, `distance` records replaced by other values."""

    name: ClassVar[str] = "substitute"
    replaces: ClassVar[bool] = True

    def check_domain(self, domain: Domain) -> None:
        if domain.max_size < self.distance:
            raise InvalidArgument(
                f"substitute neighbours need at least {self.distance} record(s): set max_size >="
                f" {self.distance}."
            )

    def valid_counts(self) -> tuple[tuple[int, int], ...]:
        return ((self.distance, self.distance),)

    def random_pair(self, domain: Domain, rng: np.random.Generator) -> DatasetPair:
        size = int(rng.integers(max(domain.min_size, self.distance), domain.max_size + 1))
        d0 = domain.random_dataset(rng, size=size)
        return DatasetPair(d0, self.random_neighbour(domain, d0, rng))

    def random_neighbour(
        self, domain: Domain, dataset: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """`distance` records out, as many different ones in (as multisets)."""
        if np.all(domain.lower == domain.upper):
            raise InvalidArgument(
                f"the domain holds a single record value ({domain.low}); nothing to substitute."
            )
        for _ in range(1000):
            neighbour = dataset.copy()
            neighbour[rng.choice(len(dataset), size=self.distance, replace=False)] = (
                domain.random_records(self.distance, rng)
            )
            if self.counts(DatasetPair(dataset, neighbour)) == (self.distance, self.distance):
                return neighbour
        raise InvalidArgument(
            f"found no substitute neighbour at distance {self.distance} of"
            f" {format_dataset(dataset)}."
        )

    def pair_from_unit(self, domain: Domain, unit: np.ndarray) -> DatasetPair:
        unit = np.clip(np.asarray(unit, dtype=float), 0.0, 1.0)
        pool, extra = self._unit_records(domain, unit)
        k = self.distance
        size = _choose(unit[0], max(domain.min_size, k), domain.max_size)
        base = pool[:size].copy()
        changed = base.copy()
        start = _choose(unit[1], 0, size - k)
        changed[start : start + k] = extra[:k]
        if self.counts(DatasetPair(base, changed)) != (
            k,
            k,
        ):  # a replacement repeated a removed record
            changed = self.random_neighbour(
                domain, base, np.random.default_rng(int(unit.sum() * 2**32))
            )
        return DatasetPair(base, changed)

    def pattern_sizes(self, domain: Domain) -> list[int]:
        return sorted({max(domain.min_size, self.distance), domain.max_size})

    def constant_pair(
        self, domain: Domain, size: int, base: np.ndarray, other: np.ndarray
    ) -> DatasetPair:
        records = domain.constant_records(base, size)
        changed = records.copy()
        changed[size - self.distance :] = domain.constant_records(other, self.distance)
        return DatasetPair(records, changed)

    def classic_units(self, domain: Domain) -> list[np.ndarray]:
        # offset 1.0 replaces the last records, as `constant_pair` does
        return self._classic_units(domain, order=1.0)

    def strategy(self, domain: Domain) -> SearchStrategy[DatasetPair]:
        from hypothesis import strategies as st

        from dpfuzz.strategies import datasets, records

        k = self.distance

        def build(base: np.ndarray, replacements: list, offset: int) -> DatasetPair:
            changed = base.copy()
            start = offset % (len(base) - k + 1)
            changed[start : start + k] = np.asarray(replacements, dtype=base.dtype).reshape(
                (k,) + base.shape[1:]
            )
            return DatasetPair(base, changed)

        extra = st.lists(records(domain), min_size=k, max_size=k)
        pairs = st.builds(
            build, datasets(domain, min_size=max(domain.min_size, k)), extra, st.integers(0, 10**6)
        )
        return pairs.filter(lambda pair: self.counts(pair) == (k, k))


# -- query-answer vectors ----------------------------------------------------------------------
@dataclass(frozen=True)
class Linf(Relation):
    """Query-answer vectors whose every answer moves by at most `sensitivity`."""

    sensitivity: float = 1.0
    name: ClassVar[str] = "linf"

    def __post_init__(self) -> None:
        check_number("sensitivity", self.sensitivity, minimum=0.0, exclusive_minimum=True)

    def domain_fields(self) -> dict:
        return {"relation": self.name, "sensitivity": self.sensitivity}

    def __str__(self) -> str:
        return self.name if self.sensitivity == 1 else f"linf(sensitivity={self.sensitivity:g})"

    def check_domain(self, domain: Domain) -> None:
        if domain.dim is not None or domain.min_size != domain.max_size or domain.min_size < 1:
            raise InvalidArgument(
                "relation='linf' holds one scalar answer per query: set dim=None and "
                f"min_size == max_size == the number of queries, got dim={domain.dim!r}, "
                f"min_size={domain.min_size}, max_size={domain.max_size}."
            )

    def check_pair(self, domain: Domain, pair: DatasetPair) -> None:
        moved = float(np.max(np.abs(pair.d0 - pair.d1))) if len(pair.d0) else 0.0
        if moved > self.sensitivity * (1 + 1e-12) or moved == 0:
            raise InvalidArgument(
                f"{pair!r} are not linf neighbours: the answers move by up to {moved:g}, "
                f"which must be in (0, {self.sensitivity:g}]."
            )

    def difference(self, pair: DatasetPair) -> str:
        return (
            "d1 = d0 +"
            f" {format_records(np.asarray(pair.d1, float) - np.asarray(pair.d0, float), limit=12)}"
            " (answers moved)"
        )

    def random_pair(self, domain: Domain, rng: np.random.Generator) -> DatasetPair:
        d0 = domain.random_dataset(rng)
        while True:
            step: np.ndarray
            if domain.dtype == "int":
                step = rng.integers(-int(self.sensitivity), int(self.sensitivity) + 1, size=len(d0))
            else:
                step = rng.uniform(-self.sensitivity, self.sensitivity, size=len(d0))
            d1 = np.clip(d0 + step, domain.lower, domain.upper).astype(d0.dtype)
            if not np.array_equal(d0, d1):
                return DatasetPair(d0, d1)

    def unit_dimension(self, domain: Domain) -> int:
        return 2 * domain.max_size  # the answers, then one step per answer

    def pair_from_unit(self, domain: Domain, unit: np.ndarray) -> DatasetPair:
        unit = np.clip(np.asarray(unit, dtype=float), 0.0, 1.0)
        n = domain.max_size
        base = domain.records_from_unit(unit[:n])
        steps = (2 * unit[n:] - 1) * self.sensitivity
        if domain.dtype == "int":
            steps = np.round(steps)
        moved: np.ndarray = np.clip(base + steps, domain.lower, domain.upper).astype(
            domain.numpy_dtype
        )
        if np.array_equal(moved, base):  # a zero step is no neighbour: move the first answer
            moved = moved.copy()
            up = base[0] + self.sensitivity <= domain.upper
            moved[0] = (
                base[0] + self.sensitivity if up else max(base[0] - self.sensitivity, domain.lower)
            )
        return DatasetPair(base, moved)

    @staticmethod
    def directions(k: int) -> list[np.ndarray]:
        """StatDP's patterns: one answer up and the rest down, half up half down, all up, all
        down."""
        index = np.arange(k)
        return [
            np.where(index == 0, 1.0, -1.0),
            np.where(index < (k + 1) // 2, 1.0, -1.0),
            np.ones(k),
            -np.ones(k),
        ]

    def vector_pair(self, domain: Domain, level: float, direction: np.ndarray) -> DatasetPair:
        """All answers at `level`, and the same moved by the sensitivity along `direction`."""
        base = np.full(domain.max_size, level)
        if domain.dtype == "int":
            base = np.floor(base)
        moved = np.clip(base + self.sensitivity * direction, domain.lower, domain.upper)
        return DatasetPair(base.astype(domain.numpy_dtype), moved.astype(domain.numpy_dtype))

    def classic_pairs(self, domain: Domain) -> list[DatasetPair]:
        """The four StatDP patterns from the middle of the answer range."""
        middle = (float(domain.lower) + float(domain.upper)) / 2
        return [
            self.vector_pair(domain, middle, direction)
            for direction in self.directions(domain.max_size)
        ]

    def classic_units(self, domain: Domain) -> list[np.ndarray]:
        n, low, high = domain.max_size, float(domain.lower), float(domain.upper)
        base = 0.5
        if domain.dtype == "int":  # the coordinate whose integer record is floor(middle)
            base = (np.floor((low + high) / 2) - low + 0.5) / (high - low + 1)
        return [
            np.concatenate([np.full(n, base), (direction + 1) / 2])
            for direction in self.directions(n)
        ]

    def lattice(self, domain: Domain, points: int) -> list[DatasetPair]:
        """Answer level × StatDP direction, the middle level first."""
        levels = sorted(np.linspace(0.0, 1.0, points), key=lambda fraction: abs(fraction - 0.5))
        pairs = [
            self.vector_pair(domain, float(domain.record_at(level)), direction)
            for level in levels
            for direction in self.directions(domain.max_size)
        ]
        return [pair for pair in pairs if not np.array_equal(pair.d0, pair.d1)]

    def strategy(self, domain: Domain) -> SearchStrategy[DatasetPair]:
        from hypothesis import strategies as st

        from dpfuzz.strategies import datasets

        def build(base: np.ndarray, step: list) -> DatasetPair:
            return DatasetPair(
                base,
                np.clip(base + np.asarray(step), domain.lower, domain.upper).astype(base.dtype),
            )

        steps = st.lists(
            st.floats(-self.sensitivity, self.sensitivity, allow_nan=False),
            min_size=domain.max_size,
            max_size=domain.max_size,
        )
        return st.builds(build, datasets(domain), steps).filter(
            lambda pair: not np.array_equal(pair.d0, pair.d1)
        )


RELATIONS = {relation.name: relation for relation in (AddRemove, Substitute, Linf)}
RELATION_NAMES = tuple(RELATIONS)


def _patterns(domain: Domain, sizes: list[int]) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(base, other, size) of the classic pairs, base and other as 0 (`lower`) or 1 (`upper`) per
    record coordinate: the extreme records at each size, then `_label_patterns`."""
    upper, lower = np.ones(domain.record_shape), np.zeros(domain.record_shape)
    extremes = [
        (base, other, size) for size in sizes for base, other in ((upper, lower), (lower, upper))
    ]
    return extremes + _label_patterns(domain, sizes)


def _label_patterns(domain: Domain, sizes: list[int]) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """In a labelled domain, the extreme features at each size with the other extreme label added
    (none otherwise), as `_patterns` gives them."""
    if not domain.labelled:
        return []
    upper, lower = np.ones(domain.record_shape), np.zeros(domain.record_shape)
    upper_relabelled, lower_relabelled = upper.copy(), lower.copy()
    upper_relabelled[-1], lower_relabelled[-1] = 0.0, 1.0
    return [
        (base, other, size)
        for size in sizes
        for base, other in ((upper, upper_relabelled), (lower, lower_relabelled))
    ]


def _record(domain: Domain, fractions: np.ndarray) -> np.ndarray:
    """`Domain.record_at` per coordinate, with 0 and 1 exactly `lower` and `upper`."""
    between = domain.record_at(fractions)
    return np.where(
        fractions == 1.0, domain.upper, np.where(fractions == 0.0, domain.lower, between)
    )


def _choose(unit: float, low: int, high: int) -> int:
    """An integer in [low, high] from a coordinate in [0, 1]."""
    return int(min(high, low + np.floor(unit * (high - low + 1))))


def _record_key(record: np.ndarray) -> tuple | float:
    return tuple(np.ravel(record).tolist()) if np.ndim(record) else float(record)
