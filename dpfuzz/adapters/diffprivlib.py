"""diffprivlib releases as audit targets (``pip install "dpfuzz[diffprivlib]"``, diffprivlib 0.6.6,
which needs scikit-learn < 1.7).

diffprivlib states its claim as the `epsilon` (and `delta`) argument of each call, and no
neighbouring relation; the conventions here are read from its source. `tools.mean`, `var` and
`std` (and their nan-variants) divide by the actual n; `tools.sum`, `nansum` and `count_nonzero`
use the sensitivity upper − lower and truncate the output to [n·lower, n·upper]: all of these
are private only when n is public, i.e. under substitution. `tools.histogram` adds noise of
sensitivity 1 to each count and is private under add/remove; so are `quantile`, `percentile`
and `median` (the exponential mechanism over the intervals between sorted records, utility
−|rank − q·n| at ε/2: a record added moves it by at most 1). `diffprivlib_tool` audits each
under its own convention unless `relation` says otherwise: an add/remove claim audited under
substitute becomes 2ε (group privacy); a substitution claim audited under add/remove keeps ε, a
misuse dpfuzz refutes (docs/findings.md).

Mechanisms (`diffprivlib.mechanisms.Laplace`, `GaussianAnalytic`, …) release a noisy query
answer: audited as answers moving by at most their `sensitivity`.

Models (`diffprivlib_model`) release the fitted parameters (trees and forests: each tree's
predictions at the points {0, ½, 1}^features, a function of its parameters); their conventions
are read from the source (`MODEL_CONVENTIONS`): where the actual n enters a sensitivity or a
post-processing step, n is public and the convention is substitution. A forest splits the
records between its trees by position (tree i fits positions [i·n/k, (i+1)·n/k)), which moves
records between trees when n changes: the forest is not ε-DP under its trees' add/remove (a bug,
docs/findings.md).

Sampling: one call per release, seeded through ``random_state`` (tools) or the mechanism's own
generator, so audits are reproducible; each batch of calls gets a fresh `BudgetAccountant`
(the global one would record every call). diffprivlib's Laplace computes value − scale·L in
float64 and leaks through the low bits: audit with ``arithmetic="float"`` to test that.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from dpfuzz.adapters import LibraryTarget, claim_under, noisy_answer_target, stated_claim
from dpfuzz.claims import PureDP
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import PerCallMechanism, per_call
from dpfuzz.validation import check_choice

if TYPE_CHECKING:
    from dpfuzz.outputs import StructuredMechanism

CONVENTIONS = {
    "mean": "substitute",
    "var": "substitute",
    "std": "substitute",
    "nanmean": "substitute",
    "nanvar": "substitute",
    "nanstd": "substitute",
    "sum": "substitute",
    "nansum": "substitute",
    "count_nonzero": "substitute",
    "histogram": "add_remove",
    "histogramdd": "add_remove",
    "quantile": "add_remove",
    "percentile": "add_remove",
    "median": "add_remove",
}


def diffprivlib_tool(
    function: Callable[..., Any],
    *,
    epsilon: float,
    bounds: tuple[float, float],
    relation: str | None = None,
    min_size: int = 1,
    max_size: int = 10,
    dim: int | None = None,
    **arguments: Any,
) -> LibraryTarget:
    """An audit target for a `diffprivlib.tools` function called as
    ``function(dataset, epsilon=epsilon, bounds=bounds, **arguments)`` (histograms:
    ``range=bounds``, for `histogramdd` the same range in each of its `dim` coordinates; its
    records are points of [bounds]^dim and its output the counts, flattened).
    """
    name = getattr(function, "__name__", str(function))
    if name not in CONVENTIONS:
        raise InvalidArgument(
            f"dpfuzz knows the conventions of diffprivlib.tools {sorted(CONVENTIONS)}, got"
            f" {name!r}."
        )
    own = CONVENTIONS[name]
    relation = relation or own
    if (name == "histogramdd") != (dim is not None):
        raise InvalidArgument(
            f"dim is the number of coordinates of histogramdd's records: give it for"
            f" histogramdd and no other tool, got dim={dim!r} for {name!r}."
        )
    keywords: dict[str, dict[str, Any]] = {
        "histogram": {"range": tuple(bounds)},
        "histogramdd": {"range": [tuple(bounds)] * (dim or 1)},
        "count_nonzero": {},
    }
    keyword = keywords.get(name, {"bounds": tuple(bounds)})

    def release(dataset: np.ndarray, rng: np.random.Generator):
        from diffprivlib import BudgetAccountant

        seed = int(rng.integers(2**31 - 1))
        output = function(
            np.asarray(dataset, dtype=float),
            epsilon=epsilon,
            random_state=seed,
            accountant=BudgetAccountant(),
            **keyword,
            **arguments,
        )
        # histograms: (counts, edges)
        counts = np.asarray(output[0] if isinstance(output, tuple) else output, dtype=float)
        return counts.ravel() if dim else counts

    mechanism = per_call(release)
    mechanism.name = f"diffprivlib.tools.{name}"
    domain = Domain(
        low=bounds[0],
        high=bounds[1],
        min_size=min_size,
        max_size=max_size,
        relation=relation,
        dim=dim,
    )
    claim, how = claim_under(PureDP(epsilon), own, relation)
    return LibraryTarget(mechanism, claim, domain, f"tools.{name} is private under {own}; {how}")


def diffprivlib_mechanism(
    mechanism_object: Any, *, answers_range: tuple[float, float] = (-10.0, 10.0)
) -> LibraryTarget:
    """An audit target for a diffprivlib mechanism object (``.randomise(value)``): one query
    answer that moves by at most the mechanism's `sensitivity`; claim (ε, δ) from its fields.
    Integer mechanisms (Geometric…, GaussianDiscrete) get the answer's floor, which moves by at
    most the (integer) sensitivity too."""
    sensitivity = float(mechanism_object.sensitivity)
    integer = type(mechanism_object).__name__.startswith(("Geometric", "GaussianDiscrete"))
    epsilon, delta = float(mechanism_object.epsilon), float(getattr(mechanism_object, "delta", 0.0))

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        # diffprivlib 0.6's generator
        mechanism_object._rng = np.random.RandomState(int(rng.integers(2**31 - 1)))
        value = float(np.asarray(dataset, dtype=float)[0])
        value = int(np.floor(value)) if integer else value
        return np.array([mechanism_object.randomise(value) for _ in range(size)])

    return noisy_answer_target(
        batch,
        name=f"diffprivlib.mechanisms.{type(mechanism_object).__name__}",
        claim=stated_claim(epsilon, delta),
        answers_range=answers_range,
        sensitivity=sensitivity,
        convention=(
            f"one answer moving by ≤ sensitivity = {sensitivity:g}; claim from its epsilon, delta"
        ),
    )


# read from diffprivlib 0.6's source: where n enters a sensitivity, n is public
MODEL_CONVENTIONS = {
    "LogisticRegression": (
        "substitute"
    ),  # output perturbation with sensitivity 2/(nλ) (Chaudhuri et al. 2011)
    "LinearRegression": (
        "add_remove"
    ),  # functional mechanism: noisy sums, sensitivities from the bounds
    "GaussianNB": "substitute",  # its noisy class counts are made to sum to the actual n
    "KMeans": "add_remove",  # noisy counts and sums per cluster
    "PCA": "substitute",  # the mean divides by the actual n (tools.mean)
    "StandardScaler": "substitute",  # tools.nanmean and nanvar
    "DecisionTreeClassifier": (
        "add_remove"
    ),  # leaf labels by PermuteAndFlip(monotonic=True) on class counts
    "RandomForestClassifier": (
        "add_remove"
    ),  # trees as above, each on a disjoint part of the records
}
LABELLED = {
    "LogisticRegression": "class",
    "GaussianNB": "class",
    "LinearRegression": "target",
    "DecisionTreeClassifier": "class",
    "RandomForestClassifier": "class",
}
TREES = ("DecisionTreeClassifier", "RandomForestClassifier")
DATA_BOUNDS = ("bounds", "bounds_X", "bounds_y", "data_norm")  # read from the data when absent


def _model_options(name: str, features: int) -> dict[str, Any]:
    """The arguments a model of `name` gets beyond ε: the bounds of records in [0, 1]^features
    (and the classes, for trees), so that diffprivlib never reads them from the data."""
    unit = ([0.0] * features, [1.0] * features)
    by_model: dict[str, dict[str, Any]] = {
        "LogisticRegression": {"data_norm": float(np.sqrt(features))},
        "LinearRegression": {"bounds_X": unit, "bounds_y": (0.0, 1.0)},
        "GaussianNB": {"bounds": unit},
        "KMeans": {"bounds": unit, "n_clusters": 2},
        "PCA": {"bounds": unit, "data_norm": float(np.sqrt(features)), "n_components": 1},
        "StandardScaler": {"bounds": unit},
        "DecisionTreeClassifier": {"bounds": unit, "classes": [0, 1], "max_depth": 2},
        "RandomForestClassifier": {"bounds": unit, "classes": [0, 1], "max_depth": 2},
    }
    return by_model[name]


def _model_mechanism(
    name: str,
    release: Callable,
    features: int,
    public_records: bool,
    attributes: Sequence[str] | None = None,
    example: np.ndarray | None = None,
) -> PerCallMechanism | StructuredMechanism:
    """`release` as a mechanism: trees release their predictions on a grid of probes; other
    models are structured outputs (`dpfuzz.outputs.Model`, reading `attributes` if given). Where
    a fit may raise, the error is an outcome: without public records (LogisticRegression on one
    class), or given an `example` dataset whose fit teaches the encoding first (PCA raises when
    it reads its norm from data of one point)."""
    from dpfuzz.outputs import Model, structured

    if name in TREES:
        return per_call(release)
    names = tuple(attributes or ())
    if example is not None:  # the encoding is learnt from one fit on `example`
        learnt = Model(attributes=names)
        learnt.learn([release(example, np.random.default_rng(0))])
        return structured(release, encoder=learnt, errors="outcome")
    if public_records:
        return structured(release, encoder=Model(attributes=names))
    shapes = (
        {"classes_": (2,), "coef_": (1, features), "intercept_": (1,)}
        if name == "LogisticRegression"
        else None
    )
    return structured(release, encoder=Model(shapes, attributes=names), errors="outcome")


def diffprivlib_model(
    name: str = "LogisticRegression",
    *,
    epsilon: float = 1.0,
    features: int = 2,
    max_size: int = 6,
    relation: str | None = None,
    public_records: bool = True,
    attributes: Sequence[str] | None = None,
    bounds_from_data: bool = False,
    **arguments: Any,
) -> LibraryTarget:
    """An audit target for ``diffprivlib.models.<name>`` fitted on records in [0, 1]^features (a
    class label in {0, 1} or a target in [0, 1] as the last coordinate, where the model takes one),
    releasing the fitted model's parameters (`dpfuzz.outputs.Model`, whose ``classes_`` and shapes
    show which classes a model has), or the fitted `attributes` named (``["inertia_"]``).
    ``bounds_from_data=True`` is the misuse diffprivlib warns of: no bounds (nor ``data_norm``)
    given, so the model reads them from the data (`PrivacyLeakWarning`).

    With `public_records` every dataset also holds two fixed public records, one of each class
    (neighbours stay neighbours), so that every fit is defined and both classes are always
    present. Without them a dataset holds 1 to `max_size` searched records, as a user's call
    does, so the set of classes varies with the data, and a fit that raises (LogisticRegression
    on one class) releases its exception's type (``structured(..., errors="outcome")``).
    """
    import diffprivlib

    check_choice("diffprivlib model", name, tuple(MODEL_CONVENTIONS))
    own = MODEL_CONVENTIONS[name]
    relation = relation or own
    label = LABELLED.get(name)
    options = {**_model_options(name, features), **arguments}
    if bounds_from_data:
        options = {key: value for key, value in options.items() if key not in DATA_BOUNDS}
    base = (
        np.array([[0.5] * features + [0.0], [0.5] * features + [1.0]])
        if label
        else np.full((2, features), 0.5)
    )[: 2 if public_records else 0]
    probes = np.array(np.meshgrid(*[[0.0, 0.5, 1.0]] * features)).reshape(features, -1).T
    model = getattr(diffprivlib.models, name)
    release = _ModelFit(model, epsilon, options, base, label, probes if name in TREES else None)
    width = features + (1 if label else 0)
    corners = np.array(np.meshgrid(*[[0.0, 1.0]] * width)).reshape(width, -1).T
    example = corners if bounds_from_data else None  # a fit may raise: learn its encoding first
    mechanism = _model_mechanism(name, release, features, public_records, attributes, example)
    mechanism.name = (
        f"diffprivlib.models.{name}"
        + (f" ({', '.join(attributes)})" if attributes else "")
        + (" (bounds from the data)" if bounds_from_data else "")
    )
    domain = Domain(
        low=0.0,
        high=1.0,
        dim=features + (1 if label else 0),
        min_size=0 if public_records else 1,
        max_size=max_size,
        relation=relation,
        labelled=label == "class",
    )
    claim, how = claim_under(PureDP(epsilon), own, relation)
    records = (
        "every dataset also holds two fixed public records"
        if public_records
        else "no public records: the classes come from the data"
    )
    return LibraryTarget(
        mechanism,
        claim,
        domain,
        f"models.{name} is private under {own} (read from its source); {how}; {records}",
    )


@dataclass(frozen=True)
class _ModelFit:
    """One fit of a diffprivlib model on `base` and a dataset's records, seeded from the audit's
    rng: the fitted model, or for trees their predictions at `probes`."""

    model_class: Any
    epsilon: float
    options: dict[str, Any]
    base: np.ndarray  # the public records every dataset holds
    label: str | None  # "class", "target" or None: what the last coordinate is
    probes: np.ndarray | None  # where trees are read (None: release the model)

    def __call__(self, dataset: np.ndarray, rng: np.random.Generator) -> Any:
        import diffprivlib

        records = np.vstack(
            [self.base, np.asarray(dataset, dtype=float).reshape(-1, self.base.shape[1])]
        )
        model = self.model_class(
            epsilon=self.epsilon,
            random_state=int(rng.integers(2**31 - 1)),
            accountant=diffprivlib.BudgetAccountant(),
            **self.options,
        )
        with warnings.catch_warnings():  # the misuse targets read their bounds from the data
            warnings.simplefilter("ignore", diffprivlib.utils.PrivacyLeakWarning)
            if self.label:
                target = np.round(records[:, -1]) if self.label == "class" else records[:, -1]
                model.fit(records[:, :-1], target)
            else:
                model.fit(records)
        if self.probes is None:
            return model
        return np.concatenate(
            [tree.predict(self.probes) for tree in getattr(model, "estimators_", [model])]
        )
