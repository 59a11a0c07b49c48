"""Hypothesis-driven search: targeted generation towards larger divergence, then shrinking.

Hypothesis runs the search in a helper thread. The relation's classic patterns (but the
turn-around pair) come first as explicit examples; a failing pattern ends the search unshrunk (it
is already simple). Otherwise its test function hands each generated pair to the audit loop
(`ask`), waits for the score (`tell`), reports it with ``hypothesis.target`` so the targeted phase
climbs towards larger divergence, and *fails* on a positive score (the search sample looks
violating). Hypothesis then shrinks that failing pair towards the simplest one that still fails,
each shrink step being one more audit trial.
`candidate()` is the smallest failing pair seen, which the audit verifies on fresh samples and
reports as the witness. Reproducible: Hypothesis is seeded from the audit's generator and keeps no
database.
"""

from __future__ import annotations

import queue
import threading

import numpy as np
from hypothesis import HealthCheck, Phase, example, given, seed, settings, target

from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.finders.base import BaseFinder
from dpfuzz.strategies import neighbouring_pairs

_STOP = object()


class _Stopped(Exception):
    """Raised inside the Hypothesis test once the audit has no more trials."""


class _LooksViolating(Exception):
    """A positive score: Hypothesis treats it as a failure and shrinks the pair."""


class HypothesisFinder(BaseFinder):
    """Targeted property-based search (see the module docstring).

    Parameters
    ----------
    shrink : shrink a pair whose score is positive (default True).
    patterns : try the relation's classic pairs first, as explicit examples (default True).
    """

    name = "hypothesis"

    def __init__(self, shrink: bool = True, patterns: bool = True):
        self.shrink = shrink
        self.patterns = patterns

    def start(self, domain: Domain, rng: np.random.Generator) -> None:
        self._asks: queue.Queue = queue.Queue(maxsize=1)
        self._scores: queue.Queue = queue.Queue(maxsize=1)
        self._failing: list[DatasetPair] = []
        self._stopping = False
        self._domain, self._rng = domain, rng
        phases = [Phase.explicit, Phase.generate, Phase.target] + (
            [Phase.shrink] if self.shrink else []
        )
        search_seed = int(rng.integers(2**32))

        @settings(
            max_examples=10**6,
            database=None,
            deadline=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
        )
        @seed(search_seed)
        @given(pair=neighbouring_pairs(domain))
        def explore(pair: DatasetPair) -> None:
            if self._stopping:
                raise _Stopped
            self._asks.put(pair)
            score = self._scores.get()
            if score is _STOP:
                raise _Stopped
            target(float(score), label="divergence estimate minus threshold")
            if score > 0:
                self._failing.append(pair)
                raise _LooksViolating

        # a failing example ends the search, so no turn-around pair: it looks violating on
        # near-misses (decision record 0039)
        turn_around = domain.relation.turn_around_pairs(domain)
        patterns = domain.relation.classic_pairs(domain) if self.patterns else []
        for pair in reversed([pair for pair in patterns if pair not in turn_around]):
            explore = example(pair=pair)(explore)  # the outermost @example runs first

        def run() -> None:
            try:
                explore()
            except BaseException:  # _Stopped, or the shrunk failure: the search is over
                pass
            finally:
                self._asks.put(None)

        self._thread = threading.Thread(target=run, name="dpfuzz-hypothesis", daemon=True)
        self._thread.start()

    def ask(self) -> DatasetPair:
        pair = self._asks.get()
        if pair is None:  # Hypothesis finished: keep proposing its best pair, else random ones
            self._asks.put(None)
            best = self.candidate()
            return best if best is not None else self._domain.random_pair(self._rng)
        return pair

    def tell(self, pair: DatasetPair, score: float) -> None:
        if self._thread.is_alive() and not self._stopping:
            self._scores.put(score)

    def keep_searching(self) -> bool:
        """While Hypothesis shrinks a violating-looking pair, every shrink step is a trial."""
        return self.shrink

    def stop(self) -> None:
        """End the Hypothesis thread (it may be waiting for a score)."""
        self._stopping = True
        try:
            self._scores.put_nowait(_STOP)
        except queue.Full:
            pass
        self._thread.join(timeout=30)

    def candidate(self) -> DatasetPair | None:
        """The simplest failing pair (Hypothesis's last shrink), or None if nothing failed."""
        return self._failing[-1] if self._failing else None
