"""Float-level audits (``arithmetic="float"``): the float bit-pattern tester beside the audit's
own, each at β/2."""

import numpy as np
import pytest

from dpfuzz import Domain, PureDP, audit
from dpfuzz.catalogue import entry
from dpfuzz.testers import HockeyStickTester
from dpfuzz.testers.either import EitherTester
from dpfuzz.testers.float_bits import FloatBitsTester


def textbook_laplace(
    dataset, num_samples, rng
):  # 1-DP in real arithmetic, not in float64 (Mironov 2012)
    return dataset.sum() + rng.laplace(0.0, 1.0, num_samples)


@pytest.mark.slow
def test_float_arithmetic_refutes_textbook_laplace_that_real_arithmetic_accepts():
    domain = Domain(max_size=3)
    real = audit(textbook_laplace, PureDP(1.0), domain, seed=0)
    floating = audit(textbook_laplace, PureDP(1.0), domain, seed=0, arithmetic="float")
    assert not real.violated and real.tester == "hockey_stick"
    assert floating.violated and floating.tester == "hockey_stick+float_bits"
    assert (
        floating.verification.tester == "float_bits" and floating.settings["arithmetic"] == "float"
    )


def test_each_tester_of_an_either_test_gets_half_of_beta():
    rng = np.random.default_rng(0)
    tester = EitherTester([HockeyStickTester(), FloatBitsTester()])
    p, q = rng.laplace(0, 1, 20_000), 1 + rng.laplace(0, 1, 20_000)
    fitted = tester.fit(p[:10_000], q[:10_000], PureDP(1.0), 0.05, rng)
    result = tester.evaluate(fitted, p[10_000:], q[10_000:], PureDP(1.0), 0.05)
    assert result.beta == 0.025 and set(result.details["other_testers"]) | {result.tester} == {
        "hockey_stick",
        "float_bits",
    }
    assert (
        result.details["other_testers"][next(iter(result.details["other_testers"]))]["beta"]
        == 0.025
    )


@pytest.mark.slow
def test_a_float_safe_sampler_is_rarely_flagged_at_the_float_level():
    # Snapping Laplace (Mironov 2012) is 1-DP in float64 too: 20 seeded quick audits, each a
    # valid test at β = 0.05, so more than 3 flags of 20 has probability < 0.02.
    item = entry("SnappingLaplace")
    flagged = sum(
        audit(
            item(), item.claim(), item.domain(), seed=seed, budget="quick", arithmetic="float"
        ).violated
        for seed in range(20)
    )
    print(f"SnappingLaplace at the float level: flagged in {flagged}/20 audits")
    assert flagged <= 3
