"""Rényi tester: the variational (dual) form of the Rényi divergence with a fitted function.

R_α(P ‖ Q) = sup_h α/(α−1) · log E_P e^{(α−1)h} − log E_Q e^{αh}, attained at h = log dP/dQ
(DP-Auditorium §4.1, Thm 4.1). Any fixed h gives a lower bound; h is fitted on the training
half and the bound is evaluated on the held-out half.

**Function classes.** h = C · tanh(a(x)), so |h| < C, with
* ``function="chebyshev"`` (default): a(x) = Σ_j c_j T_j(u), Chebyshev polynomials of a squashed
  statistic u = tanh((s − median) / scale) ∈ (−1, 1). The statistic s is the output itself for
  1-D outputs, and a logistic regression's log-odds for vector outputs (the Bayes log-odds of
  P against Q is log dP/dQ, the optimal h);
* ``function="network"``: a(x) a one-hidden-layer tanh network on standardised outputs
  (slower, and weaker than the default on the shifts measured in the tests).
The parameters maximise the empirical dual on the training half (L-BFGS with exact gradients);
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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.polynomial import chebyshev
from scipy import optimize
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from dpfuzz.claims import ApproxDP, Claim, PureDP, RenyiDP, ZeroConcentratedDP, approx_dp
from dpfuzz.errors import UnsupportedClaimError
from dpfuzz.testers.base import Tester, TestResult, check_beta, paired_matrices
from dpfuzz.testers.models import classifier_score
from dpfuzz.validation import check_choice

_BOUNDS_C = (0.25, 0.5, 1.0, 2.0)
_FIT_SUBSAMPLE = {"chebyshev": 50_000, "network": 20_000}  # training samples per side used to fit h


class _Chebyshev:
    """a = B c for a fixed basis matrix B (inputs are the basis)."""

    def initial(self, width: int, rng: np.random.Generator) -> np.ndarray:
        start = np.zeros(width)
        start[min(1, width - 1)] = 0.1
        return start

    def forward(self, params: np.ndarray, inputs: np.ndarray):
        return inputs @ params, None

    def backward(self, params, inputs, cache, upstream: np.ndarray) -> np.ndarray:
        return upstream @ inputs


@dataclass(frozen=True)
class _Network:
    """a = v · tanh(X W + b) + c, one hidden layer of `hidden` units (inputs are standardised X)."""

    hidden: int

    def _unpack(self, params: np.ndarray, width: int):
        h = self.hidden
        weights = params[: width * h].reshape(width, h)
        bias, out, offset = (
            params[width * h : width * h + h],
            params[width * h + h : width * h + 2 * h],
            params[-1],
        )
        return weights, bias, out, offset

    def initial(self, width: int, rng: np.random.Generator) -> np.ndarray:
        return rng.normal(0.0, 0.5, size=width * self.hidden + 2 * self.hidden + 1)

    def forward(self, params: np.ndarray, inputs: np.ndarray):
        weights, bias, out, offset = self._unpack(params, inputs.shape[1])
        hidden = np.tanh(inputs @ weights + bias)
        return hidden @ out + offset, hidden

    def backward(self, params, inputs, hidden, upstream: np.ndarray) -> np.ndarray:
        weights, bias, out, offset = self._unpack(params, inputs.shape[1])
        d_hidden = np.outer(upstream, out) * (1 - hidden**2)
        return np.concatenate(
            [(inputs.T @ d_hidden).ravel(), d_hidden.sum(0), upstream @ hidden, [upstream.sum()]]
        )


@dataclass(frozen=True)
class DualFunction:
    """h(x) = C · tanh(a(features(x))): a fitted, bounded witness function for the dual."""

    features: Callable[[np.ndarray], np.ndarray]
    family: Any
    params: np.ndarray
    bound_c: float
    description: str

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return self.bound_c * np.tanh(self.family.forward(self.params, self.features(x))[0])

    def describe(self) -> str:
        return f"h = {self.bound_c:g}·tanh({self.description})"


class RenyiTester(Tester):
    """Refute Rényi DP (and pure DP through it) with the dual Rényi estimator.

    Parameters
    ----------
    alpha : the order used for pure-DP and ρ-zCDP claims (Rényi claims use their own α); a
        ρ-zCDP claim is tested as the (α, ρα)-RDP claim it makes at that order.
    function : ``"chebyshev"`` (default) or ``"network"`` (see the module docstring).
    degree : Chebyshev degree.
    hidden : hidden units of the network.
    """

    name = "renyi"
    claim_types = (RenyiDP, PureDP, ZeroConcentratedDP)

    def __init__(
        self,
        alpha: float = 2.0,
        function: Literal["chebyshev", "network"] = "chebyshev",
        degree: int = 8,
        hidden: int = 8,
    ):
        self.alpha = alpha
        self.function = function
        self.degree = degree
        self.hidden = hidden

    def check_claim(self, claim: Claim) -> None:
        check_choice("function", self.function, ("chebyshev", "network"))
        if isinstance(claim, ApproxDP) and not isinstance(claim, PureDP):
            raise UnsupportedClaimError(
                f"{self.name} refutes RenyiDP and PureDP claims, got {claim!r}; use 'hockey_stick'"
                " or 'mmd'."
            )
        super().check_claim(claim)

    def order(self, claim: Claim) -> float:
        return claim.alpha if isinstance(claim, RenyiDP) else float(self.alpha)

    def threshold(self, claim: Claim) -> float:
        if isinstance(claim, ZeroConcentratedDP):
            return claim.rho * self.order(claim)
        if isinstance(claim, RenyiDP):
            return claim.epsilon
        alpha = self.order(claim)
        epsilon = approx_dp(claim).epsilon
        return min(epsilon, alpha * epsilon**2 / 2)

    def max_certifiable(self, claim: Claim, samples: int, beta: float) -> float:
        """h = C on every P-sample and −C on every Q-sample, for the largest C tried."""
        alpha, bound_c = self.order(claim), max(_BOUNDS_C)
        h0, h1 = np.full(1, bound_c), np.full(1, -bound_c)
        return max(_corrected_bound(h0, h1, alpha, bound_c, beta, samples, samples), 0.0)

    def fit(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> DualFunction:
        """Fit h on training samples: its inputs, then its parameters for each C."""
        self.check_claim(claim)
        beta = check_beta(beta)
        alpha = self.order(claim)
        x0, x1 = paired_matrices(train0, train1)
        x0 = x0[rng.permutation(len(x0))[: _FIT_SUBSAMPLE[self.function]]]
        x1 = x1[rng.permutation(len(x1))[: _FIT_SUBSAMPLE[self.function]]]
        features, family, description = self._inputs(x0, x1)
        inputs0, inputs1 = features(x0), features(x1)
        n = eval_size or len(x0)
        candidates = []
        params = family.initial(inputs0.shape[1], rng)
        for bound_c in _BOUNDS_C:
            params = _maximise_dual(family, inputs0, inputs1, alpha, bound_c, params)
            function = DualFunction(features, family, params, bound_c, description)
            predicted = _corrected_bound(function(x0), function(x1), alpha, bound_c, beta, n, n)
            candidates.append((predicted, function))
        return max(candidates, key=lambda candidate: candidate[0])[1]

    def _inputs(self, x0: np.ndarray, x1: np.ndarray):
        """The map from outputs to the family's inputs, the family, and a description."""
        pooled = np.concatenate([x0, x1])
        if self.function == "network":
            mean, std = pooled.mean(0), pooled.std(0)
            std = np.where(std > 0, std, 1.0)
            return (
                (lambda x: (x - mean) / std),
                _Network(self.hidden),
                f"network with {self.hidden} hidden units",
            )
        if x0.shape[1] == 1:
            statistic, source = (lambda x: x[:, 0]), "output"
        else:
            model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=200))
            model.fit(
                pooled, np.concatenate([np.ones(len(x0), dtype=int), np.zeros(len(x1), dtype=int)])
            )
            statistic, source = (lambda x: classifier_score(model, x)), "logistic log-odds"
        values = statistic(pooled)
        centre = float(np.median(values))
        spread = float(np.subtract(*np.quantile(values, [0.75, 0.25])))
        scale = spread if spread > 0 else float(np.std(values) or 1.0)
        degree = self.degree

        def basis(x: np.ndarray) -> np.ndarray:
            return chebyshev.chebvander(np.tanh((statistic(x) - centre) / scale), degree)

        return basis, _Chebyshev(), f"Chebyshev degree {degree} of squashed {source}"

    def evaluate(
        self,
        function: DualFunction,
        test0: np.ndarray,
        test1: np.ndarray,
        claim: Claim,
        beta: float,
    ) -> TestResult:
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
        if isinstance(claim, (RenyiDP, ZeroConcentratedDP)):  # the Rényi ε at α
            epsilon_lower_bound = bound if bound > 0 else None
        else:  # smallest ε with min(ε, αε²/2) ≥ bound
            epsilon_lower_bound = max(bound, math.sqrt(2 * bound / alpha)) if bound > 0 else None
        return TestResult(
            tester=self.name,
            claim=claim,
            divergence=f"renyi(alpha={alpha:g})",
            bound=bound,
            threshold=threshold,
            epsilon_lower_bound=epsilon_lower_bound,
            estimate=float(_dual(h0, h1, alpha)),
            beta=beta,
            event=function.describe(),
            num_samples=(len(x0), len(x1)),
            details={"corrected_dual": corrected, "bound_c": function.bound_c},
            seconds=time.perf_counter() - start,
        )


def _dual(h0: np.ndarray, h1: np.ndarray, alpha: float) -> float:
    """α/(α−1) · log mean e^{(α−1)h(P)} − log mean e^{αh(Q)}."""
    return alpha / (alpha - 1) * np.log(np.mean(np.exp((alpha - 1) * h0))) - np.log(
        np.mean(np.exp(alpha * h1))
    )


def _corrected_bound(
    h0, h1, alpha: float, bound_c: float, beta: float, n_p: int, n_q: int
) -> float:
    """The held-out dual minus the Chernoff correction (module docstring); −inf when n is too
    small."""
    log_term = math.log(2 / beta)
    eta_u = math.sqrt(3 * math.exp(2 * (alpha - 1) * bound_c) * log_term / n_p)
    eta_v = math.sqrt(2 * math.exp(2 * alpha * bound_c) * log_term / n_q)
    if eta_u > 1 or eta_v >= 1:
        return -math.inf
    mean_u = np.mean(np.exp((alpha - 1) * h0))
    mean_v = np.mean(np.exp(alpha * h1))
    return float(
        alpha / (alpha - 1) * math.log(mean_u / (1 + eta_u)) - math.log(mean_v / (1 - eta_v))
    )


def _maximise_dual(
    family,
    inputs0: np.ndarray,
    inputs1: np.ndarray,
    alpha: float,
    bound_c: float,
    start: np.ndarray,
):
    """Parameters maximising the empirical dual of h = C·tanh(a) (L-BFGS, exact gradient)."""

    def negative_dual(params: np.ndarray) -> tuple[float, np.ndarray]:
        a0, cache0 = family.forward(params, inputs0)
        a1, cache1 = family.forward(params, inputs1)
        t0, t1 = np.tanh(a0), np.tanh(a1)
        w0 = np.exp((alpha - 1) * bound_c * t0)
        w1 = np.exp(alpha * bound_c * t1)
        value = alpha / (alpha - 1) * np.log(w0.mean()) - np.log(w1.mean())
        # dF/da per sample: α/(α−1)·(α−1)C(1 − t²)w/Σw for P, −αC(1 − t²)w/Σw for Q.
        upstream0 = alpha * bound_c * (1 - t0**2) * w0 / w0.sum()
        upstream1 = -alpha * bound_c * (1 - t1**2) * w1 / w1.sum()
        gradient = family.backward(params, inputs0, cache0, upstream0) + family.backward(
            params, inputs1, cache1, upstream1
        )
        return -value, -gradient

    result = optimize.minimize(
        negative_dual, start, jac=True, method="L-BFGS-B", options={"maxiter": 200}
    )
    return result.x
