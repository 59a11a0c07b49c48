"""The tester contract, its result type, and the fit-then-evaluate split every tester shares."""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from dpfuzz.claims import Claim
from dpfuzz.errors import UnsupportedClaimError, UnsupportedOutputError
from dpfuzz.validation import check_probability


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
    epsilon_lower_bound : certified lower bound on ε (at the claim's δ, or at its α for
        Rényi claims); None when nothing positive is certified.
    estimate : plug-in estimate of the same divergence on the evaluation samples (not certified).
    beta : the bound's failure probability.
    event : the event (or witness function) the bound was evaluated on, in words.
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
    epsilon_lower_bound: float | None
    estimate: float
    beta: float
    event: str
    num_samples: tuple[int, int]
    details: dict = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def violated(self) -> bool:
        """``bound > threshold``: the claim is refuted at confidence 1 − beta."""
        return bool(self.bound > self.threshold)

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


class Tester:
    """Estimates a high-confidence lower bound on the divergence a claim limits.

    A tester fits something (an event, a witness function, a kernel bandwidth) on training
    samples with ``fit`` and certifies it on other samples with ``evaluate``; ``test`` does both
    on the two halves of one sample. The audit fits on search samples and evaluates on fresh
    verification samples, through the same two methods, so the certificate is always the one
    the search estimated. Subclasses set `name` and `claim_types` and implement ``fit`` and
    ``evaluate``; the constructor only stores options (checked in ``check_claim``).
    """

    name: str = "tester"
    claim_types: tuple[type, ...] = ()
    # False when the test of (P, Q) is the test of (Q, P): an audit then verifies one direction
    directional: bool = True
    # True when the tester's constructor takes `describe_output` (words for output patterns in
    # event descriptions): the engine passes the mechanism's words to the testers it builds
    takes_output_words: bool = False
    # True when `in_event` and `certify_counts` certify from counts: verification then draws,
    # counts and discards fresh outputs a chunk at a time instead of keeping them
    counts_events: bool = False

    def check_claim(self, claim: Claim) -> None:
        """Raise `UnsupportedClaimError` for a claim this tester cannot refute (and check
        options)."""
        if not isinstance(claim, self.claim_types):
            from dpfuzz.claims import CLAIM_TYPES

            names = [
                name for name, kind in CLAIM_TYPES.items() if issubclass(kind, self.claim_types)
            ]
            kinds = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            hint = self.claim_hint(claim)
            if hasattr(claim, "to_approx"):  # a privacy-profile claim (μ-GDP, ρ-zCDP)
                hint += (
                    " The hockey_stick and histogram testers refute it through its privacy"
                    " profile; with this tester, audit an (ε, δ)-DP claim it implies, e.g."
                    f" claim.to_approx(1e-5) = {claim.to_approx(1e-5).describe()}."
                )
            raise UnsupportedClaimError(f"{self.name} refutes {kinds} claims, got {claim!r}.{hint}")

    def claim_hint(self, claim: Claim) -> str:
        """A sentence naming testers that do refute `claim` (shown in the error)."""
        return ""

    def threshold(self, claim: Claim) -> float:
        """The largest value of this tester's divergence that `claim` allows."""
        raise NotImplementedError

    def score(self, result: TestResult) -> float:
        """What the search ranks pairs and directions by (higher: closer to a refutation): the
        held-out plug-in estimate minus the claim's limit. It is unbiased for the fitted event's
        divergence, whereas lower bounds favour tiny events whose width is small but whose
        divergence is 0."""
        return result.estimate - result.threshold

    def score_name(self, claim: Claim) -> str:
        """What `score` measures for `claim`, in the words a report's search table heads it with."""
        return "held-out estimate − claim's limit"

    def max_certifiable(self, claim: Claim, samples: int, beta: float) -> float | None:
        """The largest bound any fitted event or function could certify with `samples` held-out
        outputs per side (None: not known). A claim whose threshold is above it cannot be refuted.
        """
        return None

    def detectable(self, result: TestResult) -> dict:
        """What the evaluation behind `result` could have detected: the smallest value of its
        divergence it would have certified (threshold plus its confidence width)."""
        return {
            "divergence": result.divergence,
            "value": result.threshold + max(result.estimate - result.bound, 0.0),
            "claim_allows": result.threshold,
            "samples": int(min(result.num_samples)),
        }

    def fit(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> Any:
        """Fit on training samples; `eval_size` is the held-out sample size per side it will
        meet."""
        raise NotImplementedError

    def fit_both(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> tuple:
        """What `fit` returns for (train0, train1) and for (train1, train0): the search scores
        both directions of a pair. Testers that can share the work between them override this."""
        return (
            self.fit(train0, train1, claim, beta, rng, eval_size=eval_size),
            self.fit(train1, train0, claim, beta, rng, eval_size=eval_size),
        )

    def fit_oriented(
        self,
        train0: np.ndarray,
        train1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
        eval_size: int | None = None,
    ) -> tuple:
        """(event, reversed): one pair's better direction and its event, chosen in one fit on all
        of `train0` and `train1`; `reversed` is True when the event is for (train1, train0). A
        plan with ``orient_by_fit`` needs it; testers without it orient pairs by held-out scores."""
        raise NotImplementedError(f"the {self.name} tester does not orient a pair in one fit.")

    def evaluate(
        self, fitted: Any, test0: np.ndarray, test1: np.ndarray, claim: Claim, beta: float
    ) -> TestResult:
        """The certified result of `fitted` on held-out samples (never those it was fitted on)."""
        raise NotImplementedError

    def counts(self, event: Any) -> bool:
        """Whether `event` is certified from counts (`in_event`, `certify_counts`): verification
        then draws, counts and discards its outputs a chunk at a time (`counts_events` says
        whether the tester's events can be)."""
        return self.counts_events

    def in_event(self, event: Any, samples: np.ndarray) -> int:
        """How many of `samples` fall in `event` (testers with `counts_events`)."""
        raise NotImplementedError(f"the {self.name} tester does not certify from counts.")

    def event_mask(self, event: Any, samples: np.ndarray) -> np.ndarray:
        """Which of `samples` fall in `event`, one bool each (testers with `counts_events`)."""
        raise NotImplementedError(f"the {self.name} tester does not count events")

    def certify_counts(
        self,
        event: Any,
        counts_p: tuple[int, int],
        counts_q: tuple[int, int],
        claim: Claim,
        beta: float,
    ) -> TestResult:
        """The certificate of `event` from its held-out counts (k, n) under P and under Q
        (testers with `counts_events`)."""
        raise NotImplementedError(f"the {self.name} tester does not certify from counts.")

    def fits_cheaply(self, outputs: np.ndarray) -> bool:
        """Whether fitting events on outputs like `outputs` costs about what drawing them does,
        so that a search may try more pairs for its spare draws (`AuditPolicy.racing_fill`);
        False unless a tester says so."""
        return False

    def event_options(self) -> dict:
        """Options a companion event tester shares with this one (the float bit-pattern tester
        that ``arithmetic="float"`` adds): none by default."""
        return {}

    def test(
        self,
        samples0: np.ndarray,
        samples1: np.ndarray,
        claim: Claim,
        beta: float,
        rng: np.random.Generator,
    ) -> TestResult:
        """Fit on the first half of each sample, evaluate on the second."""
        start = time.perf_counter()
        train0, test0 = split_halves(samples0)
        train1, test1 = split_halves(samples1)
        with single_threaded():
            fitted = self.fit(train0, train1, claim, beta, rng, eval_size=len(test0))
            result = self.evaluate(fitted, test0, test1, claim, beta)
        return replace(result, seconds=time.perf_counter() - start)

    def __repr__(self) -> str:
        options = ", ".join(
            f"{key}={value!r}" for key, value in vars(self).items() if not key.startswith("_")
        )
        return f"{type(self).__name__}({options})"


def single_threaded() -> AbstractContextManager[Any]:
    """Context: one BLAS/OpenMP thread. The testers' models are small, and threads cost them more
    than they gain (docs/decisions/0014-drawing-and-memory.md).

    The thread-pool controller is kept (as scikit-learn keeps its own) and built again only after
    new modules were imported, which may have loaded a new native library: `threadpool_limits`
    scans the process's libraries on every call, 4 ms, a tenth of a 1-D audit's time."""
    import sys

    from threadpoolctl import ThreadpoolController

    if _CONTROLLER.get("modules") != len(sys.modules):
        _CONTROLLER.update(controller=ThreadpoolController(), modules=len(sys.modules))
    return _CONTROLLER["controller"].limit(limits=1)


_CONTROLLER: dict = {}  # the cached ThreadpoolController and the module count it was built at


def as_feature_matrix(samples: np.ndarray, name: str, keep_integers: bool = False) -> np.ndarray:
    """Samples as a float matrix (n, k): scalar outputs give k = 1, larger outputs are flattened;
    with `keep_integers`, integer samples stay integers (a float copy of many outputs costs
    first touches of fresh memory; docs/decisions/0014-drawing-and-memory.md)."""
    samples = np.asarray(samples)
    if samples.ndim == 0 or len(samples) == 0:
        raise UnsupportedOutputError(
            f"{name} must be a non-empty array of samples, got shape {samples.shape}."
        )
    matrix = samples.reshape(len(samples), -1)
    return (
        matrix
        if keep_integers and np.issubdtype(matrix.dtype, np.integer)
        else matrix.astype(float, copy=False)
    )


def paired_matrices(
    samples0: np.ndarray, samples1: np.ndarray, keep_integers: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Both sample sets as feature matrices of the same width (`as_feature_matrix`)."""
    x0, x1 = (
        as_feature_matrix(samples0, "samples0", keep_integers),
        as_feature_matrix(samples1, "samples1", keep_integers),
    )
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
        raise UnsupportedOutputError(
            f"need at least 2 samples per side to fit and evaluate, got {len(samples)}."
        )
    return samples[:middle], samples[middle:]


def check_beta(beta: float) -> float:
    return check_probability("beta", beta)
