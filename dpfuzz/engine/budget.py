"""What a run may spend: one object that draws the mechanism's outputs and owns the draw count
and the run's `Deadline`, the one form time takes in the engine: every pacer asks the budget.

The deadline is hard. With one, outputs are drawn in pieces sized at the pace so far to end
before it (`PIECE_SECONDS` at most, so the clock is checked often), each call of the mechanism
runs in a worker thread the budget waits for only until the deadline, and a draw the deadline
overtakes raises `OutOfTime`: a piece that would overrun is cut, and a call that hangs ends the
run at the deadline (the thread is left to finish on its own; its outputs are never used).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from dpfuzz.engine import clock
from dpfuzz.mechanism import CallTimeout, Mechanism, call_within, draw_samples

# Seconds of drawing between looks at the clock under a deadline, at most.
PIECE_SECONDS = 0.5
# Fewest outputs per piece under a deadline (and the first piece's, before the pace is known):
# the probe's reproducibility check then compares two whole calls, as without a deadline.
MIN_PIECE = 32


class OutOfTime(Exception):
    """The deadline passed before a draw finished (its outputs are discarded)."""


@dataclass(frozen=True)
class Deadline:
    """An instant on the engine clock (`engine.clock`) by which drawing ends. `hard`: a draw the
    deadline overtakes is cut (audits); otherwise the caller's plan keeps to it and a draw asked
    for is drawn whole (timed estimates, docs/decisions/0006)."""

    at: float
    hard: bool = True

    def seconds_left(self) -> float:
        """Seconds to the deadline (negative past it)."""
        return self.at - clock.now()


class Budget:
    """Draws outputs, checks them, and keeps count of draws and time against the limits.

    `max_draws` caps all outputs drawn (both sides, every stage); `call_timeout` bounds each
    call of the mechanism (`draw_samples`); `max_seconds`, if given, sets the `Deadline`
    `started + max_seconds` (`hard` or not), or `deadline` gives it. The clock's share of what is
    left is estimated from the mechanism's own draw rate so far.
    """

    def __init__(
        self,
        mechanism: Mechanism,
        max_draws: float,
        max_seconds: float | None = None,
        hard: bool = True,
        call_timeout: float | None = None,
        deadline: Deadline | None = None,
    ):
        self.mechanism, self.max_draws, self.call_timeout = mechanism, max_draws, call_timeout
        self.started = clock.now()
        if deadline is None and max_seconds is not None:
            deadline = Deadline(self.started + max_seconds, hard)
        self.deadline = deadline
        self.max_seconds = None if deadline is None else max(deadline.at - self.started, 0.0)
        self.used = 0
        self.drawing_seconds = 0.0
        self.first_draw: tuple[int, float] | None = None  # (outputs, seconds) of the first call
        self.output_shape: tuple | None = None

    def draw(
        self, dataset: np.ndarray, count: int, rng: np.random.Generator, partial: bool = False
    ) -> np.ndarray:
        """`count` outputs of the mechanism on `dataset`, counted against the budget; with a
        deadline, drawn in pieces that end before it, or `OutOfTime` raised (with `partial`,
        the pieces finished by then are returned instead, possibly none)."""
        if (
            count <= 0 and self.output_shape is not None
        ):  # nothing to draw (a round at the cap already)
            return np.empty((0, *self.output_shape))
        if self.deadline is None or not self.deadline.hard:
            return self._count(*self._piece(dataset, count, rng))
        pieces, drawn = [], 0
        try:
            while drawn < count:
                left = self.seconds_left()
                if left <= 0:
                    raise OutOfTime
                pace = 0 if self.rate == math.inf else self.rate * min(left, PIECE_SECONDS)
                size = min(count - drawn, max(MIN_PIECE, int(pace)))
                try:
                    piece = call_within(
                        functools.partial(self._piece, dataset, size, rng),
                        self.deadline.seconds_left(),
                    )
                except CallTimeout:
                    raise OutOfTime from None
                pieces.append(self._count(*piece))
                drawn += size
        except OutOfTime:
            if not partial or not pieces:
                raise
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)

    def _piece(
        self, dataset: np.ndarray, count: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, float]:
        began = clock.now()
        samples = draw_samples(
            self.mechanism, dataset, count, rng, self.output_shape, self.call_timeout
        )
        return samples, clock.now() - began

    def _count(self, samples: np.ndarray, seconds: float) -> np.ndarray:
        if self.first_draw is None:
            self.first_draw = (len(samples), seconds)
        self.drawing_seconds += seconds
        self.output_shape = samples.shape[1:]
        self.used += len(samples)
        return samples

    def count_elsewhere(self, draws: int, seconds: float) -> None:
        """Count `draws` drawn in other processes, in `seconds` of this one's time."""
        self.used += draws
        self.drawing_seconds += seconds

    def limit_time(self, max_seconds: float) -> None:
        """Set a hard deadline `max_seconds` after the budget was made."""
        self.max_seconds, self.deadline = max_seconds, Deadline(self.started + max_seconds)

    @property
    def rate(self) -> float:
        """Draws per second so far (of the mechanism alone), the first call apart once there are
        others: a release that imports or builds itself on its first call is paced by the calls
        after it."""
        used, seconds = self.used, self.drawing_seconds
        if self.first_draw is not None and used > self.first_draw[0]:
            used, seconds = used - self.first_draw[0], seconds - self.first_draw[1]
        return used / seconds if seconds > 0 else math.inf

    def seconds_left(self) -> float:
        """Seconds to the deadline (infinite without one; negative past it)."""
        return math.inf if self.deadline is None else self.deadline.seconds_left()

    def remaining(self) -> float:
        """Draws the budget still allows (the clock's share estimated from the draw rate so far)."""
        left = self.max_draws - self.used
        if self.deadline is not None:
            left = min(left, self.seconds_left() * self.rate)
        return max(left, 0.0)

    def affordable(self, count: int, clock: bool = True) -> bool:
        """Whether `count` more draws fit the budget (with `clock=False`: its draws alone)."""
        return count <= (self.remaining() if clock else self.max_draws - self.used)
