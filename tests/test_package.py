"""The package surface: lazy exports, version, and what importing dpfuzz costs."""

import subprocess
import sys

import pytest

import dpfuzz

HEAVY = ("scipy", "sklearn", "hypothesis", "dp_accounting", "matplotlib", "jax", "rich")


@pytest.mark.parametrize("statement", ["import dpfuzz", "import dpfuzz.pytest_plugin", "import dpfuzz.cli"])
def test_importing_dpfuzz_or_its_plugin_loads_nothing_heavy(statement):
    # Issue 13: the plugin cost every pytest run 1.5-2 s. benchmarks/startup.py measures the
    # time; this checks the cause: none of the heavy libraries is imported until an audit runs.
    code = f"{statement}; import sys; print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_every_public_name_resolves_and_the_version_comes_from_the_metadata():
    from importlib.metadata import version

    for name in dpfuzz.__all__:
        assert getattr(dpfuzz, name) is not None
    assert dpfuzz.__version__ == version("dpfuzz")
    assert issubclass(dpfuzz.HistogramTester, dpfuzz.Tester) and issubclass(dpfuzz.GridFinder, dpfuzz.BaseFinder)
    assert issubclass(dpfuzz.InvalidArgument, ValueError) and issubclass(dpfuzz.InvalidArgument, dpfuzz.DPFuzzError)
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        dpfuzz.Nope  # noqa: B018
