"""Certification: the chosen pair's event evaluated on fresh outputs, the only place a run
refutes a claim.

The event is fitted on the leader's search samples (or, for a pair the finder names itself,
e.g. a shrunk witness, on fresh training samples), then counted on fresh outputs in doubling
looks that stop at the first refutation (adaptive plans), or in one look. Look j is an exact
test at level β_j with Σ β_j = β (`engine.schedule`); with both directions, each order of the
pair gets its own event, fitted on the same samples and counted on the same fresh outputs, at
β_j / 2. So a correct mechanism is flagged with probability at most β for the whole run,
however many looks are taken and whenever the run stops (docs/explanation/statistics.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dpfuzz.claims import Claim
from dpfuzz.datasets import DatasetPair
from dpfuzz.engine import clock
from dpfuzz.engine.budget import PIECE_SECONDS, Budget, Deadline, OutOfTime
from dpfuzz.engine.chunks import (
    CountingJob,
    chunk_generators,
    chunks_for,
    chunks_needed,
    count_on_cluster,
)
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.run import Run
from dpfuzz.engine.schedule import Look, verification_looks
from dpfuzz.engine.search import Candidate
from dpfuzz.engine.stops import StopReason
from dpfuzz.errors import InvalidArgument, MechanismTooSlow
from dpfuzz.finders import BaseFinder
from dpfuzz.mechanism import chunk_rows
from dpfuzz.testers import Tester, TestResult
from dpfuzz.testers.base import single_threaded


@dataclass
class Verification:
    result: TestResult
    pair: DatasetPair  # oriented as `result` certified it: P = d0's outputs
    looks: list = field(default_factory=list)  # (samples per side, beta_j, bound, violated)
    samples: tuple = ()  # the fresh outputs of P and Q the last look counted
    event: object = (
        None  # the certified event (the tester's object), as `result.event` describes it
    )


class FreshOutputs:
    """The verification's fresh outputs of P and Q, drawn look by look. An event that the tester
    certifies from counts (`Tester.counts`) gets them drawn, counted and discarded
    `verify_chunk_values` output values at a time, each chunk with its own generators
    (`engine.chunks`; on the workers of a Dask `client`, if given), and of 1-D outputs the first
    `profile_max_samples` per side are kept, for the privacy profile. Other testers get every
    output kept."""

    def __init__(
        self,
        tester: Tester,
        events: tuple,
        chunk_values: int,
        keep: int,
        client: Any = None,
        switch_interval: float = 0.1,
    ):
        self.tester, self.events = tester, events  # the event of (P, Q) and, if any, that of (Q, P)
        self.counting = all(tester.counts(event) for event in events)
        self.chunk_values, self.keep, self.client, self.switch_interval = (
            chunk_values,
            keep,
            client,
            switch_interval,
        )
        self.entropy: int | None = (
            None  # of the chunks' generators, drawn from the verification's at its first draw
        )
        self.chunks = 0  # chunks drawn so far
        self.count = 0  # outputs per side so far
        # of them, how many fall in each event under P and under Q
        self.event_counts = [[0, 0] for _ in events]
        self.outputs: tuple[list, list] = ([], [])
        self.counting_seconds = 0.0
        self.cut = False  # whether a deadline ended the drawing early

    def draw(
        self,
        budget: Budget,
        pair: DatasetPair,
        count: int,
        rng: np.random.Generator,
        floor: int = 0,
        pace_share: float = 1.0,
    ) -> None:
        """`count` more outputs per side; with the budget's deadline, in chunks while the next
        fits before it at `pace_share` of the time left at the pace so far, and at least `floor`
        in all. How many are drawn then depends on the clock alone, never on the outputs, so the
        certificate on them keeps its level."""
        deadline = budget.deadline
        chunked = self.counting or deadline is not None
        chunk = (
            chunk_rows(budget.output_shape or (), self.chunk_values) if chunked else max(count, 1)
        )
        if self.counting and self.entropy is None:
            self.entropy = int(rng.integers(2**63))
        entropy = self.entropy or 0  # set when counting, unused otherwise
        if self.counting and self.client is not None and budget.output_shape is not None:
            return self._draw_on_cluster(budget, pair, count, chunk, deadline, floor)
        drawn, began = 0, clock.now()
        while drawn < count:
            size = min(chunk, count - drawn)
            if deadline is not None:
                size = self._paced(budget, size, drawn, began, deadline, floor, pace_share)
                if size <= 0:
                    self.cut = True
                    return
            generators = chunk_generators(entropy, self.chunks) if self.counting else (rng, rng)
            self.chunks += 1
            # the deadline is hard: what the clock leaves of a chunk, the same number on both sides
            try:
                first = budget.draw(pair.d0, size, generators[0], partial=True)
                second = budget.draw(pair.d1, len(first), generators[1], partial=True)
            except OutOfTime:
                self.cut = True
                return
            got = len(second)
            if got:
                self._take((first[:got], second), got)
                drawn += got
            if got < size:
                self.cut = True
                return

    def _paced(
        self,
        budget: Budget,
        size: int,
        drawn: int,
        began: float,
        deadline: Deadline,
        floor: int,
        pace_share: float,
    ) -> int:
        """`size`, cut to the outputs per side that fit before `deadline` at `pace_share` of the
        time left at the pace so far, or small steps past the pace toward `floor`."""
        now, left = clock.now(), deadline.seconds_left()
        per_output = (now - began) / drawn if drawn else 2 / budget.rate  # seconds, per side
        if left <= 0:
            fits = 0
        else:
            fits = int(pace_share * left / per_output) if per_output > 0 else size
        step = floor if budget.rate == math.inf else max(1, int(budget.rate * PIECE_SECONDS / 2))
        toward_floor = min(floor - self.count, step)  # cut by the deadline
        return min(size, max(fits, toward_floor))

    def _draw_on_cluster(
        self,
        budget: Budget,
        pair: DatasetPair,
        count: int,
        chunk: int,
        deadline: Deadline | None,
        floor: int,
    ) -> None:
        """`count` more outputs per side, drawn and counted on the client's workers in the chunks
        this process would draw; with a `deadline`, the chunks finished by then (and, unless the
        budget's deadline is hard, at least `floor` outputs per side in all)."""
        assert budget.output_shape is not None and self.entropy is not None  # as `draw` checks
        scalar = int(np.prod(budget.output_shape)) == 1
        sizes, keeps = chunks_for(count, chunk, self.count, self.keep, scalar)
        job = CountingJob(
            budget.mechanism,
            pair,
            self.tester,
            self.events,
            budget.output_shape,
            budget.call_timeout,
            self.entropy,
            self.switch_interval,
        )
        hard = deadline is None or deadline.hard
        at_least = 0 if hard else chunks_needed(floor - self.count, chunk)
        done, seconds = count_on_cluster(
            self.client, job, self.chunks, sizes, keeps, deadline, at_least
        )
        self.chunks += len(sizes)
        for piece in done:
            for counts, new in zip(self.event_counts, piece.counts):
                counts[0], counts[1] = counts[0] + new[0], counts[1] + new[1]
            if piece.kept is not None:
                for kept, outputs in zip(self.outputs, piece.kept):
                    kept.append(outputs)
            self.count += piece.size
        budget.count_elsewhere(2 * sum(piece.size for piece in done), seconds)
        self.counting_seconds += seconds
        self.cut = len(done) < len(sizes)

    def _take(self, new: tuple, size: int) -> None:
        if self.counting:
            counted_at = clock.now()
            for event, counts in zip(self.events, self.event_counts):
                for side, outputs in enumerate(new):
                    counts[side] += self.tester.in_event(event, outputs)
            self.counting_seconds += clock.now() - counted_at
        if not self.counting:
            for kept, outputs in zip(self.outputs, new):
                kept.append(outputs)
        elif new[0].size == size and self.count < self.keep:
            for kept, outputs in zip(self.outputs, new):
                kept.append(outputs[: self.keep - self.count])
        self.count += size

    def kept(self) -> tuple:
        """The outputs kept so far, as (P's, Q's), or () when only counted."""
        if not self.outputs[0]:
            return ()
        if len(self.outputs[0]) == 1:
            return self.outputs[0][0], self.outputs[1][0]
        joined = tuple(np.concatenate(kept) for kept in self.outputs)
        self.outputs = ([joined[0]], [joined[1]])
        return joined

    def certify(self, claim: Claim, beta: float) -> list[TestResult]:
        """Each event certified at β / (number of events): the first with P = D0's outputs, the
        second (the reverse) with P = D1's."""
        share = beta / len(self.events)
        if not self.counting:
            p, q = self.kept()
            return [
                self.tester.evaluate(event, *((q, p) if direction else (p, q)), claim, share)
                for direction, event in enumerate(self.events)
            ]
        results = []
        for direction, (event, counts) in enumerate(zip(self.events, self.event_counts)):
            k_p, k_q = counts[::-1] if direction else counts
            results.append(
                replace(
                    self.tester.certify_counts(
                        event, (k_p, self.count), (k_q, self.count), claim, share
                    ),
                    seconds=self.counting_seconds,
                )
            )
        return results


def check_refutable(run: Run, tester: Tester, plan: Plan) -> str | None:
    """Samples guidance, before the search: fail when no outcome on `verify_samples` outputs
    could refute the claim; when the outputs the draw or time budget leaves could not, but
    `verify_samples` could, return why the audit is inconclusive (the probe has drawn by then:
    the budget, not the settings, is short). A δ too small to test makes the verdict inconclusive
    after the verification instead (`engine.verdict`)."""
    claim, budget = run.claim, run.budget
    # what the clock leaves verification
    floor = 0 if budget.deadline is None else run.policy.deadline_floor
    largest = int(min(plan.verify_samples, max(budget.remaining() // 2, floor)))
    if largest <= 0:
        raise InvalidArgument(
            f"max_draws={budget.max_draws:,} leaves no outputs to verify on: the probe drew"
            f" {budget.used:,} of them. Give max_draws of at least"
            f" {run.policy.smallest_audit_draws:,}."
        )
    beta = plan.beta / plan.directions  # what one direction's certificate gets
    best = tester.max_certifiable(claim, largest, beta)
    threshold = tester.threshold(claim)
    if best is None or best > threshold:
        return None
    if (
        largest < plan.verify_samples
        and (tester.max_certifiable(claim, plan.verify_samples, beta) or 0) > threshold
    ):
        return (
            f"the budget leaves at most {largest:,} verification outputs per dataset after"
            f" {budget.used:,} draws, and with them no outcome could refute {claim.describe()}"
            f" (an event that separates the datasets perfectly certifies at most {best:.4g}; the"
            f" claim allows {threshold:.4g}). Raise max_seconds or max_draws"
        )
    needed = largest
    while needed < 10**13 and (tester.max_certifiable(claim, needed, beta) or 0) <= threshold:
        needed *= 2
    hint = (
        f"about {needed:,} outputs per dataset (max_draws >= {4 * needed:,})"
        if needed < 10**13
        else "more outputs than any audit can draw"
    )
    one_direction = ""
    if (
        plan.directions == 2
        and (tester.max_certifiable(claim, largest, plan.beta) or 0) > threshold
    ):
        one_direction = (
            f" (Each of the pair's two directions is certified at beta/2 = {beta:g};"
            " verify_directions='one' certifies one direction at the whole beta and could refute"
            " it with these outputs.)"
        )
    raise InvalidArgument(
        f"{claim.describe()} cannot be refuted by the {tester.name} tester with at most {largest:,}"
        " verification outputs per dataset: even an event that separates the two datasets"
        f" perfectly would certify at most {best:.4g}, and the claim allows {threshold:.4g}."
        f" Refuting it needs {hint}; raise verify_samples and max_draws, or audit a smaller"
        f" claim.{one_direction}"
    )


def verification_pair(
    run: Run,
    finder: BaseFinder,
    tester: Tester,
    plan: Plan,
    leader: Candidate,
    rng: np.random.Generator,
) -> tuple[DatasetPair, np.ndarray, np.ndarray, Any]:
    """The pair to verify, oriented, with the samples its event is fitted on, and the event
    already validated on held-out samples, if any."""
    pair, train_p, train_q, event = leader.oriented()
    chosen = finder.candidate()  # e.g. a shrunk witness: fit its event on fresh samples
    if chosen is None or chosen == pair or chosen == pair.swapped():
        return (
            pair,
            train_p,
            train_q,
            (event if plan.adaptive or leader.fitted is not None else None),
        )
    searched = [record for record in run.history if record.pair == chosen]
    if searched and tester.score(searched[0].backward) > tester.score(searched[0].forward):
        chosen = chosen.swapped()
    size = len(leader.samples0)
    return (
        chosen,
        run.budget.draw(chosen.d0, size, rng),
        run.budget.draw(chosen.d1, size, rng),
        None,
    )


def looks(run: Run, plan: Plan, first: int) -> list[Look]:
    """The verification's looks: doubling to what the budget leaves (adaptive), or one."""
    if not plan.adaptive:
        return [Look(plan.verify_samples, plan.beta)]
    cap = int(min(plan.verify_samples, max(run.budget.remaining() // 2, 10)))
    return verification_looks(cap, first, plan.beta, run.policy.min_look)


def verify(
    run: Run,
    tester: Tester,
    plan: Plan,
    pair: DatasetPair,
    train_p: np.ndarray,
    train_q: np.ndarray,
    event: Any,
    rng: np.random.Generator,
    reverse_rng: np.random.Generator,
    planned: list[Look] | None = None,
) -> Verification:
    """Certify `pair` on fresh outputs, look by look (`planned`, by default the plan's `looks`);
    with both directions, the reverse event is fitted on the same training samples (with its own
    generator, so the forward direction's draws are those of a one-direction run) and counted on
    the same fresh outputs, each direction at β_j / 2 (a union bound: the look keeps its level β_j).
    """
    planned = planned or looks(run, plan, len(train_p))
    last = planned[-1]
    share, size = last.beta / plan.directions, plan.selection_size(last.samples)
    with single_threaded():
        if event is None:
            event = tester.fit(train_p, train_q, run.claim, share, rng, eval_size=size)
        events: tuple = (event,)
        if plan.directions == 2:
            events += (tester.fit(train_q, train_p, run.claim, share, reverse_rng, eval_size=size),)
    policy, budget = run.policy, run.budget
    fresh = FreshOutputs(
        tester,
        events,
        policy.verify_chunk_values,
        policy.profile_max_samples,
        run.client,
        policy.worker_switch_interval,
    )
    verification = None
    for index, look in enumerate(planned):
        # with a deadline, a look starts if the draws allow it and the clock cuts it short
        missing = look.samples - fresh.count
        if index > 0 and not budget.affordable(2 * missing, clock=budget.deadline is None):
            run.stop(
                StopReason.VERIFICATION_BUDGET,
                f"the budget ended verification at {fresh.count:,} outputs per side.",
            )
            break
        fresh.draw(budget, pair, missing, rng, policy.deadline_floor, policy.deadline_pace_share)
        if fresh.cut:
            _stop_at_clock(run, plan, look, fresh.count, size)
        verification = _certify_look(run, fresh, pair, look, verification)
        run.progress(
            f"verify: look {index + 1} of {len(planned)}, {fresh.count:,} fresh outputs per side,"
            f" {budget.used:,} drawn"
        )
        if verification.result.violated or fresh.cut:
            break
    assert verification is not None  # a plan has at least one look
    if verification.pair != pair:
        run.note(REVERSED_NOTE)
    return verification


REVERSED_NOTE = (
    "refuted with d0 and d1 in the order opposite to the one chosen for verification"
    " (verification certifies both orders on the same fresh outputs, each at half of β_j)."
)


def _stop_at_clock(run: Run, plan: Plan, look: Look, count: int, size: int) -> None:
    """Record that the clock ended verification at `count` outputs per side (a timed estimate's
    count has a cap, not a plan: say what its event was chosen for, `size`); with none drawn,
    raise `MechanismTooSlow`."""
    ended = f"max_seconds ended verification at {count:,}"
    text = (
        f"{ended} of {look.samples:,} outputs per side."
        if plan.selection_samples is None
        else f"{ended} outputs per side (its event chosen for {size:,})."
    )
    run.stop(StopReason.VERIFICATION_CLOCK, text)
    if count == 0:
        budget = run.budget
        raise MechanismTooSlow(
            f"max_seconds={budget.max_seconds:g} ended verification before its first fresh"
            " output: a call of the mechanism ran past the deadline (it drew"
            f" {budget.rate:,.0f} outputs per second before). Give a larger max_seconds, or"
            " find why one call takes this long."
        )


def _certify_look(
    run: Run, fresh: FreshOutputs, pair: DatasetPair, look: Look, verification: Verification | None
) -> Verification:
    """The look's certificate: of the directions that refute, the one furthest above the claim's
    threshold; if none does, the first (the order the search chose)."""
    with single_threaded():
        results = fresh.certify(run.claim, look.beta)
    refuting = [index for index, result in enumerate(results) if result.violated]
    direction = (
        max(refuting, key=lambda index: results[index].bound - results[index].threshold)
        if refuting
        else 0
    )
    result = results[direction]
    if len(results) == 2:
        result = replace(
            result, details={**result.details, "other_direction": results[1 - direction].to_dict()}
        )
    verification = verification or Verification(result, pair)
    verification.result, verification.samples = result, fresh.kept()[:: -1 if direction else 1]
    verification.event = fresh.events[direction]
    verification.pair = pair.swapped() if direction else pair
    verification.looks.append(
        {
            "samples": fresh.count,
            "beta": look.beta,
            "bound": result.bound,
            "violated": result.violated,
        }
    )
    return verification
