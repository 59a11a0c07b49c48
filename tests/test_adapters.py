"""Library adapters: the claim read from the library, its neighbouring convention, and audits
through both the per-call and the fast path (each library's test skips when it is not installed)."""

import numpy as np
import pytest

from dpfuzz import ApproxDP, InvalidArgument, PureDP, ZeroConcentratedDP, audit


@pytest.fixture
def dp():
    opendp = pytest.importorskip("opendp.prelude")
    opendp.enable_features("contrib")
    return opendp


def bounded_sum(dp, low=-1.0, high=1.0):
    return (dp.vector_domain(dp.atom_domain(bounds=(low, high))), dp.symmetric_distance()) >> dp.t.then_sum()


def vector_laplace(dp, scale):
    return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=scale)


def test_opendp_claims_and_conventions_are_read_from_the_library(dp):
    from dpfuzz.adapters.opendp import opendp_target

    summed = bounded_sum(dp)
    laplace = opendp_target(summed >> dp.m.then_laplace(scale=2.0))
    # OpenDP charges U − L = 2 per unit of symmetric distance for a clamped sum on [−1, 1]
    assert isinstance(laplace.claim, PureDP) and laplace.claim.epsilon == pytest.approx(1.0)
    assert laplace.domain.relation.name == "add_remove"
    substitute = opendp_target(summed >> dp.m.then_laplace(scale=2.0), relation="substitute")
    assert substitute.claim.epsilon == pytest.approx(2.0) and "d_in = 2" in substitute.convention
    gaussian = opendp_target(summed >> dp.m.then_gaussian(scale=2.0))
    assert isinstance(gaussian.claim, ZeroConcentratedDP) and gaussian.claim.rho == pytest.approx(0.5)
    approximate = opendp_target(dp.c.make_zCDP_to_approxDP(summed >> dp.m.then_gaussian(scale=2.0)), delta=1e-6)
    assert isinstance(approximate.claim, ApproxDP) and approximate.claim.delta == 1e-6
    with pytest.raises(InvalidArgument, match="supports relation"):
        opendp_target(summed >> dp.m.then_laplace(scale=2.0), relation="linf")
    unbounded = (dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance()) >> dp.t.then_count()
    with pytest.raises(InvalidArgument, match="bounded records"):
        opendp_target(unbounded >> dp.m.then_laplace(scale=1.0))


def test_a_correct_opendp_release_is_not_flagged_through_both_paths(dp):
    from dpfuzz.adapters.opendp import opendp_target

    summed = bounded_sum(dp)
    measurement = summed >> dp.m.then_laplace(scale=2.0)
    slow = opendp_target(measurement, max_size=3).audit(seed=0, budget="quick", max_draws=40_000)
    fast = opendp_target(measurement, max_size=3, transformation=summed, noise=vector_laplace(dp, 2.0)).audit(
        seed=0, budget="quick", max_draws=400_000
    )
    assert not slow.violated and not fast.violated
    # the library charges twice the true cost here: the tight add/remove ε is 0.5, and the
    # fast path's certified bound approaches it without passing the claim
    assert fast.epsilon_lower_bound is None or fast.epsilon_lower_bound < 1.0


def test_a_fast_path_whose_noise_is_not_the_measurements_is_refuted(dp):
    # A misuse of the fast path: noise of scale 0.5 standing in for the measurement's scale 2.
    from dpfuzz.adapters.opendp import opendp_target

    summed = bounded_sum(dp)
    target = opendp_target(summed >> dp.m.then_laplace(scale=2.0), max_size=3, transformation=summed, noise=vector_laplace(dp, 0.5))
    report = target.audit(seed=0, budget="quick", max_draws=200_000)
    assert report.violated and report.epsilon_lower_bound > 1.0
    with pytest.raises(InvalidArgument, match="both transformation and noise"):
        opendp_target(summed >> dp.m.then_laplace(scale=2.0), transformation=summed)


@pytest.fixture
def diffprivlib():
    return pytest.importorskip("diffprivlib")


@pytest.mark.slow  # one audit, but of a release at ≈ 5,000 calls per second (40 s)
def test_diffprivlib_conventions_claims_and_a_mean_misused_under_add_remove(diffprivlib):
    from dpfuzz import DatasetPair
    from dpfuzz.adapters.diffprivlib import diffprivlib_mechanism, diffprivlib_tool

    mean = diffprivlib_tool(diffprivlib.tools.mean, epsilon=1.0, bounds=(0.0, 1.0), max_size=4)
    assert mean.claim == PureDP(1.0) and mean.domain.relation.name == "substitute" and "its own" in mean.convention
    gaussian = diffprivlib_mechanism(diffprivlib.mechanisms.GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=2.0))
    assert gaussian.claim == ApproxDP(1.0, 1e-5) and gaussian.domain.sensitivity == 2.0
    with pytest.raises(InvalidArgument, match="conventions"):
        diffprivlib_tool(diffprivlib.tools.quantile, epsilon=1.0, bounds=(0.0, 1.0))
    # tools.mean divides by the actual n: adding a record also shrinks the noise, and the
    # lower tail of Lap(1) against Lap(1/2) has unbounded privacy loss
    misused = diffprivlib_tool(diffprivlib.tools.mean, epsilon=1.0, bounds=(0.0, 1.0), relation="add_remove", max_size=4)
    pair = DatasetPair(np.array([0.0]), np.array([0.0, 1.0]))
    report = audit(misused.mechanism, misused.claim, misused.domain, finder=[pair], samples=20_000, verify_samples=30_000, seed=0)
    assert report.violated and "not its own" in misused.convention


def test_diffprivlib_laplace_is_refuted_in_float_arithmetic_only(diffprivlib):
    from dpfuzz.adapters.diffprivlib import diffprivlib_mechanism

    target = diffprivlib_mechanism(diffprivlib.mechanisms.Laplace(epsilon=1.0, sensitivity=1.0))
    assert not target.audit(seed=0, budget="quick").violated
    floating = target.audit(seed=0, budget="quick", arithmetic="float")
    assert floating.violated and floating.verification.tester == "float_bits"


def test_a_campaign_skips_targets_whose_library_is_missing(tmp_path, monkeypatch):
    from dpfuzz.campaign import Target, load_config, run_audit, AuditSpec

    (tmp_path / "missing_library.py").write_text(
        "from dpfuzz.adapters.standard import _library\n"
        "def release():\n    _library('no_such_dp_library', 'nothing')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    config = tmp_path / "libraries.toml"
    config.write_text('[[target]]\nlibrary = "missing_library:release"\nname = "absent"\n')
    (target,) = load_config(config).targets
    assert target == Target(name="absent", library="missing_library:release")
    spec = AuditSpec(target, "entry", "random", 0, "quick", {})
    _, summary, report = run_audit(spec)
    assert summary["outcome"] == "skipped" and "pip install" in summary["error"] and report is None


def test_library_releases_resolve_from_the_command_line(dp, capsys):
    from dpfuzz.cli import main

    assert main(["audit", "dpfuzz.adapters.standard:opendp_sum", "--param", "mechanism=\"gaussian\"", "--budget", "quick",
                 "--max-draws", "100000", "--seed", "0"]) == 0
    assert "zCDP" in capsys.readouterr().out
