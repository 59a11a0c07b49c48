"""Every knob of an audit in one frozen, validated value, shared by `audit`, the command line,
campaign configs and the pytest plugin; the named budgets are presets of it.

>>> AuditSettings.build(budget="quick", beta=0.01)  # doctest: +SKIP

Validation happens once, here, when the value is made: a bad value, an unknown option or a
misspelt name raises `InvalidArgument` naming it (with a suggestion where one is close).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from dpfuzz import names
from dpfuzz.datasets import DatasetPair
from dpfuzz.errors import InvalidArgument
from dpfuzz.validation import (
    check_choice,
    check_int,
    check_keys,
    check_probability,
    check_seconds,
)

SAMPLING_MODES = names.SAMPLING
ARITHMETIC = names.ARITHMETIC
VERIFY_DIRECTIONS = names.VERIFY_DIRECTIONS
# One verification draw is cheap next to `trials` search draws, and it alone sets the
# certified bound's confidence width, so it gets more samples by default.
VERIFY_FACTOR = 5


@dataclass(frozen=True)
class AuditSettings:
    """How an audit searches and certifies.

    Attributes
    ----------
    tester : a tester name (``"auto"``, ``"hockey_stick"``, ``"histogram"``, ``"mmd"``,
        ``"renyi"``, ``"float_bits"``) or a `dpfuzz.testers.Tester`.
    finder : a finder name (``"random"``, ``"grid"``, ``"hypothesis"``, ``"vizier"``), a finder
        object, or a `DatasetPair` / list of pairs to audit exactly those.
    trials : neighbouring pairs the finder proposes.
    samples : mechanism outputs per dataset for one search trial (adaptive sampling: at most).
    verify_samples : fresh outputs per dataset to certify (default 5 × `samples`; adaptive
        sampling: at most).
    beta : false-alarm probability of the whole audit.
    seed : makes the audit reproducible; drawn at random (and reported) when None.
    sampling : ``"auto"`` (default: ``"sequential"`` when the audit affords fewer draws than the
        smallest adaptive audit — its max_draws, or its call rate × its time limit — and the
        claim can be raced; ``"adaptive"`` otherwise, `dpfuzz.engine.sampling`),
        ``"adaptive"`` (draws go to the most violating pairs, verification stops as soon as a
        violation is certified), ``"fixed"`` (every trial gets `samples`, verification gets
        `verify_samples`) or ``"sequential"`` (search and certification as one race: the first
        `trials` pairs draw in rounds, every output after the first round's is bet on, and the
        audit stops at the first round whose evidence refutes the claim at level β, or when
        max_draws or max_seconds end it: slow releases, (ε, δ) claims, hockey-stick tester).
    max_draws : cap on all mechanism outputs the audit draws (deterministic).
    max_seconds : cap on the audit's wall-clock time, a hard one (not reproducible; the report
        says so).
    call_timeout : seconds one call of the mechanism may take (a vectorised mechanism's call, or
        one call of a `per_call` function); a call that takes longer ends the audit with a
        `MechanismError` naming it. None: no limit but `max_seconds`.
    arithmetic : ``"real"`` (default: outputs are audited as the real numbers they stand for)
        or ``"float"`` (also as the float64 values they are: the float bit-pattern tester runs
        beside the audit's tester, each at β/2).
    verify_directions : ``"both"`` (default: the verification certifies the chosen pair in both
        directions on the same fresh outputs, each at half the look's β, and reports the one that
        refutes) or ``"one"`` (only the direction the search found more violating, at the whole β).
        Testers whose test is symmetric (mmd) verify one direction either way.
    sharpen : sequential sampling (``"auto"`` then races): after a refutation, keep betting on
        the witness pair until max_draws or max_seconds ends the audit, each round's event
        fitted at the ε certified so far, to raise the certified ε lower bound (default False:
        stop at the refutation).
    """

    tester: Any = "auto"
    finder: Any = "random"
    trials: int = 10
    samples: int = 100_000
    verify_samples: int | None = None
    beta: float = 0.05
    seed: int | None = None
    sampling: str = "auto"
    max_draws: int | None = None
    max_seconds: float | None = None
    call_timeout: float | None = None
    arithmetic: str = "real"
    verify_directions: str = "both"
    sharpen: bool = False

    def __post_init__(self) -> None:
        from dpfuzz.finders import FINDER_NAMES
        from dpfuzz.testers import TESTER_NAMES, Tester

        if isinstance(self.tester, str):
            check_choice("tester", self.tester, ("auto", *TESTER_NAMES))
        elif not isinstance(self.tester, Tester):
            raise InvalidArgument(
                f"tester must be a name ('auto', {', '.join(TESTER_NAMES)}) or a dpfuzz Tester, got"
                f" {self.tester!r}."
            )
        if isinstance(self.finder, str):
            check_choice("finder", self.finder, FINDER_NAMES)
        elif isinstance(self.finder, (list, tuple)):
            if not self.finder or not all(isinstance(pair, DatasetPair) for pair in self.finder):
                raise InvalidArgument(
                    "a list given as finder must hold one or more DatasetPairs, got"
                    f" {self.finder!r}."
                )
        check_int("trials", self.trials, minimum=1)
        check_int("samples (per dataset)", self.samples, minimum=10)
        if self.verify_samples is not None:
            check_int("verify_samples (per dataset)", self.verify_samples, minimum=10)
        check_probability("beta", self.beta)
        if self.seed is not None:
            check_int("seed", self.seed, minimum=0)
        check_choice("sampling", self.sampling, SAMPLING_MODES)
        if self.max_draws is not None:
            check_int("max_draws", self.max_draws, minimum=1)
        if self.max_seconds is not None:
            check_seconds("max_seconds", self.max_seconds)
        if self.call_timeout is not None:
            check_seconds("call_timeout", self.call_timeout)
        check_choice("arithmetic", self.arithmetic, ARITHMETIC)
        check_choice("verify_directions", self.verify_directions, VERIFY_DIRECTIONS)
        if not isinstance(self.sharpen, bool):
            raise InvalidArgument(f"sharpen must be True or False, got {self.sharpen!r}.")
        if self.sharpen and self.sampling not in ("auto", "sequential"):
            raise InvalidArgument(
                "sharpen=True keeps betting after a sequential refutation; give"
                f" sampling='sequential' or 'auto' (got {self.sampling!r}), or leave sharpen"
                " unset."
            )

    @property
    def verification_samples(self) -> int:
        """`verify_samples`, or its default 5 × `samples`."""
        return VERIFY_FACTOR * self.samples if self.verify_samples is None else self.verify_samples

    @classmethod
    def build(
        cls, settings: AuditSettings | None = None, *, budget: str | None = None, **options: Any
    ) -> AuditSettings:
        """Settings from a base (`settings`, or the named `budget` preset, or the defaults) with
        `options` on top; unknown option names are an error."""
        if settings is not None and budget is not None:
            raise InvalidArgument(
                "give either settings or budget, not both (a budget is a preset of settings)."
            )
        if settings is not None and not isinstance(settings, AuditSettings):
            raise InvalidArgument(
                f"settings must be a dpfuzz.AuditSettings, got {type(settings).__name__}."
            )
        base = settings if settings is not None else preset(budget or "default")
        check_keys(options, FIELDS, "audit option")
        return dataclasses.replace(base, **options)

    def to_dict(self) -> dict:
        """JSON-ready: testers and finders given as objects appear by name."""
        data = {field: getattr(self, field) for field in FIELDS}
        data["tester"] = self.tester if isinstance(self.tester, str) else self.tester.name
        if isinstance(self.finder, (list, tuple, DatasetPair)):
            data["finder"] = "fixed"
        elif not isinstance(self.finder, str):
            data["finder"] = getattr(self.finder, "name", type(self.finder).__name__)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> AuditSettings:
        check_keys(data, FIELDS, "audit settings")
        return cls(**data)


FIELDS = tuple(field.name for field in dataclasses.fields(AuditSettings))

# Named budgets: `quick` for every push (a few seconds per vectorised mechanism), `thorough`
# for nightly runs, `default` what `audit` does unless told otherwise.
BUDGETS = {
    "default": AuditSettings(),
    "quick": AuditSettings(trials=10, samples=20_000, verify_samples=100_000),
    "thorough": AuditSettings(trials=30, samples=200_000, verify_samples=1_000_000),
}


def preset(name: str) -> AuditSettings:
    return BUDGETS[check_choice("budget", name, tuple(BUDGETS))]
