"""`audit`: does the mechanism keep its claim? The engine's search-then-certify pipeline
(`dpfuzz.engine`, Kong et al., DP-Auditorium, Algorithm 1) under the user's `AuditSettings`.

1. **Probe.** A few outputs on one dataset of the domain: their shape, the tester ``"auto"``
   stands for, the draw rate, and whether the run can be bit-reproducible (`engine.probe`).
2. **Search.** The finder proposes pairs; the tester ranks them on held-out estimates. With
   ``sampling="adaptive"`` the pairs race and the search ends early once a pair's own held-out
   test refutes the claim (`engine.search`); with ``"sequential"`` search and certification are
   one race certified by betting (`engine.race`, steps 2 and 3 at once). ``"auto"`` (default)
   chooses between them by the draws the budget affords (`engine.sampling`).
3. **Verify.** The best (pair, direction) has its event certified on fresh samples, in doubling
   looks that stop at the first refutation (adaptive) or in one look; with
   ``verify_directions="both"`` the other direction is certified on the same fresh outputs
   (`engine.certification`).

**False alarms.** Only verification can report a violation, and it never sees the samples its
event was chosen on; its looks and directions share β, so a correct mechanism is flagged with
probability at most β for the whole audit (docs/explanation/statistics.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dpfuzz.claims import Claim
from dpfuzz.domain import Domain
from dpfuzz.engine.budget import Budget
from dpfuzz.engine.pipeline import search_and_certify
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.policy import AuditPolicy
from dpfuzz.engine.probe import Probe, check_reproducible, probe
from dpfuzz.engine.race import check_sequential, race_refusal
from dpfuzz.engine.run import Run
from dpfuzz.engine.sampling import (
    can_race,
    check_size,
    probe_draws,
    probe_size,
    resolve_sampling,
)
from dpfuzz.errors import InvalidArgument, MechanismTooSlow
from dpfuzz.mechanism import Mechanism, output_words
from dpfuzz.memory import check_affordable
from dpfuzz.report import AuditReport
from dpfuzz.reporting import audit_report, too_slow_report
from dpfuzz.settings import AuditSettings
from dpfuzz.testers import Tester, make_tester


def audit(
    mechanism: Mechanism,
    claim: Claim,
    domain: Domain,
    settings: AuditSettings | None = None,
    *,
    progress: Callable[[str], None] | None = None,
    policy: AuditPolicy | None = None,
    dask_client: Any = None,
    **options: Any,
) -> AuditReport:
    """Search for neighbouring datasets on which `mechanism` violates `claim`, then certify.

    Parameters
    ----------
    mechanism : ``mechanism(dataset, num_samples, rng) -> array`` with leading axis num_samples.
    claim : `PureDP`, `ApproxDP` or `RenyiDP`.
    domain : where datasets live and which relation makes them neighbours.
    settings : an `AuditSettings`; or give its fields as keyword arguments (``trials=20``,
        ``max_seconds=60`` …), or ``budget="quick"`` / ``"thorough"`` for a preset.
    progress : called with a one-line status (stage, trial k of T, outputs drawn) as the audit
        goes; the command line shows it on a terminal.
    policy : the engine's tuning numbers (`dpfuzz.engine.AuditPolicy`); the default's are
        documented with their evidence in docs/decisions/.
    dask_client : a `dask.distributed.Client`: the certification's fresh outputs are drawn and
        counted on its workers, with the same bound as in this process (`dpfuzz.engine.chunks`).
    """
    settings = AuditSettings.build(settings, **options)
    policy = _checked(claim, domain, policy, settings)
    # a call that hangs ends an audit given no time at all, and the report says which call
    default_timeout = settings.call_timeout is None and settings.max_seconds is None
    budget = Budget(
        mechanism,
        settings.max_draws or fixed_draws(settings),
        settings.max_seconds,
        call_timeout=policy.default_call_timeout if default_timeout else settings.call_timeout,
    )
    run = Run(mechanism, claim, domain, budget, settings.seed, policy, progress, dask_client)
    check_max_draws(settings, claim, run.policy)
    try:
        probed, settings = _probed(run, settings)
        tester = audit_tester(settings, claim, probed.samples, mechanism)
        fill = run.policy.racing_fill and tester.fits_cheaply(probed.samples)
        plan = Plan.from_settings(settings, tester, fill_racing=fill)
        ending = search_and_certify(run, tester, plan, settings.finder, probed)
        return audit_report(run, tester, plan, settings, probed, ending)
    except MechanismTooSlow as slow:
        default = " (the default: AuditPolicy.default_call_timeout)" if default_timeout else ""
        return too_slow_report(run, settings, str(slow) + default)


def _probed(run: Run, settings: AuditSettings) -> tuple[Probe, AuditSettings]:
    """The probe's outputs, and `settings` with ``sampling="auto"`` resolved once the probe's
    reproducibility check has measured the call rate (`engine.sampling`); with neither a draw
    cap nor a time limit, a release too slow for the audit's default budget ends it
    (`limit_slow_release`)."""
    unbounded = settings.max_draws is None and settings.max_seconds is None
    time_limit = run.policy.slow_max_seconds if unbounded else settings.max_seconds
    check = check_reproducible(run, check_size(settings, run.claim, run.policy))
    settings, note = resolve_sampling(settings, run.claim, run.budget, time_limit, run.policy)
    if note:
        run.note(note)
    probed = probe(run, probe_size(settings.sampling, settings, run.policy), time_limit, check)
    check_memory(settings, probed.samples)
    if unbounded:
        limit_slow_release(run)
    return probed, settings


def _checked(
    claim: Claim, domain: Domain, policy: AuditPolicy | None, settings: AuditSettings
) -> AuditPolicy:
    """The policy (default: `AuditPolicy()`), once the arguments are checked: a wrong claim,
    domain, policy or memory need fails before any sampling."""
    if not isinstance(claim, Claim):
        fix = (
            f" For ε = {claim:g}, pass PureDP(epsilon={claim:g})."
            if isinstance(claim, (int, float))
            else ""
        )
        raise InvalidArgument(
            "claim must be a dpfuzz claim (PureDP, ApproxDP, RenyiDP, GaussianDP,"
            f" ZeroConcentratedDP), got {claim!r}.{fix}"
        )
    if not isinstance(domain, Domain):
        raise InvalidArgument(f"domain must be a dpfuzz.Domain, got {type(domain).__name__}.")
    if policy is not None and not isinstance(policy, AuditPolicy):
        raise InvalidArgument(
            f"policy must be a dpfuzz.AuditPolicy, got {type(policy).__name__}; build one with"
            " AuditPolicy(field=value, ...)."
        )
    if isinstance(settings.tester, Tester):
        settings.tester.check_claim(claim)
    if settings.sampling == "sequential":
        check_sequential(settings, claim)
    refusal = race_refusal(settings, claim) if settings.sharpen else None
    if refusal is not None:
        raise InvalidArgument(
            f"sharpen=True sharpens a race, and none can run: {refusal} Leave sharpen unset."
        )
    check_memory(settings)
    return policy or AuditPolicy()


TRIAL_BYTES = 4096  # memory one search trial's record keeps (pair, two results), at most


def check_memory(settings: AuditSettings, outputs: np.ndarray | None = None) -> None:
    """Refuse, before anything large is drawn, an audit whose search outputs (`samples` per side
    of a pair, with the probe's `outputs` for their size) or trial records would take more than
    half this machine's memory (`Domain` refuses datasets that would); the error names the
    setting and the memory it needs."""
    values = 1 if outputs is None else max(int(outputs[0].size), 1)
    check_affordable(
        [
            (
                "trials",
                settings.trials,
                settings.trials * TRIAL_BYTES,
                "the search's trial records",
            ),
            (
                "samples",
                settings.samples,
                2 * settings.samples * values * 8,
                f"a pair's outputs ({values:,} value{'s' if values > 1 else ''} each)",
            ),
        ]
    )


def check_max_draws(settings: AuditSettings, claim: Claim | None, policy: AuditPolicy) -> None:
    """Refuse a `max_draws` below the smallest audit's draws (``"auto"`` races below the smallest
    adaptive audit's where the claim allows it; None: any claim may)."""
    races = settings.sampling == "auto" and (claim is None or can_race(settings, claim))
    if settings.sampling == "fixed":
        probe = probe_draws(probe_size("fixed", settings, policy), policy)
        smallest, kind = probe + fixed_draws(settings), "fixed audit's"
        parts = (
            f"its probe's {probe:,}, then every one of its {settings.trials} trials'"
            f" {settings.samples:,} outputs per side and {settings.verification_samples:,} per"
            " side to verify; or give sampling='adaptive'"
        )
    elif settings.sampling == "sequential" or races:
        smallest, kind = policy.smallest_race_draws, "sequential audit's"
        parts = f"its probe, then {policy.race_first_samples} outputs per side of one pair, twice"
    else:
        smallest, kind = policy.smallest_audit_draws, "audit's"
        parts = (
            f"the probe's {policy.probe_draws:,}, then {policy.min_start:,} outputs per side for"
            " one pair and for its verification"
        )
    if settings.max_draws is not None and settings.max_draws < smallest:
        raise InvalidArgument(
            f"max_draws={settings.max_draws:,} is below the smallest {kind} {smallest:,} draws"
            f" ({parts}): give max_draws >= {smallest:,}."
        )


def fixed_draws(settings: AuditSettings) -> int:
    """The draws of every trial's `samples` per side and of `verify_samples` per side: a fixed
    audit's after its probe, and the budget of one given no `max_draws`."""
    return 2 * settings.trials * settings.samples + 2 * settings.verification_samples


def limit_slow_release(run: Run) -> None:
    """Bound the time of an audit whose planned draws would take longer than
    `AuditPolicy.slow_max_seconds` at the probe's pace, and say so in the report."""
    budget, limit = run.budget, run.policy.slow_max_seconds
    planned = budget.max_draws / budget.rate
    if planned > limit:
        budget.limit_time(limit)
        run.note(
            f"the mechanism draws about {budget.rate:,.0f} outputs per second, so this budget's"
            f" {budget.max_draws:,} draws would take about {planned / 60:,.0f} min: the audit is"
            f" limited to max_seconds={limit:g} (AuditPolicy.slow_max_seconds), and a rerun with"
            " the same seed may draw differently. Give max_seconds or max_draws to choose its"
            " budget."
        )


def audit_tester(
    settings: AuditSettings, claim: Claim, outputs: np.ndarray | None, mechanism: Mechanism
) -> Tester:
    """The tester `settings` name, made for the probe's `outputs` (``"auto"`` resolved, the
    mechanism's words for output patterns given); with ``arithmetic="float"``, with the float
    bit-pattern tester beside it, each at β/2."""
    tester = make_tester(settings.tester, claim, outputs, describe_output=output_words(mechanism))
    if settings.sampling == "sequential" and not tester.counts_events:  # "auto" chose a tester
        tester = make_tester("hockey_stick", claim, describe_output=output_words(mechanism))
    if settings.arithmetic == "float" and tester.name != "float_bits":
        from dpfuzz.testers.either import EitherTester
        from dpfuzz.testers.float_bits import FloatBitsTester

        tester = EitherTester([tester, FloatBitsTester(**tester.event_options())])
    return tester
