"""`TrialRecord`: one search evaluation of a pair, as the engine records it and reports show it."""

from __future__ import annotations

from dataclasses import dataclass

from dpfuzz.datasets import DatasetPair
from dpfuzz.testers.base import TestResult


@dataclass(frozen=True)
class TrialRecord:
    """One search evaluation of a pair: both directions' (uncertified) results.

    `trial` numbers the pairs in the order the finder proposed them; `round` is 0 for that
    first evaluation and counts the racing rounds in which the pair was sampled again.
    """

    trial: int
    round: int
    pair: DatasetPair
    samples: int  # per side, cumulative
    score: float
    forward: TestResult  # M(d0) against M(d1)
    backward: TestResult  # M(d1) against M(d0)
    seconds: float

    def to_dict(self) -> dict:
        return {
            "trial": self.trial,
            "round": self.round,
            "pair": self.pair.to_dict(),
            "samples": self.samples,
            "score": self.score,
            "forward": self.forward.to_dict(),
            "backward": self.backward.to_dict(),
            "seconds": self.seconds,
        }
