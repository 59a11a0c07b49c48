"""Campaigns: many audits from one TOML config, run locally or on Dask, stored as they finish.

A config (all keys optional; with no config the whole catalogue is audited)::

    budget = "quick"            # a preset of the audit settings: "default", "quick" or "thorough"
    trials = 10                 # any audit setting overrides the preset: trials, samples,
    samples = 20000             #   verify_samples, beta, sampling, max_draws, max_seconds,
    max_seconds = 120           #   call_timeout, arithmetic, verify_directions, sharpen
    call_timeout = 30
    seeds = [0]
    finders = ["random"]
    tester = "entry"            # each catalogue entry's own tester; or "auto" or a tester name
    allow_inconclusive = false  # true: audits that could not test their claim do not fail the night
    audit_timeout = 1800        # seconds one audit may run; a longer one is stored as "timed out"

    [[target]]
    entry = "SVT3"              # a catalogue entry …
    params = { epsilon = 0.5, form = "dataset" }

    [[target]]
    mechanism = "my_module:make_mechanism"   # … or your own factory / mechanism
    params = { bins = 8 }       # factory parameters (checked against its signature)
    claim = { type = "PureDP", epsilon = 1.0 }
    domain = { low = 0.0, high = 1.0, max_size = 10 }
    truth = "satisfies"         # optional: what you expect, for the report's verdicts
    per_call = false            # true: the mechanism is (dataset, rng) -> one output, or a factory
    structured = false          # true: its outputs are dicts, categories, tuples, … (outputs)

    [[target]]
    catalogue = true            # every catalogue entry at its defaults

Every audit is targets × finders × seeds. Its key is a hash of everything that defines it (the
target's contents, tester, finder, seed and settings), so two different audits never share a
key, the same audit twice is an error before anything runs, and a resumed run skips exactly the
audits already stored. A refutation fails the night (``dpfuzz report`` exits 1) unless the target
declares ``truth = "violates"``, and so does an inconclusive audit unless the config allows it (the
default config, the whole catalogue at the default budget, does: its (ε, δ) entries need more
outputs to test δ); an error in one audit is stored as that audit's outcome.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import tomllib
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpfuzz.captured_output import with_output
from dpfuzz.cluster import WORKER_WAIT
from dpfuzz.errors import (
    ClusterLost,
    ConfigError,
    DPFuzzError,
    InvalidArgument,
    LibraryMissing,
    TargetBuildError,
)
from dpfuzz.outcomes import AuditRow, Finished, Outcome, outcome_of
from dpfuzz.settings import BUDGETS, FIELDS, AuditSettings
from dpfuzz.store import ResultsStore
from dpfuzz.validation import check_choice, check_keys, check_seconds, unknown_keys

if TYPE_CHECKING:
    from dpfuzz.targets import Resolved

# Settings a config sets for all its audits; tester, finder and seed are set per audit.
SETTING_KEYS = tuple(name for name in FIELDS if name not in ("tester", "finder", "seed"))
_TOP_KEYS = (
    "budget",
    "seeds",
    "finders",
    "tester",
    "target",
    "allow_inconclusive",
    "audit_timeout",
    *SETTING_KEYS,
)
AUDIT_TIMEOUT = 1800.0  # seconds an audit of a campaign may run by default: a nightly run's bound
_TABLES = {
    "params": "params = { epsilon = 0.5 }",
    "claim": 'claim = { type = "PureDP", epsilon = 1.0 }',
    "domain": "domain = { low = 0.0, high = 1.0, max_size = 10 }",
}
_TARGET_KEYS = (
    "entry",
    "mechanism",
    "library",
    "params",
    "claim",
    "domain",
    "truth",
    "tester",
    "catalogue",
    "name",
    "per_call",
    "structured",
)
TRUTHS = ("satisfies", "violates")
_TARGET_TYPES = {
    key: "a string" for key in ("entry", "mechanism", "library", "truth", "tester", "name")
} | {key: "true or false" for key in ("catalogue", "per_call", "structured")}


@dataclass(frozen=True)
class Target:
    """What to audit: a catalogue entry with parameters, a user's mechanism with its claim, or a
    library release (`library`: a function returning a `dpfuzz.adapters.LibraryTarget`)."""

    name: str
    entry: str | None = None
    mechanism: str | None = None
    library: str | None = None
    params: dict = field(default_factory=dict)
    claim: dict | None = None
    domain: dict | None = None
    truth: str | None = None
    tester: str | None = None
    per_call: bool = False
    structured: bool = False

    def build(self) -> Resolved:
        """The `dpfuzz.targets.Resolved` target (the config's truth wins over the entry's)."""
        from dpfuzz.claims import claim_from_dict
        from dpfuzz.targets import resolve

        if self.entry is not None:  # the entry's claim and domain unless the config overrides them
            claim = claim_from_dict(self.claim) if self.claim else None
            resolved = resolve(
                self.entry,
                params=self.params,
                claim=claim,
                domain=self._domain() if self.domain else None,
            )
        elif (
            self.library is not None
        ):  # the library's claim and domain unless the config overrides them
            claim = claim_from_dict(self.claim) if self.claim else None
            resolved = resolve(
                self.library,
                params=self.params,
                claim=claim,
                domain=self._domain() if self.domain else None,
            )
        else:
            claim = claim_from_dict(self.claim or {})
            resolved = resolve(
                self.mechanism,
                params=self.params,
                claim=claim,
                domain=self._domain(),
                per_call=self.per_call,
                structured=self.structured,
            )
        # the entry's truth is for its own
        overridden = self.entry is not None and (self.claim or self.domain)
        truth = self.truth or (None if overridden else resolved.truth)
        return dataclasses.replace(resolved, name=self.name, truth=truth)

    def _domain(self):
        """The `Domain` the config's domain table gives (every unknown key named)."""
        from dpfuzz.domain import Domain

        table = {} if self.domain is None else self.domain
        if not isinstance(table, dict):
            raise ConfigError(
                "domain must be a table, e.g. domain = { low = 0.0, high = 1.0, max_size = 10 };"
                f" got {table!r}."
            )
        check_keys(
            table, [field.name for field in dataclasses.fields(Domain) if field.init], "domain"
        )
        return Domain(**table)

    def content(self) -> dict:
        """Everything that defines the target, for keys (the display name excluded)."""
        data = dataclasses.asdict(self)
        data.pop("name")
        for flag in (
            "per_call",
            "structured",
        ):  # keys of targets written before the fields existed stay the same
            if not data[flag]:
                data.pop(flag)
        return data


@dataclass(frozen=True)
class AuditSpec:
    """One audit of a campaign; picklable, so it can run in another process or on Dask."""

    target: Target
    tester: str
    finder: str
    seed: int
    budget: str
    settings: dict = field(default_factory=dict)  # overrides of the budget's settings

    @property
    def key(self) -> str:
        """Readable prefix, then a hash of the audit's whole definition."""
        return f"{self.target.name}|{self.finder}|{self.seed}|{self.digest}"

    @property
    def digest(self) -> str:
        """A hash of everything that defines the audit (not the target's display name)."""
        definition = {
            "target": self.target.content(),
            "tester": self.tester,
            "finder": self.finder,
            "seed": self.seed,
            "budget": self.budget,
            "settings": self.settings,
        }
        return hashlib.sha256(
            json.dumps(definition, sort_keys=True, default=str).encode()
        ).hexdigest()[:16]

    def command(self, target: Resolved) -> str:
        """A ``dpfuzz audit`` command line that reruns this audit alone."""
        import shlex

        parts = [
            "dpfuzz",
            "audit",
            str(self.target.entry or self.target.mechanism or self.target.library),
        ]
        if self.target.mechanism is not None or self.target.claim:
            parts += [
                f"--{name}={value}"
                for name, value in target.claim.to_dict().items()
                if name != "type"
            ]
        for name, value in (self.target.domain or {}).items():
            parts.append(f"--{name.replace('_', '-')}={value}")
        parts += [
            f"--param={name}={json.dumps(value)}" for name, value in self.target.params.items()
        ]
        parts += ["--per-call"] if self.target.per_call else []
        parts += ["--structured"] if self.target.structured else []
        parts += [
            f"--budget={self.budget}",
            f"--tester={target.tester if self.tester == 'entry' else self.tester}",
        ]
        parts += [f"--finder={self.finder}", f"--seed={self.seed}"]
        for name, value in self.settings.items():
            flag = f"--{name.replace('_', '-')}"
            if isinstance(value, bool):  # a switch (--sharpen): given when true
                parts += [flag] if value else []
            else:
                parts.append(f"{flag}={value}")
        return " ".join(shlex.quote(part) for part in parts)

    def summary(self) -> AuditRow:
        """The start of the audit's stored summary row: what identifies it."""
        return AuditRow(
            key=self.key,
            target=self.target.name,
            params=self.target.params,
            finder=self.finder,
            seed=self.seed,
            truth=self.target.truth,
            tester=self.tester,
        )

    def audit_settings(self, tester: str) -> AuditSettings:
        return AuditSettings.build(
            budget=self.budget, tester=tester, finder=self.finder, seed=self.seed, **self.settings
        )


@dataclass(frozen=True)
class CampaignConfig:
    targets: tuple[Target, ...]
    finders: tuple[str, ...] = ("random",)
    seeds: tuple[int, ...] = (0,)
    budget: str = "quick"
    tester: str = "entry"
    settings: dict = field(default_factory=dict)
    allow_inconclusive: bool = False
    audit_timeout: float = AUDIT_TIMEOUT

    def audits(self) -> list[AuditSpec]:
        return [
            AuditSpec(
                target, target.tester or self.tester, finder, seed, self.budget, dict(self.settings)
            )
            for target in self.targets
            for finder in self.finders
            for seed in self.seeds
        ]

    def imports(self) -> list[str]:
        """The ``module:attribute`` names its targets import (catalogue entries by bare name import
        none)."""
        names = (
            target.entry or target.mechanism or target.library or "" for target in self.targets
        )
        return sorted({name for name in names if ":" in name})

    @property
    def beta(self) -> float:
        return self.settings.get(
            "beta", BUDGETS[self.budget].beta if self.budget in BUDGETS else 0.05
        )

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "beta": self.beta}

    @classmethod
    def from_dict(cls, data: dict) -> CampaignConfig:
        try:
            targets = tuple(Target(**target) for target in data["targets"])
            return cls(
                targets,
                tuple(data["finders"]),
                tuple(data["seeds"]),
                data["budget"],
                data["tester"],
                dict(data["settings"]),
                bool(data.get("allow_inconclusive", False)),
                float(data.get("audit_timeout", AUDIT_TIMEOUT)),
            )
        except (KeyError, TypeError) as error:
            raise ConfigError(
                f"this run's stored config was written by another dpfuzz version ({error}); start a"
                " new run."
            ) from None


def catalogue_targets() -> list[Target]:
    from dpfuzz.catalogue import catalogue

    return [Target(name=item.name, entry=item.name) for item in catalogue()]


def load_config(path: str | Path | None) -> CampaignConfig:
    """The config in a TOML file, or the default (whole catalogue); validated before returning."""
    if path is None:
        # the catalogue's (ε, δ) entries need more outputs than the default budget's to test δ
        # (0025)
        config = CampaignConfig(
            targets=tuple(catalogue_targets()), budget="default", allow_inconclusive=True
        )
    else:
        data = _read_toml(Path(path))
        config, problems = _parse(data)
        validate(config, str(path), problems)
        return config
    validate(config, "the default campaign")
    return config


# A campaign config larger than this is not a config (a device, a log named by mistake).
LARGEST_CONFIG = 10 * 2**20


def _read_toml(path: Path) -> dict:
    """The TOML document in the regular file `path`, or a `ConfigError` that says why not."""
    name = repr(str(path))
    if not path.exists():
        raise ConfigError(f"config file {name} does not exist.")
    if not path.is_file():
        raise ConfigError(f"config file {name} is not a regular file; give a TOML file.")
    try:
        with path.open("rb") as file:
            raw = file.read(LARGEST_CONFIG + 1)
    except OSError as error:
        raise ConfigError(f"config file {name} cannot be read: {error.strerror}.") from None
    if len(raw) > LARGEST_CONFIG:
        raise ConfigError(
            f"config file {name} is over {LARGEST_CONFIG // 2**20} MiB: not a config."
        )
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"config file {name} is not UTF-8 text ({error.reason}).") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"config file {name} is not valid TOML: {error}") from None


def _is_table(value) -> bool:
    """A TOML table ([name]) or array of tables ([[name]])."""
    return isinstance(value, dict) or (
        isinstance(value, list) and bool(value) and all(isinstance(item, dict) for item in value)
    )


def _parse(data: dict) -> tuple[CampaignConfig, list[str]]:
    """The config a TOML table describes (its well-formed parts), and its problems."""
    tables = [key for key, value in data.items() if key not in _TOP_KEYS and _is_table(value)]
    problems = unknown_keys([key for key in data if key not in tables], _TOP_KEYS, "config")
    problems += [
        "config: unknown table"
        f" {'[' + key + ']' if isinstance(data[key], dict) else '[[' + key + ']]'}: settings"
        " (budget, seeds, finders, tester, trials, …) go at the top of the file, outside any"
        " table, and each target is a [[target]] table"
        for key in tables
    ]
    targets: list[Target] = []
    raw_targets = data.get("target", [])
    if not isinstance(raw_targets, list) or not all(isinstance(t, dict) for t in raw_targets):
        problems.append("'target' must be an array of tables: write [[target]] (two brackets)")
        raw_targets = []
    for index, raw in enumerate(raw_targets, start=1):
        parsed, wrong = _parse_target(raw, f"target {index}")
        targets += parsed
        problems += wrong
    if "target" in data and not raw_targets:
        problems.append(
            "'target = []' names no target: add [[target]] tables (catalogue = true audits the"
            " whole catalogue)"
        )
    if not data:
        problems.append(
            "the config is empty: add [[target]] tables, or run without a config to audit the whole"
            " catalogue"
        )
    if not targets and not problems:
        targets = catalogue_targets()
    seeds, finders, allow, timeout = _parse_runs(data, problems)
    config = CampaignConfig(
        _distinct_names(targets),
        tuple(finders),
        tuple(seeds),
        data.get("budget", "quick"),
        data.get("tester", "entry"),
        {key: data[key] for key in SETTING_KEYS if key in data},
        allow,
        float(timeout),
    )
    return config, problems


def _parse_target(raw: dict, where: str) -> tuple[list[Target], list[str]]:
    """The targets one [[target]] table describes (the whole catalogue for ``catalogue =
    true``), or its problems."""
    unknown = unknown_keys(raw, _TARGET_KEYS, where)
    mistyped = [
        f"{where}: {key} must be {kind}, got {raw[key]!r}"
        for key, kind in _TARGET_TYPES.items()
        if key in raw and not isinstance(raw[key], str if kind == "a string" else bool)
    ]
    if unknown or mistyped:
        return [], unknown + mistyped
    if raw.get("catalogue"):
        return catalogue_targets(), []
    if sum(key in raw for key in ("entry", "mechanism", "library")) != 1:
        return [], [
            f"{where}: give exactly one of 'entry', 'mechanism', 'library' or 'catalogue = true'"
        ]
    if "mechanism" in raw and "claim" not in raw:
        return [], [
            f"{where} ({raw['mechanism']}): a user mechanism needs a 'claim' table, e.g. claim"
            ' = { type = "PureDP", epsilon = 1.0 }'
        ]
    name = raw.get("name") or raw.get("entry") or raw.get("mechanism") or raw["library"]
    wrong = [
        f"{where} ({name}): {key} must be a table, e.g. {example}; got {raw[key]!r}"
        for key, example in _TABLES.items()
        if key in raw and not isinstance(raw[key], dict)
    ]
    if wrong:
        return [], wrong
    fields = {
        key: raw[key]
        for key in _TARGET_KEYS
        if key in raw and key not in ("params", "catalogue", "name")
    }
    return [Target(name=name, params=dict(raw.get("params", {})), **fields)], []


def _parse_runs(data: dict, problems: list[str]) -> tuple[list, list, bool, float]:
    """The seeds, finders, ``allow_inconclusive`` and ``audit_timeout`` of a config, each
    replaced by its default when malformed (the problem appended to `problems`)."""
    seeds, finders = data.get("seeds", [0]), data.get("finders", ["random"])
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(
            isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 for seed in seeds
        )
    ):
        problems.append(f"seeds must be a non-empty list of non-negative ints, got {seeds!r}")
        seeds = [0]
    from dpfuzz.finders import FINDER_NAMES

    if (
        not isinstance(finders, list)
        or not finders
        or not all(isinstance(finder, str) for finder in finders)
    ):
        problems.append(
            f"finders must be a non-empty list of finder names ({', '.join(FINDER_NAMES)}), got"
            f" {finders!r}"
        )
        finders = ["random"]
    allow = data.get("allow_inconclusive", False)
    if not isinstance(allow, bool):
        problems.append(f"allow_inconclusive must be true or false, got {allow!r}")
        allow = False
    timeout = data.get("audit_timeout", AUDIT_TIMEOUT)
    try:
        check_seconds("audit_timeout", timeout)
    except InvalidArgument as error:
        problems.append(str(error).rstrip("."))
        timeout = AUDIT_TIMEOUT
    return seeds, finders, allow, float(timeout)


def _distinct_names(targets: list[Target]) -> tuple[Target, ...]:
    """Targets that share a display name but differ get '#2', '#3' … so reports tell them apart."""
    seen: dict[str, int] = {}
    named = []
    for target in targets:
        seen[target.name] = seen.get(target.name, 0) + 1
        named.append(
            target
            if seen[target.name] == 1
            else dataclasses.replace(target, name=f"{target.name} #{seen[target.name]}")
        )
    return tuple(named)


def _part_problems(target: Target) -> list[str]:
    """The problems of a target's claim and domain tables, each built on its own, and, where
    either has one, those of the rest of the target (its import, its parameters) built with a
    stand-in for the broken parts."""
    from dpfuzz.claims import claim_from_dict

    problems: list[str] = []
    stand_ins: dict[str, Any] = {}
    builds = (("claim", lambda: claim_from_dict(target.claim or {})), ("domain", target._domain))
    for part, build in builds:
        if getattr(target, part):
            try:
                build()
            except DPFuzzError as error:
                problems.append(str(error))
                stand_ins[part] = {"type": "PureDP", "epsilon": 1.0} if part == "claim" else {}
    if stand_ins:
        try:
            dataclasses.replace(target, **stand_ins).build()
        except (LibraryMissing, TargetBuildError):
            pass
        except DPFuzzError as error:
            problems.append(str(error))
    return problems


def validate(
    config: CampaignConfig, source: str = "the campaign config", problems: list[str] | None = None
) -> None:
    """Build every target and settings value, so all problems (with those already found in
    `problems`) are reported together, before any audit starts."""
    from dpfuzz.auditing import check_max_draws, check_memory
    from dpfuzz.engine.policy import AuditPolicy
    from dpfuzz.testers import TESTER_NAMES, make_tester

    problems = list(problems or [])
    try:
        settings = AuditSettings.build(budget=config.budget, **config.settings)
        check_memory(settings)
        check_max_draws(settings, None, AuditPolicy())
    except DPFuzzError as error:
        problems.append(str(error))
    for finder in dict.fromkeys(config.finders):
        try:
            AuditSettings(finder=finder)
        except DPFuzzError as error:
            problems.append(str(error))
    for target in config.targets:
        tester = target.tester or config.tester
        try:
            check_choice(f"{target.name}: tester", tester, ("entry", "auto", *TESTER_NAMES))
            if target.truth is not None:
                check_choice(f"{target.name}: truth", target.truth, TRUTHS)
            parts = _part_problems(target)
            if parts:  # the claim's and the domain's problems together, before the target's own
                problems += [
                    p if p.startswith(target.name) else f"{target.name}: {p}" for p in parts
                ]
                continue
            resolved = target.build()
            if tester not in ("entry", "auto"):
                make_tester(tester, resolved.claim)
        except (
            LibraryMissing,
            TargetBuildError,
        ):  # not config problems: the audit is skipped, or stored as an error
            continue
        except DPFuzzError as error:
            problems.append(
                str(error) if str(error).startswith(target.name) else f"{target.name}: {error}"
            )
    seen: dict[str, AuditSpec] = {}
    for spec in config.audits():
        if spec.digest in seen:
            problems.append(
                f"{spec.target.name} is the same audit as {seen[spec.digest].target.name} (finder"
                f" {spec.finder}, seed {spec.seed}): it is listed twice; remove one"
            )
        seen.setdefault(spec.digest, spec)
    if problems:
        raise ConfigError(f"{source} has problems:\n  - " + "\n  - ".join(dict.fromkeys(problems)))


def run_audit(spec: AuditSpec) -> tuple[str, AuditRow, dict | None]:
    """Run one audit (in any process): (key, summary row, full report or None on error).

    An error of dpfuzz's own kind (the mechanism raised, a setting does not suit this target)
    becomes this audit's outcome, so one bad target never stops a campaign.
    """
    from dpfuzz.auditing import audit

    start = time.perf_counter()
    summary = spec.summary()
    try:
        target = spec.target.build()
        tester = target.tester if spec.tester == "entry" else spec.tester
        claim = target.claim
        summary = replace(
            summary,
            claim=claim.describe(),
            claim_type=type(claim).__name__,
            claimed_epsilon=getattr(claim, "epsilon", None),
            truth=target.truth,
            tester=tester,
        )
        report = audit(target.mechanism, claim, target.domain, spec.audit_settings(tester))
    except LibraryMissing as error:
        skipped = replace(summary, claim="?", claimed_epsilon=None)
        return (
            spec.key,
            skipped.ended(Outcome.SKIPPED, str(error), time.perf_counter() - start),
            None,
        )
    except DPFuzzError as error:
        return spec.key, summary.ended(Outcome.ERROR, str(error), time.perf_counter() - start), None
    summary = replace(
        summary,
        tester=report.tester,
        violated=report.violated,
        epsilon_lower_bound=report.epsilon_lower_bound,
        bound=report.bound,
        threshold=report.threshold,
        trials_to_witness=report.witness_trial,
        draws=report.draws,
        power=report.power_text(),
        outcome=outcome_of(target.truth, report.verdict),
        inconclusive=report.inconclusive,
        seconds=time.perf_counter() - start,
    )
    report = dataclasses.replace(report, reproduce=spec.command(target))
    return spec.key, summary, {**report.to_dict(), "html": report.to_html()}


outcome = outcome_of  # the name the CLI and earlier code import


def row(spec: AuditSpec, finished: Finished) -> tuple[str, AuditRow, dict | None]:
    """The stored (key, summary, report) of `spec`'s audit as its supervisor returned it: the
    audit's own, or a row saying how its process ended; with what it printed."""
    if finished.result is not None:
        key, summary, report = finished.result
    else:
        ended = finished.ended
        assert ended is not None  # the supervisor returns a result or how the process ended
        key, report = spec.key, None
        summary = spec.summary().ended(ended.outcome, ended.reason, ended.seconds)
    quote = finished.result is None
    return key, with_output(summary, finished.output_bytes, finished.output, quote), report


def run_campaign(
    config: CampaignConfig,
    store: ResultsStore,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    run_id: int | None = None,
    on_result: Callable[[dict, int, int], None] | None = None,
    worker_wait: float = WORKER_WAIT,
) -> int:
    """Run every audit not yet in the store for `run_id` (a new run when None); returns the run id.
    With a Dask `scheduler`, it must have a worker within `worker_wait` seconds."""
    if run_id is None:
        run_id = store.new_run(config.to_dict())
    store.lock_run(run_id)
    done = store.finished_keys(run_id)
    pending = [spec for spec in config.audits() if spec.key not in done]
    total = len(config.audits())
    finished = len(done)
    by_key = {spec.key: spec for spec in pending}
    try:
        for audit in _execute(pending, workers, scheduler, config.audit_timeout, worker_wait):
            key, summary, report = row(by_key[audit.key], audit)
            store.record(run_id, key, summary, report)
            finished += 1
            if on_result is not None:
                on_result(summary.to_dict(), finished, total)
    except ClusterLost as lost:
        lost.run_id = run_id
        raise
    return run_id


def _execute(
    specs: list[AuditSpec],
    workers: int,
    scheduler: str | None,
    audit_timeout: float,
    worker_wait: float,
) -> Iterable[Finished]:
    if not specs:
        return
    if scheduler is not None:
        yield from _execute_dask(specs, scheduler, audit_timeout, worker_wait)
    else:
        from dpfuzz.isolation import run_isolated

        yield from run_isolated(specs, max(workers, 1), audit_timeout, run_audit)


def run_isolated_audit(spec: AuditSpec, audit_timeout: float) -> Finished | None:
    """`run_audit` in its own process, at most `audit_timeout` seconds (a Dask task); None,
    its process killed, once the campaign cancels the task."""
    from dpfuzz.cluster import task_cancelled
    from dpfuzz.isolation import run_in_subprocess

    return run_in_subprocess(spec, audit_timeout, run_audit, abandoned=task_cancelled)


def _execute_dask(
    specs: list[AuditSpec], scheduler: str, audit_timeout: float, worker_wait: float
) -> Iterable[Finished]:
    """Each audit a Dask task that runs it isolated (`run_in_subprocess`, which turns what the
    mechanism does into the audit's outcome). A task that ends without a result (its worker
    died, the scheduler was lost) is the cluster's failure, not the audit's: it stays pending,
    and `ClusterLost` says how many once the results that did arrive are passed on."""
    from dpfuzz.cluster import dask_client

    lost: list[str] = []
    with dask_client(scheduler, worker_wait) as client:
        from dask.distributed import as_completed as dask_completed

        futures = {
            client.submit(run_isolated_audit, spec, audit_timeout, pure=False, retries=0): spec
            for spec in specs
        }
        try:
            for future in dask_completed(futures):
                try:
                    result = future.result()
                except Exception as error:  # KilledWorker, CancelledError, a lost connection
                    lost.append(f"{type(error).__name__}: {error}")
                    continue
                if result is not None:  # None: a task the campaign let go
                    yield result
        except (OSError, TimeoutError) as error:  # the scheduler's connection, while waiting
            lost.append(f"{type(error).__name__}: {error}")
        finally:
            with suppress(Exception):  # the scheduler may be gone
                client.cancel(list(futures))
    if lost:
        raise ClusterLost(
            f"the Dask cluster ended {len(lost)} of {len(specs)} audits without a result"
            f" ({lost[0]}); they stay pending"
        )
