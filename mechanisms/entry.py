"""A catalogue entry: a mechanism factory with its claim, domain, ground truth and witness."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, PureDP, RenyiDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import Mechanism
from dpfuzz.validation import did_you_mean


@dataclass(frozen=True)
class Truth:
    """Whether the mechanism satisfies its claim, and its true privacy parameter where known.

    ``satisfies`` is None where the truth is not established for those parameters (the note
    says what is known); such settings are left out of the regression suite.

    ``true_epsilon`` is the smallest ε known to hold: exact where the note says "tight",
    otherwise the best proven upper bound (``math.inf`` for no finite ε, None when unknown).
    For Rényi claims it is the Rényi ε at the claim's α.
    """

    satisfies: bool | None
    true_epsilon: float | None = None
    note: str = ""

    def to_dict(self) -> dict:
        true_epsilon: float | str | None = self.true_epsilon
        if self.true_epsilon is not None and math.isinf(self.true_epsilon):
            true_epsilon = "inf"
        return {"satisfies": self.satisfies, "true_epsilon": true_epsilon, "note": self.note}


# A field given either as a value or as a function of the entry's parameters.
Parametric = Any


@dataclass(frozen=True)
class CatalogueEntry:
    """One mechanism of the regression suite.

    Call the entry with its parameters (claimed privacy parameters and knobs) to get the
    vectorised mechanism: ``NonDPLaplaceMean1(epsilon=0.5)``. `claim`, `domain`, `truth` and
    `witness` take the same parameters; missing ones come from `defaults`.
    """

    name: str
    family: str
    build: Callable[..., Mechanism]
    claim_type: type
    defaults: dict
    domain_spec: Parametric
    truth_spec: Parametric
    witness_spec: Parametric = None
    description: str = ""
    claim_spec: Parametric = None  # when the claim is not just the claim type of the parameters
    tester: str = "auto"  # the tester that suits the entry's outputs
    describe_output: Callable[[np.ndarray], str | None] | None = None  # words for an output pattern

    def params(self, **overrides: Any) -> dict:
        unknown = sorted(set(overrides) - set(self.defaults))
        if unknown:
            hints = "".join(did_you_mean(name, self.defaults) for name in unknown)
            raise InvalidArgument(
                f"{self.name} takes parameters {sorted(self.defaults)}, got unknown"
                f" {unknown}.{hints}"
            )
        for name, value in overrides.items():
            default = self.defaults[name]
            if value is not None and _kind(default) is not None and _kind(value) != _kind(default):
                raise InvalidArgument(
                    f"{self.name}'s parameter {name} is a {_kind(default)} (default {default!r}),"
                    f" got {value!r}; give e.g. {name}={json.dumps(default, default=str)}."
                )
        return {**self.defaults, **overrides}

    def __call__(self, **params: Any) -> Mechanism:
        params = self.params(**params)
        mechanism = self.build(**params)
        mechanism.name = self.name  # type: ignore[attr-defined]
        if self.describe_output is not None:
            mechanism.describe_output = self.describe_output  # type: ignore[attr-defined]
        return mechanism

    def claim(self, **params: Any) -> Claim:
        params = self.params(**params)
        if self.claim_spec is not None:
            return self._resolve(self.claim_spec, params)
        if self.claim_type is PureDP:
            return PureDP(params["epsilon"])
        if self.claim_type is ApproxDP:
            return ApproxDP(params["epsilon"], params["delta"])
        if self.claim_type is RenyiDP:
            return RenyiDP(params["alpha"], params["epsilon"])
        raise InvalidArgument(f"{self.name} has an unknown claim type {self.claim_type!r}.")

    def domain(self, **params: Any) -> Domain:
        return self._resolve(self.domain_spec, params)

    def truth(self, **params: Any) -> Truth:
        return self._resolve(self.truth_spec, params)

    def witness(self, **params: Any) -> DatasetPair | None:
        """A neighbouring pair (d0, d1) on which the violation (or tightness) shows, if known."""
        return self._resolve(self.witness_spec, params)

    def _resolve(self, spec: Parametric, params: dict) -> Any:
        return spec(**self.params(**params)) if callable(spec) else spec

    def to_dict(self, **params: Any) -> dict:
        params = self.params(**params)
        witness = self.witness(**params)
        return {
            "name": self.name,
            "family": self.family,
            "params": params,
            "claim": self.claim(**params).to_dict(),
            "domain": self.domain(**params).to_dict(),
            "truth": self.truth(**params).to_dict(),
            "witness": None if witness is None else witness.to_dict(),
            "description": self.description,
            "tester": self.tester,
        }


def _kind(value: Any) -> str | None:
    """ "number", "string" or "boolean" for a parameter value; None for other values (unchecked)."""
    if isinstance(value, (bool, np.bool_)):
        return "boolean"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "number"
    return "string" if isinstance(value, str) else None
