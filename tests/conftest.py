"""Shared helpers for the test suite (seeded; see each test for its tolerance).

Every test runs on a `FakeClock` (`dpfuzz.engine.clock`): the engine's rates, deadlines and
time limits then depend on draws, never on how fast or loaded the machine is. A test that
emulates a slow mechanism advances the `clock` fixture; one that needs real seconds (a call that
truly hangs) is marked ``real_clock``.
"""

import os
import signal

import numpy as np
import pytest

from dpfuzz.engine.clock import FakeClock, use_clock

pytest_plugins = ["pytester"]


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261121)


@pytest.fixture(autouse=True)
def clock(request: pytest.FixtureRequest):
    """The engine's clock in this test: a `FakeClock`, or the system's under ``real_clock``."""
    if request.node.get_closest_marker("real_clock"):
        yield None
        return
    with use_clock(FakeClock()) as fake:
        yield fake


def pytest_configure(config: pytest.Config) -> None:
    """In an xdist worker, Ctrl-C ends the worker: tests that call the command line would
    otherwise take the interrupt as the command's own (it prints "interrupted" and returns 130),
    and the run would go on."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        signal.signal(signal.SIGINT, lambda number, frame: os._exit(130))
