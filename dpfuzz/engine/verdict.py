"""The three verdicts of an audit, and when a claim that was not refuted was not tested either.

An audit that does not refute its claim passes only if it could have refuted a violation of a stated
size with its verification outputs: an event that separates the datasets perfectly would have
refuted the claim and, for an (ε, δ) claim, so would a release that fails with probability
`AuditPolicy.delta_power_factor` · δ (an output its neighbour never gives). Otherwise it is
inconclusive, and says why (docs/decisions/0020).
"""

from __future__ import annotations

import math
from enum import Enum
from typing import TYPE_CHECKING

from dpfuzz.claims import ApproxDP, Claim

if TYPE_CHECKING:
    from dpfuzz.testers.base import Tester, TestResult


class Verdict(str, Enum):
    """What an audit concludes about its claim."""

    VIOLATED = "violated"
    """Refuted: a certified bound exceeds what the claim allows, at confidence 1 − β."""
    NOT_REFUTED = "not refuted"
    """Not refuted, with power: the audit could have refuted a violation of the size it states."""
    INCONCLUSIVE = "inconclusive"
    """Not refuted, and the budget could not test the claim (or no output could be drawn)."""

    def __str__(self) -> str:
        return self.value


def delta_failure_caught(claim: ApproxDP, samples: int, beta: float, factor: float) -> bool:
    """Whether `samples` outputs per side refute an (ε, δ) claim broken by a failure: an event of
    probability factor·δ under P and 0 under Q, seen at its expected count. The hockey-stick
    certificate at level β (β/2 per side, Clopper–Pearson) must exceed δ:
    CP_lower(factor·δ·n, n, β/2) − e^ε · CP_upper(0, n, β/2) > δ (docs/explanation/statistics.md).
    """
    from dpfuzz.testers.bounds import clopper_pearson_lower, clopper_pearson_upper

    delta, gamma = claim.delta, math.exp(claim.epsilon)
    p_lower = float(clopper_pearson_lower(factor * delta * samples, samples, beta / 2))
    q_upper = float(clopper_pearson_upper(0, samples, beta / 2))
    return p_lower - gamma * q_upper > delta


def outputs_to_test_delta(claim: ApproxDP, beta: float, factor: float) -> int | None:
    """The fewest outputs per side for which `delta_failure_caught` holds (to 1%), or None when
    no number below 10^13 does."""
    low, high = 1, 2
    while not delta_failure_caught(claim, high, beta, factor):
        low, high = high, 2 * high
        if high > 10**13:
            return None
    while high - low > max(1, high // 100):
        middle = (low + high) // 2
        low, high = (
            (low, middle) if delta_failure_caught(claim, middle, beta, factor) else (middle, high)
        )
    return high


def untested_delta(claim: Claim, samples: int, beta: float, factor: float) -> str | None:
    """Why an (ε, δ) claim's δ is beyond `samples` outputs per side at level `beta`, and how many
    would test it (None when it is not, or the claim has no δ)."""
    if (
        not isinstance(claim, ApproxDP)
        or claim.delta <= 0
        or delta_failure_caught(claim, samples, beta, factor)
    ):
        return None
    needed = outputs_to_test_delta(claim, beta, factor)
    fix = (
        f"about {needed:,} outputs per side test it (verify_samples >= {needed:,}, max_draws >="
        f" {4 * needed:,})"
        if needed is not None
        else "no feasible number of outputs tests it"
    )
    return (
        f"δ = {claim.delta:g} is too small to test with {samples:,} verification outputs per side:"
        f" a release that fails with probability {factor:g}·δ = {factor * claim.delta:.3g} (an"
        f" output its neighbour never gives) would not be refuted; {fix}"
    )


def inconclusive_reason(tester: Tester, result: TestResult, factor: float) -> str | None:
    """Why a certificate `result` that did not refute its claim could not have refuted a
    violation of a stated size (None when it could): with its outputs even an event that
    separates the datasets perfectly stays within the claim (`Tester.max_certifiable`), or the
    claim's δ is untestable (`untested_delta`)."""
    samples, claim = min(result.num_samples), result.claim
    best = tester.max_certifiable(claim, samples, result.beta)
    if best is not None and best <= result.threshold:
        return (
            f"with {samples:,} verification outputs per side no event could have refuted the claim:"
            f" one that separates the datasets perfectly certifies at most {best:.4g}, and the"
            f" claim allows {result.threshold:.4g}"
        )
    return untested_delta(claim, samples, result.beta, factor)
