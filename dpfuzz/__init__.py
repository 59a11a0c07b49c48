"""dpfuzz: find differential-privacy bugs in mechanisms you can only run.

>>> from dpfuzz import audit, Domain, PureDP
>>> report = audit(mechanism, PureDP(epsilon=1.0), Domain(low=0.0, high=1.0), seed=0)  # doctest: +SKIP
"""

from dpfuzz.claims import ApproxDP, Claim, PureDP, RenyiDP
from dpfuzz.datasets import DatasetPair, Domain
from dpfuzz.errors import ConfigError, DPFuzzError, MechanismError, UnsupportedClaimError, UnsupportedOutputError
from dpfuzz.finders import GridFinder, HypothesisFinder, RandomFinder
from dpfuzz.mechanism import Mechanism, per_call
from dpfuzz.report import AuditReport, TrialRecord
from dpfuzz.search import audit
from dpfuzz.testers import HockeyStickTester, TestResult

__version__ = "0.1.0"

__all__ = [
    "ApproxDP",
    "AuditReport",
    "Claim",
    "ConfigError",
    "DPFuzzError",
    "DatasetPair",
    "Domain",
    "GridFinder",
    "HockeyStickTester",
    "HypothesisFinder",
    "Mechanism",
    "MechanismError",
    "PureDP",
    "RandomFinder",
    "RenyiDP",
    "TestResult",
    "TrialRecord",
    "UnsupportedClaimError",
    "UnsupportedOutputError",
    "audit",
    "per_call",
]
