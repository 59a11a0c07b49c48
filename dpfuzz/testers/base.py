"""The tester contract, its result type, and the fit-then-evaluate split every tester shares."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np
from threadpoolctl import threadpool_limits

from dpfuzz.claims import Claim
from dpfuzz.errors import UnsupportedOutputError


@dataclass(frozen=True)
class TestResult:
    """What a tester certified about one ordered pair (P, Q) = (M(D0), M(D1)).

    Attributes
    ----------
    tester : name of the tester.
    claim : the claim tested.
    divergence : which divergence `bound` is about, e.g. ``"hockey_stick(gamma=2.718)"``.
    bound : lower bound on that divergence, valid with probability ≥ 1 − beta.
    threshold : the largest value of the divergence the claim allows.
    violated : ``bound > threshold``: the claim is refuted at confidence 1 − beta.
    epsilon_lower_bound : certified lower bound on ε (at the claim's δ, or at its α for
        Rényi claims); None when nothing positive is certified.
    estimate : plug-in estimate of the same divergence on the evaluation samples (not certified).
    beta : the bound's failure probability.
    event : the event the bound was evaluated on, in words.
    num_samples : (samples of P, samples of Q) used for evaluation.
    details : counts and intermediate bounds.
    seconds : wall time of fitting and evaluation.
    """

    __test__ = False  # not a pytest test class

    tester: str
    claim: Claim
    divergence: str
    bound: float
    threshold: float
    violated: bool
    epsilon_lower_bound: float | None
    estimate: float
    beta: float
    event: str
    num_samples: tuple[int, int]
    details: dict = field(default_factory=dict)
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {
            "tester": self.tester,
            "claim": self.claim.to_dict(),
            "divergence": self.divergence,
            "bound": self.bound,
            "threshold": self.threshold,
            "violated": self.violated,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "estimate": self.estimate,
            "beta": self.beta,
            "event": self.event,
            "num_samples": list(self.num_samples),
            "details": self.details,
            "seconds": self.seconds,
        }


class Tester(Protocol):
    """Estimates a high-confidence lower bound on the divergence a claim limits.

    ``test`` splits the samples, fits on the first half and evaluates on the second.
    ``fit`` and ``evaluate`` are exposed so the audit loop can fit on search samples and
    evaluate on fresh verification samples.
    """

    name: str

    def check_claim(self, claim: Claim) -> None: ...

    def fit(
        self, train0: np.ndarray, train1: np.ndarray, claim: Claim, beta: float, rng: np.random.Generator,
        eval_size: int | None = None,
    ): ...

    def evaluate(self, event, test0: np.ndarray, test1: np.ndarray, claim: Claim, beta: float) -> TestResult: ...

    def test(
        self, samples0: np.ndarray, samples1: np.ndarray, claim: Claim, beta: float, rng: np.random.Generator
    ) -> TestResult: ...


def single_threaded():
    """Context: one BLAS/OpenMP thread. The testers' models are small; on this 2-core machine
    threading them made one SVT hockey-stick test 6.5× slower (0.27 s against 0.042 s)."""
    return threadpool_limits(limits=1)


class HeldOutTester:
    """`test` for testers with `fit` and `evaluate`: fit on the first half, evaluate on the second."""

    def test(
        self, samples0: np.ndarray, samples1: np.ndarray, claim: Claim, beta: float, rng: np.random.Generator
    ) -> TestResult:
        start = time.perf_counter()
        train0, test0 = split_halves(samples0)
        train1, test1 = split_halves(samples1)
        with single_threaded():
            fitted = self.fit(train0, train1, claim, beta, rng, eval_size=len(test0))
            result = self.evaluate(fitted, test0, test1, claim, beta)
        return replace(result, seconds=time.perf_counter() - start)


def as_feature_matrix(samples: np.ndarray, name: str) -> np.ndarray:
    """Samples as a float matrix (n, k): scalar outputs give k = 1, larger outputs are flattened."""
    samples = np.asarray(samples)
    if samples.ndim == 0 or len(samples) == 0:
        raise UnsupportedOutputError(f"{name} must be a non-empty array of samples, got shape {samples.shape}.")
    return samples.reshape(len(samples), -1).astype(float, copy=False)


def paired_matrices(samples0: np.ndarray, samples1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both sample sets as feature matrices of the same width."""
    x0, x1 = as_feature_matrix(samples0, "samples0"), as_feature_matrix(samples1, "samples1")
    if x0.shape[1] != x1.shape[1]:
        raise UnsupportedOutputError(
            f"samples0 has outputs of size {x0.shape[1]} but samples1 of size {x1.shape[1]}; "
            "both sides must come from the same mechanism."
        )
    return x0, x1


def split_halves(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First half to fit, second half to evaluate (samples are i.i.d., so order is irrelevant)."""
    middle = len(samples) // 2
    if middle == 0:
        raise UnsupportedOutputError(f"need at least 2 samples per side to fit and evaluate, got {len(samples)}.")
    return samples[:middle], samples[middle:]


def check_beta(beta: float) -> float:
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta!r}.")
    return float(beta)
