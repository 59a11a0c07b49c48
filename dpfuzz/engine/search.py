"""The search: which neighbouring pair does the mechanism treat most differently?

The finder proposes pairs; each is sampled on both datasets, and the tester estimates both
directions (events fitted on one half, evaluated on the other). These numbers only *rank*
pairs: a pair's score, told to the finder, is the larger held-out estimate minus the claim's
threshold (positive: looks violating). Adaptive plans race the pairs (`engine.schedule`): all
start small, the better half continues with twice the samples, and the search ends early once a
pair's own held-out test refutes the claim. Nothing is certified here, so the search needs no
share of β.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpfuzz.datasets import DatasetPair
from dpfuzz.engine import clock
from dpfuzz.engine.budget import Budget, OutOfTime
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.run import Run
from dpfuzz.engine.schedule import plan_search, racing_pairs, racing_rounds
from dpfuzz.engine.stops import StopReason
from dpfuzz.errors import MechanismTooSlow
from dpfuzz.finders import BaseFinder
from dpfuzz.testers import Tester, TestResult
from dpfuzz.testers.base import single_threaded, split_halves
from dpfuzz.trials import TrialRecord


@dataclass
class Candidate:
    """A proposed pair and its search samples so far (cumulative across racing rounds)."""

    trial: int
    pair: DatasetPair
    rng: np.random.Generator
    samples0: np.ndarray
    samples1: np.ndarray
    forward: TestResult | None = None
    backward: TestResult | None = None
    score: float = -math.inf
    # the tester's scores of the last forward and backward tests
    scores: tuple = (
        -math.inf,
        -math.inf,
    )
    events: tuple = (None, None)  # the fitted events of the last forward and backward tests
    evidence: float = 0.0  # Σ samples × score over its rounds
    weight: float = 0.0  # Σ samples over its rounds
    fitted: tuple | None = None  # (event, whether it is for (d1, d0)) when oriented by one fit

    @property
    def rank(self) -> float:
        """What racing ranks by: the score averaged over rounds, weighted by samples. Each round
        refits the event, and a refit can be worse (a narrow, overfitted interval): the weighted
        mean keeps one bad refit from knocking a violating pair out, and one lucky early score
        from keeping a clean one in."""
        return self.evidence / self.weight if self.weight else -math.inf

    @property
    def looks_violating(self) -> bool:
        return any(test is not None and test.violated for test in (self.forward, self.backward))

    def oriented(self) -> tuple[DatasetPair, np.ndarray, np.ndarray, object]:
        """(pair, samples of P, samples of Q, validated event or None), P the side with the
        larger held-out score. The event is the one fitted on half the search samples when
        the other half already refuted the claim with it: verification then re-tests an event
        that has generalised once, rather than one refitted (and possibly overfitted) on all.
        A pair oriented by one fit on all its samples comes with that event."""
        if self.fitted is not None:
            event, backward = self.fitted
            return (
                (self.pair.swapped(), self.samples1, self.samples0, event)
                if backward
                else (self.pair, self.samples0, self.samples1, event)
            )
        forward = self.scores[0] >= self.scores[1]
        result, event = (
            (self.forward, self.events[0]) if forward else (self.backward, self.events[1])
        )
        event = event if result is not None and result.violated else None
        if forward:
            return self.pair, self.samples0, self.samples1, event
        return self.pair.swapped(), self.samples1, self.samples0, event


def _search_sizes(run: Run, finder: BaseFinder, plan: Plan) -> tuple[int, int, int, float]:
    """The search's first and largest outputs per side, its number of pairs, and the draw count
    at which it ends: under a deadline an adaptive search draws at most half of what the clock
    leaves, so that verification has the other half; under max_draws it leaves verification a
    first round's draws."""
    budget, pairs = run.budget, plan.trials
    if plan.adaptive:
        half = int(budget.remaining() / 2)
        policy = run.policy
        start, cap = plan_search(
            plan.trials, plan.samples, half, policy.min_start, policy.start_divisor
        )
        if plan.fill_racing and finder.open_ended:
            spare = budget.remaining() - 2 * plan.verify_samples  # verification keeps its draws
            fill = min(2 * plan.trials * plan.samples, spare)
            pairs = racing_pairs(plan.trials, start, cap, fill)
    else:
        start = cap = plan.samples
    timed = plan.adaptive and budget.deadline is not None
    search_end = budget.used + budget.remaining() / 2 if timed else math.inf
    return start, cap, pairs, min(search_end, budget.max_draws - 2 * run.policy.min_start)


def search(run: Run, finder: BaseFinder, tester: Tester, plan: Plan) -> Candidate:
    """The leading candidate: the first pair whose own held-out test refutes the claim (adaptive
    plans), or the best ranked once the trials (and, adaptive, the racing) are done."""
    budget = run.budget
    start, cap, pairs, search_end = _search_sizes(run, finder, plan)
    candidates: list[Candidate] = []
    for trial, seed in enumerate(run.trial_seed.spawn(pairs)):
        if candidates and not _within(budget, 2 * start, search_end):
            run.stop(
                StopReason.SEARCH_BUDGET,
                f"the budget ended the search after {trial} of {pairs} trials.",
            )
            break
        pair = finder.ask()
        run.domain.validate_pair(pair)
        rng = np.random.default_rng(seed)
        try:
            candidate = Candidate(
                trial, pair, rng, budget.draw(pair.d0, start, rng), budget.draw(pair.d1, start, rng)
            )
        except OutOfTime:
            if not candidates:  # time for one pair and the smallest verification look
                assert budget.max_seconds is not None  # only a time budget runs out of time
                needed = budget.max_seconds + 2 * (start + run.policy.min_look) / budget.rate
                raise MechanismTooSlow(
                    f"max_seconds={budget.max_seconds:g} ended the search before the first pair had"
                    f" {start:,} outputs per side (the mechanism draws about {budget.rate:,.0f} per"
                    f" second): give max_seconds >= {needed:.0f}."
                ) from None
            run.stop(
                StopReason.SEARCH_BUDGET,
                f"max_seconds ended the search after {trial} of {pairs} trials.",
            )
            break
        if plan.orient_by_fit:
            fit_oriented(run, tester, plan, candidate)
            return candidate
        score(run, tester, plan, candidate, 0)
        run.progress(f"search: trial {trial + 1} of {pairs}, {budget.used:,} outputs drawn")
        finder.tell(pair, candidate.score)
        candidates.append(candidate)
        if plan.adaptive and candidate.looks_violating and not finder.keep_searching():
            return candidate
    if not plan.adaptive:
        return max(candidates, key=lambda c: c.rank)
    return race(run, tester, plan, candidates, start, cap, search_end)


def race(
    run: Run,
    tester: Tester,
    plan: Plan,
    candidates: list[Candidate],
    start: int,
    cap: int,
    search_end: float = math.inf,
) -> Candidate:
    """Successive halving: the better half by rank gets twice the samples, round by round, until
    one candidate is left at `cap`; a candidate whose held-out test refutes wins at once."""
    alive, size = candidates, start
    for round_number, (keep, target) in enumerate(
        racing_rounds(len(candidates), start, cap), start=1
    ):
        alive = sorted(alive, key=lambda c: c.rank, reverse=True)[:keep]
        if target == size:  # already at the cap: the halving alone decides
            continue
        if not _within(run.budget, keep * 2 * (target - size), search_end):
            run.stop(
                StopReason.RACING_BUDGET,
                f"the budget ended the search's racing at {size:,} outputs per side.",
            )
            break
        for candidate in alive:
            more = target - size
            try:
                more0, more1 = (
                    run.budget.draw(candidate.pair.d0, more, candidate.rng),
                    run.budget.draw(candidate.pair.d1, more, candidate.rng),
                )
            except OutOfTime:
                run.stop(
                    StopReason.RACING_BUDGET,
                    f"max_seconds ended the search's racing at {size:,} outputs per side.",
                )
                return max(alive, key=lambda c: c.rank)
            candidate.samples0, candidate.samples1 = (
                np.concatenate([candidate.samples0, more0]),
                np.concatenate([candidate.samples1, more1]),
            )
            score(run, tester, plan, candidate, round_number)
            run.progress(
                f"search: racing round {round_number}, {target:,} outputs per side,"
                f" {run.budget.used:,} drawn"
            )
            if candidate.looks_violating:
                return candidate
        size = target
    return max(alive, key=lambda c: c.rank)


def _within(budget: Budget, count: int, search_end: float) -> bool:
    """Whether `count` more draws fit the budget and the search's share of it (`search_end`)."""
    return budget.affordable(count) and budget.used + count <= search_end


def fit_oriented(run: Run, tester: Tester, plan: Plan, candidate: Candidate) -> None:
    """Fit both directions' events on all of `candidate`'s samples, for the verification's size
    and level, and keep the one with the larger selection value (`Tester.fit_oriented`; why one
    fit rather than held-out scores: docs/decisions/0011-orient-by-fit.md)."""
    size = plan.selection_size(plan.verify_samples)
    with single_threaded():
        candidate.fitted = tester.fit_oriented(
            candidate.samples0,
            candidate.samples1,
            run.claim,
            plan.beta,
            candidate.rng,
            eval_size=size,
        )
    run.progress(
        f"fit: one pair oriented on {len(candidate.samples0):,} outputs per side,"
        f" {run.budget.used:,} drawn"
    )


def score(run: Run, tester: Tester, plan: Plan, candidate: Candidate, round_number: int) -> None:
    """Score `candidate` on its samples so far (`held_out`) and record the trial."""
    began = clock.now()
    (candidate.forward, forward_event), (candidate.backward, backward_event) = held_out(
        run, tester, plan, candidate
    )
    candidate.events = (forward_event, backward_event)
    candidate.scores = (tester.score(candidate.forward), tester.score(candidate.backward))
    candidate.score = max(candidate.scores)
    candidate.evidence += len(candidate.samples0) * candidate.score
    candidate.weight += len(candidate.samples0)
    run.history.append(
        TrialRecord(
            candidate.trial,
            round_number,
            candidate.pair,
            len(candidate.samples0),
            candidate.score,
            candidate.forward,
            candidate.backward,
            clock.now() - began,
        )
    )


def held_out(
    run: Run, tester: Tester, plan: Plan, candidate: Candidate
) -> list[tuple[TestResult, Any]]:
    """`Tester.test` in both directions, (P, Q) = (D0's outputs, D1's) and the reverse: events
    fitted on the first half of each sample (`Tester.fit_both`), evaluated on the second.
    Returns (result, event) for each direction."""
    train0, test0 = split_halves(candidate.samples0)
    train1, test1 = split_halves(candidate.samples1)
    with single_threaded():
        size = plan.selection_samples or len(test0)
        events = tester.fit_both(
            train0, train1, run.claim, plan.beta, candidate.rng, eval_size=size
        )
        return [
            (tester.evaluate(event, test_p, test_q, run.claim, plan.beta), event)
            for event, (test_p, test_q) in zip(events, ((test0, test1), (test1, test0)))
        ]
