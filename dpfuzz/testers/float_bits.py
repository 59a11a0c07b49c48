"""Floating-point artefact tester: the hockey-stick test on the bit patterns of the outputs.

Textbook floating-point noise leaks through *which* doubles it can produce (Mironov 2012): e.g.
x + Laplace noise yields only multiples of 2^−53 near 0 when x = 1, but finer values when
x = 0. Each output coordinate is mapped to (sign, binary exponent, exponent of its lowest set
bit); those discrete patterns are scored by their likelihood ratio (`models.PatternScore`) on
the training half and the best set is certified on the held-out half exactly as in
`HockeyStickTester`. The map is fixed, so the bound keeps its validity. Events are described
by their bit patterns: "(sign +, exponent 1, lowest set bit 2^-53)".
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from dpfuzz.testers.base import as_feature_matrix
from dpfuzz.testers.hockey_stick import HockeyStickTester
from dpfuzz.testers.selection import EventSelection

_ZERO = -2000  # exponent and lowest bit recorded for an output of exactly 0


def float_bit_features(samples: np.ndarray) -> np.ndarray:
    """(sign, exponent, lowest-set-bit exponent) of every output coordinate, as integers."""
    values = as_feature_matrix(samples, "samples")
    mantissa, exponent = np.frexp(np.abs(values))  # |y| = m · 2^e, m ∈ [0.5, 1)
    integer = (mantissa * 2.0**53).astype(np.int64)  # exact: 53-bit significand
    lowest = np.frexp((integer & -integer).astype(np.float64))[1] - 1  # trailing zero bits
    zero = values == 0
    lowest_bit = np.where(zero, _ZERO, exponent - 53 + lowest)
    exponent = np.where(zero, _ZERO, exponent)
    return np.concatenate([np.sign(values), exponent, lowest_bit], axis=1).astype(np.int64)


class FloatBitsTester(HockeyStickTester):
    """Refute DP claims through float bit patterns of the outputs (see the module docstring)."""

    name = "float_bits"
    takes_output_words = False  # its events speak of bit patterns (`describe_bit_pattern`)

    def __init__(
        self,
        objective: Literal["divergence", "epsilon"] = "epsilon",
        certificate: Literal["per_side", "privacy_loss"] = "per_side",
    ):
        selection = EventSelection(
            "patterns", objective, feature_map=float_bit_features, row_words=describe_bit_pattern
        )
        super().__init__("patterns", objective, certificate, selection=selection)


def describe_bit_pattern(row: np.ndarray) -> str:
    """A row of `float_bit_features` in words: "(+, exponent 1, lowest set bit 2^-53)"."""
    parts = []
    for sign, exponent, lowest in np.asarray(row, dtype=np.int64).reshape(3, -1).T:
        if exponent == _ZERO:
            parts.append("0.0")
        else:
            parts.append(
                f"({'+' if sign > 0 else '-'}, exponent {exponent}, lowest set bit 2^{lowest})"
            )
    return parts[0] if len(parts) == 1 else "[" + ", ".join(parts) + "]"
