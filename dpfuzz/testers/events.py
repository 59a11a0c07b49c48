"""Events S fitted on training samples, for the one-event divergence bounds.

An event is a fixed set of outputs: ``event.contains(samples)`` says which samples fall in
it. Validity of every bound rests on fitting the event on samples that are *not* the ones it
is evaluated on; the search here may use any selection rule.

For 1-D outputs the search is exact over every threshold (lower and upper tails) in
O(n log n), and over every interval and interval complement for the linear objective
P̂(S) − γ Q̂(S) (a maximum-subarray problem solved with cumulative sums). Candidates are then
ranked by the tester's own objective (e.g. a Wilson-corrected lower bound), which accounts
for how well each candidate's probabilities are estimated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

import numpy as np

# objective(k_p, k_q, n_p, n_q) -> score per candidate; larger is better.
Objective = Callable[[np.ndarray, np.ndarray, int, int], np.ndarray]


class Event(Protocol):
    def contains(self, samples: np.ndarray) -> np.ndarray: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class IntervalEvent:
    """low < x < high on a 1-D statistic, or its complement when ``complement`` is set."""

    low: float
    high: float
    complement: bool = False

    def contains(self, values: np.ndarray) -> np.ndarray:
        inside = (values > self.low) & (values < self.high)
        return ~inside if self.complement else inside

    def describe(self, variable: str = "x") -> str:
        if self.complement:
            return f"{variable} <= {self.low:.6g} or {variable} >= {self.high:.6g}"
        if self.low == -np.inf and self.high == np.inf:
            return "every output"
        if self.low == -np.inf:
            return f"{variable} < {self.high:.6g}"
        if self.high == np.inf:
            return f"{variable} > {self.low:.6g}"
        return f"{self.low:.6g} < {variable} < {self.high:.6g}"


@dataclass(frozen=True)
class ScoreEvent:
    """An interval event on a fitted model's score: S = {x : score(x) ∈ interval}."""

    model: object
    interval: IntervalEvent

    def contains(self, samples: np.ndarray) -> np.ndarray:
        return self.interval.contains(classifier_score(self.model, samples))

    def describe(self) -> str:
        return f"{type(self.model).__name__} score: {self.interval.describe('score')}"


def classifier_score(model: object, samples: np.ndarray) -> np.ndarray:
    """A real-valued score from a fitted scikit-learn classifier (larger = more like class 1)."""
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(samples), dtype=float)
    return np.asarray(model.predict_proba(samples)[:, 1], dtype=float)


def fit_interval_event(
    x_p: np.ndarray, x_q: np.ndarray, objective: Objective, gammas: Sequence[float]
) -> tuple[IntervalEvent, float]:
    """The best event among all tails, and the best intervals / complements for each γ, with its
    objective value.

    Tails are ranked exhaustively by `objective`; intervals and interval complements are found
    exactly for the linear objective P̂(S) − γ Q̂(S) at each γ in `gammas`, then ranked by
    `objective` together with the tails.
    """
    n_p, n_q = len(x_p), len(x_q)
    values = np.concatenate([x_p, x_q]).astype(float, copy=False)
    from_p = np.concatenate([np.ones(n_p, dtype=bool), np.zeros(n_q, dtype=bool)])
    order = np.argsort(values)
    values, from_p = values[order], from_p[order]
    cum_p = np.cumsum(from_p)
    cum_q = np.arange(1, len(values) + 1) - cum_p
    # Cut points between consecutive distinct values; counts below each cut.
    last_before_cut = np.flatnonzero(values[:-1] < values[1:])
    cuts = np.concatenate(
        [[-np.inf], values[last_before_cut] / 2 + values[last_before_cut + 1] / 2, [np.inf]]
    )
    below_p = np.concatenate([[0], cum_p[last_before_cut], [n_p]])
    below_q = np.concatenate([[0], cum_q[last_before_cut], [n_q]])

    # Candidates: every lower tail (cut 0, cut j) and upper tail (cut j, last cut), then the
    # best interval and interval complement for each γ, as (low cut, high cut, complement).
    scores = [objective(below_p, below_q, n_p, n_q), objective(n_p - below_p, n_q - below_q, n_p, n_q)]
    extras = []
    for gamma in gammas:
        gain = below_p / n_p - gamma * below_q / n_q  # gain[b] − gain[a] = P̂ − γ Q̂ of (cut a, cut b)
        best_high = int(np.argmax(gain - np.minimum.accumulate(gain)))
        extras.append((int(np.argmin(gain[: best_high + 1])), best_high, False))
        worst_high = int(np.argmin(gain - np.maximum.accumulate(gain)))
        extras.append((int(np.argmax(gain[: worst_high + 1])), worst_high, True))
    low_x, high_x, complement_x = (np.asarray(column) for column in zip(*extras))
    k_p = below_p[high_x] - below_p[low_x]
    k_q = below_q[high_x] - below_q[low_x]
    scores.append(
        objective(np.where(complement_x, n_p - k_p, k_p), np.where(complement_x, n_q - k_q, k_q), n_p, n_q)
    )
    family = int(np.argmax([np.max(score) for score in scores]))
    best = int(np.argmax(scores[family]))
    value = float(scores[family][best])
    if family == 0:
        return IntervalEvent(-np.inf, float(cuts[best])), value
    if family == 1:
        return IntervalEvent(float(cuts[best]), np.inf), value
    return IntervalEvent(float(cuts[low_x[best]]), float(cuts[high_x[best]]), bool(complement_x[best])), value
