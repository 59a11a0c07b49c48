"""MMD tester: a kernel two-sample distance that refutes approximate DP.

For a kernel with k(x, x) ≤ 1 (Gaussian, Laplacian), every unit-norm function of its RKHS is
bounded by 1, so MMD(P, Q) ≤ 2 TV(P, Q); and (ε, δ)-DP implies TV ≤ (e^ε − 1 + 2δ)/(e^ε + 1)
(Kairouz et al. 2015). Hence MMD > 2(e^ε − 1 + 2δ)/(e^ε + 1) refutes the claim — tighter than
DP-Auditorium's Thm 4.13 and valid for the same kernels (docs/explanation/statistics.md, "MMD").

MMD² is estimated with the linear-time unbiased statistic (Gretton et al. 2012, Lemma 14):
h_i = k(x_i, x'_i) + k(y_i, y'_i) − k(x_i, y'_i) − k(x'_i, y_i) ∈ [−2, 2] on disjoint pairs of
held-out samples, lower-bounded with the empirical Bernstein inequality. The bandwidth is
fitted on the training half (median heuristic), so it is independent of the evaluation.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Literal

import numpy as np

from dpfuzz.claims import ApproxDP, Claim, RenyiDP, approx_dp
from dpfuzz.testers.base import Tester, TestResult, check_beta, paired_matrices
from dpfuzz.testers.bounds import empirical_bernstein_lower
from dpfuzz.validation import check_choice

# Pairwise distances for the median heuristic are computed on this many training samples.
_MEDIAN_SUBSAMPLE = 1000


@dataclass(frozen=True)
class Kernel:
    """k(x, y) = exp(−‖x − y‖₂² / (2h²)) (gaussian) or exp(−‖x − y‖₁ / h) (laplacian)."""

    kind: str
    bandwidth: float

    def __call__(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Row-wise k(x_i, y_i) for two (m, d) arrays."""
        if self.kind == "gaussian":
            return np.exp(-np.sum((x - y) ** 2, axis=1) / (2 * self.bandwidth**2))
        return np.exp(-np.sum(np.abs(x - y), axis=1) / self.bandwidth)

    def describe(self) -> str:
        return f"{self.kind} kernel, bandwidth {self.bandwidth:.4g}"


class MMDTester(Tester):
    """Refute (ε, δ)-DP through a lower bound on the kernel MMD.

    Parameters
    ----------
    kernel : ``"gaussian"`` (default) or ``"laplacian"``.
    bandwidth : fixed bandwidth; default: the median heuristic on the training half.
    """

    name = "mmd"
    claim_types = (ApproxDP,)
    directional = False  # the statistic h and the median bandwidth are symmetric in the two samples

    def __init__(
        self, kernel: Literal["gaussian", "laplacian"] = "gaussian", bandwidth: float | None = None
    ):
        self.kernel = kernel
        self.bandwidth = bandwidth

    def check_claim(self, claim: Claim) -> None:
        super().check_claim(claim)
        check_choice("kernel", self.kernel, ("gaussian", "laplacian"))

    def claim_hint(self, claim: Claim) -> str:
        return " Use 'renyi' or 'hockey_stick'." if isinstance(claim, RenyiDP) else ""

    def threshold(self, claim: Claim) -> float:
        """2·TV bound of (ε, δ)-DP: 2(e^ε − 1 + 2δ)/(e^ε + 1)."""
        approx = approx_dp(claim)
        gamma = math.exp(approx.epsilon)
        return 2 * (gamma - 1 + 2 * approx.delta) / (gamma + 1)

    def max_certifiable(self, claim: Claim, samples: int, beta: float) -> float:
        """Every h_i = 2 (the sides never meet): mean 2, variance 0, minus Bernstein's range
        term."""
        pairs = samples // 2
        if pairs < 2:
            return 0.0
        return math.sqrt(max(2.0 - 7 * 4.0 * math.log(2 / beta) / (3 * (pairs - 1)), 0.0))

    def fit(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> Kernel:
        """The kernel, with its bandwidth from the median heuristic on training samples."""
        self.check_claim(claim)
        if self.bandwidth is not None:
            return Kernel(self.kernel, float(self.bandwidth))
        x0, x1 = paired_matrices(train0, train1)
        pooled = np.concatenate([x0, x1])
        sample = pooled[
            rng.choice(len(pooled), size=min(_MEDIAN_SUBSAMPLE, len(pooled)), replace=False)
        ]
        differences = sample[:, None, :] - sample[None, :, :]
        norms = (
            np.sqrt((differences**2).sum(-1))
            if self.kernel == "gaussian"
            else np.abs(differences).sum(-1)
        )
        distances = norms[np.triu_indices(len(sample), k=1)]
        positive = distances[distances > 0]
        bandwidth = float(np.median(positive)) if len(positive) else 1.0
        return Kernel(self.kernel, bandwidth)

    def evaluate(
        self, kernel: Kernel, test0: np.ndarray, test1: np.ndarray, claim: Claim, beta: float
    ) -> TestResult:
        """Empirical-Bernstein lower bound on MMD from the linear-time statistic."""
        start = time.perf_counter()
        self.check_claim(claim)
        beta = check_beta(beta)
        x, y = paired_matrices(test0, test1)
        m = min(len(x), len(y)) // 2
        x1, x2, y1, y2 = x[:m], x[m : 2 * m], y[:m], y[m : 2 * m]
        h = kernel(x1, x2) + kernel(y1, y2) - kernel(x1, y2) - kernel(x2, y1)
        squared_lower = empirical_bernstein_lower(h, 4.0, beta)
        bound = math.sqrt(max(squared_lower, 0.0))
        threshold = self.threshold(claim)
        return TestResult(
            tester=self.name,
            claim=claim,
            divergence=f"mmd({kernel.kind})",
            bound=bound,
            threshold=threshold,
            epsilon_lower_bound=_epsilon_from_total_variation(bound / 2, approx_dp(claim).delta),
            estimate=math.sqrt(max(float(h.mean()), 0.0)),
            beta=beta,
            event=kernel.describe(),
            num_samples=(len(x), len(y)),
            details={
                "pairs": m,
                "mmd_squared_lower": squared_lower,
                "mmd_squared_mean": float(h.mean()),
            },
            seconds=time.perf_counter() - start,
        )


def _epsilon_from_total_variation(tv_lower: float, delta: float) -> float | None:
    """Smallest ε with TV ≤ (e^ε − 1 + 2δ)/(e^ε + 1): ε = ln((1 + t − 2δ)/(1 − t)); None if ≤ 0."""
    if tv_lower >= 1.0:
        return math.inf
    value = math.log(max(1 + tv_lower - 2 * delta, 1e-300) / (1 - tv_lower))
    return value if value > 0 else None
