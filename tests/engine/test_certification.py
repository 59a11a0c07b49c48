"""Verification (`dpfuzz.engine.certification`): looks against the clock, and chunked counting."""

from __future__ import annotations

import math

import numpy as np
import pytest
from shared_mechanisms import laplace_sum

from dpfuzz import (
    DatasetPair,
    Domain,
    HockeyStickTester,
    PureDP,
    audit,
)
from dpfuzz.catalogue import entry
from dpfuzz.engine import AuditPolicy, Budget, Plan, Run, StopReason
from dpfuzz.engine.budget import Deadline
from dpfuzz.engine.certification import FreshOutputs, verify
from dpfuzz.engine.schedule import Look
from dpfuzz.testers.float_bits import FloatBitsTester


def test_a_deadline_ends_the_verification_at_the_clock_and_never_below_the_floor():
    # Drawing stops by the clock alone: a deadline already passed leaves `deadline_floor` outputs
    # per side, one an hour away leaves the whole count.
    item = entry("NonDPLaplaceMean1")
    mechanism, pair, claim = item(), item.witness(), item.claim()
    rng = np.random.default_rng(0)
    event = HockeyStickTester().fit(
        mechanism(pair.d0, 5_000, rng), mechanism(pair.d1, 5_000, rng), claim, 0.05, rng
    )
    floor = AuditPolicy().deadline_floor
    for deadline, expected, cut in ((-math.inf, floor, True), (math.inf, 4_500, False)):
        fresh = FreshOutputs(HockeyStickTester(), (event,), chunk_values=1 << 20, keep=0)
        budget = Budget(mechanism, math.inf, deadline=Deadline(deadline, hard=False))
        fresh.draw(budget, pair, 4_500, rng, floor=floor, pace_share=0.9)
        assert (fresh.count, budget.used, fresh.cut) == (expected, 2 * expected, cut)


def test_max_seconds_ends_a_slow_verification_with_a_valid_bound_and_says_so(clock):
    # 20 µs per output: the 10^6 verification outputs per side asked for would take 40 s. Under
    # max_seconds = 1 the verification stops at the clock and certifies on the outputs drawn,
    # which the report states.
    def slow_noisy_sum(dataset, num_samples, rng):
        clock.advance(2e-5 * num_samples)
        return laplace_sum(dataset, num_samples, rng)

    pair = DatasetPair(np.array([0.0]), np.array([0.0, 1.0]))
    report = audit(
        slow_noisy_sum,
        PureDP(0.5),
        Domain(max_size=2),
        finder=[pair],
        trials=1,
        samples=2_000,
        verify_samples=1_000_000,
        sampling="fixed",
        max_seconds=1.0,
        seed=0,
    )
    outputs = report.verification.num_samples[0]
    assert (
        AuditPolicy().deadline_floor <= outputs < 100_000 and report.looks[-1]["samples"] == outputs
    )
    assert any(
        f"max_seconds ended verification at {outputs:,} of 1,000,000" in note
        for note in report.notes
    )
    assert report.violated and 0.5 < report.epsilon_lower_bound < 1.0


def test_under_max_seconds_a_later_look_starts_and_the_clock_ends_it(clock):
    # Two looks, 2,000 then 150,000 outputs per side, at 20 µs per output (6 s) under max_seconds =
    # 3: the second does not fit the time left, but it starts and is drawn until the deadline
    # (more outputs, at its larger β) instead of being skipped.
    def slow_noisy_sum(dataset, num_samples, rng):
        clock.advance(2e-5 * num_samples)
        return laplace_sum(dataset, num_samples, rng)

    pair, claim, rng = (
        DatasetPair(np.array([0.0]), np.array([0.0, 1.0])),
        PureDP(1.0),
        np.random.default_rng(0),
    )
    tester = HockeyStickTester()
    train = laplace_sum(pair.d0, 2_000, rng), laplace_sum(pair.d1, 2_000, rng)
    run = Run(
        slow_noisy_sum,
        claim,
        Domain(max_size=2),
        Budget(slow_noisy_sum, math.inf, max_seconds=3.0),
        seed=0,
    )
    plan = Plan(trials=1, samples=2_000, verify_samples=200_000, beta=0.05, directions=1)
    looks = [Look(2_000, 0.025), Look(150_000, 0.025)]
    verification = verify(run, tester, plan, pair, *train, None, rng, rng, planned=looks)
    outputs = verification.result.num_samples[0]
    assert [look["samples"] for look in verification.looks] == [
        2_000,
        outputs,
    ] and 2_000 < outputs < 100_000
    assert [stop.reason for stop in run.stops] == [StopReason.VERIFICATION_CLOCK]
    assert f"max_seconds ended verification at {outputs:,} of 150,000" in run.stops[0].text


# -- issue 16: the verification draws, counts and discards in chunks
# ---------------------------------
@pytest.mark.parametrize(
    "name, tester",
    [
        ("SVT6", HockeyStickTester()),
        ("NonDPLaplaceMean1", HockeyStickTester()),
        ("NonDPLaplaceMean1", FloatBitsTester()),
    ],
)
def test_a_chunked_verification_counts_what_evaluate_counts_on_the_same_outputs(name, tester):
    """Outputs drawn in chunks of 1,000 values (SVT6: 100 outputs) and discarded give the counts
    `evaluate` gives on all of them at once, for the pair's event and for its reverse's (P and Q
    swapped), each at β/2; of 1-D outputs the first 2,500 per side (what the policy's
    `profile_max_samples` says) are kept for the privacy profile, of vector outputs none."""
    item = entry(name)
    mechanism, pair, claim = item(), item.witness(), item.claim()
    drawn = []

    def recorded(dataset, num_samples, rng):
        drawn.append(np.asarray(mechanism(dataset, num_samples, rng)))
        return drawn[-1]

    rng = np.random.default_rng(0)
    train = mechanism(pair.d0, 5_000, rng), mechanism(pair.d1, 5_000, rng)
    events = tester.fit(*train, claim, 0.025, rng), tester.fit(*train[::-1], claim, 0.025, rng)
    fresh = FreshOutputs(tester, events, chunk_values=1_000, keep=2_500)
    draws = Budget(recorded, math.inf)
    draws.output_shape = train[0].shape[1:]  # known from the audit's probe
    fresh.draw(draws, pair, 4_500, rng)
    # SVT6: 100 outputs of 10 values; Laplace: 1,000 numbers
    rows = 1_000 // math.prod(draws.output_shape)
    assert (
        fresh.counting
        and len(drawn) == 2 * math.ceil(4_500 / rows)
        and max(map(len, drawn)) == rows
    )
    outputs = np.concatenate(drawn[0::2]), np.concatenate(drawn[1::2])
    for result, event, (p, q) in zip(fresh.certify(claim, 0.05), events, (outputs, outputs[::-1])):
        expected = tester.evaluate(event, p, q, claim, 0.025)
        assert (
            result.details == expected.details
            and result.bound == expected.bound
            and result.beta == 0.025
        )
        assert result.num_samples == (4_500, 4_500) and 0 < result.details["count_p"] < 4_500
    kept = fresh.kept()
    assert len(kept) == (2 if drawn[0].ndim == 1 else 0)
    for side, outputs in enumerate(kept):
        assert np.array_equal(outputs, np.concatenate(drawn[side::2])[:2_500])
