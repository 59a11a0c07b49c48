"""Events S fitted on training samples, for the one-event divergence bounds.

An event is a fixed set of outputs, ``{x : score(x) ∈ interval}`` (`ScoreEvent`):
``event.contains(samples)`` says which samples fall in it. Validity of every bound rests on fitting
the event on samples that are *not* the ones it is evaluated on; the search here may use any
selection rule.

For 1-D outputs the search is exact over every threshold (lower and upper tails) in
O(n log n), and over every interval and interval complement for the linear objective
P̂(S) − γ Q̂(S) (a maximum-subarray problem solved with cumulative sums). Outputs that are
continuous but for some exact values (a fallback that returns the true answer, a clamp) also get
each repeated value as a point event {x = v}: atoms are few, so they are compared among
themselves, not among the ~n intervals. Candidates are then ranked by the tester's own objective
(e.g. a Wilson-corrected lower bound), which accounts for how well each candidate's
probabilities are estimated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from dpfuzz.testers.base import as_feature_matrix
from dpfuzz.testers.objectives import Objective


class Score(Protocol):
    """A fixed map from outputs (a feature matrix, one row per output) to one number per output."""

    def __call__(self, features: np.ndarray) -> np.ndarray: ...

    def describe(self, interval: Interval) -> str:
        """The event {x : score(x) ∈ interval} in the outputs' own terms."""


@dataclass(frozen=True)
class Interval:
    """low < v < high on a 1-D statistic v, or its complement when ``complement`` is set."""

    low: float
    high: float
    complement: bool = False

    def contains(self, values: np.ndarray) -> np.ndarray:
        inside = (values > self.low) & (values < self.high)
        return ~inside if self.complement else inside

    @classmethod
    def point(cls, value: float) -> Interval:
        """The event x = value: the open interval between its float neighbours."""
        return cls(float(np.nextafter(value, -np.inf)), float(np.nextafter(value, np.inf)))

    def describe(self, variable: str = "x") -> str:
        if not self.complement and np.nextafter(self.low, np.inf) == np.nextafter(
            self.high, -np.inf
        ):
            return f"{variable} = {np.nextafter(self.low, np.inf) + 0.0:.6g}"  # + 0.0: 0, not -0
        if self.complement:
            return f"{variable} <= {self.low:.6g} or {variable} >= {self.high:.6g}"
        if self.low == -np.inf and self.high == np.inf:
            return "every output"
        if self.low == -np.inf:
            return f"{variable} < {self.high:.6g}"
        if self.high == np.inf:
            return f"{variable} > {self.low:.6g}"
        return f"{self.low:.6g} < {variable} < {self.high:.6g}"


COUNT_CHUNK = 1 << 18


@dataclass(frozen=True)
class ScoreEvent:
    """The event S = {x : score(x) ∈ interval}: a fixed set of outputs once fitted."""

    score: Score
    interval: Interval
    epsilon: float | None = None  # for privacy-profile claims: the ε the event is tested at

    def contains(self, samples: np.ndarray) -> np.ndarray:
        """Which samples (any shape with leading axis n) fall in the event."""
        return self.interval.contains(self.score(as_feature_matrix(samples, "samples")))

    def count(self, samples: np.ndarray) -> int:
        """How many of `samples` fall in the event, scored in chunks of `COUNT_CHUNK` rows: a
        classifier's features of 10^7 outputs would not fit in memory (and their page faults
        cost more than the arithmetic)."""
        return sum(
            int(self.contains(samples[start : start + COUNT_CHUNK]).sum())
            for start in range(0, len(samples), COUNT_CHUNK)
        )

    def describe(self) -> str:
        return self.score.describe(self.interval)


class OutputValue:
    """The score of 1-D outputs: the output itself."""

    def __call__(self, features: np.ndarray) -> np.ndarray:
        return features[:, 0]

    def describe(self, interval: Interval) -> str:
        return interval.describe("x")


class Coordinate:
    """The score of vector outputs that looks at one coordinate: its value (`name`: the
    coordinate's name in the user's words, e.g. a structured output's "key 'b' value")."""

    def __init__(self, index: int, name: str | None = None):
        self.index, self.name = index, name

    def __call__(self, features: np.ndarray) -> np.ndarray:
        return features[:, self.index]

    def describe(self, interval: Interval) -> str:
        return interval.describe(self.name or f"output[{self.index}]")


def _cut_counts(
    x_p: np.ndarray, x_q: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Cut points between consecutive distinct values of the pooled sample (with −∞ and ∞), how
    many of each side lie below each cut, and the distinct values (value j between cuts j and
    j + 1). Each side is sorted on its own and the two runs
    merged (a stable sort of two sorted runs is one merge), the counts then found by binary
    search: faster than an argsort of the pooled sample and the gathers it needs, with the same
    result (docs/decisions/0014-drawing-and-memory.md)."""
    sorted_p, sorted_q = np.sort(x_p), np.sort(x_q)
    values = np.sort(np.concatenate([sorted_p, sorted_q]), kind="stable")
    last_before_cut = np.flatnonzero(values[:-1] < values[1:])
    distinct = values[last_before_cut]  # the largest value below each inner cut
    cuts = np.concatenate([[-np.inf], distinct / 2 + values[last_before_cut + 1] / 2, [np.inf]])
    below_p = np.concatenate([[0], np.searchsorted(sorted_p, distinct, side="right"), [len(x_p)]])
    below_q = np.concatenate([[0], np.searchsorted(sorted_q, distinct, side="right"), [len(x_q)]])
    return cuts, below_p, below_q, np.append(distinct, values[-1:])


def best_interval(
    x_p: np.ndarray,
    x_q: np.ndarray,
    objective: Objective,
    gammas: Sequence[float],
    weights: tuple | None = None,
    rare_share: float = 0.0,
) -> tuple[Interval, float]:
    """The best event among all tails, and the best intervals / complements for each γ, with its
    objective value.

    Tails are ranked exhaustively by `objective`; intervals and interval complements are found
    exactly for the linear objective P̂(S) − γ Q̂(S) at each γ in `gammas`, then ranked by
    `objective` together with the tails. With `weights` (w_p, w_q), x_p[i] stands for w_p[i]
    outputs of P and x_q[j] for w_q[j] of Q (the same event as on the repeated values). With
    `rare_share` > 0 (for the outputs themselves, not a fitted score), exact values that repeat
    in a mostly continuous sample, each holding at most that share of it, are candidates too
    (`_atoms`).
    """
    x_p, x_q = np.asarray(x_p, dtype=float), np.asarray(x_q, dtype=float)
    if weights is None:
        cuts, below_p, below_q, values = _cut_counts(x_p, x_q)
        n_p, n_q = len(x_p), len(x_q)
    else:
        cuts, below_p, below_q, values = _weighted_cut_counts(x_p, x_q, *weights)
        n_p, n_q = int(below_p[-1]), int(below_q[-1])
    return _best_of_cuts(cuts, values, below_p, below_q, n_p, n_q, objective, gammas, rare_share)


def _weighted_cut_counts(
    x_p, x_q, w_p, w_q
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """`_cut_counts` of x_p repeated w_p times and x_q repeated w_q times (integer weights; values
    of weight 0 left out), from one sort of the distinct values (a discrete output's scores)."""
    values = np.concatenate([x_p, x_q])
    counts = np.zeros((2, len(values)), dtype=np.int64)
    counts[0, : len(x_p)], counts[1, len(x_p) :] = w_p, w_q
    kept = counts.sum(axis=0) > 0
    order = np.argsort(values[kept], kind="stable")
    values, counts = values[kept][order], counts[:, kept][:, order]
    last_before_cut = np.flatnonzero(values[:-1] < values[1:])
    cuts = np.concatenate(
        [[-np.inf], values[last_before_cut] / 2 + values[last_before_cut + 1] / 2, [np.inf]]
    )
    below = np.cumsum(counts, axis=1)
    below_p, below_q = (np.concatenate([[0], side[last_before_cut], [side[-1]]]) for side in below)
    return cuts, below_p, below_q, np.append(values[last_before_cut], values[-1:])


def best_intervals_both(
    x_p: np.ndarray,
    x_q: np.ndarray,
    objective: Objective,
    gammas: Sequence[float],
    rare_share: float = 0.0,
) -> list[tuple[Interval, float]]:
    """`best_interval` of (x_p, x_q) and of (x_q, x_p), sorting the pooled sample once."""
    cuts, below_p, below_q, values = _cut_counts(
        np.asarray(x_p, dtype=float), np.asarray(x_q, dtype=float)
    )
    return [
        _best_of_cuts(
            cuts, values, below_p, below_q, len(x_p), len(x_q), objective, gammas, rare_share
        ),
        _best_of_cuts(
            cuts, values, below_q, below_p, len(x_q), len(x_p), objective, gammas, rare_share
        ),
    ]


def _best_of_cuts(
    cuts,
    values,
    below_p,
    below_q,
    n_p: int,
    n_q: int,
    objective: Objective,
    gammas: Sequence[float],
    rare_share: float = 0.0,
) -> tuple[Interval, float]:
    """`best_interval` given the cut points, the distinct values and the counts below the cuts
    (`_cut_counts`)."""
    # Candidates: every lower tail (cut 0, cut j) and upper tail (cut j, last cut), then the
    # best interval and interval complement for each γ, as (low cut, high cut, complement).
    scores = [
        objective(below_p, below_q, n_p, n_q, 1),
        objective(n_p - below_p, n_q - below_q, n_p, n_q, 1),
    ]
    extras = []
    for gamma in gammas:
        # gain[b] − gain[a] = P̂ − γ Q̂ of (cut a, cut b)
        gain = below_p / n_p - gamma * below_q / n_q
        best_high = int(np.argmax(gain - np.minimum.accumulate(gain)))
        extras.append((int(np.argmin(gain[: best_high + 1])), best_high, False))
        worst_high = int(np.argmin(gain - np.maximum.accumulate(gain)))
        extras.append((int(np.argmax(gain[: worst_high + 1])), worst_high, True))
    low_x, high_x, complement_x = (np.asarray(column) for column in zip(*extras))
    k_p = below_p[high_x] - below_p[low_x]
    k_q = below_q[high_x] - below_q[low_x]
    scores.append(
        objective(
            np.where(complement_x, n_p - k_p, k_p),
            np.where(complement_x, n_q - k_q, k_q),
            n_p,
            n_q,
            len(cuts),
        )
    )
    atoms, point_scores = (
        _scored_atoms(below_p, below_q, n_p, n_q, objective, rare_share, gammas[0])
        if rare_share > 0
        else (np.zeros(0, dtype=int), None)
    )
    if point_scores is not None:
        scores.append(point_scores)
    family = int(np.argmax([np.max(score) for score in scores]))
    best = int(np.argmax(scores[family]))
    value = float(scores[family][best])
    if family == 0:
        return Interval(-np.inf, float(cuts[best])), value
    if family == 1:
        return Interval(float(cuts[best]), np.inf), value
    if family == 3:
        return Interval.point(float(values[atoms[best]])), value
    return (
        Interval(float(cuts[low_x[best]]), float(cuts[high_x[best]]), bool(complement_x[best])),
        value,
    )


def _scored_atoms(
    below_p, below_q, n_p: int, n_q: int, objective: Objective, rare_share: float, gamma: float
) -> tuple[np.ndarray, np.ndarray | None]:
    """The point-event candidates (`_atoms`) and their objective values, corrected for their
    number (at least 2: the tails' peeling is for a nested family, not this one)."""
    atoms = _atoms(below_p, below_q, n_p, n_q, rare_share, gamma)
    if not len(atoms):
        return atoms, None
    return atoms, objective(
        np.diff(below_p)[atoms], np.diff(below_q)[atoms], n_p, n_q, max(len(atoms), 2), rare=True
    )


def _atoms(
    below_p: np.ndarray, below_q: np.ndarray, n_p: int, n_q: int, rare_share: float, gamma: float
) -> np.ndarray:
    """Indices of the exact values that repeat in the pooled sample, when most values do not (a
    continuous output with a few exact values), and that are rare (at most `rare_share` of it)
    or lopsided (a larger share of P's sample than `gamma` times Q's: an atom that moves with
    the data, present on both sides at different places). None for discrete outputs, whose
    values all repeat; a common exact value both sides share (a clamp that holds a third of the
    outputs, a code of a mixed output) is an interval the maximum-subarray search finds, and a
    fitted score's pattern."""
    k_p, k_q = np.diff(below_p), np.diff(below_q)
    pooled = k_p + k_q
    if 2 * len(pooled) < n_p + n_q:
        return np.empty(0, dtype=int)
    rare = pooled <= rare_share * (n_p + n_q)
    with np.errstate(invalid="ignore"):  # γ = ∞ times no Q output: not lopsided
        lopsided = k_p * n_q > gamma * k_q * n_p
    return np.flatnonzero((pooled >= 2) & (rare | lopsided))
