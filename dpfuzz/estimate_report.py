"""`EpsilonEstimate`: what `estimate_epsilon` returns, with its text and HTML forms."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from dpfuzz.datasets import DatasetPair
from dpfuzz.report import AuditReport
from dpfuzz.report_html import html_page


@dataclass(frozen=True)
class EpsilonEstimate:
    """A certified lower bound on the mechanism's ε at δ, with what certified it."""

    epsilon_lower_bound: float  # 0.0 when nothing positive is certified
    delta: float
    beta: float
    pair: DatasetPair  # ordered (d0, d1) as certified
    event: str
    draws: int
    seconds: float
    # ``estimate_epsilon(..., max_draws=draws, seed=seed)`` reproduces it, unless max_seconds set
    # its draws
    seed: int
    report: AuditReport  # the audit that certified the bound (on the chosen pair)
    search: AuditReport | None = None  # the audit that chose the pair, when there were several
    reproduce: str = ""  # how to run this estimate again, when the caller knows (the CLI)

    def to_dict(self) -> dict:
        """The estimate, with the certifying audit's report and the search's (or None)."""
        return {
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "delta": self.delta,
            "beta": self.beta,
            "pair": self.pair.to_dict(),
            "event": self.event,
            "draws": self.draws,
            "seconds": self.seconds,
            "seed": self.seed,
            "report": self.report.to_dict(),
            "search": None if self.search is None else self.search.to_dict(),
            "reproduce": self.reproduce,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def power_text(self) -> str | None:
        """When nothing positive was certified: what the certification could have shown."""
        power, details = self.report.power, self.report.verification.details
        if self.epsilon_lower_bound > 0 or not power or power.get("divergence") != "privacy_loss":
            return None
        if power["value"] is not None and math.isfinite(power["value"]):
            return (
                f"nothing certified: {power['samples']:,} outputs per side would have certified a"
                f" privacy loss of {power['value']:.3g} on this event; more draws certify smaller"
                " ones"
            )
        return (
            f"nothing certified: the event held {details['count_p']:,} and {details['count_q']:,}"
            f" of {power['samples']:,} outputs per side"
        )

    def clock_notes(self) -> list[str]:
        """What cut the certification short or changed the estimate returned (`StopReason`s that
        end certification): a budget or the clock ending it, a pilot returned, a setup that
        overran `max_seconds`."""
        return [stop.text for stop in self.report.stops if stop.reason.ends_certification]

    def headline(self) -> str:
        return (
            f"ε ≥ {self.epsilon_lower_bound:.4g} at δ = {self.delta:g} for {self.report.mechanism}"
            f" (confidence {1 - self.beta:g})"
        )

    def summary(self) -> str:
        difference, d0, d1 = self.report.domain.describe_pair(self.pair)
        power = self.power_text()
        return "\n".join(
            [
                self.headline(),
                f"  pair    {difference}",
                f"          {d0}",
                f"          {d1}",
                f"  event   {self.event}",
                *(
                    [
                        f"  search  the pair chosen from {self.search.trials} by"
                        f" {self.search.draws:,} of the draws"
                    ]
                    if self.search is not None
                    else []
                ),
                f"  draws   {self.draws:,} outputs in {self.seconds:.2f} s; seed {self.seed}",
                *([f"  power   {power}"] if power else []),
                *([f"  rerun   {self.reproduce}"] if self.reproduce else []),
                *(f"  note    {note}" for note in self.clock_notes()),
            ]
        )

    def to_html(self) -> str:
        """A self-contained page an auditor can hand over: the bound, the certified pair, the
        event and the held-out counts that certify it, the pair's privacy profile (1-D outputs)
        and the search that chose the pair."""
        return html_page(
            f"dpfuzz estimate: {self.report.mechanism}",
            self.headline(),
            "#0969da",
            "Certified pair",
            self.report.domain.describe_pair(self.pair),
            self._facts(),
            self.report.distributions_html() + self.report.profile_html(gaussian=False),
            () if self.search is None else self.search.history,
            "held-out ε bound",
            meaning=(
                f"With confidence {1 - self.beta:g}, this mechanism's ε at δ = {self.delta:g} is at"
                f" least {self.epsilon_lower_bound:.4g}: it is no more private than that. Its true"
                " ε may be larger."
            ),
        )

    def _facts(self) -> list[tuple[str, str]]:
        """The page's table: the bound, its confidence, the event and the counts that certify it,
        power, search, draws and how to rerun."""
        verification = self.report.verification
        (n_p, n_q), counts = verification.num_samples, verification.details
        rerun = self.reproduce or f"estimate_epsilon(..., max_draws={self.draws}, seed={self.seed})"
        if not self.reproduce and self.report.settings.get("max_seconds") is not None:
            rerun += (
                " (a timed estimate: exactly so only where max_draws, not the clock, set its draws)"
            )
        return [
            ("ε lower bound", f"{self.epsilon_lower_bound:.4g} at δ = {self.delta:g}"),
            (
                "confidence",
                (
                    f"1 − β = {1 - self.beta:g}: the true ε at δ is below the bound with"
                    " probability at most β"
                ),
            ),
            ("event", self.event),
            (
                "certified on",
                (
                    f"{counts['count_p']:,} of {n_p:,} outputs on d0 and {counts['count_q']:,} of"
                    f" {n_q:,} on d1 in the event: fresh outputs, not those"
                    f" {'the event was' if self.search is None else 'the event and the pair were'}"
                    " chosen on"
                ),
            ),
            *([("power", power)] if (power := self.power_text()) else []),
            *(
                [
                    (
                        "search",
                        (
                            f"the pair chosen from {self.search.trials} by {self.search.draws:,} of"
                            " the draws (below)"
                        ),
                    )
                ]
                if self.search is not None
                else []
            ),
            ("draws", f"{self.draws:,} outputs in {self.seconds:.2f} s"),
            ("seed", str(self.seed)),
            ("rerun", rerun),
            *(("note", note) for note in self.clock_notes()),
        ]
