"""The search-then-certify pipeline both front doors compose (Kong et al., DP-Auditorium,
Algorithm 1).

A front door makes a `Run` (mechanism, claim, domain, `Budget`, seed), probes the mechanism
(`engine.probe`), decides its `Plan` and its tester from the probe, then calls
`search_and_certify`: the search ranks pairs on held-out estimates (`engine.search`), the chosen
pair is certified on fresh outputs (`engine.certification`), and the run's `Ending` goes back
to the front door, which reports it (`dpfuzz.reporting`). Only verification certifies, on outputs
its event was not chosen on, so a correct mechanism is flagged with probability at most β for
the whole run (docs/explanation/statistics.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from dpfuzz.engine import clock
from dpfuzz.engine.certification import check_refutable, verification_pair, verify
from dpfuzz.engine.plan import Plan
from dpfuzz.engine.probe import Probe
from dpfuzz.engine.race import race
from dpfuzz.engine.run import Run
from dpfuzz.engine.search import search
from dpfuzz.finders import FinderSpec, make_finder
from dpfuzz.testers import Tester

if TYPE_CHECKING:
    from dpfuzz.engine.certification import Verification
    from dpfuzz.finders.base import BaseFinder


@dataclass(frozen=True)
class Ending:
    """How a run ended: the verification of its chosen pair, or None when nothing was certified
    (a call too slow, a budget spent before the first look: `unfinished` says why); the finder
    that proposed the pairs, and each stage's seconds."""

    verification: Verification | None
    finder: BaseFinder | None = None
    seconds: dict = field(default_factory=dict)
    unfinished: str | None = None


def search_and_certify(
    run: Run, tester: Tester, plan: Plan, finder_spec: FinderSpec, probed: Probe
) -> Ending:
    """Search with the finder `finder_spec` names (`dpfuzz.finders.make_finder`) and certify the
    chosen pair (a sequential plan: race the finder's pairs to a verdict, `engine.race`)."""
    if plan.sequential:
        return race_to_verdict(run, tester, plan, finder_spec, probed)
    short = check_refutable(run, tester, plan)
    if short is not None:
        return Ending(None, unfinished=short)
    finder = make_finder(finder_spec)
    finder.start(run.domain, np.random.default_rng(run.finder_seed))
    try:
        searched_at = clock.now()
        leader = search(run, finder, tester, plan)
        verifying_at = clock.now()
    finally:
        finder.stop()
    rng = np.random.default_rng(run.verify_seed)
    pair, train_p, train_q, event = verification_pair(run, finder, tester, plan, leader, rng)
    verification = verify(
        run,
        tester,
        plan,
        pair,
        train_p,
        train_q,
        event,
        rng,
        np.random.default_rng(run.reverse_seed),
    )
    finished = clock.now()
    seconds = {
        "probe": probed.seconds,
        "search": verifying_at - searched_at,
        "verify": finished - verifying_at,
        "total": finished - run.budget.started,
    }
    return Ending(verification, finder, seconds)


def race_to_verdict(
    run: Run, tester: Tester, plan: Plan, finder_spec: FinderSpec, probed: Probe
) -> Ending:
    """Race the pairs of the finder `finder_spec` names to a verdict (`engine.race`)."""
    finder = make_finder(finder_spec)
    finder.start(run.domain, np.random.default_rng(run.finder_seed))
    began = clock.now()
    try:
        verification = race(run, finder, tester, plan)
    finally:
        finder.stop()
    if verification is None:
        return Ending(
            None,
            unfinished=f"the budget ended the race after {run.budget.used:,} draws, before any"
            " output was bet on: raise max_draws or max_seconds",
        )
    finished = clock.now()
    seconds = {
        "probe": probed.seconds,
        "search": finished - began,
        "verify": 0.0,
        "total": finished - run.budget.started,
    }
    return Ending(verification, finder, seconds)
