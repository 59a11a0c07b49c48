"""``sampling="auto"``: a race when the budget affords few draws and the claim can be raced, the
adaptive search otherwise (`dpfuzz.engine.sampling`)."""

import numpy as np
import pytest

from dpfuzz import (
    ApproxDP,
    Domain,
    InvalidArgument,
    PureDP,
    RenyiDP,
    audit,
    per_call,
)
from dpfuzz.engine import AuditPolicy

DOMAIN = Domain(low=0.0, high=1.0, min_size=0, max_size=5, relation="add_remove")


def timed_sum(scale, seconds_per_call, clock):
    """A per-call Laplace sum of noise `scale` whose calls each take `seconds_per_call` on the
    test's `clock`."""

    def release(dataset, rng):
        clock.advance(seconds_per_call)
        return float(np.sum(dataset) + rng.laplace(0.0, scale))

    return per_call(release)


def laplace_sum(dataset, num_samples, rng):
    return np.sum(dataset) + rng.laplace(0.0, 0.5, num_samples)


def chose_race(report) -> bool:
    return report.settings["sampling"] == "sequential" and any(
        note.startswith("sampling='auto' chose a sequential race") for note in report.notes
    )


def test_a_release_whose_time_limit_affords_few_draws_is_raced(clock):
    # 5 calls per second for 160 s: about 800 draws, fewer than the smallest adaptive audit (its
    # probe cut to 5% of the time: 40 + 40 + 4 × 200 = 880)
    refuted = 0
    for seed in range(5):
        report = audit(timed_sum(0.5, 0.2, clock), PureDP(1.0), DOMAIN, seed=seed, max_seconds=160)
        assert chose_race(report) and report.draws <= 800
        assert any("about 5 outputs per second for 160 s" in note for note in report.notes)
        refuted += report.violated
    assert refuted >= 3  # the adaptive audit cannot run on 800 draws
    # 20 calls per second for 160 s afford 3,200 draws: the adaptive audit
    slower = audit(timed_sum(0.5, 0.05, clock), PureDP(1.0), DOMAIN, seed=0, max_seconds=160)
    assert slower.settings["sampling"] == "adaptive"
    assert not any("sampling='auto'" in note for note in slower.notes)


def test_the_choice_follows_max_draws_and_the_smallest_adaptive_audit():
    smallest = AuditPolicy().smallest_audit_draws
    below = audit(laplace_sum, PureDP(1.0), DOMAIN, seed=0, max_draws=smallest - 1)
    assert chose_race(below) and below.violated and below.draws < smallest
    assert any(f"max_draws={smallest - 1:,}" in note for note in below.notes)
    at = audit(laplace_sum, PureDP(1.0), DOMAIN, seed=0, max_draws=smallest)
    assert at.settings["sampling"] == "adaptive"
    # a smaller adaptive audit (a smaller probe) keeps a smaller budget adaptive
    policy = AuditPolicy(probe_samples=500)
    small = audit(laplace_sum, PureDP(1.0), DOMAIN, seed=0, max_draws=1_500, policy=policy)
    assert small.settings["sampling"] == "adaptive"


def test_auto_runs_exactly_the_audit_of_the_mode_it_chose():
    for cap, mode in ((1_000, "sequential"), (2_000_000, "adaptive")):
        chosen = audit(laplace_sum, PureDP(1.0), DOMAIN, seed=3, max_draws=cap)
        given = audit(laplace_sum, PureDP(1.0), DOMAIN, seed=3, max_draws=cap, sampling=mode)
        assert chosen.settings["sampling"] == mode
        assert (chosen.draws, chosen.epsilon_lower_bound, chosen.witness) == (
            given.draws,
            given.epsilon_lower_bound,
            given.witness,
        )


@pytest.mark.parametrize(
    "claim, options",
    [
        (RenyiDP(alpha=2.0, epsilon=1.0), {}),
        (PureDP(1.0), {"arithmetic": "float"}),
        (ApproxDP(1.0, 1e-3), {"tester": "mmd"}),
    ],
)
def test_a_claim_or_tester_a_race_cannot_certify_is_searched_adaptively(claim, options):
    # too few draws for the adaptive audit, and no race: the error names the adaptive minimum
    with pytest.raises(InvalidArgument, match="below the smallest audit's 1,840 draws"):
        audit(laplace_sum, claim, DOMAIN, seed=0, max_draws=1_000, **options)
    report = audit(laplace_sum, claim, DOMAIN, seed=0, max_draws=1_840, **options)
    assert report.settings["sampling"] == "adaptive"


def test_sharpen_asks_auto_for_a_race_and_is_refused_where_none_can_run():
    report = audit(laplace_sum, PureDP(1.0), DOMAIN, seed=0, max_draws=400_000, sharpen=True)
    assert chose_race(report) and any("sharpen=True asks for a race" in n for n in report.notes)
    with pytest.raises(
        InvalidArgument,
        match="sharpen=True sharpens a race, and none can run: .*RDP.* Leave sharpen unset",
    ):
        audit(laplace_sum, RenyiDP(alpha=2.0, epsilon=1.0), DOMAIN, seed=0, sharpen=True)
