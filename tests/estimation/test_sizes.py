"""How an estimate splits its draws (`dpfuzz.estimation.sizes`)."""

from __future__ import annotations

from dpfuzz.estimation.sizes import fit_samples


def test_one_pair_fits_its_event_on_40_percent_up_to_3e6_per_side_then_on_5_percent_up_to_1e7():
    # 40% of small budgets; DP-Sniper's budget (2.6·10^7) keeps the 3·10^6 per side its
    # benchmarks were measured with; from 1.2·10^8 draws 5% of them, up to 10^7 per side.
    assert fit_samples(1_000_000) == 200_000
    assert fit_samples(26_000_000) == 3_000_000
    assert fit_samples(120_000_000) == 3_000_000
    assert fit_samples(200_000_000) == 5_000_000
    assert fit_samples(1_000_000_000) == 10_000_000
    # Scalar outputs: 40%, at most 10^6 per side, then 1/13 of the outputs per side up to 10^7.
    assert fit_samples(1_000_000, scalar=True) == 200_000
    assert fit_samples(26_000_000, scalar=True) == 1_000_000
    assert fit_samples(130_000_000, scalar=True) == 5_000_000
    assert fit_samples(1_000_000_000, scalar=True) == 10_000_000
