"""Scoring models that turn vector outputs into a 1-D score whose intervals are events.

Each is a scikit-learn classifier (P samples labelled 1, Q samples 0), or `PatternScore`, the
exact log-likelihood ratio of each distinct output vector (for discrete outputs such as SVT
answer vectors or argmax indices, where the best event is a set of output patterns), or
`MonotonePatternScore` for mixed outputs (patterns with a released value, as in SVT3).
`ModelScore` wraps a fitted model as an event's score and describes the event in the outputs'
terms: which patterns it holds, or which output coordinates drive the classifier.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, PolynomialFeatures, StandardScaler
from sklearn.utils.validation import has_fit_parameter

from dpfuzz.errors import InvalidArgument
from dpfuzz.memory import empty_array
from dpfuzz.testers.events import Interval

# Discrete outputs with at most this many distinct rows are scored pattern by pattern.
MAX_PATTERNS = 5000


class PatternScore(ClassifierMixin, BaseEstimator):
    """Score of an output = log(p̂(pattern) / q̂(pattern)) with ½-smoothed training counts.

    Unseen patterns score 0. Exact for discrete outputs: thresholding the score ranks output
    patterns by likelihood ratio, the Neyman–Pearson order.
    """

    def fit(
        self, features: np.ndarray, labels: np.ndarray, sample_weight: np.ndarray | None = None
    ) -> PatternScore:
        self.layout_ = integer_layout(features)
        keys = _row_keys(features, self.layout_)
        self.keys_, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        self.patterns_ = np.asarray(features, dtype=float)[first]
        weights = (
            np.ones(len(keys)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        )
        positive = labels == 1
        counts_p = (
            np.bincount(inverse[positive], weights[positive], minlength=len(self.keys_)) + 0.5
        )
        counts_q = (
            np.bincount(inverse[~positive], weights[~positive], minlength=len(self.keys_)) + 0.5
        )
        self.scores_ = np.log(counts_p / counts_p.sum()) - np.log(counts_q / counts_q.sum())
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, features: np.ndarray) -> np.ndarray:
        position, known = _lookup(self.keys_, _row_keys(features, self.layout_))
        return np.where(known, self.scores_[position], 0.0)


class MonotonePatternScore(ClassifierMixin, BaseEstimator):
    """For mixed outputs (integer columns with few patterns, and released real values, as in
    SVT3, NumericalSVT): within each pattern of the integer columns, the log-likelihood ratio
    as a monotone step function of the released value (the real columns summed; SVT3 releases
    one per output). The steps are an isotonic regression of the labels on the value (the
    direction that fits better), each step scored like `PatternScore` by its ½-smoothed counts;
    patterns with fewer than `min_count` training rows are one step, unseen patterns score 0.
    With `prior_rows`, each step's counts also get that many pseudo-rows at its pattern's own P
    share: a step of few outputs then scores near its pattern's ratio, one of many by its own
    (`smoothed` makes that copy of a fitted model without refitting).

    Monotone is exact for one-dimensional location families with a monotone likelihood ratio
    (Laplace, Gaussian, exponential noise) and close for SVT3's comparisons, where it certifies
    more than the logistic model (docs/decisions/0013-event-selection.md).
    """

    def __init__(self, min_count: int = 100, prior_rows: float = 0.0):
        self.min_count, self.prior_rows = min_count, prior_rows

    def fit(
        self, features: np.ndarray, labels: np.ndarray, sample_weight: np.ndarray | None = None
    ) -> MonotonePatternScore:
        features = np.asarray(features, dtype=float)
        weights = (
            np.ones(len(features))
            if sample_weight is None
            else np.asarray(sample_weight, dtype=float)
        )
        self.integral_ = np.all(features == np.floor(features), axis=0)
        self.layout_ = integer_layout(_columns(features, self.integral_))
        keys, values = self._split(features)
        self.keys_, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        self.patterns_ = features[first][:, self.integral_]
        positive = labels == 1
        self.totals_ = weights[positive].sum(), weights[~positive].sum()
        self.counts_ = [
            self._steps(values[rows], labels[rows], weights[rows])
            for rows in _groups(inverse, len(self.keys_))
        ]
        self.steps_ = self._scored_steps()
        self.classes_ = np.array([0, 1])
        return self

    def smoothed(self, prior_rows: float) -> MonotonePatternScore:
        """A copy of this fitted model whose steps are scored with `prior_rows` pseudo-rows."""
        copied = copy.copy(self)
        copied.prior_rows = prior_rows
        copied.steps_ = copied._scored_steps()
        return copied

    def _split(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each row's pattern key (integer columns; 0 without any) and released value (real columns
        summed)."""
        # 15× faster than summing the real columns' copy
        values = features @ (~self.integral_).astype(float)
        if not self.integral_.any():
            return np.zeros(len(features)), values
        return _row_keys(_columns(features, self.integral_), self.layout_), values

    def _steps(self, values, labels, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(edges between steps in the value, each step's P and Q training weight) for one pattern's
        rows."""
        order = np.argsort(values, kind="stable")
        values, labels, weights = values[order], labels[order], weights[order]
        step = np.zeros(len(values), dtype=int)
        if weights.sum() >= self.min_count and values[0] < values[-1]:
            fits = [
                IsotonicRegression(increasing=increasing).fit_transform(
                    values, labels, sample_weight=weights
                )
                for increasing in (True, False)
            ]
            fitted = min(fits, key=lambda fit: np.sum(weights * (fit - labels) ** 2))
            step = np.r_[0, np.cumsum(np.diff(fitted) != 0)]
        changes = np.flatnonzero(np.diff(step))
        edges = (values[changes] + values[changes + 1]) / 2
        positive = labels == 1
        counts_p = np.bincount(step[positive], weights[positive], minlength=step[-1] + 1)
        counts_q = np.bincount(step[~positive], weights[~positive], minlength=step[-1] + 1)
        return edges, counts_p, counts_q

    def _scored_steps(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(edges, scores) of each pattern's steps, from their counts and `prior_rows`."""
        return [
            (edges, self._step_scores(counts_p, counts_q))
            for edges, counts_p, counts_q in self.counts_
        ]

    def _step_scores(self, counts_p: np.ndarray, counts_q: np.ndarray) -> np.ndarray:
        """One pattern's step log-ratios from ½-smoothed counts, plus `prior_rows` pseudo-rows split
        as the pattern's P and Q weights."""
        share = (counts_p.sum() + 0.5) / (counts_p.sum() + counts_q.sum() + 1.0)
        smoothed_p = counts_p + 0.5 + self.prior_rows * share
        smoothed_q = counts_q + 0.5 + self.prior_rows * (1 - share)
        return np.log(smoothed_p / self.totals_[0]) - np.log(smoothed_q / self.totals_[1])

    def decision_function(self, features: np.ndarray) -> np.ndarray:
        keys, values = self._split(np.asarray(features, dtype=float))
        position, known = _lookup(self.keys_, keys)
        scores = np.zeros(len(keys))
        for index, rows in enumerate(
            _groups(np.where(known, position, len(self.keys_)), len(self.keys_))
        ):
            edges, step_scores = self.steps_[index]
            scores[rows] = step_scores[np.searchsorted(edges, values[rows])]
        return scores

    def cells(self, interval: Interval) -> list[tuple[float, np.ndarray, float, float]]:
        """The (score, pattern, lowest, highest value) steps inside `interval`, strongest first."""
        found = []
        for pattern, (edges, scores) in zip(self.patterns_, self.steps_):
            bounds = np.r_[-np.inf, edges, np.inf]
            inside = interval.contains(scores)
            found += [
                (scores[i], pattern, bounds[i], bounds[i + 1]) for i in np.flatnonzero(inside)
            ]
        return sorted(found, key=lambda cell: -abs(cell[0]))


# The smoothed copy of fitted monotone steps scored beside them (`score_variants`): pseudo-rows
# per step at its pattern's ratio. Isotonic steps at the ends of a pattern's values are small, and
# where the true ratio is not monotone in the value (SVT3: it peaks inside the value range) they
# are fitted noise that ranks first; the smoothed copy pulls them towards their pattern. Both are
# candidates and the held-out half chooses (docs/decisions/0013-event-selection.md).
SMOOTHED_PRIOR_ROWS = 1_000


def score_variants(model: Any) -> list[object]:
    """The scores tried for one fitted model: itself, and for unsmoothed monotone steps also
    their copy smoothed with SMOOTHED_PRIOR_ROWS pseudo-rows."""
    if isinstance(model, MonotonePatternScore) and model.prior_rows == 0:
        return [model, model.smoothed(SMOOTHED_PRIOR_ROWS)]
    return [model]


def _columns(features: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """features[:, mask], as a view without a copy when the columns are one block (SVT3's codes)."""
    where = np.flatnonzero(mask)
    if len(where) and where[-1] - where[0] + 1 == len(where):
        return features[:, where[0] : where[-1] + 1]
    return features[:, mask]


def _lookup(fitted: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each key's position in the sorted `fitted` keys, and whether it is there at all."""
    position = np.clip(np.searchsorted(fitted, keys), 0, len(fitted) - 1)
    return position, fitted[position] == keys


def _groups(labels: np.ndarray, count: int) -> list[np.ndarray]:
    """The row indices holding each label 0 … count − 1 (other labels are left out), by one stable
    sort, on 16-bit labels where they fit (numpy's radix sort: 8× faster on 3·10^6 labels)."""
    if count < np.iinfo(np.int16).max:
        labels = np.clip(labels, -1, count).astype(np.int16)
    order = np.argsort(labels, kind="stable")
    ends = np.searchsorted(labels[order], np.arange(count + 1))
    return [order[ends[i] : ends[i + 1]] for i in range(count)]


def is_mixed(features: np.ndarray) -> bool:
    """Some integer columns with few enough distinct rows for patterns, and some real ones."""
    spread = features[:: max(1, len(features) // 200_000)]
    integral = np.all(spread == np.floor(spread), axis=0)
    if integral.all() or not integral.any():
        return False
    return is_discrete(spread[:, integral])


def integer_layout(features: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(smallest, largest value) of each column when the rows are integers whose mixed-radix
    numbers fit in a float64 exactly, else None. Sorting these numbers is about ten times faster
    than sorting the rows' bytes (docs/decisions/0014-drawing-and-memory.md)."""
    features = np.asarray(features, dtype=float)
    if features.size == 0:
        return None
    low, high = features.min(axis=0), features.max(axis=0)
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        return None
    if math.prod(float(span) for span in high - low + 1) >= 2**53 or not np.array_equal(
        features, np.floor(features)
    ):
        return None
    return low, high


def _row_keys(
    features: np.ndarray, layout: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """One comparable scalar per row: its mixed-radix number under `layout` (−1 for a row outside
    the layout's ranges or not integral, matching no fitted key), else the row's bytes as a numpy
    void.
    """
    features = np.asarray(features, dtype=float)
    if layout is not None:
        low, high = layout
        keys = (features - low) @ np.cumprod(np.r_[1.0, (high - low + 1)[:-1]])
        inside = np.all((features >= low) & (features <= high), axis=1) & (keys == np.floor(keys))
        return np.where(inside, keys, -1.0)
    rows = np.ascontiguousarray(features, dtype=np.float64) + 0.0  # one key for 0.0 and -0.0
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def distinct_table(samples: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The distinct rows of integer samples (in their mixed-radix order), and
    each sample's outputs as indices into them; None when the rows are not integers under one
    `integer_layout`. Counted by `np.bincount` where the layout has at most 2^24 rows (SVT6:
    1,024), else by `np.unique`."""
    # integer dtypes whose products with int64 stay int64 (not uint64) need no integrality check
    integral = [
        sample.dtype.kind == "i" or (sample.dtype.kind == "u" and sample.dtype.itemsize < 8)
        for sample in samples
    ]
    layouts = [
        (sample.min(axis=0), sample.max(axis=0)) if whole else integer_layout(sample)
        for sample, whole in zip(samples, integral)
    ]
    known = [layout for layout in layouts if layout is not None]
    if len(known) < len(layouts):
        return None
    low = np.min([layout[0] for layout in known], axis=0).astype(float)
    high = np.max([layout[1] for layout in known], axis=0).astype(float)
    size = math.prod(float(span) for span in high - low + 1)
    if size >= 2**53 or max(np.abs(low).max(), np.abs(high).max()) >= 2**62:
        return None
    low, spans = low.astype(np.int64), (high - low + 1).astype(np.int64)
    radix = np.cumprod(np.r_[1, spans[:-1]])
    # each row's mixed-radix number; int64 arithmetic wraps, so it is exact modulo 2^64, and the
    # number fits
    keys = [
        (sample if whole else sample.astype(np.int64)) @ radix - low @ radix
        for sample, whole in zip(samples, integral)
    ]
    if size <= 2**24:
        present = np.zeros(int(size), dtype=bool)
        for sample_keys in keys:
            present[sample_keys] = True
        distinct = np.flatnonzero(present)
        position = np.cumsum(present) - 1
        indices = [position[sample_keys] for sample_keys in keys]
    else:
        distinct, inverse = np.unique(np.concatenate(keys), return_inverse=True)
        indices = np.split(
            inverse.ravel(), np.cumsum([len(sample_keys) for sample_keys in keys])[:-1]
        )
    rows = low + (distinct[:, None] // radix) % spans
    return rows.astype(float), indices


@dataclass(frozen=True)
class DiscreteHalves:
    """Two discrete samples, P's and Q's, each split into a fitting and a selection half
    (`split_halves`), as their distinct rows and counts. `fitting` is the fitting halves as
    distinct (row, label) pairs, P's labelled 1, and their counts: fitting with these counts as
    sample weights minimises the same loss as fitting on every row (the weighted log-loss and the
    weighted mean and variance are sums over rows), in time that does not grow with the sample
    (SVT6: 1,024 patterns for 10^6 outputs). `selection` is each distinct row's count in P's and in
    Q's selection half, so a model scores the distinct `rows` once."""

    rows: np.ndarray
    fitting: tuple[np.ndarray, np.ndarray, np.ndarray]
    selection: tuple[np.ndarray, np.ndarray]

    @classmethod
    def split(cls, x_p: np.ndarray, x_q: np.ndarray) -> DiscreteHalves | None:
        """The halves of `x_p` and `x_q`, or None when their rows are not integers
        (`distinct_table`)."""
        table = distinct_table([x_p, x_q])
        if table is None:
            return None
        rows, indices = table
        halves = [(index[: len(index) // 2], index[len(index) // 2 :]) for index in indices]
        counts = [[np.bincount(half, minlength=len(rows)) for half in side] for side in halves]
        fit_counts = np.stack([counts[0][0], counts[1][0]])
        kept = fit_counts > 0
        fitting = (
            np.concatenate([rows[kept[0]], rows[kept[1]]]),
            np.repeat([1, 0], kept.sum(axis=1)),
            fit_counts[kept].astype(float),
        )
        return cls(rows, fitting, (counts[0][1], counts[1][1]))


def takes_weights(model: Any) -> bool:
    """Whether `model` (or a pipeline's final estimator) is fitted with sample weights."""
    final = model.steps[-1][1] if isinstance(model, Pipeline) else model
    return has_fit_parameter(final, "sample_weight")


def fit_weighted(model: Any, features: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> bool:
    """Fit `model` with sample weights (a pipeline's every step that takes them); False, and
    nothing fitted, when its final estimator takes none."""
    if not takes_weights(model):
        return False
    steps = model.steps if isinstance(model, Pipeline) else [(None, model)]
    if not isinstance(model, Pipeline):
        model.fit(features, labels, sample_weight=weights)
        return True
    routed = {
        f"{name}__sample_weight": weights
        for name, step in steps
        if has_fit_parameter(step, "sample_weight")
    }
    model.fit(features, labels, **routed)
    return True


# Pipeline steps that ignore the labels, so a pipeline of them and a symmetric classifier is
# symmetric.
_LABEL_FREE_STEPS = (FunctionTransformer, PolynomialFeatures, StandardScaler)


def negated(model: Any) -> object | None:
    """A copy of a fitted model scoring minus what `model` scores: the model fitted with the
    labels swapped, for models whose fit is symmetric in the labels (the ½-smoothed pattern and
    step counts; the isotonic fit, tried in both directions; logistic regression without
    class-specific weights, after label-free steps, whose penalised log-loss is unchanged when the
    labels and the weights change sign). None for other models."""
    if isinstance(model, PatternScore):
        flipped = copy.copy(model)
        flipped.scores_ = -model.scores_
        return flipped
    if isinstance(model, MonotonePatternScore):
        flipped = copy.copy(model)
        flipped.steps_ = [(edges, -scores) for edges, scores in model.steps_]
        flipped.counts_ = [
            (edges, counts_q, counts_p) for edges, counts_p, counts_q in model.counts_
        ]
        flipped.totals_ = model.totals_[::-1]
        return flipped
    steps = [step for _, step in model.steps] if isinstance(model, Pipeline) else [model]
    label_free = all(isinstance(step, _LABEL_FREE_STEPS) for step in steps[:-1])
    final = steps[-1]
    symmetric = isinstance(final, LogisticRegression) and final.class_weight in (None, "balanced")
    if label_free and symmetric and final.coef_.shape[0] == 1:
        flipped = copy.deepcopy(model)
        final = flipped.steps[-1][1] if isinstance(flipped, Pipeline) else flipped
        final.coef_, final.intercept_ = -final.coef_, -final.intercept_
        return flipped
    return None


def is_discrete(features: np.ndarray) -> bool:
    """Integer-valued outputs with few enough distinct rows to score pattern by pattern (counted
    on 2·10^5 rows spread over the sample: sorting all 10^7 would take seconds)."""
    spread = features[:: max(1, len(features) // 200_000)]
    layout = integer_layout(spread)
    return layout is not None and len(np.unique(_row_keys(spread, layout))) <= MAX_PATTERNS


def classifier_score(model: Any, samples: np.ndarray) -> np.ndarray:
    """A real-valued score from a fitted scikit-learn classifier (larger = more like class 1)."""
    quadratic = _logistic_decision(model, samples)
    if quadratic is not None:
        return quadratic
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(samples), dtype=float)
    return np.asarray(model.predict_proba(samples)[:, 1], dtype=float)


def _logistic_decision(model: Any, samples: np.ndarray) -> np.ndarray | None:
    """The decision function of a fitted `named_model("logistic")` pipeline without building its
    features: c + x·a + xᵀQx + |x|·b, the scaler folded into the weights (5× faster than the
    pipeline on 10 coordinates, 13× on 20, and no 66-column matrix per chunk). None for any
    other model."""
    if not (isinstance(model, Pipeline) and len(model.steps) == 3):
        return None
    expand, scaler, logistic = (step for _, step in model.steps)
    plain_scaler = isinstance(scaler, StandardScaler) and scaler.with_mean and scaler.with_std
    if not (
        plain_scaler and isinstance(logistic, LogisticRegression) and logistic.coef_.shape[0] == 1
    ):
        return None
    weights = logistic.coef_[0] / scaler.scale_  # scale_ is 1 for constant features
    constant = logistic.intercept_[0] - weights @ scaler.mean_
    x = np.asarray(samples, dtype=float)
    if isinstance(expand, FunctionTransformer) and expand.func is coordinate_shapes:
        linear, square, absolute = np.split(weights, 3)
        return constant + x @ linear + (x * x) @ square + np.abs(x) @ absolute
    if not isinstance(expand, PolynomialFeatures) or expand.degree != 2 or expand.interaction_only:
        return None
    linear, quadratic = np.zeros(x.shape[1]), np.zeros((x.shape[1], x.shape[1]))
    for weight, power in zip(weights, expand.powers_):
        where = np.flatnonzero(power)
        if len(where) == 0:
            constant += weight
        elif power.sum() == 1:
            linear[where[0]] += weight
        else:  # x_i² or x_i·x_j
            quadratic[where[0], where[-1]] += weight
    return constant + x @ linear + np.einsum("ij,ij->i", x @ quadratic, x)


class ModelScore:
    """A fitted model as an event's score; `describe_row` names a pattern (default: the row)."""

    def __init__(self, model: Any, describe_row: Callable[[np.ndarray], str | None] | None = None):
        self.model = model
        self._describe_row = describe_row

    def __call__(self, features: np.ndarray) -> np.ndarray:
        return classifier_score(self.model, features)

    def describe(self, interval: Interval) -> str:
        if isinstance(self.model, PatternScore):
            return self._describe_patterns(interval)
        if isinstance(self.model, MonotonePatternScore):
            return self._describe_cells(interval)
        text = f"{_model_name(self.model)} score: {interval.describe('score')}"
        drivers = _driving_coordinates(self.model)
        return text + (f"; driven most by output coordinates {drivers}" if drivers else "")

    def describe_row(self, row: np.ndarray) -> str:
        """An output pattern in words: the tester's way (`describe_row` returning a string), else
        the row. Words are cosmetic: a describer that raises gets the row and its error, and the
        audit keeps its result."""
        shown = str([_plain(value) for value in row])
        try:
            text = self._describe_row(row) if self._describe_row is not None else None
        except Exception as error:
            return f"{shown} (describe_output raised {type(error).__name__}: {error})"
        return text if text is not None else shown

    def _describe_cells(self, interval: Interval) -> str:
        cells = self.model.cells(interval)
        shown = [
            f"{self.describe_row(pattern)} with value in ({low:.4g}, {high:.4g})"
            for _, pattern, low, high in cells[:3]
        ]
        more = len(cells) - len(shown)
        listing = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
        unseen = (
            " or an output pattern not seen in training"
            if interval.contains(np.zeros(1))[0]
            else ""
        )
        smoothed = (
            f", smoothed by {self.model.prior_rows:,.0f} pseudo-rows"
            if self.model.prior_rows
            else ""
        )
        return (
            f"output in {{{listing}}}{unseen} (monotone pattern score{smoothed}:"
            f" {interval.describe('score')})"
        )

    def _describe_patterns(self, interval: Interval) -> str:
        inside = interval.contains(self.model.scores_)
        order = np.argsort(-np.abs(self.model.scores_[inside]))
        shown = [self.describe_row(row) for row in self.model.patterns_[inside][order][:3]]
        more = int(inside.sum()) - len(shown)
        listing = ", ".join(shown) + (f" and {more} more" if more > 0 else "")
        unseen = " or an output not seen in training" if interval.contains(np.zeros(1))[0] else ""
        return (
            f"output pattern in {{{listing}}}{unseen} (patterns score:"
            f" {interval.describe('score')})"
        )


def _plain(value: float):
    return int(value) if float(value).is_integer() else round(float(value), 4)


def _model_name(model: Any) -> str:
    if isinstance(model, Pipeline):
        steps = [type(step).__name__ for _, step in model.steps]
        degree = next(
            (step.degree for _, step in model.steps if isinstance(step, PolynomialFeatures)), 1
        )
        return f"{steps[-1]} (degree {degree})" if degree > 1 else steps[-1]
    return type(model).__name__


def _driving_coordinates(model: Any, count: int = 3) -> list[int]:
    """For a (polynomial) logistic pipeline on vector outputs: the output coordinates with the
    largest standardised weight summed over the features they enter."""
    if not isinstance(model, Pipeline) or not isinstance(model.steps[-1][1], LogisticRegression):
        return []
    weights = np.abs(model.steps[-1][1].coef_[0])
    powers = None
    for _, step in model.steps[:-1]:
        if isinstance(step, PolynomialFeatures):
            powers = step.powers_
        elif isinstance(step, FunctionTransformer) and step.func is coordinate_shapes:
            # x, x², |x| of each coordinate
            powers = np.tile(np.eye(len(weights) // 3, dtype=int), (3, 1))
        elif isinstance(step, StandardScaler):
            weights = weights * np.where(step.scale_ > 0, 1.0, 0.0)
    if powers is None:
        powers = np.eye(len(weights), dtype=int)
    per_coordinate = (powers > 0).T @ weights
    if len(per_coordinate) < 2:
        return []
    return [int(index) for index in np.argsort(-per_coordinate)[:count]]


class BlockwiseScaler(StandardScaler):
    """`StandardScaler` fitted a block of rows at a time (`partial_fit`): the same mean and scale
    (to 1e-13) without the temporary copy of the whole matrix that `fit` makes, whose first
    touches of fresh memory cost more than the fit (docs/decisions/0014-drawing-and-memory.md)."""

    BLOCK_ROWS = 1 << 16

    def fit(
        self, X: np.ndarray, y: Any = None, sample_weight: np.ndarray | None = None
    ) -> BlockwiseScaler:
        rows = self.BLOCK_ROWS
        if len(X) <= rows:
            return super().fit(X, y, sample_weight)
        for start in range(0, len(X), rows):
            block = slice(start, start + rows)
            weights = None if sample_weight is None else sample_weight[block]
            (super().fit if start == 0 else super().partial_fit)(X[block], y, weights)
        return self


# Degree-2 features for logistic regression up to this many output coordinates (beyond it the
# number of products makes fitting slow for little gain; wider outputs get each coordinate's
# square and absolute value instead).
MAX_QUADRATIC_WIDTH = 12
MODEL_NAMES = ("logistic", "boosting", "mlp", "patterns", "monotone")


def coordinate_shapes(features: np.ndarray) -> np.ndarray:
    """Each coordinate x, with x² and |x|: a score quadratic and kinked in every coordinate, for
    wide outputs (e.g. SVT3's values, zero where no value is released)."""
    features = np.asarray(features, dtype=float)
    width = features.shape[1]
    # filled in place: no temporaries of the matrix's size
    shapes = empty_array((len(features), 3 * width))
    shapes[:, :width] = features
    np.square(features, out=shapes[:, width : 2 * width])
    np.abs(features, out=shapes[:, 2 * width :])
    return shapes


def named_model(name: str, seed: int, width: int) -> object:
    """An unfitted scoring model by name: logistic, boosting, mlp, patterns or monotone."""
    if name == "logistic":  # quadratic boundaries (e.g. scale changes)
        # The scaler standardises in place the feature matrix the step before it has just built.
        expand = (
            PolynomialFeatures(2)
            if width <= MAX_QUADRATIC_WIDTH
            else FunctionTransformer(coordinate_shapes)
        )
        return make_pipeline(
            expand, BlockwiseScaler(copy=False), LogisticRegression(tol=1e-3, max_iter=100)
        )
    if name == "boosting":
        return HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=seed)
    if name == "mlp":
        return make_pipeline(
            StandardScaler(),
            MLPClassifier(
                hidden_layer_sizes=(32, 32), max_iter=50, early_stopping=True, random_state=seed
            ),
        )
    if name == "patterns":
        return PatternScore()
    if name == "monotone":
        return MonotonePatternScore()
    raise InvalidArgument(
        f"unknown classifier {name!r}; use one of {MODEL_NAMES}, 'auto' or a scikit-learn"
        " classifier."
    )


def candidate_models(spec: str | object, features: np.ndarray, seed: int) -> list[object]:
    """The unfitted models to try for `spec`: a name, a list of names or classifiers, or a
    classifier.

    ``"auto"`` is patterns (for discrete outputs) or monotone (for mixed ones), and logistic.
    Boosting and the MLP are stronger on some nonlinear boundaries but 10–20× slower to fit, so they
    are opt-in.
    """
    if isinstance(spec, (list, tuple)):
        return [model for item in spec for model in candidate_models(item, features, seed)]
    if not isinstance(spec, str):
        return [clone(spec)]
    width = features.shape[1]
    if spec == "auto":
        names = (
            ["patterns"] if is_discrete(features) else ["monotone"] if is_mixed(features) else []
        ) + ["logistic"]
        return [named_model(name, seed, width) for name in names]
    return [named_model(spec, seed, width)]
