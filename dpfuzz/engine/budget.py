"""What a run may spend: one object that draws the mechanism's outputs and owns the draw count
and the absolute deadline."""

from __future__ import annotations

import math
import time

import numpy as np

from dpfuzz.mechanism import Mechanism, draw_samples


class Budget:
    """Draws outputs, checks them, and keeps count of draws and time against the limits.

    `max_draws` caps all outputs drawn (both sides, every stage); `max_seconds`, if given, sets
    the deadline `started + max_seconds` on the `time.perf_counter()` clock. The clock's share
    of what is left is estimated from the mechanism's own draw rate so far.
    """

    def __init__(self, mechanism: Mechanism, max_draws: float, max_seconds: float | None = None):
        self.mechanism, self.max_draws, self.max_seconds = mechanism, max_draws, max_seconds
        self.started = time.perf_counter()
        self.deadline = None if max_seconds is None else self.started + max_seconds
        self.used = 0
        self.drawing_seconds = 0.0
        self.output_shape: tuple | None = None

    def draw(self, dataset: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        """`count` outputs of the mechanism on `dataset`, counted against the budget."""
        if count <= 0 and self.output_shape is not None:  # nothing to draw (a round at the cap already)
            return np.empty((0, *self.output_shape))
        began = time.perf_counter()
        samples = draw_samples(self.mechanism, dataset, count, rng, self.output_shape)
        self.drawing_seconds += time.perf_counter() - began
        self.output_shape = samples.shape[1:]
        self.used += count
        return samples

    @property
    def rate(self) -> float:
        """Draws per second so far (of the mechanism alone)."""
        return self.used / self.drawing_seconds if self.drawing_seconds > 0 else math.inf

    def seconds_left(self) -> float:
        """Seconds to the deadline (infinite without one; negative past it)."""
        return math.inf if self.deadline is None else self.deadline - time.perf_counter()

    def remaining(self) -> float:
        """Draws the budget still allows (the clock's share estimated from the draw rate so far)."""
        left = self.max_draws - self.used
        if self.deadline is not None:
            left = min(left, self.seconds_left() * self.rate)
        return max(left, 0.0)

    def affordable(self, count: int, clock: bool = True) -> bool:
        """Whether `count` more draws fit the budget (with `clock=False`: its draws alone)."""
        return count <= (self.remaining() if clock else self.max_draws - self.used)
