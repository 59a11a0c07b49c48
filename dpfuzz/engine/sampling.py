"""``sampling="auto"`` (the default): which sampling an audit runs, decided once the probe's
reproducibility check has measured how fast the release draws.

A race (``"sequential"``, `engine.race`) needs about 40 draws before its first bet; the adaptive
audit (``"adaptive"``) needs its probe and 200 outputs per side to search and to verify before
it can certify anything (`smallest_adaptive_draws`: 1,840 with its whole probe, about 900 when a
time limit shrinks the probe). So ``"auto"`` races when the betting certificate can race the
claim (`race.race_refusal`) and the draws the audit affords — its draw cap, and with a time limit
its call rate times that limit — are fewer than the smallest adaptive audit's, or when `sharpen`
asks for a race; otherwise it searches adaptively. With more draws neither mode refutes every
bug the other does, and the adaptive audit refutes the subtle ones sooner
(docs/decisions/0038-sampling-auto.md).
"""

from __future__ import annotations

import math
from dataclasses import replace

from dpfuzz.claims import Claim
from dpfuzz.engine.budget import Budget
from dpfuzz.engine.policy import AuditPolicy
from dpfuzz.engine.probe import probe_outputs
from dpfuzz.engine.race import race_refusal
from dpfuzz.settings import AuditSettings


def can_race(settings: AuditSettings, claim: Claim) -> bool:
    """Whether ``"auto"`` may choose a race for `claim` under `settings`."""
    return settings.sampling == "auto" and race_refusal(settings, claim) is None


def affordable_draws(budget: Budget, time_limit: float | None) -> float:
    """The draws `budget` affords: its cap, and within `time_limit` seconds at its rate so far."""
    if time_limit is None or budget.rate == math.inf:
        return budget.max_draws
    return min(budget.max_draws, budget.rate * time_limit)


def probe_size(sampling: str, settings: AuditSettings, policy: AuditPolicy) -> int:
    """Outputs of the probe of an audit sampling by `sampling` (a race fits its events on its own
    rounds' outputs: its probe only sees their shape)."""
    if sampling == "sequential":
        return policy.probe_min_samples
    return min(policy.probe_samples, settings.samples)


def check_size(settings: AuditSettings, claim: Claim, policy: AuditPolicy) -> int:
    """Outputs per call of the reproducibility check: at most the probe of every mode the audit
    may run, so that ``"auto"`` draws exactly what the mode it chooses draws when named."""
    if settings.sampling != "auto":
        modes: tuple[str, ...] = (settings.sampling,)
    else:
        modes = ("sequential", "adaptive") if can_race(settings, claim) else ("adaptive",)
    return min(policy.reproducibility_samples, *(probe_size(m, settings, policy) for m in modes))


def probe_draws(size: int, policy: AuditPolicy) -> int:
    """Draws of a probe of `size` outputs: the reproducibility check's two calls of at most
    `reproducibility_samples`, then the probe's own outputs unless the check's first call holds
    them (`engine.probe`)."""
    check = min(policy.reproducibility_samples, size)
    return 2 * check + (size if size > check else 0)


def smallest_adaptive_draws(
    settings: AuditSettings, budget: Budget, time_limit: float | None, policy: AuditPolicy
) -> float:
    """Draws of the smallest adaptive audit this budget could run: the reproducibility check,
    the probe (under a time limit, `probe_time_share` of it at the rate so far, as `probe` draws
    it), then `min_start` outputs per side for one pair and for its verification."""
    size = probe_outputs(probe_size("adaptive", settings, policy), budget, time_limit, policy)
    return probe_draws(size, policy) + 4 * policy.min_start


def races(settings: AuditSettings, claim: Claim, affordable: float, smallest: float) -> bool:
    """Whether ``"auto"`` races `claim` under `settings` with `affordable` draws, where the
    smallest adaptive audit draws `smallest`."""
    return can_race(settings, claim) and (settings.sharpen or affordable < smallest)


def resolve_sampling(
    settings: AuditSettings,
    claim: Claim,
    budget: Budget,
    time_limit: float | None,
    policy: AuditPolicy,
) -> tuple[AuditSettings, str | None]:
    """`settings` with ``sampling="auto"`` resolved, and a note for the report when it chose a
    race (None otherwise). Other sampling modes are returned as given."""
    if settings.sampling != "auto":
        return settings, None
    affordable = affordable_draws(budget, time_limit)
    smallest = smallest_adaptive_draws(settings, budget, time_limit, policy)
    if not races(settings, claim, affordable, smallest):
        return replace(settings, sampling="adaptive"), None
    if settings.sharpen:
        why = "sharpen=True asks for a race"
    else:
        timed = time_limit is not None and affordable < budget.max_draws
        source = (
            f"about {budget.rate:,.0f} outputs per second for {time_limit:g} s"
            if timed
            else f"max_draws={budget.max_draws:,.0f}"
        )
        why = (
            f"the budget affords about {affordable:,.0f} draws ({source}), fewer than the"
            f" smallest adaptive audit's {smallest:,.0f}"
        )
    return replace(settings, sampling="sequential"), (
        f"sampling='auto' chose a sequential race: {why}. Search and certification bet on every"
        " output and stop at the first refutation; give sampling='adaptive' for the adaptive"
        " search."
    )
