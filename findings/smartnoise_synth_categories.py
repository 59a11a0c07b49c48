"""smartnoise-synth 1.0.8: synthetic tables hold only the values the private data holds.

Standalone reproduction (needs smartnoise-synth, pandas, numpy and scipy, not dpfuzz; about two
minute):

    python findings/smartnoise_synth_categories.py [fits per side, default 200]

Two independent causes, each an event of probability 0 on D and positive on D' (exact
ε = ∞) under add/remove and under substitution:

1. MWEM (``MWEMSynthesizer._histogram_from_data_attributes``) bins each column from the data's
   own minimum and maximum, even when the transformer declares every category: with categories
   0, 1, 2 declared in a `TableTransformer` fitted on public data, a table without a 0 in a
   column never gets a synthetic 0 there.
2. The default preprocessing, ``fit(data, categorical_columns=...)``, builds a `TableTransformer`
   whose `LabelTransformer` reads the categories from the private data, with no budget spent:
   MST (and AIM and MWEM) then never synthesise a value the data lacks.

The pair: D holds records (2, 2) and (1, 1); D' adds (0, 0). ε = 1 throughout (MST at its default
δ = 10⁻⁹).
"""

import sys
import warnings

import numpy as np
import pandas as pd
from scipy.stats import beta
from snsynth import Synthesizer
from snsynth.transform import LabelTransformer, TableTransformer

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
MST_RUNS = max(RUNS // 2, 10)  # an MST fit takes about half a second
CONFIDENCE = 0.95
D = pd.DataFrame({"a": [2, 1], "b": [2, 1]})
D_PRIME = pd.DataFrame({"a": [2, 1, 0], "b": [2, 1, 0]})
PUBLIC = pd.DataFrame({"a": [0, 1, 2], "b": [0, 1, 2]})  # every category, known in advance


def declared() -> TableTransformer:
    """A transformer of the categories 0, 1, 2 of each column, fitted on public data."""
    transformer = TableTransformer([LabelTransformer(nullable=False) for _ in PUBLIC.columns])
    transformer.fit(PUBLIC)
    return transformer


def zeros_seen(name: str, data: pd.DataFrame, runs: int, declare: bool) -> int:
    """How many of `runs` fits synthesise a table of 100 rows with a 0 in column a."""
    seen = 0
    for _ in range(runs):
        synthesizer = Synthesizer.create(name, epsilon=1.0, verbose=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if declare:
                synthesizer.fit(data, transformer=declared(), preprocessor_eps=0.0)
            else:
                synthesizer.fit(data, categorical_columns=["a", "b"], preprocessor_eps=0.0)
            synthetic = synthesizer.sample(100)
        seen += bool(np.any(np.asarray(synthetic["a"]) == 0))
    return seen


def certified(hits_d: int, hits_d_prime: int, runs: int) -> str:
    """The ε a Clopper–Pearson pair of bounds certifies (β/2 each side)."""
    alpha = (1 - CONFIDENCE) / 2
    upper_d = beta.ppf(1 - alpha, hits_d + 1, runs - hits_d)
    if hits_d_prime == 0:
        return "nothing certified"
    lower = beta.ppf(alpha, hits_d_prime, runs - hits_d_prime + 1)
    return f"epsilon >= {np.log(lower / upper_d):.2f} at {CONFIDENCE:.0%} confidence"


for name, runs, declare in (("mwem", RUNS, True), ("mst", MST_RUNS, False)):
    hits_d = zeros_seen(name, D, runs, declare)
    hits_d_prime = zeros_seen(name, D_PRIME, runs, declare)
    how = "categories declared" if declare else "categories from the data"
    measured = certified(hits_d, hits_d_prime, runs)
    print(
        f"{name}, {how}: a synthetic 0 in {hits_d} of {runs} fits on D and {hits_d_prime} of"
        f" {runs} on D'; exact epsilon = infinity; measured: {measured}"
    )
    assert hits_d == 0 and hits_d_prime > 0
