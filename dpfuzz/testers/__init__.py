"""Testers: high-confidence lower bounds on the divergence a privacy claim limits.

| name         | refutes                   | outputs | bound |
|--------------|---------------------------|---------|-------|
| hockey_stick | PureDP, ApproxDP, RenyiDP | any     | one held-out event, Clopper–Pearson |
| histogram    | PureDP, ApproxDP, RenyiDP | 1-D     | held-out set of bins; or uniform TV bound (privacy profile) |
| mmd          | PureDP, ApproxDP          | any     | linear-time MMD, empirical Bernstein, MMD ≤ 2 TV |
| renyi        | RenyiDP, PureDP           | any     | dual Rényi with fitted h, Chernoff correction |
| float_bits   | PureDP, ApproxDP, RenyiDP | any     | hockey-stick event on the outputs' float bit patterns |

``"auto"`` (`choose_tester`): the `renyi` tester for RenyiDP claims; otherwise `histogram`
for 1-D outputs taking few distinct integer values (argmax indices, counts, bits), and
`hockey_stick` for everything else. The audit loop resolves "auto" once it has seen the
mechanism's first outputs.
"""

from __future__ import annotations

import numpy as np

from dpfuzz.claims import Claim, RenyiDP
from dpfuzz.errors import ConfigError
from dpfuzz.testers.base import Tester, TestResult
from dpfuzz.testers.float_bits import FloatBitsTester
from dpfuzz.testers.histogram import HistogramTester, PrivacyProfile
from dpfuzz.testers.hockey_stick import HockeyStickTester
from dpfuzz.testers.mmd import MMDTester
from dpfuzz.testers.renyi import RenyiTester

TESTERS = {
    tester.name: tester for tester in (HockeyStickTester, HistogramTester, MMDTester, RenyiTester, FloatBitsTester)
}

# 1-D integer outputs with at most this many distinct values go to the histogram tester.
AUTO_DISCRETE_VALUES = 64


def choose_tester(claim: Claim, samples: np.ndarray | None = None) -> str:
    """The tester "auto" stands for, given the claim and (optionally) some outputs."""
    if isinstance(claim, RenyiDP):
        return RenyiTester.name
    if samples is not None:
        values = np.asarray(samples).reshape(len(samples), -1)
        if values.shape[1] == 1 and np.all(values == np.round(values)):
            if len(np.unique(values)) <= AUTO_DISCRETE_VALUES:
                return HistogramTester.name
    return HockeyStickTester.name


def make_tester(tester: str | Tester, claim: Claim, samples: np.ndarray | None = None) -> Tester:
    """A tester instance from a name (or "auto") or an instance, checked against the claim."""
    if isinstance(tester, str):
        name = choose_tester(claim, samples) if tester == "auto" else tester
        if name not in TESTERS:
            raise ConfigError(f"unknown tester {tester!r}; choose one of {['auto', *TESTERS]}.")
        tester = TESTERS[name]()
    tester.check_claim(claim)
    return tester


__all__ = [
    "FloatBitsTester",
    "HistogramTester",
    "HockeyStickTester",
    "MMDTester",
    "PrivacyProfile",
    "RenyiTester",
    "TESTERS",
    "TestResult",
    "Tester",
    "choose_tester",
    "make_tester",
]
