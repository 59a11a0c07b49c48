"""SmartNoise Synth synthesizers as audit targets (``pip install "dpfuzz[smartnoise,synth]"``,
smartnoise-synth 1.0.8 beside smartnoise-sql, in the environment of its pins,
docs/guide/libraries.md).

A synthesizer (`snsynth.Synthesizer.create(name, epsilon=..., ...)`) is fitted on the dataset's
records, a table of categorical columns, and releases a synthetic table of `sample_size` rows.
The claim is the synthesizer's own ε and δ (MST and AIM default to δ = 10⁻⁹; MWEM is pure). The
convention is one record added or removed: the marginals MST, AIM and MWEM measure move by one
in one cell (McKenna et al. 2021; Hardt et al. 2012).

Each record is a row of integers, column ``c`` in 0 … ``categories[c]`` − 1. How the columns'
categories reach the synthesizer is `transformer`:

- ``"declared"``: a `TableTransformer` of `LabelTransformer` columns fitted on a public table
  holding every category, passed to ``fit`` (SmartNoise's declarative form, no budget spent);
- ``"inferred"``: ``fit(data, categorical_columns=...)``, SmartNoise's default, whose transformer
  reads the categories from the private data.

The release is the synthetic table's count in every cell of the declared categories' product,
keyed by the cell (`dpfuzz.outputs.Keyed`). Sampling: one fit per draw (SmartNoise's
noise comes from numpy's, Python's and Rust's global generators, not the audit's): audits are
valid but not bit-reproducible. A fit that raises (MWEM on a table of one distinct row, pac-synth's
panics on small tables) releases its exception's type (``structured(..., errors="outcome")``).

Its covariance model (`snsynth.models.dp_covariance`): `smartnoise_covariance` releases
``DPcovariance(n, columns, bounds, ε).release(data)``, the lower triangle of the covariance
matrix of records in [bounds]^2, each entry with Laplace noise of scale (2/n)·(range)²/(its share
of ε). The noise scale depends on n, which the caller reads from the data: private when n is
public (substitution, the default relation here). Its `DPLinearRegression`, built on that
matrix, raises on every fit under numpy 2 (``np.where(m is False)`` in ``amsweep``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from dpfuzz.adapters import LibraryTarget, stated_claim
from dpfuzz.domain import Domain
from dpfuzz.errors import InvalidArgument
from dpfuzz.outputs import Keyed, structured
from dpfuzz.validation import check_choice, check_int

SYNTHESIZERS = ("mst", "aim", "mwem", "pacsynth")


def smartnoise_synthesizer(
    synthesizer: str = "mst",
    *,
    epsilon: float = 1.0,
    delta: float | None = None,
    categories: tuple[int, ...] = (3, 3),
    transformer: str = "declared",
    sample_size: int = 20,
    max_size: int = 5,
) -> LibraryTarget:
    """`Synthesizer.create(synthesizer, epsilon=epsilon, delta=delta)` fitted on the dataset and
    sampled for `sample_size` rows. `delta` None keeps the synthesizer's default (pac-synth,
    whose default depends on the data's size, needs one)."""
    check_choice("synthesizer", synthesizer, SYNTHESIZERS)
    check_choice("transformer", transformer, ("declared", "inferred"))
    check_int("sample_size", sample_size, minimum=1)
    if len(categories) < 1 or any(int(count) < 2 for count in categories):
        raise InvalidArgument(
            f"categories must list each column's number of categories (each ≥ 2), got"
            f" {categories!r}; e.g. categories=(3, 3)."
        )
    if synthesizer == "pacsynth" and delta is None:
        raise InvalidArgument(
            "pac-synth's default delta depends on the data's size; give delta, e.g. delta=1e-3."
        )
    fit = _Fit(synthesizer, epsilon, delta, tuple(int(count) for count in categories), transformer)
    claimed = fit.synthesizer()
    cells = [tuple(cell) for cell in np.ndindex(*fit.categories)]
    release = structured(
        lambda dataset, rng: fit.counts(dataset, sample_size),
        encoder=Keyed(keys=cells),
        errors="outcome",
    )
    release.name = (
        f"SmartNoise Synth {synthesizer} ({transformer} categories {fit.categories},"
        f" {sample_size} rows)"
    )
    domain = Domain(
        low=(0,) * len(fit.categories),
        high=tuple(count - 1 for count in fit.categories),
        dim=len(fit.categories),
        dtype="int",
        min_size=1,
        max_size=max_size,
    )
    claimed_delta = getattr(claimed, "delta", None) or 0.0
    convention = (
        f"one record added or removed; claim from the synthesizer's epsilon and delta"
        f" ({claimed.epsilon:g}, {claimed_delta:g}); categories {transformer}"
    )
    return LibraryTarget(release, stated_claim(claimed.epsilon, claimed_delta), domain, convention)


@dataclass(frozen=True)
class _Fit:
    """One synthesizer fitted on a dataset's records and sampled, as cell counts."""

    name: str
    epsilon: float
    delta: float | None
    categories: tuple[int, ...]
    transformer: str

    def synthesizer(self):
        from snsynth import Synthesizer

        options = {} if self.delta is None else {"delta": self.delta}
        return Synthesizer.create(self.name, epsilon=self.epsilon, verbose=False, **options)

    def counts(self, dataset: np.ndarray, rows: int) -> dict[tuple, int]:
        """The counts of `rows` synthetic rows in each cell of the declared categories."""
        import pandas as pd

        records = np.asarray(dataset, dtype=int).reshape(-1, len(self.categories))
        columns = [f"c{index}" for index in range(len(self.categories))]
        frame = pd.DataFrame(records, columns=columns)
        synthesizer = self.synthesizer()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # MWEM and the transformers warn on small tables
            if self.transformer == "declared":
                synthesizer.fit(frame, transformer=self._declared(columns), preprocessor_eps=0.0)
            else:
                synthesizer.fit(frame, categorical_columns=columns, preprocessor_eps=0.0)
            synthetic = synthesizer.sample(rows)
        cells = np.ravel_multi_index(
            np.asarray(synthetic, dtype=int).reshape(-1, len(self.categories)).T, self.categories
        )
        counts = np.bincount(cells, minlength=int(np.prod(self.categories)))
        return {cell: int(count) for cell, count in zip(np.ndindex(*self.categories), counts)}

    def _declared(self, columns: list[str]):
        """A transformer fitted on a public table that holds every category of every column."""
        import pandas as pd
        from snsynth.transform import LabelTransformer, TableTransformer

        widest = max(self.categories)
        public = pd.DataFrame(
            {
                column: [value % count for value in range(widest)]
                for column, count in zip(columns, self.categories)
            }
        )
        declared = TableTransformer([LabelTransformer(nullable=False) for _ in columns])
        declared.fit(public)
        return declared


def smartnoise_covariance(
    *,
    epsilon: float = 1.0,
    bounds: tuple[float, float] = (0.0, 1.0),
    relation: str = "substitute",
    max_size: int = 5,
) -> LibraryTarget:
    """`DPcovariance(len(data), ["x", "y"], bounds, epsilon).release(data)` on records (x, y) in
    [bounds]^2: var(x), cov(x, y) and var(y), each noised for its share of `epsilon`.
    ``relation="add_remove"`` audits the convention its n-dependent noise scale does not meet."""
    check_choice("relation", relation, ("substitute", "add_remove"))
    columns, names = ["x", "y"], ["var(x)", "cov(x, y)", "var(y)"]

    def release(dataset: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
        import pandas as pd
        from snsynth.models.dp_covariance import DPcovariance

        frame = pd.DataFrame(np.asarray(dataset, dtype=float).reshape(-1, 2), columns=columns)
        table = pd.DataFrame([[float(bounds[0])] * 2, [float(bounds[1])] * 2])  # lower, upper
        covariance = DPcovariance(len(frame), columns, table, epsilon)
        return dict(zip(names, (float(value) for value in covariance.release(frame))))

    mechanism = structured(release, encoder=Keyed(keys=names))
    mechanism.name = "SmartNoise Synth DPcovariance"
    domain = Domain(
        low=bounds[0], high=bounds[1], dim=2, min_size=2, max_size=max_size, relation=relation
    )
    convention = (
        "n public: one record substituted, as its sensitivity 2/n assumes"
        if relation == "substitute"
        else "one record added or removed, though its noise scale depends on n: the convention to"
        " test"
    )
    return LibraryTarget(mechanism, stated_claim(epsilon, 0.0), domain, convention)
