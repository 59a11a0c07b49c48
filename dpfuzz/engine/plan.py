"""The plan of one run: how many pairs, how many outputs each stage draws, how verification
certifies. A front door decides it from its settings (and the probe, if it needs one) before
the search; nothing changes it afterwards."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dpfuzz.settings import AuditSettings
from dpfuzz.testers.base import Tester


@dataclass(frozen=True)
class Plan:
    """What the search and the verification of one run do.

    Attributes
    ----------
    trials : pairs the finder proposes.
    samples : search outputs per side of a pair (adaptive: at most).
    verify_samples : fresh outputs per side that certify (adaptive: at most).
    beta : the run's family-wise false-alarm probability.
    adaptive : pairs race and verification looks stop at the first refutation
        (`dpfuzz.engine.schedule`); otherwise every pair gets `samples` and verification one
        look of `verify_samples`.
    directions : 2 to certify both orders of the chosen pair on the same fresh outputs (each
        at half a look's β), 1 for the order the search chose.
    selection_samples : the held-out size events are chosen for when it is not the
        evaluation's own (an estimate: its final certification's size); None otherwise.
    orient_by_fit : one given pair oriented, and its event chosen, in one fit on all its search
        samples (`Tester.fit_oriented`) rather than by held-out scores of both directions.
    sequential : search and certification as one race, certified by betting at every look
        (`dpfuzz.engine.race`).
    fill_racing : an open-ended finder proposes pairs beyond `trials` while the racing schedule
        fits the nominal trials × samples per side (`AuditPolicy.racing_fill`).
    """

    trials: int
    samples: int
    verify_samples: int
    beta: float
    adaptive: bool = True
    directions: int = 2
    selection_samples: int | None = None
    orient_by_fit: bool = False
    fill_racing: bool = False
    sequential: bool = False
    sharpen: bool = False

    def selection_size(self, samples: int) -> int:
        """The held-out size events are chosen for, where `samples` would evaluate them."""
        return min(samples, self.selection_samples) if self.selection_samples else samples

    @classmethod
    def from_settings(cls, settings: AuditSettings, tester: Tester, **choices: Any) -> Plan:
        """The plan `settings` describe for `tester` (a symmetric tester verifies one direction);
        `choices` set the fields settings do not hold."""
        both = settings.verify_directions == "both" and tester.directional
        return cls(
            trials=settings.trials,
            samples=settings.samples,
            verify_samples=settings.verification_samples,
            beta=settings.beta,
            adaptive=settings.sampling == "adaptive",
            directions=2 if both else 1,
            sequential=settings.sampling == "sequential",
            sharpen=settings.sharpen,
            **choices,
        )
