"""Scoring models that turn vector outputs into a 1-D score whose intervals are events.

Each is a scikit-learn classifier (P samples labelled 1, Q samples 0), or `PatternScore`, the
exact log-likelihood ratio of each distinct output vector (for discrete outputs such as SVT
answer vectors or argmax indices, where the best event is a set of output patterns).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

# Discrete outputs with at most this many distinct rows are scored pattern by pattern.
MAX_PATTERNS = 5000


class PatternScore(ClassifierMixin, BaseEstimator):
    """Score of an output = log(p̂(pattern) / q̂(pattern)) with ½-smoothed training counts.

    Unseen patterns score 0. Exact for discrete outputs: thresholding the score ranks output
    patterns by likelihood ratio, the Neyman–Pearson order.
    """

    def fit(self, features: np.ndarray, labels: np.ndarray) -> "PatternScore":
        keys = _row_keys(features)
        self.keys_, inverse = np.unique(keys, return_inverse=True)
        counts_p = np.bincount(inverse[labels == 1], minlength=len(self.keys_)) + 0.5
        counts_q = np.bincount(inverse[labels == 0], minlength=len(self.keys_)) + 0.5
        self.scores_ = np.log(counts_p / counts_p.sum()) - np.log(counts_q / counts_q.sum())
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, features: np.ndarray) -> np.ndarray:
        keys = _row_keys(features)
        position = np.clip(np.searchsorted(self.keys_, keys), 0, len(self.keys_) - 1)
        known = self.keys_[position] == keys
        return np.where(known, self.scores_[position], 0.0)


def _row_keys(features: np.ndarray) -> np.ndarray:
    """One comparable scalar per row: the row's bytes as a numpy void."""
    rows = np.ascontiguousarray(features, dtype=np.float64) + 0.0  # one key for 0.0 and -0.0
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def is_discrete(features: np.ndarray) -> bool:
    """Integer-valued outputs with few enough distinct rows to score pattern by pattern."""
    if not np.all(features == np.round(features)):
        return False
    return len(np.unique(_row_keys(features))) <= MAX_PATTERNS


# Degree-2 features for logistic regression up to this many output coordinates (beyond it the
# number of products makes fitting slow for little gain).
MAX_QUADRATIC_WIDTH = 12


def named_model(name: str, seed: int, width: int) -> object:
    """An unfitted scoring model by name: logistic, boosting, mlp or patterns."""
    if name == "logistic":  # degree-2 features give quadratic boundaries (e.g. scale changes)
        degree = 2 if width <= MAX_QUADRATIC_WIDTH else 1
        return make_pipeline(PolynomialFeatures(degree), StandardScaler(), LogisticRegression(tol=1e-3, max_iter=100))
    if name == "boosting":
        return HistGradientBoostingClassifier(max_iter=100, early_stopping=False, random_state=seed)
    if name == "mlp":
        return make_pipeline(
            StandardScaler(), MLPClassifier(hidden_layer_sizes=(32, 32), max_iter=50, early_stopping=True, random_state=seed)
        )
    if name == "patterns":
        return PatternScore()
    raise ValueError(f"unknown model {name!r}; use 'logistic', 'boosting', 'mlp', 'patterns' or a scikit-learn classifier.")


def candidate_models(spec: str | object, features: np.ndarray, seed: int) -> list[object]:
    """The unfitted models to try for `spec`: a name, a list of names or classifiers, or a classifier.

    ``"auto"`` is patterns (for discrete outputs) and logistic. Boosting and the MLP are
    stronger on some nonlinear boundaries but 10–20× slower to fit, so they are opt-in.
    """
    if isinstance(spec, (list, tuple)):
        return [model for item in spec for model in candidate_models(item, features, seed)]
    if not isinstance(spec, str):
        return [clone(spec)]
    width = features.shape[1]
    if spec == "auto":
        names = (["patterns"] if is_discrete(features) else []) + ["logistic"]
        return [named_model(name, seed, width) for name in names]
    return [named_model(spec, seed, width)]
