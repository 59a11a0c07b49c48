"""Certified ε estimation: "how private is this, at least?" (the question DP-Sniper answers).

`estimate_epsilon` runs the engine (`dpfuzz.engine`) with the claim ε = 0 (at the given δ) and
the hockey-stick tester's ``objective="epsilon"`` (events ranked by the ε they would certify) and
``certificate="privacy_loss"`` (pure DP: one joint bound on the event's privacy loss). On one
pair, most draws go to the one final certification, whose bound is the estimate
(`estimation.sizes`). Several pairs (a `Domain`, or a list) are estimated in two stages: a search
run spends `search_share` of the draws on all pairs alike and picks the pair whose held-out bound
is largest (`estimation.task.chosen_pair`); the rest estimate that pair alone, its event fitted
on fresh outputs. The pair and event are selected on other samples than the one held-out test at
level β, so

    P(true ε at δ < estimate) ≤ β.

A time budget is planned by `estimation.timing`: the clock chooses the draws, never an outcome, so
the guarantee holds unchanged. Every number of the plan is a field of `EstimationPolicy`.
"""

from __future__ import annotations

from typing import Any

from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.engine.policy import EstimationPolicy
from dpfuzz.errors import InvalidArgument
from dpfuzz.estimate_report import EpsilonEstimate

# estimation_tester: public here too
from dpfuzz.estimation.task import EstimateTask, estimation_tester  # noqa: F401
from dpfuzz.estimation.timing import timed_estimate
from dpfuzz.mechanism import Mechanism
from dpfuzz.validation import check_int, check_number, check_seconds


def estimate_epsilon(
    mechanism: Mechanism,
    target: Domain | DatasetPair | list[DatasetPair],
    *,
    delta: float = 0.0,
    max_draws: int | None = None,
    max_seconds: float | None = None,
    beta: float = 0.05,
    seed: int | None = None,
    domain: Domain | None = None,
    policy: EstimationPolicy | None = None,
    dask_client: Any = None,
) -> EpsilonEstimate:
    """The largest certified lower bound on ε (at `delta`) that dpfuzz finds for `mechanism`.

    `target` is a `Domain` to search (10 pairs), or the neighbouring pair(s) to measure under
    `domain`'s relation, or, without `domain`, under the first relation that makes every pair a
    neighbour (add/remove, substitute, ℓ∞ with sensitivity 1). `max_draws` (default 4·10^6)
    bounds all mechanism outputs: at least 60% of them (with several pairs, of what the search
    leaves) certify, and each pair's event is fitted on at most 3·10^6 outputs per side (one
    number per draw: 10^6; beyond 1.2·10^8 draws, a share up to 10^7). `max_seconds` bounds the
    time instead (`max_draws`, if given, stays a ceiling): pilots measure the pace, the fit and
    search get the draws half the time left affords, and the final certification draws until the
    deadline (at least 1,000 outputs per side; `report.stops` says when the clock ended it). The
    clock sets its draws, so it reruns exactly only where `max_draws` bound first. A `max_seconds`
    too short for the smallest estimate is an error that says how long it needs.
    `policy` holds the tuning numbers (`dpfuzz.engine.EstimationPolicy`). With `dask_client`, the
    certification's outputs are drawn and counted on its workers, for the same bound as here.
    """
    delta = check_number("delta", delta, minimum=0.0, maximum=1.0, exclusive_maximum=True)
    if policy is not None and not isinstance(policy, EstimationPolicy):
        raise InvalidArgument(
            f"policy must be a dpfuzz.EstimationPolicy, got {type(policy).__name__}; build one with"
            " EstimationPolicy(field=value, ...)."
        )
    policy = policy or EstimationPolicy()
    if max_draws is not None:
        max_draws = check_int("max_draws", max_draws, minimum=10_000)
        if max_draws > policy.largest_max_draws:
            raise InvalidArgument(
                f"max_draws={max_draws:,} is above EstimationPolicy.largest_max_draws"
                f" ({policy.largest_max_draws:,}, hours of drawing at 10^6 outputs per second):"
                " give a smaller max_draws, or max_seconds to bound the estimate's time."
            )
    task = EstimateTask.make(mechanism, target, domain, delta, beta, policy, dask_client)
    if max_seconds is None:
        return task.estimate(
            task.policy.default_max_draws if max_draws is None else max_draws, seed
        )
    max_seconds = check_seconds("max_seconds", max_seconds)
    return timed_estimate(task, max_seconds, max_draws, seed)


_MOVED = {
    name: "dpfuzz.estimation.sizes"
    for name in ("fit_samples", "search_plan", "smallest_budget", "verification_samples")
} | {name: "dpfuzz.estimation.timing" for name in ("seconds_per_draw", "planned_draws")}


def __getattr__(name: str) -> Any:
    if name in _MOVED:  # deprecated locations, kept for one minor release
        import importlib  # noqa: E401
        import warnings

        warnings.warn(
            f"dpfuzz.estimation.{name} moved to {_MOVED[name]}.{name}.",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module 'dpfuzz.estimation' has no attribute {name!r}")
