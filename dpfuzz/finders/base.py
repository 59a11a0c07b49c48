"""The finder contract: propose neighbouring pairs, learn from the scores told back."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from dpfuzz.datasets import DatasetPair, Domain


class Finder(Protocol):
    """ask/tell search over neighbouring pairs of a `Domain`.

    The constructor only stores options; ``start`` binds the domain and random generator and
    resets the search. A finder never sees the tester, only the score of each pair it asked:
    the held-out divergence estimate minus the claim's threshold (positive: looks violating).
    Optional: ``stop()`` when the search ends, and ``candidate()`` naming the pair to verify
    (default: the best-scoring one).
    """

    name: str

    def start(self, domain: Domain, rng: np.random.Generator) -> None: ...

    def ask(self) -> DatasetPair: ...

    def tell(self, pair: DatasetPair, score: float) -> None: ...
