"""dpfuzz: find differential-privacy bugs in mechanisms you can only run.

>>> from dpfuzz import audit, Domain, PureDP >>> report = audit(mechanism, PureDP(epsilon=1.0),
Domain(low=0.0, high=1.0), seed=0)  # doctest: +SKIP

Every name below is imported on first use (PEP 562), so ``import dpfuzz`` costs little and the
pytest plugin adds nothing to a project without DP tests.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> module that defines it
_EXPORTS = {
    "ApproxDP": "dpfuzz.claims",
    "Claim": "dpfuzz.claims",
    "PureDP": "dpfuzz.claims",
    "RenyiDP": "dpfuzz.claims",
    "GaussianDP": "dpfuzz.claims",
    "ZeroConcentratedDP": "dpfuzz.claims",
    "DatasetPair": "dpfuzz.datasets",
    "Domain": "dpfuzz.domain",
    "AddRemove": "dpfuzz.relations",
    "Substitute": "dpfuzz.relations",
    "Linf": "dpfuzz.relations",
    "Relation": "dpfuzz.relations",
    "ConfigError": "dpfuzz.errors",
    "DPFuzzError": "dpfuzz.errors",
    "InvalidArgument": "dpfuzz.errors",
    "MechanismError": "dpfuzz.errors",
    "MechanismTooSlow": "dpfuzz.errors",
    "UnsupportedClaimError": "dpfuzz.errors",
    "UnsupportedOutputError": "dpfuzz.errors",
    "Finder": "dpfuzz.finders",
    "BaseFinder": "dpfuzz.finders",
    "RandomFinder": "dpfuzz.finders",
    "GridFinder": "dpfuzz.finders",
    "HypothesisFinder": "dpfuzz.finders",
    "VizierFinder": "dpfuzz.finders",
    "FixedFinder": "dpfuzz.finders",
    "Tester": "dpfuzz.testers",
    "TestResult": "dpfuzz.testers",
    "HockeyStickTester": "dpfuzz.testers",
    "HistogramTester": "dpfuzz.testers",
    "MMDTester": "dpfuzz.testers",
    "RenyiTester": "dpfuzz.testers",
    "FloatBitsTester": "dpfuzz.testers",
    "Mechanism": "dpfuzz.mechanism",
    "per_call": "dpfuzz.mechanism",
    "structured": "dpfuzz.outputs",
    "AuditReport": "dpfuzz.report",
    "Verdict": "dpfuzz.engine.verdict",
    "TrialRecord": "dpfuzz.trials",
    "AuditSettings": "dpfuzz.settings",
    "AuditPolicy": "dpfuzz.engine.policy",
    "EstimationPolicy": "dpfuzz.engine.policy",
    "StopReason": "dpfuzz.engine.stops",
    "audit": "dpfuzz.auditing",
    "estimate_epsilon": "dpfuzz.estimation",
    "EpsilonEstimate": "dpfuzz.estimate_report",
    "audit_one_run": "dpfuzz.one_run",
    "OneRunAudit": "dpfuzz.one_run",
    "assert_dp": "dpfuzz.assertions",
    "DPViolation": "dpfuzz.assertions",
    "DPInconclusive": "dpfuzz.assertions",
}

__all__ = sorted([*_EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("dpfuzz")
        except PackageNotFoundError:  # running from a source tree that was never installed
            return "0+unknown"
    if name in _EXPORTS:
        # Not cached here: the defining module stays the one source (tools that unload modules,
        # such as pytest's pytester, would otherwise see two versions of a class).
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'dpfuzz' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # for type checkers and IDEs only
    from dpfuzz.assertions import DPInconclusive, DPViolation, assert_dp
    from dpfuzz.auditing import audit
    from dpfuzz.claims import ApproxDP, Claim, GaussianDP, PureDP, RenyiDP, ZeroConcentratedDP
    from dpfuzz.datasets import DatasetPair
    from dpfuzz.domain import Domain
    from dpfuzz.engine.policy import AuditPolicy, EstimationPolicy
    from dpfuzz.engine.stops import StopReason
    from dpfuzz.engine.verdict import Verdict
    from dpfuzz.errors import (
        ConfigError,
        DPFuzzError,
        InvalidArgument,
        MechanismError,
        MechanismTooSlow,
        UnsupportedClaimError,
        UnsupportedOutputError,
    )
    from dpfuzz.estimate_report import EpsilonEstimate
    from dpfuzz.estimation import estimate_epsilon
    from dpfuzz.finders import BaseFinder, Finder
    from dpfuzz.mechanism import Mechanism, per_call
    from dpfuzz.one_run import OneRunAudit, audit_one_run
    from dpfuzz.outputs import structured
    from dpfuzz.relations import AddRemove, Linf, Relation, Substitute
    from dpfuzz.report import AuditReport
    from dpfuzz.settings import AuditSettings
    from dpfuzz.testers import Tester, TestResult
    from dpfuzz.trials import TrialRecord
