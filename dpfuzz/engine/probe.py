"""The probe: a few outputs on one dataset of the domain, before anything is planned. They show
the outputs' shape (what the plan and the ``"auto"`` tester depend on) and the draw rate, and two
calls with equal-seeded generators tell whether the run can be bit-reproducible."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpfuzz.datasets import format_dataset
from dpfuzz.engine import clock
from dpfuzz.engine.budget import Budget, OutOfTime
from dpfuzz.engine.policy import AuditPolicy
from dpfuzz.engine.run import Run
from dpfuzz.errors import MechanismTooSlow
from dpfuzz.mechanism import mechanism_name


@dataclass(frozen=True)
class Probe:
    samples: np.ndarray  # the probe's outputs
    reproducible: bool  # two calls with equal-seeded generators agreed
    seconds: float


@dataclass(frozen=True)
class Check:
    """The reproducibility check: its first call's outputs, whether the second call's agreed,
    and when it began."""

    outputs: np.ndarray
    reproducible: bool
    began: float


def check_reproducible(run: Run, count: int) -> Check:
    """Two calls of `count` outputs with equal-seeded generators on the first dataset of the
    relation's first classic pair: whether the run can be bit-reproducible, and (the first call
    apart, `Budget.rate`) the release's call rate."""
    began = clock.now()
    seed, draw = run.probe_seed, run.budget.draw
    dataset = _probe_dataset(run)
    try:
        first, again = (draw(dataset, count, np.random.default_rng(seed)) for _ in range(2))
    except OutOfTime:
        raise MechanismTooSlow(
            f"mechanism {mechanism_name(run.mechanism)!r} on dataset {format_dataset(dataset)} with"
            f" num_samples={count}: the call was still running when"
            f" max_seconds={run.budget.max_seconds:g} ended. Give a larger max_seconds, or a"
            " call_timeout to stop at one call that takes too long."
        ) from None
    reproducible = bool(np.array_equal(first, again))
    if not reproducible:
        run.note(
            "the mechanism's randomness does not come (only) from the rng dpfuzz passes: two calls"
            " with equal-seeded generators disagreed. The audit is statistically valid, but not"
            " bit-reproducible."
        )
    return Check(first, reproducible, began)


def probe(
    run: Run, size: int, time_limit: float | None = None, check: Check | None = None
) -> Probe:
    """Draw `size` outputs (after the reproducibility `check`, run here with
    `reproducibility_samples` outputs, or `size` if fewer, when not given) on the first dataset
    of the relation's first classic pair. With a `time_limit` that binds the run (a deadline, or
    more planned draws than the limit affords at the pace of those calls), at most
    `probe_time_share` of it. When the check's first call holds enough outputs, they are the
    probe's."""
    if check is None:
        check = check_reproducible(run, min(run.policy.reproducibility_samples, size))
    size = probe_outputs(size, run.budget, time_limit, run.policy)
    count = len(check.outputs)
    samples = check.outputs[:size] if size <= count else _draw_probe(run, _probe_dataset(run), size)
    if run.budget.max_seconds is not None:
        run.note(
            f"max_seconds={run.budget.max_seconds:g} limits this audit by wall-clock time, so a"
            " rerun with the same seed may draw differently; max_draws limits it reproducibly."
        )
    return Probe(samples, check.reproducible, clock.now() - check.began)


def probe_outputs(size: int, budget: Budget, time_limit: float | None, policy: AuditPolicy) -> int:
    """The probe's outputs: `size`, or with a `time_limit` that binds the run (a deadline, or more
    planned draws than the limit affords at the rate so far) what `probe_time_share` of it
    affords, at least `probe_min_samples`: a slow mechanism's probe takes a share of the time, not
    its size."""
    if time_limit is None or budget.rate == math.inf:
        return size
    if budget.deadline is None and budget.max_draws / budget.rate <= time_limit:
        return size
    timed = int(budget.rate * policy.probe_time_share * time_limit)
    return min(size, max(policy.probe_min_samples, timed))


def _probe_dataset(run: Run) -> np.ndarray:
    return run.domain.relation.classic_pairs(run.domain)[0].d0


def _draw_probe(run: Run, dataset, size: int) -> np.ndarray:
    """The probe's own `size` outputs on `dataset`, from a generator apart from the check's."""
    budget = run.budget
    try:
        return budget.draw(dataset, size, np.random.default_rng(run.probe_seed.spawn(1)[0]))
    except OutOfTime:
        raise MechanismTooSlow(
            f"max_seconds={budget.max_seconds:g} ended before the probe's {size:,} outputs were"
            f" drawn (the mechanism drew {budget.used:,} outputs in {budget.drawing_seconds:.1f}"
            " s): give a larger max_seconds."
        ) from None
