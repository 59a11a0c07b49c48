"""Why a stage of a run ended before its plan: one enum that reports, summaries and benchmarks
read, instead of matching words in notes."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class StopReason(Enum):
    """A stage cut short, or an estimate returned other than as planned."""

    SEARCH_BUDGET = "search_budget"
    RACING_BUDGET = "racing_budget"
    VERIFICATION_BUDGET = "verification_budget"
    VERIFICATION_CLOCK = "verification_clock"
    PILOT_RETURNED = "pilot_returned"
    SETUP_OVERRAN = "setup_overran"

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]

    @property
    def ends_certification(self) -> bool:
        """Whether it bears on the final certificate (what an estimate's summary shows)."""
        return self not in (StopReason.SEARCH_BUDGET, StopReason.RACING_BUDGET)


_DESCRIPTIONS = {
    StopReason.SEARCH_BUDGET: "the draw or time budget ended the search before all its trials",
    StopReason.RACING_BUDGET: "the draw or time budget ended the search's racing rounds",
    StopReason.VERIFICATION_BUDGET: (
        "the draw or time budget ended verification before its last look"
    ),
    StopReason.VERIFICATION_CLOCK: "max_seconds ended verification's drawing",
    StopReason.PILOT_RETURNED: (
        "a timed estimate had no time for an estimate larger than its last pilot, and returned it"
    ),
    StopReason.SETUP_OVERRAN: "the call's one-time setup took it over max_seconds",
}


@dataclass(frozen=True)
class Stop:
    """One stop: its reason and the sentence the report shows (with the numbers)."""

    reason: StopReason
    text: str

    def to_dict(self) -> dict:
        return {"reason": self.reason.value, "text": self.text}
