"""One run of the engine: the state its stages (probe, search, certification) share."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import numpy as np

from dpfuzz.claims import Claim
from dpfuzz.domain import Domain
from dpfuzz.engine.budget import Budget
from dpfuzz.engine.chunks import check_dask_client
from dpfuzz.engine.policy import AuditPolicy
from dpfuzz.engine.stops import Stop, StopReason
from dpfuzz.mechanism import Mechanism
from dpfuzz.trials import TrialRecord


def fresh_seed() -> int:
    """A random seed (a run reports it, so it can be rerun)."""
    return secrets.randbits(63)


class Run:
    """What a run's stages share: the mechanism, claim and domain, the budget, the seeds, the
    Dask client (if any) certification counts on, and what the run records (search history,
    notes, stops, progress)."""

    def __init__(
        self,
        mechanism: Mechanism,
        claim: Claim,
        domain: Domain,
        budget: Budget,
        seed: int | None = None,
        policy: AuditPolicy | None = None,
        progress: Callable[[str], None] | None = None,
        client: Any = None,
    ):
        check_dask_client(client)
        self.mechanism, self.claim, self.domain, self.budget, self.client = (
            mechanism,
            claim,
            domain,
            budget,
            client,
        )
        self.seed = fresh_seed() if seed is None else seed
        self.policy = policy or AuditPolicy()
        self.progress = progress or (lambda text: None)
        self.finder_seed, self.trial_seed, self.verify_seed, self.probe_seed, self.reverse_seed = (
            np.random.SeedSequence(self.seed).spawn(5)
        )
        self.history: list[TrialRecord] = []
        self.notes: list[str] = []
        self.stops: list[Stop] = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    def stop(self, reason: StopReason, text: str) -> None:
        """Record that a stage ended before its plan, and why (also among the notes)."""
        self.stops.append(Stop(reason, text))
        self.notes.append(text)
