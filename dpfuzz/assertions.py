"""Assertions for test suites: `assert_dp` audits a mechanism and fails with an explanation."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dpfuzz.auditing import audit
from dpfuzz.claims import Claim
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism
from dpfuzz.report import AuditReport
from dpfuzz.settings import AuditSettings


class DPViolation(AssertionError):
    """A claim was refuted; the message explains the witness, the bound and how to reproduce it."""

    def __init__(self, message: str, report: AuditReport):
        super().__init__(message)
        self.report = report


class DPInconclusive(AssertionError):
    """The audit could not test the claim (`AuditReport.inconclusive` says why); the message says
    what would test it."""

    def __init__(self, message: str, report: AuditReport):
        super().__init__(message)
        self.report = report


def assert_dp(
    mechanism: Mechanism,
    claim: Claim,
    domain: Domain,
    settings: AuditSettings | None = None,
    *,
    pair: DatasetPair | None = None,
    reproduce: str | None = None,
    allow_inconclusive: bool = False,
    **options: Any,
) -> AuditReport:
    """Audit `mechanism` and raise `DPViolation` if `claim` is refuted, `DPInconclusive` if the
    audit could not test it (unless `allow_inconclusive`); return the report.

    `settings` and `options` are those of `dpfuzz.audit` (``budget="quick"``, ``trials``,
    ``samples``, ``tester``, ``beta``, ``seed`` …). `pair` audits that one neighbouring pair only
    (e.g. drawn by a Hypothesis strategy). `reproduce` is a command shown in the failure message.
    """
    if pair is not None:
        domain.validate_pair(pair)
        options["finder"] = [pair]
    report = audit(mechanism, claim, domain, settings, **options)
    if reproduce:
        report = replace(report, reproduce=reproduce)
    if report.violated:
        raise DPViolation(violation_message(report), report)
    if report.inconclusive and not allow_inconclusive:
        raise DPInconclusive(inconclusive_message(report), report)
    return report


def violation_message(report: AuditReport) -> str:
    """What a maintainer needs to understand and reproduce a refutation."""
    result = report.verification
    epsilon = (
        "none certified"
        if report.epsilon_lower_bound is None
        else f">= {report.epsilon_lower_bound:.4g}"
    )
    difference, d0, d1 = report.domain.describe_pair(report.witness or report.candidate)
    lines = [
        (
            f"dpfuzz: {report.mechanism} violates {report.claim.describe()} (certified with"
            f" confidence {1 - report.beta:g}; false-alarm probability <= {report.beta:g})"
        ),
        f"  witness    {difference}",
        f"             {d0}",
        f"             {d1}",
        (
            f"  bound      {result.divergence} >= {result.bound:.6g}, the claim allows"
            f" {result.threshold:.6g}"
        ),
        f"  epsilon    {epsilon} (claimed {getattr(report.claim, 'epsilon', '?')})",
        f"  event      {result.event}",
        (
            f"  audit      tester {report.tester}, finder {report.finder}, {report.trials}"
            f" trial(s), {report.draws:,} outputs drawn, verified on {result.num_samples[0]:,} per"
            " side"
        ),
        f"  reproduce  seed={report.seed}" + (f"; {report.reproduce}" if report.reproduce else ""),
    ]
    return "\n".join(lines)


def inconclusive_message(report: AuditReport) -> str:
    """Why the audit could not test the claim, what it could see, and how to rerun it."""
    lines = [
        f"dpfuzz: {report.mechanism} against {report.claim.describe()}: inconclusive",
        f"  why        {report.inconclusive}",
    ]
    if report.tested and report.power_text():
        lines.append(f"  power      {report.power_text()}")
    lines.append(
        f"  reproduce  seed={report.seed}" + (f"; {report.reproduce}" if report.reproduce else "")
    )
    return "\n".join(lines)
