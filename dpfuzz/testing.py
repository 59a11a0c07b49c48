"""Assertions for test suites: `assert_dp` audits a mechanism and fails with an explanation.

Budgets set how hard an assertion looks:

| budget     | trials | samples per trial | verification samples | use |
|------------|-------:|------------------:|---------------------:|-----|
| `quick`    | 10     | 20,000            | 100,000              | every push: a few seconds per vectorised mechanism |
| `thorough` | 30     | 200,000           | 1,000,000            | nightly |

Explicit `trials`, `samples` and `verify_samples` override the budget.
"""

from __future__ import annotations

from dataclasses import dataclass

from dpfuzz.claims import Claim
from dpfuzz.datasets import DatasetPair, Domain, format_dataset
from dpfuzz.errors import ConfigError
from dpfuzz.mechanism import Mechanism
from dpfuzz.report import AuditReport
from dpfuzz.search import audit


@dataclass(frozen=True)
class Budget:
    trials: int
    samples: int
    verify_samples: int


BUDGETS = {
    "quick": Budget(trials=10, samples=20_000, verify_samples=100_000),
    "thorough": Budget(trials=30, samples=200_000, verify_samples=1_000_000),
}


class DPViolation(AssertionError):
    """A claim was refuted; the message explains the witness, the bound and how to reproduce it."""

    def __init__(self, message: str, report: AuditReport):
        super().__init__(message)
        self.report = report


def audit_with_budget(
    mechanism: Mechanism,
    claim: Claim,
    domain: Domain,
    *,
    budget: str = "quick",
    trials: int | None = None,
    samples: int | None = None,
    verify_samples: int | None = None,
    **options,
) -> AuditReport:
    """`dpfuzz.audit` with trials and sample counts taken from a named budget unless given."""
    if budget not in BUDGETS:
        raise ConfigError(f"unknown budget {budget!r}; choose one of {sorted(BUDGETS)}.")
    preset = BUDGETS[budget]
    return audit(
        mechanism,
        claim,
        domain,
        trials=preset.trials if trials is None else trials,
        samples=preset.samples if samples is None else samples,
        verify_samples=preset.verify_samples if verify_samples is None else verify_samples,
        **options,
    )


def assert_dp(
    mechanism: Mechanism,
    claim: Claim,
    domain: Domain,
    *,
    pair: DatasetPair | None = None,
    reproduce: str | None = None,
    **options,
) -> AuditReport:
    """Audit `mechanism` and raise `DPViolation` if `claim` is refuted; return the report.

    `options` are those of `audit_with_budget` (budget, trials, samples, tester, finder, beta,
    seed …). `pair` audits that one neighbouring pair only (e.g. drawn by a Hypothesis
    strategy). `reproduce` is a command shown in the failure message.
    """
    if pair is not None:
        domain.validate_pair(pair)
        options["finder"] = pair
    report = audit_with_budget(mechanism, claim, domain, **options)
    if report.violated:
        raise DPViolation(violation_message(report, reproduce), report)
    return report


def violation_message(report: AuditReport, reproduce: str | None = None) -> str:
    """What a maintainer needs to understand and reproduce a refutation."""
    result = report.verification
    epsilon = "none certified" if report.epsilon_lower_bound is None else f">= {report.epsilon_lower_bound:.4g}"
    lines = [
        f"dpfuzz: {report.mechanism} violates {report.claim.describe()} "
        f"(certified with confidence {1 - report.beta:g}; false-alarm probability <= {report.beta:g})",
        f"  witness    d0 = {format_dataset(report.witness.d0)}",
        f"             d1 = {format_dataset(report.witness.d1)}",
        f"  bound      {result.divergence} >= {result.bound:.6g}, the claim allows {result.threshold:.6g}",
        f"  epsilon    {epsilon} (claimed {getattr(report.claim, 'epsilon', '?')})",
        f"  event      {result.event}",
        f"  audit      tester {report.tester}, finder {report.finder}, {report.trials} trials x "
        f"{report.samples:,} samples, verified on {report.verify_samples:,}",
        f"  reproduce  seed={report.seed}" + (f"; {reproduce}" if reproduce else ""),
    ]
    return "\n".join(lines)
