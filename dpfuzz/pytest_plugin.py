"""pytest plugin: audit DP implementations inside a project's own test suite.

Installed with dpfuzz (entry point ``pytest11``). In a test::

    def test_noisy_sum_is_private(dp_audit):
        dp_audit(noisy_sum, PureDP(1.0), Domain(low=0.0, high=1.0, max_size=10))

A refuted claim fails the test with the witness, the certified bound and the command that
reproduces it; an inconclusive audit (the budget could not test the claim, or a call was too slow)
fails it with the reason, or skips it with ``--dpfuzz-inconclusive skip`` or the marker's
``inconclusive="skip"``; a mechanism that raises or returns bad outputs fails it with dpfuzz's
message.
Options: ``--dpfuzz-seed``, ``--dpfuzz-budget quick|thorough|default``, ``--dpfuzz-samples``,
``--dpfuzz-trials``, ``--dpfuzz-beta``, ``--dpfuzz-max-draws``, ``--dpfuzz-max-seconds`` (per
audit) and ``--dpfuzz-report DIR`` (a JSON and an HTML report per audit).
``@pytest.mark.dpfuzz(**settings)`` overrides them for one test: any `dpfuzz.AuditSettings`
field but the seed (``samples``, ``trials``, ``tester``, ``max_seconds`` …), ``budget`` and
``inconclusive``.
Every test using ``dp_audit`` carries the ``dpfuzz`` marker: ``-m "not dpfuzz"`` deselects them.

The plugin imports only the standard library until a test calls ``dp_audit``, so it costs a
project without DP tests nothing (``benchmarks/startup.py`` measures it).

Each audit has its own β; the terminal summary lists every audit, with the power of each that
passed, and the session's total false-alarm budget (the sum of the β's). Each audit also rides on
its test's report as the user property ``dpfuzz_audit`` (JSON), which is how pytest-xdist's workers
hand it to the summary and how ``--junitxml`` records it. Seeds derive from the session seed and the
test id (and, for `dp_audit.pair`, the pair itself), so a failure reproduces exactly.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from dpfuzz import names
from dpfuzz.files import write_atomically

if TYPE_CHECKING:
    from dpfuzz.claims import Claim
    from dpfuzz.datasets import DatasetPair
    from dpfuzz.domain import Domain
    from dpfuzz.mechanism import Mechanism
    from dpfuzz.report import AuditReport

_PROPERTY = "dpfuzz_audit"  # the test report's user property that carries one audit's record
# AuditSettings' fields (a test checks they match) but the seed, which the plugin derives.
_OVERRIDABLE = (
    "budget",
    "inconclusive",
    "tester",
    "finder",
    "trials",
    "samples",
    "verify_samples",
    "beta",
    "sampling",
    "max_draws",
    "max_seconds",
    "call_timeout",
    "arithmetic",
    "verify_directions",
    "sharpen",
)


@dataclass(frozen=True)
class AuditRecord:
    test: str
    mechanism: str
    claim: str
    violated: bool
    epsilon_lower_bound: float | None
    beta: float
    seconds: float
    verdict: str = ""
    power: str | None = None
    page: str | None = None  # the audit's HTML report in --dpfuzz-report's folder


# The session options that change an audit, with their defaults: a reproduce line repeats those
# that differ.
_AUDIT_OPTIONS = {
    "budget": "quick",
    "inconclusive": "fail",
    "beta": 0.05,
    "trials": None,
    "samples": None,
    "max_draws": None,
    "max_seconds": None,
}


def _flag(name: str) -> str:
    return "--dpfuzz-" + name.replace("_", "-")


def _session_options(config: pytest.Config) -> dict:
    """The session's value of each of `_AUDIT_OPTIONS`."""
    return {name: config.getoption(_flag(name)) for name in _AUDIT_OPTIONS}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpfuzz", "differential-privacy audits (dpfuzz)")
    group.addoption(
        "--dpfuzz-seed",
        type=int,
        default=0,
        help="session seed; each audit's seed derives from it (default 0)",
    )
    group.addoption(
        "--dpfuzz-samples",
        type=int,
        default=None,
        help="samples per dataset per trial (overrides the budget)",
    )
    group.addoption(
        "--dpfuzz-trials",
        type=int,
        default=None,
        help="search trials per audit (overrides the budget)",
    )
    group.addoption(
        "--dpfuzz-beta",
        type=float,
        default=_AUDIT_OPTIONS["beta"],
        help="false-alarm probability of each audit (default 0.05)",
    )
    group.addoption(
        "--dpfuzz-budget",
        choices=names.BUDGETS,
        default=_AUDIT_OPTIONS["budget"],
        help=f"quick (push), thorough (nightly) or default (default {_AUDIT_OPTIONS['budget']})",
    )
    group.addoption(
        "--dpfuzz-max-draws",
        type=int,
        default=None,
        help="cap on each audit's mechanism outputs (reproducible)",
    )
    group.addoption(
        "--dpfuzz-max-seconds",
        type=float,
        default=None,
        help="cap on each audit's wall-clock seconds",
    )
    group.addoption(
        "--dpfuzz-inconclusive",
        choices=("fail", "skip"),
        default=_AUDIT_OPTIONS["inconclusive"],
        help="what an audit that could not test its claim does to its test (default fail)",
    )
    group.addoption(
        "--dpfuzz-report",
        metavar="DIR",
        default=None,
        help="write each audit's JSON report into DIR",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "dpfuzz(**settings): a test that runs dpfuzz audits; settings (budget, inconclusive and any"
        " AuditSettings field but seed: trials, samples, beta, tester, finder, max_seconds …)"
        " override the session's for this test",
    )
    config.pluginmanager.register(AuditSummary(), "dpfuzz-audit-summary")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if (
            "dp_audit" in getattr(item, "fixturenames", ())
            and item.get_closest_marker("dpfuzz") is None
        ):
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

    def __call__(
        self, mechanism: Mechanism, claim: Claim, domain: Domain, **overrides: Any
    ) -> AuditReport:
        """Audit over the domain; fail the test if the claim is refuted. Returns the report."""
        self._calls += 1
        return self._run(mechanism, claim, domain, f"call{self._calls}", overrides)

    def pair(
        self,
        mechanism: Mechanism,
        claim: Claim,
        domain: Domain,
        pair: DatasetPair,
        **overrides: Any,
    ) -> AuditReport:
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
        options = _session_options(config)
        marker = self._request.node.get_closest_marker("dpfuzz")
        if marker is not None:
            unknown = sorted(set(marker.kwargs) - set(_OVERRIDABLE))
            if unknown:
                from dpfuzz.validation import did_you_mean

                hints = "".join(did_you_mean(name, _OVERRIDABLE) for name in unknown)
                pytest.fail(
                    f"@pytest.mark.dpfuzz got unknown settings {unknown}.{hints} Known:"
                    f" {', '.join(_OVERRIDABLE)}.",
                    pytrace=False,
                )
            options.update(marker.kwargs)
        options.update(overrides)
        return {key: value for key, value in options.items() if value is not None}

    def _run(self, mechanism, claim, domain, call_key: str, overrides: dict):
        from dpfuzz.assertions import DPViolation, assert_dp, inconclusive_message
        from dpfuzz.errors import DPFuzzError

        config = self._request.config
        nodeid = self._request.node.nodeid
        session_seed = config.getoption("--dpfuzz-seed")
        options = self._options(overrides)
        options["seed"] = derive_seed(session_seed, nodeid, call_key)
        on_inconclusive = _checked_choice(
            "inconclusive", options.pop("inconclusive"), ("fail", "skip")
        )
        changed = [
            f"{_flag(name)}={value}"
            for name, value in _session_options(config).items()
            if value != _AUDIT_OPTIONS[name]
        ]
        reproduce = " ".join([f'pytest "{nodeid}" --dpfuzz-seed={session_seed}', *changed])
        start = time.perf_counter()
        failure = None
        try:
            report = assert_dp(
                mechanism, claim, domain, reproduce=reproduce, allow_inconclusive=True, **options
            )
        except DPViolation as violation:
            self._record(violation.report, time.perf_counter() - start)
            failure = str(violation)
        # the mechanism raised, or a bad argument: dpfuzz's message says which
        except DPFuzzError as error:
            failure = f"dpfuzz could not run this audit: {error}"
        if failure is not None:  # outside the except block, so pytest shows no chained traceback
            pytest.fail(failure, pytrace=False)
        self._record(report, time.perf_counter() - start)
        if report.inconclusive:
            message = inconclusive_message(report)
            if on_inconclusive == "skip":
                pytest.skip(message)
            pytest.fail(
                message
                + '\n  (--dpfuzz-inconclusive skip, or @pytest.mark.dpfuzz(inconclusive="skip"),'
                " skips instead)",
                pytrace=False,
            )
        return report

    def _record(self, report, seconds: float) -> None:
        config = self._request.config
        nodeid = self._request.node.nodeid
        bound = None if report.epsilon_lower_bound is None else float(report.epsilon_lower_bound)
        directory = config.getoption("--dpfuzz-report")
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid) + f"-{report.seed}"
        record = AuditRecord(
            nodeid,
            report.mechanism,
            report.claim.describe(),
            bool(report.violated),
            bound,
            float(report.beta),
            seconds,
            report.verdict.value,
            None if report.violated or not report.tested else report.power_text(),
            f"{stem}.html" if directory else None,
        )
        self._request.node.user_properties.append((_PROPERTY, json.dumps(asdict(record))))
        if directory:
            path = Path(directory)
            path.mkdir(parents=True, exist_ok=True)
            write_atomically(
                path / f"{stem}.json", json.dumps({"test": nodeid, **report.to_dict()}, indent=2)
            )
            write_atomically(
                path / f"{stem}.html",
                report.to_html().replace(
                    "<body>", '<body><p><a href="index.html">← all audits of the session</a></p>', 1
                ),
            )


@pytest.fixture
def dp_audit(request: pytest.FixtureRequest) -> Auditor:
    """Audit mechanisms inside this test; see `Auditor`."""
    return Auditor(request)


_WORDS = {"violated": "VIOLATED", "not refuted": "ok", "inconclusive": "INCONCLUSIVE"}


def _checked_choice(name: str, value, choices: tuple) -> str:
    """A marker's or option's choice, checked: a wrong one fails the test naming the choices."""
    if value not in choices:
        pytest.fail(
            f"@pytest.mark.dpfuzz({name}={value!r}): {name} must be one of"
            f" {', '.join(map(repr, choices))}.",
            pytrace=False,
        )
    return value


def derive_seed(session_seed: int, nodeid: str, call_key: str) -> int:
    """A stable 63-bit seed from the session seed, the test id and the call."""
    digest = hashlib.sha256(f"{session_seed}:{nodeid}:{call_key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 2**63


def _max_examples(request: pytest.FixtureRequest) -> int:
    settings = getattr(
        getattr(request.node, "obj", None), "_hypothesis_internal_use_settings", None
    )
    if settings is None:
        from hypothesis import settings as hypothesis_settings

        settings = hypothesis_settings.default
    return max(1, int(getattr(settings, "max_examples", 1)))


class AuditSummary:
    """The session's audits, collected from test reports, the terminal summary of them, and with
    ``--dpfuzz-report DIR`` an index page DIR/index.html linking every audit's report."""

    def __init__(self):
        self.records: list[AuditRecord] = []

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        directory = session.config.getoption("--dpfuzz-report")
        if directory and self.records and not hasattr(session.config, "workerinput"):
            Path(directory).mkdir(parents=True, exist_ok=True)
            write_atomically(Path(directory) / "index.html", index_page(self.records))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Collect a finished test's audits, run in this process or (pytest-xdist) in a worker.

        The teardown report carries every property the test added, once.
        """
        if report.when == "teardown":
            self.records += [
                AuditRecord(**json.loads(str(value)))
                for name, value in report.user_properties
                if name == _PROPERTY
            ]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.records:
            return
        terminalreporter.section("dpfuzz audits")
        for record in self.records:
            verdict = _WORDS.get(record.verdict, "VIOLATED" if record.violated else "ok")
            epsilon = (
                "none certified"
                if record.epsilon_lower_bound is None
                else f">= {record.epsilon_lower_bound:.3g}"
            )
            terminalreporter.write_line(
                f"{verdict:8s} {record.test}  {record.mechanism}: {record.claim}, eps {epsilon},"
                f" {record.seconds:.2f}s"
            )
            if record.power and record.verdict != "inconclusive":
                terminalreporter.write_line(f"{'':9s}power: {record.power}")
        total = sum(record.beta for record in self.records)
        counts = {
            word: sum(_WORDS.get(r.verdict) == word for r in self.records)
            for word in ("VIOLATED", "INCONCLUSIVE")
        }
        terminalreporter.write_line(
            f"{len(self.records)} audits, {counts['VIOLATED']} violated, {counts['INCONCLUSIVE']}"
            f" inconclusive; total false-alarm budget {total:.3g} (sum of per-audit beta)"
        )


def index_page(records: list[AuditRecord]) -> str:
    """The session's audits as one page: verdict, test, claim, ε bound and a link to each report."""
    from html import escape

    colours = {"violated": "#cf222e", "not refuted": "#1a7f37", "inconclusive": "#9a6700"}

    def row(record: AuditRecord) -> str:
        test = (
            f'<a href="{escape(record.page)}">{escape(record.test)}</a>'
            if record.page
            else escape(record.test)
        )
        epsilon = (
            "none certified"
            if record.epsilon_lower_bound is None
            else f"{record.epsilon_lower_bound:.3g}"
        )
        colour = colours.get(record.verdict, "#57606a")
        return (
            f'<tr><td style="color:{colour};font-weight:600">'
            f"{escape(_WORDS.get(record.verdict, record.verdict))}</td><td>{test}</td>"
            f"<td>{escape(record.mechanism)}</td><td>{escape(record.claim)}</td>"
            f"<td>{epsilon}</td><td>{record.seconds:.2f}</td></tr>"
        )

    rows = "".join(
        row(record)
        for record in sorted(records, key=lambda r: (r.verdict == "not refuted", r.test))
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        "<title>dpfuzz audits</title><style>"
        "body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328}"
        "td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left}"
        "th{background:#f6f8fa}table{border-collapse:collapse}</style></head><body>"
        f"<h1>dpfuzz audits of this pytest session</h1><p>{len(records)} audits; β per audit,"
        f" summed: {sum(r.beta for r in records):.3g}. Violated and inconclusive audits first;"
        " each links to its report.</p><table><tr><th>verdict</th><th>test</th>"
        "<th>mechanism</th><th>claim</th><th>ε lower bound</th><th>seconds</th></tr>"
        f"{rows}</table></body></html>\n"
    )
