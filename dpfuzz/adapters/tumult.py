"""Tumult Analytics queries as audit targets (``pip install "dpfuzz[tumult]"``, tmlt.analytics
0.21.0, which pins numpy 1.26, pandas 1.5 and PySpark 3.5 and needs Java: install it in an
environment of its own, docs/guide/libraries.md).

A query runs in a `Session` over a Spark table with columns ``copy``, ``id``, ``key``
(0 … `keys` − 1) and ``value``; each dpfuzz record is an individual (``id``) holding `rows`
rows, or with `rows` a range (fewest, most) a count of its own that the search varies
(`dpfuzz.adapters.privacy_id_rows`). The claim is the query's privacy budget: pure ε, (ε, δ) or
ρ-zCDP. The convention is Tumult's protected change: ``AddOneRow`` (one row), ``AddMaxRows(m)``
(one individual's rows, m the most `rows` allows), or ``AddRowsWithID("id")`` with the query
truncating each individual to one row (`MaxRowsPerID`).

Sampling: a Spark query costs about a second whatever its size, so one query releases a whole batch,
and draws a call does not take wait for the next call on the same dataset (each is returned once).
The table holds `copies` copies of the dataset, told apart by the public column ``copy``, and the
query groups by ``copy`` (and, with ``grouped=True``, by the public keys). Tumult adds independent
noise to each group, and a row of one copy moves only that copy's groups, so each copy's output is
one draw of the query on the dataset, under the same budget (parallel composition). Noise comes from
Tumult's samplers and cannot be seeded: audits are valid but not bit-reproducible.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpfuzz.adapters import (
    LibraryTarget,
    Rows,
    privacy_id_domain,
    privacy_id_rows,
    row_range,
    rows_text,
)
from dpfuzz.claims import ApproxDP, Claim, PureDP, ZeroConcentratedDP
from dpfuzz.mechanism import per_call
from dpfuzz.validation import check_choice, check_int

STATISTICS = ("count", "sum", "average", "median", "quantile", "variance")
CHANGES = ("add_one_row", "add_max_rows", "add_rows_with_id")
KEPT_DATASETS = 64  # datasets whose unused draws are kept for the next call


def tumult_query(
    statistic: str = "count",
    *,
    epsilon: float = 1.0,
    delta: float = 0.0,
    rho: float | None = None,
    protected_change: str = "add_one_row",
    grouped: bool = False,
    keys: int = 3,
    rows: Rows = 1,
    bounds: tuple[float, float] = (0.0, 1.0),
    values: tuple[float, float] = (-1.0, 2.0),
    max_size: int = 6,
    copies: int = 4000,
) -> LibraryTarget:
    """`QueryBuilder("data").groupby(copy[, key]).<statistic>(...)` evaluated with the budget
    `PureDPBudget(epsilon)`, `ApproxDPBudget(epsilon, delta)` when `delta` > 0, or
    `RhoZCDPBudget(rho)` when `rho` is given. `protected_change` is the claimed neighbouring
    relation; ``"add_one_row"`` with more than one row per individual is the misuse of a relation
    that does not cover an individual's rows. `rows`: each individual's rows, or a range (fewest,
    most) that the search varies (`dpfuzz.adapters.privacy_id_rows`)."""
    check_choice("statistic", statistic, STATISTICS)
    check_choice("protected_change", protected_change, CHANGES)
    most = row_range(rows)[1]
    check_int("copies", copies, minimum=1)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Spark's workers import tmlt too
    from tmlt.analytics import AddMaxRows, AddOneRow, AddRowsWithID

    budget, claim, unlimited = _budget(epsilon, delta, rho)
    change = {
        "add_one_row": lambda: AddOneRow(),
        "add_max_rows": lambda: AddMaxRows(most),
        "add_rows_with_id": lambda: AddRowsWithID("id"),
    }[protected_change]()
    copied = _Copies(
        spark=_spark(),
        budget=budget,
        unlimited=unlimited,
        change=change,
        aggregate=_aggregate(statistic, float(bounds[0]), float(bounds[1])),
        truncate=protected_change == "add_rows_with_id",
        by={"copy": list(range(copies)), **({"key": list(range(keys))} if grouped else {})},
        keys=keys,
        rows=rows,
    )
    mechanism = per_call(
        lambda dataset, rng: copied.batch(dataset, 1, rng)[0],
        batch=copied.batch,
        batch_size=copies,
    )
    mechanism.name = (
        f"Tumult Analytics {statistic}{' per key' if grouped else ''} ({protected_change})"
    )
    convention = (
        f"one individual (id, holding {rows_text(rows)}) added or removed; Tumult's protected"
        f" change {type(change).__name__}; claim = the query's budget {budget}"
    )
    domain = privacy_id_domain(keys, values, max_size, rows)
    return LibraryTarget(mechanism, claim, domain, convention)


def _budget(epsilon: float, delta: float, rho: float | None) -> tuple[Any, Claim, Any]:
    """(the query's Tumult budget, the claim it states, the session's unlimited budget)."""
    from tmlt.analytics import ApproxDPBudget, PureDPBudget, RhoZCDPBudget

    if rho is not None:
        return RhoZCDPBudget(rho), ZeroConcentratedDP(rho), RhoZCDPBudget(float("inf"))
    if delta > 0:
        return (
            ApproxDPBudget(epsilon, delta),
            ApproxDP(epsilon, delta),
            ApproxDPBudget(float("inf"), 1.0),
        )
    return PureDPBudget(epsilon), PureDP(epsilon), PureDPBudget(float("inf"))


def _aggregate(statistic: str, low: float, high: float) -> Callable[[Any], Any]:
    """The `statistic`'s aggregation of a grouped query, into the column ``out``."""
    return {
        "count": lambda g: g.count(name="out"),
        "sum": lambda g: g.sum("value", low, high, name="out"),
        "average": lambda g: g.average("value", low, high, name="out"),
        "median": lambda g: g.median("value", low, high, name="out"),
        "quantile": lambda g: g.quantile("value", 0.9, low, high, name="out"),
        "variance": lambda g: g.variance("value", low, high, name="out"),
    }[statistic]


@dataclass
class _Copies:
    """Draws of one query, a Spark query of `by["copy"]` copies at a time (module docstring)."""

    spark: Any
    budget: Any
    unlimited: Any
    change: Any
    aggregate: Callable[[Any], Any]
    truncate: bool  # each individual truncated to one row (`MaxRowsPerID`)
    by: dict[str, list[int]]
    keys: int
    rows: Rows
    # each dataset's draws not yet returned
    unused: OrderedDict[bytes, np.ndarray] = field(default_factory=OrderedDict)

    def query(self, records: list) -> np.ndarray:
        """One Spark query: one draw per copy on the dataset whose rows are `records`."""
        import pandas as pd
        from tmlt.analytics import KeySet, MaxRowsPerID, QueryBuilder, Session

        copies = len(self.by["copy"])
        table = pd.DataFrame(
            [(copy, unit, key, value) for copy in range(copies) for unit, key, value in records],
            columns=["copy", "id", "key", "value"],
        )
        frame = self.spark.createDataFrame(
            table, schema="copy long, id long, key long, value double"
        )
        session = Session.from_dataframe(
            privacy_budget=self.unlimited,
            source_id="data",
            dataframe=frame,
            protected_change=self.change,
        )
        builder = QueryBuilder("data")
        if self.truncate:
            builder = builder.enforce(MaxRowsPerID(1))
        result = session.evaluate(
            self.aggregate(builder.groupby(KeySet.from_dict(self.by))), privacy_budget=self.budget
        ).toPandas()
        return result.sort_values(list(self.by))["out"].to_numpy(dtype=float).reshape(copies, -1)

    def batch(self, dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """`size` draws on `dataset`: those left from its last query first, each returned once."""
        name = np.asarray(dataset, dtype=float).tobytes()
        draws = self.unused.pop(name, np.zeros((0, len(self.by.get("key", [0])))))
        while len(draws) < size:
            draws = np.concatenate(
                [draws, self.query(privacy_id_rows(dataset, self.keys, self.rows))]
            )
        self.unused[name] = draws[size:]
        while len(self.unused) > KEPT_DATASETS:
            self.unused.popitem(last=False)
        return draws[:size]


def _spark():
    """The local Spark session Tumult runs on: one core, no UI or progress bars, one shuffle
    partition."""
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "1")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark
