"""An `AuditReport` from a run's `Ending` (`dpfuzz.engine.pipeline`): the verdict, its power or
why it is inconclusive, and the verified pair's pictures (output histograms, privacy profile).
Both front doors report through it; the engine itself builds no report."""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import ApproxDP
from dpfuzz.engine import clock
from dpfuzz.engine.certification import Verification
from dpfuzz.engine.pipeline import Ending
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.probe import Probe
from dpfuzz.engine.race import RACE_SCORE, race_inconclusive, race_power
from dpfuzz.engine.run import Run
from dpfuzz.engine.verdict import inconclusive_reason
from dpfuzz.mechanism import mechanism_name
from dpfuzz.report import AuditReport, environment_versions
from dpfuzz.settings import AuditSettings
from dpfuzz.testers import Tester, TestResult


def audit_report(
    run: Run, tester: Tester, plan: Plan, settings: AuditSettings, probed: Probe, ending: Ending
) -> AuditReport:
    """The `AuditReport` of a run that ended with `ending`."""
    verification, finder = ending.verification, ending.finder
    if verification is None or finder is None:
        return too_slow_report(run, settings, ending.unfinished or "nothing was certified")
    result, candidate = verification.result, verification.pair
    power = None if result.violated else _power(run, tester, result)
    return AuditReport(
        violated=result.violated,
        claim=run.claim,
        beta=plan.beta,
        epsilon_lower_bound=result.epsilon_lower_bound,
        witness=candidate if result.violated else None,
        candidate=candidate,
        verification=result,
        history=tuple(run.history),
        mechanism=mechanism_name(run.mechanism),
        domain=run.domain,
        tester=tester.name,
        finder=finder.name,
        search_score=RACE_SCORE if plan.sequential else tester.score_name(run.claim),
        seed=run.seed,
        trials=len({record.trial for record in run.history}) or int(plan.orient_by_fit),
        samples=plan.samples,
        verify_samples=plan.verify_samples,
        settings={**settings.to_dict(), "seed": run.seed},
        draws=run.budget.used,
        draw_rate=run.budget.rate,
        looks=tuple(verification.looks),
        power=power,
        inconclusive=None if result.violated else _inconclusive(run, tester, result, power),
        reproducible=probed.reproducible and run.budget.deadline is None,
        notes=tuple(run.notes),
        stops=tuple(run.stops),
        seconds=ending.seconds,
        versions=environment_versions(),
        finder_details=finder.details(),
        profile=profile(run, verification.samples, plan.beta),
        distributions=distributions(run, tester, verification),
    )


def _power(run: Run, tester: Tester, result: TestResult) -> dict:
    """What a certificate that did not refute could have refuted (a race's: `race_power`). On an
    event holding so much of Q that no count under P refutes the claim on it (e^ε·Q̂(S) + δ ≥ 1),
    the audit's own power instead: what its verification outputs refute by the rule that passed
    it (`engine.verdict`, docs/decisions/0040)."""
    if result.details.get("sequential"):
        return race_power(result)
    power = tester.detectable(result)
    if power.get("more_outputs_help") is False:
        failing = ""
        if isinstance(result.claim, ApproxDP) and result.claim.delta > 0:
            factor = run.policy.delta_power_factor
            failing = f", or a release failing with probability {factor:g}·δ,"
        power["text"] = (
            "no count under P could have refuted the claim on its event at any sample size: it"
            f" holds {power['q_share']:.1%} of the other dataset's outputs. With"
            f" {power['samples']:,} verification outputs per side, an event that separates the"
            f" datasets perfectly{failing} would have refuted it"
        )
    return power


def _inconclusive(run: Run, tester: Tester, result: TestResult, power: dict | None) -> str | None:
    """Why a certificate that did not refute could not have refuted a violation of a stated size
    (`engine.verdict`; a race's: `race_inconclusive`), including when no outcome on its own event
    could have at its sample size while a larger one could (its `power` says so): then it stated
    no power."""
    if result.details.get("sequential"):
        return race_inconclusive(result, run.policy.delta_power_factor)
    reason = inconclusive_reason(tester, result, run.policy.delta_power_factor)
    if reason is None and power is not None and power.get("more_outputs_help"):
        return (
            f"with {power['samples']:,} verification outputs per side no outcome on the certified"
            " event could have refuted the claim, and more outputs could have; raise"
            " verify_samples, max_draws or max_seconds"
        )
    return reason


def too_slow_report(run: Run, settings: AuditSettings, reason: str) -> AuditReport:
    """The inconclusive `AuditReport` of a run a slow call ended before it certified anything:
    `reason` names the call; the pair is the relation's first classic pair, and no bound."""
    pair = run.domain.relation.classic_pairs(run.domain)[0]
    named = settings.to_dict()
    nothing = TestResult(
        str(named["tester"]),
        run.claim,
        "none",
        math.nan,
        math.nan,
        None,
        math.nan,
        0.0,
        "none (no outputs to test)",
        (0, 0),
    )
    return AuditReport(
        violated=False,
        claim=run.claim,
        beta=settings.beta,
        epsilon_lower_bound=None,
        witness=None,
        candidate=pair,
        verification=nothing,
        history=tuple(run.history),
        mechanism=mechanism_name(run.mechanism),
        domain=run.domain,
        tester=str(named["tester"]),
        finder=str(named["finder"]),
        seed=run.seed,
        trials=len({record.trial for record in run.history}),
        samples=settings.samples,
        verify_samples=settings.verification_samples,
        settings={**named, "seed": run.seed},
        draws=run.budget.used,
        draw_rate=run.budget.rate,
        inconclusive=reason,
        reproducible=False,
        notes=tuple(run.notes),
        stops=tuple(run.stops),
        seconds={"total": clock.now() - run.budget.started},
        versions=environment_versions(),
    )


def distributions(run: Run, tester: Tester, verification: Verification) -> dict | None:
    """Histograms of the verified pair's 1-D verification outputs, and where the certified event
    holds (`dpfuzz.output_histograms`; events certified from counts), for the report's picture."""
    samples = verification.samples
    if (
        not samples
        or samples[0].size != len(samples[0])
        or len(samples[0]) < run.policy.profile_min_samples
    ):
        return None
    from dpfuzz.output_histograms import output_histograms

    shape = samples[0].shape[1:]
    event = verification.event

    def in_event(values: np.ndarray) -> np.ndarray:
        return np.array([tester.in_event(event, value.reshape(1, *shape)) > 0 for value in values])

    counted = tester.counts(event)  # as `FreshOutputs` counts them
    return output_histograms(samples[0].ravel(), samples[1].ravel(), in_event if counted else None)


def profile(run: Run, samples: tuple, beta: float) -> dict | None:
    """The verified pair's privacy profile and trade-off bound (`dpfuzz.profiles`) from the
    verification outputs (at most `profile_max_samples` per side), for 1-D outputs: a
    description at its own confidence 1 − β, not part of the verdict."""
    cap = run.policy.profile_max_samples
    if (
        not samples
        or samples[0].size != len(samples[0])
        or len(samples[0]) < run.policy.profile_min_samples
    ):
        return None
    from dpfuzz.profiles import privacy_profile

    return privacy_profile(samples[0][:cap].ravel(), samples[1][:cap].ravel(), beta=beta).to_dict()
