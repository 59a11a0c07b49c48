"""Testers: high-confidence lower bounds on the divergence a privacy claim limits.

| name           | refutes                      | outputs                          |
|----------------|------------------------------|----------------------------------|
| hockey_stick   | PureDP, ApproxDP, RenyiDP    | 1-D (exact event search), vector (classifier score) |

``"auto"`` picks the tester for the claim and output type (today: hockey_stick for all).
"""

from __future__ import annotations

from dpfuzz.claims import Claim
from dpfuzz.errors import ConfigError
from dpfuzz.testers.base import Tester, TestResult
from dpfuzz.testers.hockey_stick import HockeyStickTester

TESTERS = {HockeyStickTester.name: HockeyStickTester}


def make_tester(tester: str | Tester, claim: Claim) -> Tester:
    """A tester instance from a name (or "auto") or an instance, checked against the claim."""
    if isinstance(tester, str):
        name = "hockey_stick" if tester == "auto" else tester
        if name not in TESTERS:
            raise ConfigError(f"unknown tester {tester!r}; choose one of {['auto', *TESTERS]}.")
        tester = TESTERS[name]()
    tester.check_claim(claim)
    return tester


__all__ = ["HockeyStickTester", "TESTERS", "TestResult", "Tester", "make_tester"]
