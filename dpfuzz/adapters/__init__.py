"""Adapters that turn a DP library's objects into audit targets: the mechanism, the claim read
from the library itself, and the domain with the library's neighbouring convention.

Each adapter module imports its library on use and lives behind an extra of the same name
(``pip install "dpfuzz[opendp]"``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dpfuzz.claims import Claim
from dpfuzz.datasets import Domain


@dataclass(frozen=True)
class LibraryTarget:
    """What `dpfuzz.audit` needs, read from a library object, and how it was read."""

    mechanism: object
    claim: Claim
    domain: Domain
    convention: str  # the library's neighbouring relation and the d_in the claim was read at

    def audit(self, **options):
        """`dpfuzz.audit(mechanism, claim, domain, **options)`."""
        from dpfuzz.auditing import audit

        return audit(self.mechanism, self.claim, self.domain, **options)
