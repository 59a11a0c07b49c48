"""SmartNoise SQL queries as audit targets (``pip install "dpfuzz[smartnoise]"``, smartnoise-sql
1.0.10, which pins opendp 0.14: install it in its own environment, docs/guide/libraries.md).

SmartNoise SQL answers SQL over a pandas table through a `PrivateReader`; its claim is the
(ε, δ) the reader's odometer charges for the query (`get_privacy_cost`), read here from the
reader itself: each statistic spends the `Privacy` object's ε, and dimension censoring spends
δ. Its privacy unit is the individual named by the table's `private_id` column, with at most
`max_ids` rows (reservoir-sampled down to `max_ids` unless ``sample_max_ids`` is False): the
convention is one individual added or removed. Each dpfuzz record is an individual holding
`rows` rows, or with `rows` a range (fewest, most) a count of its own that the search varies
(`dpfuzz.adapters.privacy_id_rows`), in a table ``T.T`` with columns ``user_id``,
``key`` (0 … `keys` − 1) and ``value`` (bounds `bounds`; values may lie outside them so the
clamping is audited too).

Outputs are the result rows (`dpfuzz.adapters.keyed_rows`): with a ``key`` column, keyed results
(key, column) → value whose keys appear or vanish with the data when dimensions are censored;
otherwise column → value, absent when the row is censored. Each release is
`dpfuzz.outputs.structured` with a `Keyed` encoder whose universe is the domain's keys × the query's
columns.

Sampling: one reader per dataset, one `execute` per release. SmartNoise calibrates each mechanism's
noise scale by a binary search over OpenDP measurements at every query, a deterministic function of
the mechanism's parameters; the adapter memoizes it (`memoize_noise_scales`), which makes a release
about ten times faster (decision record 0027) and changes no output's distribution. Noise comes from
OpenDP's samplers and cannot be seeded: audits are valid but not bit-reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass
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
from dpfuzz.outputs import Keyed, structured
from dpfuzz.validation import check_choice, check_int

TABLE_OPTIONS = (
    "max_ids",
    "sample_max_ids",
    "censor_dims",
    "clamp_counts",
    "clamp_columns",
    "row_privacy",
    "use_dpsu",
)


def smartnoise_query(
    query: str = "SELECT COUNT(*) AS n FROM T.T",
    *,
    epsilon: float = 1.0,
    delta: float = 1e-3,
    keys: int = 3,
    rows: Rows = 1,
    bounds: tuple[float, float] = (0.0, 1.0),
    values: tuple[float, float] = (-1.0, 2.0),
    max_size: int = 6,
    **table: Any,
) -> LibraryTarget:
    """`PrivateReader.execute(query)` over the table ``T.T`` with `Privacy(epsilon, delta)`
    (SmartNoise's own mechanisms: discrete Laplace for counts, Laplace for float sums). `table` sets
    the table's metadata (``max_ids``, ``censor_dims``, ``sample_max_ids``, ``clamp_columns``,
    ``row_privacy``, …; default one row per individual, dimensions censored)."""
    memoize_noise_scales()
    check_int("keys", keys, minimum=1)
    row_range(rows)
    for option in table:
        check_choice("table option", option, TABLE_OPTIONS)
    reader = _Reader(_table_metadata(bounds, table), epsilon, delta, keys, rows)

    def batch(dataset: np.ndarray, size: int, rng: np.random.Generator) -> list[dict]:
        private = reader(dataset)
        return [
            keyed_rows(result[0], result[1:])
            for result in (private.execute(query) for _ in range(size))
        ]

    example = reader(np.array([[0.0, bounds[0]]]))
    columns = example.execute(query)[0]
    release = structured(batch, encoder=Keyed(keys=keyed_universe(columns, keys)))
    release.name = f"SmartNoise SQL {query!r}" + "".join(
        f", {name}={value}" for name, value in table.items()
    )
    cost_epsilon, cost_delta = example.get_privacy_cost([query])
    convention = (
        f"one individual (user_id, holding {rows_text(rows)}) added or removed; claim from the"
        f" reader's privacy cost for the query at Privacy(epsilon={epsilon:g}, delta={delta:g})"
    )
    return LibraryTarget(
        release,
        stated_claim(cost_epsilon, cost_delta),
        privacy_id_domain(keys, values, max_size, rows),
        convention,
    )


def _table_metadata(bounds: tuple[float, float], table: dict[str, Any]) -> dict[str, Any]:
    """SmartNoise's metadata of ``T.T``: one row per individual, dimensions censored, unless
    `table` says otherwise."""
    metadata = {
        "row_privacy": False,
        "max_ids": 1,
        "censor_dims": True,
        "user_id": {"type": "int", "private_id": True},
        "key": {"type": "int"},
        "value": {"type": "float", "lower": float(bounds[0]), "upper": float(bounds[1])},
        **table,
    }
    if metadata["row_privacy"]:  # each row is an individual: SmartNoise refuses a private_id then
        metadata["user_id"] = {"type": "int"}
    return metadata


@dataclass(frozen=True)
class _Reader:
    """A `PrivateReader` over a dataset's rows (`privacy_id_rows`) with the query's privacy."""

    metadata: dict[str, Any]
    epsilon: float
    delta: float
    keys: int
    rows: Rows

    def __call__(self, dataset: np.ndarray) -> Any:
        import pandas as pd
        import snsql

        frame = pd.DataFrame(
            privacy_id_rows(dataset, self.keys, self.rows), columns=["user_id", "key", "value"]
        )
        return snsql.from_df(
            frame,
            privacy=snsql.Privacy(epsilon=self.epsilon, delta=self.delta),
            metadata={"C": {"T": {"T": self.metadata}}},
        )


_SCALES: dict = {}


def memoize_noise_scales() -> None:
    """Make SmartNoise's Laplace and Gaussian mechanisms compute their noise scale once per
    (mechanism, ε, δ, bounds, max_contrib, bit depth) instead of at every query."""
    from snsql.sql._mechanisms.gaussian import Gaussian
    from snsql.sql._mechanisms.laplace import Laplace

    for kind in (Laplace, Gaussian):
        search = kind._compute_noise_scale
        if getattr(search, "memoized", False):
            continue

        def compute(self, search=search, kind=kind):
            key = (
                kind,
                self.epsilon,
                self.delta,
                self.lower,
                self.upper,
                self.max_contrib,
                self.bit_depth,
            )
            if self.scale is None and key in _SCALES:
                self.scale = _SCALES[key]
                return
            search(self)
            _SCALES[key] = self.scale

        compute.memoized = True  # type: ignore[attr-defined]
        kind._compute_noise_scale = compute
