"""The audit report: verdict, certified bounds, witness, power, trial history, reproduction data.

Its words are `dpfuzz.report_text`'s, its page `dpfuzz.report_html`'s.
"""

from __future__ import annotations

import json
import math
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata

from dpfuzz import report_html, report_text
from dpfuzz.claims import Claim
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.engine.stops import Stop
from dpfuzz.engine.verdict import Verdict
from dpfuzz.testers.base import TestResult
from dpfuzz.trials import TrialRecord


@dataclass(frozen=True)
class AuditReport:
    """Outcome of `dpfuzz.audit`.

    Attributes
    ----------
    violated : the claim is refuted, with probability of a false alarm at most `beta`.
    verdict : `Verdict.VIOLATED`, `NOT_REFUTED` (with the power `power` states) or
        `INCONCLUSIVE` (the budget could not test the claim; `inconclusive` says why).
    inconclusive : why an audit that did not refute its claim could not have refuted a violation
        of a stated size (an untestable δ, no event that could refute the claim with the outputs
        verified, a call too slow); None otherwise (docs/decisions/0020).
    epsilon_lower_bound : certified ε lower bound (at the claim's δ, or Rényi ε at its α),
        valid at confidence 1 − beta; None when nothing positive is certified.
    witness : the neighbouring pair, ordered (d0, d1) as tested, that refutes the claim; None
        when the claim is not refuted.
    candidate : the pair chosen by the search and verified on fresh samples (also when the
        claim holds up).
    verification : the certified `TestResult` of the last verification look; `bound` and
        `threshold` are its.
    looks : the verification looks (samples per side, their share of β, bound, refuted).
    power : when nothing is refuted, what the last look could have detected on its event:
        ``{"divergence", "value", "claim_allows", "samples"}`` and, for (ε, δ) claims tested
        on an event, ``"epsilon"`` (the privacy loss on that event it would have refuted).
    history : the search evaluations in order; their numbers rank pairs and are not certified.
    beta : family-wise false-alarm probability of the whole audit (search and verification).
    seed : reproduces the audit exactly with the same arguments (see `reproducible`).
    draws : mechanism outputs drawn in all (probe, search, verification); `draw_rate` per second.
    reproducible : the same seed gives the same report (False when the mechanism does not take
        its randomness from the rng dpfuzz passes, or when max_seconds cut the audit).
    notes : what a reader should know (budget cuts, reproducibility).
    stops : the stages a budget or the clock cut short, each a `Stop` (reason and sentence; the
        sentence is also among `notes`).
    reproduce : how to run this audit again, when the caller knows (CLI, campaign, pytest).
    """

    violated: bool
    claim: Claim
    beta: float
    epsilon_lower_bound: float | None
    witness: DatasetPair | None
    candidate: DatasetPair
    verification: TestResult
    history: tuple[TrialRecord, ...]
    mechanism: str
    domain: Domain
    tester: str
    finder: str
    seed: int
    trials: int
    samples: int
    verify_samples: int
    settings: dict = field(default_factory=dict)
    draws: int = 0
    draw_rate: float = math.inf
    looks: tuple = ()
    power: dict | None = None
    reproducible: bool = True
    notes: tuple[str, ...] = ()
    stops: tuple[Stop, ...] = ()
    reproduce: str = ""
    seconds: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    finder_details: dict = field(default_factory=dict)
    profile: dict | None = None  # `ProfileEstimate.to_dict()` of the verified pair (1-D outputs)
    inconclusive: str | None = None
    distributions: dict | None = None  # `output_histograms` of the verified pair (1-D outputs)
    search_score: str = "held-out estimate − claim's limit"  # what each trial's score measures

    @property
    def verdict(self) -> Verdict:
        if self.violated:
            return Verdict.VIOLATED
        return Verdict.INCONCLUSIVE if self.inconclusive else Verdict.NOT_REFUTED

    @property
    def tested(self) -> bool:
        """Whether any verification output was drawn (False when a slow call ended the audit
        first)."""
        return min(self.verification.num_samples) > 0

    def history_pairs(self) -> list[DatasetPair]:
        """The pairs the finder proposed, in order: ``audit(..., finder=report.history_pairs(),
        seed=report.seed)`` replays the search exactly."""
        return [record.pair for record in self.history if record.round == 0]

    @property
    def bound(self) -> float:
        """Certified lower bound on the divergence the claim limits."""
        return self.verification.bound

    @property
    def threshold(self) -> float:
        """The claim's limit on that divergence."""
        return self.verification.threshold

    @property
    def witness_trial(self) -> int | None:
        """1-based number of the search trial that proposed the verified pair (None if the
        finder named a pair it never proposed)."""
        for record in self.history:
            if record.pair in (self.candidate, self.candidate.swapped()):
                return record.trial + 1
        return None

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict.value,
            "violated": self.violated,
            "inconclusive": self.inconclusive,
            "claim": self.claim.to_dict(),
            "claim_text": self.claim.describe(),
            "beta": self.beta,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "bound": self.bound,
            "threshold": self.threshold,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "candidate": self.candidate.to_dict(),
            "difference": self.domain.relation.difference(self.candidate),
            "verification": self.verification.to_dict(),
            "looks": list(self.looks),
            "power": self.power,
            "mechanism": self.mechanism,
            "domain": self.domain.to_dict(),
            "tester": self.tester,
            "finder": self.finder,
            "finder_details": self.finder_details,
            "seed": self.seed,
            "trials": self.trials,
            "witness_trial": self.witness_trial,
            "samples": self.samples,
            "verify_samples": self.verify_samples,
            "settings": self.settings,
            "draws": self.draws,
            "draw_rate": None if math.isinf(self.draw_rate) else self.draw_rate,
            "reproducible": self.reproducible,
            "notes": list(self.notes),
            "stops": [stop.to_dict() for stop in self.stops],
            "reproduce": self.reproduce,
            "seconds": self.seconds,
            "versions": self.versions,
            "history": [record.to_dict() for record in self.history],
            "profile": self.profile,
            "distributions": self.distributions,
            "search_score": self.search_score,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    # -- text (`dpfuzz.report_text`) and HTML (`dpfuzz.report_html`) -----------------------
    def headline(self) -> str:
        return report_text.headline(self)

    def power_text(self) -> str | None:
        """The power statement in words (None when the claim was refuted)."""
        return report_text.power_text(self)

    def certified_text(self) -> str:
        """The certified bound against what the claim allows (a race's: its e-value)."""
        return report_text.certified_text(self)

    def summary(self) -> str:
        """The lines a person reads first."""
        return report_text.summary(self)

    def to_markdown(self) -> str:
        """The summary and the search history as Markdown."""
        return report_text.markdown(self)

    def meaning(self) -> str:
        """The verdict in one sentence a manager reads first."""
        return report_text.meaning(self)

    def to_html(self) -> str:
        """A self-contained page (`dpfuzz.report_html.audit_page`)."""
        return report_html.audit_page(self)

    def distributions_html(self) -> str:
        """The two output histograms with the certified event shaded (1-D outputs)."""
        return report_html.distributions_html(self)

    def profile_html(self, gaussian: bool | None = None) -> str:
        """The verified pair's privacy profile and trade-off bound (`report_html.profile_html`)."""
        return report_html.profile_html(self, gaussian)


def environment_versions() -> dict:
    """Versions of Python, the platform and the packages that shape results."""
    versions: dict[str, str | None] = {
        "python": sys.version.split()[0],
        "platform": platform.platform(),
    }
    for package in ("dpfuzz", "numpy", "scipy", "scikit-learn"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions
