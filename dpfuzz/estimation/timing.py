"""How a timed estimate spends its seconds: the mechanism's own pace, pilot estimates of growing
size, the draws the time left affords at their pace, and a final certification drawn until the
deadline (docs/decisions/0006, 0007). The clock chooses the draws, never an outcome, so the
estimate keeps its level β."""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.engine import clock
from dpfuzz.engine.budget import Deadline
from dpfuzz.engine.policy import EstimationPolicy
from dpfuzz.engine.run import fresh_seed
from dpfuzz.engine.stops import Stop, StopReason
from dpfuzz.errors import InvalidArgument
from dpfuzz.estimation.sizes import smallest_budget
from dpfuzz.mechanism import Mechanism, draw_samples

if TYPE_CHECKING:
    from dpfuzz.estimate_report import EpsilonEstimate


class Timed(Protocol):
    @property
    def draws(self) -> int: ...

    @property
    def seconds(self) -> float: ...


class Estimator(Protocol):
    """What a timed plan needs of the estimate it times (`estimation`'s task)."""

    @property
    def mechanism(self) -> Mechanism: ...

    @property
    def trials(self) -> int: ...

    @property
    def policy(self) -> EstimationPolicy: ...

    @property
    def first_pair(self) -> DatasetPair: ...

    def estimate(
        self, max_draws: int, seed: int | None, until: DrawUntil | None = None
    ) -> EpsilonEstimate: ...


def seconds_per_draw(
    mechanism: Mechanism, pair: DatasetPair, seed: int, policy: EstimationPolicy | None = None
) -> float:
    """The mechanism's own seconds per output on the slower dataset of `pair`: on each, after an
    untimed first call of `pace_first_draws` (which pays one-time costs), `pace_draws` draws, then
    `pilot_growth` times more until a call takes `pace_call_seconds` (or draws
    `pace_max_draws`). Its outputs are checked as the audit checks them, so a broken mechanism
    fails here, before any pilot."""
    policy = policy or EstimationPolicy()
    rng, paces = np.random.default_rng(seed), []
    for dataset in pair:
        draw_samples(mechanism, dataset, policy.pace_first_draws, rng)
        count = policy.pace_draws
        while True:
            began = clock.now()
            draw_samples(mechanism, dataset, count, rng)
            seconds = clock.now() - began
            if seconds >= policy.pace_call_seconds or count >= policy.pace_max_draws:
                break
            count *= policy.pilot_growth
        paces.append(max(seconds, 1e-9) / count)
    return max(paces)


def planned_draws(
    pilots: Sequence[Timed], seconds: float, policy: EstimationPolicy | None = None
) -> int:
    """The draws an estimate can make in `seconds`, extrapolated from the last two pilots, whose
    times grow as draws^k (`pace_power`). k ≥ 1: a power law with k at most `max_pace_power`
    (large samples cost more per draw: sorting, memory traffic). `affine_power` ≤ k < 1: fixed
    costs (model fits) weigh, and the pace is affine, seconds = a + b·draws through both, up to
    `affine_gain` times the proportional plan. Otherwise (one pilot, or two near-equal times, whose
    difference the noise may have made up): proportional to the last pilot, which under-plans."""
    policy = policy or EstimationPolicy()
    last, power = pilots[-1], pace_power(pilots)
    if power >= 1:
        return int(last.draws * (seconds / last.seconds) ** (1 / min(power, policy.max_pace_power)))
    proportional = int(last.draws * seconds / max(last.seconds, 1e-6))
    if power >= policy.affine_power:
        before = pilots[-2]
        per_draw = (last.seconds - before.seconds) / (last.draws - before.draws)
        return min(
            int(last.draws + (seconds - last.seconds) / per_draw),
            int(policy.affine_gain * proportional),
        )
    return proportional


def pace_power(pilots: Sequence[Timed]) -> float:
    """k in seconds ∝ draws^k between the last two pilots (0 with fewer, or no time measured)."""
    if len(pilots) < 2 or min(pilots[-2].seconds, pilots[-1].seconds) <= 0:
        return 0.0
    before, last = pilots[-2:]
    return math.log(last.seconds / before.seconds) / math.log(last.draws / before.draws)


@dataclass(frozen=True)
class DrawUntil:
    """A timed estimate's final certification: drawn until `deadline` (not a hard one: the plan
    keeps to it), the whole estimate's draws stretched to at most `max_draws`."""

    deadline: Deadline
    max_draws: int


def timed_estimate(
    task: Estimator, max_seconds: float, max_draws: int | None, seed: int | None
) -> EpsilonEstimate:
    """An estimate planned for `max_seconds`: the pace measured, pilots timed, then the main
    estimate's fit and search planned for `time_share` of the time left and its certification
    drawn until the deadline (docs/decisions/0006, 0007)."""
    policy, started = task.policy, clock.now()
    at = started + min(policy.deadline_share * max_seconds, max_seconds - policy.report_seconds)
    # its imports before the pilots, which then time the pipeline alone
    importlib.import_module("dpfuzz.testers.hockey_stick")
    main_seed = fresh_seed() if seed is None else seed
    pilot_seed = int(np.random.SeedSequence(main_seed).spawn(1)[0].generate_state(1)[0])
    per_draw = seconds_per_draw(task.mechanism, task.first_pair, pilot_seed, policy)
    smallest, spent = smallest_budget(task.trials, policy), clock.now() - started
    if smallest * per_draw > at - started:  # drawing alone would overrun (setup only delays it)
        raise _too_short(task.trials, max_seconds, per_draw, spent, policy)

    def timed(estimate):
        return _timed(estimate, started, max_seconds, spent)

    ceiling = max_draws or policy.largest_max_draws
    if ceiling < policy.pilot_factor * smallest and ceiling * per_draw <= policy.time_share * (
        at - clock.now()
    ):
        return timed(task.estimate(ceiling, main_seed))  # max_draws binds before the clock
    pilots = _pilots(
        task,
        policy.pilot_factor * smallest,
        ceiling,
        per_draw,
        max_seconds - (clock.now() - started),
        pilot_seed,
    )
    left = at - clock.now()
    if pilots:
        draws = planned_draws(pilots, policy.time_share * left, policy)
        affords = planned_draws(pilots, left, policy)
    else:  # too slow for pilots: the time goes to drawing, at the mechanism's own pace
        draws = max(int(policy.drawn_share * left / per_draw), smallest)
        affords = int(left / per_draw)
    draws, stretch = min(draws, ceiling), min(int(policy.verify_stretch * affords), ceiling)
    if pilots and min(2 * affords, ceiling) < 2 * pilots[-1].draws:
        text = (
            f"the last pilot's estimate (seed {pilots[-1].seed}, derived from seed {main_seed}):"
            f" max_seconds={max_seconds:g} left no time for one twice its size; more seconds give a"
            " larger estimate."
        )
        return timed(with_stop(pilots[-1], Stop(StopReason.PILOT_RETURNED, text)))
    # a fit and search the last pilot made in its time
    draws = max(draws, pilots[-1].draws if pilots else 0)
    draws -= draws % 2
    until = DrawUntil(Deadline(at, hard=False), max(stretch, draws))
    return timed(task.estimate(draws, main_seed, until))


def _too_short(
    trials: int, max_seconds: float, per_draw: float, spent: float, policy: EstimationPolicy
) -> InvalidArgument:
    """The error for a `max_seconds` in which the smallest estimate cannot draw its outputs."""
    smallest = smallest_budget(trials, policy)
    what = (
        "one pair"
        if trials == 1
        else f"a search of {trials} pairs (of one pair: {smallest_budget(1, policy):,})"
    )
    needed = math.ceil(
        (spent + 2 * smallest * per_draw) / policy.deadline_share + policy.report_seconds
    )
    return InvalidArgument(
        f"max_seconds={max_seconds:g} is too short: the mechanism draws about"
        f" {1 / per_draw:,.0f} outputs/s, and the smallest estimate of {what} draws"
        f" {smallest:,} outputs, {smallest * per_draw:.1f} s at that pace before any fitting,"
        f" after {spent:.1f} s of setup (a first estimate's imports, measuring the pace); give"
        f" max_seconds >= {needed}."
    )


def _pilots(
    task: Estimator, draws: int, ceiling: float, per_draw: float, budget: float, seed: int
) -> list:
    """Pilot estimates growing by `pilot_growth` while all of them would take under
    `pilot_share` of the `budget` seconds (`unmeasured_pilot_share` while fixed costs hide the
    pace per draw), and while drawing the next one's outputs alone would take under `pilot_share`.
    """
    policy, pilots = task.policy, []
    while draws <= ceiling and draws * per_draw <= policy.pilot_share * budget:
        pilots.append(task.estimate(draws, seed))
        measured = pace_power(pilots) >= policy.measured_pace_power
        share = policy.pilot_share if measured else policy.unmeasured_pilot_share
        if (
            sum(pilot.seconds for pilot in pilots) + policy.pilot_growth * pilots[-1].seconds
            > share * budget
        ):
            break
        draws *= policy.pilot_growth
    return pilots


def _timed(estimate, started: float, max_seconds: float, setup: float):
    """The estimate with the seconds of the whole call (pilots included), and a stop when they
    exceed `max_seconds`: the `setup` before any estimate (the pace's measurement and, in a fresh
    process, the tester's imports) is a one-time cost the too-short check leaves out."""
    seconds = clock.now() - started
    if seconds > max_seconds:
        estimate = with_stop(
            estimate,
            Stop(
                StopReason.SETUP_OVERRAN,
                f"the call took {seconds:.2f} s, over max_seconds={max_seconds:g}: {setup:.2f} s of"
                " it was setup before any estimate (in a fresh process mostly the tester's"
                " imports, which later estimates in the process skip).",
            ),
        )
    return replace(estimate, seconds=seconds)


def with_stop(estimate: EpsilonEstimate, stop: Stop) -> EpsilonEstimate:
    """The estimate with `stop` added to its report's stops and notes."""
    report = estimate.report
    return replace(
        estimate,
        report=replace(report, notes=(*report.notes, stop.text), stops=(*report.stops, stop)),
    )
