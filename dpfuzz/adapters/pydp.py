"""Google's differential-privacy library for Python (python-dp 1.1, imported as ``pydp``) as
audit targets (``pip install "dpfuzz[pydp]"``).

python-dp states its claim as the `epsilon` (and `delta`) of each algorithm object, with one
privacy unit contributing at most `linf_sensitivity` records (default 1): its convention is
that unit added or removed. `pydp_algorithm` audits that, with datasets `linf_sensitivity`
records apart; ``relation="substitute"`` is the explicit other choice and reads the claim for a
group of 2 (`dpfuzz.adapters.claim_under`). Numerical mechanisms (`LaplaceMechanism`,
`GaussianMechanism`, ``.add_noise(value)``) release a noisy query answer: audited as answers
moving by at most their sensitivity, or by the query's true `sensitivity` where the caller
gives it (a mechanism told too small a sensitivity is the classic misuse). Partition selection
(`pydp_partition_selection`) releases whether a partition of n privacy units is kept.

Sampling: one algorithm object per release (python-dp's rule: an object answers once), ≈ 10^5
releases per second through Python calls. Its generator cannot be seeded, so audits are valid
but not bit-reproducible, and the report says so. Its noise is snapped to a power-of-two grid
(Mironov 2012's defence), which float-level audits (``arithmetic="float"``) check.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from dpfuzz.adapters import LibraryTarget, claim_under, noisy_answer_target, stated_claim
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.mechanism import per_call
from dpfuzz.validation import check_choice


def pydp_algorithm(
    algorithm: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    bounds: tuple[float, float] = (0.0, 1.0),
    dtype: str = "float",
    relation: str = "add_remove",
    min_size: int = 0,
    max_size: int = 10,
    **arguments: Any,
) -> LibraryTarget:
    """An audit target for a python-dp algorithm class (e.g.
    ``pydp.algorithms.laplacian.BoundedSum``), built per release as ``algorithm(epsilon=…, delta=…,
    lower_bound=…, upper_bound=…, dtype=…,
    **arguments)`` and answering ``quick_result(list(dataset))``; records lie in `bounds`."""
    options = _options(algorithm, epsilon, delta, bounds, dtype, arguments)
    example = algorithm(**options)  # the claim and the privacy unit, read from the library's object
    claim, how = claim_under(stated_claim(example.epsilon, example.delta), "add_remove", relation)
    unit = _unit(example.linf_sensitivity)
    cast = int if dtype == "int" else float

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        records = [cast(value) for value in np.asarray(dataset).tolist()]
        return np.array(
            [algorithm(**options).quick_result(records) for _ in range(size)], dtype=float
        )

    def release(dataset: np.ndarray, rng: np.random.Generator):
        return batch(dataset, 1, rng)[0]

    mechanism = per_call(release, batch=batch)
    mechanism.name = f"pydp {algorithm.__name__}"
    domain = Domain(
        low=bounds[0],
        high=bounds[1],
        min_size=min_size,
        max_size=max_size,
        relation=relation,
        distance=unit,
        dtype=dtype,
    )
    return LibraryTarget(
        mechanism,
        claim,
        domain,
        f"{algorithm.__name__}: a privacy unit of {unit} record(s) added or removed; {how}",
    )


def _options(
    algorithm: Any,
    epsilon: float,
    delta: float,
    bounds: tuple[float, float],
    dtype: str,
    arguments: dict[str, Any],
) -> dict[str, Any]:
    """The keyword arguments `algorithm` is built with: those it takes, an error naming the rest."""
    accepted = set(inspect.signature(algorithm.__init__).parameters)
    options = {"epsilon": epsilon, "dtype": dtype, **arguments}
    if "delta" in accepted:
        options["delta"] = delta
    elif delta:
        raise InvalidArgument(
            f"{algorithm.__name__} takes no delta (it is ε-DP), got delta={delta!r}."
        )
    if "lower_bound" in accepted:
        options.update(lower_bound=bounds[0], upper_bound=bounds[1])
    unknown = set(options) - accepted
    if unknown:
        raise InvalidArgument(
            f"{algorithm.__name__} takes {sorted(accepted - {'self'})}, not {sorted(unknown)}."
        )
    return options


def _unit(linf_sensitivity) -> int:
    """Records per privacy unit: the object's `linf_sensitivity`, or its default 1 where it reads
    "Not set" (Percentile)."""
    return int(linf_sensitivity) if str(linf_sensitivity).isdigit() else 1


def pydp_mechanism(
    mechanism_object: Any,
    *,
    answers_range: tuple[float, float] = (-10.0, 10.0),
    sensitivity: float | None = None,
) -> LibraryTarget:
    """An audit target for a python-dp numerical mechanism (``.add_noise(value)``): one query answer
    moving by at most `sensitivity` (default: the mechanism's own); claim (ε, δ) from its fields."""
    own = float(getattr(mechanism_object, "sensitivity", None) or mechanism_object.l2_sensitivity)
    moved = own if sensitivity is None else float(sensitivity)
    epsilon, delta = float(mechanism_object.epsilon), float(getattr(mechanism_object, "delta", 0.0))

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        value = float(np.asarray(dataset, dtype=float)[0])
        return np.array([mechanism_object.add_noise(value) for _ in range(size)], dtype=float)

    note = (
        "its own"
        if moved == own
        else f"the query's, not the {own:g} the mechanism was told: a misuse to test"
    )
    return noisy_answer_target(
        batch,
        name=f"pydp {type(mechanism_object).__name__}",
        claim=stated_claim(epsilon, delta),
        answers_range=answers_range,
        sensitivity=moved,
        convention=f"one answer moving by ≤ {moved:g} ({note}); claim from its epsilon, delta",
    )


def pydp_partition_selection(
    strategy: str = "truncated_geometric",
    *,
    epsilon: float = 1.0,
    delta: float = 1e-3,
    max_partitions_contributed: int = 1,
    max_size: int = 20,
    rows: int = 1,
) -> LibraryTarget:
    """An audit target for python-dp's partition selection
    (``pydp.algorithms.partition_selection``): whether one partition holding the dataset's privacy
    units is kept, ``create_<strategy>_partition_strategy(ε, δ,
    max_partitions_contributed).should_keep(n)``; records are privacy units (all 0), so neighbours
    hold n and n + 1 units. ``rows = 2`` is the misuse of counting a unit's rows rather than its
    units: neighbours then hold n and n + 2."""
    from pydp.algorithms import partition_selection

    check_choice("strategy", strategy, ("truncated_geometric", "laplace", "gaussian"))
    create = getattr(partition_selection, f"create_{strategy}_partition_strategy")
    selection = create(epsilon, delta, max_partitions_contributed)

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        units = len(dataset)
        return np.array([selection.should_keep(units) for _ in range(size)], dtype=float)

    def release(dataset: np.ndarray, rng: np.random.Generator):
        return batch(dataset, 1, rng)[0]

    mechanism = per_call(release, batch=batch)
    mechanism.name = f"pydp {strategy} partition selection"
    domain = Domain(low=0, high=0, dtype="int", min_size=0, max_size=max_size, distance=rows)
    counted = (
        "one privacy unit"
        if rows == 1
        else f"one privacy unit counted as its {rows} rows (a misuse to test)"
    )
    return LibraryTarget(
        mechanism,
        stated_claim(selection.epsilon, selection.delta),
        domain,
        f"{counted} added to or removed from the partition; claim from the strategy's epsilon,"
        " delta",
    )


def pydp_quantile_tree(
    quantiles: tuple[float, ...] = (0.5,),
    *,
    epsilon: float = 1.0,
    delta: float = 0.0,
    noise: str = "laplace",
    bounds: tuple[float, float] = (0.0, 1.0),
    tree_height: int = 4,
    branching_factor: int = 16,
    max_size: int = 5,
) -> LibraryTarget:
    """An audit target for python-dp's ``QuantileTree(lower, upper, tree_height,
    branching_factor)``: the dataset's records added as entries, then
    ``compute_quantiles(ε, δ, 1, 1, quantiles, noise)`` (one partition, one contribution per
    privacy unit: a record added or removed). The claim is the (ε, δ) it is given."""
    from pydp.algorithms.quantile_tree import QuantileTree

    check_choice("noise", noise, ("laplace", "gaussian"))
    levels = [float(level) for level in quantiles]
    if not levels or not all(0.0 <= level <= 1.0 for level in levels):
        raise InvalidArgument(f"quantiles must be levels in [0, 1], got {quantiles!r}.")

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        records = [float(value) for value in np.asarray(dataset, dtype=float).tolist()]
        outputs = np.empty((size, len(levels)))
        for row in outputs:
            tree = QuantileTree(bounds[0], bounds[1], tree_height, branching_factor)
            for value in records:
                tree.add_entry(value)
            row[:] = tree.compute_quantiles(epsilon, delta, 1, 1, levels, noise)
        return outputs[:, 0] if len(levels) == 1 else outputs

    def release(dataset: np.ndarray, rng: np.random.Generator):
        return batch(dataset, 1, rng)[0]

    mechanism = per_call(release, batch=batch)
    mechanism.name = f"pydp QuantileTree {levels} ({noise})"
    domain = Domain(low=bounds[0], high=bounds[1], min_size=0, max_size=max_size)
    return LibraryTarget(
        mechanism,
        stated_claim(epsilon, delta),
        domain,
        "one record (a privacy unit contributing once to one partition) added or removed; claim"
        " the (ε, δ) given to compute_quantiles",
    )
