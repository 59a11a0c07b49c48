"""The search's schedule (`dpfuzz.engine.schedule`): racing pairs within the nominal budget."""

from __future__ import annotations

import numpy as np

from dpfuzz import (
    HockeyStickTester,
    audit,
)
from dpfuzz.catalogue import entry
from dpfuzz.engine import AuditPolicy
from dpfuzz.testers.float_bits import FloatBitsTester


def test_racing_fills_the_spare_search_draws_with_more_pairs_within_the_nominal_budget():
    # Halving spends about a third of trials × samples per side; the spare goes to more pairs
    # (docs/decisions/0017); a fixed list of pairs is not filled. A claim that holds races every
    # pair to the end.
    from dpfuzz.engine.schedule import racing_cost, racing_pairs

    assert (
        racing_pairs(10, 2_500, 20_000, 2 * 10 * 20_000) == 32
        and racing_cost(32, 2_500, 20_000) == 2 * 10 * 20_000
    )
    assert racing_pairs(10, 2_500, 20_000, 0) == 10
    # only where fitting is as cheap as drawing: one number per output, sorted
    assert HockeyStickTester().fits_cheaply(np.zeros(5)) and not HockeyStickTester().fits_cheaply(
        np.zeros((5, 3))
    )
    assert not FloatBitsTester().fits_cheaply(np.zeros(5))
    item, options = (
        entry("DPLaplaceMean"),
        {
            "trials": 4,
            "samples": 8_000,
            "verify_samples": 20_000,
            "seed": 1,
        },
    )
    filled = audit(item(), item.claim(), item.domain(), **options)
    exact = audit(
        item(), item.claim(), item.domain(), policy=AuditPolicy(racing_fill=False), **options
    )
    pairs = item.domain().relation.classic_pairs(item.domain())
    listed = audit(item(), item.claim(), item.domain(), finder=pairs[:2], **options)
    spare = (
        2 * 4 * 8_000 - AuditPolicy().probe_draws
    )  # what the probe leaves of the nominal search draws
    assert (
        filled.trials == racing_pairs(4, 1_000, 8_000, spare) > exact.trials == listed.trials == 4
    )
    assert (
        not filled.violated
        and filled.draws <= AuditPolicy().probe_draws + 2 * 4 * 8_000 + 2 * 20_000
    )
