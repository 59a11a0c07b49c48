"""Shared helpers for the test suite (seeded; see each test for its tolerance)."""

import numpy as np
import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261121)
