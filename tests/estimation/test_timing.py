"""Timed estimates' plans (`dpfuzz.estimation.timing`): the pilots' pace extrapolated."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from dpfuzz.estimation.timing import planned_draws


def test_the_time_plan_extrapolates_the_pilots_pace():
    # Pilots as (draws, seconds). Times growing as draws^1.5: the power law hits the time exactly.
    def pilots(*timed):
        return [SimpleNamespace(draws=draws, seconds=seconds) for draws, seconds in timed]

    superlinear = pilots((1_000_000, 1.0), (4_000_000, 8.0))
    assert planned_draws(superlinear, 64.0) == pytest.approx(16_000_000, rel=1e-6)
    # 0.1 s fixed plus 0.1 µs per draw (k ≈ 0.66): affine through both, so 10 s affords 9.9·10^7.
    fixed_cost = pilots((1_000_000, 0.2), (4_000_000, 0.5))
    assert planned_draws(fixed_cost, 10.0) == pytest.approx(99_000_000, rel=1e-6)
    # SVT6's searches (k ≈ 0.25): affine, 0.15 s per 258,384 draws, where proportional gave
    # 1.4·10^6.
    svt6 = pilots((86_128, 0.36), (344_512, 0.51))
    assert planned_draws(svt6, 2.1) == pytest.approx(344_512 + 1.59 * 258_384 / 0.15, rel=1e-6)
    # k just above 0.1: affine, but at most three times the proportional plan (not 2·10^8).
    barely = pilots((1_000_000, 0.40), (4_000_000, 0.46))
    assert planned_draws(barely, 4.6) == pytest.approx(3 * 40_000_000, rel=1e-6)
    # Two near-equal times (k < 0.1) measure no pace: proportional to the last pilot, not 10^9
    # draws.
    unmeasured = pilots((1_000_000, 0.30), (4_000_000, 0.31))
    assert planned_draws(unmeasured, 3.1) == pytest.approx(40_000_000, rel=1e-6)
    assert planned_draws(pilots((1_000_000, 0.5)), 2.0) == 4_000_000
