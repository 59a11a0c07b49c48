"""OpenDP measurements as audit targets (``pip install "dpfuzz[opendp]"``, opendp 0.16).

OpenDP states its guarantee as a privacy map, ``measurement.map(d_in)``, in its own input metric:
* ``SymmetricDistance`` counts added plus removed records, so one record added or removed is
  d_in = 1 and one record substituted is d_in = 2;
* ``ChangeOneDistance`` / ``HammingDistance`` count substituted records (d_in = 1);
* ``AbsoluteDistance`` / ``L1Distance`` / ``L2Distance`` / ``LInfDistance`` bound how far a query
  answer (vector) moves: dpfuzz audits answers that each move by at most `sensitivity` (ℓ∞),
  i.e. d_in = sensitivity for a scalar or in ℓ∞, k·sensitivity (ℓ1) or √k·sensitivity (ℓ2) for
  k answers.
The claim is read at the d_in of the relation audited; auditing substitution on a
``SymmetricDistance`` measurement is an explicit ``relation="substitute"``, which reads map(2).
A sized input domain (``vector_domain(..., size=n)``) has only substitution neighbours: its
datasets hold n records and the claim is map(2). Records' bounds come from the input domain, or
from `bounds` when the pipeline clamps inside (``then_clamp``); a release that needs no bounds
(a count) is audited on the `domain` given.
Output measures: ``MaxDivergence`` → ε-DP, ``ZeroConcentratedDivergence`` → ρ-zCDP,
``SmoothedMaxDivergence`` (a privacy profile) → (ε(δ), δ)-DP at `delta`, and
``Approximate(MaxDivergence)`` → (ε, δ)-DP.

Sampling: one call per release (≈ 10^4 per second); OpenDP draws from the operating system's
randomness, so audits are valid but not bit-reproducible. The fast path runs `transformation`
once per dataset and `noise`, the same noise as a measurement on vectors, on [value] × size.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpfuzz.adapters import LibraryTarget
from dpfuzz.claims import ApproxDP, PureDP, ZeroConcentratedDP
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument, UnsupportedClaimError
from dpfuzz.mechanism import per_call

RECORD_METRICS = {
    "SymmetricDistance": {"add_remove": 1, "substitute": 2},
    "InsertDeleteDistance": {"add_remove": 1},
    "ChangeOneDistance": {"substitute": 1},
    "HammingDistance": {"substitute": 1},
}
ANSWER_METRICS = ("AbsoluteDistance", "L1Distance", "L2Distance", "LInfDistance")


def opendp_target(
    measurement: Any,
    *,
    relation: str | None = None,
    max_size: int = 10,
    answers: int = 1,
    sensitivity: float = 1.0,
    delta: float = 1e-6,
    transformation: Any = None,
    noise: Any = None,
    name: str | None = None,
    bounds: tuple[float, float] | None = None,
    domain: Domain | None = None,
) -> LibraryTarget:
    """An audit target from an OpenDP `measurement` (see the module docstring).

    `relation` defaults to the measurement's own convention (add/remove for
    ``SymmetricDistance``, substitution on a sized domain); `max_size` bounds dataset sizes;
    `bounds` gives the records' range when the pipeline clamps inside; `domain` replaces the
    domain dpfuzz reads from the measurement (its relation included); `answers` and
    `sensitivity` shape query-answer inputs; `transformation` and `noise` give the fast path.
    `name` is what reports call it (default: the measurement's output measure and input domain,
    as OpenDP prints them).
    """
    metric = _name(measurement.input_metric)
    if metric in RECORD_METRICS:
        d_in, domain, convention = _record_input(
            measurement, metric, relation, domain, bounds, max_size
        )
    elif metric.startswith(ANSWER_METRICS):
        integer = _is_integer(measurement.input_domain)
        d_in, domain, convention = _answer_input(metric, relation, answers, sensitivity, integer)
    else:
        raise InvalidArgument(
            f"dpfuzz reads OpenDP input metrics {sorted(RECORD_METRICS)} and"
            f" {list(ANSWER_METRICS)}, got {metric}."
        )
    claim = _claim(measurement, d_in, delta)
    scalar_input = metric == "AbsoluteDistance"
    mechanism = _mechanism(measurement, scalar_input, transformation, noise)
    mechanism.name = (
        name
        or f"OpenDP {_name(measurement.output_measure)} measurement on {measurement.input_domain}"
    )
    return LibraryTarget(
        mechanism, claim, domain, f"{convention}; claim {claim.describe()} = map({d_in:g})"
    )


def _record_input(
    measurement: Any,
    metric: str,
    relation: str | None,
    domain: Domain | None,
    bounds: tuple[float, float] | None,
    max_size: int,
) -> tuple[float, Domain, str]:
    """(d_in, domain, convention) of a measurement on records: the relation its metric supports
    (substitution only on a sized input domain) and the domain read from its input domain."""
    allowed = RECORD_METRICS[metric]
    size = getattr(measurement.input_domain, "size", None)
    relation = (domain.relation.name if domain is not None else relation) or (
        "substitute" if size else next(iter(allowed))
    )
    if relation not in allowed or (size and relation != "substitute"):
        sized = f" (its input domain holds exactly {size} records)" if size else ""
        raise InvalidArgument(
            f"OpenDP's {metric}{sized} supports relation"
            f" {sorted(allowed) if not size else ['substitute']}, got {relation!r}."
        )
    d_in = allowed[relation]
    if domain is None:
        low, high = bounds if bounds is not None else _bounds(measurement.input_domain)
        domain = Domain(
            low=low,
            high=high,
            min_size=size or 0,
            max_size=size or max_size,
            relation=relation,
            dtype="int" if _is_integer(measurement.input_domain) else "float",
        )
    return d_in, domain, f"{metric}: {relation} is d_in = {d_in}"


def _answer_input(
    metric: str, relation: str | None, answers: int, sensitivity: float, integer: bool
) -> tuple[float, Domain, str]:
    """(d_in, domain, convention) of a measurement on query answers: `answers` of them (integers
    where the measurement takes integers), each moving by at most `sensitivity` (relation
    ``linf``)."""
    if relation not in (None, "linf"):
        raise InvalidArgument(
            f"OpenDP's {metric} bounds how far answers move: audit it under relation 'linf',"
            f" got {relation!r}."
        )
    norm = next(name for name in ANSWER_METRICS if metric.startswith(name))
    d_in = sensitivity * {"L1Distance": answers, "L2Distance": math.sqrt(answers)}.get(norm, 1.0)
    if integer and float(d_in).is_integer():  # an integer metric's map takes an integer
        d_in = int(d_in)
    domain = Domain(
        low=-10.0,
        high=10.0,
        min_size=answers,
        max_size=answers,
        relation="linf",
        sensitivity=sensitivity,
        dtype="int" if integer else "float",
    )
    convention = (
        f"{metric}: {answers} answer(s) each moving by ≤ {sensitivity:g} is d_in = {d_in:g}"
    )
    return d_in, domain, convention


def _claim(measurement, d_in: float, delta: float):
    measure, value = _name(measurement.output_measure), measurement.map(d_in)
    if measure == "MaxDivergence":
        return PureDP(float(value))
    if measure == "ZeroConcentratedDivergence":
        return ZeroConcentratedDP(float(value))
    if measure == "SmoothedMaxDivergence":
        return ApproxDP(float(value.epsilon(delta)), delta)
    if measure.startswith("Approximate"):
        epsilon, approximate_delta = value
        return ApproxDP(float(epsilon), float(approximate_delta))
    raise UnsupportedClaimError(
        "dpfuzz reads OpenDP output measures MaxDivergence, ZeroConcentratedDivergence, "
        f"SmoothedMaxDivergence and Approximate(…), got {measure}."
    )


def _mechanism(measurement, scalar_input: bool, transformation, noise):
    def as_input(dataset: np.ndarray):
        values = np.asarray(dataset).tolist()
        return values[0] if scalar_input else values

    if transformation is not None and noise is not None:

        def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
            return np.asarray(noise([transformation(as_input(dataset))] * size), dtype=float)

        def release(dataset: np.ndarray, rng: np.random.Generator):
            return batch(dataset, 1, rng)[0]

        return per_call(release, batch=batch)
    if transformation is not None or noise is not None:
        raise InvalidArgument(
            "the fast path needs both transformation and noise (the noise as a measurement on"
            " vectors)."
        )

    def measure(dataset: np.ndarray, rng: np.random.Generator):
        return np.asarray(measurement(as_input(dataset)), dtype=float)

    return per_call(measure)


def _name(descriptor) -> str:
    return (
        str(descriptor).split("(")[0]
        if not str(descriptor).startswith("Approximate")
        else str(descriptor)
    )


def _bounds(domain) -> tuple[float, float]:
    element = getattr(domain, "element_domain", None)
    bounds = getattr(element, "bounds", None) if element is not None else None
    if bounds is None:
        raise InvalidArgument(
            f"dpfuzz needs the records' range: the measurement's input domain {domain} has no"
            " bounds. Give bounds=(L, U) (the range your pipeline clamps to, e.g. with"
            " dp.t.then_clamp), or domain=dpfuzz.Domain(...) for a release that needs none (a"
            " count)."
        )
    return float(bounds[0]), float(bounds[1])


def _is_integer(domain) -> bool:
    return "i32" in str(domain) or "i64" in str(domain) or "u32" in str(domain)
