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


def privacy_id_rows(dataset: np.ndarray, keys: int, rows: int) -> list[tuple[int, int, float]]:
    """(privacy ID, partition, value) rows of keyed records: record i is privacy ID i, a vector
    (partition key, value) holding `rows` rows, in the partitions key, key + 1, … (mod `keys`),
    each with that value; keys round to the integers 0 … `keys` − 1."""
    records = np.asarray(dataset, dtype=float).reshape(-1, 2)
    return [
        (unit, (int(round(key)) + offset) % keys, float(value))
        for unit, (key, value) in enumerate(records.tolist())
        for offset in range(rows)
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


def privacy_id_domain(keys: int, values: tuple[float, float], max_size: int) -> Domain:
    """Datasets of 1 to `max_size` keyed records (`privacy_id_rows`): keys in [0, keys − 1],
    values in `values`."""
    return Domain(
        low=(0.0, values[0]), high=(keys - 1.0, values[1]), dim=2, min_size=1, max_size=max_size
    )
