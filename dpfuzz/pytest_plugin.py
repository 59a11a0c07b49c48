"""pytest plugin: audit DP implementations inside a project's own test suite.

Installed with dpfuzz (entry point ``pytest11``). In a test::

    def test_noisy_sum_is_private(dp_audit):
        dp_audit(noisy_sum, PureDP(1.0), Domain(low=0.0, high=1.0, max_size=10))

A refuted claim fails the test with the witness, the certified bound and the command that
reproduces it. Options: ``--dpfuzz-seed``, ``--dpfuzz-samples``, ``--dpfuzz-trials``,
``--dpfuzz-beta``, ``--dpfuzz-budget quick|thorough`` and ``--dpfuzz-report DIR`` (a JSON and
an HTML report per audit). ``@pytest.mark.dpfuzz(samples=…, trials=…, beta=…, budget=…, tester=…,
finder=…)`` overrides them for one test. Every test using ``dp_audit`` carries the ``dpfuzz``
marker: ``-m "not dpfuzz"`` deselects them.

Each audit has its own β; the terminal summary lists every audit and the session's total
false-alarm budget (the sum of the β's). Seeds derive from the session seed and the test id
(and, for `dp_audit.pair`, the pair itself), so a failure reproduces exactly.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from dpfuzz.testing import BUDGETS, DPViolation, assert_dp

_RESULTS = pytest.StashKey[list]()
_OVERRIDABLE = ("trials", "samples", "verify_samples", "beta", "budget", "tester", "finder")


@dataclass(frozen=True)
class AuditRecord:
    test: str
    mechanism: str
    claim: str
    violated: bool
    epsilon_lower_bound: float | None
    beta: float
    seconds: float


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpfuzz", "differential-privacy audits (dpfuzz)")
    group.addoption("--dpfuzz-seed", type=int, default=0, help="session seed; each audit's seed derives from it (default 0)")
    group.addoption("--dpfuzz-samples", type=int, default=None, help="samples per dataset per trial (overrides the budget)")
    group.addoption("--dpfuzz-trials", type=int, default=None, help="search trials per audit (overrides the budget)")
    group.addoption("--dpfuzz-beta", type=float, default=0.05, help="false-alarm probability of each audit (default 0.05)")
    group.addoption(
        "--dpfuzz-budget", choices=sorted(BUDGETS), default="quick", help="quick (every push) or thorough (nightly)"
    )
    group.addoption("--dpfuzz-report", metavar="DIR", default=None, help="write each audit's JSON report into DIR")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "dpfuzz(**options): a test that runs dpfuzz audits; options (trials, samples, beta, budget, "
        "tester, finder) override the session's for this test",
    )
    config.stash[_RESULTS] = []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "dp_audit" in getattr(item, "fixturenames", ()) and item.get_closest_marker("dpfuzz") is None:
            item.add_marker(pytest.mark.dpfuzz)


def pytest_report_header(config: pytest.Config) -> str:
    option = config.getoption
    return (
        f"dpfuzz: session seed {option('--dpfuzz-seed')}, budget {option('--dpfuzz-budget')}, "
        f"beta {option('--dpfuzz-beta')} per audit"
    )


class Auditor:
    """The `dp_audit` fixture: call it to audit a mechanism inside the current test."""

    def __init__(self, request: pytest.FixtureRequest):
        self._request = request
        self._calls = 0

    def __call__(self, mechanism, claim, domain, **overrides):
        """Audit over the domain; fail the test if the claim is refuted. Returns the report."""
        self._calls += 1
        return self._run(mechanism, claim, domain, f"call{self._calls}", overrides)

    def pair(self, mechanism, claim, domain, pair, **overrides):
        """Audit one neighbouring pair (e.g. from `dpfuzz.strategies.neighbouring_pairs`).

        Inside a Hypothesis test each example is an audit, so β is divided by the test's
        ``max_examples``; the seed derives from the pair, so a re-run of the same example (as
        Hypothesis does when shrinking) gives the same verdict.
        """
        overrides.setdefault("beta", self._options({})["beta"] / _max_examples(self._request))
        key = hashlib.sha256(pair.key()).hexdigest()
        return self._run(mechanism, claim, domain, key, {**overrides, "pair": pair})

    def _options(self, overrides: dict) -> dict:
        config = self._request.config
        options = {
            "budget": config.getoption("--dpfuzz-budget"),
            "beta": config.getoption("--dpfuzz-beta"),
            "trials": config.getoption("--dpfuzz-trials"),
            "samples": config.getoption("--dpfuzz-samples"),
        }
        marker = self._request.node.get_closest_marker("dpfuzz")
        if marker is not None:
            unknown = set(marker.kwargs) - set(_OVERRIDABLE)
            if unknown:
                raise pytest.UsageError(f"@pytest.mark.dpfuzz got unknown options {sorted(unknown)}; use {list(_OVERRIDABLE)}.")
            options.update(marker.kwargs)
        options.update(overrides)
        return {key: value for key, value in options.items() if value is not None}

    def _run(self, mechanism, claim, domain, call_key: str, overrides: dict):
        config = self._request.config
        nodeid = self._request.node.nodeid
        session_seed = config.getoption("--dpfuzz-seed")
        options = self._options(overrides)
        options["seed"] = derive_seed(session_seed, nodeid, call_key)
        reproduce = f'pytest "{nodeid}" --dpfuzz-seed={session_seed}'
        start = time.perf_counter()
        try:
            report = assert_dp(mechanism, claim, domain, reproduce=reproduce, **options)
        except DPViolation as violation:
            self._record(violation.report, time.perf_counter() - start)
            pytest.fail(str(violation), pytrace=False)
        self._record(report, time.perf_counter() - start)
        return report

    def _record(self, report, seconds: float) -> None:
        config = self._request.config
        nodeid = self._request.node.nodeid
        config.stash[_RESULTS].append(
            AuditRecord(nodeid, report.mechanism, report.claim.describe(), report.violated, report.epsilon_lower_bound, report.beta, seconds)
        )
        directory = config.getoption("--dpfuzz-report")
        if directory:
            path = Path(directory)
            path.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid) + f"-{report.seed}"
            (path / f"{stem}.json").write_text(json.dumps({"test": nodeid, **report.to_dict()}, indent=2))
            (path / f"{stem}.html").write_text(report.to_html())


@pytest.fixture
def dp_audit(request: pytest.FixtureRequest) -> Auditor:
    """Audit mechanisms inside this test; see `Auditor`."""
    return Auditor(request)


def derive_seed(session_seed: int, nodeid: str, call_key: str) -> int:
    """A stable 63-bit seed from the session seed, the test id and the call."""
    digest = hashlib.sha256(f"{session_seed}:{nodeid}:{call_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 2**63


def _max_examples(request: pytest.FixtureRequest) -> int:
    settings = getattr(getattr(request.node, "obj", None), "_hypothesis_internal_use_settings", None)
    if settings is None:
        from hypothesis import settings as hypothesis_settings

        settings = hypothesis_settings.default
    return max(1, int(settings.max_examples))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    records = config.stash.get(_RESULTS, [])
    if not records:
        return
    terminalreporter.section("dpfuzz audits")
    for record in records:
        verdict = "VIOLATED" if record.violated else "ok"
        epsilon = "-" if record.epsilon_lower_bound is None else f"{record.epsilon_lower_bound:.3g}"
        terminalreporter.write_line(
            f"{verdict:8s} {record.test}  {record.mechanism}: {record.claim}, eps >= {epsilon}, {record.seconds:.2f}s"
        )
    total = float(np.sum([record.beta for record in records]))
    terminalreporter.write_line(
        f"{len(records)} audits, {sum(r.violated for r in records)} violated; "
        f"total false-alarm budget {total:.3g} (sum of per-audit beta)"
    )
