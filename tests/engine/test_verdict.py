"""Verdicts (`dpfuzz.engine.verdict`): when a claim's δ is testable."""

from __future__ import annotations

import math

from dpfuzz import (
    ApproxDP,
    PureDP,
)


def test_a_delta_failure_is_caught_exactly_where_the_closed_form_says():
    # An event of probability 2δ under P and 0 under Q at its expected count: refuted iff
    # CP_lower(2δn, n, β/2) − e^ε·CP_upper(0, n, β/2) > δ. CP_upper(0, n, a) = 1 − a^(1/n) in closed
    # form; CP_lower from scipy's beta quantile, independently of dpfuzz's bounds.
    from scipy import stats

    from dpfuzz.engine.verdict import delta_failure_caught, outputs_to_test_delta, untested_delta

    claim, beta = ApproxDP(1.0, 1e-5), 0.025
    for n in (100_000, 500_000, 3_000_000):
        p_lower = stats.beta.ppf(beta / 2, 2e-5 * n, n - 2e-5 * n + 1)
        expected = p_lower - math.e * (1 - (beta / 2) ** (1 / n)) > 1e-5
        assert delta_failure_caught(claim, n, beta, 2.0) == expected
    needed = outputs_to_test_delta(claim, beta, 2.0)
    assert delta_failure_caught(claim, needed, beta, 2.0) and not delta_failure_caught(
        claim, int(needed * 0.98), beta, 2.0
    )
    assert untested_delta(
        claim, needed, beta, 2.0
    ) is None and f"about {needed:,} outputs per side" in untested_delta(claim, 100_000, beta, 2.0)
    assert untested_delta(PureDP(1.0), 10, beta, 2.0) is None
