"""μ-GDP and ρ-zCDP claims: their privacy profiles against closed forms and dp-accounting, and
audits that refute them through the hockey-stick, histogram and Rényi testers."""

import math

import numpy as np
import pytest

from dpfuzz import Domain, GaussianDP, InvalidArgument, ZeroConcentratedDP, audit
from dpfuzz.claims import claim_from_dict, claim_from_parameters
from dpfuzz.cli import main


def gaussian_sum(
    dataset, num_samples, rng
):  # exactly 1-GDP and 0.5-zCDP under add/remove on [0, 1]
    return dataset.sum() + rng.normal(0.0, 1.0, num_samples)


def test_the_zcdp_profile_matches_dp_accounting_and_sits_above_the_gdp_profile():
    # N(0, 1) with sensitivity 1 is 0.5-zCDP, and its RDP curve α/2 is what dp-accounting's RDP
    # accountant converts to (ε, δ) with the same Canonne–Kamath–Steinke bound (2% for its α grid).
    dp_accounting = pytest.importorskip("dp_accounting")
    accountant = dp_accounting.rdp.RdpAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(1.0))
    claim = ZeroConcentratedDP(0.5)
    assert claim.epsilon_at(1e-5) == pytest.approx(accountant.get_epsilon(1e-5), rel=0.02)
    # μ-GDP implies μ²/2-zCDP, so the GDP profile lies below the zCDP one
    gdp = GaussianDP(1.0)
    assert all(gdp.delta_at(e) <= claim.delta_at(e) + 1e-12 for e in np.linspace(0, 6, 25))
    assert claim.at_order(4.0).epsilon == 2.0


@pytest.mark.parametrize("tester", ["hockey_stick", "histogram"])
@pytest.mark.slow
def test_event_testers_refute_a_too_strong_gdp_claim_and_spare_the_true_one(tester):
    # Held-out H_{e^ε} − δ_μ(ε) at an ε chosen on training data: 1-GDP is exactly the mechanism's
    # profile (0 at every ε, never above), 0.5-GDP is below it by ≈ 0.17 at ε ≈ 0.15.
    domain = Domain(max_size=3)
    kept = audit(gaussian_sum, GaussianDP(1.0), domain, seed=0, tester=tester)
    refuted = audit(gaussian_sum, GaussianDP(0.5), domain, seed=0, tester=tester)
    assert not kept.violated and refuted.violated
    assert "delta(" in refuted.verification.divergence and refuted.verification.threshold == 0.0


@pytest.mark.slow
def test_zcdp_claims_are_refuted_by_the_renyi_tester_at_its_order_and_by_events():
    domain = Domain(max_size=3)
    for tester in ("renyi", "hockey_stick"):
        assert not audit(
            gaussian_sum, ZeroConcentratedDP(0.5), domain, seed=0, tester=tester
        ).violated
        assert audit(gaussian_sum, ZeroConcentratedDP(0.2), domain, seed=0, tester=tester).violated
    report = audit(gaussian_sum, ZeroConcentratedDP(0.2), domain, seed=0, tester="renyi")
    assert report.threshold == pytest.approx(0.4)  # ρα at the tester's default α = 2


@pytest.mark.slow
def test_the_exact_gdp_claim_is_rarely_flagged():
    # 40 seeded audits of the exact claim at the quick budget: a valid audit flags it with
    # probability ≤ β = 0.05, so more than 6 of 40 has probability < 0.05 under validity.
    flagged = sum(
        audit(gaussian_sum, GaussianDP(1.0), Domain(max_size=3), seed=seed, budget="quick").violated
        for seed in range(40)
    )
    print(f"1-GDP Gaussian sum: flagged in {flagged}/40 audits at beta = 0.05")
    assert flagged <= 6


def test_claims_from_flags_and_configs(tmp_path, capsys, monkeypatch):
    assert claim_from_parameters(mu=1.0) == GaussianDP(1.0)
    assert claim_from_parameters(rho=0.5) == ZeroConcentratedDP(0.5)
    assert claim_from_dict({"type": "GaussianDP", "mu": 2.0}) == GaussianDP(2.0)
    with pytest.raises(InvalidArgument, match="exactly one"):
        claim_from_parameters(epsilon=1.0, mu=1.0)
    with pytest.raises(InvalidArgument, match="takes neither"):
        claim_from_parameters(mu=1.0, delta=1e-5)
    with pytest.raises(InvalidArgument, match="rho"):
        ZeroConcentratedDP(0.0)
    (tmp_path / "gaussian_mechanisms.py").write_text(
        "def gaussian_sum(dataset, num_samples, rng):\n    return dataset.sum() + rng.normal(0.0,"
        " 1.0, num_samples)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    arguments = ["audit", "gaussian_mechanisms:gaussian_sum", "--max-size", "3", "--seed", "0"]
    assert main([*arguments, "--mu", "0.5"]) == 1
    assert "0.5-GDP" in capsys.readouterr().out
    assert not math.isnan(GaussianDP(30.0).epsilon_at(1e-5))


def test_group_claims():
    from dpfuzz.claims import ApproxDP, PureDP, RenyiDP, group_claim

    assert group_claim(PureDP(0.5), 3) == PureDP(1.5)
    # (ε, δ) for 2 steps: (2ε, δ + e^ε δ), the sum of the chain's slack (Vadhan 2017, Lemma 2.2)
    pair = group_claim(ApproxDP(1.0, 1e-6), 2)
    assert pair.epsilon == 2.0 and pair.delta == pytest.approx(1e-6 * (1 + math.e))
    # N(0, 1) against N(2μ, 1) is exactly 2μ-GDP; ρ-zCDP's Rényi bound ρα scales with the squared
    # shift
    assert group_claim(GaussianDP(0.7), 2) == GaussianDP(1.4)
    assert group_claim(ZeroConcentratedDP(0.5), 2) == ZeroConcentratedDP(2.0)
    with pytest.raises(InvalidArgument, match="Rényi|RDP|groups"):
        group_claim(RenyiDP(2.0, 1.0), 2)
    with pytest.raises(InvalidArgument, match="says nothing"):
        group_claim(ApproxDP(3.0, 0.1), 2)


def test_gaussian_dp_from_epsilon_inverts_epsilon_at():
    for mu in (0.3, 1.0, 2.5):
        epsilon = GaussianDP(mu).epsilon_at(1e-5)
        assert GaussianDP.from_epsilon(epsilon, 1e-5).mu == pytest.approx(mu, rel=1e-6)


@pytest.mark.parametrize(
    "name, guarantee",
    [
        ("DPGaussianMean", "gdp"),
        ("DPGaussianMean", "zcdp"),
        ("NonDPGaussianMean1", "gdp"),
        ("NonDPGaussianMean2", "zcdp"),
        ("DPSGD", "gdp"),
        ("DPSGDWrongBatch", "gdp"),
    ],
)
@pytest.mark.slow
def test_catalogue_gaussian_entries_state_gdp_and_zcdp_claims(name, guarantee):
    from dpfuzz.catalogue import entry

    chosen = entry(name)
    claim = chosen.claim(guarantee=guarantee)
    assert isinstance(claim, GaussianDP if guarantee == "gdp" else ZeroConcentratedDP)
    report = audit(
        chosen(guarantee=guarantee),
        claim,
        chosen.domain(guarantee=guarantee),
        seed=0,
        budget="quick",
    )
    assert report.violated == (not chosen.truth(guarantee=guarantee).satisfies)
