"""PipelineDP releases as audit targets (``pip install "dpfuzz[pipelinedp]"``, pipeline-dp 0.3.1,
local backend).

PipelineDP states its claim as the total (ε, δ) of the budget accountant a `DPEngine` spends
(`NaiveBudgetAccountant`: basic composition; `PLDBudgetAccountant`: privacy loss distributions),
read here from the accountant itself. Its privacy unit is a privacy ID with all its rows, which
the engine bounds to `max_partitions_contributed` partitions and
`max_contributions_per_partition` rows in each: its convention is one privacy ID added or
removed. Each dpfuzz record is a privacy ID holding `rows` rows, or with `rows` a range (fewest,
most) a count of its own that the search varies (`dpfuzz.adapters.privacy_id_rows`); values may
lie outside [min_value, max_value] so the engine's clamping is audited too. The engine refuses an
empty collection, so datasets hold at least one record.

Outputs are keyed results, partition → metrics, whose partitions appear or vanish with the data
when they are selected privately: each release is `dpfuzz.outputs.structured` with a `Keyed`
encoder whose key universe is the domain's partitions (a key and metric pair per column).

Sampling: one engine and accountant per release (≈ 5·10³ per second on a few records). Noise
comes from python-dp's secure generator and cannot be seeded: audits are valid but not
bit-reproducible.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpfuzz.adapters import (
    LibraryTarget,
    Rows,
    privacy_id_domain,
    privacy_id_rows,
    row_range,
    rows_text,
    stated_claim,
)
from dpfuzz.errors import InvalidArgument
from dpfuzz.outputs import Keyed, structured
from dpfuzz.validation import check_choice, check_int

STRATEGIES = {
    "truncated_geometric": "TRUNCATED_GEOMETRIC",
    "laplace_thresholding": "LAPLACE_THRESHOLDING",
    "gaussian_thresholding": "GAUSSIAN_THRESHOLDING",
    "weighted_gaussian": "WEIGHTED_GAUSSIAN_THRESHOLDING",
}


def _accountant(pipeline_dp, accountant: str, epsilon: float, delta: float):
    check_choice("accountant", accountant, ("naive", "pld"))
    if accountant == "pld":
        return pipeline_dp.PLDBudgetAccountant(total_epsilon=epsilon, total_delta=delta)
    return pipeline_dp.NaiveBudgetAccountant(total_epsilon=epsilon, total_delta=delta)


def pipelinedp_aggregate(
    metrics: tuple[str, ...] = ("COUNT",),
    *,
    epsilon: float = 1.0,
    delta: float = 0.0,
    public_partitions: bool | str = True,
    noise: str = "laplace",
    strategy: str = "truncated_geometric",
    accountant: str = "naive",
    keys: int = 3,
    rows: Rows = 1,
    bounds: tuple[float, float] = (0.0, 1.0),
    values: tuple[float, float] = (-1.0, 2.0),
    max_size: int = 6,
    **parameters: Any,
) -> LibraryTarget:
    """`DPEngine.aggregate` of `metrics` (names of ``pipeline_dp.Metrics``: COUNT, PRIVACY_ID_COUNT,
    SUM, MEAN, VARIANCE, or "PERCENTILE(50)") with `noise` ("laplace", "gaussian"), one partition
    and one row per privacy ID kept, values clamped to `bounds`. `public_partitions`: True for all
    `keys` partitions given as public, False for private selection by `strategy`, "from data" for
    the documented misuse of public partitions read from the private data. `parameters` go to
    ``AggregateParams`` as they are (e.g. ``max_contributions_per_partition=2``)."""
    import pipeline_dp

    check_int("keys", keys, minimum=1)
    row_range(rows)
    check_choice("noise", noise, ("laplace", "gaussian"))
    if public_partitions not in (True, False, "from data"):
        raise InvalidArgument(
            f"public_partitions must be True, False or 'from data', got {public_partitions!r}."
        )
    params = _aggregate_params(pipeline_dp, metrics, noise, bounds, strategy, parameters)
    extractors = pipeline_dp.DataExtractors(
        privacy_id_extractor=_column(0), partition_extractor=_column(1), value_extractor=_column(2)
    )
    example = _accountant(pipeline_dp, accountant, epsilon, delta)

    release = _Aggregation(
        params, extractors, public_partitions, accountant, epsilon, delta, keys, rows
    )
    encoder = Keyed(keys=[(key, _field(name)) for key in range(keys) for name in metrics])
    mechanism = structured(release, encoder=encoder)
    mechanism.name = (
        f"PipelineDP aggregate {'+'.join(metrics)} ({noise},"
        f" {_partitions(public_partitions, strategy)})"
    )
    claim = stated_claim(example._total_epsilon, example._total_delta)
    return LibraryTarget(
        mechanism,
        claim,
        privacy_id_domain(keys, values, max_size, rows),
        _convention(accountant, rows),
    )


def _column(index: int) -> Callable[[tuple], Any]:
    return lambda row: row[index]


@dataclass(frozen=True)
class _Aggregation:
    """One `DPEngine.aggregate` on a dataset's rows (`privacy_id_rows`), each call with a fresh
    budget accountant: the release, keyed by (partition, metric)."""

    params: Any
    extractors: Any
    public_partitions: bool | str
    accountant: str
    epsilon: float
    delta: float
    keys: int
    rows: Rows

    def __call__(self, dataset: np.ndarray, rng: np.random.Generator) -> dict:
        import pipeline_dp

        table = privacy_id_rows(dataset, self.keys, self.rows)
        public = {
            True: list(range(self.keys)),
            False: None,
            "from data": sorted({row[1] for row in table}),
        }[self.public_partitions]
        budget = _accountant(pipeline_dp, self.accountant, self.epsilon, self.delta)
        result = pipeline_dp.DPEngine(budget, pipeline_dp.LocalBackend()).aggregate(
            table, self.params, self.extractors, public_partitions=public
        )
        budget.compute_budgets()
        return {
            (key, name): float(value)
            for key, values in result
            for name, value in values._asdict().items()
        }


def _aggregate_params(
    pipeline_dp: Any,
    metrics: tuple[str, ...],
    noise: str,
    bounds: tuple[float, float],
    strategy: str,
    parameters: dict[str, Any],
) -> Any:
    """``AggregateParams``: one partition and one row per privacy ID, values clamped to `bounds`
    (not for counts), `parameters` over these."""
    options = dict(
        metrics=[_metric(pipeline_dp, name) for name in metrics],
        noise_kind=getattr(pipeline_dp.NoiseKind, noise.upper()),
        max_partitions_contributed=1,
        max_contributions_per_partition=1,
        min_value=bounds[0],
        max_value=bounds[1],
        partition_selection_strategy=_strategy(pipeline_dp, strategy),
    )
    options.update(parameters)
    if set(metrics) <= {"COUNT", "PRIVACY_ID_COUNT"}:
        options.pop("min_value"), options.pop("max_value")
    return pipeline_dp.AggregateParams(**options)


def pipelinedp_select_partitions(
    strategy: str = "truncated_geometric",
    *,
    epsilon: float = 1.0,
    delta: float = 1e-5,
    keys: int = 3,
    rows: Rows = 1,
    max_partitions_contributed: int = 1,
    max_size: int = 40,
    **parameters: Any,
) -> LibraryTarget:
    """`DPEngine.select_partitions` by `strategy`: the set of partitions released, each privacy ID
    held to `max_partitions_contributed` partitions; `parameters` go to ``SelectPartitionsParams``.
    """
    import pipeline_dp

    params = pipeline_dp.SelectPartitionsParams(
        max_partitions_contributed=max_partitions_contributed,
        partition_selection_strategy=_strategy(pipeline_dp, strategy),
        **parameters,
    )
    extractors = pipeline_dp.DataExtractors(
        privacy_id_extractor=_column(0), partition_extractor=_column(1)
    )
    # the claim, as the library holds it
    example = _accountant(pipeline_dp, "naive", epsilon, delta)

    def release(dataset: np.ndarray, rng: np.random.Generator) -> dict:
        budget = _accountant(pipeline_dp, "naive", epsilon, delta)
        engine = pipeline_dp.DPEngine(budget, pipeline_dp.LocalBackend())
        selected = engine.select_partitions(
            privacy_id_rows(dataset, keys, rows), params, extractors
        )
        budget.compute_budgets()
        return {key: 1.0 for key in selected}

    encoder = Keyed(keys=list(range(keys)))
    mechanism = structured(release, encoder=encoder)
    mechanism.name = f"PipelineDP select_partitions ({strategy.replace('_', ' ')})"
    claim = stated_claim(example._total_epsilon, example._total_delta)
    return LibraryTarget(
        mechanism,
        claim,
        privacy_id_domain(keys, (0.0, 1.0), max_size, rows),
        _convention("naive", rows),
    )


def _strategy(pipeline_dp, strategy: str):
    check_choice("strategy", strategy, tuple(STRATEGIES))
    return getattr(pipeline_dp.PartitionSelectionStrategy, STRATEGIES[strategy])


def _percentile(name: str) -> float | None:
    """p of a metric named "PERCENTILE(p)", else None."""
    return (
        float(name[len("PERCENTILE(") : -1])
        if name.startswith("PERCENTILE(") and name.endswith(")")
        else None
    )


def _metric(pipeline_dp, name: str):
    if _percentile(name) is not None:
        return pipeline_dp.Metrics.PERCENTILE(_percentile(name))
    known = ("COUNT", "PRIVACY_ID_COUNT", "SUM", "MEAN", "VARIANCE")
    if name not in known:
        raise InvalidArgument(f"metrics are {list(known)} or 'PERCENTILE(p)', got {name!r}.")
    return getattr(pipeline_dp.Metrics, name)


def _field(name: str) -> str:
    """A metric's field in PipelineDP's result tuples: "count", "percentile_50",
    "percentile_90_5"."""
    if _percentile(name) is not None:
        return "percentile_" + f"{_percentile(name):g}".replace(".", "_")
    return name.lower()


def _partitions(public_partitions, strategy: str) -> str:
    if public_partitions == "from data":
        return "public partitions read from the data"
    return (
        "public partitions"
        if public_partitions
        else f"private partitions, {strategy.replace('_', ' ')}"
    )


def _convention(accountant: str, rows: Rows) -> str:
    return (
        f"one privacy ID (holding {rows_text(rows)}) added or removed; claim from the {accountant}"
        " budget accountant's total epsilon, delta"
    )
