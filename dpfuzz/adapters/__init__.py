"""Adapters that turn a DP library's objects into audit targets: the mechanism, the claim read
from the library itself, and the domain with the library's neighbouring convention.

Each adapter module imports its library on use and lives behind an extra of the same name
(``pip install "dpfuzz[opendp]"``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, PureDP, group_claim
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.validation import check_int

if TYPE_CHECKING:
    from dpfuzz.mechanism import Mechanism
    from dpfuzz.report import AuditReport


@dataclass(frozen=True)
class LibraryTarget:
    """What `dpfuzz.audit` needs, read from a library object, and how it was read."""

    mechanism: Mechanism
    claim: Claim
    domain: Domain
    convention: str  # the library's neighbouring relation and the d_in the claim was read at

    def audit(self, **options: Any) -> AuditReport:
        """`dpfuzz.audit(mechanism, claim, domain, **options)`."""
        from dpfuzz.auditing import audit

        return audit(self.mechanism, self.claim, self.domain, **options)


def claim_under(claim: Claim, own: str, relation: str) -> tuple[Claim, str]:
    """The library's `claim`, made under its `own` relation, read for the audited `relation`,
    and a sentence saying how: a substitution is one removal and one addition, so an add/remove
    claim converts by group privacy of 2 (`group_claim`); no claim under add/remove follows from
    one under substitution, so that audit keeps the claim as given and is a misuse to test."""
    if relation == own:
        return claim, f"audited under its own {own}"
    if (own, relation) == ("add_remove", "substitute"):
        converted = group_claim(claim, 2)
        return (
            converted,
            (
                f"audited under substitute: {claim.describe()} for a group of 2 is"
                f" {converted.describe()}"
            ),
        )
    return (
        claim,
        (
            f"audited under {relation}, not its own {own}: no claim follows, {claim.describe()} is"
            " kept as a misuse to test"
        ),
    )


def stated_claim(epsilon: float, delta: float) -> ApproxDP:
    """A library's (ε, δ) arguments as a claim: pure when δ = 0."""
    return ApproxDP(float(epsilon), float(delta)) if delta > 0 else PureDP(float(epsilon))


def noisy_answer_target(
    batch: Callable[..., np.ndarray],
    *,
    name: str,
    claim: Claim,
    answers_range: tuple[float, float],
    sensitivity: float,
    convention: str,
) -> LibraryTarget:
    """A target for a library mechanism that adds noise to one query answer: ``batch(dataset, size,
    rng)`` releases `size` noisy copies of ``dataset[0]``; answers move by at most `sensitivity`."""
    from dpfuzz.mechanism import per_call

    def release(dataset: np.ndarray, rng: np.random.Generator):
        return batch(dataset, 1, rng)[0]

    mechanism = per_call(release, batch=batch)
    mechanism.name = name
    domain = Domain(
        low=answers_range[0],
        high=answers_range[1],
        min_size=1,
        max_size=1,
        relation="linf",
        sensitivity=sensitivity,
    )
    return LibraryTarget(mechanism, claim, domain, convention)


# Rows an individual holds: that many each, or (fewest, most), searched as a record coordinate
# (a config gives the pair as a list).
Rows = int | tuple[int, int] | list[int]


def row_range(rows: Rows) -> tuple[int, int]:
    """(fewest, most) rows an individual holds under `rows`: an integer ≥ 1, or a pair (fewest,
    most) with 1 ≤ fewest ≤ most (a list, as a config gives it, is read as the pair)."""
    if isinstance(rows, (list, tuple)) and len(rows) == 2:
        fewest, most = (check_int("rows", count, minimum=1) for count in rows)
        if fewest > most:
            raise InvalidArgument(f"rows (fewest, most) needs fewest <= most, got {list(rows)}.")
        return fewest, most
    if isinstance(rows, (list, tuple)):
        raise InvalidArgument(f"rows is a count, or a pair (fewest, most), got {rows!r}.")
    count = check_int("rows", rows, minimum=1)
    return count, count


def rows_text(rows: Rows) -> str:
    """How many rows an individual holds, in words: "3 row(s)", or "1 to 3 rows (searched)"."""
    fewest, most = row_range(rows)
    return f"{most} row(s)" if fewest == most else f"{fewest} to {most} rows (searched)"


def privacy_id_rows(dataset: np.ndarray, keys: int, rows: Rows) -> list[tuple[int, int, float]]:
    """(privacy ID, partition, value) rows of keyed records: record i is privacy ID i, a vector
    (partition key, value) holding `rows` rows, or (key, value, count) holding its own count of
    rows (rounded, within `row_range(rows)`), in the partitions key, key + 1, … (mod `keys`), each
    with that value; keys round to the integers 0 … `keys` − 1."""
    fewest, most = row_range(rows)
    records = np.asarray(dataset, dtype=float)
    records = records.reshape(len(records), -1) if records.ndim == 2 else records.reshape(-1, 2)
    counts = (
        np.clip(np.round(records[:, 2]), fewest, most).astype(int)
        if records.shape[1] > 2
        else np.full(len(records), most)
    )
    return [
        (unit, (int(round(key)) + offset) % keys, float(value))
        for unit, ((key, value), count) in enumerate(zip(records[:, :2].tolist(), counts.tolist()))
        for offset in range(count)
    ]


def keyed_universe(columns: Sequence[str], keys: int) -> list:
    """The keys `keyed_rows` can return: (key, column) for each key 0 … `keys` − 1 and each other
    column when one column is ``key``, else the columns."""
    if "key" not in columns:
        return list(columns)
    return [(key, column) for key in range(keys) for column in columns if column != "key"]


def keyed_rows(columns: Iterable[str], rows: Iterable[Sequence[Any]]) -> dict:
    """A release's result rows as {(key, column): value} when one column is ``key``, else
    {column: value} (empty when no row is released)."""
    columns = list(columns)
    if "key" not in columns:
        return {column: value for row in rows for column, value in zip(columns, row)}
    at = columns.index("key")
    return {
        (int(row[at]), column): value
        for row in rows
        for column, value in zip(columns, row)
        if column != "key"
    }


def privacy_id_domain(
    keys: int, values: tuple[float, float], max_size: int, rows: Rows = 1
) -> Domain:
    """Datasets of 1 to `max_size` keyed records (`privacy_id_rows`): keys in [0, keys − 1],
    values in `values`, and where `rows` is a range, each individual's count of rows in it."""
    fewest, most = row_range(rows)
    counted = (float(fewest),), (float(most),)  # each record's count of rows, when searched
    low, high = counted if fewest < most else ((), ())
    return Domain(
        low=(0.0, values[0], *low),
        high=(keys - 1.0, values[1], *high),
        dim=2 + len(low),
        min_size=1,
        max_size=max_size,
    )
