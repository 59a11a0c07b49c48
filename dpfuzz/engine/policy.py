"""The engine's tuning numbers as frozen policy values that callers, tests and benchmarks pass.

Each field says in one line what it trades off and links the decision record holding the
evidence for its value (``docs/decisions/``). A policy changes how draws are spent, never the
false-alarm guarantee: every certificate keeps its level β whatever the policy.

>>> from dpfuzz.engine import EstimationPolicy
>>> EstimationPolicy(search_trials=6).search_trials
6
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import CHUNK_VALUES
from dpfuzz.validation import check_int, check_number, check_seconds


@dataclass(frozen=True)
class AuditPolicy:
    """How an audit spends draws outside its settings (probe, racing, looks, chunks, profile)."""

    probe_samples: int = 1_000
    """Outputs of the probe (at most the search's `samples`): enough to see the output shape and
    choose ``"auto"``'s tester, cheap beside the search (0015)."""
    probe_time_share: float = 0.05
    """Share of `max_seconds` the probe's outputs may take at most: a slow mechanism is probed on
    fewer outputs rather than spending the audit's time on them (0019)."""
    probe_min_samples: int = 20
    """Fewest probe outputs when `probe_time_share` limits them (0019)."""
    reproducibility_samples: int = 20
    """Outputs drawn twice with equal seeds to tell whether the mechanism takes its randomness
    from the rng it is passed (0015); their second call measures the call rate ``"auto"``
    sampling chooses by (0038)."""
    slow_max_seconds: float = 110.0
    """Wall-clock limit of an audit given neither `max_draws` nor `max_seconds` whose planned draws
    would take longer at the probe's pace: a slow release gets a bounded audit that says so, done
    within two minutes (110 s + 5%, the hard bound's margin) (0019)."""
    default_call_timeout: float = 600.0
    """Seconds one call of the mechanism may take in an audit given neither `call_timeout` nor
    `max_seconds`: a call that hangs ends the audit as inconclusive, naming the call, instead of
    waiting for ever (0030)."""
    delta_power_factor: float = 2.0
    """An (ε, δ) audit that does not refute its claim passes only if it would have refuted a
    release failing with probability `delta_power_factor` · δ; otherwise it is inconclusive. A
    violation of the claim's own size: a smaller factor asks for more outputs (0020)."""
    min_start: int = 200
    """Fewest outputs per side of a racing round's first samples (0010)."""
    start_divisor: int = 8
    """The first racing round samples each pair at cap / `start_divisor` per side: smaller starts
    try more pairs, larger ones rank them more surely (0010)."""
    racing_fill: bool = True
    """Where the tester fits events as cheaply as the outputs are drawn (`Tester.fits_cheaply`),
    an adaptive search with an open-ended finder proposes pairs beyond `trials` while the racing
    schedule still fits the nominal trials × samples per side: more pairs tried, and more draws
    for a claim that holds, within the budget the settings name (0017)."""
    race_first_samples: int = 16
    """Outputs per side each pair of a sequential race draws before its first event is fitted;
    also the fewest a round draws (0032)."""
    race_first_pairs: int = 4
    """Pairs of a sequential race's first bracket (the finders propose the relation's classic
    pairs first); each bracket after it takes twice as many, up to `trials` (0032)."""
    min_look: int = 1_000
    """Fewest outputs per side of a verification look before the last (0010)."""
    verify_chunk_values: int = CHUNK_VALUES
    """Output values per side a counting verification holds at once: memory against per-call
    overhead (0009)."""
    deadline_floor: int = 1_000
    """Outputs per side a verification draws even past its deadline, so that a timed audit still
    certifies something (0009)."""
    deadline_pace_share: float = 0.9
    """Share of the time left a verification chunk is sized to take at the pace so far: a margin
    for pace that varies chunk to chunk (0009)."""
    profile_min_samples: int = 2_000
    """Fewest verification outputs per side for a privacy profile in the report (0009)."""
    profile_max_samples: int = 1_000_000
    """Verification outputs per side the privacy profile is computed on, at most: its sorts cost
    time that grows with them (0009)."""
    worker_switch_interval: float = 0.1
    """Seconds a chunk counted on a Dask worker keeps the interpreter before the worker's event
    loop may take it: per-call draws run faster, the worker's heartbeats wait at most this long
    (0022)."""

    def __post_init__(self) -> None:
        for name in (
            "probe_samples",
            "probe_min_samples",
            "reproducibility_samples",
            "min_start",
            "min_look",
            "race_first_samples",
            "race_first_pairs",
            "verify_chunk_values",
            "deadline_floor",
            "profile_min_samples",
            "profile_max_samples",
        ):
            check_int(name, getattr(self, name), minimum=1)
        check_int("start_divisor", self.start_divisor, minimum=1)
        if not isinstance(self.racing_fill, bool):
            raise InvalidArgument(f"racing_fill must be True or False, got {self.racing_fill!r}.")
        check_number(
            "deadline_pace_share",
            self.deadline_pace_share,
            minimum=0.0,
            maximum=1.0,
            exclusive_minimum=True,
        )
        check_number("slow_max_seconds", self.slow_max_seconds, minimum=0.0, exclusive_minimum=True)
        check_seconds("default_call_timeout", self.default_call_timeout)
        check_number(
            "delta_power_factor", self.delta_power_factor, minimum=1.0, exclusive_minimum=True
        )
        check_number(
            "worker_switch_interval",
            self.worker_switch_interval,
            minimum=0.0,
            exclusive_minimum=True,
        )
        check_number(
            "probe_time_share",
            self.probe_time_share,
            minimum=0.0,
            maximum=1.0,
            exclusive_minimum=True,
        )

    @property
    def probe_draws(self) -> int:
        """Draws of the probe at most: twice the reproducibility check, then the probe's outputs."""
        return 2 * self.reproducibility_samples + self.probe_samples

    @property
    def smallest_audit_draws(self) -> int:
        """Draws of the smallest adaptive audit with its whole probe: the probe, then `min_start`
        outputs per side for one pair and for its verification."""
        return self.probe_draws + 4 * self.min_start

    @property
    def smallest_race_draws(self) -> int:
        """Draws of the smallest sequential audit: its probe (the reproducibility check's two
        calls of `probe_min_samples` outputs, or fewer and then the probe's own, as in
        `engine.probe`), then one pair's first round and one round bet on."""
        check = min(self.reproducibility_samples, self.probe_min_samples)
        own = 0 if check == self.probe_min_samples else self.probe_min_samples
        return 2 * check + own + 4 * self.race_first_samples


@dataclass(frozen=True)
class EstimationPolicy:
    """How `estimate_epsilon` splits its draws and its time between search, fit and certificate."""

    default_max_draws: int = 4_000_000
    """Draws of an estimate given neither `max_draws` nor `max_seconds` (0002)."""
    largest_max_draws: int = 10_000_000_000
    """The largest `max_draws` an estimate accepts, and the ceiling of a timed one's: 10^10
    draws take minutes at 10^8 outputs per second and hours at 10^6 (0030)."""
    verify_share: float = 0.6
    """Least share of one pair's draws that certifies its event: the estimate is that one test's
    bound, so its outputs set the bound's width (0002)."""
    max_fit_samples: int = 3_000_000
    """Outputs per side one pair's event is fitted and selected on, at most (0002)."""
    large_fit_share: float = 0.05
    """Share of a large budget that fits the event, where that is above `max_fit_samples` (0002)."""
    largest_fit_samples: int = 10_000_000
    """The largest fit, however large the budget (0002)."""
    scalar_fit_samples: int = 1_000_000
    """Fitting outputs per side for one number per draw, at most: a threshold needs fewer than a
    classifier, and the rest certify (0003)."""
    scalar_fit_share: float = 1 / 13
    """Share of the outputs that fits one-number outputs, where that is above
    `scalar_fit_samples` (0003)."""
    search_trials: int = 10
    """Pairs tried when an estimate searches a `Domain` (0004)."""
    search_share: float = 0.5
    """Share of the draws that chooses the pair among several: a surer choice against a smaller
    final certification (0004)."""
    search_verify: int = 1_000
    """Outputs per side of the search audit's own (unused) verification (0004)."""
    final_size_search: int = 600_000
    """Outputs per side of each pair from which a search chooses events for the final
    certification's size rather than its held-out half's (0005)."""
    pilot_factor: int = 2
    """The first pilot of a timed estimate draws this many times the smallest budget (0006)."""
    pilot_growth: int = 4
    """Each pilot draws this many times the one before (0006)."""
    pilot_share: float = 0.15
    """Share of the time all pilots may take once their pace per draw is measured (0006)."""
    unmeasured_pilot_share: float = 0.5
    """Share of the time the pilots may take while fixed costs hide the pace per draw (0006)."""
    time_share: float = 0.5
    """Share of the time left that the main estimate's fit and search are planned for; the
    certification draws in the rest (0006)."""
    deadline_share: float = 0.95
    """Share of `max_seconds` at which the certification stops drawing (0006)."""
    report_seconds: float = 0.25
    """Seconds kept after the deadline for the report, at least (0006)."""
    affine_power: float = 0.1
    """Pilot times growing as draws^k with k at least this are taken for an affine pace (0006)."""
    affine_gain: float = 3
    """An affine pace is trusted up to this many times the proportional plan (0006)."""
    max_pace_power: float = 1.5
    """Pilot times are extrapolated as draws^k with k at most this: large samples cost more per
    draw (sorting, memory traffic), but one slow pilot may not shrink the plan without bound
    (0006)."""
    measured_pace_power: float = 0.5
    """Pilots whose times grow at least as draws^this have a measured pace per draw, and take at
    most `pilot_share` of the time; below it, `unmeasured_pilot_share` (0006)."""
    pace_first_draws: int = 10
    """The pace measurement's first call on each dataset draws this many, untimed: it pays the
    one-time costs, a worker pool or a library's setup (0006)."""
    pace_draws: int = 100
    """Its first timed call draws this many outputs, each next call `pilot_growth` times more
    (0006)."""
    pace_call_seconds: float = 0.1
    """The pace is measured on the first call that takes at least this long (0006)."""
    pace_max_draws: int = 100_000
    """The pace is also measured on a call of this many outputs, however fast it was (0006)."""
    drawn_share: float = 0.8
    """Share of the time a mechanism too slow for pilots is planned for, at its own pace (0006)."""
    verify_stretch: float = 4
    """A timed certification draws until the deadline, up to this many times the draws the whole
    time left affords at the pilots' pace (0007)."""
    verify_per_fit: float = 10 / 3
    """A timed estimate's event is chosen for at most this many verification outputs per fitting
    output, however many the clock lets it count (0007)."""
    audit: AuditPolicy = field(default_factory=AuditPolicy)
    """The policy of the audits the estimate runs (its probe, looks and chunks)."""

    def __post_init__(self) -> None:
        for name in (
            "default_max_draws",
            "largest_max_draws",
            "max_fit_samples",
            "largest_fit_samples",
            "scalar_fit_samples",
            "search_trials",
            "search_verify",
            "final_size_search",
            "pilot_factor",
            "pilot_growth",
            "pace_first_draws",
            "pace_draws",
            "pace_max_draws",
        ):
            check_int(name, getattr(self, name), minimum=1)
        for name in (
            "verify_share",
            "large_fit_share",
            "scalar_fit_share",
            "search_share",
            "pilot_share",
            "unmeasured_pilot_share",
            "time_share",
            "deadline_share",
            "drawn_share",
        ):
            check_number(
                name, getattr(self, name), minimum=0.0, maximum=1.0, exclusive_minimum=True
            )
        for name in ("report_seconds", "affine_power", "measured_pace_power", "pace_call_seconds"):
            check_number(name, getattr(self, name), minimum=0.0)
        for name in ("affine_gain", "verify_stretch", "verify_per_fit", "max_pace_power"):
            check_number(name, getattr(self, name), minimum=1.0)
        if not isinstance(self.audit, AuditPolicy):
            raise TypeError(f"audit must be an AuditPolicy, got {type(self.audit).__name__}.")


def policy_fields(policy: type) -> dict[str, str]:
    """Each field of a policy class with its description (`tests/test_architecture.py` checks each
    has one)."""
    import ast
    import inspect
    import textwrap

    (definition,) = ast.parse(textwrap.dedent(inspect.getsource(policy))).body
    assert isinstance(definition, ast.ClassDef)
    described, body = {}, definition.body
    for statement, following in zip(body, body[1:]):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
        ):
            described[statement.target.id] = " ".join(str(following.value.value).split())
    return {item.name: described.get(item.name, "") for item in fields(policy)}
