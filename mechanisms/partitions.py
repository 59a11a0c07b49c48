"""Group-by counts with partition selection: which keys a release shows depends on the data.

Records are keys 0 … 4; the release is, for each key, (state, noisy count): state 1 when the key
is released, 0 when it is not, with the noisy count then 0 (a structured output, encoded as
`dpfuzz.outputs.Keyed` encodes a dict of key → count; events read "key 2 (0 absent, 1 released, 2
suppressed) > 0.5"). Each key
in the data gets its count plus Lap(1/ε); one record moves one key's count by 1.

* PartitionSelectionNoThreshold  releases every key whose noisy count is positive. A key only
  one dataset holds is released there with probability 1 − e^{−ε}/2 and never on the other:
  no finite ε at any δ < that.
* PartitionSelection             releases a key when its noisy count exceeds τ = 1 + ln(1/(2δ))/ε:
  a key one dataset alone holds is released with probability ½e^{−ε(τ−1)} = δ, and the counts of
  keys both hold are the Laplace mechanism's, so (ε, δ)-DP (Korolova et al. 2009; Wilson et
  al. 2020, Thm. 1).
"""

from __future__ import annotations

import math

import numpy as np

from dpfuzz.claims import ApproxDP
from dpfuzz.datasets import DatasetPair
from dpfuzz.domain import Domain
from dpfuzz.mechanism import Mechanism
from dpfuzz.outputs import Keyed, OutputWords

from ._checks import positive
from .entry import CatalogueEntry, Truth

KEYS = 5
KEY_DOMAIN = Domain(
    low=0, high=KEYS - 1, dtype="int", min_size=0, max_size=4, relation="add_remove"
)


def partition_counts(epsilon: float, delta: float, thresholded: bool) -> Mechanism:
    epsilon, delta = positive("epsilon", epsilon), positive("delta", delta)
    threshold = 1 + math.log(1 / (2 * delta)) / epsilon if thresholded else 0.0
    words = Keyed(keys=list(range(KEYS)))

    def mechanism(dataset: np.ndarray, num_samples: int, rng: np.random.Generator) -> np.ndarray:
        counts = np.bincount(np.asarray(dataset, dtype=int), minlength=KEYS)[:KEYS]
        noisy = counts + rng.laplace(0.0, 1.0 / epsilon, size=(num_samples, KEYS))
        released = (counts > 0) & (noisy > threshold)
        outputs = np.zeros((num_samples, words.width))
        outputs[:, 0 : 2 * KEYS : 2] = released
        outputs[:, 1 : 2 * KEYS : 2] = np.where(released, noisy, 0.0)
        return outputs

    mechanism.describe_output = OutputWords(words)  # type: ignore[attr-defined]
    return mechanism


def _entry(name: str, thresholded: bool, truth, description: str) -> CatalogueEntry:
    return CatalogueEntry(
        name=name,
        family="partitions",
        build=lambda epsilon, delta: partition_counts(epsilon, delta, thresholded),
        claim_type=ApproxDP,
        defaults={"epsilon": 1.0, "delta": 1e-5},
        domain_spec=KEY_DOMAIN,
        truth_spec=truth,
        witness_spec=DatasetPair(np.array([], dtype=np.int64), np.array([0], dtype=np.int64)),
        description=description,
    )


PartitionSelectionNoThreshold = _entry(
    "PartitionSelectionNoThreshold",
    False,
    Truth(
        False,
        math.inf,
        "a key one dataset alone holds is released there with probability 1 − e^−ε/2, never on the"
        " other",
    ),
    "per key: count + Lap(1/ε), released when positive",
)
PartitionSelection = _entry(
    "PartitionSelection",
    True,
    lambda epsilon, delta: Truth(
        True,
        epsilon,
        "Laplace counts; a key one dataset alone holds is released with probability δ",
    ),
    "per key: count + Lap(1/ε), released above 1 + ln(1/(2δ))/ε",
)

ENTRIES = [PartitionSelectionNoThreshold, PartitionSelection]
