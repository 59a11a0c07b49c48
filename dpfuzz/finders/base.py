"""The finder contract: propose neighbouring pairs, learn from the scores told back."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument


class Finder(Protocol):
    """ask/tell search over neighbouring pairs of a `Domain`.

    The constructor only stores options; ``start`` binds the domain and random generator and
    resets the search. A finder never sees the tester, only the score of each pair it asked:
    the held-out divergence estimate minus the claim's threshold (positive: looks violating).
    `BaseFinder` gives every method after ``tell`` a no-op default.
    """

    name: str
    open_ended: bool
    """Whether asking for more pairs than `trials` finds new ones quickly (the racing then fills
    its spare draws with more pairs, `AuditPolicy.racing_fill`); False for a fixed list of pairs
    or slow suggestions."""

    def start(self, domain: Domain, rng: np.random.Generator) -> None: ...

    def ask(self) -> DatasetPair: ...

    def tell(self, pair: DatasetPair, score: float) -> None: ...

    def keep_searching(self) -> bool:
        """Whether to go on asking after a pair looked violating (e.g. to shrink it)."""

    def stop(self) -> None:
        """The search is over: release threads or services."""

    def candidate(self) -> DatasetPair | None:
        """The pair the finder wants verified, or None for the best-scoring one."""

    def details(self) -> dict:
        """Facts for the report (e.g. suggestion latency)."""


class BaseFinder:
    """Defaults for the optional half of the `Finder` contract; subclasses implement
    ``start``, ``ask`` and, if they learn, ``tell``."""

    name = "finder"
    open_ended = True

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        raise NotImplementedError

    def ask(self) -> DatasetPair:
        raise NotImplementedError

    def tell(self, pair: DatasetPair, score: float) -> None:
        """Default: the finder does not learn."""

    def keep_searching(self) -> bool:
        return False

    def stop(self) -> None:
        """Default: nothing to release."""

    def candidate(self) -> DatasetPair | None:
        return None

    def details(self) -> dict:
        return {}


class WithDefaults(BaseFinder):
    """A user's finder that implements only part of the contract, completed with the defaults."""

    def __init__(self, finder: Any):
        missing = [
            method
            for method in ("start", "ask", "tell")
            if not callable(getattr(finder, method, None))
        ]
        if missing:
            raise InvalidArgument(
                f"finder {finder!r} lacks {missing}; a finder is a name, a DatasetPair, a list of"
                " pairs, or an object with start(domain, rng), ask() and tell(pair, score) (see"
                " dpfuzz.finders.BaseFinder)."
            )
        self.finder = finder
        self.name = getattr(finder, "name", type(finder).__name__)
        self.open_ended = bool(getattr(finder, "open_ended", False))

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        self.finder.start(domain, rng)

    def ask(self) -> DatasetPair:
        return self.finder.ask()

    def tell(self, pair: DatasetPair, score: float) -> None:
        self.finder.tell(pair, score)

    def keep_searching(self) -> bool:
        return getattr(self.finder, "keep_searching", super().keep_searching)()

    def stop(self) -> None:
        getattr(self.finder, "stop", super().stop)()

    def candidate(self) -> DatasetPair | None:
        return getattr(self.finder, "candidate", super().candidate)()

    def details(self) -> dict:
        return getattr(self.finder, "details", super().details)()
