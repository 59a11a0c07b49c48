"""Certified ε estimation: "how private is this, at least?" (the question DP-Sniper answers).

`estimate_epsilon` runs the engine (`dpfuzz.engine`) with the claim ε = 0 (at the given δ) and
the hockey-stick tester's ``objective="epsilon"`` (events ranked by the ε they would certify) and
``certificate="privacy_loss"`` (pure DP: one joint bound on the event's privacy loss). On one
pair, most draws go to the one final certification, whose bound is the estimate
(`engine.sizes`). Several pairs (a `Domain`, or a list) are estimated in two stages: a search run
spends `search_share` of the draws on all pairs alike and picks the pair whose held-out bound is
largest (`_chosen_pair`); the rest estimate that pair alone, its event fitted on fresh outputs.
The pair and event are selected on other samples than the one held-out test at level β, so

    P(true ε at δ < estimate) ≤ β.

A time budget is planned by `engine.timing`: the clock chooses the draws, never an outcome, so
the guarantee holds unchanged. Every number of the plan is a field of `EstimationPolicy`.
"""

from __future__ import annotations

import importlib
import time
import warnings
from dataclasses import dataclass, replace

import numpy as np

from dpfuzz.claims import ApproxDP, PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain, enclosing_domain
from dpfuzz.engine.budget import Budget
from dpfuzz.engine.pipeline import search_and_certify
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.policy import EstimationPolicy
from dpfuzz.engine.probe import probe
from dpfuzz.engine.run import Run, fresh_seed
from dpfuzz.engine import sizes
from dpfuzz.engine.timing import Deadline, timed_estimate
from dpfuzz.errors import InvalidArgument
from dpfuzz.estimate_report import EpsilonEstimate
from dpfuzz.mechanism import Mechanism, output_words
from dpfuzz.memory import check_affordable
from dpfuzz.report import AuditReport
from dpfuzz.settings import AuditSettings
from dpfuzz.testers import make_tester
from dpfuzz.validation import check_int, check_number


def estimate_epsilon(
    mechanism: Mechanism,
    target: Domain | DatasetPair | list[DatasetPair],
    *,
    delta: float = 0.0,
    max_draws: int | None = None,
    max_seconds: float | None = None,
    beta: float = 0.05,
    seed: int | None = None,
    domain: Domain | None = None,
    policy: EstimationPolicy | None = None,
) -> EpsilonEstimate:
    """The largest certified lower bound on ε (at `delta`) that dpfuzz finds for `mechanism`.

    `target` is a `Domain` to search (10 pairs), or the neighbouring pair(s) to measure under
    `domain`'s relation, or, without `domain`, under the first relation that makes every pair a
    neighbour (add/remove, substitute, ℓ∞ with sensitivity 1). `max_draws` (default 4·10^6)
    bounds all mechanism outputs: at least 60% of them (with several pairs, of what the search
    leaves) certify, and each pair's event is fitted on at most 3·10^6 outputs per side (one
    number per draw: 10^6; beyond 1.2·10^8 draws, a share up to 10^7). `max_seconds` bounds the
    time instead (`max_draws`, if given, stays a ceiling): pilots measure the pace, the fit and
    search get the draws half the time left affords, and the final certification draws until the
    deadline (at least 1,000 outputs per side; `report.stops` says when the clock ended it). The
    clock sets its draws, so it reruns exactly only where `max_draws` bound first. A `max_seconds`
    too short for the smallest estimate is an error that says how long it needs.
    `policy` holds the tuning numbers (`dpfuzz.engine.EstimationPolicy`).
    """
    delta = check_number("delta", delta, minimum=0.0, maximum=1.0, exclusive_maximum=True)
    if max_draws is not None:
        max_draws = check_int("max_draws", max_draws, minimum=10_000)
    if policy is not None and not isinstance(policy, EstimationPolicy):
        raise InvalidArgument(f"policy must be a dpfuzz.EstimationPolicy, got {type(policy).__name__}; build one with EstimationPolicy(field=value, ...).")
    task = _Task.make(mechanism, target, domain, delta, beta, policy or EstimationPolicy())
    if max_seconds is None:
        return task.estimate(task.policy.default_max_draws if max_draws is None else max_draws, seed)
    max_seconds = check_number("max_seconds", max_seconds, minimum=0.0, exclusive_minimum=True)
    return timed_estimate(task, max_seconds, max_draws, seed)


@dataclass(frozen=True)
class _Task:
    """What every estimate of one call shares: the mechanism, the pairs (a finder name or a list),
    δ, β and the policy."""

    mechanism: Mechanism
    domain: Domain
    finder: str | list
    trials: int
    delta: float
    beta: float
    policy: EstimationPolicy

    @classmethod
    def make(cls, mechanism, target, domain, delta: float, beta: float, policy: EstimationPolicy) -> "_Task":
        if isinstance(target, Domain):
            return cls(mechanism, target, "random", policy.search_trials, delta, beta, policy)
        pairs = [target] if isinstance(target, DatasetPair) else list(target)
        if not pairs or not all(isinstance(pair, DatasetPair) for pair in pairs):
            fix = " Wrap two datasets as DatasetPair(d0, d1)." if isinstance(target, tuple) and len(target) == 2 else ""
            raise InvalidArgument(f"target must be a Domain, a DatasetPair or a list of them, got {target!r}.{fix}")
        domain = enclosing_domain(pairs) if domain is None else domain
        for pair in pairs:
            domain.validate_pair(pair)
        return cls(mechanism, domain, pairs, len(pairs), delta, beta, policy)

    @property
    def first_pair(self) -> DatasetPair:
        return self.domain.relation.classic_pairs(self.domain)[0] if isinstance(self.finder, str) else self.finder[0]

    def estimate(self, max_draws: int, seed: int | None, deadline: Deadline | None = None) -> EpsilonEstimate:
        """One estimate: on one pair, a run of ε = 0 at δ with the ε objective, fixed sampling and
        one final certification (with a `deadline`, stretched until it); on several, a search
        run chooses the pair first."""
        started = time.perf_counter()
        smallest = sizes.smallest_budget(self.trials, self.policy)
        if max_draws < smallest:
            raise InvalidArgument(
                f"max_draws={max_draws:,} leaves fewer than 1,000 outputs per dataset to fit each of the {self.trials} "
                f"pairs' events on; give max_draws >= {smallest:,}."
            )
        seed = fresh_seed() if seed is None else seed
        if self.trials == 1:
            return self.certify(self.finder, max_draws, seed, deadline, fit_draws=max_draws)
        search_seed, certify_seed = (int(child.generate_state(1)[0]) for child in np.random.SeedSequence(seed).spawn(2))
        search = self.search(max_draws, search_seed)
        if deadline is not None:
            deadline = replace(deadline, max_draws=deadline.max_draws - search.draws)
        pair = _chosen_pair(search, self.delta, self.beta)
        chosen = self.certify([pair], max_draws - search.draws, certify_seed, deadline, fit_draws=max_draws)
        return replace(chosen, draws=search.draws + chosen.draws, seconds=time.perf_counter() - started, seed=seed, search=search)

    def search(self, max_draws: int, seed: int) -> AuditReport:
        """The search run: every pair on `search_share` of the draws; from `final_size_search`
        outputs per side, each pair's events chosen for the final certification's size."""
        samples, search_draws = sizes.search_plan(max_draws, self.trials, self.policy)

        def plan(outputs: np.ndarray) -> tuple[int, int, int | None]:
            scalar = int(np.prod(outputs.shape[1:])) == 1
            final = sizes.verification_samples(max_draws - search_draws, scalar, self.policy) if samples >= self.policy.final_size_search else None
            return samples, self.policy.search_verify, final

        return self.run(self.finder, seed, Budget(self.mechanism, search_draws), samples, plan)

    def certify(self, pair: list, max_draws: int, seed: int, deadline: Deadline | None, fit_draws: int) -> EpsilonEstimate:
        """One run on one pair: `fit_samples` of the draws fit and choose its event, the rest
        certify it; with a `deadline`, the rest of `deadline.max_draws`, drawn until the clock
        ends it, the event chosen for at most `verify_per_fit` of them per fitting output, and
        discrete outputs' event fitted as the whole time's estimate would be (docs/decisions/0008)."""
        policy, probe_draws = self.policy, self.policy.audit.probe_draws

        def plan(outputs: np.ndarray) -> tuple[int, int, int | None]:
            scalar = int(np.prod(outputs.shape[1:])) == 1
            samples, verify = sizes.fit_samples(max_draws - probe_draws, scalar, policy), sizes.verification_samples(max_draws, scalar, policy)
            if deadline is None:
                return samples, verify, None
            per_side = (deadline.max_draws - probe_draws) // 2  # fitting and verification outputs the deadline allows
            from dpfuzz.testers.base import as_feature_matrix
            from dpfuzz.testers.models import is_discrete  # scikit-learn: only timed estimates get here

            if is_discrete(as_feature_matrix(outputs, "outputs")):
                whole = int(fit_draws / policy.time_share)  # the draws the whole time left affords
                samples = max(samples, min(sizes.fit_samples(whole - probe_draws, scalar, policy), per_side - verify))
            stretched = max(verify, per_side - samples)
            return samples, stretched, min(max(verify, int(policy.verify_per_fit * samples)), stretched)

        if deadline is None:
            budget = Budget(self.mechanism, max_draws)
        else:  # however many fit the event, the certification draws until the deadline
            budget = Budget(self.mechanism, max(max_draws, deadline.max_draws), max(deadline.at - time.perf_counter(), 1e-3), hard=False)
        report = self.run(pair, seed, budget, sizes.fit_samples(max_draws - probe_draws, policy=policy), plan)
        return EpsilonEstimate(
            epsilon_lower_bound=report.epsilon_lower_bound or 0.0, delta=self.delta, beta=self.beta, pair=report.candidate,
            event=report.verification.event, draws=report.draws, seconds=report.seconds.get("total", 0.0),
            seed=seed, report=report,
        )

    def run(self, finder, seed: int, budget: Budget, first_samples: int, plan) -> AuditReport:
        """A run of ε = 0 at δ with the ε objective and fixed sampling, certifying one direction
        at the whole β; `plan` sizes it from the probe's outputs: (fitting outputs, verification
        outputs, the size events are chosen for)."""
        claim = ApproxDP(0.0, self.delta) if self.delta > 0 else PureDP(0.0)
        run = Run(self.mechanism, claim, self.domain, budget, seed, self.policy.audit)
        probed = probe(run, min(self.policy.audit.probe_samples, first_samples))
        samples, verify, selection = plan(probed.samples)
        check_affordable([("max_draws", f"{budget.max_draws:,} (this stage's)", 16 * samples * probed.samples[0].size, f"{samples:,} fitting outputs per side")])
        tester = make_tester(estimation_tester(self.mechanism), claim)
        settings = AuditSettings.build(
            tester=tester, finder=finder, trials=self.trials if isinstance(finder, str) else len(finder), samples=samples,
            verify_samples=verify, beta=self.beta, seed=seed, sampling="fixed", max_draws=budget.max_draws,
            max_seconds=budget.max_seconds, verify_directions="one",
        )
        one_pair = not isinstance(finder, str) and settings.trials == 1
        plan = Plan.from_settings(settings, tester, selection_samples=selection, orient_by_fit=one_pair)
        return search_and_certify(run, tester, plan, settings, probed)


def _chosen_pair(search: AuditReport, delta: float, beta: float) -> DatasetPair:
    """The pair of the search, oriented, whose held-out test certifies the largest bound with one
    of its counts moved against it on each side, if some test certifies a positive ε at level β
    over all of its tests (Bonferroni); otherwise no pair stands out from the noise of its few
    samples, and the first pair tried (the domain's first classic pattern) is taken, in the
    direction of its larger held-out bound. One count is moved against each test
    because an event that holds all but a few outputs can certify a large bound at β by luck,
    through its complement (docs/decisions/0012-chosen-pair.md)."""
    from dpfuzz.testers.bounds import clopper_pearson_lower, clopper_pearson_upper, pure_dp_epsilon_lower
    from dpfuzz.testers.hockey_stick import certified_epsilon

    def bound(k_p, n_p, k_q, n_q, level):
        if delta == 0:
            return pure_dp_epsilon_lower(k_p, n_p, k_q, n_q, level)
        p_lo, q_hi = float(clopper_pearson_lower(k_p, n_p, level / 2)), float(clopper_pearson_upper(k_q, n_q, level / 2))
        return certified_epsilon(p_lo, q_hi, delta) or 0.0

    tests = [
        (record.pair if direction == 0 else record.pair.swapped(), result.details["count_p"], result.details["count_q"], *result.num_samples)
        for record in search.history
        for direction, result in enumerate((record.forward, record.backward))
    ]
    if any(bound(k_p, n_p, k_q, n_q, beta / len(tests)) > 0 for _, k_p, k_q, n_p, n_q in tests):
        robust = [bound(max(k_p - 1, 0), n_p, min(k_q + 1, n_q), n_q, beta) for _, k_p, k_q, n_p, n_q in tests]
        return tests[int(np.argmax(robust))][0]
    first, tester = search.history[0], estimation_tester()
    return first.pair.swapped() if tester.score(first.backward) > tester.score(first.forward) else first.pair


def estimation_tester(mechanism=None):
    """The tester every estimate certifies and ranks with: events by the ε they would certify,
    pure DP by the joint privacy-loss bound, patterns in the mechanism's words."""
    from dpfuzz.testers.hockey_stick import HockeyStickTester

    return HockeyStickTester(objective="epsilon", certificate="privacy_loss", describe_output=output_words(mechanism))


_MOVED = {name: "dpfuzz.engine.sizes" for name in ("fit_samples", "search_plan", "smallest_budget", "verification_samples")} | {
    name: "dpfuzz.engine.timing" for name in ("seconds_per_draw", "planned_draws")}

def __getattr__(name: str):
    if name in _MOVED:  # deprecated locations, kept for one minor release
        warnings.warn(f"dpfuzz.estimation.{name} moved to {_MOVED[name]}.{name}.", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'dpfuzz.estimation' has no attribute {name!r}")
