"""The audit report: verdict, certified bounds, witness, trial history, reproduction data."""

from __future__ import annotations

import html
import json
import platform
import sys
from dataclasses import dataclass, field
from importlib import metadata

from dpfuzz.claims import Claim
from dpfuzz.datasets import DatasetPair, Domain, format_dataset
from dpfuzz.testers.base import TestResult


@dataclass(frozen=True)
class TrialRecord:
    """One search trial: the pair the finder proposed, both directions' (uncertified) results."""

    trial: int
    pair: DatasetPair
    score: float
    forward: TestResult  # M(d0) against M(d1)
    backward: TestResult  # M(d1) against M(d0)
    sampling_seconds: float
    testing_seconds: float

    def to_dict(self) -> dict:
        return {
            "trial": self.trial,
            "pair": self.pair.to_dict(),
            "score": self.score,
            "forward": self.forward.to_dict(),
            "backward": self.backward.to_dict(),
            "sampling_seconds": self.sampling_seconds,
            "testing_seconds": self.testing_seconds,
        }


@dataclass(frozen=True)
class AuditReport:
    """Outcome of `dpfuzz.audit`.

    Attributes
    ----------
    violated : the claim is refuted, with probability of a false alarm at most `beta`.
    epsilon_lower_bound : certified ε lower bound (at the claim's δ, or Rényi ε at its α),
        valid at confidence 1 − beta; None when nothing positive is certified.
    witness : the neighbouring pair, ordered (d0, d1) as tested, that refutes the claim; None
        when the claim is not refuted.
    candidate : the pair chosen by the search and verified on fresh samples (also when the
        claim holds up).
    verification : the certified `TestResult` on fresh samples; `bound` and `threshold` are its.
    history : the search trials in order; their numbers rank pairs and are not certified.
    beta : family-wise false-alarm probability of the whole audit (search and verification).
    seed : reproduces the audit exactly with the same arguments.
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
    seconds: dict = field(default_factory=dict)
    versions: dict = field(default_factory=dict)
    finder_details: dict = field(default_factory=dict)

    def history_pairs(self) -> list[DatasetPair]:
        """The pairs the finder proposed, in order: ``audit(..., finder=report.history_pairs(),
        seed=report.seed)`` replays the search exactly."""
        return [record.pair for record in self.history]

    @property
    def bound(self) -> float:
        """Certified lower bound on the divergence the claim limits."""
        return self.verification.bound

    @property
    def threshold(self) -> float:
        """The claim's limit on that divergence."""
        return self.verification.threshold

    def to_dict(self) -> dict:
        return {
            "verdict": "violated" if self.violated else "not refuted",
            "violated": self.violated,
            "claim": self.claim.to_dict(),
            "claim_text": self.claim.describe(),
            "beta": self.beta,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "bound": self.bound,
            "threshold": self.threshold,
            "witness": None if self.witness is None else self.witness.to_dict(),
            "candidate": self.candidate.to_dict(),
            "verification": self.verification.to_dict(),
            "mechanism": self.mechanism,
            "domain": self.domain.to_dict(),
            "tester": self.tester,
            "finder": self.finder,
            "finder_details": self.finder_details,
            "seed": self.seed,
            "trials": self.trials,
            "samples": self.samples,
            "verify_samples": self.verify_samples,
            "seconds": self.seconds,
            "versions": self.versions,
            "history": [record.to_dict() for record in self.history],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def to_markdown(self) -> str:
        """The summary and the search history as Markdown."""
        rows = [
            f"| {record.trial + 1} | {format_dataset(record.pair.d0)} | {format_dataset(record.pair.d1)} | {record.score:.4g} |"
            for record in self.history
        ]
        return "\n".join(
            ["# dpfuzz audit", "", "```", self.summary(), "```", "", "| trial | d0 | d1 | estimate |", "|---:|---|---|---:|", *rows, ""]
        )

    def to_html(self) -> str:
        """A self-contained page: the summary and the search history."""
        escape = html.escape
        rows = "".join(
            f"<tr><td>{record.trial + 1}</td><td>{escape(format_dataset(record.pair.d0))}</td>"
            f"<td>{escape(format_dataset(record.pair.d1))}</td><td>{record.score:.4g}</td></tr>"
            for record in self.history
        )
        colour = "#cf222e" if self.violated else "#1a7f37"
        return (
            f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>dpfuzz audit: {escape(self.mechanism)}</title>'
            "<style>body{font-family:system-ui,sans-serif;margin:2rem}td,th{border:1px solid #d0d7de;padding:4px 8px}"
            "table{border-collapse:collapse}</style></head><body>"
            f'<h1 style="color:{colour}">{escape(self.summary().splitlines()[0])}</h1>'
            f"<pre>{escape(self.summary())}</pre><h2>Search</h2>"
            f"<table><tr><th>trial</th><th>d0</th><th>d1</th><th>estimate</th></tr>{rows}</table></body></html>\n"
        )

    def summary(self) -> str:
        """A few lines a person reads first."""
        result = self.verification
        if self.violated:
            verdict = f"VIOLATED: {self.mechanism} does not satisfy {self.claim.describe()}"
        else:
            verdict = f"not refuted: no violation of {self.claim.describe()} found for {self.mechanism}"
        epsilon = "none certified" if self.epsilon_lower_bound is None else f"{self.epsilon_lower_bound:.4g}"
        lines = [
            verdict,
            f"  confidence        1 - beta = {1 - self.beta:g} (whole audit)",
            f"  {result.divergence} >= {result.bound:.6g}  (claim allows {result.threshold:.6g})",
            f"  epsilon lower bound  {epsilon}",
            f"  pair              d0 = {format_dataset(self.candidate.d0)}",
            f"                    d1 = {format_dataset(self.candidate.d1)}",
            f"  event             {result.event}",
            f"  samples           {self.trials} trials x {self.samples} per side, verified on "
            f"{self.verify_samples} fresh per side",
            f"  tester / finder   {self.tester} / {self.finder}, seed {self.seed}, "
            f"{self.seconds.get('total', 0.0):.2f} s",
        ]
        return "\n".join(lines)


def environment_versions() -> dict:
    """Versions of Python, the platform and the packages that shape results."""
    versions = {"python": sys.version.split()[0], "platform": platform.platform()}
    for package in ("dpfuzz", "numpy", "scipy", "scikit-learn"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = None
    return versions
