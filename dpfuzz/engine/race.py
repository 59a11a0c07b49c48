"""Search and certification as one race (``sampling="sequential"``): evidence that holds at every
look, kept from the first draw to the last.

The finder's first `trials` pairs are declared at once, each in both directions (two *arms* of
the `testers.betting.BettingCertificate`). The race runs in brackets of successive halving: the
first takes `AuditPolicy.race_first_pairs` pairs (the finders propose the relation's classic pairs
first), each later one twice as many. A pair new to the race draws `race_first_samples` outputs
per side to fit on; then, round by round, every pair still in the bracket gets its events fitted
on all its outputs so far (`Tester.fit_both`) and its bets placed from their frequencies there,
and draws the round's fresh outputs in up to `ROUND_LOOKS` pieces, each bet on as it comes. After
a round the better half by `Entrant.rank` goes on with twice the outputs, until one is left; the
next bracket starts over, with twice the first round's size once the field holds every pair.
Dropped pairs keep their wealth in the mixture.

The race stops the first time the arms' mixture exceeds 1/β — a refutation at level β whenever it
happens, since events, bets, pairs and the stop are all chosen from earlier outputs — or when the
budget (draws or clock) ends it. A race that ends without refuting says what it could have
refuted (`BettingCertificate.samples_to_refute`) or, if nothing, that it is inconclusive
(docs/decisions/0032-sequential-certification.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from dpfuzz.claims import ApproxDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.engine import clock
from dpfuzz.engine.budget import OutOfTime
from dpfuzz.engine.certification import Verification
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.run import Run
from dpfuzz.engine.stops import StopReason
from dpfuzz.errors import InvalidArgument
from dpfuzz.finders import BaseFinder
from dpfuzz.testers import Tester, TestResult
from dpfuzz.testers.base import single_threaded
from dpfuzz.testers.betting import BET_CAP, BettingCertificate, epsilon_grid
from dpfuzz.trials import TrialRecord

if TYPE_CHECKING:
    from dpfuzz.claims import Claim
    from dpfuzz.settings import AuditSettings

# What the race ranks pairs by (`round_score`), in the report's words.
RACE_SCORE = "held-out privacy loss on each round's event, averaged over rounds"
# Looks per pair per round, at most: a round's outputs are drawn and bet on in as many pieces.
ROUND_LOOKS = 8


@dataclass
class Entrant:
    """A raced pair: its outputs so far and, once fitted, each direction's event and bets."""

    trial: int
    pair: DatasetPair
    outputs: tuple = field(default_factory=lambda: ([], []))  # d0's and d1's, round by round
    events: tuple = ()  # (P, Q) = (d0, d1) first, then (d1, d0)
    bets: tuple = ()
    evidence: list = field(default_factory=lambda: [0.0, 0.0])  # Σ fresh outputs × score
    weight: int = 0  # fresh outputs per side bet on
    rounds: int = 0  # rounds bet on

    def arm(self, direction: int) -> int:
        """The certificate's arm of this pair in `direction` (0: P = d0's outputs)."""
        return len(self.events) * self.trial + direction

    @property
    def rank(self) -> float:
        """What the race ranks pairs by: the larger direction's held-out score (`round_score`)
        averaged over its rounds, weighted by their outputs."""
        scores = self.evidence[: len(self.events)]
        return max(scores) / self.weight if self.weight and scores else -math.inf

    def joined(self) -> tuple[np.ndarray, np.ndarray]:
        return np.concatenate(self.outputs[0]), np.concatenate(self.outputs[1])

    @property
    def count(self) -> int:
        return sum(len(outputs) for outputs in self.outputs[0])


def check_sequential(settings: AuditSettings, claim: Claim) -> None:
    """Refuse, before any draw, settings whose race the betting certificate cannot run."""
    refusal = race_refusal(settings, claim)
    if refusal is not None:
        raise InvalidArgument(refusal)


def race_refusal(settings: AuditSettings, claim: Claim) -> str | None:
    """Why the betting certificate cannot race `claim` under `settings` (None: it can). A tester
    named ``"auto"`` resolves to one that counts events (`auditing.audit_tester`)."""
    from dpfuzz.testers import tester_class

    if settings.arithmetic != "real":
        return (
            "sampling='sequential' audits the outputs as real numbers: give arithmetic='real', or"
            " sampling='adaptive' to test them as floats too."
        )
    tester = settings.tester
    if isinstance(tester, Tester):
        return _unraceable(tester, claim)
    if tester != "auto" and not tester_class(tester).counts_events:
        return _unraceable(tester_class(tester)(), claim)
    return _unraceable(None, claim)


def check_raceable(tester: Tester | None, claim: Claim) -> None:
    """Refuse a race the betting certificate cannot run: an (ε, δ) claim on events counted by
    `tester` (None: a tester still to be chosen)."""
    refusal = _unraceable(tester, claim)
    if refusal is not None:
        raise InvalidArgument(refusal)


def _unraceable(tester: Tester | None, claim: Claim) -> str | None:
    if isinstance(claim, ApproxDP) and (tester is None or tester.counts_events):
        return None
    if not isinstance(claim, ApproxDP):
        fix = f"audit {claim.describe()} with sampling='adaptive'"
    else:
        fix = "give tester='hockey_stick' (or 'auto'), or use sampling='adaptive'"
    used = "" if tester is None else f" with the {tester.name} tester"
    return (
        "sampling='sequential' certifies (ε, δ) claims on the hockey-stick tester's events;"
        f" got {claim.describe()}{used}: {fix}."
    )


def race(run: Run, finder: BaseFinder, tester: Tester, plan: Plan) -> Verification:
    """Race the finder's first `plan.trials` pairs (each once) to a verdict; returns the
    `Verification` of the arm with the most evidence."""
    claim = run.claim
    check_raceable(tester, claim)
    if not isinstance(claim, ApproxDP):  # check_raceable refused it; this narrows the type
        raise InvalidArgument(f"a race certifies (ε, δ) claims, got {claim.describe()}.")
    pairs: list[DatasetPair] = []
    for _ in range(plan.trials):  # a pair proposed again (a finder given a list cycles it) once
        pair = finder.ask()
        run.domain.validate_pair(pair)
        if pair not in pairs and pair.swapped() not in pairs:
            pairs.append(pair)
    entrants = [Entrant(trial, pair) for trial, pair in enumerate(pairs)]
    certificate = BettingCertificate(
        len(entrants) * plan.directions, epsilon_grid(claim.epsilon), claim.delta, plan.beta
    )
    rngs = np.random.default_rng(run.trial_seed), np.random.default_rng(run.verify_seed)
    # brackets grow the field first, then the rounds: each costs about twice the one before
    growing = math.ceil(math.log2(max(len(entrants) / run.policy.race_first_pairs, 1)))
    bracket, rounds = 0, 0
    while True:
        entered = entrants[: run.policy.race_first_pairs * 2**bracket]
        size = run.policy.race_first_samples * 2 ** max(bracket - growing, 0)
        done, rounds = _bracket(run, tester, plan, certificate, entered, size, rounds, rngs)
        if done:
            break
        bracket += 1
    if plan.sharpen and certificate.refuted:
        rounds = _sharpen(run, tester, plan, claim, certificate, entrants, rounds, rngs)
    return _verification(run, plan, certificate, entrants, rounds)


def _bracket(
    run: Run,
    tester: Tester,
    plan: Plan,
    certificate,
    entered: list,
    size: int,
    rounds: int,
    rngs,
) -> tuple[bool, int]:
    """One bracket of successive halving over the `entered` pairs. Pairs new to the race draw
    their first `race_first_samples` per side; then rounds of `size` outputs per side, doubling
    as the better half by `Entrant.rank` goes on, until one pair is left. Returns whether the
    race is over (a refutation, or the budget) and the rounds run so far."""
    draw_rng, fit_rng = rngs
    first = run.policy.race_first_samples
    newcomers = [entrant for entrant in entered if entrant.count == 0]
    if newcomers and not _draw_round(run, tester, certificate, newcomers, first, draw_rng):
        return True, rounds
    alive = list(entered)
    while True:
        _fit(run, tester, plan, certificate, alive, fit_rng)
        if not _draw_round(run, tester, certificate, alive, size, draw_rng):
            return True, rounds
        rounds += 1
        run.progress(
            f"race: round {rounds}, {len(alive)} pair(s), {run.budget.used:,} drawn, e-value"
            f" {certificate.e_value():.3g} of {1 / plan.beta:g}"
        )
        if certificate.refuted:
            return True, rounds
        if len(alive) == 1:
            return False, rounds
        ranked = sorted(alive, key=lambda entrant: entrant.rank, reverse=True)
        alive, size = ranked[: -(-len(alive) // 2)], 2 * size


def _fit(run: Run, tester: Tester, plan: Plan, certificate, alive: list, rng, claim=None) -> None:
    """Each racing pair's events, fitted on all its outputs so far for `claim` (default: the
    run's), and the bets on them."""
    share = plan.beta / len(certificate.log_wealth)
    claim = claim or run.claim
    for entrant in alive:
        first, second = entrant.joined()
        with single_threaded():
            if plan.directions == 2:
                events = tuple(tester.fit_both(first, second, claim, share, rng))
            else:
                events = (tester.fit(first, second, claim, share, rng),)
        entrant.events = events
        entrant.bets = tuple(
            certificate.bets(tester.in_event(event, p), tester.in_event(event, q), len(first))
            for event, (p, q) in zip(events, ((first, second), (second, first)))
        )


def _draw_round(run: Run, tester: Tester, certificate, alive: list, size: int, rng) -> bool:
    """Draw `size` outputs per side of every racing pair (fewer if the draw budget ends first),
    bet on those with events, and record them; False when the budget ended the race."""
    budget = run.budget
    for entrant in alive:
        count = int(min(size, budget.remaining() // 2))
        if count < run.policy.race_first_samples:
            run.stop(
                StopReason.RACING_BUDGET, f"the budget ended the race at {budget.used:,} draws."
            )
            return False
        began = clock.now()
        try:
            masks = _draw_pair(run, tester, certificate, entrant, count, rng)
        except OutOfTime:
            run.stop(
                StopReason.VERIFICATION_CLOCK,
                f"max_seconds ended the race at {budget.used:,} draws.",
            )
            return False
        if entrant.events:
            _record(run, tester, certificate, entrant, masks, clock.now() - began)
        if certificate.refuted:
            return True
    return True


def _draw_pair(
    run: Run,
    tester: Tester,
    certificate,
    entrant: Entrant,
    count: int,
    rng,
    until_refuted: bool = True,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Draw `count` outputs per side of `entrant`'s pair in up to `ROUND_LOOKS` pieces, betting on
    each piece as it comes (a look after each) and, with `until_refuted`, stopping at a
    refutation. Returns, per direction, which of the round's outputs of P and of Q fell in its
    event."""
    piece = max(run.policy.race_first_samples, -(-count // ROUND_LOOKS))
    masks: list = [([], []) for _ in entrant.events]
    drawn = 0
    while drawn < count and not (until_refuted and certificate.refuted):
        size = min(piece, count - drawn)
        new = (
            run.budget.draw(entrant.pair.d0, size, rng),
            run.budget.draw(entrant.pair.d1, size, rng),
        )
        for direction, event in enumerate(entrant.events):
            in_p, in_q = (tester.event_mask(event, side) for side in new[:: 1 - 2 * direction])
            certificate.update(entrant.arm(direction), entrant.bets[direction], in_p, in_q)
            masks[direction][0].append(in_p)
            masks[direction][1].append(in_q)
        certificate.look()
        for kept, outputs in zip(entrant.outputs, new):
            kept.append(outputs)
        drawn += size
    joined = [(np.concatenate(in_p), np.concatenate(in_q)) for in_p, in_q in masks]
    for direction, (in_p, in_q) in enumerate(joined):
        entrant.evidence[direction] += len(in_p) * round_score(in_p, in_q, certificate.delta)
    entrant.weight += drawn if entrant.events else 0
    return joined


def _sharpen(
    run: Run,
    tester: Tester,
    plan: Plan,
    claim: ApproxDP,
    certificate,
    entrants: list,
    rounds: int,
    rngs,
) -> int:
    """After a refutation (`Plan.sharpen`): rounds on the witness pair alone, each twice the one
    before, its events fitted at the ε certified so far, until the budget ends or every grid
    point is rejected. Each grid point's wealth stays a supermartingale under its hypothesis
    whatever the events and the stopping time, so the fixed-sequence ε bound holds at every look
    (`dpfuzz.testers.betting`). Returns the rounds run so far."""
    draw_rng, fit_rng = rngs
    entrant = entrants[certificate.leader() // plan.directions]
    size = max(entrant.count, run.policy.race_first_samples)
    while not certificate.rejected.all():
        count = int(min(size, run.budget.remaining() // 2))
        if count < run.policy.race_first_samples:
            break
        certified = certificate.epsilon_lower_bound()
        _fit(
            run,
            tester,
            plan,
            certificate,
            [entrant],
            fit_rng,
            replace(claim, epsilon=certified),
        )
        began = clock.now()
        try:
            masks = _draw_pair(
                run, tester, certificate, entrant, count, draw_rng, until_refuted=False
            )
        except OutOfTime:
            break
        _record(run, tester, certificate, entrant, masks, clock.now() - began)
        rounds, size = rounds + 1, 2 * size
        run.progress(
            f"sharpening: round {rounds}, {run.budget.used:,} drawn, ε ≥"
            f" {certificate.epsilon_lower_bound():.3g}"
        )
    return rounds


def round_score(in_p: np.ndarray, in_q: np.ndarray, delta: float) -> float:
    """A round's held-out privacy loss on its event, ln((k_p − δn + ½) / (k_q + ½)) for k_p, k_q
    of n fresh outputs in it: what pairs are ranked by (the search's ε objective, smoothed)."""
    k_p, k_q = int(np.count_nonzero(in_p)), int(np.count_nonzero(in_q))
    return math.log(max(k_p - delta * len(in_p), 0.0) + 0.5) - math.log(k_q + 0.5)


def _record(
    run: Run,
    tester: Tester,
    certificate,
    entrant: Entrant,
    masks: list,
    seconds: float,
) -> None:
    """A search record of the pair's round: each direction's wealth so far as its result (an
    e-value against the claim), the round's plug-in hockey-stick divergence as its estimate."""
    gamma = float(certificate.gammas[0])
    results = []
    for direction, (in_p, in_q) in enumerate(masks):
        arm = entrant.arm(direction)
        samples = int(certificate.samples[arm])
        results.append(
            TestResult(
                tester=tester.name,
                claim=run.claim,
                divergence="betting e-value",
                bound=certificate.e_value(arm),
                threshold=1 / certificate.beta,
                epsilon_lower_bound=None,
                estimate=float(np.mean(in_p) - gamma * np.mean(in_q)),
                beta=certificate.beta,
                event=entrant.events[direction].describe(),
                num_samples=(samples, samples),
            )
        )
    entrant.rounds += 1
    run.history.append(
        TrialRecord(
            entrant.trial,
            entrant.rounds - 1,
            entrant.pair,
            entrant.count,
            entrant.rank,
            results[0],
            results[-1],
            seconds,
        )
    )


def _verification(run: Run, plan: Plan, certificate, entrants: list, rounds: int):
    """The run's `Verification`: the mixture's e-value and ε lower bound, on the pair and event of
    the arm with the most wealth (a refutation) or the most outputs bet on (None when no output
    was bet on)."""
    arm = certificate.leader() if certificate.refuted else _most_tested(certificate)
    entrant, direction = entrants[arm // plan.directions], arm % plan.directions
    records = [record for record in run.history if record.trial == entrant.trial]
    if not records:
        return None
    last = records[-1]
    result = last.backward if direction else last.forward
    evidence = certificate.verdict_e_value()
    result = replace(
        result,
        bound=evidence,
        epsilon_lower_bound=certificate.epsilon_lower_bound(),
        details={
            "sequential": True,
            "hypothesis": (
                f"hockey_stick(gamma={certificate.gammas[0]:.6g}) <= {certificate.delta:g}"
            ),
            "arm_e_value": result.bound,
            "arms": len(certificate.log_wealth),
            "pairs": sum(raced.rounds > 0 for raced in entrants),
            "rounds": rounds,
            "samples_to_refute": certificate.samples_to_refute(),
        },
    )
    pair = entrant.pair.swapped() if direction else entrant.pair
    looks = [  # the witness arm's wealth after each of its rounds
        {
            "samples": int(record.samples),
            "beta": plan.beta,
            "bound": (record.backward if direction else record.forward).bound,
            "violated": False,
        }
        for record in records
    ]
    looks[-1]["violated"] = result.violated
    verification = Verification(result, pair, looks=looks)
    verification.event = entrant.events[direction]
    return verification


def _most_tested(certificate) -> int:
    """The arm with the most outputs bet on (of those, the most wealth): what a race that did not
    refute examined most."""
    return int(np.lexsort((certificate.log_wealth[:, 0], certificate.samples))[-1])


def race_power(result: TestResult) -> dict:
    """What a race that did not refute could have refuted, in words (`AuditReport.power_text`)."""
    samples, needed = min(result.num_samples), result.details["samples_to_refute"]
    return {
        "divergence": result.divergence,
        "samples": samples,
        "value": None,
        "text": (
            f"{samples:,} outputs per side were bet on this pair's event; one that separates the"
            f" datasets perfectly would have refuted the claim after {needed:,}"
        ),
    }


def race_inconclusive(result: TestResult, factor: float) -> str | None:
    """Why a race that did not refute could not have refuted a violation of a stated size (None
    when it could): too few outputs bet on for even a perfectly separating event, or for a release
    that fails with probability `factor` · δ (an output its neighbour never gives)."""
    samples, needed = min(result.num_samples), result.details["samples_to_refute"]
    if samples < needed:
        return (
            f"with {samples:,} outputs per side bet on, no outcome could have refuted the claim:"
            f" even an event that separates the datasets perfectly needs {needed:,} (raise"
            " max_draws or max_seconds)"
        )
    claim, arms = result.claim, result.details["arms"]
    if not isinstance(claim, ApproxDP) or claim.delta <= 0:
        return None
    gamma, delta, failing = math.exp(claim.epsilon), claim.delta, factor * claim.delta
    bet = BET_CAP / (gamma + delta)
    growth = failing * math.log1p(bet * (1 - delta)) + (1 - failing) * math.log1p(-bet * delta)
    to_test = math.inf if growth <= 0 else math.log(arms / result.beta) / growth
    if samples >= to_test:
        return None
    return (
        f"δ = {delta:g} is too small to test with {samples:,} outputs per side bet on: a release"
        f" that fails with probability {factor:g}·δ = {failing:.3g} (an output its neighbour never"
        f" gives) would not be refuted; about {math.ceil(to_test):,} outputs per side test it"
        " (raise max_draws or max_seconds)"
    )
