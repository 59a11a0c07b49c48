"""OpenDP's Context API over Polars as audit targets (``pip install "dpfuzz[opendp]"``, OpenDP
0.16 with its Polars extra).

A query is built on `opendp.context.Context.compositor` over a Polars LazyFrame with columns
``id`` (the individual), ``key`` (0 … `keys` − 1) and ``value``; each dpfuzz record is an
individual holding `rows` rows, or with `rows` a range (fewest, most) a count of its own that the
search varies (`dpfuzz.adapters.privacy_id_rows`), so the convention is one individual added or
removed. The privacy unit is OpenDP's own: ``unit_of(contributions=c)`` (each individual adds at
most c rows, default the most `rows` allows) or, with ``identifier=True``,
``unit_of(contributions=c, identifier="id")`` (at most c identifiers; the query must truncate
each individual's rows itself). The claim is the resolved measurement's ``map(d_in)``, the loss
OpenDP certifies for that unit.

The margins state what OpenDP may treat as public: at most `max_length` rows in all and per key, and
at most `keys` keys. A group-by over the data's keys selects its partitions by a noisy threshold on
a noisy row count (released with it) that spends δ; one joined with a public key set (``with_keys``)
releases every key.

Outputs are the collected DataFrame: with a ``key`` column, keyed results (key, column) →
value; otherwise column → value. A non-finite value (a mean over a noisy length of 0) is
released as suppressed, a post-processing that keeps every certified bound valid. Noise comes
from OpenDP's samplers and cannot be seeded: audits are valid but not bit-reproducible.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from dpfuzz.adapters import (
    LibraryTarget,
    Rows,
    keyed_rows,
    keyed_universe,
    privacy_id_domain,
    privacy_id_rows,
    row_range,
    rows_text,
    stated_claim,
)
from dpfuzz.errors import InvalidArgument
from dpfuzz.outputs import Keyed, structured
from dpfuzz.validation import check_choice, check_int

STATISTICS = ("len", "sum", "mean", "median", "quantile")


def opendp_polars_query(
    build: Callable[[Any], Any],
    *,
    epsilon: float = 1.0,
    delta: float = 0.0,
    keys: int = 3,
    rows: Rows = 1,
    contributions: int | None = None,
    identifier: bool = False,
    values: tuple[float, float] = (-1.0, 2.0),
    max_size: int = 6,
    max_length: int = 1000,
    invariant_keys: bool = False,
    name: str | None = None,
) -> LibraryTarget:
    """``build(context.query())`` resolved to a measurement on a `Context` with
    ``privacy_loss=loss_of(epsilon, delta)``; each release collects the measurement on the
    dataset's frame. `invariant_keys` declares the data's keys public (``invariant="keys"``),
    which OpenDP documents as a weaker guarantee: the audit, whose neighbours may differ in a
    key, then tests a misuse."""
    import opendp.prelude as dp
    import polars as pl

    check_int("keys", keys, minimum=1)
    most = row_range(rows)[1]
    dp.enable_features("contrib")
    contributions = contributions or (1 if identifier else most)
    unit = dp.unit_of(contributions=contributions, identifier="id" if identifier else None)

    def frame(dataset: np.ndarray):
        return pl.LazyFrame(
            privacy_id_rows(dataset, keys, rows),
            schema={"id": pl.Int64, "key": pl.Int64, "value": pl.Float64},
            orient="row",
        )

    example = frame(np.array([[0.0, 0.0]]))
    margins = _margins(keys, max_length, invariant_keys)
    measurement = _measurement(build, example, unit, margins, epsilon, delta)

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> list[dict]:
        data = frame(dataset)
        return [_keyed(measurement(data).collect()) for _ in range(size)]

    columns = measurement(example).collect().columns
    release = structured(batch, encoder=Keyed(keys=keyed_universe(columns, keys)))
    release.name = name or "OpenDP Polars query"
    loss = measurement.map(unit[1])
    claim = stated_claim(*loss) if isinstance(loss, tuple) else stated_claim(loss, 0.0)
    who = (
        f"at most {contributions} identifier(s)"
        if identifier
        else f"at most {contributions} row(s)"
    )
    convention = (
        f"one individual (id, holding {rows_text(rows)}) added or removed; OpenDP's unit: {who} per"
        f" individual; claim from the measurement's map({unit[1]})"
    )
    domain = privacy_id_domain(keys, values, max_size, rows)
    return LibraryTarget(release, claim, domain, convention)


def _margins(keys: int, max_length: int, invariant_keys: bool) -> list[Any]:
    """What the context may assume: at most `max_length` rows, and `keys` groups by ``key``
    (public when `invariant_keys`)."""
    import opendp.prelude as dp

    grouped: dict[str, Any] = {"by": ["key"], "max_length": max_length, "max_groups": keys}
    return [
        dp.polars.Margin(by=[], max_length=max_length),
        dp.polars.Margin(**grouped, invariant="keys" if invariant_keys else None),
    ]


def _measurement(
    build: Callable[[Any], Any],
    example: Any,
    unit: Any,
    margins: list[Any],
    epsilon: float,
    delta: float,
) -> Any:
    """``build(context.query())`` resolved on a one-query `Context` over `example`'s schema; a
    query OpenDP refuses is an `InvalidArgument` that says why."""
    import opendp.prelude as dp

    context = dp.Context.compositor(
        data=example,
        privacy_unit=unit,
        privacy_loss=dp.loss_of(epsilon=epsilon, delta=delta or None),
        split_evenly_over=1,
        margins=margins,
    )
    try:
        return build(context.query()).resolve()
    except dp.OpenDPException as error:  # its message names what the query lacks
        hint = (
            " A group-by over the data's keys spends delta on its threshold: give delta > 0."
            if not delta
            else ""
        )
        raise InvalidArgument(
            f"OpenDP cannot make this query private at epsilon={epsilon:g}, delta={delta:g}: "
            f"{error.message}{hint}"
        ) from error


def statistic_query(
    statistic: str = "sum",
    *,
    group_by: str = "none",
    keys: int = 3,
    truncate: bool = False,
    bounds: tuple[float, float] = (0.0, 1.0),
    alpha: float = 0.9,
    candidates: int = 11,
) -> Callable[[Any], Any]:
    """A `build` for `opendp_polars_query`: one of `STATISTICS` of ``value`` (``len`` counts rows),
    over the whole frame (`group_by` "none") or per ``key``: "private" keys are selected by OpenDP's
    threshold, "public" keys 0 … `keys` − 1 are joined (``with_keys``) and all released.
    `truncate` keeps one row per individual (and, grouped, one key per individual) first, as
    identifier-level units require."""
    import polars as pl

    check_choice("statistic", statistic, STATISTICS)
    check_choice("group_by", group_by, ("none", "private", "public"))
    bounds = (float(bounds[0]), float(bounds[1]))
    grid = np.linspace(*bounds, candidates).tolist()
    # OpenDP registers the `dp` namespace on polars expressions at run time
    value: Any = pl.col("value").fill_null(bounds[0])
    counted: Any = pl.len()
    expression = {
        "len": lambda: counted.dp.noise(),
        "sum": lambda: value.dp.sum(bounds),
        "mean": lambda: value.dp.mean(bounds),
        "median": lambda: value.dp.median(grid),
        "quantile": lambda: value.dp.quantile(alpha, grid),
    }[statistic]

    def build(query):
        if truncate and group_by != "none":
            query = query.truncate_num_groups(1, by=["key"], keep="first").truncate_per_group(
                1, by=["key"]
            )
        elif truncate:
            query = query.truncate_per_group(1)
        if group_by == "none":
            return query.select(expression())
        # selects the keys
        count = [counted.dp.noise()] if group_by == "private" and statistic != "len" else []
        grouped = query.group_by("key").agg(*count, expression())
        return (
            grouped.with_keys(pl.LazyFrame({"key": list(range(keys))}))
            if group_by == "public"
            else grouped
        )

    return build


def _keyed(frame) -> dict:
    """A collected frame as `keyed_rows`; non-finite values become None (suppressed)."""

    def clean(value):
        return None if isinstance(value, float) and not math.isfinite(value) else value

    return keyed_rows(frame.columns, [[clean(value) for value in row] for row in frame.iter_rows()])
