"""No traceback from a malformed config or a bad mechanism: every config below is refused with
exit status 2 and a message, and every mechanism below is stored as its audit's outcome while
the campaign goes on."""

from __future__ import annotations

import pytest

from dpfuzz.cli import main
from dpfuzz.store import ResultsStore

CLAIM = 'claim = { type = "PureDP", epsilon = 1.0 }'
LAPLACE = '[[target]]\nentry = "Laplace"\n'

MALFORMED = [
    "",
    "target = []",
    'target = "Laplace"',
    'target = { entry = "Laplace" }',
    "this is not toml",
    "[settings]\ntrials = 3",
    'colour = "blue"',
    'budget = "weekly"',
    "budget = 3",
    "seeds = 0",
    "seeds = [-1]",
    "seeds = []",
    'seeds = ["a"]',
    "seeds = [true]",
    "finders = [1]",
    'finders = ["nope"]',
    'finders = "random"',
    "finders = []",
    'tester = "nope"',
    "tester = 5",
    "trials = 0",
    "trials = -3",
    'trials = "many"',
    "trials = 1000000000000",
    "samples = 1e12",
    "samples = 1000000000000",
    "samples = 0",
    "verify_samples = -1",
    "beta = 0",
    "beta = 1.5",
    'beta = "x"',
    'sampling = "sometimes"',
    "max_draws = 10",
    "max_seconds = -1",
    "call_timeout = 0",
    'arithmetic = "decimal"',
    'verify_directions = "three"',
    "audit_timeout = 0",
    'audit_timeout = "long"',
    'allow_inconclusive = "yes"',
    "[[target]]\n",
    '[[target]]\nentry = "Nope"',
    '[[target]]\nentry = "Laplace"\nmechanism = "x:y"',
    f'[[target]]\nmechanism = "nomodule:f"\n{CLAIM}',
    '[[target]]\nmechanism = "bad_targets:laplace"',
    f'[[target]]\nmechanism = "bad_targets"\n{CLAIM}',
    f'[[target]]\nmechanism = "bad_targets:nothing"\n{CLAIM}',
    f'[[target]]\nmechanism = "bad_targets:one_draw"\n{CLAIM}',
    f'[[target]]\nmechanism = "bad_targets:a_number"\n{CLAIM}',
    f'[[target]]\nmechanism = "bad_targets:laplace"\n{CLAIM}\nparams = {{ scale = 2 }}',
    f'[[target]]\nmechanism = "bad_targets:laplace"\n{CLAIM}\nper_call = true',
    '[[target]]\nlibrary = "nomodule:f"',
    LAPLACE + "params = 5",
    LAPLACE + "params = { nope = 1 }",
    LAPLACE + 'params = { epsilon = "x" }',
    LAPLACE + "claim = 3",
    LAPLACE + 'claim = { type = "Nope" }',
    LAPLACE + 'claim = { type = "PureDP", epsilon = -1 }',
    LAPLACE + 'claim = { type = "PureDP", epsilon = 1e308 }',
    LAPLACE + 'claim = { type = "ApproxDP", epsilon = 1, delta = 2 }',
    LAPLACE + "claim = { epsilon = 1 }",
    LAPLACE + 'claim = { type = "GaussianDP", mu = "x" }',
    LAPLACE + "domain = 3",
    LAPLACE + "domain = { lo = 0 }",
    LAPLACE + "domain = { max_size = 1000000000000 }",
    LAPLACE + "domain = { max_size = -1 }",
    LAPLACE + "domain = { low = 1.0, high = 0.0 }",
    LAPLACE + 'domain = { relation = "nope" }',
    LAPLACE + "domain = { dim = 100000000000 }",
    LAPLACE + 'truth = "maybe"',
    LAPLACE + 'tester = "nope"',
    LAPLACE + 'per_call = "yes"',
    LAPLACE + "name = 5",
    LAPLACE + LAPLACE,
    "[[target]]\nentry = 5",
    '[[target]]\ncatalogue = "yes"',
    LAPLACE + "samples = 10",
]

BAD_TARGETS = """
import numpy as np

def laplace(dataset, num_samples, rng):
    return dataset.sum() + rng.laplace(size=num_samples)

def one_draw(dataset, rng):
    return dataset.sum() + rng.laplace()

a_number = 42
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    (tmp_path / "bad_targets.py").write_text(BAD_TARGETS)
    (tmp_path / "bad_mechanisms.py").write_text(BAD_MECHANISMS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_malformed_config_is_refused_with_a_message(workdir, capsys):
    assert len(MALFORMED) >= 60 and len(set(MALFORMED)) == len(MALFORMED)
    unrefused = []
    for index, text in enumerate(MALFORMED):
        path = workdir / f"config{index}.toml"
        path.write_text(text)
        status = main(
            [
                "campaign",
                "run",
                str(path),
                "--results",
                str(workdir / f"results{index}"),
                "--no-report",
            ]
        )
        error = capsys.readouterr().err
        if status != 2 or "error:" not in error or "Traceback" in error:
            unrefused.append((text, status, error[-200:]))
    assert not unrefused, "\n".join(map(repr, unrefused))


BAD_MECHANISMS = """
import ctypes, os, sys, time
import numpy as np

def returns_none(d, n, rng): return None
def returns_string(d, n, rng): return "noisy"
def returns_scalar(d, n, rng): return 1.0
def returns_strings(d, n, rng): return np.array(["a"] * n)
def wrong_length(d, n, rng): return rng.normal(size=n + 1)
def returns_nan(d, n, rng): return np.full(n, np.nan)
def returns_inf(d, n, rng): return np.full(n, np.inf)
def ragged(d, n, rng): return [[1.0] * (i % 3) for i in range(n)]
def complex_outputs(d, n, rng): return rng.normal(size=n) + 1j
def dict_outputs(d, n, rng): return np.array([{"a": 1}] * n, dtype=object)
def generator_output(d, n, rng): return (x for x in rng.normal(size=n))
def huge_ints(d, n, rng): return np.array([10**30] * n, dtype=object)
def shape_changes(d, n, rng): return rng.normal(size=(n, 1 + int(rng.integers(3))))
def raises_value_error(d, n, rng): raise ValueError("bad input")
def raises_memory_error(d, n, rng): return np.ones(10**14)
def recurses(d, n, rng): return recurses(d, n, rng)
def factory_raises(): raise RuntimeError("cannot build")
def exits(d, n, rng): os._exit(0)
def sys_exit(d, n, rng): sys.exit(0)
def interrupts(d, n, rng): raise KeyboardInterrupt
def segfaults(d, n, rng): ctypes.string_at(0)
def call_hangs(d, n, rng): time.sleep(600)
def mutates_dataset(d, n, rng):
    d[...] = 0
    return d.sum() + rng.laplace(size=n)
def changes_directory(d, n, rng):
    os.chdir("/")
    return d.sum() + rng.laplace(size=n)
def floods_stderr(d, n, rng):
    sys.stderr.write("x" * 10000)
    return rng.laplace(size=n)
"""

EXPECTED = {
    "error": (
        "returns_none",
        "returns_string",
        "returns_scalar",
        "returns_strings",
        "wrong_length",
        "returns_nan",
        "returns_inf",
        "ragged",
        "complex_outputs",
        "dict_outputs",
        "generator_output",
        "huge_ints",
        "shape_changes",
        "raises_value_error",
        "raises_memory_error",
        "recurses",
        "factory_raises",
        "mutates_dataset",  # datasets are handed over read-only
    ),
    "crashed": ("exits", "sys_exit", "interrupts", "segfaults"),
    "inconclusive": ("call_hangs",),  # call_timeout ends it
    "not refuted": ("changes_directory", "floods_stderr"),
}


def test_every_bad_mechanism_is_stored_as_its_outcome(workdir):
    names = [name for names in EXPECTED.values() for name in names]
    assert len(names) >= 25
    targets = "".join(
        f'[[target]]\nmechanism = "bad_mechanisms:{name}"\n{CLAIM}\ndomain = {{ max_size = 3 }}\n'
        for name in names
    )
    path = workdir / "campaign.toml"
    path.write_text(
        "trials = 2\nsamples = 1000\nverify_samples = 2000\ncall_timeout = 2\naudit_timeout = 60\n"
        + targets
    )
    status = main(
        [
            "campaign",
            "run",
            str(path),
            "--results",
            str(workdir / "results"),
            "--workers",
            "2",
            "--no-report",
        ]
    )
    summaries = ResultsStore(workdir / "results" / "results.db").summaries(1)
    outcomes = {summary["target"].split(":")[1]: summary["outcome"] for summary in summaries}
    assert status == 1 and outcomes == {
        name: outcome for outcome, names in EXPECTED.items() for name in names
    }
    assert not [s["error"] for s in summaries if "dpfuzz failed" in (s.get("error") or "")]
    mutates = next(s for s in summaries if s["target"].endswith(":mutates_dataset"))
    assert "read-only" in mutates["error"] and "np.array(dataset)" in mutates["error"]


def test_a_target_with_three_mistakes_reports_all_three(workdir, capsys):
    path = workdir / "three.toml"
    path.write_text(
        '[[target]]\nmechanism = "bad_mechanisms:complex_outputs"\n'
        'claim = { type = "PureDB", epsilon = 1 }\ndomain = { max_size = "three" }\n'
        "params = { bins = 3 }\n"
    )
    assert main(["campaign", "run", str(path), "--results", str(workdir / "r")]) == 2
    err = capsys.readouterr().err.replace("\n", " ")
    assert "Did you mean 'PureDP'?" in err and "max_size must be an int" in err
    assert "takes no parameters, got ['bins']" in err
