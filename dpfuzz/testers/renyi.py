"""Rényi tester: the variational (dual) form of the Rényi divergence with a fitted function.

R_α(P ‖ Q) = sup_h α/(α−1) · log E_P e^{(α−1)h} − log E_Q e^{αh}, attained at h = log dP/dQ
(DP-Auditorium §4.1, Thm 4.1). Any fixed h gives a lower bound; h is fitted on the training
half and the bound is evaluated on the held-out half.

**Function class.** h = C · tanh(Σ_j c_j T_j(u)) with Chebyshev polynomials T_j of a squashed
statistic u = tanh((s − median) / scale) ∈ (−1, 1), so |h| < C. The statistic s is the output
itself for 1-D outputs, and a fitted classifier's log-odds for vector outputs (logistic
regression, or ``model="mlp"`` for a small multilayer perceptron) — the Bayes log-odds of P
against Q is log dP/dQ, the optimal h. The coefficients maximise the empirical dual (L-BFGS);
C is chosen among a few values by the corrected bound predicted on the training half.

**Chernoff correction** (derived here; the constants agree with DP-Auditorium Thm 4.3).
U = e^{(α−1)h} lies in [0, e^{(α−1)C}] with mean ≥ e^{−(α−1)C}; V = e^{αh} in [0, e^{αC}]
with mean ≥ e^{−αC}. The multiplicative Chernoff bounds for bounded variables give, each with
probability ≥ 1 − β/2, E U ≥ Ū / (1 + η_U) and E V ≤ V̄ / (1 − η_V) with
η_U = √(3 e^{2(α−1)C} ln(2/β) / n_P) ≤ 1 and η_V = √(2 e^{2αC} ln(2/β) / n_Q) < 1. So
R_α(P ‖ Q) ≥ α/(α−1) · log(Ū / (1 + η_U)) − log(V̄ / (1 − η_V)).

**Claims.** (α, ε)-RDP is refuted when the bound exceeds ε. ε-DP implies (½ε²)-zCDP
(Bun & Steinke 2016, Prop. 3.3), so R_α ≤ min(ε, αε²/2) for every α — tighter than
DP-Auditorium's Lemma 4.6 (min(ε, 2αε²)) — and a larger bound refutes pure DP at the
tester's `alpha`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np
from numpy.polynomial import chebyshev
from scipy import optimize
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dpfuzz.claims import ApproxDP, Claim, PureDP, RenyiDP
from dpfuzz.errors import UnsupportedClaimError
from dpfuzz.testers.base import HeldOutTester, TestResult, check_beta, paired_matrices
from dpfuzz.testers.events import classifier_score

_BOUNDS_C = (0.25, 0.5, 1.0, 2.0)
_FIT_SUBSAMPLE = 50_000  # training samples per side used to fit h


@dataclass(frozen=True)
class DualFunction:
    """h(x) = C · tanh(Σ c_j T_j(tanh((s(x) − centre) / scale))), |h| < C."""

    model: object | None  # fitted classifier for vector outputs, None for 1-D outputs
    centre: float
    scale: float
    coefficients: np.ndarray
    bound_c: float

    def statistic(self, x: np.ndarray) -> np.ndarray:
        return x[:, 0] if self.model is None else classifier_score(self.model, x)

    def basis(self, x: np.ndarray) -> np.ndarray:
        u = np.tanh((self.statistic(x) - self.centre) / self.scale)
        return chebyshev.chebvander(u, len(self.coefficients) - 1)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.bound_c * np.tanh(self.basis(x) @ self.coefficients)

    def describe(self) -> str:
        source = "output" if self.model is None else f"{type(self.model).__name__} log-odds"
        return f"h = {self.bound_c:g}·tanh(Chebyshev degree {len(self.coefficients) - 1} of squashed {source})"


class RenyiTester(HeldOutTester):
    """Refute Rényi DP (and pure DP through it) with the dual Rényi estimator.

    Parameters
    ----------
    alpha : the order used for pure-DP claims (Rényi claims use their own α).
    degree : Chebyshev degree of h.
    model : for vector outputs, ``"logistic"`` (default), ``"mlp"`` or a scikit-learn classifier.
    """

    name = "renyi"

    def __init__(self, alpha: float = 2.0, degree: int = 8, model: str | object = "logistic"):
        self.alpha = alpha
        self.degree = degree
        self.model = model

    def check_claim(self, claim: Claim) -> None:
        if isinstance(claim, PureDP) or isinstance(claim, RenyiDP):
            return
        if isinstance(claim, ApproxDP):
            raise UnsupportedClaimError(
                f"{self.name} refutes RenyiDP and PureDP claims, got {claim!r}; use 'hockey_stick' or 'mmd'."
            )
        raise UnsupportedClaimError(f"{self.name} refutes RenyiDP and PureDP claims, got {claim!r}.")

    def order(self, claim: Claim) -> float:
        return claim.alpha if isinstance(claim, RenyiDP) else float(self.alpha)

    def threshold(self, claim: Claim) -> float:
        if isinstance(claim, RenyiDP):
            return claim.epsilon
        alpha = self.order(claim)
        return min(claim.epsilon, alpha * claim.epsilon**2 / 2)

    def fit(self, train0, train1, claim: Claim, beta: float, rng: np.random.Generator, eval_size=None) -> DualFunction:
        """Fit h on training samples: statistic, squashing, then coefficients for each C."""
        self.check_claim(claim)
        beta = check_beta(beta)
        alpha = self.order(claim)
        x0, x1 = paired_matrices(train0, train1)
        x0 = x0[rng.permutation(len(x0))[:_FIT_SUBSAMPLE]]
        x1 = x1[rng.permutation(len(x1))[:_FIT_SUBSAMPLE]]
        model = None if x0.shape[1] == 1 else self._fit_model(x0, x1, rng)
        probe = DualFunction(model, 0.0, 1.0, np.zeros(1), 1.0)
        pooled = np.concatenate([probe.statistic(x0), probe.statistic(x1)])
        centre = float(np.median(pooled))
        quartiles = np.subtract(*np.quantile(pooled, [0.75, 0.25]))
        scale = float(quartiles) if quartiles > 0 else float(np.std(pooled) or 1.0)
        n = eval_size or len(x0)
        best, best_bound = None, -np.inf
        for bound_c in _BOUNDS_C:
            function = DualFunction(model, centre, scale, np.zeros(self.degree + 1), bound_c)
            basis0, basis1 = function.basis(x0), function.basis(x1)
            coefficients = _maximise_dual(basis0, basis1, alpha, bound_c)
            function = replace(function, coefficients=coefficients)
            predicted = _corrected_bound(function(x0), function(x1), alpha, bound_c, beta, n, n)
            if predicted > best_bound or best is None:
                best, best_bound = function, predicted
        return best

    def evaluate(self, function: DualFunction, test0, test1, claim: Claim, beta: float) -> TestResult:
        """The Chernoff-corrected dual on held-out samples."""
        start = time.perf_counter()
        self.check_claim(claim)
        beta = check_beta(beta)
        alpha = self.order(claim)
        x0, x1 = paired_matrices(test0, test1)
        h0, h1 = function(x0), function(x1)
        corrected = _corrected_bound(h0, h1, alpha, function.bound_c, beta, len(x0), len(x1))
        bound = max(corrected, 0.0)  # R_α ≥ 0 always
        threshold = self.threshold(claim)
        if isinstance(claim, RenyiDP):
            epsilon_lower_bound = bound if bound > 0 else None
        else:  # smallest ε with min(ε, αε²/2) ≥ bound
            epsilon_lower_bound = max(bound, math.sqrt(2 * bound / alpha)) if bound > 0 else None
        return TestResult(
            tester=self.name,
            claim=claim,
            divergence=f"renyi(alpha={alpha:g})",
            bound=bound,
            threshold=threshold,
            violated=bool(bound > threshold),
            epsilon_lower_bound=epsilon_lower_bound,
            estimate=float(_dual(h0, h1, alpha)),
            beta=beta,
            event=function.describe(),
            num_samples=(len(x0), len(x1)),
            details={"corrected_dual": corrected, "bound_c": function.bound_c},
            seconds=time.perf_counter() - start,
        )

    def _fit_model(self, x0: np.ndarray, x1: np.ndarray, rng: np.random.Generator) -> object:
        if self.model == "logistic":
            model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=200))
        elif self.model == "mlp":
            seed = int(rng.integers(2**31 - 1))
            model = make_pipeline(
                StandardScaler(), MLPClassifier(hidden_layer_sizes=(32,), max_iter=100, early_stopping=True, random_state=seed)
            )
        else:
            model = clone(self.model)
        labels = np.concatenate([np.ones(len(x0), dtype=int), np.zeros(len(x1), dtype=int)])
        return model.fit(np.concatenate([x0, x1]), labels)


def _dual(h0: np.ndarray, h1: np.ndarray, alpha: float) -> float:
    """α/(α−1) · log mean e^{(α−1)h(P)} − log mean e^{αh(Q)}."""
    return alpha / (alpha - 1) * np.log(np.mean(np.exp((alpha - 1) * h0))) - np.log(np.mean(np.exp(alpha * h1)))


def _corrected_bound(h0, h1, alpha: float, bound_c: float, beta: float, n_p: int, n_q: int) -> float:
    """The held-out dual minus the Chernoff correction (module docstring); −inf when n is too small."""
    log_term = math.log(2 / beta)
    eta_u = math.sqrt(3 * math.exp(2 * (alpha - 1) * bound_c) * log_term / n_p)
    eta_v = math.sqrt(2 * math.exp(2 * alpha * bound_c) * log_term / n_q)
    if eta_u > 1 or eta_v >= 1:
        return -math.inf
    mean_u = np.mean(np.exp((alpha - 1) * h0))
    mean_v = np.mean(np.exp(alpha * h1))
    return float(alpha / (alpha - 1) * math.log(mean_u / (1 + eta_u)) - math.log(mean_v / (1 - eta_v)))


def _maximise_dual(basis0: np.ndarray, basis1: np.ndarray, alpha: float, bound_c: float) -> np.ndarray:
    """Coefficients c maximising the empirical dual of h = C·tanh(basis @ c) (L-BFGS, exact gradient)."""

    def negative_dual(c: np.ndarray) -> tuple[float, np.ndarray]:
        t0, t1 = np.tanh(basis0 @ c), np.tanh(basis1 @ c)
        w0 = np.exp((alpha - 1) * bound_c * t0)
        w1 = np.exp(alpha * bound_c * t1)
        value = alpha / (alpha - 1) * np.log(w0.mean()) - np.log(w1.mean())
        # d/dc of each term: weights times dh/dc = C (1 − tanh²) basis.
        grad0 = (w0 * (1 - t0**2)) @ basis0 * ((alpha - 1) * bound_c) / w0.sum()
        grad1 = (w1 * (1 - t1**2)) @ basis1 * (alpha * bound_c) / w1.sum()
        gradient = alpha / (alpha - 1) * grad0 - grad1
        return -value, -gradient

    start = np.zeros(basis0.shape[1])
    start[1] = 0.1 if basis0.shape[1] > 1 else 0.0
    result = optimize.minimize(negative_dual, start, jac=True, method="L-BFGS-B", options={"maxiter": 200})
    return result.x
