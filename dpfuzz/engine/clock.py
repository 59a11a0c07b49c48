"""The engine's clock: every duration and deadline the engine decides by is read from `now()`.

By default it is `time.perf_counter`. `use_clock(FakeClock())` swaps it for a clock that moves
only by a fixed tick per reading and by what the code under test tells it (`advance`): a test of
a slow or timed audit then decides by draws, never by how fast or loaded the machine is. The
waits for a call that hangs (`dpfuzz.mechanism.call_within`) stay in real seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since an arbitrary origin; never decreasing."""
        ...


class SystemClock:
    """The machine's monotonic performance counter."""

    def now(self) -> float:
        return time.perf_counter()


class FakeClock:
    """A deterministic clock: each reading moves it by `tick` seconds (so no two readings are
    equal and no duration is zero), and `advance(seconds)` moves it as a slow call would."""

    def __init__(self, tick: float = 1e-6) -> None:
        self.tick = tick
        self._time = 0.0
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            self._time += self.tick
            return self._time

    def advance(self, seconds: float) -> None:
        """Move the clock `seconds` ahead (a mechanism that "takes" that long calls this)."""
        with self._lock:
            self._time += seconds


_clock: Clock = SystemClock()


def now() -> float:
    """The engine clock's current reading, in seconds."""
    return _clock.now()


@contextmanager
def use_clock(clock: Clock) -> Iterator[Clock]:
    """Read `clock` instead of the system's in the block (process-wide, threads included)."""
    global _clock
    previous, _clock = _clock, clock
    try:
        yield clock
    finally:
        _clock = previous
