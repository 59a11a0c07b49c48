"""The package surface: lazy exports, version, and what importing dpfuzz costs."""

import subprocess
import sys

import pytest

import dpfuzz

HEAVY = ("scipy", "sklearn", "hypothesis", "dp_accounting", "matplotlib", "jax", "rich")


@pytest.mark.parametrize(
    "statement", ["import dpfuzz", "import dpfuzz.pytest_plugin", "import dpfuzz.cli"]
)
def test_importing_dpfuzz_or_its_plugin_loads_nothing_heavy(statement):
    # Issue 13: the plugin cost every pytest run 1.5-2 s. benchmarks/startup.py measures the
    # time; this checks the cause: none of the heavy libraries is imported until an audit runs.
    code = (
        f"{statement}; import sys; print(sorted({{m.split('.')[0] for m in sys.modules}} &"
        f" set({HEAVY!r})))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"


AUDIT_1D = """
from dpfuzz import Domain, PureDP, audit, estimate_epsilon, DatasetPair
import numpy as np

def leaky_sum(dataset, num_samples, rng):  # Laplace noise at half the scale 1-DP needs
    return dataset.sum() + rng.laplace(0.0, 0.5, size=num_samples)

def noisy_count(dataset, num_samples, rng):  # a discrete 1-D release
    noise = rng.geometric(0.5, size=num_samples) - rng.geometric(0.5, size=num_samples)
    return len(dataset) + noise

assert audit(leaky_sum, PureDP(1.0), Domain(max_size=3), seed=0, budget="quick").violated
audit(noisy_count, PureDP(1.0), Domain(max_size=3), seed=0, budget="quick")
pair = DatasetPair(np.array([0.0]), np.array([0.0, 1.0]))
estimate_epsilon(leaky_sum, pair, max_draws=100_000, seed=0)
import sys
loaded = {'.'.join(m.split('.')[:2]) for m in sys.modules}
print(sorted(loaded & {'sklearn', 'scipy.stats', 'scipy.optimize'}))
"""


@pytest.mark.parametrize("code", [AUDIT_1D], ids=["1-D audits and an estimate"])
@pytest.mark.slow
def test_one_number_per_draw_loads_neither_scikit_learn_nor_scipy_stats_or_optimize(code):
    # docs/explanation/architecture.md: vector outputs import scikit-learn when they first need
    # it; a 1-D refutation, a discrete 1-D audit and a 1-D estimate never do
    # (benchmarks/startup.py times it).
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded.splitlines()[-1] == "[]"


def test_every_public_name_resolves_and_the_version_comes_from_the_metadata():
    from importlib.metadata import version

    for name in dpfuzz.__all__:
        assert getattr(dpfuzz, name) is not None
    assert dpfuzz.__version__ == version("dpfuzz")
    assert issubclass(dpfuzz.HistogramTester, dpfuzz.Tester) and issubclass(
        dpfuzz.GridFinder, dpfuzz.BaseFinder
    )
    assert issubclass(dpfuzz.InvalidArgument, ValueError) and issubclass(
        dpfuzz.InvalidArgument, dpfuzz.DPFuzzError
    )
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        dpfuzz.Nope  # noqa: B018


def test_moved_names_keep_a_warning_alias_for_one_minor_release():
    import importlib

    from dpfuzz.domain import Domain
    from dpfuzz.engine import schedule
    from dpfuzz.estimation import sizes, timing

    with pytest.warns(DeprecationWarning, match="dpfuzz.domain.Domain"):
        from dpfuzz.datasets import Domain as old_domain
    assert old_domain is Domain
    for name, module in (
        ("fit_samples", sizes),
        ("smallest_budget", sizes),
        ("seconds_per_draw", timing),
        ("planned_draws", timing),
    ):
        with pytest.warns(DeprecationWarning, match=f"moved to {module.__name__}.{name}"):
            assert getattr(importlib.import_module("dpfuzz.estimation"), name) is getattr(
                module, name
            )
    from dpfuzz import cli, names

    with pytest.warns(DeprecationWarning, match="dpfuzz.names.BUDGETS"):
        assert cli.BUDGET_NAMES == names.BUDGETS
    for moved, module in (("sizes", sizes), ("timing", timing)):
        with pytest.warns(DeprecationWarning, match=f"moved to {module.__name__}"):
            assert getattr(importlib.import_module("dpfuzz.engine"), moved) is module
    from dpfuzz.assertions import assert_dp

    with pytest.warns(DeprecationWarning, match="import dpfuzz.assert_dp"):
        from dpfuzz.testing import assert_dp as old_assert_dp
    assert old_assert_dp is assert_dp
    sys.modules.pop("dpfuzz.schedule", None)
    with pytest.warns(DeprecationWarning, match="dpfuzz.engine.schedule"):
        old_schedule = importlib.import_module("dpfuzz.schedule")
    assert old_schedule.verification_looks is schedule.verification_looks


def test_a_policy_that_is_not_one_is_named_with_the_fix():
    from dpfuzz import (
        AuditPolicy,
        Domain,
        EstimationPolicy,
        InvalidArgument,
        PureDP,
        audit,
        estimate_epsilon,
    )

    def noisy_sum(dataset, num_samples, rng):
        return dataset.sum() + rng.laplace(0.0, 1.0, num_samples)

    with pytest.raises(
        InvalidArgument,
        match=r"policy must be a dpfuzz.AuditPolicy, got dict; build one with AuditPolicy\(",
    ):
        audit(noisy_sum, PureDP(1.0), Domain(), policy={"min_look": 10})
    with pytest.raises(InvalidArgument, match=r"got dict; build one with EstimationPolicy\("):
        estimate_epsilon(noisy_sum, Domain(), policy={"search_share": 0.3})
    with pytest.raises(InvalidArgument, match="search_share must satisfy"):
        EstimationPolicy(search_share=2)
    assert (
        AuditPolicy().probe_draws
        == 2 * AuditPolicy().reproducibility_samples + AuditPolicy().probe_samples
    )


def test_the_catalogue_installs_from_mechanisms_and_every_package_is_listed():
    """`mechanisms/` is `dpfuzz.catalogue` through the install (a package-dir mapping), and the
    explicit package list in pyproject.toml names every package of the tree."""
    import tomllib
    from pathlib import Path

    import dpfuzz.catalogue

    root = Path(__file__).resolve().parent.parent
    assert Path(dpfuzz.catalogue.__file__).parent == root / "mechanisms"
    assert not (root / "dpfuzz" / "catalogue").exists()
    setuptools = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    found = {
        ".".join(path.parent.relative_to(root).parts)
        for path in (root / "dpfuzz").rglob("__init__.py")
    }
    assert set(setuptools["packages"]) == found | {"dpfuzz.catalogue"}
    assert setuptools["package-dir"] == {"dpfuzz.catalogue": "mechanisms"}
