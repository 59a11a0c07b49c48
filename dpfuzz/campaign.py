"""Campaigns: many audits from one TOML config, run locally or on Dask, stored as they finish.

A config (all keys optional; with no config the whole catalogue is audited)::

    budget = "quick"            # or "thorough" (see dpfuzz.testing.BUDGETS)
    trials = 10                 # optional: override the budget's trials …
    samples = 20000             # … and samples per trial
    beta = 0.05                 # per audit
    seeds = [0]
    finders = ["random"]
    tester = "entry"            # each catalogue entry's own tester; or "auto" or a tester name

    [[target]]
    entry = "SVT3"              # a catalogue entry …
    params = { epsilon = 0.5, form = "dataset" }

    [[target]]
    mechanism = "my_module:make_mechanism"        # … or your own factory / mechanism
    claim = { type = "PureDP", epsilon = 1.0 }
    domain = { low = 0.0, high = 1.0, max_size = 10 }
    truth = "satisfies"         # optional: what you expect, for the report's verdicts

    [[target]]
    catalogue = true            # every catalogue entry at its defaults

Every audit is targets × finders × seeds; each gets a stable key, so a resumed run skips the
audits already in the store.
"""

from __future__ import annotations

import dataclasses
import json
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from dpfuzz.claims import claim_from_dict
from dpfuzz.datasets import Domain
from dpfuzz.errors import ConfigError, DPFuzzError
from dpfuzz.finders import FINDER_NAMES
from dpfuzz.store import ResultsStore
from dpfuzz.targets import is_mechanism, load_attribute
from dpfuzz.testers import TESTERS, make_tester
from dpfuzz.testing import BUDGETS, audit_with_budget

_TOP_KEYS = {"budget", "trials", "samples", "beta", "seeds", "finders", "tester", "target"}
_TARGET_KEYS = {"entry", "mechanism", "params", "claim", "domain", "truth", "tester", "catalogue", "name"}


@dataclass(frozen=True)
class Target:
    """What to audit: a catalogue entry with parameters, or a user's mechanism with its claim."""

    name: str
    entry: str | None = None
    mechanism: str | None = None
    params: dict = field(default_factory=dict)
    claim: dict | None = None
    domain: dict | None = None
    truth: str | None = None
    tester: str | None = None

    def build(self):
        """(mechanism, claim, domain, expected truth or None, suited tester)."""
        if self.entry is not None:
            from mechanisms import entry as catalogue_entry

            item = catalogue_entry(self.entry)
            truth = item.truth(**self.params).satisfies
            expected = None if truth is None else ("satisfies" if truth else "violates")
            return item(**self.params), item.claim(**self.params), item.domain(**self.params), expected, item.tester
        target = load_attribute(self.mechanism)
        mechanism = target if is_mechanism(target) else target(**self.params)
        return mechanism, claim_from_dict(self.claim), Domain(**(self.domain or {})), self.truth, "auto"


@dataclass(frozen=True)
class AuditSpec:
    """One audit of a campaign; picklable, so it can run in another process or on Dask."""

    target: Target
    tester: str
    finder: str
    seed: int
    budget: str
    beta: float
    trials: int | None = None
    samples: int | None = None

    @property
    def key(self) -> str:
        params = json.dumps(self.target.params, sort_keys=True)
        return f"{self.target.name}|{params}|{self.tester}|{self.finder}|{self.seed}"


@dataclass(frozen=True)
class CampaignConfig:
    targets: tuple[Target, ...]
    finders: tuple[str, ...] = ("random",)
    seeds: tuple[int, ...] = (0,)
    budget: str = "quick"
    beta: float = 0.05
    tester: str = "entry"
    trials: int | None = None
    samples: int | None = None

    def audits(self) -> list[AuditSpec]:
        return [
            AuditSpec(target, target.tester or self.tester, finder, seed, self.budget, self.beta, self.trials, self.samples)
            for target in self.targets
            for finder in self.finders
            for seed in self.seeds
        ]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "CampaignConfig":
        targets = tuple(Target(**target) for target in data["targets"])
        fields = {key: data[key] for key in ("budget", "beta", "tester", "trials", "samples")}
        return cls(targets, tuple(data["finders"]), tuple(data["seeds"]), **fields)


def catalogue_targets() -> list[Target]:
    from mechanisms import catalogue

    return [Target(name=item.name, entry=item.name) for item in catalogue()]


def load_config(path: str | Path | None) -> CampaignConfig:
    """The config in a TOML file, or the default (whole catalogue); validated before returning."""
    if path is None:
        config = CampaignConfig(targets=tuple(catalogue_targets()))
    else:
        try:
            data = tomllib.loads(Path(path).read_text())
        except FileNotFoundError as error:
            raise ConfigError(f"config file {str(path)!r} does not exist.") from error
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"config file {str(path)!r} is not valid TOML: {error}") from error
        config = _parse(data, str(path))
    validate(config)
    return config


def _parse(data: dict, source: str) -> CampaignConfig:
    problems = [f"unknown key {key!r} (known: {sorted(_TOP_KEYS)})" for key in sorted(set(data) - _TOP_KEYS)]
    targets: list[Target] = []
    for index, raw in enumerate(data.get("target", []), start=1):
        unknown = set(raw) - _TARGET_KEYS
        if unknown:
            problems.append(f"target {index}: unknown keys {sorted(unknown)} (known: {sorted(_TARGET_KEYS)})")
            continue
        if raw.get("catalogue"):
            targets.extend(catalogue_targets())
        elif ("entry" in raw) == ("mechanism" in raw):
            problems.append(f"target {index}: give exactly one of 'entry', 'mechanism' or 'catalogue = true'")
        elif "mechanism" in raw and "claim" not in raw:
            problems.append(f"target {index} ({raw['mechanism']}): a user mechanism needs a 'claim' table")
        else:
            name = raw.get("name") or raw.get("entry") or raw["mechanism"]
            fields = {key: raw[key] for key in ("entry", "mechanism", "claim", "domain", "truth", "tester") if key in raw}
            targets.append(Target(name=name, params=dict(raw.get("params", {})), **fields))
    if not targets and not problems:
        targets = catalogue_targets()
    if problems:
        raise ConfigError(f"config {source!r} has problems:\n  - " + "\n  - ".join(problems))
    seeds = data.get("seeds", [0])
    finders = data.get("finders", ["random"])
    if not isinstance(seeds, list) or not all(isinstance(seed, int) and seed >= 0 for seed in seeds) or not seeds:
        raise ConfigError(f"config {source!r}: seeds must be a non-empty list of non-negative ints, got {seeds!r}.")
    if not isinstance(finders, list) or not finders:
        raise ConfigError(f"config {source!r}: finders must be a non-empty list of names, got {finders!r}.")
    return CampaignConfig(
        tuple(targets),
        tuple(finders),
        tuple(seeds),
        data.get("budget", "quick"),
        data.get("beta", 0.05),
        data.get("tester", "entry"),
        data.get("trials"),
        data.get("samples"),
    )


def validate(config: CampaignConfig) -> None:
    """Build every target and check every name, so errors appear before any audit starts."""
    problems = []
    if config.budget not in BUDGETS:
        problems.append(f"budget {config.budget!r} is not one of {sorted(BUDGETS)}")
    if not isinstance(config.beta, (int, float)) or not 0 < config.beta < 1:
        problems.append(f"beta must be in (0, 1), got {config.beta!r}")
    for name, minimum in (("trials", 1), ("samples", 10)):
        value = getattr(config, name)
        if value is not None and (not isinstance(value, int) or value < minimum):
            problems.append(f"{name} must be an int >= {minimum}, got {value!r}")
    for finder in config.finders:
        if finder not in FINDER_NAMES:
            problems.append(f"finder {finder!r} is not one of {FINDER_NAMES}")
    for target in config.targets:
        tester = target.tester or config.tester
        if tester not in ("entry", "auto", *TESTERS):
            problems.append(f"{target.name}: tester {tester!r} is not 'entry', 'auto' or one of {list(TESTERS)}")
            continue
        try:
            _, claim, _, truth, suited = target.build()
            if tester not in ("entry", "auto"):
                make_tester(tester, claim)
            if target.truth not in (None, "satisfies", "violates"):
                problems.append(f"{target.name}: truth must be 'satisfies' or 'violates', got {target.truth!r}")
        except (DPFuzzError, KeyError, TypeError, ValueError, ImportError, AttributeError) as error:
            problems.append(f"{target.name}: {error}")
    if problems:
        raise ConfigError("the campaign config has problems:\n  - " + "\n  - ".join(problems))


def run_audit(spec: AuditSpec) -> tuple[str, dict, dict | None]:
    """Run one audit (in any process): (key, summary row, full report or None on error)."""
    start = time.perf_counter()
    mechanism, claim, domain, truth, suited = spec.target.build()
    tester = suited if spec.tester == "entry" else spec.tester
    summary = {
        "key": spec.key,
        "target": spec.target.name,
        "params": spec.target.params,
        "claim": claim.describe(),
        "claimed_epsilon": claim.epsilon,
        "tester": tester,
        "finder": spec.finder,
        "seed": spec.seed,
        "truth": truth,
    }
    try:
        report = audit_with_budget(
            mechanism,
            claim,
            domain,
            budget=spec.budget,
            trials=spec.trials,
            samples=spec.samples,
            beta=spec.beta,
            tester=tester,
            finder=spec.finder,
            seed=spec.seed,
        )
    except DPFuzzError as error:
        return spec.key, {**summary, "outcome": "error", "error": str(error), "seconds": time.perf_counter() - start}, None
    witness_trial = next(
        (record.trial for record in report.history if report.candidate in (record.pair, record.pair.swapped())), None
    )
    summary.update(
        tester=report.tester,
        violated=report.violated,
        epsilon_lower_bound=report.epsilon_lower_bound,
        bound=report.bound,
        threshold=report.threshold,
        trials_to_witness=None if witness_trial is None else witness_trial + 1,
        outcome=outcome(truth, report.violated),
        seconds=time.perf_counter() - start,
    )
    return spec.key, summary, report.to_dict()


def outcome(truth: str | None, violated: bool) -> str:
    """caught / missed (a known bug not refuted) / false alarm (a correct one refuted) / ok / refuted / not refuted."""
    if truth == "violates":
        return "caught" if violated else "missed"
    if truth == "satisfies":
        return "false alarm" if violated else "ok"
    return "refuted" if violated else "not refuted"


def run_campaign(
    config: CampaignConfig,
    store: ResultsStore,
    *,
    workers: int = 1,
    scheduler: str | None = None,
    run_id: int | None = None,
    on_result: Callable[[dict, int, int], None] | None = None,
) -> int:
    """Run every audit not yet in the store for `run_id` (a new run when None); returns the run id."""
    if run_id is None:
        run_id = store.new_run(config.to_dict())
    done = store.finished_keys(run_id)
    pending = [spec for spec in config.audits() if spec.key not in done]
    total = len(config.audits())
    finished = len(done)
    for key, summary, report in _execute(pending, workers, scheduler):
        store.record(run_id, key, summary, report)
        finished += 1
        if on_result is not None:
            on_result(summary, finished, total)
    return run_id


def _execute(specs: list[AuditSpec], workers: int, scheduler: str | None) -> Iterable[tuple]:
    if not specs:
        return
    if scheduler is not None:
        yield from _execute_dask(specs, scheduler)
    elif workers <= 1:
        for spec in specs:
            yield run_audit(spec)
    else:
        with ProcessPoolExecutor(max_workers=workers, initializer=_one_thread_per_worker) as pool:
            for future in as_completed([pool.submit(run_audit, spec) for spec in specs]):
                yield future.result()


_THREAD_LIMITS = None


def _one_thread_per_worker() -> None:
    """Worker processes share the cores: one BLAS/OpenMP thread each, or they oversubscribe."""
    global _THREAD_LIMITS
    from threadpoolctl import threadpool_limits

    _THREAD_LIMITS = threadpool_limits(limits=1)


def _execute_dask(specs: list[AuditSpec], scheduler: str) -> Iterable[tuple]:
    try:
        from dask.distributed import Client, as_completed as dask_completed
    except ImportError as error:
        raise ConfigError(
            "--scheduler needs Dask's distributed engine: pip install 'dpfuzz[distributed]'."
        ) from error
    with Client(scheduler) as client:
        futures = [client.submit(run_audit, spec, pure=False) for spec in specs]
        for future in dask_completed(futures):
            yield future.result()
