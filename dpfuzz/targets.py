"""What to audit, named on the command line or in a campaign config: one rule for both.

A target is named

* ``package.module:attribute`` — a catalogue entry, a mechanism (a callable taking
  ``num_samples``, `dpfuzz.per_call` wrappers included) or a mechanism factory; or
* a bare catalogue entry name, e.g. ``NonDPLaplaceMean1`` (so a user's own module called
  ``mechanisms`` never shadows the catalogue); or
* an object already in hand (same three kinds).

A catalogue entry brings its claim, domain, truth and tester; flags override its claimed
parameters. A factory is called with the claimed parameters it accepts and the ``params``
given; a parameter it does not take is an error (with a suggestion), as for entries.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dpfuzz.errors import ConfigError, DPFuzzError, InvalidArgument, TargetBuildError
from dpfuzz.validation import did_you_mean

if TYPE_CHECKING:
    from dpfuzz.claims import Claim
    from dpfuzz.domain import Domain

CLAIM_PARAMETERS = ("epsilon", "delta", "alpha")


@dataclass(frozen=True)
class Resolved:
    """A target ready to audit."""

    name: str
    mechanism: Any
    claim: Any
    domain: Any
    truth: str | None = None  # "satisfies", "violates" or None (unknown)
    tester: str = "auto"  # the tester that suits its outputs


def load_attribute(spec: str) -> Any:
    """Import ``package.module:attribute.path`` (modules in the working directory included: the
    working directory joins `sys.path`)."""
    module_name, separator, attribute = spec.partition(":")
    if not separator or not module_name or not attribute:
        raise ConfigError(
            f"target {spec!r} must look like 'package.module:attribute' or be a catalogue entry"
            " name."
        )
    if (
        str(Path.cwd()) not in sys.path
    ):  # it stays: processes a mechanism starts (per_call workers) import it too
        sys.path.insert(0, str(Path.cwd()))
    try:
        value: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if (
            error.name is not None
            and module_name != error.name
            and not module_name.startswith(error.name + ".")
        ):
            raise TargetBuildError(
                f"target {spec!r}: importing {module_name!r} raised ModuleNotFoundError: {error}"
            ) from error
        raise ConfigError(
            f"target {spec!r}: cannot import module {module_name!r} ({error})."
        ) from error
    except Exception as error:  # the module itself raised (a SyntaxError, an error at import time)
        raise TargetBuildError(
            f"target {spec!r}: importing {module_name!r} raised {type(error).__name__}: {error}"
        ) from error
    for part in attribute.split("."):
        if not hasattr(value, part):
            hint = did_you_mean(part, [name for name in dir(value) if not name.startswith("_")])
            raise ConfigError(f"module {module_name!r} has no attribute {attribute!r}.{hint}")
        value = getattr(value, part)
    return value


def lookup(target: Any) -> Any:
    """The object a target names (see the module docstring)."""
    if not isinstance(target, str):
        return target
    if ":" in target:
        return load_attribute(target)
    from dpfuzz.catalogue import entry

    if "." in target and target.replace(".", "").replace("_", "").isalnum():
        module, attribute = target.rsplit(".", 1)
        raise ConfigError(
            f"target {target!r} is not a catalogue entry; a mechanism in a module is named"
            f" 'module:attribute'. Did you mean '{module}:{attribute}'?"
        )
    try:
        return entry(target)
    except InvalidArgument as error:
        raise ConfigError(
            f"target {target!r} is neither 'package.module:attribute' nor a catalogue entry:"
            f" {error}"
        ) from None


def resolve(
    target: Any,
    *,
    claimed: dict | None = None,
    params: dict | None = None,
    claim: Claim | None = None,
    domain: Domain | None = None,
    per_call: bool = False,
    structured: bool = False,
) -> Resolved:
    """The mechanism, claim, domain, truth and suited tester of a target.

    `claimed` holds claim parameters from flags (``epsilon``, ``delta``, ``alpha``, ``mu``,
    ``rho``); `params` the other factory or entry parameters; `claim` and `domain` replace the
    target's own. With `per_call`, the target is a function releasing one output per call,
    ``(dataset, rng)``, or a factory returning one, and is wrapped with `dpfuzz.per_call`. With
    `structured`, its outputs are natural ones (a dict of keyed results, a category, a tuple, …),
    one per call or a list from a mechanism, and it is wrapped with `dpfuzz.outputs.structured`.
    """
    from dpfuzz.catalogue.entry import CatalogueEntry
    from dpfuzz.claims import claim_from_parameters
    from dpfuzz.domain import Domain
    from dpfuzz.mechanism import mechanism_name

    claimed, params = dict(claimed or {}), dict(params or {})
    label = target if isinstance(target, str) else mechanism_name(target)
    value = lookup(target)
    if isinstance(value, CatalogueEntry):
        return _catalogue_target(value, claimed, params, claim, domain)
    from dpfuzz.adapters import LibraryTarget

    if isinstance(value, LibraryTarget):  # a library release: its claim and domain come with it
        return Resolved(label, value.mechanism, claim or value.claim, domain or value.domain)
    if isinstance(value, Domain) or not callable(value):
        raise ConfigError(
            f"{label} is a {type(value).__name__}, not a catalogue entry, mechanism factory or"
            " mechanism."
        )
    if per_call or structured:
        value = _one_output_per_call(value, label, claimed, params, structured)
        params = {}
    mechanism = _mechanism(value, label, claimed, params, claim is not None)
    if isinstance(mechanism, LibraryTarget):  # a library release: its claim and domain come with it
        return Resolved(
            label, mechanism.mechanism, claim or mechanism.claim, domain or mechanism.domain
        )
    if claim is None:
        if not {"epsilon", "mu", "rho"} & set(claimed):
            raise ConfigError(
                f"{label} is not a catalogue entry: give the claim with --epsilon (and --delta or"
                " --alpha), --mu or --rho."
            )
        claim = claim_from_parameters(**claimed)
    return Resolved(label, mechanism, claim, domain or Domain())


def _catalogue_target(
    entry: Any, claimed: dict, params: dict, claim: Claim | None, domain: Domain | None
) -> Resolved:
    """A catalogue entry at the claimed and other parameters, with its truth there."""
    ignored = sorted(set(claimed) - set(entry.defaults))
    if ignored:
        raise ConfigError(f"{entry.name} claims {entry.claim().describe()}; it takes no {ignored}.")
    merged = entry.params(**claimed, **params)
    truth = entry.truth(**merged).satisfies
    return Resolved(
        entry.name,
        entry(**merged),
        claim or entry.claim(**merged),
        domain or entry.domain(**merged),
        None if truth is None else ("satisfies" if truth else "violates"),
        entry.tester,
    )


def _mechanism(value: Any, label: str, claimed: dict, params: dict, claim_given: bool) -> Any:
    """`value` itself when it is a mechanism (then it takes no parameters), else what the factory
    builds from the parameters: a mechanism, a `LibraryTarget`, or None for a factory that needs
    the claim's parameters when no claim is given (the claim is then what is missing)."""
    from dpfuzz.mechanism import is_mechanism

    if is_mechanism(value):
        if params:
            raise ConfigError(
                f"{label} is a mechanism, not a factory: it takes no parameters, got"
                f" {sorted(params)}."
            )
        return value
    try:
        return _built(value, label, _factory_arguments(value, label, claimed, params))
    except ConfigError:
        if claim_given or {"epsilon", "mu", "rho"} & set(claimed):
            raise
        return None


def _one_output_per_call(value, label: str, claimed: dict, params: dict, structured: bool = False):
    """`value` (a one-output function, or a factory of one) wrapped with `dpfuzz.per_call`; with
    `structured`, with `dpfuzz.outputs.structured` (which also takes a mechanism of lists)."""
    from dpfuzz.mechanism import PerCallMechanism, is_mechanism, per_call
    from dpfuzz.outputs import structured as encoded

    if structured and is_mechanism(value) and not isinstance(value, PerCallMechanism):
        return encoded(value)
    if is_mechanism(value):
        kind = (
            "a per_call wrapper already"
            if isinstance(value, PerCallMechanism)
            else "a mechanism (it takes num_samples)"
        )
        raise ConfigError(f"{label} is {kind}: name it without per_call.")
    function = (
        value
        if _takes_dataset_and_rng(value)
        else _built(value, label, _factory_arguments(value, label, claimed, params))
    )
    if not _takes_dataset_and_rng(function):
        raise ConfigError(
            f"per_call: {label} must be a function (dataset, rng) -> one output, or a factory"
            " returning one."
        )
    return encoded(function) if structured else per_call(function)


def _built(factory, label: str, arguments: dict):
    """`factory(**arguments)`; what it raises (but dpfuzz's own errors) is a `TargetBuildError`."""
    try:
        return factory(**arguments)
    except DPFuzzError:
        raise
    except Exception as error:
        raise TargetBuildError(
            f"{label}: its factory raised {type(error).__name__}: {error}"
        ) from error


def _takes_dataset_and_rng(function) -> bool:
    """Two required positional parameters, the second a generator: one output per call."""
    from dpfuzz.mechanism import RNG_NAMES

    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    required = [
        p
        for p in parameters
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return len(required) == 2 and required[1].name in RNG_NAMES


def _factory_arguments(factory, label: str, claimed: dict, params: dict) -> dict:
    """The claimed parameters the factory accepts, and `params`, all of which it must accept."""
    try:
        accepted = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return params
    if any(parameter.kind is parameter.VAR_KEYWORD for parameter in accepted.values()):
        return {**claimed, **params}
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        hints = "".join(did_you_mean(name, accepted) for name in unknown)
        raise ConfigError(
            f"factory {label} takes parameters {sorted(accepted)}, got unknown {unknown}.{hints}"
        )
    arguments = {**{key: value for key, value in claimed.items() if key in accepted}, **params}
    required = [
        name
        for name, parameter in accepted.items()
        if parameter.default is parameter.empty
        and parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD)
    ]
    missing = [name for name in required if name not in arguments]
    if missing == required and _takes_dataset_and_rng(factory):
        name = label.rpartition(":")[2]
        raise ConfigError(
            f"{label} takes ({', '.join(required)}): a mechanism releasing one output per call, not"
            " a factory. Give --per-call (in a campaign config: per_call = true), or wrap it where"
            f" it is defined, e.g. `{name}_mechanism = dpfuzz.per_call({name})` (a mechanism takes"
            " (dataset, num_samples, rng))."
        )
    if missing:
        flags = ", ".join(
            f"--{name}" if name in CLAIM_PARAMETERS else f"--param {name}=…" for name in missing
        )
        raise ConfigError(
            f"factory {label} needs {missing}: give {flags} (in a config: params = {{ … }})."
        )
    return arguments
