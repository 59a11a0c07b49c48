"""What a campaign's audits come to: the `Outcome` each summary stores, which outcomes fail a
run, the `AuditRow` a campaign stores for each audit, and `Ended`, the supervisor's word for an
audit whose process ended without a result."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """One audit's outcome; its value is what summaries store and reports print."""

    CAUGHT = "caught"
    OK = "ok"
    MISSED = "missed"
    FALSE_ALARM = "false alarm"
    REFUTED = "refuted"
    NOT_REFUTED = "not refuted"
    INCONCLUSIVE = "inconclusive"
    ERROR = "error"
    CRASHED = "crashed"
    TIMED_OUT = "timed out"
    SKIPPED = "skipped"

    @property
    def meaning(self) -> str:
        """The outcome in a sentence, for reports' glossaries."""
        return _MEANINGS[self]


_MEANINGS = {
    Outcome.CAUGHT: 'a known bug (truth "violates") refuted, as it should be.',
    Outcome.OK: 'a correct mechanism (truth "satisfies") not refuted, by an audit with power.',
    Outcome.MISSED: "a known bug not refuted: the audit could not see it at this budget.",
    Outcome.FALSE_ALARM: (
        "a correct mechanism refuted: this happens with probability at most β per audit."
    ),
    Outcome.REFUTED: ("a claim of unknown truth refuted: your code is not as private as claimed."),
    Outcome.NOT_REFUTED: (
        "a claim of unknown truth not refuted, by an audit with power (its page states it)."
    ),
    Outcome.INCONCLUSIVE: (
        "the audit could not test the claim (its page says why and what would test it)."
    ),
    Outcome.ERROR: "the audit could not run: the mechanism raised, or returned bad outputs.",
    Outcome.CRASHED: (
        "the audit's process ended before it reported: the mechanism exited, was killed or ran"
        " out of memory."
    ),
    Outcome.TIMED_OUT: "the audit ran past the campaign's audit_timeout and was stopped.",
    Outcome.SKIPPED: "a library the target needs is not installed.",
}

# The outcomes that fail a nightly job, in the order reports list them.
FAILING = (
    Outcome.MISSED,
    Outcome.FALSE_ALARM,
    Outcome.REFUTED,
    Outcome.CRASHED,
    Outcome.TIMED_OUT,
    Outcome.ERROR,
    Outcome.INCONCLUSIVE,
)
# The outcomes ``--retry-failed`` runs again: the audit did not run to a verdict.
RETRIED = (Outcome.ERROR, Outcome.CRASHED, Outcome.TIMED_OUT)


def failing(allow_inconclusive: bool = False) -> tuple[Outcome, ...]:
    """The outcomes that fail a nightly job: `FAILING`, without inconclusive when allowed."""
    return tuple(
        outcome
        for outcome in FAILING
        if not (allow_inconclusive and outcome is Outcome.INCONCLUSIVE)
    )


def outcome_of(truth: str | None, verdict: str | bool) -> Outcome:
    """caught / missed (a known bug not refuted) / false alarm (a correct one refuted) / ok /
    refuted / not refuted, or inconclusive (the audit could not test the claim) whatever the
    truth. `verdict` is a `Verdict` or its value; True / False stand for violated / not refuted."""
    if verdict == "inconclusive":
        return Outcome.INCONCLUSIVE
    violated = verdict is True or verdict == "violated"
    if truth == "violates":
        return Outcome.CAUGHT if violated else Outcome.MISSED
    if truth == "satisfies":
        return Outcome.FALSE_ALARM if violated else Outcome.OK
    return Outcome.REFUTED if violated else Outcome.NOT_REFUTED


@dataclass(frozen=True)
class AuditRow:
    """One audit's summary as a campaign stores it (`to_dict`, JSON in the results store): what
    identifies it, its claim, its `outcome`, and its numbers once it ran to a verdict. Stored rows
    are read back as dicts, so rows of every earlier version read the same way."""

    key: str
    target: str
    params: dict = field(default_factory=dict)
    finder: str = "random"
    seed: int = 0
    truth: str | None = None
    tester: str = "entry"
    outcome: Outcome = Outcome.ERROR
    claim: str = "?"
    claim_type: str | None = None
    claimed_epsilon: float | None = None
    error: str | None = None  # why the audit did not run to a verdict
    seconds: float = 0.0
    violated: bool | None = None
    epsilon_lower_bound: float | None = None
    bound: float | None = None
    threshold: float | None = None
    trials_to_witness: int | None = None
    draws: int | None = None
    power: str | None = None
    inconclusive: str | None = None
    output: str | None = None  # the end of what the audit printed
    output_bytes: int | None = None

    def ended(self, outcome: Outcome, error: str, seconds: float) -> AuditRow:
        """This row for an audit that ended without a verdict."""
        return replace(self, outcome=outcome, error=error, seconds=seconds)

    def to_dict(self) -> dict[str, Any]:
        """The stored summary: every field, but `error` and the output only where there are."""
        row = asdict(self)
        for name in ("error", "output", "output_bytes"):
            if row[name] is None:
                del row[name]
        return row


@dataclass(frozen=True)
class Ended:
    """An audit whose process ended without a result: `outcome` (crashed or timed out), why,
    and how long it ran."""

    outcome: Outcome
    reason: str
    seconds: float


@dataclass(frozen=True)
class Finished:
    """One audit as its supervisor returns it: the audit's own result (key, `AuditRow`, report),
    or how its process `ended` without one; and the end (`output`) and size of what it printed."""

    key: str
    result: tuple | None
    ended: Ended | None = None
    output: str = ""
    output_bytes: int = 0
