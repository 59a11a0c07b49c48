"""An estimate's runs, planned and composed: one pair certified, or a search that chooses the
pair and then its certification (docs/decisions/0004, 0012). `dpfuzz.estimation.estimate_epsilon`
builds an `EstimateTask` and asks it for an estimate, or `estimation.timing` for a timed one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from dpfuzz.claims import ApproxDP, PureDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain, enclosing_domain
from dpfuzz.engine import clock
from dpfuzz.engine.budget import Budget
from dpfuzz.engine.pipeline import search_and_certify
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.policy import EstimationPolicy
from dpfuzz.engine.probe import probe
from dpfuzz.engine.run import Run, fresh_seed
from dpfuzz.errors import InvalidArgument
from dpfuzz.estimate_report import EpsilonEstimate
from dpfuzz.estimation import sizes
from dpfuzz.estimation.timing import DrawUntil
from dpfuzz.mechanism import Mechanism, output_words
from dpfuzz.memory import check_affordable
from dpfuzz.report import AuditReport
from dpfuzz.reporting import audit_report
from dpfuzz.settings import AuditSettings
from dpfuzz.testers import make_tester

if TYPE_CHECKING:
    from dpfuzz.testers.base import Tester


class Sizing(Protocol):
    """How one of an estimate's runs is sized from its probe's outputs (their shape says
    whether they are scalar): the run's `Plan` (`EstimateTask.plan`)."""

    def __call__(self, outputs: np.ndarray) -> Plan: ...


@dataclass(frozen=True)
class EstimateTask:
    """What the estimates of one call share: mechanism, pairs (a finder name or a list), δ, β,
    policy, client."""

    mechanism: Mechanism
    domain: Domain
    finder: str | list
    trials: int
    delta: float
    beta: float
    policy: EstimationPolicy
    client: object = None

    @classmethod
    def make(
        cls,
        mechanism: Mechanism,
        target: Domain | DatasetPair | Sequence[DatasetPair],
        domain: Domain | None,
        delta: float,
        beta: float,
        policy: EstimationPolicy,
        client: Any = None,
    ) -> EstimateTask:
        if isinstance(target, Domain):
            return cls(
                mechanism, target, "random", policy.search_trials, delta, beta, policy, client
            )
        listed = isinstance(target, (list, tuple))
        pairs = [target] if isinstance(target, DatasetPair) else list(target) if listed else []
        if not pairs or not all(isinstance(pair, DatasetPair) for pair in pairs):
            fix = (
                " Wrap two datasets as DatasetPair(d0, d1)."
                if isinstance(target, tuple) and len(target) == 2
                else ""
            )
            raise InvalidArgument(
                f"target must be a Domain, a DatasetPair or a list of them, got {target!r}.{fix}"
            )
        domain = enclosing_domain(pairs) if domain is None else domain
        for pair in pairs:
            domain.validate_pair(pair)
        return cls(mechanism, domain, pairs, len(pairs), delta, beta, policy, client)

    @property
    def first_pair(self) -> DatasetPair:
        return (
            self.domain.relation.classic_pairs(self.domain)[0]
            if isinstance(self.finder, str)
            else self.finder[0]
        )

    def estimate(
        self, max_draws: int, seed: int | None, until: DrawUntil | None = None
    ) -> EpsilonEstimate:
        """One estimate: on one pair, a run of ε = 0 at δ with the ε objective, fixed sampling and
        one final certification (with `until`, stretched until its deadline); on several, a search
        run chooses the pair first."""
        started = clock.now()
        smallest = sizes.smallest_budget(self.trials, self.policy)
        if max_draws < smallest:
            raise InvalidArgument(
                f"max_draws={max_draws:,} leaves fewer than 1,000 outputs per dataset to fit each"
                f" of the {self.trials} pairs' events on; give max_draws >= {smallest:,}."
            )
        seed = fresh_seed() if seed is None else seed
        if self.trials == 1:
            return self.certify([self.first_pair], max_draws, seed, until, fit_draws=max_draws)
        search_seed, certify_seed = (
            int(child.generate_state(1)[0]) for child in np.random.SeedSequence(seed).spawn(2)
        )
        search = self.search(max_draws, search_seed)
        if until is not None:
            until = replace(until, max_draws=until.max_draws - search.draws)
        pair = chosen_pair(search, self.delta, self.beta)
        chosen = self.certify(
            [pair], max_draws - search.draws, certify_seed, until, fit_draws=max_draws
        )
        return replace(
            chosen,
            draws=search.draws + chosen.draws,
            seconds=clock.now() - started,
            seed=seed,
            search=search,
        )

    def search(self, max_draws: int, seed: int) -> AuditReport:
        """The search run: every pair on `search_share` of the draws; from `final_size_search`
        outputs per side, each pair's events chosen for the final certification's size."""
        samples, search_draws = sizes.search_plan(max_draws, self.trials, self.policy)

        def sizing(outputs: np.ndarray) -> Plan:
            scalar = int(np.prod(outputs.shape[1:])) == 1
            final = (
                sizes.verification_samples(max_draws - search_draws, scalar, self.policy)
                if samples >= self.policy.final_size_search
                else None
            )
            return self.plan(self.finder, samples, self.policy.search_verify, final)

        return self.run(self.finder, seed, Budget(self.mechanism, search_draws), samples, sizing)

    def certify(
        self, pair: list, max_draws: int, seed: int, until: DrawUntil | None, fit_draws: int
    ) -> EpsilonEstimate:
        """One run on one pair: `fit_samples` of the draws fit and choose its event, the rest
        certify it; with `until`, the rest of `until.max_draws`, drawn until its deadline
        ends it, the event chosen for at most `verify_per_fit` of them per fitting output, and
        discrete outputs' event fitted as the whole time's estimate would be (docs/decisions/0008).
        """
        policy, probe_draws = self.policy, self.policy.audit.probe_draws

        def sizing(outputs: np.ndarray) -> Plan:
            scalar = int(np.prod(outputs.shape[1:])) == 1
            samples, verify = (
                sizes.fit_samples(max_draws - probe_draws, scalar, policy),
                sizes.verification_samples(max_draws, scalar, policy),
            )
            if until is None:
                return self.plan(pair, samples, verify, None)
            # fitting and verification outputs the deadline allows
            per_side = (until.max_draws - probe_draws) // 2
            # scikit-learn: only timed estimates get here
            from dpfuzz.testers.base import as_feature_matrix
            from dpfuzz.testers.models import is_discrete

            if is_discrete(as_feature_matrix(outputs, "outputs")):
                whole = int(fit_draws / policy.time_share)  # the draws the whole time left affords
                samples = max(
                    samples,
                    min(sizes.fit_samples(whole - probe_draws, scalar, policy), per_side - verify),
                )
            stretched = max(verify, per_side - samples)
            selection = min(max(verify, int(policy.verify_per_fit * samples)), stretched)
            return self.plan(pair, samples, stretched, selection)

        if until is None:
            budget = Budget(self.mechanism, max_draws)
        else:  # however many fit the event, the certification draws until the deadline
            at = max(until.deadline.at, clock.now() + 1e-3)  # a passed deadline: a millisecond
            budget = Budget(
                self.mechanism,
                max(max_draws, until.max_draws),
                deadline=replace(until.deadline, at=at),
            )
        report = self.run(
            pair, seed, budget, sizes.fit_samples(max_draws - probe_draws, policy=policy), sizing
        )
        return EpsilonEstimate(
            epsilon_lower_bound=report.epsilon_lower_bound or 0.0,
            delta=self.delta,
            beta=self.beta,
            pair=report.candidate,
            event=report.verification.event,
            draws=report.draws,
            seconds=report.seconds.get("total", 0.0),
            seed=seed,
            report=report,
        )

    def plan(
        self,
        finder: str | list[DatasetPair],
        samples: int,
        verify_samples: int,
        selection_samples: int | None,
    ) -> Plan:
        """The plan of one of the estimate's runs: ε = 0 at δ, fixed sampling, one direction
        certified at the whole β; a single pair is oriented and its event chosen in one fit."""
        trials = self.trials if isinstance(finder, str) else len(finder)
        return Plan(
            trials=trials,
            samples=samples,
            verify_samples=verify_samples,
            beta=self.beta,
            adaptive=False,
            directions=1,
            selection_samples=selection_samples,
            orient_by_fit=not isinstance(finder, str) and trials == 1,
        )

    def run(
        self,
        finder: str | list[DatasetPair],
        seed: int,
        budget: Budget,
        first_samples: int,
        sizing: Sizing,
    ) -> AuditReport:
        """A run of ε = 0 at δ with the ε objective, sized by `sizing` from the probe's outputs
        (`plan`)."""
        claim = ApproxDP(0.0, self.delta) if self.delta > 0 else PureDP(0.0)
        run = Run(
            self.mechanism, claim, self.domain, budget, seed, self.policy.audit, client=self.client
        )
        probed = probe(run, min(self.policy.audit.probe_samples, first_samples))
        plan = sizing(probed.samples)
        check_affordable(
            [
                (
                    "max_draws",
                    f"{budget.max_draws:,} (this stage's)",
                    16 * plan.samples * probed.samples[0].size,
                    f"{plan.samples:,} fitting outputs per side",
                )
            ]
        )
        tester = make_tester(estimation_tester(self.mechanism), claim)
        stated = AuditSettings(
            tester=tester,
            finder=finder,
            trials=plan.trials,
            samples=plan.samples,
            verify_samples=plan.verify_samples,
            beta=self.beta,
            seed=seed,
            sampling="fixed",
            max_draws=int(budget.max_draws),
            max_seconds=budget.max_seconds,
            verify_directions="one",
        )  # what the report states the run did, not what plans it
        ending = search_and_certify(run, tester, plan, finder, probed)
        return audit_report(run, tester, plan, stated, probed, ending)


def chosen_pair(search: AuditReport, delta: float, beta: float) -> DatasetPair:
    """The pair of the search, oriented, whose held-out test certifies the largest bound with one
    of its counts moved against it on each side, if some test certifies a positive ε at level β
    over all of its tests (Bonferroni); otherwise no pair stands out from the noise of its few
    samples, and the first pair tried (the domain's first classic pattern) is taken, in the
    direction of its larger held-out bound. One count is moved against each test
    because an event that holds all but a few outputs can certify a large bound at β by luck,
    through its complement (docs/decisions/0012-chosen-pair.md)."""
    from dpfuzz.testers.bounds import (
        clopper_pearson_lower,
        clopper_pearson_upper,
        pure_dp_epsilon_lower,
    )
    from dpfuzz.testers.hockey_stick import certified_epsilon

    def bound(k_p, n_p, k_q, n_q, level):
        if delta == 0:
            return pure_dp_epsilon_lower(k_p, n_p, k_q, n_q, level)
        p_lo, q_hi = (
            float(clopper_pearson_lower(k_p, n_p, level / 2)),
            float(clopper_pearson_upper(k_q, n_q, level / 2)),
        )
        return certified_epsilon(p_lo, q_hi, delta) or 0.0

    tests = [
        (
            record.pair if direction == 0 else record.pair.swapped(),
            result.details["count_p"],
            result.details["count_q"],
            *result.num_samples,
        )
        for record in search.history
        for direction, result in enumerate((record.forward, record.backward))
    ]
    if any(bound(k_p, n_p, k_q, n_q, beta / len(tests)) > 0 for _, k_p, k_q, n_p, n_q in tests):
        robust = [
            bound(max(k_p - 1, 0), n_p, min(k_q + 1, n_q), n_q, beta)
            for _, k_p, k_q, n_p, n_q in tests
        ]
        return tests[int(np.argmax(robust))][0]
    first, tester = search.history[0], estimation_tester()
    return (
        first.pair.swapped()
        if tester.score(first.backward) > tester.score(first.forward)
        else first.pair
    )


def estimation_tester(mechanism: Mechanism | None = None) -> Tester:
    """The tester every estimate certifies and ranks with: events by the ε they would certify,
    pure DP by the joint privacy-loss bound, patterns in the mechanism's words."""
    from dpfuzz.testers.hockey_stick import HockeyStickTester

    return HockeyStickTester(
        objective="epsilon", certificate="privacy_loss", describe_output=output_words(mechanism)
    )
