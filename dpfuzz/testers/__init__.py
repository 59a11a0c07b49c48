"""Testers: high-confidence lower bounds on the divergence a privacy claim limits.

| name         | refutes                   | outputs | bound                                       |
|--------------|---------------------------|---------|---------------------------------------------|
| hockey_stick | PureDP, ApproxDP, RenyiDP | any     | one held-out event, Clopper–Pearson         |
| histogram    | PureDP, ApproxDP, RenyiDP | 1-D     | held-out bins; or a uniform TV bound       |
| mmd          | PureDP, ApproxDP          | any     | linear-time MMD, empirical Bernstein        |
| renyi        | RenyiDP, PureDP           | any     | dual Rényi with fitted h, Chernoff          |
| float_bits   | PureDP, ApproxDP, RenyiDP | any     | hockey-stick event on float bit patterns    |

``"auto"`` (`choose_tester`): the `renyi` tester for RenyiDP claims; otherwise `histogram`
for 1-D outputs taking few distinct integer values (argmax indices, counts, bits), and
`hockey_stick` for everything else. The audit resolves "auto" before its search, from a
small probe of the mechanism's outputs. Tester classes are imported when first used
(scikit-learn and scipy are heavy imports).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np

from dpfuzz import names
from dpfuzz.claims import Claim, RenyiDP
from dpfuzz.errors import InvalidArgument
from dpfuzz.testers.base import Tester, TestResult
from dpfuzz.validation import check_choice

# name -> (module, class); the module is imported when the tester is made.
_CLASSES = {
    "hockey_stick": ("dpfuzz.testers.hockey_stick", "HockeyStickTester"),
    "histogram": ("dpfuzz.testers.histogram", "HistogramTester"),
    "mmd": ("dpfuzz.testers.mmd", "MMDTester"),
    "renyi": ("dpfuzz.testers.renyi", "RenyiTester"),
    "float_bits": ("dpfuzz.testers.float_bits", "FloatBitsTester"),
}
TESTER_NAMES = names.TESTERS

# 1-D integer outputs with at most this many distinct values go to the histogram tester.
AUTO_DISCRETE_VALUES = 64


def tester_class(name: str) -> type[Tester]:
    module, attribute = _CLASSES[name]
    return getattr(importlib.import_module(module), attribute)


def choose_tester(claim: Claim, samples: np.ndarray | None = None) -> str:
    """The tester "auto" stands for, given the claim and (optionally) some outputs."""
    if isinstance(claim, RenyiDP):
        return "renyi"
    if samples is not None:
        values = np.asarray(samples).reshape(len(samples), -1)
        if values.shape[1] == 1 and np.all(values == np.round(values)):
            if len(np.unique(values)) <= AUTO_DISCRETE_VALUES:
                return "histogram"
    return "hockey_stick"


def make_tester(
    tester: str | Tester,
    claim: Claim,
    samples: np.ndarray | None = None,
    describe_output: Callable[[np.ndarray], str | None] | None = None,
) -> Tester:
    """A tester instance from a name (or "auto") or an instance, checked against the claim. A
    tester made here from a name gets `describe_output` (words for output patterns) if it
    `takes_output_words`; an instance is used as it is."""
    if isinstance(tester, str):
        name = (
            choose_tester(claim, samples)
            if tester == "auto"
            else check_choice("tester", tester, ("auto", *TESTER_NAMES))
        )
        kind = tester_class(name)
        words = (
            {"describe_output": describe_output}
            if kind.takes_output_words and describe_output
            else {}
        )
        tester = kind(**words)
    elif not isinstance(tester, Tester):
        raise InvalidArgument(
            f"tester must be a name ('auto', {', '.join(TESTER_NAMES)}) or a dpfuzz Tester, got"
            f" {tester!r}."
        )
    tester.check_claim(claim)
    return tester


def __getattr__(name: str) -> Any:
    """The tester classes, imported on first use: ``from dpfuzz.testers import
    HockeyStickTester``."""
    for key, (_, attribute) in _CLASSES.items():
        if attribute == name:
            return tester_class(key)
    if name == "PrivacyProfile":  # deprecated, kept for one minor release
        import warnings

        warnings.warn(
            "dpfuzz.testers.PrivacyProfile is deprecated; privacy profiles are"
            " dpfuzz.profiles.ProfileEstimate.",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module("dpfuzz.testers.histogram").BinnedProfile
    raise AttributeError(f"module 'dpfuzz.testers' has no attribute {name!r}")


__all__ = [
    "FloatBitsTester",
    "HistogramTester",
    "HockeyStickTester",
    "MMDTester",
    "RenyiTester",
    "TESTER_NAMES",
    "TestResult",
    "Tester",
    "choose_tester",
    "make_tester",
]
