"""Fits of diffprivlib's RandomForestClassifier on records at one point, and the ε lower bound
an event's frequencies certify. Needs diffprivlib, numpy and scipy (no dpfuzz); used by the
forest reproductions beside it.
"""

from __future__ import annotations

import math

import numpy as np
from diffprivlib import BudgetAccountant
from diffprivlib.models import RandomForestClassifier
from scipy.stats import beta

POINT = [[0.5, 0.5]]


def fitted_labels(labels, runs: int, seed: int, trees: int = 4, shuffle: bool = False):
    """The labels at POINT of each tree of `runs` forests fitted on records at POINT with these
    labels: a (runs, trees) array."""
    rng = np.random.default_rng(seed)
    result = np.empty((runs, trees), dtype=int)
    for run in range(runs):
        forest = RandomForestClassifier(
            n_estimators=trees,
            epsilon=1.0,
            bounds=([0.0, 0.0], [1.0, 1.0]),
            classes=[0, 1],
            max_depth=2,
            shuffle=shuffle,
            random_state=int(rng.integers(2**31 - 1)),
            accountant=BudgetAccountant(),
        )
        forest.fit(np.array(POINT * len(labels)), np.array(labels))
        result[run] = [tree.predict(POINT)[0] for tree in forest.estimators_]
    return result


def certified_epsilon(hits_more: int, hits_less: int, runs: int) -> float:
    """ln(lower bound of the likelier side's rate / upper bound of the other's), each a one-sided
    97.5 % Clopper–Pearson bound: the ratio's bound holds with 95 % confidence."""
    lower = beta.ppf(0.025, hits_more, runs - hits_more + 1) if hits_more else 0.0
    upper = beta.ppf(0.975, hits_less + 1, runs - hits_less) if hits_less < runs else 1.0
    return math.log(lower / upper) if lower > 0 else -math.inf
